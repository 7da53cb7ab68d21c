"""What an Undercover seat sees: the whole table, which is public but for the Agents' hidden
faces. Every seat sees the same thing; an Agent's back is shown only once it has been flipped in
front of everyone, and a pile only shows its top (after the deal).

The observation tensor (:meth:`UndercoverView.tensor`), with ``n`` seats, ``P`` piles, ``L``
track spaces, ``J`` Jokers (``n`` with 3-4 players, else 0, and the plane is left out), seats in
table order and colours in ring order (Purple, Blue, Green, Yellow, Orange, Red)::

    seat           (n,)        one-hot: whose view this is
    to_act         (n,)        one-hot: the seat to decide (all 0: chance acts or the end)
    phase          (5,)        one-hot: setup, activate, flip, place, over
    clock          (3,)        turns played, round number (from 1), evaluation this round
    end            (4,)        end triggered; one-hot what triggered it: tokens, line, stuck
    winners        (n,)        1 for each seat that won (all 0 before the end)
    agents         (12, 19+P+n) one row per Agent, rows 2c and 2c+1 the two Agents of
                               official colour c (below)
    jokers         (J, 6)      per seat's Joker: unused, held, placed, x, y, under its File
    piles          (P,)        tiles in each pile
    hand           (4,)        held tile taken from the board, its x, y; flipped this turn
    staffers       (n, 6)      per seat and lane: the Staffer's space (0: Information Center)
    rules          (8,)        classified, players, board width, height, track length,
                               tokens to end (standard), black line after (Classified),
                               last column blocked (Classified): ruleset constants
    column_values  (L,)        Classified only: each column's points
    starting_seat  (n,)        one-hot: the starting player (all 0 until drawn)
    colours        (n, 6)      one-hot per seat: its colour (all 0 until dealt or chosen)
    opposite       (n, 6)      one-hot per seat: its Opposite Side colour
    hq             (6, 3)      per colour's Headquarters: on the board, x, y
    tokens         (6, L, 2)   standard only, per lane and space 1..L: a token lies there,
                               its value (0 without one)
    frozen         (n, 6)      standard only: the Staffer holds a token (and moves no more)
    taken          (n, 6)      standard only: the value of that token (0 without one)
    scores         (n,)        points as the final scoring would count them now

Board coordinates are the observation's x, y (0..width-1, 0..height-1). ``tensor`` reads back
what ``write_tensor`` writes into a buffer (a batched env's row), so the two cannot disagree.

An ``agents`` row: on the board, held, top of pile k (P columns), hidden (in a pile below its
top, or undealt), x, y (0 off the board), undercover side up, revealed (flipped before
everyone), visible colour (6, one-hot, all 0 while hidden), other face (6, one-hot, all 0 until
revealed), one-hot the seat whose Instructions File lies on it (n). An Agent that has been
flipped, or whose twin has, sits in its own row (2c: undercover side the left ring neighbour,
2c+1: the right one; once one twin is known so is the other); while neither twin of a colour
has been flipped nobody can tell them apart, so the two rows are filled in table order (by
board cell, then in hand, then pile tops, then hidden) and never from which twin is which.
"""

from __future__ import annotations

from array import array
from typing import Any

from fieldcraft.core import fast
from fieldcraft.core.view import Observer, Piece, Plane, plane_offsets

from .base import OVER, PHASE_NAMES, SETUP
from .grid import (
    HQ0,
    JOKER0,
    LOC_ABSENT,
    LOC_HELD,
    LOC_PILE,
    LOC_SUPPLY,
    N_AGENTS,
    N_COLOURS,
    N_TILES,
    agent_faces,
    pile_letter,
    ring_neighbours,
)
from .rules import UndercoverGame, UndercoverState

ENDED_BY = ("tokens", "line", "stuck")


