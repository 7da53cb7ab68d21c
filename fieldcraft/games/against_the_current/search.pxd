# Cython declarations for the compiled build (docs/performance.md); the pure build ignores this
# file and search.py stays the source. The race model runs on C ints and doubles: its per-token
# and per-seat tables are fixed-size C arrays sized for the largest table (4 seats, 12 tokens;
# search.py refuses more seats before filling them, and every index is a seat below
# num_players, a token count below 3 per seat or a token below 3 * num_players). The resample
# sees the typed state; the layout numbers are C ints.
cimport cython
from fieldcraft.core cimport fast
from fieldcraft.core.api cimport shuffle
from .game cimport AgainstTheCurrentGame
from .rules cimport AgainstTheCurrentState

cdef int A_SHUFFLE, AFTER_ROLL, END, ROLL, STOP_RESULT, TOKEN, TOKENS, TRIB, MAX_PLAYERS

@cython.locals(n=int, sanct=int, sides=int, cur=int, first=int, to_move=int, pending=bint,
               claimed=list, free=list, scores=list, finish=list, pos=list, stop=list,
               animal=list, eta_a=tuple,
               score=double[4], last=double[4], spread=double[4], win=double[4],
               times=double[12], var=double[12], before=double[12], owner=int[12],
               order=int[12], mine=int[3], rs=double[3],
               m=int, s=int, a=int, count=int, t=int, k=int, j=int, o=int, i=int, card=int,
               ahead=int, hit=int, oi=int, ki=int, oj=int, top=int,
               sp=double, r=double, total=double, bonus=double, offset=double, c=double,
               ti=double, vi=double, bi=double, si=double, x=double, p=double, pq=double, step=double, rank=double,
               frac=double, low=double, high=double, value=double, spread_k=double, w=double, diff=double,
               floor=double, sd=double)
cdef list _race_returns(AgainstTheCurrentState state, AgainstTheCurrentGame g, list eta,
                        list speed, tuple boost)
