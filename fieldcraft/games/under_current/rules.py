"""Under Current rules core: hidden roles, one card passed a turn, a Central File Row.

Everything is plain ints and lists. Intelligence cards and role cards are ids into the ruleset's
tables. What each seat knows is kept as data, not recomputed from history:

* ``known`` bitmasks, one per card slot (hand cards, row cards, burned cards): bit ``s`` means seat
  ``s`` knows which card lies there, bit ``N`` means everybody does (a public card). Secret moves
  clear the bits of onlookers who can no longer tell which card moved.
* ``role_masks[v][p]``: the role ids that viewer ``v`` (``N`` = the public) still thinks possible
  at role position ``p`` (seats ``0..N-1``, then the reserve). Public events (FLIP, a failed
  RETIRE) update every viewer at once, so knowledge travels with the role cards.

The observation (``view.py``) is derived from these alone, and ``resample`` (``search.py``)
re-deals everything a seat cannot see while keeping them, which is why a leaking view is caught
by the conformance suite.

This module reads the action ids: per phase, who acts, what is legal, and the step that decodes
an action and hands it to the moves of ``turns.py`` (a turn, the effects, what the seats learn,
scoring), which speak of cards, seats and positions only. The tables it reads are laid out by
the game (``game.py``).

Action space (``N`` players, ``C`` intelligence cards, ``R`` reserve slots, ``P = N + R`` role
positions, ``K = P`` role cards), consecutive blocks::

    A_PASS      = 0           card * N + seat      pass a card to a seat
    A_FILE      = C*N         file                 the receiver archives the card
    A_USE       = A_FILE + 1  use                  the receiver lets the passer use it
    A_TARGET    + seat        name a seat for SCAN, SPY, FLIP, SWAP or SNATCH
    A_RESERVE   + slot        FLIP with a reserve slot
    A_OWN       + card        a card of one's own hand (SWAP pick, DROP)
    A_ROW       + index       a row card (FETCH, BURN)
    A_RETIRE    + seat*4 + f  RETIRE a seat as faction f
    A_NAME_RED  + position    a Green declaration: the Red Informer
    A_NAME_BLUE + position    ... and the Blue Informer
    A_DRAW      + card        chance: a card from the draw pile (deal, draw, SNATCH refill)
    A_ROLE      + role        chance: the next role card dealt
    A_START     + seat        chance: the starting seat
    A_SNATCH    + card        chance: the card SNATCH takes at random

Chance ids are everything from ``A_DRAW`` to the end of the space (``GameInfo.chance_offset``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from fieldcraft.core.api import CHANCE, TERMINAL, FieldcraftError, State

from .constants import (
    CHOOSE_START,
    DEAL_CARDS,
    DEAL_ROLES,
    DECK_PHASES,
    DECLARE_BLUE,
    DECLARE_RED,
    DRAW,
    DROP_CHOICE,
    FACTIONS,
    FLIP,
    IS_CHANCE,
    OVER,
    PASS,
    PEEK,
    PHASE_NAMES,
    RECEIVE,
    RETIRE_CHOICE,
    ROLES_DEALT,
    ROW_CHOICE,
    SCAN,
    SNATCH,
    SNATCH_DRAW,
    SNATCH_PICK,
    SWAP,
    SWAP_OWN,
    SWAP_THEIRS,
    TARGET,
)
from .turns import TurnRules, TurnTables

if TYPE_CHECKING:
    from .game import UnderCurrentGame

EXTRA_DECISIONS = {SWAP: 3, PEEK: 0}
"""Decisions a used card's effect adds after pass and use: SWAP names a seat, then each side
picks a card; PEEK needs none; every other effect one (a seat, a hand card, a row card, a
RETIRE guess). Used by ``max_game_length``."""


class UnderCurrentRules(TurnRules):
    """The rules core of a position: who acts, what is legal, and the step per phase that
    decodes an action. The fields and the moves the steps call are declared on ``TurnRules``
    (``turns.py``)."""

    game: UnderCurrentGame
    uniform_chance = True  # every deal, draw, start seat and SNATCH pick is a fair pick

    @cython.locals(game=TurnTables, n=cython.int, positions=cython.int)
    def __init__(self, game: UnderCurrentGame):
        self.game = game
        n = game.num_players
        self.actions = []
        self.phase = DEAL_ROLES
        self.roles = []
        self.hands = [[] for _ in range(n)]
        self.hand_known = [[] for _ in range(n)]
        self.deck = list(range(game.num_cards))
        self.row = []
        self.row_up = []
        self.row_known = []
        self.discard = []
        self.removed = []
        self.removed_known = []
        positions = n + game.num_reserve
        self.role_masks = [[game.full_role_mask] * positions for _ in range(n + 1)]
        self.eye_record = [None] * n
        self.active = -1
        self.receiver = -1
        self.pending = -1
        self.pending_known = 0
        self.saved_known = []
        self.effect = -1
        self.target = -1
        self.swap_index = -1
        self.start_seat = -1
        self.turn = 0
        self.final_left = -1
        self.eliminated = -1
        self.informer_removed = 0
        self.green_queue = []
        self.declarations = []
        self.winner_faction = -1
        self.how = ""
        self.draw_seat = -1
        self.sampled = False

    # -- core API -------------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if IS_CHANCE[phase]:
            return CHANCE
        if phase == PASS:
            return self.active
        if phase == RECEIVE:
            return self.receiver
        if phase == OVER:
            return TERMINAL
        if phase == SWAP_THEIRS:
            return self.target
        if phase == DECLARE_RED or phase == DECLARE_BLUE:
            return self.green_queue[0]
        return self.active

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance_node(self) -> bool:
        return IS_CHANCE[self.phase]

    def legal_actions(self) -> list[int]:
        phase = self.phase
        g = self.game
        if phase in DECK_PHASES:
            base = g.A_DRAW
            return [base + c for c in self.deck]
        if phase == PASS:
            hand = self.hands[self.active]
            rows = g.pass_rows[self.active]
            if len(hand) == 2:
                x, y = hand
                return rows[x] + rows[y] if x < y else rows[y] + rows[x]
            out: list[int] = []
            for card in sorted(hand):
                out += rows[card]
            return out
        if phase == RECEIVE:
            return [g.A_FILE, g.A_USE]
        if phase == DEAL_ROLES:
            used = self.roles
            base = g.A_ROLE
            return [base + r for r in range(g.num_roles) if r not in used]
        if phase == TARGET:
            return self._target_actions()
        if phase == SWAP_OWN or phase == DROP_CHOICE:
            return sorted([g.A_OWN + c for c in self.hands[self.active]])
        if phase == SWAP_THEIRS:
            return sorted([g.A_OWN + c for c in self.hands[self.target]])
        if phase == ROW_CHOICE:
            return list(range(g.A_ROW, g.A_ROW + len(self.row)))
        if phase == RETIRE_CHOICE:
            return g.retire_rows[self.active][:]
        if phase == CHOOSE_START:
            return list(range(g.A_START, g.A_START + g.num_players))
        if phase == SNATCH_PICK:
            return sorted([g.A_SNATCH + c for c in self.hands[self.target]])
        if phase == DECLARE_RED:
            me = self.green_queue[0]
            return [g.A_NAME_RED + p for p in range(g.num_roles) if p != me]
        if phase == DECLARE_BLUE:
            me = self.green_queue[0]
            red = self.declarations[-1][1]
            return [g.A_NAME_BLUE + p for p in range(g.num_roles) if p != me and p != red]
        return []

    def _is_legal(self, action: int) -> bool:
        phase = self.phase
        g = self.game
        if phase in DECK_PHASES:
            return action - g.A_DRAW in self.deck
        if phase == PASS:
            if not 0 <= action < g.A_FILE:
                return False
            card, to = divmod(action, g.num_players)
            return to != self.active and card in self.hands[self.active]
        if phase == RECEIVE:
            return action == g.A_FILE or action == g.A_USE
        if phase == DEAL_ROLES:
            role = action - g.A_ROLE
            return 0 <= role < g.num_roles and role not in self.roles
        if phase == TARGET:
            return self._is_target(action)
        if phase == SWAP_OWN or phase == DROP_CHOICE:
            return action - g.A_OWN in self.hands[self.active]
        if phase == SWAP_THEIRS:
            return action - g.A_OWN in self.hands[self.target]
        if phase == ROW_CHOICE:
            return 0 <= action - g.A_ROW < len(self.row)
        if phase == RETIRE_CHOICE:
            index = action - g.A_RETIRE
            return 0 <= index < 4 * g.num_players and index >> 2 != self.active
        if phase == CHOOSE_START:
            return 0 <= action - g.A_START < g.num_players
        if phase == SNATCH_PICK:
            return action - g.A_SNATCH in self.hands[self.target]
        if phase == DECLARE_RED or phase == DECLARE_BLUE:
            base = g.A_NAME_RED if phase == DECLARE_RED else g.A_NAME_BLUE
            pos = action - base
            if not 0 <= pos < g.num_roles or pos == self.green_queue[0]:
                return False
            return phase == DECLARE_RED or pos != self.declarations[-1][1]
        return False

    def _target_actions(self) -> list[int]:
        g = self.game
        a, eff = self.active, self.effect
        base = g.A_TARGET
        if eff == SCAN or eff == SWAP:
            return [base + s for s, hand in enumerate(self.hands) if hand and s != a]
        if eff == SNATCH:
            size = g.snatch_hand
            return [base + s for s, hand in enumerate(self.hands) if len(hand) == size and s != a]
        if eff == FLIP:  # any other seat, or a reserve slot
            return g.flip_rows[a][:]
        return g.target_rows[a][:]  # SPY: any other seat

    def _is_target(self, action: int) -> bool:
        """``action in self._target_actions()`` without building the list."""
        g = self.game
        eff = self.effect
        seat = action - g.A_TARGET
        if 0 <= seat < g.num_players:
            if seat == self.active:
                return False
            if eff == SCAN or eff == SWAP:
                return bool(self.hands[seat])
            if eff == SNATCH:
                return len(self.hands[seat]) == g.snatch_hand
            return True
        return eff == FLIP and 0 <= action - g.A_RESERVE < g.num_reserve

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        g = self.game
        if phase in DECK_PHASES:
            deck = self.deck
            odds = g.draw_odds[len(deck)]
            return [odds[c] for c in deck]
        if phase == DEAL_ROLES:
            used = self.roles
            base = g.A_ROLE
            p = 1.0 / (g.num_roles - len(used))
            return [(base + r, p) for r in range(g.num_roles) if r not in used]
        if phase == CHOOSE_START:
            return g.start_odds[:]
        if phase == SNATCH_PICK:
            hand = sorted(self.hands[self.target])
            base = g.A_SNATCH
            p = 1.0 / len(hand)
            return [(base + c, p) for c in hand]
        return []

    def _apply(self, action: int) -> None:
        self.actions.append(action)
        phase = self.phase
        if phase == PASS:  # the phases in the order of how often they come up
            self._step_pass(action)
        elif phase == RECEIVE:
            self._step_receive(action)
        elif phase == DRAW:
            self._step_draw(action)
        elif phase == DEAL_CARDS:
            self._step_deal_card(action)
        elif phase == DEAL_ROLES:
            self._step_deal_role(action)
        elif phase == TARGET:
            self._step_target(action)
        elif phase == ROW_CHOICE:
            self._step_row(action)
        elif phase == SWAP_OWN:
            self._step_swap_own(action)
        elif phase == SWAP_THEIRS:
            self._step_swap_theirs(action)
        elif phase == CHOOSE_START:
            self._step_start(action)
        elif phase == SNATCH_PICK:
            self._step_snatch_pick(action)
        elif phase == DROP_CHOICE:
            self._step_drop(action)
        elif phase == RETIRE_CHOICE:
            self._step_retire(action)
        elif phase == SNATCH_DRAW:
            self._step_snatch_draw(action)
        elif phase == DECLARE_RED:
            self._step_declare_red(action)
        elif phase == DECLARE_BLUE:
            self._step_declare_blue(action)
        # OVER: nothing happens after the end (``_is_legal`` refuses every action there)

    # -- one step per phase (``_apply`` picks it) -----------------------------------------------
    def _step_deal_role(self, action: int) -> None:
        g = self.game
        self._deal_role(action - g.A_ROLE)

    def _step_deal_card(self, action: int) -> None:
        g = self.game
        seat = self.draw_seat
        self.deck.remove(action - g.A_DRAW)
        hand = self.hands[seat]
        hand.append(action - g.A_DRAW)
        self.hand_known[seat].append(1 << seat)
        if len(hand) >= g.hand_size:  # this hand is full: on to the next one
            self._next_setup_draw()

    def _step_start(self, action: int) -> None:
        g = self.game
        self.start_seat = action - g.A_START
        self._begin_turn(self.start_seat)

    def _step_pass(self, action: int) -> None:
        """The passer and the receiver see the card. While it waits, the others cannot tell
        which card left a hand of several; ``saved_known`` keeps what they knew of the rest,
        restored if the card is used (shown to all)."""
        g = self.game
        card, to = divmod(action, g.num_players)  # passes are ids 0.. (A_PASS = 0)
        a = self.active
        hand = self.hands[a]
        known = self.hand_known[a]
        i = hand.index(card)
        hand.pop(i)
        old = known.pop(i)
        self.saved_known = known[:]
        pair = (1 << a) | (1 << to)
        if hand:
            for j in range(len(known)):
                known[j] &= pair
            self.pending_known = pair
        else:  # a last card: nothing stays behind to mix it up with
            self.pending_known = old | pair
        self.pending = card
        self.receiver = to
        self.phase = RECEIVE

    def _step_receive(self, action: int) -> None:
        g = self.game
        card = self.pending
        if action == g.A_FILE:
            self._file(card, self.pending_known)
            self._end_turn()
            return
        # The card is shown to all, so the pass no longer hides which card left the hand.
        self.hand_known[self.active] = self.saved_known
        self.saved_known = []
        self.discard.append(card)
        self.pending_known = g.all_known
        self._resolve(g.card_effect[card])

    def _step_target(self, action: int) -> None:
        g = self.game
        if action >= g.A_RESERVE:
            self._flip(g.num_players + action - g.A_RESERVE)
        else:
            self._target(action - g.A_TARGET)

    def _step_retire(self, action: int) -> None:
        g = self.game
        seat, faction = divmod(action - g.A_RETIRE, 4)
        self._retire(seat, faction)

    def _step_swap_own(self, action: int) -> None:
        g = self.game
        self.swap_index = self.hands[self.active].index(action - g.A_OWN)
        self.phase = SWAP_THEIRS

    def _step_swap_theirs(self, action: int) -> None:
        g = self.game
        self._swap(self.hands[self.target].index(action - g.A_OWN))

    def _step_drop(self, action: int) -> None:
        g = self.game
        self._drop(action - g.A_OWN)

    def _step_row(self, action: int) -> None:
        g = self.game
        self._row_choice(action - g.A_ROW)

    def _step_snatch_pick(self, action: int) -> None:
        g = self.game
        self._snatch(action - g.A_SNATCH)

    def _step_snatch_draw(self, action: int) -> None:
        g = self.game
        self._draw(self.target, action - g.A_DRAW)
        self._end_turn()

    def _step_draw(self, action: int) -> None:
        """Draw one card; the turn ends once the hand is full or the pile empty (a third of all
        steps are draws, so this is written out rather than shared with ``_end_turn``)."""
        g = self.game
        a = self.active
        deck = self.deck
        deck.remove(action - g.A_DRAW)
        hand = self.hands[a]
        hand.append(action - g.A_DRAW)
        self.hand_known[a].append(1 << a)
        if deck and len(hand) < g.hand_size:
            return  # another card to draw (the phase stays DRAW)
        if self._count_turn():
            return
        self._begin_turn((a + 1) % g.num_players)

    def _step_declare_red(self, action: int) -> None:
        g = self.game
        self.declarations.append([self.green_queue[0], action - g.A_NAME_RED, -1])
        self.phase = DECLARE_BLUE

    def _step_declare_blue(self, action: int) -> None:
        g = self.game
        self.declarations[-1][2] = action - g.A_NAME_BLUE
        self.green_queue.pop(0)
        if not self.green_queue:
            self._finish_declarations()
        else:
            self.phase = DECLARE_RED

    # -- the deal -------------------------------------------------------------------------------
    def _deal_role(self, role: int) -> None:
        g = self.game
        roles = self.roles
        roles.append(role)
        positions = g.num_players + g.num_reserve
        if len(roles) == positions - 1:  # the last card has nowhere else to go
            roles.append([r for r in range(g.num_roles) if r not in roles][0])
        if len(roles) < positions:
            return
        self._learn(ROLES_DEALT, 0, 0)
        self.draw_seat = 0
        self.phase = DEAL_CARDS

    def _next_setup_draw(self) -> None:
        g = self.game
        n = g.num_players
        seat = self.draw_seat
        hands = self.hands
        while seat < n and len(hands[seat]) >= g.hand_size:
            seat += 1
        if seat < n:
            self.draw_seat = seat
            return
        self.draw_seat = -1
        if g.random_start:
            self.phase = CHOOSE_START
        else:
            self.start_seat = 0
            self._begin_turn(0)

    # -- results --------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        g = self.game
        n = g.num_players
        if self.phase != OVER or self.winner_faction < 0:
            return [0.0] * n
        faction = g.role_faction
        w = self.winner_faction
        return [1.0 if faction[self.roles[s]] == w else 0.0 for s in range(n)]


class UnderCurrentState(UnderCurrentRules):
    """One position: the rules core (``UnderCurrentRules``) and what reports read of it.

    A plain Python class in both builds (its bases are extension types in the compiled one),
    so that it stays open to what is done to a Python class, such as a test patching a method
    in; it adds no field.
    """

    __slots__ = ()  # a plain subclass of the compiled build's extension type: no __dict__

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

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

    def card_name(self, card: int) -> str:
        return self.game.card_names[card]

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
            "informer_removed": self.informer_removed,
            "row": {FACTIONS[f]: colours.count(f) for f in range(4)},
            "roles": [g.role_names[r] for r in self.roles[: g.num_players]],
            "factions": [self.seat_label(s) for s in range(g.num_players)],
            "turns": self.turn,
        }

    def _load_fields(self, fields: dict[str, Any]) -> None:
        """A state saved before ``informer_removed`` existed (a branch's stored first position)
        lacks it; such a position is mid-game, so no Informer has taken cards yet: 0."""
        State._load_fields(self, {"informer_removed": 0, **fields})

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