class UndercoverView(Observer):
    game: UndercoverGame

    pieces = (
        Piece("game", "the game id (not in the tensor: an observer serves one game)",
              tensor=False),
        Piece("variant", "standard or classified"),
        Piece("seat", "whose view this is (null: a spectator)"),
        Piece("players", "number of seats"),
        Piece("colours", "each seat's colour (null until dealt or chosen)"),
        Piece("opposite", "each seat's Opposite Side colour (x2 when scoring; may not be taken)"),
        Piece("starting_seat", "the starting player (null until drawn)"),
        Piece("to_act", "the seat to decide, or null while chance acts or at the end"),
        Piece("phase", "setup, activate, flip, place or over"),
        Piece("turn", "turns played so far"),
        Piece("round", "the round number, from 1"),
        Piece("evaluation_this_round", "whether meetings move Staffers this round"),
        Piece("end_triggered", "the end is triggered: the round is being finished"),
        Piece("ended_by", "what triggered the end: tokens, line or stuck (null before); "
              "round_limit once the round limit has ended the game"),
        Piece("board_size", "[width, height] of the grid"),
        Piece("board", "tiles on the board, each with its x, y and what is visible of it"),
        Piece("piles", "each pile's letter, size and visible top"),
        Piece("held", "the tile being played this turn (null when none)"),
        Piece("held_from", "the [x, y] it was taken from (null: from a pile or the supply)"),
        Piece("flipped", "whether the held Agent was flipped this turn"),
        Piece("jokers", "each seat's Joker: unused, held, placed, or null without one"),
        Piece("track_length", "spaces on each lane of the Information Track"),
        Piece("lanes", "per colour: tokens by space, each seat's Staffer, frozen Staffers"),
        Piece("taken", "each seat's token per lane (null: none)"),
        Piece("scores", "each seat's points as the final scoring would count them now"),
        Piece("column_values", "Classified: points of each column", optional=True),
        Piece("black_line_after", "Classified: the column the black line follows",
              optional=True),
        Piece("tokens_to_end", "standard: tokens one seat needs to end the game", optional=True),
        Piece("winners", "seats that won (only at the end)", optional=True),
    )

    def __init__(self, game: UndercoverGame):
        super().__init__(game)
        g = game
        jokers = g.num_players if g.has_jokers else 0
        width = 19 + g.num_piles + g.num_players
        # What may change at every step, then what the setup settles (the ruleset, colours),
        # then the standard track's tokens, then the scores.
        scores = [Plane("scores", (g.num_players,),
                        "points as the final scoring would count them now")]
        self._planes = tuple(self._step_planes(width, jokers) + self._fixed_planes()
                             + self._track_planes() + scores)
        self.offsets = plane_offsets(self._planes)
        """Where each plane starts in the flat tensor."""
        self._size = sum(plane.size for plane in self._planes)
        self._make_lookups(width)

    def _fixed_planes(self) -> list[Plane]:
        """The planes that the setup settles (the ruleset's constants, the starting seat, the
        colours, the Headquarters)."""
        g = self.game
        n = g.num_players
        fixed = [
            Plane("rules", (8,), "classified, players, board width, board height, track length, "
                  "tokens to end (standard, else 0), black line after (Classified, else 0), "
                  "last column blocked (Classified): constants of the ruleset"),
        ]
        if g.classified:
            fixed.append(Plane("column_values", (g.track_len,), "each column's points"))
        fixed += [
            Plane("starting_seat", (n,), "one-hot: the starting player (all 0 until drawn)"),
            Plane("colours", (n, N_COLOURS), "per seat, one-hot: its colour (all 0 until dealt "
                  "or chosen)"),
            Plane("opposite", (n, N_COLOURS), "per seat, one-hot: its Opposite Side colour"),
            Plane("hq", (N_COLOURS, 3), "per colour's Headquarters: on the board, x, y"),
        ]
        return fixed

    def _step_planes(self, width: int, jokers: int) -> list[Plane]:
        """The planes that may change at every step (whose turn, the clock, the Agents, the
        Jokers, the piles, the hand, the Staffers)."""
        g = self.game
        n = g.num_players
        npiles = g.num_piles
        step = [
            Plane("seat", (n,), "one-hot: whose view this is"),
            Plane("to_act", (n,), "one-hot: the seat to decide (all 0 while chance acts or at "
                  "the end)"),
            Plane("phase", (len(PHASE_NAMES),), "one-hot: " + ", ".join(PHASE_NAMES)),
            Plane("clock", (3,), "turns played, the round number (from 1), whether meetings "
                  "move Staffers this round"),
            Plane("end", (1 + len(ENDED_BY),), "the end is triggered; one-hot what triggered "
                  "it: " + ", ".join(ENDED_BY)),
            Plane("winners", (n,), "1 for each seat that won (all 0 before the end)"),
            Plane("agents", (N_AGENTS, width),
                  "rows 2c, 2c+1: the Agents of official colour c, each as on the board, held, "
                  f"top of pile k ({npiles}), hidden, x, y, undercover side up, revealed, "
                  f"visible colour (6), other face (6, once revealed), under seat s's File ({n}); "
                  "twins that nobody can tell apart fill their rows in table order"),
        ]
        if jokers:
            step.append(Plane("jokers", (jokers, 6), "per seat's Joker: unused, held, placed, "
                             "x, y, its seat's File lies on it"))
        step += [
            Plane("piles", (npiles,), "tiles in each pile"),
            Plane("hand", (4,), "the held tile was taken from the board, its x, y; the held "
                  "Agent was flipped this turn"),
            Plane("staffers", (n, N_COLOURS), "per seat and lane: the Staffer's space (0: the "
                  "Information Center)"),
        ]
        return step

    def _track_planes(self) -> list[Plane]:
        """The standard game's track planes (Classified Staffers never freeze nor take tokens,
        so that game has none)."""
        g = self.game
        n = g.num_players
        if g.classified:
            return []
        return [
            Plane("tokens", (N_COLOURS, g.track_len, 2), "per lane and space 1..L: a Point "
                  "Token lies there, its value (0 without one)"),
            Plane("frozen", (n, N_COLOURS), "per seat and lane: the Staffer holds a token"),
            Plane("taken", (n, N_COLOURS), "per seat and lane: that token's value (0 "
                  "without one)"),
        ]

    def _make_lookups(self, width: int) -> None:
        """What :func:`_fill` reads instead of computing at every step: the numbers and plane
        offsets as one tuple of ints (``_starts``), a cell's x and y, where a tile is as one int,
        the face that is down, and the ruleset's constants as (index, value) pairs."""
        g = self.game
        off = self.offsets
        cells = g.num_cells
        self._xs = [a % g.width for a in range(cells)]
        self._ys = [a // g.width for a in range(cells)]
        # Where a tile is, as one int: its board cell (a = y * width + x), ``cells`` held,
        # ``cells + 1 + k`` top of pile k, ``cells + 1 + P`` hidden. By ``tcell`` value, its
        # negative codes read from the end of the list.
        hidden = cells + 1 + g.num_piles
        self._where = [-1] * g.padded + [hidden, hidden, cells, hidden]
        for p, a in enumerate(g.p2a):
            if a >= 0:
                self._where[p] = a
        assert self._where[LOC_HELD] == cells and self._where[LOC_SUPPLY] == hidden
        assert self._where[LOC_PILE] == hidden
        self._other_face = [agent_faces(a)[1 - u] for a in range(N_AGENTS) for u in (0, 1)]
        """By ``2 * agent + up``: the colour of the face that is down."""
        names = ("seat", "to_act", "phase", "clock", "end", "winners", "agents", "jokers",
                 "piles", "hand", "staffers", "starting_seat", "colours", "opposite", "hq",
                 "tokens", "frozen", "taken", "scores")
        self._starts = (g.num_players, cells, g.num_piles, width, g.track_len, g.lane_size,
                        int(g.evaluate_first_round), *(off.get(name, 0) for name in names))
        """The numbers :func:`_fill` reads and the planes' offsets (0 for a plane this game
        leaves out), unpacked there into C ints."""
        length = g.track_len
        at = off["rules"]
        constants = {at + i: v for i, v in enumerate([
            int(g.classified), g.num_players, g.width, g.height, length,
            0 if g.classified else g.tokens_to_end, g.black_line, int(g.blocked_last)])}
        if g.classified:
            constants.update((off["column_values"] + i, v)
                             for i, v in enumerate(g.column_values))
        for c in range(N_COLOURS):
            x, y = g.cell_xy(g.hq_cell[c])
            constants[off["hq"] + 3 * c + 1] = x
            constants[off["hq"] + 3 * c + 2] = y
        constant_at = [i for i, v in constants.items() if v]
        self._tables = (self._where, self._xs, self._ys, self._other_face, constant_at,
                        [float(constants[i]) for i in constant_at])
        """The lists :func:`_fill` reads, in one tuple (unpacked there, where an attribute
        lookup on the view would cost more than a list's unpacking): ``_where``, ``_xs``,
        ``_ys``, ``_other_face``, and the ruleset's nonzero constants in the tensor (the
        ``rules`` plane, the Classified column values, where each Headquarters stands): where,
        and what."""

    def planes(self) -> tuple[Plane, ...]:
        return self._planes

    def tensor_size(self) -> int:
        return self._size

    def tensor(self, state: UndercoverState, seat: int) -> list[float]:
        buffer = array("d", bytes(8 * self._size))
        self.write_tensor(state, seat, buffer, 0)
        return fast.float_list(buffer)

    def write_tensor(self, state: UndercoverState, seat: int, buffer: array, at: int) -> None:
        """:meth:`tensor` written over ``buffer[at:at + size]`` (an ``array.array("d")``) with
        no list in between: a batched env's one write per decision, C functions on the state's
        C fields in the compiled build. They read only what :meth:`observation` shows: no
        Agent's id unless it or its twin has been flipped, no pile's order below its top."""
        fast.zero_doubles(buffer, at, self._size)  # checks that the tensor fits
        _fill(fast.doubles(buffer, at), self._starts, self._tables, state, seat)

    def tile_view(self, state: UndercoverState, t: int) -> dict[str, Any]:
        """What anyone at the table can see of a tile: never the hidden face of an Agent that
        has not been flipped, only the two colours printed on its visible face."""
        g = self.game
        names = g.colour_names
        c = state.tcol[t]
        owner = next((s for s, f in enumerate(state.files) if f == t), None)
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
            "official_up": not state.up[t],
            "file": owner,
        }
        if state.revealed[t]:
            view["back"] = names[off if state.up[t] else back]
        return view

    def observation(self, state: UndercoverState, seat: int | None) -> dict[str, Any]:
        g = self.game
        names = g.colour_names
        n = g.num_players
        obs: dict[str, Any] = {
            "game": g.name,
            "variant": "classified" if g.classified else "standard",
            "seat": seat,
            "players": n,
            "colours": [names[c] if c >= 0 else None for c in state.colour],
            "opposite": [names[(c + 3) % N_COLOURS] if c >= 0 else None for c in state.colour],
            "starting_seat": state.start if state.start >= 0 else None,
            "to_act": state.cur if state.cur >= 0 else None,
            "phase": PHASE_NAMES[state.phase],
            "turn": state.turn,
            "round": state.turn // n + 1,
            "evaluation_this_round": state.turn >= n or g.evaluate_first_round,
            "end_triggered": state.end_trig,
            "ended_by": state.ended_by or None,
            "board_size": [g.width, g.height],
            "board": self._board_view(state),
            "piles": self._piles_view(state),
            "held": self.tile_view(state, state.held) if state.held >= 0 else None,
            "held_from": list(g.cell_xy(state.origin)) if state.origin >= 0 else None,
            "flipped": state.flipped,
            "jokers": self._jokers_view(state),
            "track_length": g.track_len,
            "lanes": self._lanes_view(state),
            "taken": [[v if v >= 0 else None
                       for v in state.taken[s * N_COLOURS:(s + 1) * N_COLOURS]]
                      for s in range(n)],
            "scores": state.scores(),
        }
        if g.classified:
            obs["column_values"] = g.column_values[:]
            obs["black_line_after"] = g.black_line
        else:
            obs["tokens_to_end"] = g.tokens_to_end
        if state.phase == OVER:
            obs["winners"] = state.final_winners[:]
        return obs

    def _board_view(self, state: UndercoverState) -> list[dict[str, Any]]:
        """The tiles on the board as :meth:`tile_view` shows them, each with its x and y, in
        reading order (top row first)."""
        g = self.game
        board = []
        for t in range(N_TILES):
            y = state.tcell[t]
            if y >= 0:
                x0, y0 = g.cell_xy(y)
                view = self.tile_view(state, t)
                view["x"], view["y"] = x0, y0
                board.append(view)
        board.sort(key=lambda v: (v["y"], v["x"]))
        return board

    def _piles_view(self, state: UndercoverState) -> list[dict[str, Any]]:
        """Each pile's letter, size and top (none during the setup: the deal is not done)."""
        piles = []
        for k, pile in enumerate(state.piles):
            top = self.tile_view(state, pile[-1]) if pile and state.phase != SETUP else None
            piles.append({"name": pile_letter(k), "count": len(pile), "top": top})
        return piles

    def _lanes_view(self, state: UndercoverState) -> list[dict[str, Any]]:
        """Each lane of the Information Track: its tokens by space, the Staffers on it."""
        g = self.game
        n = g.num_players
        lanes = []
        for lane in range(N_COLOURS):
            base = lane * g.lane_size
            lanes.append({
                "colour": g.colour_names[lane],
                "tokens": [state.tokens[base + s] if state.tokens[base + s] >= 0 else None
                           for s in range(1, g.track_len + 1)],
                "staffers": [state.pos[s * N_COLOURS + lane] for s in range(n)],
                "frozen": [bool(state.frozen[s * N_COLOURS + lane]) for s in range(n)],
                "blocked_last": g.blocked_last,
            })
        return lanes

    def _jokers_view(self, state: UndercoverState) -> list[str | None]:
        """Each seat's Joker: unused, held, placed, or None in a game without Jokers."""
        jokers: list[str | None] = []
        for s in range(self.game.num_players):
            loc = state.tcell[JOKER0 + s]
            jokers.append(None if loc == LOC_ABSENT else
                          "unused" if loc == LOC_SUPPLY else "held" if loc == LOC_HELD
                          else "placed")
        return jokers



