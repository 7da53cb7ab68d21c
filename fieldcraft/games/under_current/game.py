"""Under Current rules core: hidden roles, one card passed a turn, a Central File Row.

Everything is plain ints and lists. Intelligence cards and role cards are ids into the ruleset's
tables. What each seat knows is kept as data, not recomputed from history:

* ``known`` bitmasks, one per card slot (hand cards, row cards, burned cards): bit ``s`` means seat
  ``s`` knows which card lies there, bit ``N`` means everybody does (a public card). Secret moves
  clear the bits of onlookers who can no longer tell which card moved.
* ``role_masks[v][p]``: the role ids that viewer ``v`` (``N`` = the public) still thinks possible
  at role position ``p`` (seats ``0..N-1``, then the reserve). Public events (FLIP, a failed
  RETIRE) update every viewer at once, so knowledge travels with the role cards.

``observation`` is derived from these alone, and ``resample`` re-deals everything a seat cannot
see while keeping them, which is why a leaking view is caught by the conformance suite.
"""

from __future__ import annotations

import random
import re
from typing import Any

from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    FieldcraftError,
    Game,
    MalformedActionError,
    RulesetError,
    State,
    shuffle,
)

FACTIONS = ("Blue", "Red", "Yellow", "Green")
BLUE, RED, YELLOW, GREEN = range(4)
EFFECTS = ("SWAP", "SCAN", "PEEK", "SPY", "FLIP", "DROP", "SNATCH", "FETCH", "BURN", "RETIRE")
SWAP, SCAN, PEEK, SPY, FLIP, DROP, SNATCH, FETCH, BURN, RETIRE = range(10)
SYMBOLS = ("", "Eye", "Thumb")

# Phases. The first three and SNATCH_PICK / DRAW / SNATCH_DRAW are chance nodes.
(
    DEAL_ROLES,
    DEAL_CARDS,
    CHOOSE_START,
    PASS,
    RECEIVE,
    TARGET,
    RETIRE_CHOICE,
    SWAP_OWN,
    SWAP_THEIRS,
    DROP_CHOICE,
    ROW_CHOICE,
    SNATCH_PICK,
    SNATCH_DRAW,
    DRAW,
    DECLARE_RED,
    DECLARE_BLUE,
    OVER,
) = range(17)
PHASE_NAMES = (
    "deal_roles", "deal_cards", "choose_start", "pass", "receive", "target", "retire",
    "swap_own", "swap_theirs", "drop", "row_choice", "snatch_pick", "snatch_draw", "draw",
    "declare_red", "declare_blue", "over",
)
_CHANCE_PHASES = frozenset({DEAL_ROLES, DEAL_CARDS, CHOOSE_START, SNATCH_PICK, SNATCH_DRAW, DRAW})


