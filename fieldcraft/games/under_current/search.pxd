# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and search.py stays the source. ``resample`` (one per search iteration) sees the typed
# state (turns.pxd) and types its locals in search.py; ``sample_roles`` is a C function with C
# locals, calling the core's ``shuffle`` directly; ``deal_roles`` (shared by ``resample`` and
# the informed draws) is a C call from ``resample``.
cimport cython
from fieldcraft.core.api cimport shuffle
from .turns cimport TurnRules, TurnTables

@cython.locals(deal=list, size=Py_ssize_t, p=Py_ssize_t, mask=long, role=int)
cpdef list sample_roles(list masks, int num_roles, rng)

@cython.locals(n=int, public=list, masks=list, w=int)
cpdef deal_roles(TurnRules new, list roles, int seat)
