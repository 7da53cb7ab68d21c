# Cython declarations for the compiled build: the search model's hot functions see the typed
# state and game (their C locals are declared with ``@cython.locals`` in search.py).
from fieldcraft.games.spy_tracker.game cimport SpyTrackerGame
from fieldcraft.games.spy_tracker.rules cimport SpyTrackerState
