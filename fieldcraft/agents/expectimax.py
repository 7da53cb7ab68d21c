"""The game's own search policy: ``search_choose`` in its ``bot.py``, for games where a
hand-written search over the rules beats the generic ISMCTS.

Why a separate agent: ISMCTS fixes every chance outcome of an iteration before the tree is
walked, so in a dice game it judges a choice made *before* the roll as if the roll were known
(Against the Current: the token is chosen, then the die is rolled). A game's ``bot.py`` may
offer ``search_choose(view, rng, **options) -> int`` that keeps chance as chance (expectimax
over the outcomes). This agent finds it next to the game's heuristic (``SPEC.bot``) and calls
it; a game without one gets the heuristic bot, so the agent can be made for any game.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from fieldcraft.agents.heuristic import HeuristicAgent


class ExpectimaxAgent:
    """Dispatches to the game's ``search_choose``; seeded, so decisions repeat."""

    name = "expectimax"

    def __init__(self, seed: int | None = None, **options: Any):
        self.rng = random.Random(seed)
        self.options = options
        self._fallback = HeuristicAgent(seed=seed)

    def act(self, view: Any) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        policy = search_policy(view.game)
        if policy is None:
            return self._fallback.act(view)
        action = policy(view, self.rng, **self.options)
        if action not in legal:  # a policy bug must not reach the table as an illegal move
            raise AssertionError(f"{view.game.name} search_choose chose illegal action {action}")
        return action


def search_policy(game: Any) -> Any:
    """The ``search_choose`` beside the game's heuristic bot, or ``None`` if it has none."""
    bot = game.spec.optional("bot")
    module = sys.modules.get(getattr(bot, "__module__", "")) if bot is not None else None
    return getattr(module, "search_choose", None)


__all__ = ["ExpectimaxAgent", "search_policy"]
