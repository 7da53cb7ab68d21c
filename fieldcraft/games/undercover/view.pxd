# Cython declarations for the compiled build of view.py (docs/performance.md): the tensor
# written through a C pointer from the state's C fields. The pure build ignores this file.
cimport cython
from fieldcraft.core cimport fast
from .rules cimport UndercoverState

# The constants the writers compute with, as C values of this module (imported from grid.py
# and base.py, which stay their source).
cdef Py_ssize_t N_COLOURS, N_AGENTS, HQ0, JOKER0, LOC_HELD, LOC_SUPPLY, SETUP, OVER

@cython.locals(n=Py_ssize_t, cells=Py_ssize_t, npiles=Py_ssize_t, width=Py_ssize_t,
               length=Py_ssize_t, lane_size=Py_ssize_t, evaluate_first=bint,
               o_seat=Py_ssize_t, o_act=Py_ssize_t, o_phase=Py_ssize_t, o_clock=Py_ssize_t,
               o_end=Py_ssize_t, o_win=Py_ssize_t, o_agents=Py_ssize_t, o_jokers=Py_ssize_t,
               o_piles=Py_ssize_t, o_hand=Py_ssize_t, o_staff=Py_ssize_t, o_start=Py_ssize_t,
               o_colours=Py_ssize_t, o_opposite=Py_ssize_t, o_hq=Py_ssize_t,
               o_tokens=Py_ssize_t, o_frozen=Py_ssize_t, o_taken=Py_ssize_t,
               o_scores=Py_ssize_t, swaps=Py_ssize_t, scores=list, s=Py_ssize_t, where=list,
               xs=list, ys=list, other_face=list, constant_at=list, constant_value=list)
cdef _fill(double* t, tuple starts, tuple tables, UndercoverState state, Py_ssize_t seat)

@cython.locals(turn=Py_ssize_t, winners=list, i=Py_ssize_t, s=Py_ssize_t)
cdef _fill_clock(double* t, UndercoverState state, Py_ssize_t seat, Py_ssize_t n,
                 bint evaluate_first, Py_ssize_t o_seat, Py_ssize_t o_act, Py_ssize_t o_phase,
                 Py_ssize_t o_clock, Py_ssize_t o_end, Py_ssize_t o_win)

@cython.locals(y=Py_ssize_t, w=Py_ssize_t, k=Py_ssize_t, piles=list, pile=list,
               top=Py_ssize_t)
cdef Py_ssize_t _place(UndercoverState state, Py_ssize_t agent, list where, Py_ssize_t cells,
                       Py_ssize_t npiles) except? -1

@cython.locals(revealed=list, swaps=Py_ssize_t, c=Py_ssize_t, a=Py_ssize_t, wa=Py_ssize_t,
               wb=Py_ssize_t, swap=bint)
cdef Py_ssize_t _fill_agents(double* t, UndercoverState state, list where, list xs, list ys,
                             list other, Py_ssize_t cells, Py_ssize_t npiles, Py_ssize_t width,
                             Py_ssize_t o_agents) except? -1

@cython.locals(x_col=Py_ssize_t, colour_col=Py_ssize_t, c=Py_ssize_t, up=Py_ssize_t)
cdef _fill_agent(double* t, UndercoverState state, Py_ssize_t agent, Py_ssize_t w,
                 Py_ssize_t row, list xs, list ys, list other, Py_ssize_t cells,
                 Py_ssize_t npiles)

@cython.locals(file_col=Py_ssize_t, files=list, s=Py_ssize_t, f=Py_ssize_t, row=Py_ssize_t)
cdef _fill_files(double* t, UndercoverState state, Py_ssize_t swaps, Py_ssize_t n,
                 Py_ssize_t npiles, Py_ssize_t width, Py_ssize_t o_agents, Py_ssize_t o_jokers)

@cython.locals(s=Py_ssize_t, y=Py_ssize_t, at=Py_ssize_t, w=Py_ssize_t, piles=list,
               k=Py_ssize_t, pos=list, i=Py_ssize_t)
cdef _fill_table(double* t, UndercoverState state, list where, list xs, list ys, Py_ssize_t n,
                 Py_ssize_t npiles, Py_ssize_t o_jokers, Py_ssize_t o_piles, Py_ssize_t o_hand,
                 Py_ssize_t o_staff)

@cython.locals(i=Py_ssize_t, k=Py_ssize_t, colour=list, s=Py_ssize_t, c=Py_ssize_t,
               y=Py_ssize_t)
cdef _fill_setup(double* t, UndercoverState state, list constant_at, list constant_value,
                 Py_ssize_t n, Py_ssize_t o_start, Py_ssize_t o_colours, Py_ssize_t o_opposite,
                 Py_ssize_t o_hq)

@cython.locals(tokens=list, lane=Py_ssize_t, sp=Py_ssize_t, v=Py_ssize_t, at=Py_ssize_t,
               taken=list, i=Py_ssize_t)
cdef _fill_track(double* t, UndercoverState state, Py_ssize_t n, Py_ssize_t length,
                 Py_ssize_t lane_size, Py_ssize_t o_tokens, Py_ssize_t o_frozen,
                 Py_ssize_t o_taken)
