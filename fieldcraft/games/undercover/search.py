"""What search may use in Undercover: resampling the Agents nobody has seen, and a quick
evaluation of a position (the shared model of :mod:`.estimate`, plus the seat to move's best
placement).

Settings, measured and declared in the package's ``SPEC``: a random rollout to the end is
~100-250 random decisions and says little, while ``heuristic_returns`` (which also credits the
seat to move with its best placement) is cheap; scoring every new leaf with it at once (rollout
depth 0) gave ISMCTS about four times the iterations and beat full rollouts clearly at equal time
(17 of 20 two-player games at 0.3 s a move). Growing children from the second visit
(``expand_after`` 1) beat waiting longer (a node's static score does not change with more
visits). The leaf scores are win chances that differ by a few hundredths between good
placements, so exploration is small: against the heuristic bot (2 players, about a second a
move) c = 0.7 won 12 of 30; 0.25 won 17 of 24 and 11 of 16; 0.1 won 23 of 30 at 5,500
iterations and 16 of 30 at time=1 on a busy machine.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from fieldcraft.core import fast
from fieldcraft.core.api import shuffle
from fieldcraft.core.search import SearchModel

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from .base import ACTIVATE, FLIP, OVER, SETUP, UndercoverTables
from .estimate import (
    END_TEMP,
    add_lane,
    blank,
    last_turn_scores,
    open_scores,
    opposites,
    reach,
    temperature,
    win_chances,
)
from .grid import ACCEPT, JOKER, JOKER0, LOC_SUPPLY, N_AGENTS, N_COLOURS, agent_faces
from .rules import UndercoverGame, UndercoverState
from .track import classified_landing

Gain = list[tuple[float, float]]
"""The seat to move's change in one lane if its Staffer moves ``m`` spaces (index 1-5), as
(banked points, open-lane value)."""


class UndercoverSearch(SearchModel):
    """One per game; keeps the table of neighbour patterns the evaluation prices cells by."""

    game: UndercoverGame

    def __init__(self, game: UndercoverGame):
        super().__init__(game)
        self._patterns: dict[int, tuple[tuple[int, ...], tuple[tuple[int, int], ...]]] = {}

    def _pattern(self, key: int) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """For a cell whose four neighbours have colour codes ``key`` (base 9, in the order
        left, right, above, below): tiles per colour code, and the (lane, count) of each colour
        it touches in lane order, which is the order the evaluation adds them up in."""
        counts = [0] * 9
        for code in (key // 729, key // 81 % 9, key // 9 % 9, key % 9):
            counts[code] += 1
        touched = tuple((lane, counts[lane]) for lane in range(N_COLOURS) if counts[lane])
        entry = (tuple(counts), touched)
        self._patterns[key] = entry
        return entry

    # -- resampling -------------------------------------------------------------------------------
    def resample(self, state: UndercoverState, seat: int, rng: random.Random
                 ) -> UndercoverState:
        """Re-deal what nobody has seen: the order of each pile below its top, and which twin
        sits wherever an unflipped Agent shows its official face. Flipped Agents stay put, the
        twins of a colour keep different backs by construction, and the deal chance outcomes
        in the action list are rewritten to match, so the sample replays exactly and its
        history tells nothing about the real deal.

        Positions are visited in table order (cells, hand, piles), never in Agent-id order, so
        two states that look alike resample alike for the same ``rng``: the sample depends on
        what is known, not on the truth.
        """
        return self.resampler(state, seat)(rng)

    def resampler(self, state: UndercoverState, seat: int
                  ) -> Callable[[random.Random], UndercoverState]:
        """``resample`` with what the seat can know worked out once: which positions hold
        which visible colour, what lies hidden, and where the deal outcomes are in the action
        list. A search draws thousands of samples from one position, and this part is the same
        for every one of them (the draws are the same as ``resample``'s for the same ``rng``)."""
        if state.phase == SETUP and not any(state.piles):
            return lambda rng: state.clone()
        tcell = state.tcell
        revealed = state.revealed
        tcol = state.tcol
        # Old Agent at each position, in canonical order; visible ones grouped by colour.
        visible: list[list[int]] = [[] for _ in range(N_COLOURS)]
        for _, a in sorted((tcell[a], a) for a in range(N_AGENTS)
                           if tcell[a] >= 0 and not revealed[a]):
            visible[tcol[a]].append(a)
        if 0 <= state.held < N_AGENTS and not revealed[state.held]:
            visible[tcol[state.held]].append(state.held)
        hidden: list[int] = []
        tops_visible = state.phase != SETUP
        for pile in state.piles:
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
        deals = [(i, x - deal_lo) for i, x in enumerate(state.actions)
                 if deal_lo <= x < deal_lo + N_AGENTS]

        @cython.locals(mapping=list, rest=set, olds=list, twins=list, i=cython.Py_ssize_t,
                       old=cython.int, a=cython.int, pool=list, new=UndercoverState)
        def draw(rng: random.Random) -> UndercoverState:
            mapping = list(range(N_AGENTS))  # old id -> new id
            rest = set(unknown)
            for olds, twins in groups:
                twins = twins[:]
                shuffle(twins, rng)
                # The Agents showing a colour are twins of it, so there are enough twins.
                for i, old in enumerate(olds):
                    a = twins[i]
                    mapping[old] = a
                    rest.discard(a)
            pool = sorted(rest)
            shuffle(pool, rng)
            for i, old in enumerate(hidden):  # as many as the pool (both are the hidden ones)
                mapping[old] = pool[i]
            new = state.clone()
            _relabel(new, mapping, deals)
            return new
        return draw

    # -- evaluation -----------------------------------------------------------------------------
    @cython.locals(state=UndercoverState, g=UndercoverTables, n=cython.int, mover=cython.int,
                   lane=cython.int, opposite=list, totals=tuple, gains=list, work=list)
    def heuristic_returns(self, state: UndercoverState) -> list[float]:
        """Win chances guessed from the track (:mod:`.estimate`), so search can stop a rollout
        long before the end (a game is 40-90 turns of three decisions each).

        A seat holding a tile (between taking and placing it) is credited with its best
        placement, so that search sees at once which tile is worth taking and whether to flip
        it instead of learning it only from the placements below.
        """
        g = self.game
        n = g.num_players
        if state.phase == OVER:
            return state.returns()
        if state.phase == SETUP:
            return [1.0 / n] * n
        mover = state.cur
        if state.turn < n and not g.evaluate_first_round:
            mover = -1  # the first round has no evaluation
        opposite = opposites(state.colour)
        pos, occ, tokens = state.pos, state.occ, state.tokens
        last_tok, frozen, taken = state.last_tok, state.frozen, state.taken
        totals = blank(n)
        gains: list[Gain] = []  # the mover's, per lane
        for lane in range(N_COLOURS):
            f = add_lane(g, lane, opposite, pos, occ, tokens, last_tok, frozen, taken, totals,
                         mover)
            if mover >= 0:
                gains.append(self._gain(state, mover, lane, f,
                                        g.multiplier if opposite[mover] == lane else 1))
        bank, future, grabs, work, _ = totals
        lead = min(work)  # free steps the seat nearest to the end still needs
        if mover >= 0:
            best_bank, best_future = self._best_placement(state, mover, gains, work, lead)
            bank[mover] += best_bank
            future[mover] += best_future
        if state.end_trig:
            still = {(state.cur + k) % n for k in range(n - state.turn % n)}
            still.discard(mover)
            scores = last_turn_scores(bank, grabs, still)
            temp = END_TEMP
        else:
            scores = open_scores(g.classified, bank, future, work, lead)
            temp = temperature(lead)
        return win_chances(scores, temp)

    @cython.locals(state=UndercoverState, seat=cython.int, lane=cython.int, f=list,
                   mult=cython.int, g=UndercoverTables, gain=list, p=cython.int,
                   base=cython.int, occ=list, end=cython.int, m=cython.int, t=cython.int,
                   last=cython.int, tokens=list, v=cython.int, here=cython.double,
                   there=cython.double)
    def _gain(self, state: UndercoverState, seat: int, lane: int, f: list[float] | None,
              mult: int) -> Gain:
        """The mover's :data:`Gain` in one lane; ``f`` is its expected-token table there."""
        g = self.game
        gain = [(0.0, 0.0)] * 6
        p = state.pos[seat * N_COLOURS + lane]
        base = lane * g.lane_size
        occ = state.occ
        if g.classified:
            end = g.track_len
            if p < end:
                values = g.column_values
                now = values[p - 1] if p else 0
                for m in range(1, 6):
                    t = classified_landing(occ, base, p, m, end)
                    gain[m] = ((values[t - 1] - now) * mult if t > p else 0.0, 0.0)
            return gain
        if f is None:  # frozen, or no token ahead: the lane cannot change
            return gain
        last = state.last_tok[lane]
        tokens = state.tokens
        here = f[p]
        for m in range(1, 6):
            t = p + m if p + m < last else last
            while occ[base + t]:
                t += 1
            v = tokens[base + t]
            if v >= 0:
                gain[m] = (v * mult, -here * mult)
            else:
                there = f[t]
                gain[m] = (0.0, (there - here) * mult)
        return gain

    @cython.locals(state=UndercoverState, mover=cython.int, gains=list, work=list,
                   lead=cython.double, g=UndercoverTables, faces=set, bad_colour=cython.int,
                   candidates=list, t=cython.int, held=cython.int, nmask=cython.p_short,
                   gcol=cython.p_schar,
                   w2=cython.int, weight=cython.double, value=list, patterns=dict,
                   cells=list, y=cython.int, key=cython.int, left=cython.int,
                   right=cython.int, above=cython.int, below=cython.int, pattern=tuple,
                   counts=tuple, touched=tuple, base=cython.double, lane=cython.int,
                   k=cython.int, origin=cython.int, best_value=cython.double, c=cython.int,
                   flipped=cython.bint, ok=tuple, own=list, steps=cython.int,
                   v=cython.double, moves=list, m=cython.int, pair=tuple, part=cython.double,
                   before=cython.double, after=cython.double, b=cython.double,
                   f=cython.double,
                   best_bank=cython.double, best_future=cython.double, z=cython.int)
    def _best_placement(self, state: UndercoverState, mover: int, gains: list[Gain],
                        work: list[float], lead: float) -> tuple[float, float]:
        """(banked, open) points the mover's best placement adds: of the held tile (in the
        flip step both faces: a determinised state knows the hidden one) or, before taking,
        of the best tile the seat may take."""
        g = self.game
        faces: set[tuple[int, bool]] = set()
        if state.phase == ACTIVATE:
            bad_colour = (state.colour[mover] + 3) % N_COLOURS
            candidates = [pile[-1] for pile in state.piles if pile]
            candidates += [t for t in range(N_AGENTS) if state.tcell[t] >= 0
                           and t not in state.files]
            for t in candidates:
                if state.tcol[t] != bad_colour:
                    off, back = agent_faces(t)
                    faces.add((state.tcol[t], False))
                    faces.add((off if state.up[t] else back, True))
            if state.tcell[JOKER0 + mover] == LOC_SUPPLY:
                faces.add((JOKER, False))
        else:
            held = state.held
            faces.add((state.tcol[held], state.flipped))
            if state.phase == FLIP:
                off, back = agent_faces(held)
                faces.add((off if state.up[held] else back, True))
        # Read at frontier cells and their four neighbours only (fast.cells8: C pointers).
        nmask = fast.cells16(state.nmask)
        gcol = fast.cells8(state.gcol)
        w2 = g.w2
        # Open lanes are worthless at the end.
        weight = 0.0 if state.end_trig else reach(work[mover], lead)
        # A placement moves each lane by the tiles it touches, plus its own lane by the
        # face's steps. The touching counts are the same for every face, so each cell is
        # scored once without the face and each face only swaps its own lane's entry.
        value = [[b + weight * f for b, f in gain] for gain in gains]
        patterns = self._patterns
        cells = []
        for y in state.frontier:
            left = gcol[y - 1]
            right = gcol[y + 1]
            above = gcol[y - w2]
            below = gcol[y + w2]
            key = ((left * 9 + right) * 9 + above) * 9 + below
            pattern = patterns.get(key)
            if pattern is None:
                pattern = self._pattern(key)
            counts, touched = pattern
            base = 0.0
            for lane, k in touched:
                part = value[lane][k]
                base += part
            cells.append((y, counts, base))
        origin = state.origin
        best_value = -1e9
        best: tuple[int, int, int] | None = None  # (cell, colour, own steps)
        for c, flipped in faces:
            if c == JOKER:
                for y, _, base in cells:
                    if base > best_value and (flipped or y != origin):
                        best_value, best = base, (y, c, 0)
                continue
            ok = ACCEPT[c]
            own = value[c]
            steps = g.flip_steps if flipped else 1
            for y, counts, base in cells:
                m = nmask[y]
                if not ok[m] or (y == origin and not flipped):
                    continue  # this face may not go there
                k = counts[c]
                before = own[k]
                after = own[k + steps if k + steps < 6 else 5]
                v = base - before + after
                if v > best_value:
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
        return best_bank, best_future


@cython.locals(old_cells=list, a=cython.int, loc=cython.int, actions=list, deal_lo=cython.int,
               i=cython.int, old=cython.int, grid=cython.p_schar)
def _relabel(state: UndercoverState, mapping: list[int], deals: list[tuple[int, int]]) -> None:
    """Swap Agent identities by position (``mapping[old id]`` = new id). Only unflipped
    Agents with matching visible colours are exchanged, so per-Agent ``tcol``/``up``/
    ``revealed`` stay valid as they are. ``deals``: (index in the action list, Agent dealt)
    for every deal outcome, rewritten to the Agent's new id."""
    old_cells = state.tcell[:N_AGENTS]
    grid = fast.cells8(state.grid)  # (fast.cells8: a C pointer; loc is a board cell)
    for a in range(N_AGENTS):
        state.tcell[mapping[a]] = old_cells[a]
        loc = old_cells[a]
        if loc >= 0:
            grid[loc] = mapping[a]
    state.piles = [[mapping[a] for a in pile] for pile in state.piles]
    if 0 <= state.held < N_AGENTS:
        state.held = mapping[state.held]
    state.files = [mapping[f] if 0 <= f < N_AGENTS else f for f in state.files]
    actions, deal_lo = state.actions, state.game.DEAL
    for i, old in deals:
        actions[i] = deal_lo + mapping[old]
