# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and api.py stays the source. ``State`` is an extension type so that a game's state can be
# one too (each game's rules.pxd), and the rules methods that search and the playout loops call
# are ``cpdef``: compiled callers reach a compiled game's methods through a C table, not an
# attribute lookup, and a Python subclass (a test's planted fault) still overrides them.
cimport cython

# ``Game`` is an extension type with an instance dict (so ``cached_property`` and every attribute
# a game sets work as before) so that a game can declare the tables its rules read at every step
# as C fields of its own subclass (``cdef class MyGame(Game)`` in its rules.pxd); see
# docs/performance.md.
cdef class Game:
    cdef dict __dict__
    cdef public int num_players

cdef class State:
    cdef public object game
    cpdef int current_player(self) except? -99
    cpdef list legal_actions(self)
    cpdef list chance_outcomes(self)
    cpdef _apply(self, int action)
    cpdef bint _is_legal(self, int action) except -1
    cpdef list returns(self)
    cpdef bint is_terminal(self) except -1
    cpdef bint is_chance_node(self) except -1
    cpdef play_chance(self, rng)
    cpdef clone(self)

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, r=double)
cpdef shuffle(list items, rng)

cpdef randbelow(rng, n)

@cython.locals(legal=list, outcomes=list, first=double, r=double, acc=double, p=double)
cpdef int sample_chance(State state, rng) except? -99
