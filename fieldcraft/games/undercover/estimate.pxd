# Cython declarations for the compiled build (docs/performance.md); estimate.py stays the source.
# The expected-score model's hot functions with C signatures and typed locals: search.py reaches
# them with C calls. Float arithmetic runs on C doubles in the source's order of operations.
cimport cython
from .base cimport UndercoverTables

# The model's constants, read only inside this module, as C values so that its arithmetic stays
# in C (a Python global in a sum makes Cython box the other operand); the compiled module does
# not expose them as attributes.
cdef tuple STEP_P, GRAB_P
cdef double SLACK, GAMMA_POW, TEMP0, TEMP1

cpdef tuple blank(int players)

@cython.locals(f=list, x=int, ev=cython.double, k=int, pk=cython.double, t=int, v=int,
               later=cython.double, dist=int)
cpdef tuple token_outlook(list tokens, list occ, int base, int last, int p)

@cython.locals(g=UndercoverTables, bank=list, open_=list, grabs=list, work=list, done=list,
               base=int, times=int, values=list, end=int, line=int, s=int, p=int, m=int,
               nxt=int, last=int, i=int, f=list, dist=int, first=int)
cpdef list add_lane(UndercoverTables game, int lane, list opposite, list pos, list occ,
                    list tokens, list last_tok, list frozen, list taken, tuple into,
                    int keep=*)

cpdef double reach(double work, double lead) except? -1.0

cpdef double temperature(double lead) except? -1.0

@cython.locals(seats=object, s=int)
cpdef list open_scores(bint classified, list bank, list open_, list work, double lead)

@cython.locals(top=cython.double, x=cython.double, exps=list, total=cython.double,
               e=cython.double)
cpdef list win_chances(list scores, double temp)
