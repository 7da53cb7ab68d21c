# Cython declarations for the compiled build (docs/performance.md); setup_steps.py stays the
# source.
cimport cython
from .base cimport UndercoverTables
from .track cimport TrackRules

cdef int LOC_PILE, LOC_SUPPLY, N_AGENTS, N_COLOURS  # imported from grid.py

cdef class SetupRules(TrackRules):
    cdef _finish_setup(self)
    @cython.locals(g=UndercoverTables, i=int, chooser=int)
    cdef _enter_setup_step(self)
    @cython.locals(g=UndercoverTables, kind=int, tcell=list, deal=int, acts=list, a=int)
    cdef list _setup_legal(self)
    @cython.locals(g=UndercoverTables, i=int, kind=int, entry=tuple)
    cpdef list chance_outcomes(self)
    @cython.locals(acts=list, p=double)
    cdef list _seat_odds(self, int kind)
    @cython.locals(g=UndercoverTables, colour=list, acts=list, c=int)
    cdef list _seat_actions(self, int kind)
    @cython.locals(g=UndercoverTables, i=int, kind=int, entry=tuple, a=int, c=int)
    cdef bint _setup_is_legal(self, int action) except -1
    @cython.locals(g=UndercoverTables, laid=tuple, entry=tuple)
    cdef tuple _token_odds(self)
    @cython.locals(g=UndercoverTables, key=tuple, entry=tuple)
    cdef tuple _deal_odds(self)
    @cython.locals(g=UndercoverTables, i=int, kind=int, k=int, space=int, v=int, a=int,
                   chooser=int)
    cdef _apply_setup(self, int action)