class UnderCurrentGame(Game):
    """Fixed tables for one player count: which cards and roles are in play, the action layout."""


    def __init__(self, spec: Any, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        super().__init__(spec, players, ruleset, overrides)
        self.state_class = UnderCurrentState
        n = players
        try:
            roles = [r for r in ruleset["roles"] if r["from"] <= n]
            self.role_names = _unique_names([r["name"] for r in roles], " {}")
            self.role_faction = [FACTIONS.index(r["faction"]) for r in roles]
            self.role_rank = [r["rank"] for r in roles]
            self.role_symbol = [SYMBOLS.index(r["symbol"]) for r in roles]
            cards = [c for c in ruleset["cards"] if c["from"] <= n]
            self.card_colour = [FACTIONS.index(c["colour"]) for c in cards]
            self.card_effect = [EFFECTS.index(c["effect"]) for c in cards]
        except (KeyError, ValueError, TypeError) as exc:
            raise RulesetError(
                f"bad roles/cards table: {exc!r}; factions are {FACTIONS}, effects {EFFECTS}, "
                f"symbols {SYMBOLS[1:]} or ''"
            ) from None
        for key in ("hand_size", "row_face_down_limit", "retire_min_row", "snatch_hand_size"):
            if ruleset[key] < 1:
                raise RulesetError(f"{key} must be at least 1, got {ruleset[key]}")
        if len(roles) < n:
            raise RulesetError(f"{len(roles)} role cards in play cannot cover {n} players")
        if len(cards) < n * ruleset["hand_size"]:
            raise RulesetError(f"{len(cards)} intelligence cards cannot deal {n} starting hands")
        self.num_roles = len(roles)
        self.num_reserve = len(roles) - n
        self.num_cards = len(cards)
        self.card_names = _unique_names(
            [f"{c['colour']}/{c['effect']}" + (f"({c['from']}+)" if c["from"] > 3 else "")
             for c in cards]
        )
        self.hand_size = ruleset["hand_size"]
        self.row_limit = ruleset["row_face_down_limit"]
        self.retire_min_row = ruleset["retire_min_row"]
        self.snatch_hand = ruleset["snatch_hand_size"]
        self.random_start = ruleset["random_start"]
        self.informer_removal = ruleset["informer_removal"]
        self.green_declaration = ruleset["green_declaration"]
        self.all_known = (1 << (n + 1)) - 1  # every seat bit plus the public bit
        self.full_role_mask = (1 << self.num_roles) - 1
        self.faction_mask = [
            sum(1 << r for r in range(self.num_roles) if self.role_faction[r] == f)
            for f in range(4)
        ]
        self.symbol_mask = [
            sum(1 << r for r in range(self.num_roles) if self.role_symbol[r] == s)
            for s in range(3)
        ]
        self.red_informers = [r for r in range(self.num_roles)
                              if self.role_faction[r] == RED and self.role_rank[r] == "Informer"]
        self.blue_informers = [r for r in range(self.num_roles)
                               if self.role_faction[r] == BLUE and self.role_rank[r] == "Informer"]
        # Action layout: consecutive blocks, each sized for this player count.
        c, p = self.num_cards, n + self.num_reserve
        self.A_PASS = 0
        self.A_FILE = c * n
        self.A_USE = self.A_FILE + 1
        self.A_TARGET = self.A_USE + 1          # + seat
        self.A_RESERVE = self.A_TARGET + n      # + reserve slot (FLIP)
        self.A_OWN = self.A_RESERVE + self.num_reserve  # + card id (SWAP pick, DROP)
        self.A_ROW = self.A_OWN + c             # + row index (FETCH, BURN)
        self.A_RETIRE = self.A_ROW + c          # + seat * 4 + faction
        self.A_NAME_RED = self.A_RETIRE + 4 * n  # + role position
        self.A_NAME_BLUE = self.A_NAME_RED + p
        self.A_DRAW = self.A_NAME_BLUE + p      # chance: + card id
        self.A_ROLE = self.A_DRAW + c           # chance: + role id
        self.A_START = self.A_ROLE + self.num_roles  # chance: + seat
        self.A_SNATCH = self.A_START + n        # chance: + card id
        self.num_actions = self.A_SNATCH + c
        self._card_lookup = {name.lower(): i for i, name in enumerate(self.card_names)}
        self._role_lookup = {name.lower(): i for i, name in enumerate(self.role_names)}

    def num_distinct_actions(self) -> int:
        return self.num_actions

    def max_chance_outcomes(self) -> int:
        return max(self.num_cards, self.num_roles, self.num_players)

    def position_name(self, pos: int) -> str:
        n = self.num_players
        return f"seat {pos}" if pos < n else f"reserve {pos - n}"


def _unique_names(names: list[str], suffix: str = "#{}") -> list[str]:
    """Names must be unique for ``string_to_action``; repeats get a number (Green Agent 2)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else name + suffix.format(seen[name]))
    return out


class UnderCurrentState(State):
    __slots__ = (
        "actions", "phase", "roles", "hands", "hand_known", "deck", "row", "row_up", "row_known",
        "discard", "removed", "removed_known", "role_masks", "eye_record", "active", "receiver",
        "pending", "pending_known", "saved_known", "effect", "target", "swap_index", "start_seat",
        "turn", "final_left", "eliminated", "green_queue", "declarations", "winner_faction",
        "how", "draw_seat", "sampled",
    )

    game: UnderCurrentGame
    uniform_chance = True  # every deal, draw, start seat and SNATCH pick is a fair pick

    def __init__(self, game: UnderCurrentGame):
        self.game = game
        n = game.num_players
        self.actions: list[int] = []
        self.phase = DEAL_ROLES
        self.roles: list[int] = []  # role id per position: seats, then reserve slots
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.hand_known: list[list[int]] = [[] for _ in range(n)]
        self.deck: list[int] = list(range(game.num_cards))  # undrawn cards, kept sorted
        self.row: list[int] = []
        self.row_up: list[int] = []
        self.row_known: list[int] = []
        self.discard: list[int] = []
        self.removed: list[int] = []
        self.removed_known: list[int] = []
        positions = n + game.num_reserve
        self.role_masks = [[game.full_role_mask] * positions for _ in range(n + 1)]
        self.eye_record: list[Any] = [None] * n
        self.active = -1
        self.receiver = -1
        self.pending = -1  # the card being passed / used
        self.pending_known = 0
        self.saved_known: list[int] = []
        self.effect = -1
        self.target = -1
        self.swap_index = -1
        self.start_seat = -1
        self.turn = 0
        self.final_left = -1  # turns left in the extra round once the deck ran out; -1 before
        self.eliminated = -1
        self.green_queue: list[int] = []
        self.declarations: list[list[int]] = []  # [seat, red position, blue position]
        self.winner_faction = -1  # -1 undecided or nobody; set at the end
        self.how = ""
        self.draw_seat = -1
        self.sampled = False  # a resample: its hidden past was imagined, so it has no history

    # ------------------------------------------------------------------ core API
    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def current_player(self) -> int:
        phase = self.phase
        if phase in _CHANCE_PHASES:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        if phase == RECEIVE:
            return self.receiver
        if phase == SWAP_THEIRS:
            return self.target
        if phase == DECLARE_RED or phase == DECLARE_BLUE:
            return self.green_queue[0]
        return self.active

    def legal_actions(self) -> list[int]:
        g = self.game
        phase = self.phase
        n = g.num_players
        if phase == PASS:
            a = self.active
            out = [g.A_PASS + card * n + s for card in self.hands[a] for s in range(n) if s != a]
            out.sort()
            return out
        if phase == RECEIVE:
            return [g.A_FILE, g.A_USE]
        if phase == DRAW or phase == SNATCH_DRAW or phase == DEAL_CARDS:
            base = g.A_DRAW
            return [base + c for c in self.deck]
        if phase == TARGET:
            return self._target_actions()
        if phase == SWAP_OWN:
            return sorted(g.A_OWN + c for c in self.hands[self.active])
        if phase == SWAP_THEIRS:
            return sorted(g.A_OWN + c for c in self.hands[self.target])
        if phase == DROP_CHOICE:
            return sorted(g.A_OWN + c for c in self.hands[self.active])
        if phase == ROW_CHOICE:
            return list(range(g.A_ROW, g.A_ROW + len(self.row)))
        if phase == RETIRE_CHOICE:
            a = self.active
            return [g.A_RETIRE + s * 4 + f for s in range(n) if s != a for f in range(4)]
        if phase == DEAL_ROLES:
            used = self.roles
            return [g.A_ROLE + r for r in range(g.num_roles) if r not in used]
        if phase == CHOOSE_START:
            return [g.A_START + s for s in range(n)]
        if phase == SNATCH_PICK:
            return sorted(g.A_SNATCH + c for c in self.hands[self.target])
        if phase == DECLARE_RED:
            me = self.green_queue[0]
            return [g.A_NAME_RED + p for p in range(n + g.num_reserve) if p != me]
        if phase == DECLARE_BLUE:
            me = self.green_queue[0]
            red = self.declarations[-1][1]
            return [g.A_NAME_BLUE + p for p in range(n + g.num_reserve) if p != me and p != red]
        return []

    def _target_actions(self) -> list[int]:
        g = self.game
        a, eff, n = self.active, self.effect, g.num_players
        if eff == SCAN:
            seats = [s for s in range(n) if s != a and self.hands[s]]
        elif eff == SWAP:
            seats = [s for s in range(n) if s != a and self.hands[s]]
        elif eff == SNATCH:
            seats = [s for s in range(n) if s != a and len(self.hands[s]) == g.snatch_hand]
        else:  # SPY, FLIP
            seats = [s for s in range(n) if s != a]
        out = [g.A_TARGET + s for s in seats]
        if eff == FLIP:
            out.extend(range(g.A_RESERVE, g.A_RESERVE + g.num_reserve))
        return out

    def chance_outcomes(self) -> list[tuple[int, float]]:
        legal = self.legal_actions() if self.phase in _CHANCE_PHASES else []
        if not legal:
            return []
        p = 1.0 / len(legal)
        return [(a, p) for a in legal]

    def returns(self) -> list[float]:
        n = self.game.num_players
        if self.phase != OVER or self.winner_faction < 0:
            return [0.0] * n
        faction = self.game.role_faction
        w = self.winner_faction
        return [1.0 if faction[self.roles[s]] == w else 0.0 for s in range(n)]

    def history(self) -> list[int]:
        if self.sampled:
            raise FieldcraftError(
                "a resampled state has no history: its hidden past was imagined, and the real "
                "one would reveal the cards the resampling seat cannot see"
            )
        return list(self.actions)

    def ply(self) -> int | None:
        if self.sampled:  # its past was imagined, so it has no count either
            return None
        return len(self.actions)  # the count is public even where the history is not

    def clone(self) -> UnderCurrentState:
        new = UnderCurrentState.__new__(UnderCurrentState)
        new.game = self.game
        new.actions = self.actions[:]
        new.phase = self.phase
        new.roles = self.roles[:]
        new.hands = [h[:] for h in self.hands]
        new.hand_known = [h[:] for h in self.hand_known]
        new.deck = self.deck[:]
        new.row = self.row[:]
        new.row_up = self.row_up[:]
        new.row_known = self.row_known[:]
        new.discard = self.discard[:]
        new.removed = self.removed[:]
        new.removed_known = self.removed_known[:]
        new.role_masks = [m[:] for m in self.role_masks]
        new.eye_record = self.eye_record  # written once at setup, never mutated
        new.active = self.active
        new.receiver = self.receiver
        new.pending = self.pending
        new.pending_known = self.pending_known
        new.saved_known = self.saved_known[:]
        new.effect = self.effect
        new.target = self.target
        new.swap_index = self.swap_index
        new.start_seat = self.start_seat
        new.turn = self.turn
        new.final_left = self.final_left
        new.eliminated = self.eliminated
        new.green_queue = self.green_queue[:]
        new.declarations = [d[:] for d in self.declarations]
        new.winner_faction = self.winner_faction
        new.how = self.how
        new.draw_seat = self.draw_seat
        new.sampled = self.sampled
        return new

    # ------------------------------------------------------------------ applying actions
    def _apply(self, action: int) -> None:
        self.actions.append(action)
        g = self.game
        phase = self.phase
        if phase == PASS:
            card, to = divmod(action - g.A_PASS, g.num_players)
            self._pass(card, to)
        elif phase == RECEIVE:
            self._receive(action == g.A_USE)
        elif phase == DRAW:
            self._draw(self.active, action - g.A_DRAW)
            self._after_draw()
        elif phase == TARGET:
            if action >= g.A_RESERVE:
                self._flip(g.num_players + action - g.A_RESERVE)
            else:
                self._target(action - g.A_TARGET)
        elif phase == SWAP_OWN:
            self.swap_index = self.hands[self.active].index(action - g.A_OWN)
            self.phase = SWAP_THEIRS
        elif phase == SWAP_THEIRS:
            self._swap(self.hands[self.target].index(action - g.A_OWN))
        elif phase == DROP_CHOICE:
            self._drop(action - g.A_OWN)
        elif phase == ROW_CHOICE:
            self._row_choice(action - g.A_ROW)
        elif phase == RETIRE_CHOICE:
            seat, faction = divmod(action - g.A_RETIRE, 4)
            self._retire(seat, faction)
        elif phase == SNATCH_PICK:
            self._snatch(action - g.A_SNATCH)
        elif phase == SNATCH_DRAW:
            self._draw(self.target, action - g.A_DRAW)
            self._end_turn()
        elif phase == DEAL_CARDS:
            self._draw(self.draw_seat, action - g.A_DRAW)
            self._next_setup_draw()
        elif phase == DEAL_ROLES:
            self._deal_role(action - g.A_ROLE)
        elif phase == CHOOSE_START:
            self.start_seat = action - g.A_START
            self._begin_turn(self.start_seat)
        elif phase == DECLARE_RED:
            self.declarations.append([self.green_queue[0], action - g.A_NAME_RED, -1])
            self.phase = DECLARE_BLUE
        elif phase == DECLARE_BLUE:
            self.declarations[-1][2] = action - g.A_NAME_BLUE
            self.green_queue.pop(0)
            if not self.green_queue:
                self._finish_declarations()
            else:
                self.phase = DECLARE_RED

    # -- setup
    def _deal_role(self, role: int) -> None:
        g = self.game
        self.roles.append(role)
        positions = g.num_players + g.num_reserve
        if len(self.roles) == positions - 1:  # the last card has nowhere else to go
            self.roles.append(next(r for r in range(g.num_roles) if r not in self.roles))
        if len(self.roles) < positions:
            return
        n = g.num_players
        for s in range(n):
            self.role_masks[s][s] = 1 << self.roles[s]
        self._identity_confirmation()
        self.draw_seat = 0
        self.phase = DEAL_CARDS

    def _identity_confirmation(self) -> None:
        """Eye holders learn which seats hold Eye and Thumb cards (and so which hold neither)."""
        g = self.game
        n = g.num_players
        sym = [g.role_symbol[self.roles[s]] for s in range(n)]
        eyes = [s for s in range(n) if sym[s] == 1]
        thumbs = [s for s in range(n) if sym[s] == 2]
        for v in eyes:
            self.eye_record[v] = [eyes, thumbs]
            masks = self.role_masks[v]
            for s in range(n):
                masks[s] &= g.symbol_mask[sym[s]]

    def _next_setup_draw(self) -> None:
        g = self.game
        n = g.num_players
        while self.draw_seat < n and len(self.hands[self.draw_seat]) >= g.hand_size:
            self.draw_seat += 1
        if self.draw_seat < n:
            return
        self.draw_seat = -1
        if g.random_start:
            self.phase = CHOOSE_START
        else:
            self.start_seat = 0
            self._begin_turn(0)

    # -- turn structure
    def _begin_turn(self, seat: int) -> None:
        """Start ``seat``'s turn; a seat with no cards skips (its turn still counts)."""
        n = self.game.num_players
        while True:
            self.active = seat
            if self.hands[seat]:
                self.phase = PASS
                return
            if self._count_turn():
                return
            seat = (seat + 1) % n

    def _count_turn(self) -> bool:
        """Close the active seat's turn for the deck-out count; True if the game ended."""
        self.turn += 1
        if self.final_left > 0:
            self.final_left -= 1
            if self.final_left == 0:
                self._score("deck_out")
                return True
        elif self.final_left < 0 and not self.deck:
            self.final_left = self.game.num_players
        return False

    def _end_turn(self) -> None:
        """Draw back up for the active seat, then hand over to the next seat."""
        a = self.active
        self.effect = -1
        self.target = -1
        self.receiver = -1
        self.pending = -1
        self.pending_known = 0
        self.swap_index = -1
        if len(self.hands[a]) < self.game.hand_size and self.deck:
            self.phase = DRAW
            return
        self._after_draw()

    def _after_draw(self) -> None:
        a = self.active
        if len(self.hands[a]) < self.game.hand_size and self.deck:
            self.phase = DRAW
            return
        if self._count_turn():
            return
        self._begin_turn((a + 1) % self.game.num_players)

    def _draw(self, seat: int, card: int) -> None:
        self.deck.remove(card)
        self.hands[seat].append(card)
        self.hand_known[seat].append(1 << seat)

    def _take_from_hand(self, seat: int, card: int, keep_mask: int) -> int:
        """Remove ``card`` from ``seat``'s hand secretly; returns its old known mask.

        Onlookers outside ``keep_mask`` cannot tell which card left when the hand held more than
        one, so they forget the cards that stay.
        """
        hand = self.hands[seat]
        i = hand.index(card)
        hand.pop(i)
        known = self.hand_known[seat]
        old = known.pop(i)
        if hand:
            for j in range(len(known)):
                known[j] &= keep_mask
            return old & keep_mask
        return old

    def _pass(self, card: int, to: int) -> None:
        a = self.active
        self.saved_known = [m for i, m in enumerate(self.hand_known[a])
                            if self.hands[a][i] != card]
        was_single = len(self.hands[a]) == 1
        old = self._take_from_hand(a, card, (1 << a) | (1 << to))
        self.pending = card
        self.pending_known = (old if was_single else 0) | (1 << a) | (1 << to)
        self.receiver = to
        self.phase = RECEIVE

    def _receive(self, use: bool) -> None:
        g = self.game
        card = self.pending
        if not use:
            self._file(card, self.pending_known)
            self._end_turn()
            return
        # The card is shown to all, so the pass no longer hides which card left the hand.
        self.hand_known[self.active] = self.saved_known
        self.saved_known = []
        self.discard.append(card)
        self.pending_known = g.all_known
        self._resolve(g.card_effect[card])

    def _file(self, card: int, known: int) -> None:
        """Add a face-down card to the row; past the limit the oldest face-down card turns up."""
        self.row.append(card)
        self.row_up.append(0)
        self.row_known.append(known)
        down = [i for i, up in enumerate(self.row_up) if not up]
        if len(down) > self.game.row_limit:
            oldest = down[0]
            self.row_up[oldest] = 1
            self.row_known[oldest] = self.game.all_known

    # -- effects
    def _resolve(self, effect: int) -> None:
        g = self.game
        a = self.active
        self.effect = effect
        if effect in (SWAP, SCAN, SPY, FLIP, SNATCH):
            if effect == SWAP and not self.hands[a]:
                self._end_turn()
                return
            if self._target_actions():
                self.phase = TARGET
            else:
                self._end_turn()
        elif effect == PEEK:
            bit = 1 << a
            for i in range(len(self.row)):
                self.row_known[i] |= bit
            self._end_turn()
        elif effect == DROP:
            if self.hands[a]:
                self.phase = DROP_CHOICE
            else:
                self._end_turn()
        elif effect == FETCH or effect == BURN:
            if self.row:
                self.phase = ROW_CHOICE
            else:
                self._end_turn()
        elif effect == RETIRE:
            if len(self.row) >= g.retire_min_row:
                self.phase = RETIRE_CHOICE
            else:
                self._end_turn()

    def _target(self, seat: int) -> None:
        a = self.active
        eff = self.effect
        self.target = seat
        if eff == SCAN:
            bit = 1 << a
            known = self.hand_known[seat]
            for i in range(len(known)):
                known[i] |= bit
            self._end_turn()
        elif eff == SPY:
            self.role_masks[a][seat] = 1 << self.roles[seat]
            self._end_turn()
        elif eff == FLIP:
            self._flip(seat)
        elif eff == SWAP:
            self.phase = SWAP_OWN
        elif eff == SNATCH:
            self.phase = SNATCH_PICK

    def _flip(self, pos: int) -> None:
        """Exchange role cards; the move is public, so every viewer's knowledge moves too."""
        a = self.active
        self.target = pos
        roles = self.roles
        roles[a], roles[pos] = roles[pos], roles[a]
        for masks in self.role_masks:
            masks[a], masks[pos] = masks[pos], masks[a]
        self.role_masks[a][a] = 1 << roles[a]
        if pos < self.game.num_players:
            self.role_masks[pos][pos] = 1 << roles[pos]
        self._end_turn()

    def _swap(self, their_index: int) -> None:
        a, t = self.active, self.target
        pair = (1 << a) | (1 << t)
        mine = self.hands[a][self.swap_index]
        theirs = self.hands[t][their_index]
        mine_known = self._take_from_hand(a, mine, pair)
        theirs_known = self._take_from_hand(t, theirs, pair)
        self.hands[a].append(theirs)
        self.hand_known[a].append(theirs_known | pair)
        self.hands[t].append(mine)
        self.hand_known[t].append(mine_known | pair)
        self._end_turn()

    def _drop(self, card: int) -> None:
        a = self.active
        was_single = len(self.hands[a]) == 1
        old = self._take_from_hand(a, card, 1 << a)
        self._file(card, (old if was_single else 0) | (1 << a))
        self._end_turn()

    def _snatch(self, card: int) -> None:
        t = self.target
        was_single = len(self.hands[t]) == 1
        old = self._take_from_hand(t, card, 1 << t)
        self._file(card, (old if was_single else 0) | (1 << t))
        if self.deck:
            self.phase = SNATCH_DRAW
        else:
            self._end_turn()

    def _row_choice(self, index: int) -> None:
        a = self.active
        card = self.row.pop(index)
        self.row_up.pop(index)
        known = self.row_known.pop(index)
        if self.effect == FETCH:
            self.hands[a].append(card)
            self.hand_known[a].append(known | (1 << a))
        else:
            self.removed.append(card)
            self.removed_known.append(known)
        self._end_turn()

    def _retire(self, seat: int, faction: int) -> None:
        g = self.game
        self.target = seat
        if g.role_faction[self.roles[seat]] == faction:
            self.eliminated = seat
            known = g.faction_mask[faction]
            for masks in self.role_masks:  # a right guess is public knowledge too
                masks[seat] &= known
            self._score("retire")
            return
        cleared = ~g.faction_mask[faction]
        for masks in self.role_masks:  # a wrong guess is public knowledge
            masks[seat] &= cleared
        self._end_turn()

    # -- scoring
    def _score(self, ending: str) -> None:
        g = self.game
        self.how = ending
        self.active = -1
        self.effect = -1
        self.pending = -1
        self.pending_known = 0
        self.receiver = -1
        self.phase = OVER
        for i in range(len(self.row)):
            self.row_up[i] = 1
            self.row_known[i] = g.all_known
        if self.eliminated >= 0 and g.informer_removal:
            role = self.roles[self.eliminated]
            colour = g.role_faction[role]
            if any(g.card_colour[c] == colour for c in self.row):
                # whether cards leave the row shows everyone if the retired seat is an Informer
                informers = sum(1 << r for r in range(g.num_roles)
                                if g.role_rank[r] == "Informer")
                seen = informers if g.role_rank[role] == "Informer" else ~informers
                for masks in self.role_masks:
                    masks[self.eliminated] &= seen
            if g.role_rank[role] == "Informer":
                keep = [i for i, c in enumerate(self.row) if g.card_colour[c] != colour]
                for c in self.row:
                    if g.card_colour[c] == colour:
                        self.removed.append(c)
                        self.removed_known.append(g.all_known)
                self.row = [self.row[i] for i in keep]
                self.row_up = [1] * len(keep)
                self.row_known = [g.all_known] * len(keep)
        if any(g.card_colour[c] == GREEN for c in self.row):
            self._finish(GREEN, "green_card")
            return
        n = g.num_players
        greens = [s for s in range(n) if g.role_faction[self.roles[s]] == GREEN]
        if greens and g.green_declaration:
            not_green = ~g.faction_mask[GREEN]
            for masks in self.role_masks:  # every Green seat reveals, so the others are not Green
                for s in range(n):
                    masks[s] = 1 << self.roles[s] if s in greens else masks[s] & not_green
            self.green_queue = greens
            self.phase = DECLARE_RED
            return
        self._balance()

    def _finish_declarations(self) -> None:
        roles = self.roles
        g = self.game
        right = all(
            roles[red] in g.red_informers and roles[blue] in g.blue_informers
            for _, red, blue in self.declarations
        )
        if right:
            self._finish(GREEN, "green_declaration")
        else:
            self._balance()

    def _balance(self) -> None:
        colours = [self.game.card_colour[c] for c in self.row]
        blue, red, yellow = colours.count(BLUE), colours.count(RED), colours.count(YELLOW)
        if abs(blue - red) <= yellow:
            self._finish(YELLOW, "yellow_balance")
        else:
            self._finish(BLUE if blue > red else RED, "majority")

    def _finish(self, faction: int, reason: str) -> None:
        g = self.game
        seated = any(g.role_faction[self.roles[s]] == faction for s in range(g.num_players))
        self.winner_faction = faction if seated else -1
        self.how = f"{self.how}:{reason}"
        self.phase = OVER
        full = [1 << r for r in self.roles]
        for v in range(len(self.role_masks)):  # the end reveals every role card
            self.role_masks[v] = full[:]

    # ------------------------------------------------------------------ strings
    def card_name(self, card: int) -> str:
        return self.game.card_names[card]

    def action_to_string(self, action: int) -> str:
        g = self.game
        n = g.num_players
        if not 0 <= action < g.num_actions:
            raise MalformedActionError(f"action {action} is outside 0..{g.num_actions - 1}")
        if action < g.A_FILE:
            card, to = divmod(action - g.A_PASS, n)
            return f"pass {g.card_names[card]} to seat {to}"
        if action == g.A_FILE:
            return "file"
        if action == g.A_USE:
            return "use"
        if action < g.A_RESERVE:
            verb = {SCAN: "scan", SPY: "spy on", FLIP: "flip with", SWAP: "swap with",
                    SNATCH: "snatch from"}.get(self.effect, "target")
            return f"{verb} seat {action - g.A_TARGET}"
        if action < g.A_OWN:
            return f"flip with reserve {action - g.A_RESERVE}"
        if action < g.A_ROW:
            verb = "drop" if self.phase == DROP_CHOICE else "give"
            return f"{verb} {g.card_names[action - g.A_OWN]}"
        if action < g.A_RETIRE:
            verb = {FETCH: "fetch", BURN: "burn"}.get(self.effect, "take")
            return f"{verb} row {action - g.A_ROW}"
        if action < g.A_NAME_RED:
            seat, faction = divmod(action - g.A_RETIRE, 4)
            return f"retire seat {seat} as {FACTIONS[faction]}"
        if action < g.A_NAME_BLUE:
            return f"name {g.position_name(action - g.A_NAME_RED)} as Red Informer"
        if action < g.A_DRAW:
            return f"name {g.position_name(action - g.A_NAME_BLUE)} as Blue Informer"
        if action < g.A_ROLE:
            return f"draw {g.card_names[action - g.A_DRAW]}"
        if action < g.A_START:
            where = g.position_name(len(self.roles)) if self.phase == DEAL_ROLES else "a position"
            return f"deal {g.role_names[action - g.A_ROLE]} to {where}"
        if action < g.A_SNATCH:
            return f"seat {action - g.A_START} starts"
        return f"snatch picks {g.card_names[action - g.A_SNATCH]}"

    def string_to_action(self, text: str) -> int:
        g = self.game
        s = " ".join(text.strip().lower().split())
        m = _PATTERNS.fullmatch(s)
        if not m:
            raise MalformedActionError(f"cannot read {text!r} as an Under Current action")
        kind = m.lastgroup
        n = g.num_players

        def seat(value: str) -> int:
            number = int(value)
            if not 0 <= number < n:
                raise MalformedActionError(f"no seat {number} in a {n}-player game")
            return number

        def card(value: str) -> int:
            if value not in g._card_lookup:
                raise MalformedActionError(f"no card named {value!r} in this game")
            return g._card_lookup[value]

        def position(value: str) -> int:
            where, number = value.split()
            if where == "seat":
                return seat(number)
            r = int(number)
            if not 0 <= r < g.num_reserve:
                raise MalformedActionError(f"no reserve {r} (there are {g.num_reserve})")
            return n + r

        if kind == "pass":
            return g.A_PASS + card(m["pcard"]) * n + seat(m["pseat"])
        if kind == "file":
            return g.A_FILE
        if kind == "use":
            return g.A_USE
        if kind == "target":
            return g.A_TARGET + seat(m["tseat"])
        if kind == "reserve":
            return position("reserve " + m["rnum"]) - n + g.A_RESERVE
        if kind == "own":
            return g.A_OWN + card(m["ocard"])
        if kind == "row":
            index = int(m["rindex"])
            if not 0 <= index < g.num_cards:
                raise MalformedActionError(f"row index {index} is out of range")
            return g.A_ROW + index
        if kind == "retire":
            return g.A_RETIRE + seat(m["xseat"]) * 4 + FACTIONS.index(m["xfaction"].title())
        if kind == "name":
            base = g.A_NAME_RED if m["nfaction"] == "red" else g.A_NAME_BLUE
            return base + position(m["npos"])
        if kind == "draw":
            return g.A_DRAW + card(m["dcard"])
        if kind == "deal":
            role = m["drole"]
            if role not in g._role_lookup:
                raise MalformedActionError(f"no role named {role!r} in this game")
            return g.A_ROLE + g._role_lookup[role]
        if kind == "start":
            return g.A_START + seat(m["sseat"])
        return g.A_SNATCH + card(m["scard"])

    # ------------------------------------------------------------------ what a seat sees
    def observation(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` knows now (``None``: what a spectator knows).

        The one place that decides visibility in this game: every field is built from public
        data or from the seat's own ``known`` bits and role masks.
        """
        g = self.game
        n = g.num_players
        viewer = n if seat is None else seat
        bit = 1 << viewer
        pub = 1 << n
        names = g.card_names

        def visible(mask: int) -> bool:
            return bool(mask & bit) or bool(mask & pub)

        role_view = [[g.role_names[r] for r in range(g.num_roles) if mask >> r & 1]
                     for mask in _deduce(self.role_masks[viewer])]
        known_hands: dict[str, list[str]] = {}
        for s in range(n):
            if s == seat:
                continue
            cards = sorted(names[c] for c, m in zip(self.hands[s], self.hand_known[s], strict=True)
                           if visible(m))
            if cards:
                known_hands[str(s)] = cards
        obs: dict[str, Any] = {
            "game": g.name,
            "players": n,
            "seat": seat,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "active": self.active,
            "start_seat": self.start_seat,
            "turn": self.turn,
            "deck_count": len(self.deck),
            "final_round": self.final_left > 0,
            "final_turns_left": max(self.final_left, 0),
            "hand_sizes": [len(h) for h in self.hands],
            "hand": [names[c] for c in self.hands[seat]] if seat is not None else None,
            "role": g.role_names[self.roles[seat]]
            if seat is not None and len(self.roles) > seat else None,
            "roles": role_view,
            "known_hands": known_hands,
            "row": [
                {"card": names[c] if visible(self.row_known[i]) else None,
                 "face_up": bool(self.row_up[i])}
                for i, c in enumerate(self.row)
            ],
            "discard": [names[c] for c in self.discard],
            "removed": [names[c] if visible(m) else None
                        for c, m in zip(self.removed, self.removed_known, strict=True)],
            "identity_confirmation": None,
            "pending": self._pending_view(viewer),
            "eliminated": self.eliminated if self.eliminated >= 0 else None,
            "declarations": [
                {"seat": s, "red_informer": g.position_name(r),
                 "blue_informer": g.position_name(b) if b >= 0 else None}
                for s, r, b in self.declarations
            ],
            "winner_faction": FACTIONS[self.winner_faction]
            if self.phase == OVER and self.winner_faction >= 0 else None,
            "winners": self.winners(),
            "ending": self.how or None,
        }
        if seat is not None and self.eye_record[seat] is not None:
            eyes, thumbs = self.eye_record[seat]
            obs["identity_confirmation"] = {"eye": eyes, "thumb": thumbs}
        return obs

    def _pending_view(self, viewer: int) -> dict[str, Any] | None:
        g = self.game
        if self.pending < 0:
            return None
        mask = self.pending_known
        seen = bool(mask >> viewer & 1) or bool(mask >> g.num_players & 1)
        view: dict[str, Any] = {
            "passer": self.active,
            "receiver": self.receiver,
            "card": g.card_names[self.pending] if seen else None,
        }
        if self.effect >= 0:
            view["effect"] = EFFECTS[self.effect]
            view["target"] = g.position_name(self.target) if self.target >= 0 else None
        if self.swap_index >= 0 and viewer == self.active:
            view["your_swap_card"] = g.card_names[self.hands[self.active][self.swap_index]]
        return view

    def resample(self, seat: int, rng: random.Random) -> UnderCurrentState:
        """A full state ``seat`` cannot tell from this one: unknown cards and roles re-dealt."""
        g = self.game
        n = g.num_players
        new = self.clone()
        bit = (1 << seat) | (1 << n)
        # Cards: every slot the seat cannot identify, plus the deck, is one shuffled pool.
        slots: list[tuple[list[int], int]] = []
        for s in range(n):
            hand, known = new.hands[s], new.hand_known[s]
            for i in range(len(hand)):
                if not known[i] & bit:
                    slots.append((hand, i))
        for i in range(len(new.row)):
            if not new.row_known[i] & bit:
                slots.append((new.row, i))
        for i in range(len(new.removed)):
            if not new.removed_known[i] & bit:
                slots.append((new.removed, i))
        pool = [where[i] for where, i in slots] + new.deck
        pending_hidden = new.pending >= 0 and not new.pending_known & bit
        if pending_hidden:
            pool.append(new.pending)
        pool.sort()  # canonical: depends on what the seat knows, not on the true deal
        shuffle(pool, rng)
        for k, (where, i) in enumerate(slots):
            where[i] = pool[k]
        k = len(slots)
        if pending_hidden:
            new.pending = pool[k]
            k += 1
        new.deck = sorted(pool[k:])
        new.sampled = True
        new.actions = []
        new.eye_record = [record if w == seat else None for w, record in enumerate(new.eye_record)]
        if new.roles and len(new.roles) == n + g.num_reserve:
            new.roles = _sample_roles(new.role_masks[seat], g.num_roles, rng)
            public = new.role_masks[n]
            for w in range(n):  # others' private knowledge would contradict the new deal
                if w != seat:
                    masks = public[:]
                    masks[w] = 1 << new.roles[w]
                    new.role_masks[w] = masks
        return new

    # ------------------------------------------------------------------ logs and reports
    def describe_action(self, action: int, seat: int | None) -> str | None:
        g = self.game
        phase = self.phase
        a = self.active

        def you(s: int) -> str:
            return "you" if s == seat else f"seat {s}"

        if phase == DEAL_ROLES:
            pos = len(self.roles)
            if pos == seat:
                return f"you are dealt the role {g.role_names[action - g.A_ROLE]}"
            return None
        if phase in (DEAL_CARDS, DRAW, SNATCH_DRAW):
            who = {DEAL_CARDS: self.draw_seat, DRAW: a, SNATCH_DRAW: self.target}[phase]
            if who == seat:
                return f"you draw {g.card_names[action - g.A_DRAW]}"
            return f"seat {who} draws a card"
        if phase == CHOOSE_START:
            return f"{you(action - g.A_START)} start" + ("" if action - g.A_START == seat else "s")
        if phase == PASS:
            card, to = divmod(action - g.A_PASS, g.num_players)
            what = g.card_names[card] if seat in (a, to) else "a card"
            return f"{you(a)} pass{'' if a == seat else 'es'} {what} to {you(to)}"
        if phase == RECEIVE:
            r = self.receiver
            if action == g.A_FILE:
                seen = seat in (a, r)
                what = g.card_names[self.pending] if seen else "the card"
                return f"{you(r)} file{'' if r == seat else 's'} {what} face down"
            used = g.card_names[self.pending]
            return f"{you(r)} let{'' if r == seat else 's'} {you(a)} use {used}"
        if phase == SNATCH_PICK:
            t = self.target
            if t == seat:
                taken = g.card_names[action - g.A_SNATCH]
                return f"{taken} is snatched from your hand into the row"
            return f"a random card of seat {t} goes face down into the row"
        if phase == SWAP_OWN:
            return f"you pick {g.card_names[action - g.A_OWN]} to swap" if seat == a else None
        if phase == SWAP_THEIRS:
            if seat in (a, self.target):
                mine = g.card_names[self.hands[a][self.swap_index]]
                theirs = g.card_names[action - g.A_OWN]
                return f"swap done: seat {a} gave {mine}, seat {self.target} gave {theirs}"
            return f"seat {a} and seat {self.target} swap a card"
        if phase == DROP_CHOICE:
            what = g.card_names[action - g.A_OWN] if seat == a else "a card"
            return f"{you(a)} drop{'' if a == seat else 's'} {what} face down into the row"
        if phase == TARGET and self.effect == SCAN and seat == a:
            t = action - g.A_TARGET
            cards = ", ".join(g.card_names[c] for c in self.hands[t])
            return f"you scan seat {t}: {cards}"
        if phase == TARGET and self.effect == SPY and seat == a:
            t = action - g.A_TARGET
            return f"you spy on seat {t}: {g.role_names[self.roles[t]]}"
        if phase == RETIRE_CHOICE:
            t, f = divmod(action - g.A_RETIRE, 4)
            right = g.role_faction[self.roles[t]] == f
            verdict = "correct: eliminated, the game ends" if right else "wrong: nothing happens"
            return f"seat {a} retires seat {t} as {FACTIONS[f]} ({verdict})"
        if phase == ROW_CHOICE:
            i = action - g.A_ROW
            viewer = g.num_players if seat is None else seat
            shown = self.row_known[i] & ((1 << g.num_players) | (1 << viewer))
            if self.effect == FETCH and seat == a:
                shown = 1
            what = g.card_names[self.row[i]] if shown else "a face-down card"
            verb = "fetches" if self.effect == FETCH else "burns"
            return f"seat {a} {verb} row {i}: {what}"
        return f"{'seat ' + str(self.current_player())}: {self.action_to_string(action)}"

    def seat_label(self, seat: int) -> str | None:
        if len(self.roles) <= seat:
            return None
        return FACTIONS[self.game.role_faction[self.roles[seat]]]

    def outcome(self) -> dict[str, Any]:
        g = self.game
        colours = [g.card_colour[c] for c in self.row]
        ending, _, reason = self.how.partition(":")
        return {
            "winners": self.winners(),
            "winning_faction": FACTIONS[self.winner_faction] if self.winner_faction >= 0
            else None,
            "ending": ending or None,
            "decided_by": reason or None,
            "eliminated": self.eliminated if self.eliminated >= 0 else None,
            "row": {FACTIONS[f]: colours.count(f) for f in range(4)},
            "roles": [g.role_names[r] for r in self.roles[: g.num_players]],
            "factions": [self.seat_label(s) for s in range(g.num_players)],
            "turns": self.turn,
        }

    def check_invariants(self) -> None:
        g = self.game
        n = g.num_players
        places = self.deck + [c for h in self.hands for c in h] + self.row + self.discard \
            + self.removed
        if self.pending >= 0 and self.phase == RECEIVE:
            places.append(self.pending)
        assert sorted(places) == list(range(g.num_cards)), "intelligence cards not conserved"
        assert self.deck == sorted(self.deck)
        for s in range(n):
            assert len(self.hands[s]) == len(self.hand_known[s])
            assert all(m >> s & 1 for m in self.hand_known[s]), "a seat must know its own hand"
            assert len(self.hands[s]) <= g.hand_size
        assert len(self.row) == len(self.row_up) == len(self.row_known)
        assert len(self.removed) == len(self.removed_known)
        for up, m in zip(self.row_up, self.row_known, strict=True):
            assert not up or m == g.all_known, "a face-up card must be known to all"
        if self.phase != OVER:
            assert self.row_up.count(0) <= g.row_limit, "too many face-down cards in the row"
        if self.phase != DEAL_ROLES:
            assert sorted(self.roles) == list(range(g.num_roles)), "role cards not conserved"
            for masks in self.role_masks:
                for p, mask in enumerate(masks):
                    assert mask >> self.roles[p] & 1, "a viewer rules out the true role"


_CARD = r"[a-z]+/[a-z]+(?:\(\d\+\))?(?:#\d+)?"
_PATTERNS = re.compile(
    rf"(?P<pass>pass (?P<pcard>{_CARD}) to seat (?P<pseat>\d+))"
    r"|(?P<file>file)|(?P<use>use)"
    r"|(?P<target>(?:scan|spy on|flip with|swap with|snatch from|target) seat (?P<tseat>\d+))"
    r"|(?P<reserve>flip with reserve (?P<rnum>\d+))"
    rf"|(?P<own>(?:drop|give) (?P<ocard>{_CARD}))"
    r"|(?P<row>(?:fetch|burn|take) row (?P<rindex>\d+))"
    r"|(?P<retire>retire seat (?P<xseat>\d+) as (?P<xfaction>blue|red|yellow|green))"
    r"|(?P<name>name (?P<npos>(?:seat|reserve) \d+) as (?P<nfaction>red|blue) informer)"
    rf"|(?P<draw>draw (?P<dcard>{_CARD}))"
    r"|(?P<deal>deal (?P<drole>[a-z]+ [a-z]+(?: \d+)?) to (?:seat \d+|reserve \d+|a position))"
    r"|(?P<start>seat (?P<sseat>\d+) starts)"
    rf"|(?P<snatch>snatch picks (?P<scard>{_CARD}))"
)


def _deduce(masks: list[int]) -> list[int]:
    """Narrow candidates by the fact that each role card is in exactly one place, until stable:
    a role pinned to one position is struck from the others, and a role possible at only one
    position is pinned there. Both steps are sound; the view shows their result."""
    masks = masks[:]
    size = len(masks)
    changed = True
    while changed:
        changed = False
        for p, mask in enumerate(masks):
            if mask & (mask - 1) == 0:  # exactly one candidate
                for q in range(size):
                    if q != p and masks[q] & mask:
                        masks[q] &= ~mask
                        changed = True
        every = 0
        for mask in masks:
            every |= mask
        r = 0
        while every >> r:
            bit = 1 << r
            places = [p for p in range(size) if masks[p] & bit]
            if len(places) == 1 and masks[places[0]] != bit:
                masks[places[0]] = bit
                changed = True
            r += 1
    return masks


def _sample_roles(masks: list[int], num_roles: int, rng: random.Random) -> list[int]:
    """A random assignment of role ids to positions allowed by ``masks`` (one card each).

    Rejection sampling is uniform and usually accepts within a few tries; when knowledge is
    tight, a search (fewest candidates first, backtracking) finds a deal, and since the true deal
    is always a solution it never fails.
    """
    deal = list(range(num_roles))
    for _ in range(200):  # rejection sampling: uniform over consistent deals
        shuffle(deal, rng)
        if all(mask >> r & 1 for mask, r in zip(masks, deal, strict=True)):
            return deal[:]
    # Tight constraints: fall back to a randomised search (always succeeds, slightly biased).
    order = sorted(range(len(masks)), key=lambda p: (bin(masks[p]).count("1"), rng.random()))
    result = [-1] * len(masks)

    def place(k: int, used: int) -> bool:
        if k == len(order):
            return True
        p = order[k]
        options = [r for r in range(num_roles) if masks[p] >> r & 1 and not used >> r & 1]
        shuffle(options, rng)
        for r in options:
            result[p] = r
            if place(k + 1, used | (1 << r)):
                return True
        return False

    if not place(0, 0):
        raise AssertionError("role knowledge is inconsistent")
    return result
