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
from math import exp, sqrt

from fieldcraft.core.api import shuffle
from fieldcraft.core.search import SearchModel

from .layout import (
    A_SHUFFLE,
    AFTER_ROLL,
    ANIMALS,
    END,
    ROLL,
    STOP_RESULT,
    TOKEN,
    TOKENS,
    TRIB,
)
from .rules import AgainstTheCurrentGame, AgainstTheCurrentState

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
        for j, e in enumerate(rest):
            c.actions[start + j] = A_SHUFFLE + e
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
        g = self.game
        n = g.num_players
        if state.phase < TOKEN:
            return [1.0 / n] * n
        sanct = g.sanctuary
        eta, speed, boost = self.race_model()

        pos, stop, animal = state.pos, state.stop, state.animal
        cur = state.seat
        pending = state.phase in (TOKEN, ROLL, AFTER_ROLL)  # the mover has not moved yet
        first = state.first if state.first >= 0 else 0
        to_move = (cur - first) % n + (0 if pending else 1)  # seats of this round still to go
        # Tributaries left, best first; a token waiting to claim one takes the best.
        free = sorted((v for i, v in enumerate(g.tributaries) if state.claimed[i] < 0),
                      reverse=True)
        score = [float(x) for x in state.scores()]
        if state.phase == TRIB and state.trib_of[state.mover] < 0 and free:
            score[state.mover // TOKENS] += free.pop(0)

        times: list[float] = []  # per unarrived token: expected arrival time (rounds)
        var: list[float] = []
        owner: list[int] = []
        order: list[int] = []  # place in its owner's queue
        # When each seat's third token arrives (for the tie-break); finished seats first.
        last = [-10.0 + state.finish.index(s) if s in state.finish else 0.0 for s in range(n)]
        for s in range(n):
            a = animal[s]
            base = TOKENS * s
            mine = [t for t in range(base, base + TOKENS) if pos[t] < sanct]
            if not mine:
                continue
            sp = speed[a]
            rs = []
            for t in mine:
                r = eta[a][pos[t]]
                if stop[t] == 1:
                    r += 0.3 if len(mine) > 1 else 1.0
                if state.wave[t]:
                    r += 0.8 / sp
                if state.shelter[t]:
                    r -= 0.7 / sp
                if state.support[t]:
                    r -= 0.2 / sp
                rs.append(r)
            rs.sort()
            # A live Pressure Marker may worsen a landing of this seat later in this round.
            if (s - first) % n >= to_move or (s == cur and pending):
                for o in range(n):
                    card = state.pressure[o]
                    if card < 0 or o == s:
                        continue
                    ahead = (card + g.wheel_shift * state.rot) % g.cards + 1
                    hit = sum(1 for t in mine if 1 <= ahead - pos[t] <= g.die_sides)
                    rs[0] += hit / (g.die_sides * len(mine)) / sp
            total = sum(rs)
            bonus = 0.0
            if not state.boost_used[s]:
                bonus += boost[a] * (0.85 if state.squeeze[s] else 1.0)
            if not state.pressure_used[s]:
                bonus += 0.15
            # Mostly the leading token is moved, so that is where the ability will be used;
            # its worth fades with the turns left to use it in.
            rs[0] -= bonus * min(1.0, total / 8.0) / sp
            if state.detour[s] and len(rs) > 1:  # next turn goes to the rearmost token
                rs[0] += 1.0
                rs[-1] -= 1.0
            if s == cur and pending:
                offset = 0.0
            else:
                offset = ((s - cur) % n or n) / n
            c = 0.0
            for k, r in enumerate(rs):
                c += r if r > 0.2 else 0.2  # a token still needs part of a turn at least
                times.append(c - 1.0 + offset)
                var.append(1.2 * c + 0.05)  # fitted to heuristic self-play outcomes
                owner.append(s)
                order.append(k)
            last[s] = c - 1.0 + offset

        m = len(times)
        spread = [0.0] * n  # variance of each seat's score
        before = [0.0] * m  # expected number of unarrived tokens arriving earlier
        for i in range(m):
            ti, vi, oi = times[i], var[i], owner[i]
            for j in range(i + 1, m):
                if owner[j] == oi:
                    if order[j] < order[i]:
                        before[i] += 1.0
                    else:
                        before[j] += 1.0
                    continue
                x = 1.7 * (times[j] - ti) / sqrt(vi + var[j])
                p = 1.0 / (1.0 + exp(-x)) if x > -30.0 else 0.0  # i arrives before j
                before[j] += p
                before[i] += 1.0 - p
                pq = p * (1.0 - p)
                spread[oi] += pq
                spread[owner[j]] += pq
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
                    value = free[k] * (1.0 - frac) + free[k + 1] * frac
                score[owner[i]] += value
        else:
            step = 1.0
        # Pairs of seats are not independent: every other seat's tokens shuffle their places
        # too, so the spread of a score difference grows with the table (fitted, as above).
        spread_k = 1.5 * n
        win = []
        for s in range(n):
            w = 1.0
            for o in range(n):
                if o == s:
                    continue
                diff = score[s] - score[o] + (0.3 if last[s] < last[o] else -0.3)
                floor = 0.25 if state.left[s] or state.left[o] else 1e-4
                sd = sqrt(spread_k * step * step * (spread[s] + spread[o]) + floor)
                x = 1.7 * diff / sd
                w *= 1.0 / (1.0 + exp(-x)) if x > -30.0 else 0.0
            win.append(w)
        total = sum(win)
        if total <= 0.0:
            return [1.0 / n] * n
        return [w / total for w in win]
