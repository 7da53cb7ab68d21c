"""The heuristic bot: each game's hand-written policy, found through the game's declaration.

A game's folder may hold ``bot.py`` with ``choose(view, rng) -> int`` written from the rules'
logic, named by its ``SPEC.bot``. A game without one falls back to a one-step lookahead on the
game's ``heuristic_returns`` over a few determinisations, so every game has some heuristic bot.
"""

from __future__ import annotations

import random
from typing import Any

from fieldcraft.core.api import CHANCE, TERMINAL


class HeuristicAgent:
    """Dispatches to the game's hand-written policy; seeded, so decisions repeat."""

    name = "heuristic"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self._policies: dict[str, Any] = {}

    def act(self, view: Any) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        name = view.game.name
        policy = self._policies.get(name)
        if policy is None:
            policy = view.game.spec.optional("bot") or lookahead
            self._policies[name] = policy
        action = policy(view, self.rng)
        if action not in legal:  # a policy bug must not reach the table as an illegal move
            raise AssertionError(f"{name} heuristic chose illegal action {action}")
        return action


def lookahead(view: Any, rng: random.Random, samples: int = 4) -> int:
    """Pick the action whose outcome ``heuristic_returns`` rates best for this seat, averaged
    over a few determinisations (chance resolved by sampling up to the next decision)."""
    legal = view.legal_actions()
    seat = view.seat
    best, best_value = legal[0], -1.0
    worlds = [view.resample(rng) for _ in range(samples)]
    for action in legal:
        total = 0.0
        for world in worlds:
            state = world.clone()
            state._apply(action)
            while state.current_player() == CHANCE:
                state.play_chance(rng)
            if state.current_player() == TERMINAL:
                total += state.returns()[seat]
            else:
                estimate = state.heuristic_returns()
                total += estimate[seat] if estimate is not None else 0.5
        value = total / samples + rng.random() * 1e-6  # random tie-break
        if value > best_value:
            best, best_value = action, value
    return best
