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

Board coordinates are the observation's x, y (0..width-1, 0..height-1). The planes from
``rules`` on change only in the setup and when a token is taken, so they are written once per
distinct value and copied (a cache on the observer, keyed by exactly what they encode).

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

from operator import itemgetter
from typing import Any

from fieldcraft.core.view import Observer, Piece, Plane, plane_offsets

from .base import OVER, PHASE_NAMES, SETUP
from .grid import (
    HQ0,
    JOKER0,
    LOC_ABSENT,
    LOC_HELD,
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
        self.agent_width = width = 19 + g.num_piles + g.num_players
        # In two runs: what may change at every step, then what is fixed once the setup is done
        # (the ruleset, colours) with the standard track's tokens, cached by them, then scores.
        fixed = self._fixed_planes()
        step = self._step_planes(width, jokers)
        track = self._track_planes()
        scores = [Plane("scores", (g.num_players,),
                        "points as the final scoring would count them now")]
        self._planes = tuple(step + fixed + track + scores)
        self.offsets = plane_offsets(self._planes)
        """Where each plane starts in the flat tensor."""
        self._size = sum(plane.size for plane in self._planes)
        self._step_size = sum(p.size for p in step)
        self._slow0 = self._first_slow_run(sum(p.size for p in fixed))
        self._slow_runs: dict[tuple[int | bool, ...], list[float]] = {}
        """The slow run by its key (``tensor``), with the standard game's scores; cleared when
        it grows large."""
        self._step0 = [0.0] * self._step_size
        self._make_lookups(width, jokers)

    def _fixed_planes(self) -> list[Plane]:
        """The planes of the slow run that the setup settles (the ruleset's constants, the
        starting seat, the colours, the Headquarters), declared apart from the step's so that
        they can be written once and cached."""
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
        Jokers, the piles, the hand, the Staffers): the run :meth:`tensor` writes afresh."""
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
        """The standard game's track planes, cached with the slow run (Classified Staffers
        never freeze nor take tokens, so that game has none)."""
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

    def _first_slow_run(self, size: int) -> list[float]:
        """The slow run (``fixed`` and ``track``) before the setup is done: the ruleset's
        constants and where the HQs stand; ``_slow`` adds the track. Written once here so each
        slow run starts as a copy."""
        g = self.game
        off = self.offsets
        m = self._step_size
        length = g.track_len
        t = [0.0] * size
        r = off["rules"] - m
        t[r:r + 8] = [int(g.classified), g.num_players, g.width, g.height, length,
                      0 if g.classified else g.tokens_to_end, g.black_line, int(g.blocked_last)]
        if g.classified:
            c = off["column_values"] - m
            t[c:c + length] = g.column_values
        for c in range(N_COLOURS):
            x, y = g.cell_xy(g.hq_cell[c])
            t[off["hq"] - m + 3 * c + 1] = x
            t[off["hq"] - m + 3 * c + 2] = y
        return t

    def _make_lookups(self, width: int, jokers: int) -> None:
        """The lists :meth:`tensor` reads instead of computing at every step: a cell's x and y,
        where a tile is as one int, the ``agents`` column that place flags, each row's start,
        the face that is down, the track's token cells, the step planes' offsets."""
        g = self.game
        off = self.offsets
        length = g.track_len
        self._xs = [a % g.width for a in range(g.num_cells)]
        self._ys = [a // g.width for a in range(g.num_cells)]
        cells = g.num_cells
        self._hidden = hidden = cells + 1 + g.num_piles
        # Where a tile is, as one int: its board cell (a = y * width + x), ``cells`` held,
        # ``cells + 1 + k`` top of pile k, ``hidden``. By ``tcell`` value, its negative codes
        # read from the end of the list.
        self._where = [-1] * g.padded + [hidden, hidden, cells, hidden]
        for p, a in enumerate(g.p2a):
            if a >= 0:
                self._where[p] = a
        assert self._where[LOC_HELD] == cells and self._where[LOC_SUPPLY] == hidden
        self._place_col = [0] * cells + list(range(1, hidden - cells + 2))
        """By where: the column of an ``agents`` row flagging it."""
        self._agent_rows = [off["agents"] + r * width for r in range(N_AGENTS)]
        self._other_face = [[agent_faces(a)[1], agent_faces(a)[0]] for a in range(N_AGENTS)]
        """By Agent and ``up``: the colour of the face that is down."""
        self._token_cells = itemgetter(*[lane * g.lane_size + sp for lane in range(N_COLOURS)
                                         for sp in range(1, length + 1)])
        self._column_value = [0] + g.column_values
        """Classified: the points of a Staffer by its space."""
        self._jokers = jokers
        self._step_offsets = tuple(off[name] for name in (
            "seat", "to_act", "phase", "clock", "end", "winners", "piles", "hand", "staffers"))
        self._joker_offset = off["jokers"] if jokers else 0

    def planes(self) -> tuple[Plane, ...]:
        return self._planes

    def tensor_size(self) -> int:
        return self._size

    def _slow(self, state: UndercoverState) -> list[float]:
        """The run fixed once the setup is done (the ruleset, starting seat, colours, which
        Headquarters are on the board), then in the standard game the track's tokens, the
        tokens taken and the scores they make."""
        m = self._step_size
        off = {name: at - m for name, at in self.offsets.items()}
        out = self._slow0[:]
        if state.start >= 0:
            out[off["starting_seat"] + state.start] = 1
        col = off["colours"]
        opp = off["opposite"]
        for c in state.colour:
            if c >= 0:
                out[col + c] = 1
                out[opp + (c + 3) % N_COLOURS] = 1
            col += N_COLOURS
            opp += N_COLOURS
        k = off["hq"]
        for c in range(N_COLOURS):
            if state.tcell[HQ0 + c] >= 0:
                out[k + 3 * c] = 1
        if self.game.classified:
            return out
        for v in self._token_cells(state.tokens):
            if v >= 0:
                out += (1, v)
            else:
                out += (0, 0)
        taken = state.taken
        out += [1 if v >= 0 else 0 for v in taken]
        out += [v if v > 0 else 0 for v in taken]
        out += state.scores()
        return out

    def tensor(self, state: UndercoverState, seat: int) -> list[float]:
        """Written straight from the state, reading only what :meth:`observation` shows: no
        Agent's id unless it or its twin has been flipped, no pile's order below its top. The
        step run is written in three parts (the clock, the Agents, what else is on the table),
        then the slow run is copied from its cache and the Classified scores added."""
        out = self._step0[:]
        self._put_clock(out, state, seat)
        rows = self._put_agents(out, state)
        self._put_table(out, state, rows)
        self._put_track(out, state)
        return out

    def _put_clock(self, out: list[float], state: UndercoverState, seat: int) -> None:
        """The ``seat``, ``to_act``, ``phase``, ``clock``, ``end`` and ``winners`` planes."""
        g = self.game
        n = g.num_players
        ph = state.phase
        o_seat, o_act, o_phase, o_clock, o_end, o_win = self._step_offsets[:6]
        out[o_seat + seat] = 1
        cur = state.cur
        if cur >= 0:
            out[o_act + cur] = 1
        out[o_phase + ph] = 1
        turn = state.turn
        out[o_clock] = turn
        out[o_clock + 1] = turn // n + 1
        if turn >= n or g.evaluate_first_round:
            out[o_clock + 2] = 1
        if state.end_trig:
            out[o_end] = 1
            if state.ended_by:
                out[o_end + 1 + ENDED_BY.index(state.ended_by)] = 1
        if ph == OVER:
            for s in state.final_winners:
                out[o_win + s] = 1

    def _put_agents(self, out: list[float], state: UndercoverState) -> list[int]:
        """The ``agents`` plane: where each Agent is, in rows that only tell twins apart once
        one is flipped. Returns where each Agent's row starts (twins swapped when table order
        says so), which the Files on Agents are written by."""
        g = self.game
        where = list(map(self._where.__getitem__, state.tcell[:N_AGENTS]))
        cells = g.num_cells
        if state.phase != SETUP:
            k = cells + 1
            for pile in state.piles:
                if pile:
                    where[pile[-1]] = k
                k += 1
        revealed = state.revealed
        rows = self._agent_rows
        swapped = False
        for a in range(0, N_AGENTS, 2):
            if where[a + 1] < where[a] and not revealed[a] and not revealed[a + 1]:
                if not swapped:
                    rows = rows[:]
                    swapped = True
                rows[a], rows[a + 1] = rows[a + 1], rows[a]
        hidden = self._hidden
        place_col = self._place_col
        xs = self._xs
        ys = self._ys
        up = state.up
        x_col = hidden - cells + 2  # an ``agents`` row's columns after its place flags
        colour_col = x_col + 4
        # (``tcol`` goes on past the Agents, to the HQs and Jokers)
        for w, b, c, r, u, o in zip(where, rows, state.tcol, revealed, up, self._other_face,
                                    strict=False):
            out[b + place_col[w]] = 1
            if w < hidden:
                out[b + colour_col + c] = 1
                if w < cells:
                    out[b + x_col] = xs[w]
                    out[b + x_col + 1] = ys[w]
            if r:
                out[b + x_col + 2] = u
                out[b + x_col + 3] = 1
                out[b + colour_col + N_COLOURS + o[u]] = 1
        return rows

    def _put_table(self, out: list[float], state: UndercoverState, rows: list[int]) -> None:
        """The rest of the step run but the Staffers: each seat's File (on an Agent's row or
        its Joker), the ``jokers``, ``piles`` and ``hand`` planes."""
        g = self.game
        xs = self._xs
        ys = self._ys
        o_piles, o_hand = self._step_offsets[6:8]
        jk = self._joker_offset
        # an ``agents`` row's File columns, after its place flags, x, y, up, revealed, colours
        file_col = self._hidden - g.num_cells + 2 + 4 + 2 * N_COLOURS
        s = 0
        for f in state.files:
            if f >= 0:
                if f < N_AGENTS:
                    out[rows[f] + file_col + s] = 1
                elif f >= JOKER0:
                    out[jk + 6 * (f - JOKER0) + 5] = 1
            s += 1
        if self._jokers:
            for y in state.tcell[JOKER0:JOKER0 + g.num_players]:
                if y == LOC_SUPPLY:
                    out[jk] = 1
                elif y == LOC_HELD:
                    out[jk + 1] = 1
                elif y >= 0:
                    out[jk + 2] = 1
                    w = self._where[y]
                    out[jk + 3] = xs[w]
                    out[jk + 4] = ys[w]
                jk += 6
        out[o_piles:o_piles + g.num_piles] = map(len, state.piles)
        if state.origin >= 0:
            w = self._where[state.origin]
            out[o_hand] = 1
            out[o_hand + 1] = xs[w]
            out[o_hand + 2] = ys[w]
        if state.flipped:
            out[o_hand + 3] = 1

    def _put_track(self, out: list[float], state: UndercoverState) -> None:
        """The ``staffers`` plane, then the slow run (from its cache, made on a miss by
        :meth:`_slow`), then the Classified game's scores, which the Staffers make at every
        step."""
        g = self.game
        n = g.num_players
        colour = state.colour
        pos = state.pos
        o_staff = self._step_offsets[8]
        k = o_staff + n * N_COLOURS
        out[o_staff:k] = pos
        if g.classified:
            key = (state.start, state.phase == SETUP, *colour)  # (HQs are laid as setup ends)
        else:
            key = (state.start, state.phase == SETUP, *colour, *state.tokens, *state.taken)
        slow = self._slow_runs.get(key)
        if slow is None:
            if len(self._slow_runs) >= 4096:
                self._slow_runs.clear()
            slow = self._slow_runs[key] = self._slow(state)
        out += slow
        if g.classified:
            value = self._column_value.__getitem__
            double = g.multiplier - 1
            i = 0
            for c in colour:
                total = sum(map(value, pos[i:i + N_COLOURS]))
                if c >= 0:
                    total += double * value(pos[i + (c + 3) % N_COLOURS])
                out.append(total)
                i += N_COLOURS

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
