"""Undercover rules engine: standard game and the "Classified" variant, 2-6 players.

The board is an unbounded table in the real game; here it is a fixed grid (ruleset data, large
enough that a game never reaches its edge in practice) so that every placement is one integer.
The grid carries a one-cell wall border so neighbour look-ups need no bounds checks, and the
state keeps two small caches beside the tiles (``nmask``: how many tiles of each colour touch
each cell; ``frontier``: empty cells touching a tile) because finding legal placements is the
hot path.

Hidden information is only which Agent (and so which hidden face) sits where: every Agent that
has ever been flipped was seen on both sides by everyone, and every other Agent out of the piles
shows its official side, so the public knowledge of a tile is its visible colour plus, for a
flipped tile, its back. ``resample`` permutes the Agents among positions that look the same.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from typing import Any

from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    Game,
    MalformedActionError,
    RulesetError,
    State,
    shuffle,
)

N_COLOURS = 6
N_AGENTS = 12
HQ0 = 12  # tile id of the Headquarters of colour c is HQ0 + c
JOKER0 = 18  # tile id of seat s's Joker is JOKER0 + s
N_TILES = 24

# Colour codes held in the ``gcol`` grid: 0-5 ring colours, then these.
JOKER = 6
EMPTY = 7
WALL = 8
# ``nmask[cell]`` packs counts of the tiles orthogonally around a cell: 3 bits per colour
# (fields 0-5) and 3 bits for "any tile" (field 6). Counts rather than bits so that putting and
# lifting a tile are the same cheap add/subtract; one AND then answers "does any tile touch this
# cell" (OCC) or "does a colour an Agent must avoid touch it" (BADMASK). A Joker only counts as
# a tile, because it is compatible with everything.
OCC = 7 << 18
DELTA = tuple((1 << (3 * c)) | (1 << 18) for c in range(N_COLOURS)) + (1 << 18, 0, 0)
# Colours an Agent of colour c may NOT touch: everything but c and its two ring neighbours.
BADMASK = tuple(
    sum(7 << (3 * ((c + k) % N_COLOURS)) for k in (2, 3, 4)) for c in range(N_COLOURS)
)

# Where a tile is (``tcell`` values below zero).
LOC_PILE = -1
LOC_HELD = -2
LOC_SUPPLY = -3  # undealt Agent during setup, or a Joker not yet used
LOC_ABSENT = -4  # not in this game (removed Headquarters, Jokers in 2/5/6-player games)

# Phases.
SETUP = 0
ACTIVATE = 1
FLIP = 2
PLACE = 3
OVER = 4
PHASE_NAMES = ("setup", "activate", "flip", "place", "over")

# Setup step kinds.
K_START = 0
K_COLOUR = 1
K_TOKEN = 2
K_DEAL = 3

VARIANTS = ("standard", "classified")


def agent_faces(agent: int) -> tuple[int, int]:
    """(official, undercover) colours. Agent 2c has its back on c's left ring neighbour and
    2c+1 on its right one, which is what makes the two twins of a colour differ."""
    official = agent // 2
    back = (official - 1) % N_COLOURS if agent % 2 == 0 else (official + 1) % N_COLOURS
    return official, back


def ring_neighbours(colour: int) -> tuple[int, int]:
    return (colour - 1) % N_COLOURS, (colour + 1) % N_COLOURS


def classified_landing(occ: list[int], base: int, p0: int, steps: int, end: int) -> int:
    """Where a Staffer on space ``p0`` (< ``end``) of a Classified lane lands after ``steps``.

    It stops at the last column and never shares a space, so when every space from its target
    onward is taken it halts on the last free space before them; ``p0`` means it cannot move.
    One function for the rules, the search evaluator and the heuristic bot, so they cannot
    disagree about a hop.
    """
    target = p0 + steps if p0 + steps < end else end
    t = target
    while t <= end and occ[base + t]:
        t += 1
    if t > end:
        t = target - 1
        while t > p0 and occ[base + t]:
            t -= 1
    return t


class UndercoverGame(Game):
    """Fixed parameters: player count, resolved ruleset, and the derived tables the hot path
    reads (grid geometry, action bases, the setup script)."""

    # Search: a random rollout to the end is ~100-250 random decisions and says little, while
    # ``heuristic_returns`` (which also credits the seat to move with its best placement) is
    # cheap; scoring every new leaf with it at once gave ISMCTS about four times the iterations
    # and beat full rollouts clearly at equal time (17 of 20 two-player games at 0.3 s a
    # move). Growing children from the second visit beat waiting longer (a node's static
    # score does not change with more visits). The leaf scores are win chances that differ by
    # a few hundredths between good placements, so exploration is small: against the heuristic
    # bot (2 players, about a second a move) c = 0.7 won 12 of 30; 0.25 won 17 of 24 and 11
    # of 16; 0.1 won 23 of 30 at 5,500 iterations and 16 of 30 at time=1 on a busy machine.
    search_rollout_depth = 0
    search_expand_after = 1
    search_c = 0.1

    def __init__(self, spec: Any, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        super().__init__(spec, players, ruleset, overrides)
        r = ruleset
        self._validate(r)
        self.colour_names: list[str] = list(r["colours"])
        self.city_names: list[str] = list(r["cities"])
        self._colour_index = {n.lower(): i for i, n in enumerate(self.colour_names)}
        self.classified = r["variant"] == "classified"
        self.choose_colours = r["colour_assignment"] == "choose"
        self.random_start = r["starting_player"] == "random"
        # -- board geometry (padded by one wall cell on every side) --
        self.width = w = r["board_width"]
        self.height = h = r["board_height"]
        self.w2 = w2 = w + 2
        self.padded = (w + 2) * (h + 2)
        self.num_cells = w * h
        self.a2p = [(y + 1) * w2 + x + 1 for y in range(h) for x in range(w)]
        self.p2a = [-1] * self.padded
        for a, p in enumerate(self.a2p):
            self.p2a[p] = a
        self.empty_grid = [-1] * self.padded
        self.empty_gcol = [WALL] * self.padded
        for p in self.a2p:
            self.empty_gcol[p] = EMPTY
        self.empty_nmask = [0] * self.padded
        self.neigh = (-1, 1, -w2, w2)
        self.diag = (-w2 - 1, -w2 + 1, w2 - 1, w2 + 1)
        ox, oy = r["hq_origin"]
        self.hq_cell = [-1] * N_COLOURS
        for row, names in enumerate(r["hq_layout"]):
            for col, cname in enumerate(names):
                self.hq_cell[self._colour_index[cname.lower()]] = (oy + row + 1) * w2 + ox + col + 1
        self.remove_unchosen_hq = players in r["remove_unchosen_hq_players"]
        self.has_jokers = r["jokers_per_player"].get(str(players), 0) > 0
        self.pile_sizes: list[int] = list(r["pile_sizes"])
        self.num_piles = len(self.pile_sizes)
        self.flip_steps: int = r["flip_steps"]
        self.evaluate_first_round: bool = r["evaluate_first_round"]
        self.multiplier: int = r["opposite_multiplier"]
        self.tiebreak_tied = r["tiebreak_column"] == "tied"
        self.bottom_ignores_ban: bool = r["bottom_draw_ignores_ban"]
        self.diag_agents_only: bool = r["diagonal_touch_agents_only"]
        self.end_when_stuck: bool = r["end_when_no_staffer_can_move"]
        # -- track --
        removed = list(r["token_values_removed"].get(str(players), []))
        values = list(r["token_values"])
        for v in removed:
            if v in values:
                values.remove(v)
        self.token_values: list[int] = sorted(values)
        self.tokens_distinct = len(set(values)) == len(values)
        self.max_token_value = max(r["token_values"])
        if self.classified:
            self.column_values: list[int] = list(r["classified_column_values"])
            self.track_len = len(self.column_values)
            self.black_line: int = r["classified_black_line_after"]
            self.past_line_to_end: int = r["classified_past_line_to_end"]
            self.blocked_last = players in r["classified_blocked_last_column_players"]
            self.token_spaces: list[int] = []
        else:
            self.column_values = []
            self.track_len = r["track_length"]
            self.black_line = 0
            self.past_line_to_end = 0
            self.blocked_last = False
            n = len(self.token_values)
            self.token_spaces = list(range(self.track_len - n + 1, self.track_len + 1))
        self.tokens_to_end: int = r["tokens_to_end"]
        self.lane_size = self.track_len + 1  # space 0 is the player's Information Center
        # -- action space --
        a = self.num_cells
        self.PLACE = 0
        self.TAKE = a
        self.DRAW_TOP = 2 * a
        self.DRAW_BOTTOM = self.DRAW_TOP + self.num_piles
        self.TAKE_JOKER = self.DRAW_BOTTOM + self.num_piles
        self.FLIP = self.TAKE_JOKER + 1
        self.KEEP = self.FLIP + 1
        self.DEAL = self.KEEP + 1
        self.COLOUR = self.DEAL + N_AGENTS
        self.FIRST = self.COLOUR + N_COLOURS
        self.TOKEN = self.FIRST + players
        self.num_actions = self.TOKEN + self.max_token_value + 1
        # -- setup script: every chance node (and colour choice) in order --
        steps: list[tuple[int, int, int]] = []
        if self.random_start:
            steps.append((K_START, 0, 0))
        steps += [(K_COLOUR, k, 0) for k in range(players)]
        if not self.classified:
            for lane in range(N_COLOURS):
                steps += [(K_TOKEN, lane, space) for space in self.token_spaces]
        for pile, size in enumerate(self.pile_sizes):
            steps += [(K_DEAL, pile, i) for i in range(size)]
        self.setup_steps = steps

    def _validate(self, r: dict[str, Any]) -> None:
        """Reject values the engine cannot honour, so a balance study never silently runs
        something other than what it asked for."""

        def need(ok: bool, message: str) -> None:
            if not ok:
                raise RulesetError(message)

        choice = {
            "variant": VARIANTS,
            "colour_assignment": ("random", "choose"),
            "starting_player": ("random", "seat0"),
            "tiebreak_column": ("tied", "any"),
        }
        for key, allowed in choice.items():
            need(r[key] in allowed, f"{key} must be one of {', '.join(allowed)}, got {r[key]!r}")
        names = [str(n).lower() for n in r["colours"]]
        need(len(names) == N_COLOURS and len(set(names)) == N_COLOURS,
             "colours must name 6 distinct colours (the ring is fixed by the Agents)")
        need(len(r["cities"]) == N_COLOURS, "cities must name one city per colour")
        need(r["board_width"] >= 1 and r["board_height"] >= 1, "the board needs at least 1 cell")
        layout = r["hq_layout"]
        flat = [str(n).lower() for row in layout for n in row]
        need(sorted(flat) == sorted(names), "hq_layout must place each colour's HQ exactly once")
        origin = r["hq_origin"]
        need(len(origin) == 2, "hq_origin is [x, y]")
        ox, oy = origin
        need(ox >= 0 and oy >= 0 and oy + len(layout) <= r["board_height"]
             and all(ox + len(row) <= r["board_width"] for row in layout),
             "the Headquarters block must fit on the board")
        need(all(v in (0, 1) for v in r["jokers_per_player"].values()),
             "jokers_per_player values must be 0 or 1")
        need(all(s > 0 for s in r["pile_sizes"]) and sum(r["pile_sizes"]) == N_AGENTS,
             "pile_sizes must be positive and share out all 12 Agents")
        need(r["flip_steps"] >= 0 and r["opposite_multiplier"] >= 0, "steps and x2 must be >= 0")
        need(r["track_length"] >= 1, "track_length must be >= 1")
        need(len(r["token_values"]) >= 1 and all(v >= 0 for v in r["token_values"]),
             "token_values must be non-negative")
        for values in r["token_values_removed"].values():
            need(isinstance(values, list), "token_values_removed maps a player count to a list")
        need(len(r["token_values"]) <= r["track_length"], "more tokens than track spaces")
        need(r["tokens_to_end"] >= 1, "tokens_to_end must be >= 1")
        cols = r["classified_column_values"]
        need(len(cols) >= 2, "classified_column_values needs at least 2 columns")
        need(0 <= r["classified_black_line_after"] < len(cols), "black line must lie on the track")
        need(r["classified_past_line_to_end"] >= 1, "classified_past_line_to_end must be >= 1")

    def num_distinct_actions(self) -> int:
        return self.num_actions

    def max_chance_outcomes(self) -> int:
        return max(N_AGENTS, self.num_players, len(self.token_values))

    # -- names ---------------------------------------------------------------------------------
    def colour_of(self, name: str) -> int:
        try:
            return self._colour_index[name.lower()]
        except KeyError:
            raise MalformedActionError(f"unknown colour {name!r}") from None

    def cell_xy(self, padded: int) -> tuple[int, int]:
        a = self.p2a[padded]
        return a % self.width, a // self.width


def _pile_letter(k: int) -> str:
    return chr(ord("A") + k)


class UndercoverState(State):
    """One position. Lists are flat (``pos[seat * 6 + lane]``) so that ``clone`` is slicing.

    ``grid``/``gcol`` are tile ids and colour codes per padded cell; ``tcell``/``tcol`` are the
    cell and visible colour per tile; ``up[a]`` is 1 when Agent ``a`` shows its undercover side
    and ``revealed[a]`` is 1 once it has been flipped in front of everyone.
    """

    __slots__ = (
        "actions",
        "setup_i",
        "start",
        "colour",
        "cur",
        "phase",
        "turn",
        "end_trig",
        "ended_by",
        "grid",
        "gcol",
        "nmask",
        "frontier",
        "tcol",
        "tcell",
        "up",
        "revealed",
        "piles",
        "held",
        "origin",
        "flipped",
        "files",
        "pos",
        "frozen",
        "occ",
        "tokens",
        "taken",
        "ntaken",
        "last_tok",
        "final_scores",
        "final_winners",
        "tiebreak_used",
    )

    game: UndercoverGame

    @property
    def uniform_chance(self) -> bool:  # type: ignore[override]
        """Every chance node is uniform unless a ruleset repeats a token value, so playouts may
        sample chance straight from ``legal_actions``."""
        return self.game.tokens_distinct

    def __init__(self, game: UndercoverGame):
        self.game = g = game
        n = g.num_players
        self.actions: list[int] = []
        self.setup_i = 0
        self.start = -1 if g.random_start else 0
        self.colour = [-1] * n
        self.cur = CHANCE
        self.phase = SETUP
        self.turn = 0
        self.end_trig = False
        self.ended_by = ""
        self.grid = g.empty_grid[:]
        self.gcol = g.empty_gcol[:]
        self.nmask = g.empty_nmask[:]
        self.frontier: list[int] = []
        self.tcol = [agent_faces(a)[0] for a in range(N_AGENTS)]
        self.tcol += list(range(N_COLOURS)) + [JOKER] * N_COLOURS
        self.tcell = [LOC_SUPPLY] * N_AGENTS + [LOC_ABSENT] * (N_TILES - N_AGENTS)
        self.up = [0] * N_AGENTS
        self.revealed = [0] * N_AGENTS
        self.piles: list[list[int]] = [[] for _ in range(g.num_piles)]
        self.held = -1
        self.origin = -1
        self.flipped = False
        self.files = [-1] * n
        self.pos = [0] * (n * N_COLOURS)
        self.frozen = [0] * (n * N_COLOURS)
        self.occ = [0] * (N_COLOURS * g.lane_size)
        if g.blocked_last:
            for lane in range(N_COLOURS):
                self.occ[lane * g.lane_size + g.track_len] = 1
        self.tokens = [-1] * (N_COLOURS * g.lane_size)
        self.taken = [-1] * (n * N_COLOURS)
        self.ntaken = [0] * n
        self.last_tok = [0] * N_COLOURS
        self.final_scores: list[int] = []
        self.final_winners: list[int] = []
        self.tiebreak_used = False
        self._enter_setup_step()

    # -- setup ---------------------------------------------------------------------------------
    def _enter_setup_step(self) -> None:
        g = self.game
        if self.setup_i >= len(g.setup_steps):
            self._finish_setup()
            return
        kind, k, _ = g.setup_steps[self.setup_i]
        if kind == K_COLOUR and g.choose_colours:
            self.cur = (self.start + k) % g.num_players
        else:
            self.cur = CHANCE

    def _finish_setup(self) -> None:
        """Lay out the Headquarters (gaps for unchosen colours with 3-4 players), hand out
        Jokers, and give the first turn to the starting player."""
        g = self.game
        chosen = set(self.colour)
        for c in range(N_COLOURS):
            if g.remove_unchosen_hq and c not in chosen:
                continue
            self._put(HQ0 + c, g.hq_cell[c])
        if g.has_jokers:
            for s in range(g.num_players):
                self.tcell[JOKER0 + s] = LOC_SUPPLY
        self.phase = ACTIVATE
        self.cur = self.start

    def _setup_outcomes(self) -> list[tuple[int, float]]:
        g = self.game
        kind, k, space = g.setup_steps[self.setup_i]
        if kind == K_START:
            n = g.num_players
            return [(g.FIRST + s, 1.0 / n) for s in range(n)]
        if kind == K_COLOUR:
            free = [c for c in range(N_COLOURS) if c not in self.colour]
            return [(g.COLOUR + c, 1.0 / len(free)) for c in free]
        if kind == K_TOKEN:
            remaining = self._tokens_left()
            total = len(remaining)
            tok = g.TOKEN
            if g.tokens_distinct:
                p = 1.0 / total
                return [(tok + v, p) for v in remaining]
            return [(tok + v, remaining.count(v) / total) for v in sorted(set(remaining))]
        tcell = self.tcell
        free = [a for a in range(N_AGENTS) if tcell[a] == LOC_SUPPLY]
        p = 1.0 / len(free)
        deal = g.DEAL
        return [(deal + a, p) for a in free]

    def _tokens_left(self) -> list[int]:
        """Token values not yet laid in the lane being set up (the lane fills left to right)."""
        g = self.game
        _, lane, space = g.setup_steps[self.setup_i]
        base = lane * g.lane_size
        remaining = g.token_values[:]
        for v in self.tokens[base + g.token_spaces[0]:base + space]:
            remaining.remove(v)
        return remaining

    def _apply_setup(self, action: int) -> None:
        g = self.game
        kind, k, space = g.setup_steps[self.setup_i]
        if kind == K_START:
            self.start = action - g.FIRST
        elif kind == K_COLOUR:
            self.colour[(self.start + k) % g.num_players] = action - g.COLOUR
        elif kind == K_TOKEN:
            v = action - g.TOKEN
            self.tokens[k * g.lane_size + space] = v
            if space > self.last_tok[k]:
                self.last_tok[k] = space
        else:
            a = action - g.DEAL
            self.piles[k].append(a)
            self.tcell[a] = LOC_PILE
        self.setup_i += 1
        self._enter_setup_step()

    # -- board caches --------------------------------------------------------------------------
    def _put(self, tile: int, y: int) -> None:
        """Put a tile on an empty cell and keep ``nmask``/``frontier`` in step."""
        gcol = self.gcol
        nmask = self.nmask
        c = self.tcol[tile]
        self.grid[y] = tile
        gcol[y] = c
        self.tcell[tile] = y
        if nmask[y] & OCC:
            self.frontier.remove(y)
        d = DELTA[c]
        w2 = self.game.w2
        for z in (y - 1, y + 1, y - w2, y + w2):
            m = nmask[z]
            if not m & OCC and gcol[z] == EMPTY:
                self.frontier.append(z)
            nmask[z] = m + d

    def _lift(self, y: int) -> int:
        """Take the tile off cell ``y`` (the exact reverse of ``_put``)."""
        gcol = self.gcol
        nmask = self.nmask
        tile = self.grid[y]
        d = DELTA[gcol[y]]
        self.grid[y] = -1
        gcol[y] = EMPTY
        self.tcell[tile] = LOC_HELD
        w2 = self.game.w2
        for z in (y - 1, y + 1, y - w2, y + w2):
            m = nmask[z] - d
            nmask[z] = m
            if not m & OCC and gcol[z] == EMPTY:
                self.frontier.remove(z)
        if nmask[y] & OCC:
            self.frontier.append(y)
        return tile

    # -- API: whose turn and what is legal -----------------------------------------------------
    def current_player(self) -> int:
        return self.cur

    def legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == PLACE:
            return self._place_actions()
        if ph == ACTIVATE:
            return self._activate_actions()
        if ph == FLIP:
            g = self.game
            return [g.FLIP, g.KEEP]
        if ph == SETUP:
            g = self.game
            kind = g.setup_steps[self.setup_i][0]
            if kind == K_DEAL:
                deal = g.DEAL
                tcell = self.tcell
                return [deal + a for a in range(N_AGENTS) if tcell[a] == LOC_SUPPLY]
            if kind == K_COLOUR:
                return [g.COLOUR + c for c in range(N_COLOURS) if c not in self.colour]
            if kind == K_TOKEN and g.tokens_distinct:
                remaining = self._tokens_left()
                tok = g.TOKEN
                return [tok + v for v in remaining]  # token_values is sorted, so this is too
            return [a for a, _ in self._setup_outcomes()]
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.cur != CHANCE:
            return []
        return self._setup_outcomes()

    def _activate_actions(self) -> list[int]:
        g = self.game
        p = self.cur
        bad = (self.colour[p] + 3) % N_COLOURS
        tcell = self.tcell
        tcol = self.tcol
        files = self.files
        p2a = g.p2a
        take = g.TAKE
        acts = [take + p2a[y] for y, c in zip(tcell[:N_AGENTS], tcol, strict=False)
                if y >= 0 and c != bad]
        for f in files:  # a tile under any Instructions File stays put
            if 0 <= f < N_AGENTS and tcell[f] >= 0 and tcol[f] != bad:
                acts.remove(take + p2a[tcell[f]])
        acts.sort()
        for k, pile in enumerate(self.piles):
            if pile and tcol[pile[-1]] != bad:
                acts.append(g.DRAW_TOP + k)
        if g.has_jokers and tcell[JOKER0 + p] == LOC_SUPPLY:
            acts.append(g.TAKE_JOKER)
        if acts:
            return acts
        # Special case: only Opposite-Side Agents can be taken and the Joker is used.
        for k, pile in enumerate(self.piles):
            if pile and (g.bottom_ignores_ban or len(pile) > 1 or tcol[pile[0]] != bad):
                acts.append(g.DRAW_BOTTOM + k)
        if acts:
            return acts
        # Unreachable with the printed components (12 Agents, at most 6 Files); kept so a
        # changed ruleset can never leave a player without a move: the ban is lifted.
        acts = [take + p2a[tcell[t]] for t in range(N_AGENTS) if tcell[t] >= 0
                and t not in files]
        acts.sort()
        acts += [g.DRAW_TOP + k for k, pile in enumerate(self.piles) if pile]
        return acts

    def _place_actions(self) -> list[int]:
        """Legal placements as actions; the common case in one pass (``p2a`` is monotone, so
        sorting actions sorts cells)."""
        c = self.tcol[self.held]
        p2a = self.game.p2a
        if c == JOKER:
            acts = [p2a[y] for y in self.frontier]
        else:
            nmask = self.nmask
            bad = BADMASK[c]
            acts = [p2a[y] for y in self.frontier if not nmask[y] & bad]
        origin = self.origin
        if origin >= 0 and not self.flipped:
            a = p2a[origin]
            if a in acts:
                acts.remove(a)
        if not acts:
            return [p2a[y] for y in self._place_cells()]
        acts.sort()
        return acts

    def _place_cells(self) -> list[int]:
        """Padded cells where the held tile may go, sorted; diagonal cells only when no
        orthogonal placement exists (the caller tells them apart by ``nmask``)."""
        c = self.tcol[self.held]
        nmask = self.nmask
        if c == JOKER:
            cells = self.frontier[:]
        else:
            bad = BADMASK[c]
            cells = [y for y in self.frontier if not nmask[y] & bad]
        origin = self.origin
        if origin >= 0 and not self.flipped and origin in cells:
            cells.remove(origin)
        if not cells:
            cells = self._diagonal_cells()
        cells.sort()
        return cells

    def _diagonal_cells(self) -> list[int]:
        g = self.game
        gcol = self.gcol
        nmask = self.nmask
        grid = self.grid
        found: set[int] = set()
        barred = self.origin if not self.flipped else -1  # must move unless flipped
        for agents_only in ((True, False) if g.diag_agents_only else (False,)):
            for t in range(N_TILES):
                x = self.tcell[t]
                if x < 0 or (agents_only and t >= N_AGENTS):
                    continue
                for d in g.diag:
                    z = x + d
                    if gcol[z] == EMPTY and not nmask[z] & OCC and z != barred:
                        found.add(z)
            if found:
                break
        if not found:
            # Last resort (the grid edge walls everything in): any empty cell at all.
            found = {p for p in g.a2p if gcol[p] == EMPTY and grid[p] < 0 and p != barred}
        return list(found)

    # -- API: applying -------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self.actions.append(action)
        ph = self.phase
        g = self.game
        if ph == PLACE:
            self._place(g.a2p[action - g.PLACE])
        elif ph == FLIP:
            if action == g.FLIP:
                t = self.held
                self.up[t] ^= 1
                self.revealed[t] = 1
                off, back = agent_faces(t)
                self.tcol[t] = back if self.up[t] else off
                self.flipped = True
            self.phase = PLACE
        elif ph == ACTIVATE:
            self._activate(action)
        else:
            self._apply_setup(action)

    def _activate(self, action: int) -> None:
        g = self.game
        p = self.cur
        if action < g.DRAW_TOP:
            y = g.a2p[action - g.TAKE]
            t = self._lift(y)
            self.origin = y
        elif action < g.DRAW_BOTTOM:
            t = self.piles[action - g.DRAW_TOP].pop()
            self.origin = -1
        elif action < g.TAKE_JOKER:
            t = self.piles[action - g.DRAW_BOTTOM].pop(0)
            self.origin = -1
        else:
            t = JOKER0 + p
            self.origin = -1
        self.tcell[t] = LOC_HELD
        self.held = t
        self.files[p] = t  # step 2: the Instructions File goes onto the activated tile
        self.flipped = False
        self.phase = FLIP if t < N_AGENTS else PLACE

    def _place(self, y: int) -> None:
        g = self.game
        t = self.held
        meeting = self.nmask[y] & OCC  # a diagonal placement touches nothing orthogonally
        self._put(t, y)
        self.held = -1
        if meeting and (self.turn >= g.num_players or g.evaluate_first_round):
            self._evaluate(y, t)
        self.turn += 1
        self.origin = -1
        self.flipped = False
        n = g.num_players
        if self.end_trig and self.turn % n == 0:
            self._finish()
        else:
            self.cur = (self.cur + 1) % n
            self.phase = ACTIVATE

    def _evaluate(self, y: int, t: int) -> None:
        """Step 4: the activated colour (2 if flipped) and every orthogonal neighbour's colour
        advance the active player's Staffers; Jokers only pass the meeting on."""
        g = self.game
        gcol = self.gcol
        moves = [0, 0, 0, 0, 0, 0]
        c = self.tcol[t]
        if c < N_COLOURS:
            moves[c] = g.flip_steps if self.flipped else 1
        w2 = g.w2
        for z in (y - 1, y + 1, y - w2, y + w2):
            k = gcol[z]
            if k < N_COLOURS:
                moves[k] += 1
        p = self.cur
        changed = 0
        if g.classified:
            for lane, m in enumerate(moves):
                if m:
                    changed |= self._advance_classified(p, lane, m)
            if changed & 2:  # someone crossed the black line: count again
                line = g.black_line
                past = 0
                for v in self.pos[p * N_COLOURS:p * N_COLOURS + N_COLOURS]:
                    if v > line:
                        past += 1
                if past >= g.past_line_to_end and not self.end_trig:
                    self.end_trig = True
                    self.ended_by = "line"
        else:
            for lane, m in enumerate(moves):
                if m:
                    changed |= self._advance_standard(p, lane, m)
            if changed and self.ntaken[p] >= g.tokens_to_end and not self.end_trig:
                self.end_trig = True
                self.ended_by = "tokens"
        if changed and not self.end_trig and g.end_when_stuck and not self._anyone_can_move():
            self.end_trig = True
            self.ended_by = "stuck"

    def _advance_standard(self, p: int, lane: int, steps: int) -> bool:
        """Move one Staffer; returns True when it took a token (the only event that can end the
        game or freeze a lane)."""
        i = p * N_COLOURS + lane
        if self.frozen[i]:
            return False
        last = self.last_tok[lane]
        pos0 = self.pos[i]
        if last <= pos0:
            return False  # no token ahead: the Staffer stops at once
        g = self.game
        base = lane * g.lane_size
        occ = self.occ
        target = pos0 + steps
        if target > last:
            target = last
        while occ[base + target]:
            target += 1  # collision: on to the next free space (a token space is always free)
        if pos0:
            occ[base + pos0] -= 1
        occ[base + target] += 1
        self.pos[i] = target
        v = self.tokens[base + target]
        if v < 0:
            return False
        self.tokens[base + target] = -1
        self.taken[i] = v
        self.frozen[i] = 1
        self.ntaken[p] += 1
        if target == last:
            s = last - 1
            while s > 0 and self.tokens[base + s] < 0:
                s -= 1
            self.last_tok[lane] = s
        return True

    def _advance_classified(self, p: int, lane: int, steps: int) -> int:
        """Move one Staffer on the Classified track; it stops at the last column and never
        shares a space, so when every space from its target onward is taken it halts on the
        last free space before them (or does not move at all). Returns 0 if it stayed, 1 if it
        moved, 3 if it moved across the black line (so the end check runs only then)."""
        g = self.game
        i = p * N_COLOURS + lane
        pos0 = self.pos[i]
        end = g.track_len
        if pos0 >= end:
            return 0
        base = lane * g.lane_size
        occ = self.occ
        t = classified_landing(occ, base, pos0, steps, end)
        if t == pos0:
            return 0
        if pos0:
            occ[base + pos0] -= 1
        occ[base + t] += 1
        self.pos[i] = t
        return 3 if pos0 <= g.black_line < t else 1

    def _anyone_can_move(self) -> bool:
        """False once no Staffer anywhere can ever move again (the fallback end)."""
        g = self.game
        n = g.num_players
        pos = self.pos
        if not g.classified:
            frozen = self.frozen
            for lane in range(N_COLOURS):
                last = self.last_tok[lane]
                if last:
                    for s in range(n):
                        i = s * N_COLOURS + lane
                        if not frozen[i] and pos[i] < last:
                            return True
            return False
        end = g.track_len
        # Quick answer for most of the game: a Staffer with more spaces ahead than there are
        # other Staffers (and a blocker) in its lane surely has a free space to go to.
        if min(pos) < end - n + 1 - g.blocked_last:
            return True
        occ = self.occ
        for lane in range(N_COLOURS):
            base = lane * g.lane_size
            rear = min(pos[s * N_COLOURS + lane] for s in range(n))
            for sp in range(rear + 1, end + 1):
                if not occ[base + sp]:
                    return True
        return False

    def _finish(self) -> None:
        self.phase = OVER
        self.cur = TERMINAL
        scores = self.scores()
        best = max(scores)
        tied = [s for s in range(self.game.num_players) if scores[s] == best]
        self.final_scores = scores
        if len(tied) > 1:
            self.tiebreak_used = True
            tied = self._tiebreak(tied)
        self.final_winners = tied

    def scores(self) -> list[int]:
        """Current points of each seat as the final scoring would count them."""
        g = self.game
        out = []
        for s in range(g.num_players):
            opp = (self.colour[s] + 3) % N_COLOURS if self.colour[s] >= 0 else -1
            total = 0
            for lane in range(N_COLOURS):
                i = s * N_COLOURS + lane
                if g.classified:
                    p = self.pos[i]
                    v = g.column_values[p - 1] if p > 0 else 0
                else:
                    v = max(self.taken[i], 0)
                total += v * g.multiplier if lane == opp else v
            out.append(total)
        return out

    def _tiebreak(self, tied: list[int]) -> list[int]:
        """Most Staffers on the rightmost occupied column wins; the column is the rightmost one
        holding a tied player's Staffer (ruleset ``tiebreak_column`` = "tied") or anyone's
        ("any"). Neutral blockers never count."""
        g = self.game
        seats = tied if g.tiebreak_tied else range(g.num_players)
        column = 0
        for s in seats:
            for lane in range(N_COLOURS):
                column = max(column, self.pos[s * N_COLOURS + lane])
        if column == 0:
            return tied
        counts = {s: sum(1 for lane in range(N_COLOURS) if self.pos[s * N_COLOURS + lane]
                         == column) for s in tied}
        best = max(counts.values())
        return [s for s in tied if counts[s] == best]

    # -- API: results ----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        n = self.game.num_players
        if self.phase != OVER:
            return [0.0] * n
        return [1.0 if s in self.final_winners else 0.0 for s in range(n)]

    def heuristic_returns(self) -> list[float]:
        """Win chances guessed from the track, so search can stop a rollout long before the end
        (a game is 40-90 turns of three decisions each).

        Each seat's expected final score is its banked points plus what its open lanes should
        still bring. Standard game: the token an open lane's Staffer will probably land on, a
        chance-weighted look over moves of 1-3 spaces (hops included, an overshoot lands on the
        last token), x2 on the Opposite Side; open lanes are discounted by how far the seat is
        from its last token compared with the seat nearest to the end, since whatever is open
        when anyone takes a sixth token scores nothing. Classified: each Staffer's column value
        plus the next column's gain for each step it can still expect. Once the end is
        triggered, seats that have had their last turn keep only what they have and the others
        one more turn's grab. Scores become chances by a softmax whose temperature (in points)
        shrinks with the rounds left.

        A seat holding a tile (between taking and placing it) is credited with its best
        placement, so that search sees at once which tile is worth taking and whether to flip
        it instead of learning it only from the placements below.
        """
        g = self.game
        n = g.num_players
        if self.phase == OVER:
            return self.returns()
        if self.phase == SETUP:
            return [1.0 / n] * n
        step_p = ((1, 0.55), (2, 0.3), (3, 0.15))
        grab_p = (0.0, 0.85, 0.6, 0.3)
        size = g.lane_size
        end = g.track_len
        values = g.column_values
        pos, occ, tokens = self.pos, self.occ, self.tokens
        mover = self.cur
        if self.turn < n and not g.evaluate_first_round:
            mover = -1  # the first round has no evaluation
        gains: list[list[tuple[float, float]]] = []  # mover's lane -> steps -> (bank, future)
        bank = [0.0] * n
        future = [0.0] * n
        grab = [0.0] * n
        work = [0.0] * n
        for s in range(n):
            opp = (self.colour[s] + 3) % N_COLOURS
            grabs = []
            for lane in range(N_COLOURS):
                i = s * N_COLOURS + lane
                mult = g.multiplier if lane == opp else 1
                p = pos[i]
                base = lane * size
                gain = [(0.0, 0.0)] * 6
                if s == mover:
                    gains.append(gain)
                if g.classified:
                    now = values[p - 1] if p else 0
                    bank[s] += now * mult
                    nxt = p + 1
                    while nxt <= end and occ[base + nxt]:
                        nxt += 1
                    if nxt <= end:
                        step = (values[nxt - 1] - now) * mult
                        future[s] += step
                        grabs.append(step)
                    if p <= g.black_line:
                        work[s] += g.black_line + 1 - p
                    if s == mover and p < end:
                        for m in range(1, 6):
                            t = classified_landing(occ, base, p, m, end)
                            gain[m] = ((values[t - 1] - now) * mult if t > p else 0.0, 0.0)
                    continue
                if self.frozen[i]:
                    bank[s] += self.taken[i] * mult
                    continue
                last = self.last_tok[lane]
                if last <= p:
                    continue
                f = [0.0] * (last + 1)
                for x in range(last - 1, p - 1, -1):
                    if x != p and (tokens[base + x] >= 0 or occ[base + x]):
                        continue
                    ev = 0.0
                    for k, pk in step_p:
                        t = x + k if x + k < last else last
                        while occ[base + t]:
                            t += 1
                        v = tokens[base + t]
                        ev += pk * (v if v >= 0 else f[t])
                    f[x] = ev
                future[s] += f[p] * mult
                dist, x = 0, p
                while True:
                    x += 1
                    if not occ[base + x]:
                        dist += 1
                        if tokens[base + x] >= 0:
                            break
                work[s] += dist
                if dist < len(grab_p):
                    grabs.append(grab_p[dist] * tokens[base + x] * mult)
                if s == mover:
                    for m in range(1, 6):
                        t = p + m if p + m < last else last
                        while occ[base + t]:
                            t += 1
                        v = tokens[base + t]
                        gain[m] = ((v * mult, -f[p] * mult) if v >= 0
                                   else (0.0, (f[t] - f[p]) * mult))
            grabs.sort(reverse=True)
            grab[s] = (grabs[0] if grabs else 0.0) + (0.5 * grabs[1] if len(grabs) > 1 else 0.0)
        # The constants below were fitted (log-loss of the winner) on heuristic self-play.
        lead = min(work)  # free steps the seat nearest to the end still needs
        gamma = [1.0 if work[s] <= 0 else min(1.0, (lead + 0.25) / work[s]) ** 0.5
                 for s in range(n)]
        if mover >= 0:
            # The held tile's best placement (in the flip step both faces: this state knows
            # the hidden one); before taking, the best over the tiles the seat may take.
            faces: set[tuple[int, bool]] = set()
            if self.phase == ACTIVATE:
                bad_colour = (self.colour[mover] + 3) % N_COLOURS
                candidates = [pile[-1] for pile in self.piles if pile]
                candidates += [t for t in range(N_AGENTS) if self.tcell[t] >= 0
                               and t not in self.files]
                for t in candidates:
                    if self.tcol[t] != bad_colour:
                        off, back = agent_faces(t)
                        faces.add((self.tcol[t], False))
                        faces.add((off if self.up[t] else back, True))
                if self.tcell[JOKER0 + mover] == LOC_SUPPLY:
                    faces.add((JOKER, False))
            else:
                held = self.held
                faces.add((self.tcol[held], self.flipped))
                if self.phase == FLIP:
                    off, back = agent_faces(held)
                    faces.add((off if self.up[held] else back, True))
            nmask, gcol, w2 = self.nmask, self.gcol, g.w2
            weight = 0.0 if self.end_trig else gamma[mover]  # open lanes are worthless at the end
            # A placement moves each lane by the tiles it touches, plus its own lane by the
            # face's steps. The touching counts are the same for every face, so each cell is
            # scored once without the face and each face only swaps its own lane's entry.
            value = [[b + weight * f for b, f in gain] for gain in gains]
            cells = []
            for y in self.frontier:
                counts = [0] * (N_COLOURS + 3)
                counts[gcol[y - 1]] += 1
                counts[gcol[y + 1]] += 1
                counts[gcol[y - w2]] += 1
                counts[gcol[y + w2]] += 1
                base = 0.0
                for lane in range(N_COLOURS):
                    if counts[lane]:
                        base += value[lane][counts[lane]]
                cells.append((y, counts, base))
            origin = self.origin
            best_value = -1e9
            best: tuple[int, int, int] | None = None  # (cell, colour, own steps)
            for c, flipped in faces:
                if c == JOKER:
                    for y, _, base in cells:
                        if base > best_value and (flipped or y != origin):
                            best_value, best = base, (y, c, 0)
                    continue
                bad = BADMASK[c]
                own = value[c]
                steps = g.flip_steps if flipped else 1
                for y, counts, base in cells:
                    k = counts[c]
                    v = base - own[k] + own[k + steps if k + steps < 6 else 5]
                    if v > best_value and not nmask[y] & bad and (flipped or y != origin):
                        best_value, best = v, (y, c, steps)
            best_bank = best_future = 0.0
            if best is not None:
                y, c, steps = best
                moves = [0] * (N_COLOURS + 3)
                moves[c] = steps
                for z in (y - 1, y + 1, y - w2, y + w2):
                    moves[gcol[z]] += 1
                for lane in range(N_COLOURS):
                    m = moves[lane]
                    if m:
                        pair = gains[lane][m if m < 6 else 5]
                        best_bank += pair[0]
                        best_future += pair[1]
            bank[mover] += best_bank
            future[mover] += best_future
        if self.end_trig:
            still = {(self.cur + k) % n for k in range(n - self.turn % n)}
            scores = [bank[s] + (grab[s] if s in still and s != mover else 0.0)
                      for s in range(n)]
            temp = 1.25
        else:
            if g.classified:
                scores = [bank[s] + future[s] * lead / N_COLOURS for s in range(n)]
            else:
                scores = [bank[s] + gamma[s] * future[s] for s in range(n)]
            temp = 2.2 + 0.28 * lead
        top = max(scores)
        exps = [math.exp((x - top) / temp) for x in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def seat_label(self, seat: int) -> str | None:
        c = self.colour[seat]
        return self.game.colour_names[c] if c >= 0 else None

    def outcome(self) -> dict[str, Any]:
        g = self.game
        return {
            "winners": self.winners(),
            "scores": self.final_scores[:] if self.phase == OVER else self.scores(),
            "colours": [self.seat_label(s) for s in range(g.num_players)],
            "variant": "classified" if g.classified else "standard",
            "ended_by": self.ended_by or None,
            "tiebreak": self.tiebreak_used,
            "turns": self.turn,
            "starting_seat": self.start,
            "tokens_taken": self.ntaken[:],
        }

    # -- API: strings ----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        g = self.game
        names = g.colour_names
        if not 0 <= action < g.num_actions:
            raise ValueError(f"action {action} is outside 0..{g.num_actions - 1}")
        if action < g.TAKE:
            return f"place {action % g.width},{action // g.width}"
        if action < g.DRAW_TOP:
            a = action - g.TAKE
            return f"take {a % g.width},{a // g.width}"
        if action < g.DRAW_BOTTOM:
            return f"draw top {_pile_letter(action - g.DRAW_TOP)}"
        if action < g.TAKE_JOKER:
            return f"draw bottom {_pile_letter(action - g.DRAW_BOTTOM)}"
        if action == g.TAKE_JOKER:
            return "take joker"
        if action == g.FLIP:
            return "flip"
        if action == g.KEEP:
            return "keep"
        if action < g.COLOUR:
            off, back = agent_faces(action - g.DEAL)
            return f"deal {names[off]}/{names[back]}"
        if action < g.FIRST:
            return f"colour {names[action - g.COLOUR]}"
        if action < g.TOKEN:
            return f"first seat {action - g.FIRST}"
        return f"token {action - g.TOKEN}"

    def string_to_action(self, text: str) -> int:
        g = self.game
        words = str(text).strip().lower().split()
        bad = MalformedActionError(f"not an Undercover action: {text!r}")
        if not words:
            raise bad
        head = words[0]
        if len(words) == 1:
            if head == "flip":
                return g.FLIP
            if head == "keep":
                return g.KEEP
            raise bad
        if head in ("place", "take") and len(words) == 2:
            if head == "take" and words[1] == "joker":
                return g.TAKE_JOKER
            xy = words[1].split(",")
            if len(xy) != 2 or not all(_is_int(v) for v in xy):
                raise bad
            x, y = int(xy[0]), int(xy[1])
            if not (0 <= x < g.width and 0 <= y < g.height):
                raise MalformedActionError(f"{text!r}: cell {x},{y} is off the board")
            cell = y * g.width + x
            return (g.PLACE if head == "place" else g.TAKE) + cell
        if head == "draw" and len(words) == 3 and words[1] in ("top", "bottom"):
            letter = words[2].upper()
            k = ord(letter) - ord("A") if len(letter) == 1 and letter.isascii() else -1
            if not 0 <= k < g.num_piles:
                raise bad
            return (g.DRAW_TOP if words[1] == "top" else g.DRAW_BOTTOM) + k
        if head == "deal" and len(words) == 2:
            faces = words[1].split("/")
            if len(faces) != 2:
                raise bad
            off, back = g.colour_of(faces[0]), g.colour_of(faces[1])
            for a in (2 * off, 2 * off + 1):
                if agent_faces(a) == (off, back):
                    return g.DEAL + a
            raise bad
        if head == "colour" and len(words) == 2:
            return g.COLOUR + g.colour_of(words[1])
        if head == "first" and len(words) == 3 and words[1] == "seat" and _is_int(words[2]):
            s = int(words[2])
            if not 0 <= s < g.num_players:
                raise bad
            return g.FIRST + s
        if head == "token" and len(words) == 2 and _is_int(words[1]):
            v = int(words[1])
            if not 0 <= v <= g.max_token_value:
                raise bad
            return g.TOKEN + v
        raise bad

    def _tile_name(self, t: int) -> str:
        g = self.game
        c = self.tcol[t]
        if t >= JOKER0:
            return "Joker"
        if t >= HQ0:
            return f"{g.colour_names[c]} Headquarters"
        return f"{g.colour_names[c]} Agent"

    def describe_action(self, action: int, seat: int | None) -> str | None:
        """Public log line. Everything but the identity of a dealt Agent is seen by all (the
        flip is shown to the table before it happens), so the only secret is the deal."""
        g = self.game
        names = g.colour_names
        if self.phase == SETUP:
            kind, k, space = g.setup_steps[self.setup_i]
            if kind == K_START:
                return f"seat {action - g.FIRST} is the starting player"
            if kind == K_COLOUR:
                who = (self.start + k) % g.num_players
                return f"seat {who} plays {names[action - g.COLOUR]}"
            if kind == K_TOKEN:
                return f"{names[k]} lane, space {space}: Point Token {action - g.TOKEN}"
            return f"an Agent is dealt into pile {_pile_letter(k)}"
        if self.phase == OVER:
            return None
        p = self.cur
        who = f"{names[self.colour[p]]} (seat {p})"
        if self.phase == FLIP:
            t = self.held
            if action == g.FLIP:
                off, back = agent_faces(t)
                new = off if self.up[t] else back
                return f"{who} flips the {names[self.tcol[t]]} Agent: it is {names[new]}"
            if action == g.KEEP:
                return f"{who} keeps the {names[self.tcol[t]]} Agent as it is"
            return None
        if self.phase == ACTIVATE:
            if action == g.TAKE_JOKER:
                return f"{who} activates their Joker"
            if g.TAKE <= action < g.DRAW_TOP:
                y = g.a2p[action - g.TAKE]
                if self.grid[y] < 0:
                    return None
                x0, y0 = g.cell_xy(y)
                return f"{who} activates the {self._tile_name(self.grid[y])} at {x0},{y0}"
            if g.DRAW_TOP <= action < g.DRAW_BOTTOM:
                pile = self.piles[action - g.DRAW_TOP]
                top = f"the {self._tile_name(pile[-1])}" if pile else "nothing"
                return f"{who} draws {top} from pile {_pile_letter(action - g.DRAW_TOP)}"
            if g.DRAW_BOTTOM <= action < g.TAKE_JOKER:
                k = action - g.DRAW_BOTTOM
                pile = self.piles[k]
                got = f"the {self._tile_name(pile[0])}" if pile else "nothing"
                return f"{who} has no Agent to take and draws {got} from the bottom of pile " \
                       f"{_pile_letter(k)}"
            return None
        if g.PLACE <= action < g.TAKE:
            y = g.a2p[action]
            x0, y0 = g.cell_xy(y)
            note = "" if self.nmask[y] & OCC else " (touching only diagonally: no evaluation)"
            return f"{who} places the {self._tile_name(self.held)} at {x0},{y0}{note}"
        return None

    # -- API: views --------------------------------------------------------------------------------
    def _tile_view(self, t: int) -> dict[str, Any]:
        """What anyone at the table can see of a tile: never the hidden face of an Agent that
        has not been flipped, only the two colours printed on its visible face."""
        g = self.game
        names = g.colour_names
        c = self.tcol[t]
        owner = next((s for s, f in enumerate(self.files) if f == t), None)
        if t >= JOKER0:
            return {"kind": "joker", "owner": t - JOKER0, "file": owner}
        if t >= HQ0:
            return {"kind": "hq", "colour": names[c], "city": g.city_names[c], "file": owner}
        off, back = agent_faces(t)
        view: dict[str, Any] = {
            "kind": "agent",
            "colour": names[c],
            "others": [names[n] for n in ring_neighbours(c)],
            "back": None,
            "official_up": not self.up[t],
            "file": owner,
        }
        if self.revealed[t]:
            view["back"] = names[off if self.up[t] else back]
        return view

    def observation(self, seat: int | None) -> dict[str, Any]:
        g = self.game
        names = g.colour_names
        board = []
        for t in range(N_TILES):
            y = self.tcell[t]
            if y >= 0:
                x0, y0 = g.cell_xy(y)
                view = self._tile_view(t)
                view["x"], view["y"] = x0, y0
                board.append(view)
        board.sort(key=lambda v: (v["y"], v["x"]))
        piles = []
        for k, pile in enumerate(self.piles):
            top = self._tile_view(pile[-1]) if pile and self.phase != SETUP else None
            piles.append({"name": _pile_letter(k), "count": len(pile), "top": top})
        n = g.num_players
        lanes = []
        for lane in range(N_COLOURS):
            base = lane * g.lane_size
            lanes.append({
                "colour": names[lane],
                "tokens": [self.tokens[base + s] if self.tokens[base + s] >= 0 else None
                           for s in range(1, g.track_len + 1)],
                "staffers": [self.pos[s * N_COLOURS + lane] for s in range(n)],
                "frozen": [bool(self.frozen[s * N_COLOURS + lane]) for s in range(n)],
                "blocked_last": g.blocked_last,
            })
        jokers = []
        for s in range(n):
            loc = self.tcell[JOKER0 + s]
            jokers.append(None if loc == LOC_ABSENT else
                          "unused" if loc == LOC_SUPPLY else "held" if loc == LOC_HELD
                          else "placed")
        colour = [names[c] if c >= 0 else None for c in self.colour]
        obs: dict[str, Any] = {
            "game": g.name,
            "variant": "classified" if g.classified else "standard",
            "seat": seat,
            "players": n,
            "colours": colour,
            "opposite": [names[(c + 3) % N_COLOURS] if c >= 0 else None for c in self.colour],
            "starting_seat": self.start if self.start >= 0 else None,
            "to_act": self.cur if self.cur >= 0 else None,
            "phase": PHASE_NAMES[self.phase],
            "turn": self.turn,
            "round": self.turn // n + 1,
            "evaluation_this_round": self.turn >= n or g.evaluate_first_round,
            "end_triggered": self.end_trig,
            "ended_by": self.ended_by or None,
            "board_size": [g.width, g.height],
            "board": board,
            "piles": piles,
            "held": self._tile_view(self.held) if self.held >= 0 else None,
            "held_from": list(g.cell_xy(self.origin)) if self.origin >= 0 else None,
            "flipped": self.flipped,
            "jokers": jokers,
            "track_length": g.track_len,
            "lanes": lanes,
            "taken": [[v if v >= 0 else None
                       for v in self.taken[s * N_COLOURS:(s + 1) * N_COLOURS]]
                      for s in range(n)],
            "scores": self.scores(),
        }
        if g.classified:
            obs["column_values"] = g.column_values[:]
            obs["black_line_after"] = g.black_line
        else:
            obs["tokens_to_end"] = g.tokens_to_end
        if self.phase == OVER:
            obs["winners"] = self.final_winners[:]
        return obs

    def resample(self, seat: int, rng: random.Random) -> UndercoverState:
        """Re-deal what nobody has seen: the order of each pile below its top, and which twin
        sits wherever an unflipped Agent shows its official face. Flipped Agents stay put, the
        twins of a colour keep different backs by construction, and the deal chance outcomes
        in the action list are rewritten to match, so the sample replays exactly and its
        history tells nothing about the real deal.

        Positions are visited in table order (cells, hand, piles), never in Agent-id order, so
        two states that look alike resample alike for the same ``rng``: the sample depends on
        what is known, not on the truth.
        """
        return self.resampler(seat)(rng)

    def resampler(self, seat: int) -> Callable[[random.Random], UndercoverState]:
        """``resample`` with what the seat can know worked out once: which positions hold
        which visible colour, what lies hidden, and where the deal outcomes are in the action
        list. A search draws thousands of samples from one position, and this part is the same
        for every one of them (the draws are the same as ``resample``'s for the same ``rng``)."""
        if self.phase == SETUP and not any(self.piles):
            return lambda rng: self.clone()
        tcell = self.tcell
        revealed = self.revealed
        tcol = self.tcol
        # Old Agent at each position, in canonical order; visible ones grouped by colour.
        visible: list[list[int]] = [[] for _ in range(N_COLOURS)]
        for _, a in sorted((tcell[a], a) for a in range(N_AGENTS)
                           if tcell[a] >= 0 and not revealed[a]):
            visible[tcol[a]].append(a)
        if 0 <= self.held < N_AGENTS and not revealed[self.held]:
            visible[tcol[self.held]].append(self.held)
        hidden: list[int] = []
        tops_visible = self.phase != SETUP
        for pile in self.piles:
            if pile and tops_visible:
                visible[tcol[pile[-1]]].append(pile[-1])
                hidden += pile[:-1]
            else:
                hidden += pile
        hidden += [a for a in range(N_AGENTS) if tcell[a] == LOC_SUPPLY]  # undealt
        unknown = [a for a in range(N_AGENTS) if not revealed[a]]  # public: flips are seen
        # Per colour shown: the positions showing it and the twins that may sit there.
        groups = [(visible[c], [a for a in (2 * c, 2 * c + 1) if not revealed[a]])
                  for c in range(N_COLOURS) if visible[c]]
        deal_lo = self.game.DEAL
        deals = [(i, x - deal_lo) for i, x in enumerate(self.actions)
                 if deal_lo <= x < deal_lo + N_AGENTS]

        def draw(rng: random.Random) -> UndercoverState:
            mapping = list(range(N_AGENTS))  # old id -> new id
            rest = set(unknown)
            for olds, twins in groups:
                twins = twins[:]
                shuffle(twins, rng)
                for old, a in zip(olds, twins, strict=False):
                    mapping[old] = a
                    rest.discard(a)
            pool = sorted(rest)
            shuffle(pool, rng)
            for old, a in zip(hidden, pool, strict=True):
                mapping[old] = a
            new = self.clone()
            new._relabel(mapping, deals)
            return new
        return draw

    def _relabel(self, mapping: list[int], deals: list[tuple[int, int]]) -> None:
        """Swap Agent identities by position (``mapping[old id]`` = new id). Only unflipped
        Agents with matching visible colours are exchanged, so per-Agent ``tcol``/``up``/
        ``revealed`` stay valid as they are. ``deals``: (index in the action list, Agent dealt)
        for every deal outcome, rewritten to the Agent's new id."""
        g = self.game
        old_cells = self.tcell[:N_AGENTS]
        for a in range(N_AGENTS):
            self.tcell[mapping[a]] = old_cells[a]
            loc = old_cells[a]
            if loc >= 0:
                self.grid[loc] = mapping[a]
        self.piles = [[mapping[a] for a in pile] for pile in self.piles]
        if 0 <= self.held < N_AGENTS:
            self.held = mapping[self.held]
        self.files = [mapping[f] if 0 <= f < N_AGENTS else f for f in self.files]
        actions, deal_lo = self.actions, g.DEAL
        for i, old in deals:
            actions[i] = deal_lo + mapping[old]

    # -- plumbing ----------------------------------------------------------------------------------
    def clone(self) -> UndercoverState:
        new = UndercoverState.__new__(UndercoverState)
        new.game = self.game
        new.actions = self.actions[:]
        new.setup_i = self.setup_i
        new.start = self.start
        new.colour = self.colour[:]
        new.cur = self.cur
        new.phase = self.phase
        new.turn = self.turn
        new.end_trig = self.end_trig
        new.ended_by = self.ended_by
        new.grid = self.grid[:]
        new.gcol = self.gcol[:]
        new.nmask = self.nmask[:]
        new.frontier = self.frontier[:]
        new.tcol = self.tcol[:]
        new.tcell = self.tcell[:]
        new.up = self.up[:]
        new.revealed = self.revealed[:]
        new.piles = [p[:] for p in self.piles]
        new.held = self.held
        new.origin = self.origin
        new.flipped = self.flipped
        new.files = self.files[:]
        new.pos = self.pos[:]
        new.frozen = self.frozen[:]
        new.occ = self.occ[:]
        new.tokens = self.tokens[:]
        new.taken = self.taken[:]
        new.ntaken = self.ntaken[:]
        new.last_tok = self.last_tok[:]
        new.final_scores = self.final_scores[:]
        new.final_winners = self.final_winners[:]
        new.tiebreak_used = self.tiebreak_used
        return new

    def history(self) -> list[int]:
        return self.actions[:]

    def check_invariants(self) -> None:
        g = self.game
        n = g.num_players
        # Every tile in exactly one place, and the place agrees with the tile's record.
        where = [0] * N_TILES
        for y in range(g.padded):
            t = self.grid[y]
            if t >= 0:
                where[t] += 1
                assert self.tcell[t] == y, f"tile {t} on cell {y} but recorded at {self.tcell[t]}"
                assert self.gcol[y] == self.tcol[t], f"cell {y} colour out of step"
            else:
                assert self.gcol[y] in (EMPTY, WALL)
        for pile in self.piles:
            for a in pile:
                assert a < N_AGENTS, "only Agents go in the piles"
                where[a] += 1
                assert self.tcell[a] == LOC_PILE
        if self.held >= 0:
            where[self.held] += 1
            assert self.tcell[self.held] == LOC_HELD
        for t in range(N_TILES):
            if where[t] == 0:
                assert self.tcell[t] in (LOC_SUPPLY, LOC_ABSENT), f"tile {t} lost"
            else:
                assert where[t] == 1, f"tile {t} is in {where[t]} places"
        if self.phase != SETUP:
            assert all(self.tcell[a] != LOC_SUPPLY for a in range(N_AGENTS)), "undealt Agent"
            assert sum(len(p) for p in self.piles) + sum(
                1 for a in range(N_AGENTS) if self.tcell[a] >= 0 or self.tcell[a] == LOC_HELD
            ) == N_AGENTS
        for a in range(N_AGENTS):
            off, back = agent_faces(a)
            assert self.tcol[a] == (back if self.up[a] else off)
            if self.up[a]:
                assert self.revealed[a]
            if self.tcell[a] in (LOC_PILE, LOC_SUPPLY):
                assert not self.up[a] and not self.revealed[a], "piles show official sides"
        # Files sit on distinct tiles that are on the board or in hand.
        placed = [f for f in self.files if f >= 0]
        assert len(placed) == len(set(placed)), "two Files on one tile"
        for f in placed:
            assert self.tcell[f] >= 0 or self.tcell[f] == LOC_HELD
        # Caches agree with the grid.
        w2 = g.w2
        frontier = set()
        for y in g.a2p:
            gc = self.gcol
            m = DELTA[gc[y - 1]] + DELTA[gc[y + 1]] + DELTA[gc[y - w2]] + DELTA[gc[y + w2]]
            assert self.nmask[y] == m, f"nmask stale at {y}"
            if gc[y] == EMPTY and m & OCC:
                frontier.add(y)
        assert sorted(self.frontier) == sorted(frontier) and len(self.frontier) == len(frontier)
        # Staffers: one per player per lane, never two on one track space.
        count = [0] * (N_COLOURS * g.lane_size)
        if g.blocked_last:
            for lane in range(N_COLOURS):
                count[lane * g.lane_size + g.track_len] += 1
        for s in range(n):
            for lane in range(N_COLOURS):
                i = s * N_COLOURS + lane
                p = self.pos[i]
                assert 0 <= p <= g.track_len
                if p:
                    count[lane * g.lane_size + p] += 1
                assert bool(self.frozen[i]) == (self.taken[i] >= 0)
        assert count == self.occ, "occupancy cache out of step"
        assert all(c <= 1 for i, c in enumerate(count) if i % g.lane_size), "Staffers stacked"
        # Point tokens: on the track or taken, each lane's set complete after setup.
        if not g.classified and self.phase != SETUP:
            for lane in range(N_COLOURS):
                base = lane * g.lane_size
                on_track = [v for v in self.tokens[base:base + g.lane_size] if v >= 0]
                took = [self.taken[s * N_COLOURS + lane] for s in range(n)]
                took = [v for v in took if v >= 0]
                assert sorted(on_track + took) == g.token_values, f"lane {lane} tokens"
                spaces = [sp for sp in range(g.lane_size) if self.tokens[base + sp] >= 0]
                assert self.last_tok[lane] == (max(spaces) if spaces else 0)
                for sp in spaces:
                    assert not self.occ[base + sp], "a Staffer stands on a token"
            for s in range(n):
                assert self.ntaken[s] == sum(
                    1 for lane in range(N_COLOURS) if self.taken[s * N_COLOURS + lane] >= 0)


def _is_int(text: str) -> bool:
    """ASCII digits with an optional minus (``str.isdigit`` also accepts "²", which int() does
    not read, and ``lstrip`` accepted "--5")."""
    return re.fullmatch(r"-?[0-9]+", text) is not None


UndercoverGame.state_class = UndercoverState
