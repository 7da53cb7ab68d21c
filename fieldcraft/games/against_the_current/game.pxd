# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and game.py stays the source. The build adds each class's C fields from its annotations
# in game.py (the Game's per-step tables; the state's fields, on the base of its class chain).
cimport cython
from fieldcraft.core.api cimport Game, State

cdef class AgainstTheCurrentGame(Game):
    pass  # fields: the annotations in game.py (the build derives them)

cdef class AgainstTheCurrentFields(State):
    pass  # fields: the annotations in game.py (the build derives them)