# The tensor's writers: each writes the nonzero entries of some planes through ``t`` (a C
# pointer into a zeroed buffer in the compiled build, where these are C functions on the state's
# C fields with C ints; a memoryview in the pure one).

def _fill(t: Any, starts: tuple[int, ...], tables: tuple[list, ...], state: UndercoverState,
          seat: int) -> None:
    """``seat``'s tensor: ``starts`` (``UndercoverView._starts``) unpacked once into ints and
    ``tables`` (``UndercoverView._tables``) into lists, the planes written in their groups."""
    where, xs, ys, other_face, constant_at, constant_value = tables
    (n, cells, npiles, width, length, lane_size, evaluate_first, o_seat, o_act, o_phase,
     o_clock, o_end, o_win, o_agents, o_jokers, o_piles, o_hand, o_staff, o_start, o_colours,
     o_opposite, o_hq, o_tokens, o_frozen, o_taken, o_scores) = starts
    _fill_clock(t, state, seat, n, evaluate_first, o_seat, o_act, o_phase, o_clock, o_end,
                o_win)
    swaps = _fill_agents(t, state, where, xs, ys, other_face, cells, npiles, width, o_agents)
    _fill_files(t, state, swaps, n, npiles, width, o_agents, o_jokers)
    _fill_table(t, state, where, xs, ys, n, npiles, o_jokers, o_piles, o_hand, o_staff)
    _fill_setup(t, state, constant_at, constant_value, n, o_start, o_colours, o_opposite, o_hq)
    if o_tokens:
        _fill_track(t, state, n, length, lane_size, o_tokens, o_frozen, o_taken)
    scores = state.scores()
    for s in range(n):
        t[o_scores + s] = scores[s]


