# Cython declarations for the compiled build: the search model's hot functions see the typed
# state and game (their C locals are declared with ``@cython.locals`` in search.py).
from fieldcraft.games.spy_tracker.game cimport SpyTrackerGame
from fieldcraft.games.spy_tracker.rules cimport SpyTrackerState

# The module's constants as C values (they are not module attributes in the compiled build).
cdef int BIDDING, CALL, CHOOSING, NUM_ATTRIBUTES, NUM_SPIES, SPOT, SEARCH_BIDS_PER_TRAIT
cdef double BELIEF_FLOOR, BID_DISCOUNT, SPOT_BONUS
