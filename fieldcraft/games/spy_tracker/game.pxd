# Cython declarations for the compiled build (docs/performance.md): the build adds the tables
# Spy Tracker's rules and search read at every step as C fields of the game, from their
# annotations in game.py. The pure build ignores this file; game.py stays the source.
from fieldcraft.core.api cimport Game

cdef class SpyTrackerGame(Game):
    cpdef int bid_action(self, int count, int attr, bint raise_=*) except -1
    cpdef int round_cap(self, int in_play) except -1
    cpdef bint bid_is_legal(self, int standing, long taken, int in_play, int action) except -1
    cpdef list _legal_bids(self, int standing, long taken, int in_play, int first, int end)
    cpdef list fill_answers(self, int count, long taken)
    cpdef list fill_raises(self, int count, int in_play)
