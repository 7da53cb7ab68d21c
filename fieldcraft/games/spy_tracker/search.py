"""What search may use in Spy Tracker: resampling hands, a quick evaluation, the bids worth
trying, a policy for the other seats and the weight their bids lend a guessed deal.

Settings, measured against the heuristic bot (``benchmarks/strength.py``, tournaments) and
declared in the package's ``SPEC``: ``heuristic_returns`` reads a determinised deal well and
random bids do not, so rollouts stop at once (depth 0). Opponents answer with
``policy_action`` (from their own hands) instead of being searched in the shared tree, where
they would in effect see the searcher's hand: that took ISMCTS from about a third of 2-player
games against the heuristic bot to most of them. With the opponents' replies as branches, the
searcher's next choice is worth growing after 5 visits (tree-searched opponents needed 30).
Exploration stays at the usual 0.7: the measurements were made with it.
"""

from __future__ import annotations

import random

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from fieldcraft.core import fast
from fieldcraft.core.search import SearchModel

from .game import BIDDING, CALL, CHOOSING, NUM_ATTRIBUTES, NUM_SPIES, SPOT, SpyTrackerGame
from .rules import SpyTrackerState

# Weight of an opponent bid its own hand makes unlikely, next to one it makes sure (1 + floor):
# people bluff and are sometimes forced to bid, so an unlikely bid is rare, not impossible.
BELIEF_FLOOR = 0.05
# The quick policy's weights, as in the heuristic bot: a bid passes the risk on (the round goes
# on) and a right SPOT also scores.
BID_DISCOUNT = 0.85
HAND_CACHE = 50_000  # hands whose trait counts ``hand_counts`` keeps
SEARCH_BIDS_PER_TRAIT = 2  # counts per trait a search tries (see ``search_actions``)
SPOT_BONUS = 1.15


