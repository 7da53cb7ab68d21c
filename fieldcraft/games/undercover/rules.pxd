# Cython declarations for the compiled build (docs/performance.md); rules.py stays the source.
# UndercoverState ends the state's class chain (base.pxd declares its fields); the rules methods
# search and playouts call are the C methods State declares (api.pxd), with typed locals.
cimport cython
from .base cimport UndercoverTables
from .setup_steps cimport SetupRules

# The phases and the constants the step compares with, as C values of this module (so they are
# not its attributes in the compiled build: the game's modules import the phases from base.py,
# and rules.__getattr__ forwards them for code outside the game).
cdef int SETUP, ACTIVATE, FLIP, PLACE, OVER, CHANCE, TERMINAL
cdef int EMPTY, JOKER0, LOC_HELD, LOC_SUPPLY, N_AGENTS, N_COLOURS

cdef class UndercoverState(SetupRules):
    @cython.locals(g=UndercoverTables, c=int, s=int)
    cdef _finish_setup(self)
    cpdef int current_player(self) except? -99
    cpdef bint is_terminal(self) except -1
    cpdef bint is_chance_node(self) except -1
    @cython.locals(g=UndercoverTables, ph=int)
    cpdef list legal_actions(self)
    @cython.locals(g=UndercoverTables, ph=int, y=int, m=int, bad=int, t=int, pile=list)
    cpdef bint _is_legal(self, int action) except -1
    @cython.locals(g=UndercoverTables, ph=int, t=int, y=int, meeting=bint, turn=int, n=int,
                   nxt=int, files=list, old=int, up=int)
    cpdef _apply(self, int action)
    cdef _finish(self)
    cpdef list returns(self)
