"""Undercover rules core: the standard game and the "Classified" variant, 2-6 players.

A turn is three steps of one seat: activate a tile (take an Agent from the board, draw the top
of a pile, or take its Joker), flip the Agent or keep it as it is (Jokers skip this), and put it
down where it meets other tiles; from the second round on the meeting moves the seat's Staffers
along the Information Track (:mod:`.track`). The grid and placement legality are in
:mod:`.grid`, the setup script in :mod:`.setup_steps`, the state's fields and the phases in
:mod:`.base`; this module holds the ruleset and the turn itself. Import the phases (``SETUP`` ..
``OVER``) from :mod:`.base`: the compiled build makes them C constants of this module
(rules.pxd), which are then not its attributes.

Action space (fixed per game; ``A`` = board cells, ``a = y * width + x``, ``P`` = piles)::

    a                      place the held tile on cell a
    TAKE + a               activate the Agent on cell a              TAKE = A
    DRAW_TOP + k           activate the top Agent of pile k          DRAW_TOP = 2A
    DRAW_BOTTOM + k        the bottom one (only when nothing else may be activated)
    TAKE_JOKER             activate the seat's Joker                 = DRAW_BOTTOM + P
    FLIP, KEEP             flip the held Agent, or keep it as it is
    DEAL + a               deal Agent a onto the pile being built (chance)
    COLOUR + c             the next seat gets colour c (chance, or that seat's decision)
    FIRST + s              seat s is the starting player (chance)
    TOKEN + v              the next token space holds value v (chance)

Every id from ``DEAL`` on is a setup step, the chance range (``GameInfo.chance_offset``); a
chosen colour is a decision inside it.

Hidden information is only which Agent (and so which hidden face) sits where: every Agent that
has ever been flipped was seen on both sides by everyone, and every other Agent out of the piles
shows its official side, so the public knowledge of a tile is its visible colour plus, for a
flipped tile, its back.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.api import CHANCE, TERMINAL, MalformedActionError, RulesetError
from fieldcraft.core.spec import (
    EXPLICIT_STOCHASTIC,
    GENERAL_SUM,
    IMPERFECT_INFORMATION,
    GameInfo,
    GameType,
)

from .base import (
    ACTIVATE,
    FLIP,
    OVER,
    PLACE,
    SETUP,
    UndercoverTables,
    new_board,
)
from .grid import (
    ACCEPT,
    EMPTY,
    HQ0,
    JOKER,
    JOKER0,
    LOC_ABSENT,
    LOC_HELD,
    LOC_SUPPLY,
    N_AGENTS,
    N_COLOURS,
    N_TILES,
    OPPOSITE,
    WALL,
    agent_faces,
)
from .setup_steps import K_COLOUR, SetupRules, setup_script, step_tables
from .track import MEETING_KEYS

GAME_TYPE = GameType(chance_mode=EXPLICIT_STOCHASTIC, information=IMPERFECT_INFORMATION,
                     utility=GENERAL_SUM)
"""Sequential, explicit chance (the setup), imperfect information (the Agents' hidden faces).
General-sum: a seat that wins scores 1, and seats still level after the tie-break share the
win, so the returns add up to 1 or more."""

VARIANTS = ("standard", "classified")


class UndercoverGame(UndercoverTables):
    """Fixed parameters: player count, resolved ruleset, and the derived tables the hot path
    reads (grid geometry, action bases, the setup script)."""

    game_type = GAME_TYPE

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
        self._build_board(r)
        self._read_play_rules(r, players)
        self._read_track(r, players)
        self._lay_out_actions(players)
        self._make_setup_tables(players)

    def _build_board(self, r: dict[str, Any]) -> None:
        """The board's geometry, padded by one wall cell on every side so that a neighbour
        never needs a bounds check: the maps between board and padded cells, the empty board
        fields every new state copies, the neighbour steps and where each HQ stands."""
        self.width = w = r["board_width"]
        self.height = h = r["board_height"]
        self.w2 = w2 = w + 2
        self.padded = (w + 2) * (h + 2)
        self.num_cells = w * h
        self.a2p = [(y + 1) * w2 + x + 1 for y in range(h) for x in range(w)]
        self.p2a = [-1] * self.padded
        for a, p in enumerate(self.a2p):
            self.p2a[p] = a
        # The empty board fields every new state copies (base.new_board: lists or arrays).
        self.empty_grid = new_board("grid", [-1] * self.padded)
        empty_gcol = [WALL] * self.padded
        for p in self.a2p:
            empty_gcol[p] = EMPTY
        self.empty_gcol = new_board("gcol", empty_gcol)
        self.empty_nmask = new_board("nmask", [0] * self.padded)
        # Padded cell -> the action taking the tile there (see the action space).
        self.take_of = [-1] * self.padded
        for a, p in enumerate(self.a2p):
            self.take_of[p] = a + self.num_cells
        self.neigh = (-1, 1, -w2, w2)
        self.diag = (-w2 - 1, -w2 + 1, w2 - 1, w2 + 1)
        ox, oy = r["hq_origin"]
        self.hq_cell = [-1] * N_COLOURS
        for row, names in enumerate(r["hq_layout"]):
            for col, cname in enumerate(names):
                self.hq_cell[self._colour_index[cname.lower()]] = (oy + row + 1) * w2 + ox + col + 1

    def _read_play_rules(self, r: dict[str, Any], players: int) -> None:
        """The ruleset's switches for how a turn and the scoring go (HQs, Jokers, piles,
        flipping, meetings, the Opposite Side, the tie-break, the placement rulings)."""
        self.remove_unchosen_hq = players in r["remove_unchosen_hq_players"]
        self.has_jokers = r["jokers_per_player"].get(str(players), 0) > 0
        self.pile_sizes: list[int] = list(r["pile_sizes"])
        self.num_piles = len(self.pile_sizes)
        self.flip_steps: int = r["flip_steps"]
        self.meetings: list[tuple[tuple[int, int], ...] | None] = [None] * MEETING_KEYS
        """What a meeting moves, by the placed cell's neighbours and tile (``track``)."""
        self.evaluate_first_round: bool = r["evaluate_first_round"]
        self.first_evaluated_turn = 0 if self.evaluate_first_round else players
        self.faces = [agent_faces(a) for a in range(N_AGENTS)]  # by up: (official, undercover)
        self.multiplier: int = r["opposite_multiplier"]
        self.tiebreak_tied = r["tiebreak_column"] == "tied"
        self.bottom_ignores_ban: bool = r["bottom_draw_ignores_ban"]
        self.diag_agents_only: bool = r["diagonal_touch_agents_only"]
        self.end_when_stuck: bool = r["end_when_no_staffer_can_move"]

    def _read_track(self, r: dict[str, Any], players: int) -> None:
        """The Information Track: the Point Tokens left for this player count and the spaces
        they go on (standard), or the columns' points and the black line (Classified); how the
        game ends; the lane size every track index is counted in."""
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
        self.round_limit: int | None = r["round_limit"]
        """The rounds after which the game ends and is scored (RULINGS section 4); ``None``: the
        rulebook's game, which has no limit."""
        limit = self.round_limit
        self.last_turn = -1 if limit is None else limit * players
        """The turn (counted from 1) that completes round ``round_limit`` (-1: none)."""
        self.lane_size = self.track_len + 1  # space 0 is the player's Information Center

    def _lay_out_actions(self, players: int) -> None:
        """Where each range of the action space starts (see the module docstring), sized by
        the board, the piles, the player count and the highest token value."""
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

    def _make_setup_tables(self, players: int) -> None:
        """The setup script (every chance node, and colour choice, in order) and the tables
        read from it, once the track and the action layout it refers to are known; the deal
        and token odds fill on first use."""
        self.setup_steps = setup_script(players, self.random_start, self.classified,
                                        self.token_spaces, self.pile_sizes)
        self.setup_choosers, self.laid_slices = step_tables(
            self.setup_steps, self.choose_colours, self.lane_size, self.token_spaces)
        self.deal_odds: dict[tuple[int, ...], tuple[list[int], list[tuple[int, float]]]] = {}
        """A deal step's (actions, outcomes) by where the Agents are (``_deal_odds``)."""
        self.token_odds: dict[tuple[int, ...], tuple[list[int], list[tuple[int, float]]]] = {}

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
        limit = r["round_limit"]
        need(limit is None or 1 <= limit * self.num_players < 1 << 31,  # a C int when compiled
             "round_limit must be a whole number of rounds >= 1, or null for none")
        cols = r["classified_column_values"]
        need(len(cols) >= 2, "classified_column_values needs at least 2 columns")
        need(0 <= r["classified_black_line_after"] < len(cols), "black line must lie on the track")
        need(r["classified_past_line_to_end"] >= 1, "classified_past_line_to_end must be >= 1")
        # The grid stands for an unbounded table, so it must never fill up: with every other
        # tile on it and the one in hand taken from it, that tile still needs a cell besides
        # the one it came from (which it may not go back to unless flipped).
        players = self.num_players
        hqs = players if players in r["remove_unchosen_hq_players"] else N_COLOURS
        jokers = players if r["jokers_per_player"].get(str(players), 0) else 0
        tiles = hqs + N_AGENTS + jokers
        cells = r["board_width"] * r["board_height"]
        need(cells > tiles, f"a {r['board_width']}x{r['board_height']} board can fill up with "
             f"the {tiles} tiles of a {players}-player game and leave the tile in hand nowhere "
             f"to go; it needs at least {tiles + 1} cells")

    def _info(self) -> GameInfo:
        """Chance only acts in the setup, one outcome per step of the script (a chosen colour
        is a decision instead), so ``max_chance_nodes`` is exact: every game draws that many.

        With ``round_limit`` = ``L`` (default 100) the game ends once round ``L`` is complete,
        i.e. after ``L P`` turns (``P`` seats, one turn each a round, no turn ever skipped), if
        not before. A turn is at most three decisions (activate a tile, flip or keep it, which a
        Joker skips, and place it), and the only other decisions are the colours chosen in the
        setup (``colour_assignment`` = ``choose``: one per seat). So ``max_game_length`` =
        ``3 L P`` (+ ``P`` chosen colours), reached by a game that runs to the limit without
        taking a Joker.

        With ``round_limit`` = ``null`` (the rulebook) there is no bound on the decisions
        (``max_game_length`` is ``None``): the rules have no turn limit and no rule against
        repeating a position, and nothing forces progress. A meeting only moves the active
        seat's own Staffers, and only in the lanes of the colours it touches; a lane whose
        Staffer holds a token (standard) or can no longer move (Classified) is dead for that
        seat. Once each seat has a dead lane without the game ending (the default end
        conditions, six tokens or six Staffers past the line, allow it), each seat can shuttle
        two Agents of that colour between cells that touch only that colour, alternating them
        because a tile under an Instructions File stays put, and the position repeats every six
        rounds (``test_a_game_can_repeat_a_position_for_ever`` plays it in both variants). Only
        a ruleset where the first token or Staffer past the line ends the game leaves no dead
        lane before the end, and even there placements that evaluate nothing (diagonal ones)
        have no limit in the rules, so without ``round_limit`` no finite bound is claimed for
        any ruleset (the ruling of 2026-12-04 added the limit for that reason).

        Returns are 1 for each winner: seats still level after the tie-break share the win, so
        the game is general-sum (the returns add up to the number of winners).
        """
        chance = len(self.setup_steps)
        colours = 0
        if self.choose_colours:
            colours = sum(1 for step in self.setup_steps if step[0] == K_COLOUR)
            chance -= colours
        limit = self.round_limit
        length = None if limit is None else 3 * limit * self.num_players + colours
        return GameInfo(
            num_players=self.num_players,
            num_distinct_actions=self.num_actions,
            max_chance_outcomes=self.num_actions - self.DEAL,
            chance_offset=self.DEAL,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=length,
            max_chance_nodes=chance,
        )

    # -- names ---------------------------------------------------------------------------------
    def colour_of(self, name: str) -> int:
        try:
            return self._colour_index[name.lower()]
        except KeyError:
            raise MalformedActionError(f"unknown colour {name!r}") from None

    def cell_xy(self, padded: int) -> tuple[int, int]:
        a = self.p2a[padded]
        return a % self.width, a // self.width


