"""Spy Tracker's secret: whether the standing bid is true, as a chance from the seat's hand.

A bid says "at least ``count`` cards show this trait" (Mercenaries add one, Traitors take one
away). A seat sees its own hand and how many cards the others hold; every other card of the
deck is equally likely to be any of those, so the chance that the bid is true is a
hypergeometric sum over how many of the hidden cards add or take away, computed exactly. This
is the knowledge the engine's ``resample`` draws from (bids are not read for hints: what a bid
suggests is the bidder's choice, not the seat's knowledge). A bid the seat's own hand already
makes true, whatever the others hold, has probability 1.
"""

from __future__ import annotations

from math import comb

from fieldcraft.core.deduction import Belief, GameDeduction, Secret

from .game import ATTRIBUTES, BIDDING, CHOOSING, SpyTrackerGame
from .rules import SpyTrackerState


class SpyTrackerDeduction(GameDeduction):
    game: SpyTrackerGame
    turn_word = "round"

    def secrets(self, state: SpyTrackerState, seat: int) -> list[Secret]:
        if state.bid_count < 0 or state.phase not in (BIDDING, CHOOSING):
            return []
        true = state.true_count(state.bid_attr) >= state.bid_count
        index = len(state.bids) // 4
        return [Secret(f"bid.{state.round}.{index}",
                       {"key": "bid_true", "params": {
                           "round": state.round, "count": state.bid_count,
                           "trait": ATTRIBUTES[state.bid_attr], "bidder": state.bidder}},
                       None, "true" if true else "false")]

    def belief(self, state: SpyTrackerState, seat: int, secrets: list[Secret]) -> Belief:
        if not secrets:
            return Belief()
        p = self.chance_true(state, seat)
        dist = {"true": p, "false": 1.0 - p}
        return Belief(exact={secrets[0].key: {v: q for v, q in dist.items() if q > 0.0}})

    def chance_true(self, state: SpyTrackerState, seat: int) -> float:
        """P(the standing bid is true | ``seat``'s hand), the other hands dealt uniformly from
        every card the seat does not hold."""
        g = self.game
        delta = g.delta[state.bid_attr]
        mine = state.hands[seat]
        own = sum(delta[c] for c in mine)
        held = set(mine)
        plus = sum(1 for c in g.deck if c not in held and delta[c] > 0)
        minus = sum(1 for c in g.deck if c not in held and delta[c] < 0)
        unseen = len(g.deck) - len(mine)
        zero = unseen - plus - minus
        hidden = sum(len(h) for s, h in enumerate(state.hands) if s != seat)
        need = state.bid_count
        ways = 0
        for i in range(min(plus, hidden) + 1):
            for j in range(min(minus, hidden - i) + 1):
                rest = hidden - i - j
                if rest > zero:
                    continue
                total = own + i - j
                if total < 0 and not g.negative_counts:
                    total = 0
                if total >= need:
                    ways += comb(plus, i) * comb(minus, j) * comb(zero, rest)
        return ways / comb(unseen, hidden)

    def turn(self, state: SpyTrackerState) -> int | None:
        return state.round