class SpyTrackerSearch(SearchModel):
    """One per game; holds the tables its answers are cached in."""

    game: SpyTrackerGame

    def __init__(self, game: SpyTrackerGame):
        super().__init__(game)
        self._tails: dict[int, list[float]] = {}
        self._search_cache: dict[tuple[int, int, int, int], list[int]] = {}
        self._hand_counts: dict[tuple[int, ...], tuple[int, ...]] = {}
        # What each card adds to each trait's count, for policy_action (fast.row_sums).
        self._trait_rows = fast.RowSums(game.card_delta, HAND_CACHE)

    # -- tables -----------------------------------------------------------------------------------
    # The work is in the module's functions below (C functions in the compiled build), which the
    # search calls directly rather than through these methods.
    def hand_counts(self, hand: list[int]) -> tuple[int, ...]:
        """What ``hand`` adds to each trait's count (cached; see ``_hand_counts``)."""
        return _hand_counts(self._hand_counts, self.game.card_delta, hand)

    def tail_chance(self, hidden: int, need: int) -> float:
        """P(the ``hidden`` cards a seat cannot see add at least ``need`` to a trait's count)
        (see ``_tail_chance``)."""
        return _tail_chance(self._tails, self.game, hidden, need)

    def tail_table(self, hidden: int) -> list[float]:
        """``tail_chance`` for every ``need`` at once: entry ``need + hidden`` (cached)."""
        return _tail_table(self._tails, self.game, hidden)

    # -- the model ------------------------------------------------------------------------------
    @cython.locals(state=SpyTrackerState, sample=SpyTrackerState, hidden=list,
                   needed=cython.Py_ssize_t, last=cython.Py_ssize_t, i=cython.Py_ssize_t,
                   j=cython.Py_ssize_t, r=cython.double, used=cython.Py_ssize_t,
                   size=cython.Py_ssize_t, other=cython.int, hand=list, g=SpyTrackerGame,
                   history=list, ids=list, c=cython.Py_ssize_t, pool=list)
    def resample(self, state: SpyTrackerState, seat: int, rng: random.Random
                 ) -> SpyTrackerState:
        """Re-deal every card ``seat`` cannot see (other live hands and the undealt pool) keeping
        hand sizes, and rewrite this round's deal actions to match so the sample's history
        replays to the sample and cannot be read for the true hands."""
        g = self.game
        sample = state.clone()
        # Every card is in the pool or in one hand, so the cards the seat cannot see are the
        # deck without its own hand, in order (canonical: it depends on what the seat knows,
        # not on the true deal). The deck is sorted, so each of the seat's cards is found by
        # bisection (a ruleset's deck can leave spies out: ids are not always its indices).
        hidden = g.deck[:]
        for c in sample.hands[seat]:
            del hidden[fast.bisect_left(hidden, c)]
        # Only the other hands need random cards (the pool is kept sorted), so shuffle just
        # their share into the front: a partial Fisher-Yates, a fraction of a full shuffle.
        needed = len(hidden) - len(sample.pool)
        random_ = rng.random
        last = len(hidden)
        for i in range(needed):
            r = random_()
            j = i + int(r * (last - i))
            hidden[i], hidden[j] = hidden[j], hidden[i]
        used = 0
        for other, hand in enumerate(sample.hands):
            if other != seat:
                size = len(hand)
                sample.hands[other] = hidden[used : used + size]
                used += size
        pool = hidden[used:]
        pool.sort()
        sample.pool = pool
        history = sample.actions
        # This round's deal is one run of actions from ``deal_start``, seat after seat, each
        # hand in the order it was dealt: rewrite the other seats' stretches of it (with the
        # game's prepared action ints, see ``deal_actions``).
        i = sample.deal_start
        for other, hand in enumerate(sample.hands):
            if other != seat:
                ids = g.deal_actions[other]
                history[i : i + len(hand)] = [ids[c] for c in hand]
            i += len(hand)
        return sample

    @cython.locals(state=SpyTrackerState, sources=list, rivals=list, points=list, weights=list,
                   i=cython.Py_ssize_t, s=cython.double, p=cython.double, w=cython.double,
                   total=cython.double, scale=cython.double)
    def heuristic_returns(self, state: SpyTrackerState) -> list[float] | None:
        """Win chances guessed from Sources and points, so search can stop rollouts early.

        A seat's weight grows with its active Sources and sharply with points (each point is a
        third of the way to winning by default); eliminated seats have none.
        """
        if state.winner >= 0:
            return state.returns()
        sources: list[float] = list(state.sources)
        if (state.phase == BIDDING or state.phase == CHOOSING) and state.bid_count > 0:
            # Search calls this on a determinised state, where every hand is known: a false
            # standing bid will likely be called (its bidder loses a Source); a true one leaves
            # whoever must answer it in a spot (half a Source, as an expectation; while the
            # bidder is still choosing who answers, that cost is shared by the candidates).
            if state.true_count(state.bid_attr) < state.bid_count:
                sources[state.bidder] -= 1
            elif state.phase == BIDDING:
                sources[state.player] -= 0.5
            else:
                rivals = [r for r, n in enumerate(state.sources) if n and r != state.bidder]
                for rival in rivals:
                    sources[rival] -= 0.5 / len(rivals)
        # Sources over the starting number, times (1 + points) squared (a constant factor
        # does not change the normalised result, so the division by start_sources is left out),
        # added up in order (as ``sum`` does, and the same in both builds).
        points = state.points
        weights = []
        total = 0.0
        for i in range(len(sources)):
            s = sources[i]
            p = points[i]
            w = s * (1.0 + p) * (1.0 + p) if s > 0 else 0.0
            weights.append(w)
            total += w
        if total <= 0:
            return [1.0 / len(weights)] * len(weights)
        scale = 1.0 / total
        return [w * scale for w in weights]

    @cython.locals(state=SpyTrackerState, g=SpyTrackerGame, count=cython.int, attr=cython.int)
    def search_actions(self, state: SpyTrackerState) -> list[int]:
        """Challenges, and per trait the two lowest counts still open to this seat.

        A higher bid on the same trait is less likely to be true and rarely better for it; the
        full bid list runs to hundreds of actions, which would spread a search too thin. Bids
        already made this round are left out whatever the ruleset says (a repeat tells the
        table nothing new).
        """
        if state.phase != BIDDING:
            return state.legal_actions()
        g = self.game
        count, attr = state.bid_count, state.bid_attr
        key = (count, attr, state.in_play, state.traits_bid_at_count() if count >= 0 else 0)
        out = self._search_cache.get(key)
        if out is None:
            made = key[3]
            out = [CALL, SPOT] if count >= 0 else []
            cap = g.round_cap(state.in_play)
            for a in range(NUM_ATTRIBUTES):
                k = g.min_bid if count < 0 else (count if a != attr else count + 1)
                kept = 0
                while k <= cap and kept < SEARCH_BIDS_PER_TRAIT:
                    if k != count or not made >> a & 1:
                        out.append(g.bid_action(k, a, count >= 0 and k > count))
                        kept += 1
                    k += 1
            out.sort()
            self._search_cache[key] = out
        return out[:]

    @cython.locals(phase=cython.int, seat=cython.int, hidden=cython.int, size=cython.Py_ssize_t,
                   count=cython.int, attr=cython.int, best=cython.int, best_value=cython.double,
                   j=cython.int, at_least=cython.double, above=cython.double, spot=cython.double,
                   made=cython.int, cap=cython.int, low=cython.int, start=cython.int, i=cython.int,
                   a=cython.int, k=cython.int, have=cython.int, value=cython.double,
                   r=cython.double, table=list, hand=list, state=SpyTrackerState,
                   g=SpyTrackerGame, s=cython.int, n=cython.int, p=cython.int,
                   top_points=cython.int, top_sources=cython.int, top_draw=cython.double,
                   counts=cython.p_int)
    def policy_action(self, state: SpyTrackerState, rng: random.Random) -> int:
        """A quick decision for the seat to move from its own hand and the public bids only:
        the heuristic bot's rule (challenge or bid by the odds its hand gives) on cached odds.

        Search uses it as the model of the other players, who then decide from their own cards
        rather than, as in a shared search tree, from the searcher's.
        """
        g = self.game
        phase = state.phase
        seat = state.player
        if phase == CHOOSING:
            # The rival with the most points, then the most Sources, ties broken by a draw: the
            # tuple (points, Sources, draw) compared as C values, one draw per rival in order.
            best, top_points, top_sources, top_draw = -1, -1, -1, -1.0
            for s in range(len(state.sources)):
                n = state.sources[s]
                if n and s != state.bidder:
                    p = state.points[s]
                    r = rng.random()
                    if p > top_points or p == top_points and (
                            n > top_sources or n == top_sources and r > top_draw):
                        best, top_points, top_sources, top_draw = s, p, n, r
            return g.next_base + best
        if phase != BIDDING:
            legal = state.legal_actions()
            return legal[int(rng.random() * len(legal))]
        hand = state.hands[seat]
        hidden = state.in_play - len(hand)
        # table[need + hidden] = P(the hidden cards add at least ``need``)
        table = _tail_table(self._tails, g, hidden)
        size = len(table)
        counts = fast.row_sums(self._trait_rows, hand)  # the hand's count of each trait
        count, attr = state.bid_count, state.bid_attr
        best, best_value = -1, -1.0
        if count >= 0:
            have = counts[attr]
            j = count - have + hidden
            at_least = 1.0 if j <= 0 else (table[j] if j < size else 0.0)
            j += 1
            above = 1.0 if j <= 0 else (table[j] if j < size else 0.0)
            best, best_value = CALL, 1.0 - at_least
            spot = (at_least - above) * SPOT_BONUS
            if spot > best_value:
                best, best_value = SPOT, spot
        made = state.traits_bid_at_count() if count >= 0 else 0
        cap = g.round_cap(state.in_play)
        low = g.min_bid
        r = rng.random()
        start = int(r * NUM_ATTRIBUTES)  # ties go to a random trait
        for i in range(NUM_ATTRIBUTES):
            a = (start + i) % NUM_ATTRIBUTES
            if count < 0:
                k = low
            else:
                k = count if a != attr else count + 1
            if k == count and made >> a & 1:
                k += 1
            if k > cap:
                continue
            have = counts[a]
            j = k - have + hidden
            value = 1.0 if j <= 0 else (table[j] if j < size else 0.0)
            value *= BID_DISCOUNT
            if value > best_value:
                best, best_value = g.bid_action(k, a, count >= 0 and k > count), value
        if best < 0:  # every bid made and no challenge possible (cannot happen in play)
            legal = state.legal_actions()
            return legal[int(rng.random() * len(legal))]
        return best

    @cython.locals(state=SpyTrackerState, seat=cython.int, g=SpyTrackerGame, bids=list,
                   hands=list, delta=list, tails=dict, in_play=cython.int, weight=cython.double,
                   i=cython.Py_ssize_t, bidder=cython.int, hand=list, row=list, mine=cython.int,
                   c=cython.Py_ssize_t)
    def belief_weight(self, state: SpyTrackerState, seat: int) -> float | None:
        """Plausibility of the other hands (in a resampled state) given this round's bids.

        People bid what their own cards make likely: each opponent bid of ``k`` on a trait is
        weighted by the chance, seen from the bidder's hand alone, that at least ``k`` are in
        play (plus a floor, for bluffs and forced bids). Without this a searcher treats an
        opponent's "5 in Moscow" as if it said nothing about the bidder's cards. ``None`` when
        no opponent has bid this round (public, so the same for every resample): nothing to
        weigh, and search can skip drawing a pool.
        """
        bids = state.bids
        for i in range(0, len(bids), 4):
            if bids[i] != seat:
                break
        else:
            return None
        g = self.game
        tails = self._tails
        hands, delta = state.hands, g.delta
        in_play = state.in_play
        weight = 1.0
        for i in range(0, len(bids), 4):
            bidder = bids[i]
            if bidder == seat:
                continue
            hand = hands[bidder]
            row = delta[bids[i + 3]]
            mine = 0
            for c in hand:
                mine += row[c]
            weight *= BELIEF_FLOOR + _tail_chance(tails, g, in_play - len(hand),
                                                  bids[i + 2] - mine)
        return weight


