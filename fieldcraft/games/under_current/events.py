"""What each reader is told of an Under Current move, and the end screen, as catalogue events.

Why a module of its own: the rules core never computes text (a playout runs none of this); a
table asks for one event per reader when a move is played (``Notation.event``), and these
functions read the state before the move to say what that reader may know, nothing more:

* a passed card is named to the passer and the receiver (and to whoever already knew the last
  card of a hand), a filed card to those who know it, a draw to the drawer, a scanned hand or a
  spied role to the active seat; everyone else hears that it happened ("``_hidden``" keys);
* the deal is one ``setup`` line per reader at its last step: the reader's role and hand, what
  an Eye holder saw at the identity confirmation, and the starting seat;
* a card turned face up because the row had too many face-down cards is told to all (``_up``
  keys), since everyone sees it.

Parameters are ids and names rendered through the catalogues' namespaces (``card.``, ``role.``,
``faction.``, ``effect.``, ``verb.``); seats are numbers (``{x|seat}``), row slots 0-based
(``{x|+1}``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fieldcraft.core.text import Event

from .constants import (
    BLUE,
    BURN,
    CHOOSE_START,
    DEAL_CARDS,
    DEAL_ROLES,
    DECLARE_BLUE,
    DECLARE_RED,
    DRAW,
    DROP,
    DROP_CHOICE,
    EFFECTS,
    FACTIONS,
    FETCH,
    FLIP,
    GREEN,
    PASS,
    RECEIVE,
    RED,
    RETIRE,
    RETIRE_CHOICE,
    ROW_CHOICE,
    SCAN,
    SNATCH,
    SNATCH_DRAW,
    SNATCH_PICK,
    SPY,
    SWAP,
    SWAP_OWN,
    SWAP_THEIRS,
    TARGET,
    YELLOW,
)

if TYPE_CHECKING:
    from .rules import UnderCurrentState


def _event(key: str, **params: Any) -> Event:
    return {"key": key, "params": params}


def _knows(mask: int, seat: int | None, n: int) -> bool:
    """Whether ``seat`` (``None``: the public) is in a ``known`` bitmask (see ``rules.py``)."""
    viewer = n if seat is None else seat
    return bool(mask >> viewer & 1) or bool(mask >> n & 1)


def _setup_ends(state: UnderCurrentState) -> bool:
    """Whether this chance step is the deal's last (the one that tells the setup line)."""
    g = state.game
    if state.phase == CHOOSE_START:
        return True
    n = g.num_players
    return (state.phase == DEAL_CARDS and not g.random_start and state.draw_seat == n - 1
            and len(state.hands[n - 1]) == g.hand_size - 1)


def _setup(state: UnderCurrentState, action: int, seat: int | None) -> Event:
    g = state.game
    start = action - g.A_START if state.phase == CHOOSE_START else 0
    if seat is None:
        return _event("setup_watch", start=start)
    hand = [g.card_names[c] for c in state.hands[seat]]
    if state.phase == DEAL_CARDS and state.draw_seat == seat:
        hand.append(g.card_names[action - g.A_DRAW])
    role = g.role_names[state.roles[seat]]
    record = state.eye_record[seat]
    if record is not None:
        eyes, thumbs = record
        key = "setup_eye" if thumbs else "setup_eye_nothumbs"
        return _event(key, seat=seat, role=role, hand=hand, start=start, eyes=list(eyes),
                      thumbs=list(thumbs))
    return _event("setup", seat=seat, role=role, hand=hand, start=start)


def _filed_up(state: UnderCurrentState) -> dict[str, Any]:
    """The card a filing turns face up (the row may hold only so many face-down cards), told to
    everyone: ``{"up": card, "up_slot": index}``, or nothing."""
    g = state.game
    if state.row_up.count(0) + 1 <= g.row_limit:
        return {}
    oldest = state.row_up.index(0)
    return {"up": g.card_names[state.row[oldest]], "up_slot": oldest}


def _filing(key: str, known: bool, card: str, up: dict[str, Any], **params: Any) -> Event:
    """A card entering the row face down: named when the reader knows it, plus any card that
    turned face up as a consequence."""
    if known:
        params["card"] = card
    else:
        key += "_hidden"
    if up:
        key += "_up"
        params.update(up)
    return {"key": key, "params": params}