def _fill_clock(t: Any, state: UndercoverState, seat: int, n: int, evaluate_first: int,
                o_seat: int, o_act: int, o_phase: int, o_clock: int, o_end: int, o_win: int
                ) -> None:
    """The ``seat``, ``to_act``, ``phase``, ``clock``, ``end`` and ``winners`` planes."""
    t[o_seat + seat] = 1.0
    if state.cur >= 0:
        t[o_act + state.cur] = 1.0
    t[o_phase + state.phase] = 1.0
    turn = state.turn
    t[o_clock] = turn
    t[o_clock + 1] = turn // n + 1
    if turn >= n or evaluate_first:
        t[o_clock + 2] = 1.0
    if state.end_trig:
        t[o_end] = 1.0
        if state.ended_by:
            t[o_end + 1 + ENDED_BY.index(state.ended_by)] = 1.0
    if state.phase == OVER:
        winners = state.final_winners
        for i in range(len(winners)):
            s = winners[i]
            t[o_win + s] = 1.0


def _place(state: UndercoverState, agent: int, where: list[int], cells: int, npiles: int
           ) -> int:
    """Where ``agent`` is, as one int (``UndercoverView._where``): hidden in a pile unless it
    is on top of it after the deal (``cells + 1 + k`` for pile ``k``)."""
    y = state.tcell[agent]
    w = where[y]
    if w == cells + 1 + npiles and state.phase != SETUP:
        piles = state.piles
        for k in range(npiles):
            pile = piles[k]
            if pile:
                top = pile[len(pile) - 1]
                if top == agent:
                    return cells + 1 + k
    return w


