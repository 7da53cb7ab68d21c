# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file. The tree node is an extension type, so the search loop reads and writes its statistics as
# C fields; the loop itself is typed with ``@cython.locals`` in ismcts.py.
cimport cython
from fieldcraft.core.api cimport State

cdef class _Node:
    # Its fields are the annotations in ismcts.py (the build derives their declarations).
    cpdef _Node branch(self, int action)
    cpdef Py_ssize_t add(self, int action) except -1

cdef Py_ssize_t _ucb_best(list w, list n, list avail, list log, double c, list usable) except -1
