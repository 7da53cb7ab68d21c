"""Against the Current's secret: the event pile, whose cards are known and whose order is not.

Every event card is face up once drawn and the discard is public, so everyone knows exactly
which cards the face-down pile still holds (a multiset); what nobody knows is their order. The
secret at each moment is the next card to be drawn, with the chance of each event its share of
the pile, and the joint uncertainty is the order of the whole pile: ``log2`` of the number of
distinct orders of the cards left. The next card is certain when the pile holds one kind.
"""

from __future__ import annotations

import math

from fieldcraft.core.deduction import Belief, GameDeduction, Secret

from .layout import EVENTS, SHUFFLE
from .rules import AgainstTheCurrentGame, AgainstTheCurrentState


class AgainstTheCurrentDeduction(GameDeduction):
    game: AgainstTheCurrentGame

    def secrets(self, state: AgainstTheCurrentState, seat: int) -> list[Secret]:
        if state.phase == SHUFFLE or state.pile_top >= len(state.pile):
            return []
        return [Secret(f"next.{state.pile_hist}.{state.pile_top}",
                       {"key": "next_event", "params": {"left": len(state.pile) - state.pile_top}},
                       "event", EVENTS[state.pile[state.pile_top]])]

    def belief(self, state: AgainstTheCurrentState, seat: int, secrets: list[Secret]) -> Belief:
        if not secrets:
            return Belief()
        counts: dict[str, int] = {}
        for e in state.pile[state.pile_top:]:
            counts[EVENTS[e]] = counts.get(EVENTS[e], 0) + 1
        left = sum(counts.values())
        orders = math.factorial(left)
        for c in counts.values():
            orders //= math.factorial(c)
        return Belief(exact={secrets[0].key: {e: c / left for e, c in counts.items()}},
                      joint_entropy=math.log2(orders), extra={"pile": dict(sorted(counts.items()))})