def _comes_to_nothing(state: UnderCurrentState, effect: int) -> bool:
    """Whether a used card's effect has nothing to act on (the turn just ends): the same tests
    as ``TurnRules._resolve``, on what everyone sees (hand sizes, the row's length)."""
    g = state.game
    a = state.active
    hands = state.hands
    others = [s for s in range(g.num_players) if s != a]
    if effect in (SCAN, SWAP):
        return (effect == SWAP and not hands[a]) or not any(hands[s] for s in others)
    if effect == SNATCH:
        return not any(len(hands[s]) == g.snatch_hand for s in others)
    if effect == DROP:
        return not hands[a]
    if effect in (FETCH, BURN):
        return not state.row
    if effect == RETIRE:
        return len(state.row) < g.retire_min_row
    return False  # SPY, FLIP and PEEK always act


def event(state: UnderCurrentState, action: int, seat: int | None) -> Event | None:
    """What ``seat`` (``None``: a spectator) is told when ``action`` is applied to ``state``."""
    g = state.game
    n = g.num_players
    phase = state.phase
    a = state.active
    names = g.card_names
    if phase == DEAL_ROLES:
        return None
    if phase == DEAL_CARDS or phase == CHOOSE_START:
        return _setup(state, action, seat) if _setup_ends(state) else None
    if phase in (DRAW, SNATCH_DRAW):
        who = a if phase == DRAW else state.target
        last = len(state.deck) == 1
        key = "draw" if who == seat else "draw_hidden"
        params: dict[str, Any] = {"seat": who}
        if who == seat:
            params["card"] = names[action - g.A_DRAW]
        return _event(key + ("_last" if last else ""), **params)
    if phase == PASS:
        card, to = divmod(action - g.A_PASS, n)
        if seat in (a, to):
            return _event("pass", seat=a, to=to, card=names[card])
        return _event("pass_hidden", seat=a, to=to)
    if phase == RECEIVE:
        r = state.receiver
        card = names[state.pending]
        if action == g.A_FILE:
            return _filing("file", _knows(state.pending_known, seat, n), card, _filed_up(state),
                           seat=r, **{"from": a}, into=len(state.row))
        effect = g.card_effect[state.pending]
        key = "use_void" if _comes_to_nothing(state, effect) else "use"
        return _event(key, seat=r, card=card, effect=EFFECTS[effect], **{"from": a})
    if phase == TARGET:
        return _target_event(state, action, seat)
    return _choice_event(state, action, seat)


def _target_event(state: UnderCurrentState, action: int, seat: int | None) -> Event:
    """A seat (or, for FLIP, a reserve slot) named for the used card's effect: what the SCAN,
    SPY or FLIP showed to whom."""
    g = state.game
    n = g.num_players
    a = state.active
    names = g.card_names
    effect = state.effect
    if action >= g.A_RESERVE:
        slot = action - g.A_RESERVE
        if seat == a:
            return _event("flip_reserve_got", seat=a, reserve=slot,
                          got=g.role_names[state.roles[n + slot]])
        return _event("flip_reserve", seat=a, reserve=slot)
    t = action - g.A_TARGET
    if effect == SCAN:
        if seat == a:
            cards = sorted(names[c] for c in state.hands[t])
            return _event("scan", seat=a, target=t, cards=cards)
        return _event("scan_you" if seat == t else "scan_hidden", seat=a, target=t)
    if effect == SPY:
        if seat == a:
            return _event("spy", seat=a, target=t, role=g.role_names[state.roles[t]])
        return _event("spy_you" if seat == t else "spy_hidden", seat=a, target=t)
    if effect == FLIP:
        if seat == a:
            return _event("flip_got", seat=a, target=t, got=g.role_names[state.roles[t]])
        if seat == t:
            return _event("flip_got", seat=a, target=t, got=g.role_names[state.roles[a]])
        return _event("flip", seat=a, target=t)
    return _event("swap_target" if effect == SWAP else "snatch_target", seat=a, target=t)


