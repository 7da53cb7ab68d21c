"""Undercover's tiles and the grid they are laid on: how tiles and colours are numbered, where a
tile can be, and which tiles a seat may activate and where it may put one down.

The table is unbounded in the real game; here it is a fixed grid (ruleset data, large enough that
a game never reaches its edge in practice) so that every placement is one integer. The grid
carries a one-cell wall border so neighbour look-ups need no bounds checks, and the state keeps
two small caches beside the tiles (``nmask``: how many tiles of each colour touch each cell;
``frontier``: empty cells touching a tile) because finding legal placements is the hot path.

:class:`GridRules` is mixed into the state class (``rules.UndercoverState``), which owns the
fields it reads.
"""

from __future__ import annotations

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


class GridRules:
    """Putting tiles down and lifting them, and what a seat may activate or place.

    Legal placements follow the rulebook's order of resort: an orthogonal meeting whose
    colours the tile accepts; failing any, a cell touching a tile only diagonally; failing
    that (the grid edge walls everything in), any empty cell.
    """

    __slots__ = ()

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

    # -- activation ----------------------------------------------------------------------------
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

    # -- placement -----------------------------------------------------------------------------
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
