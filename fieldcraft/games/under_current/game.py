"""Under Current's game: the tables one player count plays with, worked out from the ruleset.

Built once per game, so a plain Python module in both builds: the tables the rules read at every
step are the C fields of its base, ``TurnTables`` (``turns.py``); the action layout it lays out
is described in ``rules.py``, which reads the action ids.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.errors import RulesetError
from fieldcraft.core.spec import GENERAL_SUM, GameInfo, GameType

from .constants import BLUE, EFFECTS, FACTIONS, FETCH, GREEN, RED, SNATCH, SYMBOLS
from .rules import EXTRA_DECISIONS
from .turns import TurnTables

GAME_TYPE = GameType(utility=GENERAL_SUM)
"""Sequential, explicit chance (role deal, card draws, the starting seat, SNATCH's pick),
imperfect information. Every seat of the winning faction wins, and nobody does when that
faction has no seated player, so the returns have no fixed sum."""


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
        self._lay_out_actions()

    def _lay_out_actions(self) -> None:
        """The action layout (consecutive blocks, each sized for this player count: see
        ``rules.py``) and the legal-move and chance tables the rules read from it."""
        n = self.num_players
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
