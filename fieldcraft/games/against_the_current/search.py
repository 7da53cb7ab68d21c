"""What search may use in Against the Current: re-dealing the event pile, and a race model that
reads each seat's chance of winning off the board.

Settings, measured and declared in the package's ``SPEC``: search scores a leaf by
``heuristic_returns`` at once (``rollout_depth=0``): at equal time this won 64.7% of 150
2-player games against rollouts played to the end, and 57% of 100 against rollouts cut after 5
random decisions (each leaf is also 2-2.5 times cheaper). The die does not branch the tree
(``chance_nodes=0``): letting it (``chance_nodes=6``) lost 8 of 9 two-player games to open-loop
search at equal iterations, since six subtrees per move share too few visits. Exploration and
growth stay at the defaults the measurements were made with.
"""

from __future__ import annotations

import random

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from fieldcraft.core import fast
from fieldcraft.core.api import shuffle
from fieldcraft.core.search import SearchModel

from .game import AgainstTheCurrentGame
from .layout import (
    A_SHUFFLE,
    AFTER_ROLL,
    ANIMALS,
    END,
    MAX_PLAYERS,
    ROLL,
    STOP_RESULT,
    TOKEN,
    TOKENS,
    TRIB,
)
from .rules import AgainstTheCurrentState

BOOST_SPACES = (1.5, 2.5, 1.5, 3.5)
"""Spaces an unused Boost is worth at its best use, by animal: Regeneration and Slip Through
turn a -2 into PASS when one comes up; Echolocation sidesteps a -2 or a STOP; Migration Burst
always moves 2 more and can sidestep too. The race model and the heuristic bot share them."""
AVOID = 0.35
"""Share of bad landings a player sidesteps by choosing which token to move."""

RaceModel = tuple[list[tuple[float, ...]], list[float], tuple[float, ...]]


class AgainstTheCurrentSearch(SearchModel):
    """One per game; holds the race model, solved once from the river's terrain mix."""

    game: AgainstTheCurrentGame

    def __init__(self, game: AgainstTheCurrentGame):
        super().__init__(game)
        self._race_model: RaceModel | None = None

    @cython.locals(state=AgainstTheCurrentState, c=AgainstTheCurrentState, top=cython.int,
                   start=cython.int, j=cython.int, rest=list, actions=list)
    def resample(self, state: AgainstTheCurrentState, seat: int, rng: random.Random
                 ) -> AgainstTheCurrentState:
        """Re-deal the undrawn event pile (nobody has seen it), rewriting the shuffle's chance
        outcomes in the history so the sample still replays to itself."""
        c = state.clone()
        top = c.pile_top
        rest = sorted(c.pile[top:])  # canonical: the sample depends on what is known, not on
        shuffle(rest, rng)  # the true order, so bots decide alike in indistinguishable states
        c.pile[top:] = rest
        start = c.pile_hist + top
        actions = c.actions
        for j in range(len(rest)):
            actions[start + j] = A_SHUFFLE + rest[j]
        return c

    def race_model(self) -> RaceModel:
        """``(eta, speed, boost)``: ``eta[animal][position]`` is the expected number of its
        owner's turns a token there still needs (value iteration over the river's setup mix,
        a little milder than the raw mix because a player picks the token with the kinder
        landing), ``speed`` the spaces an animal makes a turn, ``boost`` :data:`BOOST_SPACES`."""
        model = self._race_model
        if model is None:
            g = self.game
            sanct = g.sanctuary
            counts = g.setup_mix
            sides = g.die_sides
            eta = []
            for a in range(len(ANIMALS)):
                dist: dict[int, float] = {}
                for terr, c in enumerate(counts):
                    r = g.table[a][terr]
                    w = c / g.cards * (1.0 - AVOID if r < 0 else 1.0)
                    dist[r] = dist.get(r, 0.0) + w
                    if r < 0:
                        dist[0] = dist.get(0, 0.0) + c / g.cards * AVOID
                e = [0.0] * (sanct + 1)
                for _ in range(40):  # value iteration; backward steps make it a fixed point
                    for p in range(sanct - 1, -1, -1):
                        total = 0.0
                        for d in range(1, sides + 1):
                            x = p + d
                            if x >= sanct:
                                continue
                            for r, q in dist.items():
                                if r == 1:
                                    total += q * (e[x + 1] if x + 1 < sanct else 0.0)
                                elif r == STOP_RESULT:
                                    total += q * (e[x] + 0.3)
                                else:
                                    total += q * e[x + r if x + r > 0 else 0]
                        e[p] = 1.0 + total / sides
                eta.append(tuple(e))
            speed = [sanct / e[0] for e in eta]  # spaces per turn, to price bonuses in turns
            model = self._race_model = (eta, speed, BOOST_SPACES)
        return model

    def heuristic_returns(self, state: AgainstTheCurrentState) -> list[float] | None:
        """Each seat's win chance guessed from the race, so search can stop rollouts early.

        Why a race model: a random rollout of this game runs for hundreds of steps and picks
        tributaries at random, so its result says little; the race itself is easy to read.
        Each token on the river needs ``eta[animal][position]`` more of its owner's turns
        (:meth:`race_model`). A player moves one token a turn, so its tokens arrive one after
        another, nearest first; seat order turns those turn counts into times. Pairwise chances
        that one token beats another give each token's expected place in the arrival order,
        hence the tributary it will claim, hence expected scores; their spread gives the chance
        of finishing on top. Unused abilities count as a little progress; STOP, Detour, Pressure
        Wave and a live Pressure Marker on the next landing squares as a little lost progress.
        """
        if state.phase == END:
            return state.returns()
        n = self.game.num_players
        if state.phase < TOKEN:
            return [1.0 / n] * n
        model = self._race_model  # solved once; read directly, as this runs every iteration
        eta, speed, boost = model if model is not None else self.race_model()
        return _race_returns(state, self.game, eta, speed, boost)