def _hand_counts(cache: dict[tuple[int, ...], tuple[int, ...]], card_delta: list[tuple[int, ...]],
                 hand: list[int]) -> tuple[int, ...]:
    """What ``hand`` adds to each trait's count. Cached in ``cache``: a search asks it for the
    same few thousand hands (its pool of determinisations) hundreds of thousands of times, and
    the sum over the hand was a fifth of a policy-played search. The cache is emptied when it
    grows past ``HAND_CACHE`` hands, so memory stays bounded in long simulations."""
    key = tuple(hand)
    counts = cache.get(key)
    if counts is None:
        if len(cache) >= HAND_CACHE:
            cache.clear()
        if hand:
            counts = tuple(map(sum, zip(*[card_delta[c] for c in hand], strict=True)))
        else:
            counts = (0,) * NUM_ATTRIBUTES
        cache[key] = counts
    return counts


def _tail_chance(tails: dict[int, list[float]], g: SpyTrackerGame, hidden: int,
                 need: int) -> float:
    """P(the ``hidden`` cards a seat cannot see add at least ``need`` to a trait's count),
    each drawn independently with the whole deck's odds of +1 (a spy with the trait or a
    Mercenary) and -1 (a Traitor); cached, since belief weights ask it millions of times."""
    j = need + hidden
    if j <= 0:
        return 1.0
    table = _tail_table(tails, g, hidden)
    return table[j] if j < len(table) else 0.0


def _tail_table(tails: dict[int, list[float]], g: SpyTrackerGame, hidden: int) -> list[float]:
    """``_tail_chance`` for every ``need`` at once: entry ``need + hidden``, kept in ``tails``."""
    table = tails.get(hidden)
    if table is None:
        plus = (NUM_SPIES // 3 + g.num_mercenaries) / g.num_cards
        minus = g.num_traitors / g.num_cards
        dist = [1.0]  # dist[i]: P(sum = i - drawn so far)
        for _ in range(hidden):
            new = [0.0] * (len(dist) + 2)
            for i, p in enumerate(dist):
                new[i] += p * minus
                new[i + 1] += p * (1.0 - plus - minus)
                new[i + 2] += p * plus
            dist = new
        table = [0.0] * len(dist)  # table[j]: P(sum >= j - hidden)
        acc = 0.0
        for j in range(len(dist) - 1, -1, -1):
            acc += dist[j]
            table[j] = acc
        tails[hidden] = table
    return table
