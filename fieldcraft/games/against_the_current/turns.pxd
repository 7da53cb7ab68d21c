# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and turns.py stays the source. The turn rules are C methods of the state's class chain
# (cdef where only the rules call them, cpdef where the notation and the view do too), with
# typed locals, and the layout numbers they compare with are C ints.
cimport cython
from .game cimport AgainstTheCurrentFields, AgainstTheCurrentGame

cdef int A_BURST, A_ECHO_DOWN, A_ECHO_UP, A_MOVE, A_NO_ABILITY, A_PRESSURE, A_REGEN, A_SLIP
cdef int AFTER_ROLL, END, LAND, TOKEN, TRIB
cdef int AXOLOTL, PORPOISE, STURGEON, FISHING_NETS
cdef int M_BOOST, M_PRESSURE, M_SUPPORT, M_WAVE
cdef int R_AFTER_MOVE, STOP_RESULT, TOKENS

cdef class Turns(AgainstTheCurrentFields):
    @cython.locals(g=AgainstTheCurrentGame, n=int, s=int, base=int, t=int, sanct=int,
                   stop=list, pos=list, detour=list, squeeze=list, free=list,
                   turn_detour=bint, first=int, low=int, a=int)
    cdef _begin_turn(self)
    @cython.locals(g=AgainstTheCurrentGame)
    cdef _next_seat(self)
    @cython.locals(g=AgainstTheCurrentGame)
    cdef _rotate(self, int steps)
    @cython.locals(stop=list, base=int, t=int)
    cdef _end_turn(self)
    cdef bint _can_boost(self) except -1
    @cython.locals(a=int, g=AgainstTheCurrentGame, opts=list)
    cdef _after_roll(self)
    @cython.locals(d=int, g=AgainstTheCurrentGame)
    cdef _apply_after_roll(self, int action)
    @cython.locals(g=AgainstTheCurrentGame)
    cpdef int _slot_at(self, int space) except? -1
    @cython.locals(g=AgainstTheCurrentGame)
    cpdef int _space_of(self, int slot) except? -1
    @cython.locals(markers=list, g=AgainstTheCurrentGame, printed=int)
    cpdef int _terrain(self, int slot) except? -1
    @cython.locals(g=AgainstTheCurrentGame, t=int, np=int, slot=int, terr=int, s=int, a=int,
                   opts=list)
    cdef _move(self, int d)
    @cython.locals(s=int)
    cdef _apply_land(self, int action)
    @cython.locals(g=AgainstTheCurrentGame, owner=int, terr=int, r=int, m=int, o=int, card=int)
    cdef int _result(self, int t, int slot, bint boosted, bint consume) except? -99
    @cython.locals(t=int, r=int, np=int, g=AgainstTheCurrentGame)
    cdef _resolve(self, bint boosted)
    @cython.locals(g=AgainstTheCurrentGame)
    cdef _after_move(self)
    @cython.locals(owner=int, g=AgainstTheCurrentGame, base=int, i=int, c=int)
    cdef _arrive(self, int t, int resume)
    @cython.locals(i=int, t=int, g=AgainstTheCurrentGame)
    cdef _apply_trib(self, int action)
    cdef _draw_event(self)
