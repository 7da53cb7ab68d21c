# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and rules.py stays the source. ``UnderCurrentRules`` (the rules core) extends the
# extension type ``TurnRules`` (turns.pxd: the fields and the steps); ``UnderCurrentState`` and
# ``UnderCurrentGame`` stay Python classes on top of extension types.
cimport cython
from fieldcraft.games.under_current.turns cimport TurnRules, TurnTables

# The vocabulary as C ints in this module (imported from constants.py and the core API).
cdef int CHANCE, TERMINAL
cdef int CHOOSE_START, DEAL_CARDS, DEAL_ROLES, DECLARE_BLUE, DECLARE_RED, DRAW, DROP_CHOICE
cdef int FLIP, OVER, PASS, RECEIVE, RETIRE_CHOICE, ROW_CHOICE, SCAN, SNATCH, SNATCH_DRAW
cdef int SNATCH_PICK, SWAP, SWAP_OWN, SWAP_THEIRS, TARGET
cdef tuple IS_CHANCE
cdef frozenset DECK_PHASES

cdef class UnderCurrentRules(TurnRules):
    @cython.locals(phase=int)
    cpdef int current_player(self) except? -99
    cpdef bint is_terminal(self) except -1
    cpdef bint is_chance_node(self) except -1
    @cython.locals(phase=int, g=TurnTables, base=int, hand=list, rows=list, x=int, y=int,
                   out=list, used=list)
    cpdef list legal_actions(self)
    @cython.locals(phase=int, g=TurnTables, card=int, to=int, role=int, index=int, base=int,
                   pos=int)
    cpdef bint _is_legal(self, int action) except -1
    @cython.locals(g=TurnTables, a=int, eff=int, base=int, size=int)
    cdef list _target_actions(self)
    @cython.locals(g=TurnTables, eff=int, seat=int)
    cdef bint _is_target(self, int action) except -1
    @cython.locals(phase=int, g=TurnTables, deck=list, odds=list, used=list, base=int,
                   p=double, hand=list)
    cpdef list chance_outcomes(self)
    @cython.locals(phase=int)
    cpdef _apply(self, int action)
    @cython.locals(g=TurnTables, n=int, faction=list, w=int)
    cpdef list returns(self)
