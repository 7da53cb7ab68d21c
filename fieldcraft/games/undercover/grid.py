"""Undercover's tiles and the grid they are laid on: how tiles and colours are numbered, where a
tile can be, and which tiles a seat may activate and where it may put one down.

The table is unbounded in the real game; here it is a fixed grid (ruleset data, large enough that
a game never reaches its edge in practice) so that every placement is one integer. The grid
carries a one-cell wall border so neighbour look-ups need no bounds checks, and the state keeps
two small caches beside the tiles (``nmask``: which tiles touch each cell, as a neighbourhood
code; ``frontier``: empty cells touching a tile) because finding legal placements is the hot
path.

:class:`GridRules` is the first link of the state's class chain after its fields
(``base.UndercoverFields``, which declares every field the rules read; ``rules.UndercoverState``
is the last link).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from fieldcraft.core import fast

from .base import UndercoverFields

N_COLOURS = 6
N_AGENTS = 12
HQ0 = 12  # tile id of the Headquarters of colour c is HQ0 + c
JOKER0 = 18  # tile id of seat s's Joker is JOKER0 + s
N_TILES = 24

# Colour codes held in the ``gcol`` grid: 0-5 ring colours, then these.
JOKER = 6
EMPTY = 7
WALL = 8
# ``nmask[cell]`` is a neighbourhood code: which tiles touch the cell orthogonally, by kind (the
# six colours, and Jokers, which only count as tiles because they suit every colour), as the
# index of that multiset among the NEIGHBOURHOODS of at most four. Putting or lifting a tile of
# kind k steps each neighbour's code through ADD[k] or SUB[k]; code 0 is "no tile", so a tile
# touches the cell iff its code is > 0; ACCEPT[c][code] says whether a tile of colour code c may
# meet that neighbourhood (an Agent accepts its own colour and its two ring neighbours only).
# Small ints that index tables, so every test in the hot loops is a list look-up or an int
# comparison, which the interpreter does without building a new int.
NEIGHBOURHOODS = tuple(
    tuple(kinds.count(k) for k in range(JOKER + 1))
    for size in range(5) for kinds in combinations_with_replacement(range(JOKER + 1), size)
)
"""Tiles of each kind (colour 0-5, JOKER) touching a cell, by neighbourhood code."""
# The passes of ``_diagonal_cells``: agents only first (when the ruleset says so), then all
# tiles. Named tuples, not a conditional of two literals, which Cython 3.3 cannot type.
_AGENTS_FIRST = (True, False)
_ALL_TILES = (False,)
_CODE = {counts: code for code, counts in enumerate(NEIGHBOURHOODS)}


def _step(counts: tuple[int, ...], kind: int, by: int) -> int:
    stepped = list(counts)
    stepped[kind] += by
    return _CODE.get(tuple(stepped), -1)  # -1: a fifth neighbour or a missing one (never)


ADD = tuple(tuple(_step(n, k, 1) for n in NEIGHBOURHOODS) for k in range(JOKER + 1))
SUB = tuple(tuple(_step(n, k, -1) for n in NEIGHBOURHOODS) for k in range(JOKER + 1))
ACCEPT = tuple(
    tuple(all(n[(c + k) % N_COLOURS] == 0 for k in (2, 3, 4)) for n in NEIGHBOURHOODS)
    for c in range(N_COLOURS)
) + ((True,) * len(NEIGHBOURHOODS),)
"""ACCEPT[c][code]: a tile of colour code c (JOKER included) may meet these neighbours."""
ACCEPT_BYTES = tuple(bytes(row) for row in ACCEPT)
"""ACCEPT's rows as bytes, which ``fast.accepted_sorted`` reads (through a C pointer)."""
OPPOSITE = tuple((c + 3) % N_COLOURS for c in range(N_COLOURS))
"""Each colour's Opposite Side: the colour a seat may not activate."""


def neighbourhood(kinds: list[int]) -> int:
    """The code of a cell whose orthogonal neighbours hold these colour codes (EMPTY and WALL
    cells count for nothing)."""
    code = 0
    for k in kinds:
        if k <= JOKER:
            code = ADD[k][code]
    return code

# Where a tile is (``tcell`` values below zero).
LOC_PILE = -1
LOC_HELD = -2
LOC_SUPPLY = -3  # undealt Agent during setup, or a Joker not yet used
LOC_ABSENT = -4  # not in this game (removed Headquarters, Jokers in 2/5/6-player games)


def agent_faces(agent: int) -> tuple[int, int]:
    """(official, undercover) colours. Agent 2c has its back on c's left ring neighbour and
    2c+1 on its right one, which is what makes the two twins of a colour differ."""
    official = agent // 2
    back = (official - 1) % N_COLOURS if agent % 2 == 0 else (official + 1) % N_COLOURS
    return official, back


