# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and turns.py stays the source. ``TurnTables`` (what the rules read from the game at every
# step) and ``TurnRules`` (the state's fields and the moves) become extension types whose C
# fields the build adds from their annotations in turns.py; the moves are C methods with typed
# locals.
cimport cython
from fieldcraft.core.api cimport Game, State

# The vocabulary as C ints in this module (imported from constants.py, which stays Python), so
# that comparing a phase or an effect is a C comparison.
cdef int BLUE, BURN, DECLARE_RED, DRAW, DROP, DROP_CHOICE, EYE, FETCH, FLIP, GREEN, OVER, PASS
cdef int PEEK, RED, RETIRE, RETIRE_CHOICE, ROW_CHOICE, SCAN, SNATCH, SNATCH_DRAW, SNATCH_PICK, SPY
cdef int SWAP, SWAP_OWN, TARGET, THUMB, YELLOW
cdef int FILED, ROW_TAKEN, PEEKED, SCANNED, SPIED, FLIPPED, RETIRED, ROLES_DEALT, ROW_REVEALED
cdef int INFORMER_CHECKED, GREENS_REVEALED, ROLES_REVEALED
cdef frozenset _TARGETED

cpdef int balance_winner(int blue, int red, int yellow) except? -1

cdef class TurnTables(Game):
    pass  # fields: the annotations in turns.py (the build derives them)

cdef class TurnRules(State):
    # turn structure
    @cython.locals(g=TurnTables, n=int, hands=list)
    cdef void _begin_turn(self, int seat) except *
    @cython.locals(left=int)
    cdef bint _count_turn(self) except -1
    @cython.locals(g=TurnTables, a=int)
    cdef void _end_turn(self) except *
    cdef void _draw(self, int seat, int card) except *
    @cython.locals(hand=list, known=list, i=Py_ssize_t, j=Py_ssize_t)
    cdef int _take_from_hand(self, int seat, int card, int keep_mask) except? -1
    @cython.locals(g=TurnTables, row_up=list, oldest=Py_ssize_t)
    cdef void _file(self, int card, int known) except *

    # effects
    @cython.locals(g=TurnTables, a=int)
    cdef void _resolve(self, int effect) except *
    @cython.locals(g=TurnTables, eff=int, a=int, size=int, s=int, hand=list)
    cdef bint _has_target(self) except -1
    @cython.locals(eff=int)
    cdef void _target(self, int seat) except *
    @cython.locals(a=int, roles=list)
    cdef void _flip(self, int pos) except *
    @cython.locals(a=int, t=int, pair=int, mine=int, theirs=int, mine_known=int,
                   theirs_known=int)
    cdef void _swap(self, int their_index) except *
    @cython.locals(a=int, was_single=bint, old=int)
    cdef void _drop(self, int card) except *
    @cython.locals(t=int, was_single=bint, old=int)
    cdef void _snatch(self, int card) except *
    cdef void _row_choice(self, int index) except *
    @cython.locals(g=TurnTables)
    cdef void _retire(self, int seat, int faction) except *

    # knowledge
    @cython.locals(g=TurnTables, a=int, row_known=list, hand_known=list, i=Py_ssize_t, s=int,
                   v=Py_ssize_t, masks=list, greens=list, full=list)
    cdef void _learn(self, int event, int x, int y) except *
    @cython.locals(g=TurnTables, n=int)
    cdef void _identity_confirmation(self) except *

    # scoring
    @cython.locals(g=TurnTables)
    cpdef void _score(self, str ending) except *  # cpdef: a test scores a set-up position
    @cython.locals(g=TurnTables, roles=list)
    cdef void _finish_declarations(self) except *
    cdef void _balance(self) except *
    @cython.locals(g=TurnTables)
    cdef void _finish(self, int faction, str reason) except *
