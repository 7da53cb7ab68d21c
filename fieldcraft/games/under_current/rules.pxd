# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and rules.py stays the source. ``UnderCurrentRules`` (the rules core and the step per
# phase) extends the extension type ``TurnRules`` (turns.pxd: the fields and the moves);
# ``UnderCurrentState`` and ``UnderCurrentGame`` (game.py) stay Python classes on top of
# extension types.
cimport cython
from .turns cimport TurnRules, TurnTables

# The vocabulary as C ints in this module (imported from constants.py and the core API).
cdef int CHANCE, TERMINAL
cdef int CHOOSE_START, DEAL_CARDS, DEAL_ROLES, DECLARE_BLUE, DECLARE_RED, DRAW, DROP_CHOICE
cdef int FLIP, OVER, PASS, RECEIVE, RETIRE_CHOICE, ROW_CHOICE, SCAN, SNATCH, SNATCH_DRAW
cdef int ROLES_DEALT, SNATCH_PICK, SWAP, SWAP_OWN, SWAP_THEIRS, TARGET
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

    # one step per phase
    @cython.locals(g=TurnTables)
    cdef void _step_deal_role(self, int action) except *
    @cython.locals(g=TurnTables, seat=int, hand=list)
    cdef void _step_deal_card(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_start(self, int action) except *
    @cython.locals(g=TurnTables, card=int, to=int, a=int, hand=list, known=list, i=Py_ssize_t,
                   j=Py_ssize_t, pair=int)
    cdef void _step_pass(self, int action) except *
    @cython.locals(g=TurnTables, card=int)
    cdef void _step_receive(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_target(self, int action) except *
    @cython.locals(g=TurnTables, seat=int, faction=int)
    cdef void _step_retire(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_swap_own(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_swap_theirs(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_drop(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_row(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_snatch_pick(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_snatch_draw(self, int action) except *
    @cython.locals(g=TurnTables, a=int, deck=list, hand=list)
    cdef void _step_draw(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_declare_red(self, int action) except *
    @cython.locals(g=TurnTables)
    cdef void _step_declare_blue(self, int action) except *

    # the deal
    @cython.locals(g=TurnTables, roles=list, positions=int)
    cdef void _deal_role(self, int role) except *
    @cython.locals(g=TurnTables, n=int, seat=int, hands=list)
    cdef void _next_setup_draw(self) except *

    @cython.locals(g=TurnTables, n=int, faction=list, w=int)
    cpdef list returns(self)
