# Cython declarations for the compiled build: policy_action's state is the typed extension type.
from fieldcraft.games.spy_tracker.rules cimport SpyTrackerState