def _choice_event(state: UnderCurrentState, action: int, seat: int | None) -> Event | None:
    """The choices an effect asks for after its target (SWAP's cards, DROP's card, SNATCH's
    random pick, a row card, a RETIRE guess) and the Green declarations."""
    g = state.game
    n = g.num_players
    phase = state.phase
    a = state.active
    names = g.card_names
    if phase == SWAP_OWN:
        if seat == a:
            return _event("swap_offer", seat=a, target=state.target,
                          card=names[action - g.A_OWN])
        return None
    if phase == SWAP_THEIRS:
        t = state.target
        if seat in (a, t):
            return _event("swap", seat=a, target=t, gave=names[state.hands[a][state.swap_index]],
                          got=names[action - g.A_OWN])
        return _event("swap_hidden", seat=a, target=t)
    if phase == DROP_CHOICE:
        return _filing("drop", seat == a, names[action - g.A_OWN], _filed_up(state), seat=a,
                       into=len(state.row))
    if phase == SNATCH_PICK:
        t = state.target
        return _filing("snatched", seat == t, names[action - g.A_SNATCH], _filed_up(state),
                       seat=a, target=t, into=len(state.row))
    if phase == ROW_CHOICE:
        i = action - g.A_ROW
        fetch = state.effect == FETCH
        key = "fetch" if fetch else "burn"
        known = _knows(state.row_known[i], seat, n) or (fetch and seat == a)
        if known:
            return _event(key, seat=a, slot=i, card=names[state.row[i]])
        return _event(key + "_hidden", seat=a, slot=i)
    if phase == RETIRE_CHOICE:
        t, f = divmod(action - g.A_RETIRE, 4)
        right = g.role_faction[state.roles[t]] == f
        key = "retire_right" if right else "retire_wrong"
        return _event(key + ("_you" if seat == t else ""), seat=a, target=t,
                      faction=FACTIONS[f])
    if phase in (DECLARE_RED, DECLARE_BLUE):
        green = state.green_queue[0]
        base = g.A_NAME_RED if phase == DECLARE_RED else g.A_NAME_BLUE
        informer = "Red" if phase == DECLARE_RED else "Blue"
        pos = action - base
        if pos < n:
            return _event("declare_seat", seat=green, informer=informer, named=pos)
        return _event("declare_reserve", seat=green, informer=informer, reserve=pos - n)
    return None


# -- the end screen ----------------------------------------------------------------------------
_COLUMNS = [{"key": "role", "ns": "role"}, {"key": "faction", "ns": "faction"},
            {"key": "row"}]


def summary(state: UnderCurrentState) -> dict[str, Any] | None:
    """Each seat's final role and faction and how many cards of its colour the scored row
    held; the reason names the rule that decided and its numbers."""
    if not state.is_terminal():
        return None
    g = state.game
    n = g.num_players
    colours = [g.card_colour[c] for c in state.row]
    counts = [colours.count(f) for f in range(4)]
    winners = set(state.winners())
    rows = []
    for s in range(n):
        role = state.roles[s]
        faction = g.role_faction[role]
        rows.append({"seat": s, "winner": s in winners,
                     "values": {"role": g.role_names[role], "faction": FACTIONS[faction],
                                "row": counts[faction]}})
    return {"columns": _COLUMNS, "rows": rows, "reason": reason(state, counts)}


def reason(state: UnderCurrentState, counts: list[int]) -> Event:
    """Why the game ended as it did, with the row's numbers: ``end.<rule>``, and
    ``end.<rule>_none`` when the winning faction has no seated player."""
    _, _, rule = state.how.partition(":")
    blue, red, yellow, green = counts[BLUE], counts[RED], counts[YELLOW], counts[GREEN]
    params: dict[str, Any] = {"blue": blue, "red": red, "yellow": yellow, "green": green}
    if rule == "green_card" or rule == "green_declaration":
        key = rule
    elif rule == "yellow_balance":
        if blue == red:
            key = "yellow_even"
        else:
            low, high = (BLUE, RED) if blue < red else (RED, BLUE)
            key = "yellow_balance"
            params.update(low=FACTIONS[low], low_n=counts[low], high=FACTIONS[high],
                          high_n=counts[high], used=counts[high] - counts[low])
    else:  # the larger of Blue and Red
        high, low = (BLUE, RED) if blue > red else (RED, BLUE)
        key = "majority"
        params.update(winner=FACTIONS[high], high_n=counts[high], low=FACTIONS[low],
                      low_n=counts[low])
    if state.winner_faction < 0:
        key += "_none"
    if state.eliminated >= 0:
        role = state.roles[state.eliminated]
        params["eliminated"] = state.eliminated
        params["eliminated_role"] = state.game.role_names[role]
    return {"key": key, "params": params}
