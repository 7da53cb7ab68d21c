# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and base.py stays the source. The build adds each class's C fields from its annotations
# in base.py (the game's per-step tables; the state's fields, on the first class of its chain).
cimport cython
cimport cpython.array
from fieldcraft.core cimport fast
from fieldcraft.core.api cimport Game, State

cdef class UndercoverTables(Game):
    pass  # fields: the annotations in base.py (the build derives them)

cdef class UndercoverFields(State):
    pass  # fields: the annotations in base.py (the build derives them)
