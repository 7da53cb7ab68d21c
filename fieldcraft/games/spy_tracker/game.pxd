# Cython declarations for the compiled build (docs/performance.md): the tables Spy Tracker's rules
# and search read at every step, as C fields of the game (everything else stays in its instance
# dict). The pure build ignores this file; game.py stays the source.
from fieldcraft.core.api cimport Game

cdef class SpyTrackerGame(Game):
    cdef public int start_sources, cards_per_source, num_mercenaries, num_traitors
    cdef public int points_to_win, spot_points, min_bid
    cdef public bint choose_next, negative_counts, no_repeat_bids
    cdef public int num_cards, first_bidder
    cdef public bint opener_other_party, cap_in_play
    cdef public int max_count, raise_base, next_base, open_base, deal_base, num_actions
    cdef public list card_names, deck, delta, card_delta, bid_of, caps, openings
    cdef public list answers, raises
    cdef public int _in_play_stride
    cdef public list choosers, deal_actions, deal_pairs
    cpdef int bid_action(self, int count, int attr, bint raise_=*) except -1
    cpdef int round_cap(self, int in_play) except -1
    cpdef bint bid_is_legal(self, int standing, long taken, int in_play, int action) except -1
    cpdef list _legal_bids(self, int standing, long taken, int in_play, int first, int end)
    cpdef list fill_answers(self, int count, long taken)
    cpdef list fill_raises(self, int count, int in_play)