def _fill_agents(t: Any, state: UndercoverState, where: list[int], xs: list[int],
                 ys: list[int], other: list[int], cells: int, npiles: int, width: int,
                 o_agents: int) -> int:
    """The ``agents`` plane: where each Agent is, in rows that only tell twins apart once one
    is flipped (while neither is, the one first in table order, by ``where``, takes the first
    row). Returns which colours' twins swapped rows (bit c), for the Files on Agents."""
    revealed = state.revealed
    swaps = 0
    for c in range(N_COLOURS):
        a = 2 * c
        wa = _place(state, a, where, cells, npiles)
        wb = _place(state, a + 1, where, cells, npiles)
        swap = wb < wa and not revealed[a] and not revealed[a + 1]
        if swap:
            swaps |= 1 << c
        _fill_agent(t, state, a, wa, o_agents + width * (a + swap), xs, ys, other, cells,
                    npiles)
        _fill_agent(t, state, a + 1, wb, o_agents + width * (a + 1 - swap), xs, ys, other,
                    cells, npiles)
    return swaps


def _fill_agent(t: Any, state: UndercoverState, agent: int, w: int, row: int, xs: list[int],
                ys: list[int], other: list[int], cells: int, npiles: int) -> None:
    """One ``agents`` row from ``row``: its place flag (board, held, top of pile k, hidden),
    x, y, side up, revealed, visible colour, other face."""
    x_col = npiles + 3  # the columns after the place flags
    colour_col = x_col + 4
    t[row + (0 if w < cells else w - cells + 1)] = 1.0
    if w < cells + 1 + npiles:
        c = state.tcol[agent]
        t[row + colour_col + c] = 1.0
        if w < cells:
            t[row + x_col] = xs[w]
            t[row + x_col + 1] = ys[w]
    if state.revealed[agent]:
        up = state.up[agent]
        c = other[2 * agent + up]
        t[row + x_col + 2] = up
        t[row + x_col + 3] = 1.0
        t[row + colour_col + N_COLOURS + c] = 1.0


