# Cython declarations for the compiled build (docs/performance.md); grid.py stays the source.
# GridRules is the first rules class of the state's chain (base.pxd declares its fields): the
# methods every step calls are C methods with typed locals.
cimport cython
from fieldcraft.core cimport fast
from .base cimport UndercoverFields, UndercoverTables

cdef class GridRules(UndercoverFields):
    @cython.locals(g=UndercoverTables, grid=cython.p_schar, gcol=cython.p_schar,
                   nmask=cython.p_short, frontier=list, c=int, add=tuple, w2=int, z=int, m=int)
    cpdef _put(self, int tile, int y)
    @cython.locals(g=UndercoverTables, grid=cython.p_schar, gcol=cython.p_schar,
                   nmask=cython.p_short, frontier=list, tile=int, sub=tuple, w2=int, z=int, m=int)
    cpdef int _lift(self, int y) except? -1
    @cython.locals(tcell=list, old=int)
    cpdef _move_file(self, int seat, int tile)
    cdef _add_agent_cell(self, int y)
    @cython.locals(g=UndercoverTables, bad=int, gcol=cython.p_schar, take_of=list, acts=list, y=int,
                   tcol=list, draw=int, pile=list, joker=int)
    cdef list _activate_actions(self)
    @cython.locals(g=UndercoverTables, tcol=list, acts=list, tcell=list)
    cdef list _activate_fallback(self, int bad)
    @cython.locals(acts=list, barred=int)
    cdef list _place_actions(self)
    cdef list _place_fallback(self)
    @cython.locals(ok=tuple, nmask=object, cells=list, origin=int)
    cdef list _place_cells(self)
    @cython.locals(g=UndercoverTables, gcol=object, nmask=object, grid=object, found=set,
                   barred=int, t=int, x=int, d=int, z=int)
    cdef list _diagonal_cells(self)
