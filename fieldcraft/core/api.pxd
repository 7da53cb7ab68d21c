# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and api.py stays the source. ``State`` is an extension type so that a game's state can be
# one too (spy_tracker/rules.pxd), and the three rules methods every step calls are ``cpdef``:
# compiled callers reach a compiled game's methods through a C table, not attribute lookup.
cdef class State:
    cdef public object game
    cpdef int current_player(self) except? -99
    cpdef list legal_actions(self)
    cpdef _apply(self, int action)
