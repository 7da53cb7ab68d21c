# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file. The tree node is an extension type, so the search loop reads and writes its statistics as
# C fields; the loop itself is typed with ``@cython.locals`` in ismcts.py.
cimport cython
from fieldcraft.core.api cimport State

cdef class _Node:
    cdef public list actions
    cdef public dict index
    cdef public list kids
    cdef public list n
    cdef public list w
    cdef public list avail
    cdef public Py_ssize_t visits
    cdef public list legal
    cdef public set legal_set
    cdef public bint all_legal
    cdef public object chance
    cpdef _Node branch(self, int action)
    cpdef Py_ssize_t add(self, int action) except -1

cdef Py_ssize_t _ucb_best(list w, list n, list avail, list log, double c, list usable) except -1
