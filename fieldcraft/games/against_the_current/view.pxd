# Cython declarations for the compiled build of view.py (docs/performance.md): the tensor
# written through a C pointer from the state's C fields. The pure build ignores this file.
cimport cython
from fieldcraft.core cimport fast
from .rules cimport AgainstTheCurrentState

@cython.locals(o_player=Py_ssize_t, o_turn=Py_ssize_t, o_first=Py_ssize_t, o_phase=Py_ssize_t,
               o_current=Py_ssize_t, o_steps=Py_ssize_t, o_legal=Py_ssize_t, phase=Py_ssize_t,
               i=Py_ssize_t, options=list)
cdef _put_turn(double* t, tuple o, tuple legal_at, AgainstTheCurrentState state,
               Py_ssize_t seat, Py_ssize_t p)
@cython.locals(n=Py_ssize_t, o_dealt=Py_ssize_t, o_pressure=Py_ssize_t, rot=Py_ssize_t,
               ring=list, markers=list, entry=tuple, where=list, values=list, i=Py_ssize_t,
               turn=Py_ssize_t,
               pressure=list, s=Py_ssize_t, slot=Py_ssize_t)
cdef _put_river(double* t, tuple o, object view, AgainstTheCurrentState state, Py_ssize_t p)
@cython.locals(o_animal=Py_ssize_t, o_flags=Py_ssize_t, animal=list, boost_used=list,
               pressure_used=list, detour=list, squeeze=list, s=Py_ssize_t, at=Py_ssize_t)
cdef _put_seats(double* t, tuple o, AgainstTheCurrentState state, Py_ssize_t p)
@cython.locals(o_score=Py_ssize_t, o_pos=Py_ssize_t, o_stop=Py_ssize_t, o_effects=Py_ssize_t,
               o_trib=Py_ssize_t, o_mover=Py_ssize_t, o_roll=Py_ssize_t,
               o_turn_flags=Py_ssize_t, width=Py_ssize_t, tribs=Py_ssize_t, pos=list,
               stop=list, trib_of=list, shelter=list, support=list, wave=list, tk=Py_ssize_t,
               x=Py_ssize_t, at=Py_ssize_t, i=Py_ssize_t)
cdef _put_tokens(double* t, tuple o, object values, AgainstTheCurrentState state, Py_ssize_t p,
                 Py_ssize_t n)
@cython.locals(o_event=Py_ssize_t, o_deck=Py_ssize_t, o_unseen=Py_ssize_t,
               o_discard=Py_ssize_t, o_finish=Py_ssize_t, ne=Py_ssize_t, i=Py_ssize_t,
               e=Py_ssize_t, discard=list, finish=list)
cdef _put_events(double* t, tuple o, list deck, AgainstTheCurrentState state, Py_ssize_t p)
