# Cython declarations for the compiled build of fast.py (docs/performance.md): the C functions a
# game's compiled rules call as ``fast.<name>`` (its .pxd: ``from fieldcraft.core cimport fast``).
cimport cython
cimport cpython.array
from libc.math cimport exp, sqrt

cdef Py_ssize_t MAX_SORTED

# A board's items as a C pointer (fast.board: an array.array of signed bytes or shorts in this
# build). No bounds check: only for indexes the caller knows are inside the board.
cdef inline signed char* cells8(cpython.array.array board) noexcept:
    return board.data.as_schars

cdef inline short* cells16(cpython.array.array board) noexcept:
    return board.data.as_shorts

# A tensor buffer (array.array("d")) as a C pointer at item ``at``; the caller checks the fit.
cdef inline double* doubles(cpython.array.array buffer, Py_ssize_t at) noexcept:
    return buffer.data.as_doubles + at

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, p=cython.p_double)
cpdef put_doubles(cpython.array.array buffer, Py_ssize_t at, list values)
@cython.locals(n=Py_ssize_t, i=Py_ssize_t, p=cython.p_double, zero=object, item=object)
cpdef list float_list(cpython.array.array buffer)
cpdef zero_doubles(cpython.array.array buffer, Py_ssize_t at, Py_ssize_t n)
@cython.locals(row=cython.p_schar, i=Py_ssize_t, a=Py_ssize_t)
cpdef put_flags(cpython.array.array buffer, Py_ssize_t at, Py_ssize_t width, list items)
@cython.locals(n=Py_ssize_t, i=Py_ssize_t, key=Py_ssize_t)
cpdef list gather(list table, list keys)
@cython.locals(lo=Py_ssize_t, hi=Py_ssize_t, mid=Py_ssize_t, item=long)
cpdef Py_ssize_t bisect_left(list items, long x) except -1
@cython.locals(i=Py_ssize_t, item=long)
cpdef insort(list items, long x)
@cython.locals(i=Py_ssize_t, item=long)
cpdef remove(list items, long x)
@cython.locals(at=cython.p_short, ok=cython.p_uchar, n=Py_ssize_t, i=Py_ssize_t, y=int,
               out=list)
cpdef list accepted_sorted(list cells, cpython.array.array codes, bytes accept, int barred,
                          list values)
cdef list _accepted_sorted(list cells, object codes, bytes accept, int barred, list values)

cdef class RowSums:
    cdef readonly list rows
    cdef readonly Py_ssize_t width
    cdef cpython.array.array flat, out
    cdef readonly dict cache
    cdef readonly Py_ssize_t cache_size

@cython.locals(width=Py_ssize_t, flat=cython.p_int, acc=cython.p_int, row=cython.p_int,
               a=Py_ssize_t, k=Py_ssize_t)
cdef int* row_sums(RowSums table, list keys) except NULL
