# Cython declarations for the compiled build (docs/performance.md): Spy Tracker's state as an
# extension type with C fields, and typed locals in the step. The pure build ignores this file;
# rules.py stays the source, and the field list here must match its annotations (the
# conformance suite checks the class; a field missing here fails to compile).
cimport cython
from fieldcraft.core.api cimport State

cdef class SpyTrackerState(State):
    cdef public list actions
    cdef public int phase, player, round
    cdef public list sources
    cdef public long active
    cdef public list points
    cdef public list hands
    cdef public list pool
    cdef public int deal_seat, deal_first, deal_start, in_play, opener, bid_count, bid_attr
    cdef public long taken
    cdef public int bidder
    cdef public list bids
    cdef public object reveal
    cdef public int winner
    cdef public object ending
    cpdef clone(self)
    cpdef int current_player(self) except? -99
    cpdef bint is_terminal(self) except -1
    cpdef bint is_chance_node(self) except -1
    cpdef list legal_actions(self)
    cpdef bint _is_legal(self, int action) except -1
    cpdef list chance_outcomes(self)
    @cython.locals(phase=cython.int, card=cython.int, seat=cython.int,
                   kind=cython.int, count=cython.int, attr=cython.int, pool=list, hand=list)
    cpdef _apply(self, int action)
    cpdef play_chance(self, rng)
    cpdef list returns(self)
