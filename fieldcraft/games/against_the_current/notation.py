"""Against the Current notation: "move token A", "roll 4", "echolocation +1", "tributary 3
(10 pts)" and the rest, one fixed name per action id, read back by one dictionary lookup.

Everything on the table is public, so every action is logged for every seat except the
shuffle's chance outcomes (the order of the face-down pile); a drawn card shows up when it is
attempted or skipped.

Structured choices (``choice(state, action) -> (kind, args)``); ``seat`` is a seat number,
``token`` a letter A-C of that seat, ``space`` a river space (0 Start, Sanctuary = cards + 1),
``card`` a wheel card's number (its setup space)::

    kind       args                                           actions
    move       seat, token, space (where it stands)           move token A/B/C
    decline    {}                                             no ability (any ability window)
    boost      boost (name), change (die +/-, Echolocation    echolocation +1/-1, migration
               and Migration Burst) or space/card (the        burst, regeneration, slip
               landing, Regeneration and Slip Through)        through
    pressure   pressure (name), space, card (where the        place pressure
               marker goes)
    attempt    event                                          attempt challenge
    skip       event                                          skip challenge
    target     event, seat, and for a token: token, space     target seat S [token X]
    remove     marker (terrain), space, card                  remove <terrain> marker
    tributary  number (1-based), points                       tributary N (P pts)
    pick       animal                                         pick <animal>

Chance outcomes have kinds too (``first`` {seat}, ``challenge`` {passed}, ``deal`` {terrain,
card}, ``marker`` {marker, card}, ``shuffle`` {event}, ``roll`` {value}), though only decisions
are shown to people.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.errors import MalformedActionError
from fieldcraft.core.notation import Notation, normalize, require_text
from fieldcraft.core.text import Event

from .layout import (
    A_ATTEMPT,
    A_BURST,
    A_CH_FAIL,
    A_CH_PASS,
    A_DEAL,
    A_ECHO_DOWN,
    A_ECHO_UP,
    A_FIRST,
    A_MOVE,
    A_NO_ABILITY,
    A_PICK,
    A_PRESSURE,
    A_REGEN,
    A_ROLL,
    A_SHUFFLE,
    A_SKIP,
    A_SLIP,
    A_TARGET_SEAT,
    A_TARGET_TOKEN,
    AFTER_ROLL,
    ANIMALS,
    ATTEMPT,
    AXOLOTL,
    BOOSTS,
    CHALLENGE,
    CURRENT_SHIFT,
    DEAL,
    E_BACK1,
    E_DETOUR,
    E_FWD1,
    E_FWD2,
    E_SHELTER,
    E_SUPPORT,
    E_UNSTOP,
    EEL,
    EVENTS,
    EXTRA_ROLL,
    FIRST,
    LAND,
    LETTERS,
    MARKER,
    PICK,
    PORPOISE,
    PRESSURES,
    ROLL,
    SHUFFLE,
    STOP_RESULT,
    STURGEON,
    TARGET,
    TERRAINS,
    TOKEN,
    TOKENS,
    TRIB,
)
from .rules import AgainstTheCurrentGame, AgainstTheCurrentState

_FIXED = {
    A_NO_ABILITY: "no ability", A_ECHO_UP: "echolocation +1",
    A_ECHO_DOWN: "echolocation -1", A_BURST: "migration burst",
    A_REGEN: "regeneration", A_SLIP: "slip through", A_PRESSURE: "place pressure",
    A_ATTEMPT: "attempt challenge", A_SKIP: "skip challenge",
    A_CH_PASS: "challenge passed", A_CH_FAIL: "challenge failed",
}


def _name(g: AgainstTheCurrentGame, a: int) -> str:
    """The one readable name of each action (context-free, so it always reads back)."""
    if a < A_NO_ABILITY:
        return f"move token {LETTERS[a]}"
    if a in _FIXED:
        return _FIXED[a]
    if A_PICK <= a < A_TARGET_SEAT:
        return f"pick {ANIMALS[a - A_PICK]}"
    if A_TARGET_SEAT <= a < A_TARGET_TOKEN:
        return f"target seat {a - A_TARGET_SEAT}"
    if A_TARGET_TOKEN <= a < A_FIRST:
        t = a - A_TARGET_TOKEN
        return f"target seat {t // TOKENS} token {LETTERS[t % TOKENS]}"
    if A_FIRST <= a < A_CH_PASS:
        return f"first player seat {a - A_FIRST}"
    if A_DEAL <= a < A_SHUFFLE:
        return f"deal {TERRAINS[a - A_DEAL]}"
    if A_SHUFFLE <= a < A_ROLL:
        return f"deck card {EVENTS[a - A_SHUFFLE]}"
    if A_ROLL <= a < g.a_remove:
        return f"roll {a - A_ROLL + 1}"
    if g.a_remove <= a < g.a_marker:
        return f"remove {TERRAINS[g.marker_terrain[a - g.a_remove]]} marker"
    if g.a_marker <= a < g.a_trib:
        m, slot = divmod(a - g.a_marker, g.cards)
        return f"{TERRAINS[g.marker_terrain[m]]} marker on space {slot + 1}"
    i = a - g.a_trib
    return f"tributary {i + 1} ({g.tributaries[i]} pts)"


class AgainstTheCurrentNotation(Notation):
    game: AgainstTheCurrentGame

    def __init__(self, game: AgainstTheCurrentGame):
        super().__init__(game)
        self.names: tuple[str, ...] = tuple(_name(game, a) for a in range(game.n_actions))
        self.index: dict[str, int] = {normalize(n): a for a, n in enumerate(self.names)}

    def action_to_string(self, state: Any, action: int) -> str:
        names = self.names
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(names):
            raise MalformedActionError(f"{action!r} is not an action of against-the-current")
        return names[action]

    def string_to_action(self, state: Any, text: str) -> int:
        action = self.index.get(normalize(require_text(text)))
        if action is None:
            raise MalformedActionError(
                f"{text!r} is not an against-the-current action (e.g. 'move token A', 'roll 4', "
                "'echolocation +1', 'attempt challenge', 'tributary 1 (12 pts)')"
            )
        return action

    # -- log lines -------------------------------------------------------------------------------
    def describe_action(self, state: AgainstTheCurrentState, action: int,
                        seat: int | None) -> str | None:
        """Public log line. Everything is public except the shuffled event pile, so only the
        shuffle's chance outcomes are withheld; a drawn card shows up when it is attempted."""
        if not 0 <= action < self.game.n_actions:
            return None
        phase = state.phase
        text = self.names[action]
        if phase == SHUFFLE:
            return None
        if phase == DEAL:
            return f"space {len(state.ring) + 1}: {TERRAINS[action - A_DEAL]}"
        if phase in (MARKER, FIRST):
            return text
        who = _who(state, state.seat)
        if phase == ROLL:
            return f"{who} rolls {action - A_ROLL + 1}"
        if phase == CHALLENGE:
            return f"{who}: {text}"
        if phase == ATTEMPT:
            verb = "attempts" if action == A_ATTEMPT else "skips"
            return f"{who} draws {EVENTS[state.event]} and {verb} the challenge"
        if phase == TOKEN:
            t = TOKENS * state.seat + action - A_MOVE
            return f"{who}: {text} (from {self.place(state.pos[t])})"
        if state.is_terminal():
            return None
        return f"{who}: {text}"

    def place(self, p: int) -> str:
        """A position as people say it."""
        if p == 0:
            return "Start"
        if p >= self.game.sanctuary:
            return "River Sanctuary"
        return f"space {p}"

    # -- events for people (docs/game-text.md) --------------------------------------------------
    def event(self, state: AgainstTheCurrentState, action: int,
              seat: int | None) -> Event | None:
        """What ``seat`` is told, in the order things happen at the table: the roll first,
        then where the token went, what the terrain did and where it ended, and the wheel
        turning when the round ends. Everything is public but the event pile's order, so the
        only thing withheld is each shuffled card (the shuffle is told once, without them);
        the token choice itself is told with its roll, which the table applies at once.

        Worked out on a clone with the action applied, so the rules core is untouched and only
        a table that asks pays for it."""
        if not 0 <= action < self.game.n_actions:
            return None
        phase = state.phase
        if phase in (DEAL, MARKER, TOKEN):
            return None
        if phase == SHUFFLE:
            return self._shuffle_event(state)
        if phase == PICK:
            return _ev("pick", seat=state.seat, animal=ANIMALS[action - A_PICK])
        if phase == FIRST:
            return _ev("first", seat=action - A_FIRST)
        after = state.clone()
        after.apply_action(action)
        wheel = _wheel(state, after)
        s = state.seat
        if phase == ROLL:
            return self._roll_event(state, after, action - A_ROLL + 1, wheel)
        if phase == AFTER_ROLL:
            return self._boost_event(state, after, action, wheel)
        if phase == LAND:
            return self._land_event(state, after, action, wheel)
        if phase == TRIB:
            t = state.mover
            i = action - self.game.a_trib
            return _ev("tributary", seat=s, token=LETTERS[t % TOKENS], number=i + 1,
                       points=self.game.tributaries[i], wheel=wheel)
        event = EVENTS[state.event] if state.event >= 0 else None
        if phase == ATTEMPT:
            if action == A_ATTEMPT:
                return _ev("attempt", seat=s, event=event)
            return _ev("skip", seat=s, event=event, wheel=wheel)
        if phase == CHALLENGE:
            if action == A_CH_FAIL:
                return _ev("failed", seat=s, event=event, wheel=wheel)
            if after.phase == TARGET and after.seat == s and after.event == state.event:
                # a choice follows; a challenge that cannot fail is not worth a line
                return _ev("passed", seat=s, event=event) if \
                    self.game.challenge_success < 1.0 else None
            if state.event == EXTRA_ROLL and after.extra:
                t = state.mover
                return _ev("extra_roll", seat=s, token=LETTERS[t % TOKENS],
                           space=self._space(state.pos[t]))
            if state.event == CURRENT_SHIFT:
                return _ev("current_shift", seat=s, wheel=wheel)
            return _ev("no_target", seat=s, event=event, wheel=wheel)
        if phase == TARGET:
            return self._target_event(state, after, action, seat, wheel)
        return None

    def _space(self, p: int) -> int | str:
        """A position as the ``space`` namespace names it: 0 is Start, the end "sanctuary"."""
        return "sanctuary" if p >= self.game.sanctuary else p

    def _shuffle_event(self, state: AgainstTheCurrentState) -> Event | None:
        if state.pool_left != 1:  # each shuffled card stays face down: told once, at the end
            return None
        g = self.game
        if not state.shuffle_setup:
            return _ev("reshuffle", cards=len(state.pile) + 1)
        if not g.marker_terrain:
            return _ev("setup_plain", cards=g.cards, deck=g.deck_size)
        markers = [TERRAINS[m] for m in g.marker_terrain]
        spaces = [slot + 1 for slot in state.markers]  # at Current 1 a card's space is its slot+1
        if len(markers) == 2:
            return _ev("setup", cards=g.cards, deck=g.deck_size, marker=markers[0],
                       space=spaces[0], marker2=markers[1], space2=spaces[1])
        return _ev("setup_list", cards=g.cards, deck=g.deck_size, markers=markers, spaces=spaces)

    def _moved(self, key: str, state: AgainstTheCurrentState, after: AgainstTheCurrentState,
               dist: int, wheel: str, **params: Any) -> Event:
        """A roll's move: ``key`` for a landing whose terrain resolved at once, ``_open`` when
        an ability may still change it, ``_home`` on reaching River Sanctuary, ``_still`` for a
        move of 0."""
        t = state.mover
        s = t // TOKENS
        start = state.pos[t]
        base = {"seat": s, "token": LETTERS[t % TOKENS], "from": start, **params}
        if dist <= 0:
            return _ev(key + "_still", **base, wheel=wheel)
        to = start + dist
        if to >= self.game.sanctuary:
            return _ev(key + "_home", **base)
        terrain = state.space_terrain(to)
        if after.phase == LAND and after.mover == t:
            return _ev(key + "_open", **base, to=to, terrain=terrain)
        effect = _EFFECT[state.terrain_result(t, state._slot_at(to), False)]
        return _ev(key, **base, to=to, terrain=terrain, effect=effect,
                   end=self._space(after.pos[t]), wheel=wheel)

    def _roll_event(self, state: AgainstTheCurrentState, after: AgainstTheCurrentState,
                    roll: int, wheel: str) -> Event:
        t = state.mover
        if after.phase == AFTER_ROLL:  # Echolocation or Migration Burst may change it first
            return _ev("roll", seat=t // TOKENS, token=LETTERS[t % TOKENS], roll=roll,
                       space=self._space(state.pos[t]))
        return self._moved("move", state, after, roll, wheel, roll=roll)

    def _boost_event(self, state: AgainstTheCurrentState, after: AgainstTheCurrentState,
                     action: int, wheel: str) -> Event:
        g = self.game
        if action == A_NO_ABILITY:
            return self._moved("keep", state, after, state.roll, wheel, roll=state.roll)
        if action == A_BURST:
            change, boost = g.burst, BOOSTS[STURGEON]
        else:
            change = g.echo_change if action == A_ECHO_UP else -g.echo_change
            boost = BOOSTS[PORPOISE]
        dist = state.roll + change
        return self._moved("boost", state, after, dist, wheel, boost=boost, steps=max(dist, 0))

    def _land_event(self, state: AgainstTheCurrentState, after: AgainstTheCurrentState,
                    action: int, wheel: str) -> Event:
        t = state.mover
        s = t // TOKENS
        slot = state.land
        probe = state.clone()
        base = {"seat": s, "token": LETTERS[t % TOKENS], "to": state.pos[t],
                "terrain": TERRAINS[state._terrain(slot)]}
        if action == A_PRESSURE:
            probe.pressure[s] = slot
            key, extra = "land_pressure", {"pressure": PRESSURES[state.animal[s]]}
            boosted = False
        elif action == A_NO_ABILITY:
            key, extra, boosted = "land_decline", {}, False
        else:
            key, boosted = "land_boost", True
            extra = {"boost": BOOSTS[AXOLOTL if action == A_REGEN else EEL]}
        effect = _EFFECT[probe.terrain_result(t, slot, boosted)]
        return _ev(key, **base, **extra, effect=effect, end=self._space(after.pos[t]),
                   wheel=wheel)

    def _target_event(self, state: AgainstTheCurrentState, after: AgainstTheCurrentState,
                      action: int, reader: int | None, wheel: str) -> Event:
        g = self.game
        s = state.seat
        event = EVENTS[state.event] if state.event >= 0 else None
        if action >= g.a_remove:
            m = action - g.a_remove
            slot = state.markers[m]
            return _ev("cleanup", seat=s, marker=TERRAINS[g.marker_terrain[m]],
                       space=state._space_of(slot), printed=TERRAINS[state.ring[slot]],
                       wheel=wheel)
        if action < A_TARGET_TOKEN:
            o = action - A_TARGET_SEAT
            key = "detour" if state.mode == E_DETOUR else "squeeze"
            return _ev(key, seat=s, target=o, wheel=wheel)
        t = action - A_TARGET_TOKEN
        owner = t // TOKENS
        token = LETTERS[t % TOKENS]
        mode = state.mode
        if mode in (E_FWD1, E_FWD2, E_BACK1):
            key = "push_back" if mode == E_BACK1 else "push_forward"
            if mode == E_BACK1 and owner == reader:
                key = "push_back_yours"
            return _ev(key, seat=s, event=event, owner=owner, token=token,
                       **{"from": state.pos[t]}, to=self._space(after.pos[t]),
                       wheel=wheel if after.phase != TRIB else "none")
        if mode == E_UNSTOP:
            return _ev("unstop", seat=s, event=event, token=token, wheel=wheel)
        if mode in (E_SHELTER, E_SUPPORT):
            return _ev("shelter" if mode == E_SHELTER else "support", seat=s, token=token,
                       space=state.pos[t], wheel=wheel)
        key = "wave_yours" if owner == reader else "wave"
        return _ev(key, seat=s, owner=owner, token=token, space=state.pos[t], wheel=wheel)

    def summary(self, state: AgainstTheCurrentState) -> dict[str, Any] | None:
        """Each seat's animal, the points of the tributary each token took, the total and
        the tie-break (the place its third token arrived), and one line on who won; a game cut
        off by ``round_limit`` says so, since its tokens on the river scored nothing."""
        if not state.is_terminal():
            return None
        g = self.game
        scores = state.scores()
        winners, rule = state._ranked()
        winner = winners[0]
        rows = []
        for s in range(g.num_players):
            values: dict[str, Any] = {"animal": ANIMALS[state.animal[s]]}
            for k in range(TOKENS):
                i = state.trib_of[TOKENS * s + k]
                values[f"token_{LETTERS[k].lower()}"] = g.tributaries[i] if i >= 0 else None
            values["score"] = scores[s]
            values["finish"] = state.finish.index(s) + 1 if s in state.finish else None
            rows.append({"seat": s, "winner": s in winners, "values": values})
        columns = [{"key": "animal", "ns": "animal"},
                   *({"key": f"token_{c.lower()}"} for c in LETTERS),
                   {"key": "score"}, {"key": "finish"}]
        best = scores[winner]
        tied = [s for s, v in enumerate(scores) if v == best]
        parts = [g.tributaries[state.trib_of[t]]
                 for t in range(TOKENS * winner, TOKENS * winner + TOKENS)
                 if state.trib_of[t] >= 0]
        if state.arrived < TOKENS * g.num_players:  # round_limit ended it
            key = {None: "limit", "more tokens arrived": "limit_more",
                   "last token arrived first": "limit_first", "shared": "limit_shared"}[rule]
            reason = _ev(key, seat=winner, tied=tied, winners=winners, score=best,
                         n=state.rounds)
        elif len(tied) > 1:
            reason = _ev("tie", seat=winner, tied=tied, score=best)
        else:
            reason = _ev("win", seat=winner, score=best, animal=ANIMALS[state.animal[winner]],
                         parts=" + ".join(str(p) for p in parts))
        return {"columns": columns, "rows": rows, "reason": reason}

    # -- structured choices ---------------------------------------------------------------------
    def choice(self, state: AgainstTheCurrentState, action: int) -> tuple[str, dict[str, Any]]:
        g = self.game
        seat = state.seat
        if action < A_NO_ABILITY:
            t = TOKENS * seat + action - A_MOVE
            return "move", {"seat": seat, "token": LETTERS[action - A_MOVE],
                            "space": state.pos[t]}
        if action == A_NO_ABILITY:
            return "decline", {}
        if action in (A_ECHO_UP, A_ECHO_DOWN):
            change = g.echo_change if action == A_ECHO_UP else -g.echo_change
            return "boost", {"boost": BOOSTS[PORPOISE], "change": change}
        if action == A_BURST:
            return "boost", {"boost": BOOSTS[STURGEON], "change": g.burst}
        if action in (A_REGEN, A_SLIP, A_PRESSURE):
            where = {"space": state.pos[state.mover], "card": state.land + 1}
            if action == A_PRESSURE:
                return "pressure", {"pressure": PRESSURES[state.animal[seat]], **where}
            return "boost", {"boost": BOOSTS[AXOLOTL if action == A_REGEN else EEL], **where}
        if action in (A_ATTEMPT, A_SKIP):
            return ("attempt" if action == A_ATTEMPT else "skip"), {"event": EVENTS[state.event]}
        if A_PICK <= action < A_TARGET_SEAT:
            return "pick", {"animal": ANIMALS[action - A_PICK]}
        if A_TARGET_SEAT <= action < A_FIRST:
            return "target", self._target(state, action)
        if A_FIRST <= action < A_CH_PASS:
            return "first", {"seat": action - A_FIRST}
        if action in (A_CH_PASS, A_CH_FAIL):
            return "challenge", {"passed": action == A_CH_PASS}
        if A_DEAL <= action < A_SHUFFLE:
            return "deal", {"terrain": TERRAINS[action - A_DEAL], "card": len(state.ring) + 1}
        if A_SHUFFLE <= action < A_ROLL:
            return "shuffle", {"event": EVENTS[action - A_SHUFFLE]}
        if A_ROLL <= action < g.a_remove:
            return "roll", {"value": action - A_ROLL + 1}
        if g.a_remove <= action < g.a_marker:
            m = action - g.a_remove
            slot = state.markers[m]
            return "remove", {"marker": TERRAINS[g.marker_terrain[m]],
                              "space": state._space_of(slot), "card": slot + 1}
        if g.a_marker <= action < g.a_trib:
            m, slot = divmod(action - g.a_marker, g.cards)
            return "marker", {"marker": TERRAINS[g.marker_terrain[m]], "card": slot + 1}
        i = action - g.a_trib
        return "tributary", {"number": i + 1, "points": g.tributaries[i]}

    def _target(self, state: AgainstTheCurrentState, action: int) -> dict[str, Any]:
        event = EVENTS[state.event] if state.event >= 0 else None
        if action < A_TARGET_TOKEN:
            return {"event": event, "seat": action - A_TARGET_SEAT}
        t = action - A_TARGET_TOKEN
        return {"event": event, "seat": t // TOKENS, "token": LETTERS[t % TOKENS],
                "space": state.pos[t]}


_EFFECT = {1: "fwd1", 0: "pass", -1: "back1", -2: "back2", STOP_RESULT: "stop"}
"""A terrain result code as the ``effect`` namespace names it."""


def _ev(key: str, **params: Any) -> Event:
    return {"key": key, "params": params}


def _wheel(state: AgainstTheCurrentState, after: AgainstTheCurrentState) -> str:
    """The ``wheel`` namespace value of a move's tail: "c3" when the round ended and the wheel
    now shows Current 3, else "none" (an empty tail)."""
    if after.rot == state.rot or after.is_terminal():
        return "none"
    return f"c{after.rot + 1}"


def _who(state: AgainstTheCurrentState, s: int) -> str:
    a = state.animal[s] if 0 <= s < len(state.animal) else -1
    return f"seat {s} ({ANIMALS[a]})" if a >= 0 else f"seat {s}"