def _race_returns(state: AgainstTheCurrentState, g: AgainstTheCurrentGame,
                  eta: list[tuple[float, ...]], speed: list[float], boost: tuple[float, ...]
                  ) -> list[float]:
    """:meth:`AgainstTheCurrentSearch.heuristic_returns` once a turn is under way.

    Most of a search iteration is spent here, so the compiled build runs it on C ints and
    doubles (``search.pxd``): the per-token and per-seat tables are fixed-size arrays there,
    sized for the largest table (12 tokens, 4 seats), which is why they are made that size
    here, and every sum is written out in the order Python's ``sum`` takes, so both builds give
    the same bits."""
    n = g.num_players
    if n > MAX_PLAYERS:  # the arrays below hold 4 seats' tokens
        raise ValueError(f"the race model is sized for {MAX_PLAYERS} players, not {n}")
    sanct = g.sanctuary
    sides = g.die_sides
    pos, stop, animal = state.pos, state.stop, state.animal
    cur = state.seat
    pending = state.phase in (TOKEN, ROLL, AFTER_ROLL)  # the mover has not moved yet
    first = state.first if state.first >= 0 else 0
    to_move = (cur - first) % n + (0 if pending else 1)  # seats of this round still to go
    # Tributaries left, best first; a token waiting to claim one takes the best.
    claimed = state.claimed
    free = [v for i, v in enumerate(g.tributaries) if claimed[i] < 0]
    free.sort(reverse=True)
    scores = state.scores()
    score = [0.0] * 4
    for s in range(n):
        score[s] = float(scores[s])
    if state.phase == TRIB and state.trib_of[state.mover] < 0 and free:
        score[state.mover // TOKENS] += free.pop(0)

    # Per unarrived token: expected arrival time (rounds), its variance, owner and place in
    # its owner's queue; ``m`` of them.
    times = [0.0] * 12
    var = [0.0] * 12
    owner = [0] * 12
    order = [0] * 12
    m = 0
    # When each seat's third token arrives (for the tie-break); finished seats first.
    last = [0.0] * 4
    finish = state.finish
    for s in range(n):
        if s in finish:
            last[s] = -10.0 + finish.index(s)
    mine = [0] * 3  # the seat's unarrived tokens (TOKENS at most), ``count`` of them
    rs = [0.0] * 3  # their remaining turns, kept ascending as they are added
    for s in range(n):
        a = animal[s]
        count = 0
        for t in range(TOKENS * s, TOKENS * s + TOKENS):
            if pos[t] < sanct:
                mine[count] = t
                count += 1
        if not count:
            continue
        sp = speed[a]
        eta_a = eta[a]
        for k in range(count):
            t = mine[k]
            r = eta_a[pos[t]]
            if stop[t] == 1:
                r += 0.3 if count > 1 else 1.0
            if state.wave[t]:
                r += 0.8 / sp
            if state.shelter[t]:
                r -= 0.7 / sp
            if state.support[t]:
                r -= 0.2 / sp
            j = k  # insert r after every value not above it (a stable sort, as list.sort)
            while j > 0 and rs[j - 1] > r:
                rs[j] = rs[j - 1]
                j -= 1
            rs[j] = r
        # A live Pressure Marker may worsen a landing of this seat later in this round.
        if (s - first) % n >= to_move or (s == cur and pending):
            for o in range(n):
                card = state.pressure[o]
                if card < 0 or o == s:
                    continue
                ahead = (card + g.wheel_shift * state.rot) % g.cards + 1
                hit = 0
                for k in range(count):
                    if 1 <= ahead - pos[mine[k]] <= sides:
                        hit += 1
                rs[0] += hit / (sides * count) / sp
        total = 0.0
        for k in range(count):
            total += rs[k]
        bonus = 0.0
        if not state.boost_used[s]:
            bonus += boost[a] * (0.85 if state.squeeze[s] else 1.0)
        if not state.pressure_used[s]:
            bonus += 0.15
        # Mostly the leading token is moved, so that is where the ability will be used;
        # its worth fades with the turns left to use it in.
        rs[0] -= bonus * min(1.0, total / 8.0) / sp
        if state.detour[s] and count > 1:  # next turn goes to the rearmost token
            rs[0] += 1.0
            rs[count - 1] -= 1.0
        if s == cur and pending:
            offset = 0.0
        else:
            offset = ((s - cur) % n or n) / n
        c = 0.0
        for k in range(count):
            r = rs[k]
            c += r if r > 0.2 else 0.2  # a token still needs part of a turn at least
            times[m] = c - 1.0 + offset
            var[m] = 1.2 * c + 0.05  # fitted to heuristic self-play outcomes
            owner[m] = s
            order[m] = k
            m += 1
        last[s] = c - 1.0 + offset

    spread = [0.0] * 4  # variance of each seat's score
    before = [0.0] * 12  # expected number of unarrived tokens arriving earlier
    for i in range(m):
        ti, vi, oi, ki = times[i], var[i], owner[i], order[i]
        # Token i's and its owner's sums are kept in locals through its row: nothing else
        # adds to them meanwhile, so the additions keep their order.
        bi, si = before[i], spread[oi]
        for j in range(i + 1, m):
            oj = owner[j]
            if oj == oi:
                if order[j] < ki:
                    bi += 1.0
                else:
                    before[j] += 1.0
                continue
            x = 1.7 * (times[j] - ti) / fast.sqrt(vi + var[j])
            p = 1.0 / (1.0 + fast.exp(-x)) if x > -30.0 else 0.0  # i arrives before j
            before[j] += p
            bi += 1.0 - p
            pq = p * (1.0 - p)
            si += pq
            spread[oj] += pq
        before[i], spread[oi] = bi, si
    if free:
        step = (free[0] - free[-1]) / (len(free) - 1) if len(free) > 1 else 1.0
        top = len(free) - 1
        for i in range(m):
            rank = before[i]
            k = int(rank)
            if k >= top:
                value = float(free[top])
            else:
                frac = rank - k
                low, high = free[k], free[k + 1]
                value = low * (1.0 - frac) + high * frac
            score[owner[i]] += value
    else:
        step = 1.0
    # Pairs of seats are not independent: every other seat's tokens shuffle their places
    # too, so the spread of a score difference grows with the table (fitted, as above).
    spread_k = 1.5 * n
    win = [0.0] * 4
    total = 0.0
    for s in range(n):
        w = 1.0
        for o in range(n):
            if o == s:
                continue
            diff = score[s] - score[o] + (0.3 if last[s] < last[o] else -0.3)
            floor = 0.25 if state.left[s] or state.left[o] else 1e-4
            sd = fast.sqrt(spread_k * step * step * (spread[s] + spread[o]) + floor)
            x = 1.7 * diff / sd
            w *= 1.0 / (1.0 + fast.exp(-x)) if x > -30.0 else 0.0
        win[s] = w
        total += w
    if total <= 0.0:
        return [1.0 / n] * n
    return [win[s] / total for s in range(n)]
