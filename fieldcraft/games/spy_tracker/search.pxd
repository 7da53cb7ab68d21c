# Cython declarations for the compiled build: the search model's hot functions see the typed state
# and game (their C locals are declared with ``@cython.locals`` in search.py), and its tables are
# reached through C functions of this module rather than Python method calls.
cimport cython
from fieldcraft.core cimport fast
from .game cimport SpyTrackerGame
from .rules cimport SpyTrackerState

# The module's constants as C values (they are not module attributes in the compiled build;
# HAND_CACHE stays one, so that a test can lower it).
cdef int BIDDING, CALL, CHOOSING, NUM_ATTRIBUTES, NUM_SPIES, SPOT, SEARCH_BIDS_PER_TRAIT
cdef double BELIEF_FLOOR, BID_DISCOUNT, SPOT_BONUS

@cython.locals(key=tuple, counts=tuple)
cdef tuple _hand_counts(dict cache, list card_delta, list hand)
@cython.locals(j=int, table=list)
cdef double _tail_chance(dict tails, SpyTrackerGame g, int hidden, int need) except? -1
@cython.locals(table=list, dist=list, new=list, acc=double)
cdef list _tail_table(dict tails, SpyTrackerGame g, int hidden)
