# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and rules.py stays the source. The state's API methods that playouts and search call are
# the C methods api.pxd declares (same signatures), with typed locals; the layout numbers they
# compare with are C ints.
cimport cython
from fieldcraft.core.api cimport randbelow, sample_chance
from .events cimport EventDeck
# (under another name: rules.py re-exports the Python name AgainstTheCurrentGame)
from .game cimport AgainstTheCurrentGame as TypedGame

cdef int A_DEAL, A_FIRST, A_MOVE, A_PICK, A_ROLL, A_SHUFFLE
cdef int AFTER_ROLL, ATTEMPT, CHALLENGE, DEAL, END, FIRST, LAND, MARKER, PICK, ROLL, SHUFFLE
cdef int TOKEN, TRIB, R_AFTER_MOVE, TOKENS
cdef int CHANCE, TERMINAL
cdef tuple IS_CHANCE, EVENTS, TERRAINS

cdef class AgainstTheCurrentState(EventDeck):
    @cython.locals(phase=int)
    cpdef int current_player(self) except? -99
    cpdef bint is_terminal(self) except -1
    cpdef bint is_chance_node(self) except -1
    @cython.locals(phase=int, g=TypedGame)
    cpdef list legal_actions(self)
    @cython.locals(phase=int, g=TypedGame, e=int, t=int, s=int)
    cpdef bint _is_legal(self, int action) except -1
    @cython.locals(phase=int, g=TypedGame, total=int, host=int, free=list, base=int,
                   n=int, e=int, c=int, t=int, s=int)
    cpdef list chance_outcomes(self)
    @cython.locals(g=TypedGame, sides=int)
    cpdef play_chance(self, rng)
    @cython.locals(phase=int)
    cpdef _apply(self, int action)
    @cython.locals(g=TypedGame, phase=int, t=int)
    cdef _apply_setup(self, int action)
    @cython.locals(g=TypedGame, out=list, t=int, i=int)
    cpdef list scores(self)
    @cython.locals(out=list, g=TypedGame)
    cpdef list returns(self)
