# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and events.py stays the source. The event-card rules are C methods of the state's class
# chain, and the layout numbers they compare with are C ints.
cimport cython
from .game cimport AgainstTheCurrentGame
from .turns cimport Turns

cdef int A_ATTEMPT, A_CH_PASS, A_SHUFFLE, A_SKIP, A_TARGET_SEAT, A_TARGET_TOKEN
cdef int ATTEMPT, CHALLENGE, ROLL, SHUFFLE, TARGET, R_END_TURN, TOKENS
cdef int BACKWASH, CLEANUP_CREW, CURRENT_SHIFT, DETOUR, EXTRA_ROLL, HABITAT_SQUEEZE
cdef int MIGRATION_PUSH, PRESSURE_WAVE, RIVER_SUPPORT, SAFE_SHELTER, SECOND_CHANCE
cdef int TAIL_CURRENT
cdef tuple EVENTS
cdef int E_BACK1, E_DETOUR, E_FWD1, E_FWD2, E_SHELTER, E_SQUEEZE, E_SUPPORT, E_UNSTOP, E_WAVE

cdef class EventDeck(Turns):
    cdef _start_shuffle(self, list counts)
    @cython.locals(e=int)
    cdef _apply_shuffle(self, int action)
    @cython.locals(counts=list, e=int)
    cdef _draw_event(self)
    @cython.locals(phase=int)
    cdef _apply_event(self, int action)
    cdef _discard(self)
    @cython.locals(g=AgainstTheCurrentGame, sanct=int, pos=list, t=int)
    cdef list _own_unfinished(self, int s)
    @cython.locals(tokens=list, low=int, pos=list, t=int)
    cdef list _rearmost(self, int s)
    @cython.locals(ev=int, s=int, n=int, opts=list, mode=int, o=int, tokens=list, high=int,
                   limit=int, stopped=list, g=AgainstTheCurrentGame, t=int, m=int, card=int)
    cdef _effect(self)
    @cython.locals(g=AgainstTheCurrentGame, o=int, t=int, mode=int, np=int)
    cdef _apply_target(self, int action)
