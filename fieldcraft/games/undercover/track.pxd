# Cython declarations for the compiled build (docs/performance.md); track.py stays the source.
cimport cython
from .base cimport UndercoverTables
from .grid cimport GridRules

cdef int JOKER, N_COLOURS  # imported from grid.py: C values here, as the step computes with them

@cython.locals(target=int, t=int)
cpdef int classified_landing(list occ, int base, int p0, int steps, int end) except -1

cdef class TrackRules(GridRules):
    @cython.locals(g=UndercoverTables, code=int, colour=int, key=int, moves=tuple, p=int, changed=int, lane=int, m=int,
                   line=int, past=int, v=int, frozen=list, pos=list, last_tok=list, occ=list,
                   i=int, j=int, last=int, pos0=int, base=int, target=int)
    cdef _evaluate(self, int y, int t)
    @cython.locals(i=int, base=int, tokens=list, last=int, s=int)
    cdef _take_token(self, int p, int lane, int space)
    @cython.locals(g=UndercoverTables, i=int, pos0=int, end=int, base=int, occ=list, t=int)
    cpdef int _advance_classified(self, int p, int lane, int steps) except -1
    @cython.locals(g=UndercoverTables, n=int, pos=list, frozen=list, lane=int, last=int, s=int,
                   i=int, end=int, occ=list, base=int, rear=int, sp=int)
    cdef bint _anyone_can_move(self) except -1
    @cython.locals(g=UndercoverTables, out=list, s=int, opp=int, total=int, lane=int, i=int,
                   p=int, v=int)
    cpdef list scores(self)
