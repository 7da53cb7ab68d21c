"""Bots. An agent sees a :class:`View` of its own seat, never the true state.

The view offers what a person at that seat has: the observation, the legal choices and their
names, and (for search bots) ``resample`` to imagine the hidden cards. Keeping the true state out
of reach is what makes a bot's play fair at a table of people.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from fieldcraft.core.api import FieldcraftError, Game, State


class View:
    """What one seat may use to decide: its observation, legal actions and resampling.

    ``game`` (the rules and tables: public knowledge) is exposed; the true state is not.
    """

    __slots__ = ("_state", "seat")

    def __init__(self, state: State, seat: int):
        self._state = state
        self.seat = seat

    @property
    def game(self) -> Game:
        return self._state.game

    def observation(self) -> dict[str, Any]:
        return self._state.observation(self.seat)

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions()

    def action_to_string(self, action: int) -> str:
        return self._state.action_to_string(action)

    def ply(self) -> int | None:
        """How many actions the game has seen (public: see ``State.ply``)."""
        return self._state.ply()

    def resample(self, rng: random.Random) -> State:
        """A full state consistent with everything this seat knows (for search)."""
        return self._state.resample(self.seat, rng)

    def resampler(self) -> Callable[[random.Random], State]:
        """``resample`` as a function, cheaper per draw when a search draws many."""
        return self._state.resampler(self.seat)

    def informed_resampler(self) -> Callable[[random.Random], State] | None:
        """Resamples in proportion to how plausible the other seats' public play makes them,
        where the game models it (``None``: it does not; use ``resampler``)."""
        return self._state.informed_resampler(self.seat)


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


def _heuristic(**options: Any) -> Agent:
    from fieldcraft.agents.heuristic import HeuristicAgent

    return HeuristicAgent(**options)


def _ismcts(**options: Any) -> Agent:
    from fieldcraft.agents.ismcts import ISMCTSAgent

    return ISMCTSAgent(**options)


def _expectimax(**options: Any) -> Agent:
    from fieldcraft.agents.expectimax import ExpectimaxAgent

    return ExpectimaxAgent(**options)


def _rollout(**options: Any) -> Agent:
    from fieldcraft.agents.rollout import RolloutAgent

    return RolloutAgent(**options)


AGENTS: dict[str, Any] = {"random": RandomAgent, "heuristic": _heuristic, "ismcts": _ismcts,
                          "expectimax": _expectimax, "rollout": _rollout}


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts(iterations=500, c=0.7)"`` -> ``("ismcts", {"iterations": 500, "c": 0.7})``."""
    text = spec.strip()
    name, sep, rest = text.partition("(")
    name = name.strip()
    options: dict[str, Any] = {}
    if sep:
        if not rest.endswith(")"):
            raise FieldcraftError(f"agent spec {spec!r} lacks a closing parenthesis")
        for part in rest[:-1].split(","):
            if not part.strip():
                continue
            key, eq, raw = part.partition("=")
            if not eq:
                raise FieldcraftError(f"agent option {part.strip()!r} should be key=value")
            raw = raw.strip()
            try:
                value: Any = int(raw)
            except ValueError:
                try:
                    value = float(raw)
                except ValueError:
                    value = raw
            options[key.strip()] = value
    return name, options


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Create an agent from a spec: ``random``, ``heuristic``, ``ismcts(time=1.0, c=0.7)``."""
    name, options = parse_agent_spec(spec)
    if name not in AGENTS:
        raise FieldcraftError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}")
    try:
        agent = AGENTS[name](seed=seed, **options)
    except TypeError as exc:
        raise FieldcraftError(f"bad options for agent {name!r}: {exc}") from None
    except ValueError as exc:
        raise FieldcraftError(f"bad options for agent {name!r}: {exc}") from None
    if options:
        agent.name = spec.strip()
    return agent


__all__ = ["AGENTS", "Agent", "RandomAgent", "View", "make_agent", "parse_agent_spec"]
