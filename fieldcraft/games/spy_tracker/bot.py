"""Spy Tracker heuristic bot: bid from the expected count given its own hand.

The seat knows its own cards; every other card in play is an unknown draw from the rest of the
deck. For each attribute, each unknown card adds +1 (a matching spy or a Mercenary), -1 (a
Traitor) or 0, so the hidden part of the count has a distribution we can compute exactly under
an independent-draw approximation. From it:

* CALL wins with probability P(true count < bid);
* SPOT wins with probability P(true count = bid), and a right SPOT also scores a point;
* a new bid is safe with probability P(true count >= its count); it does not end the round, so it
  is worth a little less than a sure challenge.

The bot takes the option with the best chance. After bidding it hands the turn to the leading
opponent (most points, then most Sources), who then has to answer a bid that is likely true.
"""

from __future__ import annotations

import random
from typing import Any

from .game import ATTRIBUTES, BID_BASE, CALL, NUM_ATTRIBUTES, SPOT

BID_DISCOUNT = 0.85  # a bid passes the risk on; the round goes on
SPOT_BONUS = 1.15  # a right SPOT also scores a point


def _hidden_distribution(plus: float, minus: float, cards: int) -> list[float]:
    """P(sum = s - cards) for ``cards`` independent +1/-1/0 draws; index 0 is -cards."""
    dist = [1.0]
    zero = 1.0 - plus - minus
    for _ in range(cards):
        new = [0.0] * (len(dist) + 2)
        for i, p in enumerate(dist):
            if p:
                new[i] += p * minus
                new[i + 1] += p * zero
                new[i + 2] += p * plus
        dist = new
    return dist


class _Odds:
    """P(true count >= k) and P(true count == k) for every attribute, from one seat's hand."""

    def __init__(self, view: Any, obs: dict[str, Any]):
        g = view.game
        hand = obs["hand"]
        unseen = [c for c in g.deck if c not in set(hand)]
        hidden = obs["cards_in_play"] - len(hand)
        self.offset: list[int] = []
        self.dist: list[list[float]] = []
        self.hidden = hidden
        self.floor_zero = not g.negative_counts
        for a in range(NUM_ATTRIBUTES):
            delta = g.delta[a]
            mine = sum(delta[c] for c in hand)
            plus = sum(1 for c in unseen if delta[c] > 0) / len(unseen)
            minus = sum(1 for c in unseen if delta[c] < 0) / len(unseen)
            self.offset.append(mine - hidden)  # true count of index i is offset + i
            self.dist.append(_hidden_distribution(plus, minus, hidden))

    def at_least(self, attr: int, count: int) -> float:
        start = count - self.offset[attr]
        dist = self.dist[attr]
        if start <= 0:
            return 1.0
        return sum(dist[start:])

    def exactly(self, attr: int, count: int) -> float:
        i = count - self.offset[attr]
        dist = self.dist[attr]
        p = dist[i] if 0 <= i < len(dist) else 0.0
        if self.floor_zero and count == 0:
            p = 1.0 - self.at_least(attr, 1)
        return p


def choose(view: Any, rng: random.Random) -> int:
    g = view.game
    obs = view.observation()
    legal = view.legal_actions()
    if obs["phase"] == "choosing next":
        base = g.next_base

        def threat(a: int) -> tuple[int, int, float]:
            s = a - base
            return (obs["points"][s], obs["sources"][s], rng.random())
        return max(legal, key=threat)
    if obs["phase"] != "bidding":
        return legal[int(rng.random() * len(legal))]
    odds = _Odds(view, obs)
    best, best_value = legal[0], -1.0
    current = obs["current_bid"]
    if current is not None:
        attr = ATTRIBUTES.index(current["attribute"])
        count = current["count"]
        options = [(CALL, 1.0 - odds.at_least(attr, count)),
                   (SPOT, odds.exactly(attr, count) * SPOT_BONUS)]
        for action, value in options:
            if action in legal and value > best_value:
                best, best_value = action, value
    # The rules allow a round to cycle through same-count bids for ever; never repeating a bid
    # of this round caps each count at nine bids, so bot rounds always end.
    made = {(b["count"], ATTRIBUTES.index(b["attribute"])) for b in obs["bids"]}
    for action in legal:
        if action < BID_BASE:
            continue
        base = g.raise_base if action >= g.raise_base else BID_BASE
        if action >= g.next_base:
            continue
        k, a = divmod(action - base, NUM_ATTRIBUTES)
        if (k + g.min_bid, a) in made:
            continue
        value = odds.at_least(a, k + g.min_bid) * BID_DISCOUNT
        # prefer the boldest bid among near-equals: it leaves opponents less room
        value += (k + g.min_bid) * 1e-4 + rng.random() * 1e-6
        if value > best_value:
            best, best_value = action, value
    return best
