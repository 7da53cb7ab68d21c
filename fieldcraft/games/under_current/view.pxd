# Cython declarations for the compiled build of view.py (docs/performance.md): the tensor
# written through a C pointer from the state's C fields. The pure build ignores this file.
cimport cython
from fieldcraft.core cimport fast
from .turns cimport TurnRules

@cython.locals(o_players=Py_ssize_t, o_phase=Py_ssize_t, o_current=Py_ssize_t,
               o_active=Py_ssize_t, o_start=Py_ssize_t, o_turn=Py_ssize_t, o_deck=Py_ssize_t,
               o_final=Py_ssize_t, o_final_left=Py_ssize_t, o_sizes=Py_ssize_t,
               o_hand=Py_ssize_t, o_role=Py_ssize_t, o_roles=Py_ssize_t, o_known=Py_ssize_t,
               vis=long, left=Py_ssize_t, hands=list, hand_known=list, s=Py_ssize_t,
               own=list, i=Py_ssize_t, hand=list, known=list, roles=list)
cdef _put_table(double* t, tuple offsets, TurnRules state, Py_ssize_t seat, Py_ssize_t n,
                Py_ssize_t c, Py_ssize_t current, list roles_block)
@cython.locals(o_row=Py_ssize_t, o_discard=Py_ssize_t, o_discard_order=Py_ssize_t,
               o_removed=Py_ssize_t, o_removed_unseen=Py_ssize_t, row=list, row_up=list,
               row_known=list, i=Py_ssize_t, at=Py_ssize_t, discard=list, removed=list,
               removed_known=list)
cdef _put_piles(double* t, dict at_, Py_ssize_t stride, TurnRules state, long vis)
@cython.locals(n=Py_ssize_t, o_identity=Py_ssize_t, o_pending=Py_ssize_t,
               o_receiver=Py_ssize_t, o_card=Py_ssize_t, o_effect=Py_ssize_t,
               o_target=Py_ssize_t, o_swap=Py_ssize_t, o_eliminated=Py_ssize_t,
               o_decl=Py_ssize_t, o_winner=Py_ssize_t, o_winners=Py_ssize_t, active=Py_ssize_t,
               pending=Py_ssize_t, effect=Py_ssize_t, at=Py_ssize_t, stride=Py_ssize_t,
               p=Py_ssize_t)
cdef _put_move(double* t, object view, TurnRules state, Py_ssize_t seat, long vis)
