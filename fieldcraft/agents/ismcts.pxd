# Cython declarations for the compiled build (docs/performance.md): the search tree's node is an
# extension type with typed fields, so the search reads and updates them without a dictionary
# or slot lookup. The pure-Python build ignores this file; ismcts.py stays the source.
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
    cdef public dict chance
    cpdef _Node branch(self, object action)
    cpdef Py_ssize_t add(self, object action) except -1