def ring_neighbours(colour: int) -> tuple[int, int]:
    return (colour - 1) % N_COLOURS, (colour + 1) % N_COLOURS


def pile_letter(k: int) -> str:
    return chr(ord("A") + k)


class GridRules(UndercoverFields):
    """Putting tiles down and lifting them, and what a seat may activate or place.

    Legal placements follow the rulebook's order of resort: an orthogonal meeting whose
    colours the tile accepts; failing any, a cell touching a tile only diagonally; failing
    that (the grid edge walls everything in), any empty cell.
    """

    # -- board caches --------------------------------------------------------------------------
    def _put(self, tile: int, y: int) -> None:
        """Put a tile on an empty cell and keep ``nmask``/``frontier`` in step (the four
        neighbours written out: this runs every turn)."""
        g = self.game
        # The board fields, indexed at y and its neighbours (fast.cells8: C pointers).
        grid = fast.cells8(self.grid)
        gcol = fast.cells8(self.gcol)
        nmask = fast.cells16(self.nmask)
        frontier = self.frontier
        c = self.tcol[tile]
        grid[y] = tile
        gcol[y] = c
        self.tcell[tile] = y
        if tile < N_AGENTS and tile != self.held and tile not in self.files:
            self._add_agent_cell(y)  # (the held tile is under its seat's File)
        if nmask[y] > 0:
            fast.remove(frontier, y)
        add = ADD[c]
        w2 = g.w2
        z = y - 1
        m = nmask[z]
        if m == 0 and gcol[z] == EMPTY:
            frontier.append(z)
        nmask[z] = add[m]
        z = y + 1
        m = nmask[z]
        if m == 0 and gcol[z] == EMPTY:
            frontier.append(z)
        nmask[z] = add[m]
        z = y - w2
        m = nmask[z]
        if m == 0 and gcol[z] == EMPTY:
            frontier.append(z)
        nmask[z] = add[m]
        z = y + w2
        m = nmask[z]
        if m == 0 and gcol[z] == EMPTY:
            frontier.append(z)
        nmask[z] = add[m]

    def _add_agent_cell(self, y: int) -> None:
        """List an Agent's cell in ``agent_cells`` (kept sorted)."""
        fast.insort(self.agent_cells, y)

    def _lift(self, y: int) -> int:
        """Take the tile off cell ``y`` (the exact reverse of ``_put``)."""
        g = self.game
        # The board fields, indexed at y and its neighbours (fast.cells8: C pointers).
        grid = fast.cells8(self.grid)
        gcol = fast.cells8(self.gcol)
        nmask = fast.cells16(self.nmask)
        frontier = self.frontier
        tile = grid[y]
        sub = SUB[gcol[y]]
        grid[y] = -1
        gcol[y] = EMPTY
        self.tcell[tile] = LOC_HELD
        if tile < N_AGENTS:
            try:
                fast.remove(self.agent_cells, y)
            except ValueError:
                pass  # an Agent under a File is not listed
        w2 = g.w2
        z = y - 1
        m = sub[nmask[z]]
        nmask[z] = m
        if m == 0 and gcol[z] == EMPTY:
            fast.remove(frontier, z)
        z = y + 1
        m = sub[nmask[z]]
        nmask[z] = m
        if m == 0 and gcol[z] == EMPTY:
            fast.remove(frontier, z)
        z = y - w2
        m = sub[nmask[z]]
        nmask[z] = m
        if m == 0 and gcol[z] == EMPTY:
            fast.remove(frontier, z)
        z = y + w2
        m = sub[nmask[z]]
        nmask[z] = m
        if m == 0 and gcol[z] == EMPTY:
            fast.remove(frontier, z)
        if nmask[y] > 0:
            frontier.append(y)
        return tile

    def _move_file(self, seat: int, tile: int) -> None:
        """Put ``seat``'s Instructions File on ``tile`` (-1: take it away). ``agent_cells``
        lists no Agent under a File, so the Agent it leaves, if on the board, is listed again
        (the one it goes to is in hand when a turn does this)."""
        tcell = self.tcell
        old = self.files[seat]
        self.files[seat] = tile
        if old >= 0 and old < N_AGENTS and tcell[old] >= 0:
            self._add_agent_cell(tcell[old])
        if tile >= 0 and tile < N_AGENTS and tcell[tile] >= 0:
            fast.remove(self.agent_cells, tcell[tile])

    # -- activation ----------------------------------------------------------------------------
    def _activate_actions(self) -> list[int]:
        """What the seat to move may activate: the Agents on the board (none under a File, see
        ``agent_cells``) and the pile tops, but none showing its Opposite Side colour; its
        Joker while unused. Plain loops rather than comprehensions: on lists this short a
        comprehension's own setup costs more than the loop."""
        g = self.game
        bad = OPPOSITE[self.colour[self.cur]]
        gcol = fast.cells8(self.gcol)
        take_of = g.take_of  # cells are numbered row by row, as the take actions are
        acts = []
        for y in self.agent_cells:
            if gcol[y] != bad:
                acts.append(take_of[y])
        tcol = self.tcol
        draw = g.DRAW_TOP
        for pile in self.piles:
            if pile and tcol[pile[-1]] != bad:
                acts.append(draw)
            draw += 1
        joker = JOKER0 + self.cur
        if g.has_jokers and self.tcell[joker] == LOC_SUPPLY:
            acts.append(g.TAKE_JOKER)
        return acts or self._activate_fallback(bad)

    def _activate_fallback(self, bad: int) -> list[int]:
        """Only Opposite-Side Agents can be taken and the Joker is used: the bottom of a pile."""
        g = self.game
        tcol = self.tcol
        acts = [g.DRAW_BOTTOM + k for k, pile in enumerate(self.piles)
                if pile and (g.bottom_ignores_ban or len(pile) > 1 or tcol[pile[0]] != bad)]
        if acts:
            return acts
        # Unreachable with the printed components (12 Agents, at most 6 Files); kept so a
        # changed ruleset can never leave a player without a move: the ban is lifted.
        tcell = self.tcell
        acts = [g.take_of[tcell[t]] for t in range(N_AGENTS) if tcell[t] >= 0
                and t not in self.files]
        acts.sort()
        acts += [g.DRAW_TOP + k for k, pile in enumerate(self.piles) if pile]
        return acts

    # -- placement -----------------------------------------------------------------------------
    def _place_actions(self) -> list[int]:
        """Legal placements as actions: the frontier cells whose neighbours the held tile
        accepts, but the cell it was taken from (a tile taken off the board must move unless
        flipped), in cell order (``p2a`` is monotone, so these are sorted actions);
        ``_place_cells`` has the fallbacks."""
        barred = self.origin if not self.flipped else -1
        acts = fast.accepted_sorted(self.frontier, self.nmask, ACCEPT_BYTES[self.tcol[self.held]],
                                    barred, self.game.p2a)
        return acts or self._place_fallback()

    def _place_fallback(self) -> list[int]:
        """``_place_cells`` as actions (only when no orthogonal placement exists)."""
        p2a = self.game.p2a
        return [p2a[y] for y in self._place_cells()]

    def _place_cells(self) -> list[int]:
        """Padded cells where the held tile may go, sorted; diagonal cells only when no
        orthogonal placement exists (the caller tells them apart by ``nmask``)."""
        ok = ACCEPT[self.tcol[self.held]]
        nmask = self.nmask
        cells = [y for y in self.frontier if ok[nmask[y]]]
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
        for agents_only in (_AGENTS_FIRST if g.diag_agents_only else _ALL_TILES):
            for t in range(N_TILES):
                x = self.tcell[t]
                if x < 0 or (agents_only and t >= N_AGENTS):
                    continue
                for d in g.diag:
                    z = x + d
                    if gcol[z] == EMPTY and nmask[z] == 0 and z != barred:
                        found.add(z)
            if found:
                break
        if not found:
            # Last resort (the grid edge walls everything in): any empty cell at all.
            found = {p for p in g.a2p if gcol[p] == EMPTY and grid[p] < 0 and p != barred}
        return list(found)

    # -- invariants ----------------------------------------------------------------------------
    def _check_tiles(self) -> None:
        """Every tile in exactly one place that agrees with its record, faces consistent with
        what has been flipped, Files on distinct tiles, and the caches in step with the grid."""
        g = self.game
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
        if self.setup_i >= len(g.setup_steps):
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
        assert self.agent_cells == sorted(y for t, y in enumerate(self.tcell[:N_AGENTS])
                                          if y >= 0 and t not in self.files)
        # Files sit on distinct tiles that are on the board or in hand.
        placed = [f for f in self.files if f >= 0]
        assert len(placed) == len(set(placed)), "two Files on one tile"
        for f in placed:
            assert self.tcell[f] >= 0 or self.tcell[f] == LOC_HELD
        # Caches agree with the grid.
        w2 = g.w2
        gc = self.gcol
        frontier = set()
        for y in g.a2p:
            m = neighbourhood([gc[y - 1], gc[y + 1], gc[y - w2], gc[y + w2]])
            assert self.nmask[y] == m, f"nmask stale at {y}"
            if gc[y] == EMPTY and m:
                frontier.add(y)
        assert sorted(self.frontier) == sorted(frontier) and len(self.frontier) == len(frontier)
