# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and game.py stays the source. The Game's tables that the rules read at every step are C
# fields (the rest stay in its instance dict), and the state's fields are declared once, here,
# as C fields of the base of the state's class chain (game.py's annotations give their order;
# the conformance suite checks the class, and a field missing here fails to compile).
cimport cython
from fieldcraft.core.api cimport Game, State

cdef class AgainstTheCurrentGame(Game):
    cdef public int cards, sanctuary
    cdef public tuple terrain_counts, table, pass_terrains, pressure_terrain
    cdef public int echo_change, echo_floor, burst
    cdef public tuple marker_terrain
    cdef public int marker_host
    cdef public tuple setup_mix, tributaries
    cdef public int wheel_shift, wheel_currents, die_sides, event_roll
    cdef public bint event_modified
    cdef public tuple deck_counts
    cdef public int deck_size
    cdef public tuple challenge_outcomes
    cdef public object challenge_ids
    cdef public tuple modifier_order
    cdef public bint second_chance_served, skip_uses_effects
    cdef public int last_round
    cdef public tuple seat_animals
    cdef public int a_remove, a_marker, a_trib, n_actions
    cdef public tuple roll_actions, roll_outcomes

cdef class AgainstTheCurrentFields(State):
    cdef public int phase, seat, first
    cdef public list animal, ring, deal_pool, markers
    cdef public int marker_i
    cdef public list pile
    cdef public int pile_top, pile_hist
    cdef public list pool
    cdef public int pool_left
    cdef public bint shuffle_setup
    cdef public list discard
    cdef public int event
    cdef public list pos, stop, shelter, support, wave, trib_of, claimed, left
    cdef public int arrived
    cdef public list finish, boost_used, pressure_used, pressure, detour, squeeze
    cdef public int rot, rounds, shift_pending, mover, roll, dist
    cdef public bint used_ability, turn_detour, turn_squeeze, extra
    cdef public int land, resume, mode
    cdef public list options, actions
    @cython.locals(new=AgainstTheCurrentFields)
    @cython.locals(cls=type, new=AgainstTheCurrentFields)
    cpdef clone(self)