class UndercoverState(SetupRules):
    """One position: its fields are declared in ``base.UndercoverFields``, the first class of
    the chain this one ends (``GridRules`` -> ``TrackRules`` -> ``SetupRules`` -> here)."""

    game: UndercoverGame

    @property
    def uniform_chance(self) -> bool:  # type: ignore[override]
        """Every chance node is uniform unless a ruleset repeats a token value, so playouts may
        sample chance straight from ``legal_actions``."""
        return self.game.tokens_distinct

    def __init__(self, game: UndercoverGame):
        self.game = g = game
        n = g.num_players
        self.actions = []
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
        self.frontier = []
        self.tcol = [agent_faces(a)[0] for a in range(N_AGENTS)]
        self.tcol += list(range(N_COLOURS)) + [JOKER] * N_COLOURS
        self.tcell = [LOC_SUPPLY] * N_AGENTS + [LOC_ABSENT] * (N_TILES - N_AGENTS)
        self.up = [0] * N_AGENTS
        self.revealed = [0] * N_AGENTS
        self.piles = [[] for _ in range(g.num_piles)]
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
        self.final_scores = []
        self.final_winners = []
        self.tiebreak_used = False
        self.agent_cells = []
        self._enter_setup_step()

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

    # -- whose turn and what is legal ----------------------------------------------------------
    def current_player(self) -> int:
        return self.cur

    def is_terminal(self) -> bool:
        return self.cur == TERMINAL

    def is_chance_node(self) -> bool:
        return self.cur == CHANCE

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
            return self._setup_legal()
        return []

    def _is_legal(self, action: int) -> bool:
        """One look at the cell, tile or pile the action names; the full list is built only
        for an action outside the usual case (a fallback placement or activation, which is
        legal only when nothing usual is)."""
        g = self.game
        ph = self.phase
        if ph == PLACE:
            if action < 0 or action >= g.TAKE:
                return False
            y = g.a2p[action]
            m = self.nmask[y]
            if m > 0 and self.gcol[y] == EMPTY and (y != self.origin or self.flipped):
                if ACCEPT[self.tcol[self.held]][m]:
                    return True  # an orthogonal meeting: legal whatever else is
            return action in self._place_actions()
        if ph == ACTIVATE:
            if action < g.TAKE or action > g.TAKE_JOKER:
                return False
            bad = OPPOSITE[self.colour[self.cur]]
            if action < g.DRAW_TOP:
                t = self.grid[g.a2p[action - g.TAKE]]
                if t >= 0 and t < N_AGENTS and self.tcol[t] != bad and t not in self.files:
                    return True
            elif action < g.DRAW_BOTTOM:
                pile = self.piles[action - g.DRAW_TOP]
                if pile and self.tcol[pile[-1]] != bad:
                    return True
            elif action == g.TAKE_JOKER:
                return g.has_jokers and self.tcell[JOKER0 + self.cur] == LOC_SUPPLY
            return action in self._activate_actions()
        if ph == FLIP:
            return action == g.FLIP or action == g.KEEP
        if ph == SETUP:
            return self._setup_is_legal(action)
        return False


    # -- applying --------------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        """One step of a turn, written out in place (it runs at every step of every playout):
        put the held tile down and evaluate, activate a tile, flip or keep it, or a setup
        step."""
        self.actions.append(action)
        ph = self.phase
        if ph == PLACE:  # place actions start at 0
            g = self.game
            t = self.held
            y = g.a2p[action]
            meeting = self.nmask[y] > 0  # a diagonal placement touches nothing orthogonally
            self._put(t, y)
            if meeting and self.turn >= g.first_evaluated_turn:
                self._evaluate(y, t)
            self.held = -1
            self.origin = -1
            self.flipped = False
            turn = self.turn = self.turn + 1
            n = g.num_players
            # The end comes with a completed round: the one in which it was triggered, or
            # round ``round_limit`` (then scored the same way; ``ended_by`` says why).
            if self.end_trig and turn % n == 0:
                self._finish()
            elif turn == g.last_turn:
                self.ended_by = "round_limit"
                self._finish()
            else:
                nxt = self.cur + 1
                self.cur = nxt if nxt < n else 0
                self.phase = ACTIVATE
        elif ph == ACTIVATE:
            g = self.game
            if action < g.DRAW_TOP:
                y = g.a2p[action - g.TAKE]
                t = self._lift(y)
                self.origin = y
            else:
                if action < g.DRAW_BOTTOM:
                    t = self.piles[action - g.DRAW_TOP].pop()
                elif action < g.TAKE_JOKER:
                    t = self.piles[action - g.DRAW_BOTTOM].pop(0)
                else:
                    t = JOKER0 + self.cur
                self.tcell[t] = LOC_HELD
                self.origin = -1
            self.held = t
            # Step 2: the Instructions File goes onto the tile (``_move_file`` written out:
            # the tile is in hand, and the one the File leaves, if an Agent on the board, may
            # be taken again).
            files = self.files
            old = files[self.cur]
            files[self.cur] = t
            if old >= 0 and old < N_AGENTS and self.tcell[old] >= 0:
                self._add_agent_cell(self.tcell[old])
            self.flipped = False
            self.phase = FLIP if t < N_AGENTS else PLACE
        elif ph == FLIP:
            g = self.game
            if action == g.FLIP:
                t = self.held
                up = self.up[t] ^ 1
                self.up[t] = up
                self.revealed[t] = 1
                self.tcol[t] = g.faces[t][up]
                self.flipped = True
            self.phase = PLACE
        else:
            self._apply_setup(action)

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

    # -- results --------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        n = self.game.num_players
        if self.phase != OVER:
            return [0.0] * n
        return [1.0 if s in self.final_winners else 0.0 for s in range(n)]

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

    def check_invariants(self) -> None:
        self._check_tiles()
        self._check_track()

