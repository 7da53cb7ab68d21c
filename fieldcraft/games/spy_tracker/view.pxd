# Cython declarations for the compiled build of view.py (docs/performance.md): the tensor
# written through a C pointer from the state's C fields. The pure build ignores this file.
cimport cython
from fieldcraft.core cimport fast
from .rules cimport SpyTrackerState

@cython.locals(phase=Py_ssize_t, to_act=Py_ssize_t, opener=Py_ssize_t, round_=Py_ssize_t,
               sources=Py_ssize_t, points=Py_ssize_t, hand_sizes=Py_ssize_t, in_play=Py_ssize_t,
               bid=Py_ssize_t, bids=Py_ssize_t, hand=Py_ssize_t, reveal=Py_ssize_t,
               winners=Py_ssize_t, ending=Py_ssize_t, s=Py_ssize_t, k=Py_ssize_t, i=Py_ssize_t,
               at=Py_ssize_t, width=Py_ssize_t, history=list, own=list)
cdef _fill(double* t, tuple starts, SpyTrackerState state, Py_ssize_t seat, Py_ssize_t p,
           Py_ssize_t low, Py_ssize_t n)
@cython.locals(s=Py_ssize_t, i=Py_ssize_t, hands=list, laid=list)
cdef _fill_reveal(double* t, Py_ssize_t at, dict reveal, Py_ssize_t p, Py_ssize_t n)
