"""Bots. An agent sees a :class:`View` of its own seat, never the true state.

The view offers what a person at that seat has: the observation, the legal choices and their
names, and (for search bots) ``resample`` to imagine the hidden cards. Keeping the true state out
of reach is what makes a bot's play fair at a table of people.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from fieldcraft.core.api import FieldcraftError, State


class View:
    """What one seat may use to decide: its observation, legal actions and resampling."""

    __slots__ = ("_state", "seat")

    def __init__(self, state: State, seat: int):
        self._state = state
        self.seat = seat

    def observation(self) -> dict[str, Any]:
        return self._state.observation(self.seat)

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions()

    def action_to_string(self, action: int) -> str:
        return self._state.action_to_string(action)

    def resample(self, rng: random.Random) -> State:
        """A full state consistent with everything this seat knows (for search)."""
        return self._state.resample(self.seat, rng)


class Agent(Protocol):
    name: str

    def act(self, view: View) -> int: ...


class RandomAgent:
    """Uniformly random legal actions: the baseline every other bot must beat."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def act(self, view: View) -> int:
        legal = view.legal_actions()
        return legal[self.rng.randrange(len(legal))]


AGENTS = {"random": RandomAgent}


def make_agent(name: str, seed: int | None = None) -> Agent:
    """Create an agent by name (``random``)."""
    if name not in AGENTS:
        raise FieldcraftError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}")
    return AGENTS[name](seed=seed)


__all__ = ["AGENTS", "Agent", "RandomAgent", "View", "make_agent"]
