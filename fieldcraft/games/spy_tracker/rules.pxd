# Cython declarations for the compiled build (docs/performance.md): Spy Tracker's state as an
# extension type, whose C fields and clone the build adds from the annotations in rules.py, and
# typed locals in its rules. The pure build ignores this file; rules.py stays the source.
cimport cython
from fieldcraft.core cimport fast
from fieldcraft.core.api cimport State
from .game cimport SpyTrackerGame as TypedGame  # the name stays importable

# The phases and the action layout's fixed numbers as C values in this module (so they are not
# its attributes in the compiled build: other modules import them from game.py).
cdef int CHANCE, TERMINAL, OPENING, DEALING, BIDDING, CHOOSING, OVER, BID_BASE

cdef class SpyTrackerState(State):
    cpdef int current_player(self) except? -99
    cpdef bint is_terminal(self) except -1
    cpdef bint is_chance_node(self) except -1
    @cython.locals(phase=int, count=int, key=int, answers=list, raises=list, ids=list, g=TypedGame)
    cpdef list legal_actions(self)
    @cython.locals(phase=int, pool=list, card=int, i=Py_ssize_t, g=TypedGame)
    cpdef bint _is_legal(self, int action) except -1
    @cython.locals(bids=list, count=int, attr=int, mask=long, i=Py_ssize_t)
    cpdef long traits_bid_at_count(self) except? -1
    @cython.locals(phase=int, g=TypedGame, pool=list, left=Py_ssize_t, pairs=list)
    cpdef list chance_outcomes(self)
    @cython.locals(phase=int, card=int, seat=int, kind=int, count=int, attr=int, pool=list,
                   hand=list, g=TypedGame)
    cpdef _apply(self, int action)
    @cython.locals(g=TypedGame, pool=list, hands=list, actions=list, cps=int, last=Py_ssize_t,
                   i=Py_ssize_t, j=Py_ssize_t, r=double, seat=int, hand=list, ids=list, card=int,
                   _=Py_ssize_t)
    cpdef play_chance(self, rng)
    @cython.locals(later=long)
    cdef _hand_dealt(self, int seat)
    @cython.locals(g=TypedGame)
    cdef _deal_to(self, int seat)
    @cython.locals(players=int, step=int, other=int)
    cdef int _next_active(self, int seat) except -1
    @cython.locals(active=long)
    cdef _start_deal(self)
    @cython.locals(g=TypedGame, delta=list, total=int, hand=list, card=int, add=int)
    cpdef int true_count(self, int attr) except? -99999
    @cython.locals(true=int, challenger=int, bidder=int, right=bint)
    cpdef tuple resolve(self, bint spot)
    @cython.locals(g=TypedGame, true=int, loser=int, winner=int, challenger=int, sources=list,
                   eliminated=bint, hands=list, active=long)
    cdef _challenge(self, bint spot)
    cdef _finish(self, int seat, str ending)
    cpdef list returns(self)