def _fill_files(t: Any, state: UndercoverState, swaps: int, n: int, npiles: int, width: int,
                o_agents: int, o_jokers: int) -> None:
    """Each seat's File: on an Agent's row (twins swapped as ``swaps`` says) or its Joker."""
    file_col = npiles + 3 + 4 + 2 * N_COLOURS  # after place flags, x, y, up, revealed, colours
    files = state.files
    for s in range(n):
        f = files[s]
        if 0 <= f < N_AGENTS:
            row = (f ^ 1) if (swaps >> (f // 2)) & 1 else f
            t[o_agents + width * row + file_col + s] = 1.0
        elif f >= JOKER0:
            t[o_jokers + 6 * (f - JOKER0) + 5] = 1.0


def _fill_table(t: Any, state: UndercoverState, where: list[int], xs: list[int], ys: list[int],
                n: int, npiles: int, o_jokers: int, o_piles: int, o_hand: int, o_staff: int
                ) -> None:
    """The ``jokers`` (if the game has them), ``piles``, ``hand`` and ``staffers`` planes."""
    if o_jokers:
        for s in range(n):
            y = state.tcell[JOKER0 + s]
            at = o_jokers + 6 * s
            if y == LOC_SUPPLY:
                t[at] = 1.0
            elif y == LOC_HELD:
                t[at + 1] = 1.0
            elif y >= 0:
                w = where[y]
                t[at + 2] = 1.0
                t[at + 3] = xs[w]
                t[at + 4] = ys[w]
    piles = state.piles
    for k in range(npiles):
        t[o_piles + k] = len(piles[k])
    if state.origin >= 0:
        w = where[state.origin]
        t[o_hand] = 1.0
        t[o_hand + 1] = xs[w]
        t[o_hand + 2] = ys[w]
    if state.flipped:
        t[o_hand + 3] = 1.0
    pos = state.pos
    for i in range(n * N_COLOURS):
        t[o_staff + i] = pos[i]


def _fill_setup(t: Any, state: UndercoverState, constant_at: list[int],
                constant_value: list[float], n: int, o_start: int, o_colours: int,
                o_opposite: int, o_hq: int) -> None:
    """The ruleset's constants, the starting seat, each seat's colour and Opposite Side, and
    which Headquarters are on the board."""
    for i in range(len(constant_at)):
        k = constant_at[i]
        t[k] = constant_value[i]
    if state.start >= 0:
        t[o_start + state.start] = 1.0
    colour = state.colour
    for s in range(n):
        c = colour[s]
        if c >= 0:
            t[o_colours + N_COLOURS * s + c] = 1.0
            t[o_opposite + N_COLOURS * s + (c + 3) % N_COLOURS] = 1.0
    for c in range(N_COLOURS):
        y = state.tcell[HQ0 + c]
        if y >= 0:
            t[o_hq + 3 * c] = 1.0


def _fill_track(t: Any, state: UndercoverState, n: int, length: int, lane_size: int,
                o_tokens: int, o_frozen: int, o_taken: int) -> None:
    """The standard game's ``tokens``, ``frozen`` and ``taken`` planes (a Staffer is frozen
    once it holds a token)."""
    tokens = state.tokens
    for lane in range(N_COLOURS):
        for sp in range(1, length + 1):
            v = tokens[lane * lane_size + sp]
            if v >= 0:
                at = o_tokens + 2 * (lane * length + sp - 1)
                t[at] = 1.0
                t[at + 1] = v
    taken = state.taken
    for i in range(n * N_COLOURS):
        v = taken[i]
        if v >= 0:
            t[o_frozen + i] = 1.0
            t[o_taken + i] = v
