# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and base.py stays the source. The state's fields as C fields of the first class of its
# chain, in the order of base.py's annotations (the conformance suite checks the class; a field
# missing here fails to compile), and the game's per-step tables as C fields.
cimport cython
cimport cpython.array
from fieldcraft.core cimport fast
from fieldcraft.core.api cimport Game, State

cdef class UndercoverTables(Game):
    cdef public int w2
    cdef public list a2p, p2a, take_of
    cdef public tuple diag
    cdef public bint classified, has_jokers, tokens_distinct, end_when_stuck
    cdef public bint bottom_ignores_ban, diag_agents_only, evaluate_first_round
    cdef public int first_evaluated_turn, flip_steps, multiplier, lane_size, track_len
    cdef public int black_line, past_line_to_end, tokens_to_end, last_turn
    cdef public bint blocked_last
    cdef public list column_values, token_values, faces, meetings
    cdef public int TAKE, DRAW_TOP, DRAW_BOTTOM, TAKE_JOKER, FLIP, KEEP, DEAL, COLOUR, FIRST, TOKEN
    cdef public list setup_steps, setup_choosers, laid_slices
    cdef public dict deal_odds, token_odds

cdef class UndercoverFields(State):
    cdef public list actions
    cdef public int setup_i, start
    cdef public list colour
    cdef public int cur, phase, turn
    cdef public bint end_trig
    cdef public str ended_by
    cdef public cpython.array.array grid, gcol, nmask
    cdef public list frontier, tcol, tcell, up, revealed
    cdef public list piles
    cdef public int held, origin
    cdef public bint flipped
    cdef public list files, pos, frozen, occ, tokens, taken, ntaken, last_tok
    cdef public list final_scores, final_winners
    cdef public bint tiebreak_used
    cdef public list agent_cells
    @cython.locals(new=UndercoverFields)
    cpdef clone(self)
