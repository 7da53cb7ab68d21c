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
by the conformance suite. What each action does is in ``turns.py``.

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

from typing import Any

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from fieldcraft.core.api import CHANCE, TERMINAL, FieldcraftError
from fieldcraft.core.errors import RulesetError
from fieldcraft.core.spec import GENERAL_SUM, GameInfo, GameType

from .constants import (
    BLUE,
    CHOOSE_START,
    DEAL_CARDS,
    DEAL_ROLES,
    DECK_PHASES,
    DECLARE_BLUE,
    DECLARE_RED,
    DRAW,
    DROP_CHOICE,
    EFFECTS,
    FACTIONS,
    FETCH,
    FLIP,
    GREEN,
    IS_CHANCE,
    OVER,
    PASS,
    PEEK,
    PHASE_NAMES,
    RECEIVE,
    RED,
    RETIRE_CHOICE,
    ROW_CHOICE,
    SCAN,
    SNATCH,
    SNATCH_DRAW,
    SNATCH_PICK,
    SWAP,
    SWAP_OWN,
    SWAP_THEIRS,
    SYMBOLS,
    TARGET,
)
from .turns import TurnRules, TurnTables

GAME_TYPE = GameType(utility=GENERAL_SUM)
"""Sequential, explicit chance (role deal, card draws, the starting seat, SNATCH's pick),
imperfect information. Every seat of the winning faction wins, and nobody does when that
faction has no seated player, so the returns have no fixed sum."""

EXTRA_DECISIONS = {SWAP: 3, PEEK: 0}
"""Decisions a used card's effect adds after pass and use: SWAP names a seat, then each side
picks a card; PEEK needs none; every other effect one (a seat, a hand card, a row card, a
RETIRE guess). Used by ``max_game_length``."""


def _unique_names(names: list[str], suffix: str = "#{}") -> list[str]:
    """Names must be unique for ``string_to_action``; repeats get a number (Green Agent 2)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else name + suffix.format(seen[name]))
    return out


class UnderCurrentGame(TurnTables):
    """Fixed tables for one player count: which cards and roles are in play, the action layout.

    The tables the rules read at every step are declared on its base, ``TurnTables``
    (``turns.py``), which the compiled build makes an extension type with C fields."""

    game_type = GAME_TYPE

    def __init__(self, spec: Any, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        super().__init__(spec, players, ruleset, overrides)
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
        self.informer_mask = sum(1 << r for r in range(self.num_roles)
                                 if self.role_rank[r] == "Informer")
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
        # pass_rows[a][card]: the ids of passing ``card`` from seat ``a`` to each other seat,
        # ascending; a hand's pass list is its cards' rows in card order (already sorted).
        self.pass_rows = [[[card * n + s for s in range(n) if s != a] for card in range(c)]
                          for a in range(n)]
        # draw_odds[k][card]: a draw's (id, probability) while k cards are left in the pile.
        self.draw_odds = [[(self.A_DRAW + card, 1.0 / k) for card in range(c)] if k else []
                          for k in range(c + 1)]
        self.target_rows = [[self.A_TARGET + s for s in range(n) if s != a] for a in range(n)]
        self.flip_rows = [row + list(range(self.A_RESERVE, self.A_RESERVE + self.num_reserve))
                          for row in self.target_rows]
        self.start_odds = [(self.A_START + s, 1.0 / n) for s in range(n)]
        self.retire_rows = [[self.A_RETIRE + s * 4 + f for s in range(n) if s != a
                             for f in range(4)] for a in range(n)]

    def _info(self) -> GameInfo:
        """Bounds from the rules (``C`` cards, ``N`` seats, hand size ``H``, ``F`` FETCH cards).

        Decisions. A turn of a seat with an empty hand is skipped (no decision); every other
        turn is one pass, the receiver's file-or-use, and if used the effect's choices
        (``EXTRA_DECISIONS``: SWAP 3, PEEK none, any other effect 1). A used card lies in the
        used pile for good, so each card's effect is chosen at most once. So the decisions are
        at most 2 per pass, plus the extras of every card, plus the scoring's Green
        declaration (two names per seated Green player, once). The passes are counted by
        following the cards, since a pass takes one card out of a hand:

        * Cards get into hands only from the pile (the deal and every draw, SNATCH's refill
          included: at most ``C`` in all, as nothing returns to the pile) and by FETCH, once
          per FETCH card used; SWAP trades one card for one. DROP and SNATCH take cards out of
          hands without a pass.
        * Let ``T`` be the turn at whose end the pile is first empty. Up to then every turn
          ended with a card left in the pile, so its seat had drawn back up to ``H`` (a pass
          leaves the hand short, a FETCH only refills it), and a SNATCH victim drew at once.
          So at the end of ``T`` the ``N - 1`` other seats hold ``H`` cards each, and at most
          ``C + F - (N - 1) * H`` passes have been made by then.
        * After ``T`` exactly ``N`` turns follow (skipped ones count), one pass at most each.

        Hence at most ``C + F - (N - 1) * H + N`` passes (if the deal empties the pile, ``T``
        is the first turn and there are ``N + 1``, no more). A right RETIRE only ends the game
        sooner.

        Chance outcomes: the role deal (every card but the last, which has one place left), the
        pile (each card drawn once at most, the deal included), one random pick per SNATCH card
        used, and the starting seat if it is drawn; random play reaches this bound.
        """
        n, c, h = self.num_players, self.num_cards, self.hand_size
        effects = self.card_effect
        passes = c + effects.count(FETCH) - (n - 1) * h + n
        extras = sum(EXTRA_DECISIONS.get(effect, 1) for effect in effects)
        greens = min(n, self.role_faction.count(GREEN)) if self.green_declaration else 0
        return GameInfo(
            num_players=n,
            num_distinct_actions=self.num_actions,
            max_chance_outcomes=self.num_actions - self.A_DRAW,
            chance_offset=self.A_DRAW,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=2 * passes + extras + 2 * greens,
            max_chance_nodes=(self.num_roles - 1) + c + effects.count(SNATCH)
            + (1 if self.random_start else 0),
        )

    def position_name(self, pos: int) -> str:
        n = self.num_players
        return f"seat {pos}" if pos < n else f"reserve {pos - n}"


class UnderCurrentRules(TurnRules):
    """The rules core of a position: who acts, what is legal, what an action does. The fields
    (and the steps ``_apply`` picks from) are declared on ``TurnRules`` (``turns.py``)."""

    __slots__ = ()
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

    __slots__ = ()

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


UnderCurrentGame.state_class = UnderCurrentState

