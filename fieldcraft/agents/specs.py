"""Lists of agent specs as the command line takes them (``--agents``).

A spec may carry arguments with commas of its own (``ismcts(time=1, c=0.5)``), so a list of
specs is split on the commas outside parentheses. Every command that plays several agents
(study, tournament, compare, tune) reads its list here, so they all read it alike.

A list may also name bot levels (``strong,normal``). What a level plays differs per game
(Against the Current's Strong is an expectimax, Spy Tracker's an ISMCTS), so a level name is
resolved here, per game, through :mod:`fieldcraft.agents.levels`, the table the web seats its
bots from: a designer who asks for ``strong`` then measures the bot a player meets. Only the
level names are resolved; the web's historical ids (``ismcts``, ``heuristic``) keep meaning
the agent of that name, as they always did on the command line.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass


def split_agents(text: str) -> list[str]:
    """Split ``ismcts(time=1, c=0.5),heuristic`` on the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


@dataclass(frozen=True)
class AgentChoice:
    """One entry of ``--agents`` after level names are resolved: ``level`` is ``None`` for an
    agent spec given as such."""

    spec: str
    level: str | None = None

    @property
    def label(self) -> str:
        """How output names it: ``strong = ismcts(iterations=4000)``, or the spec alone."""
        return f"{self.level} = {self.spec}" if self.level else self.spec


def level_names() -> tuple[str, ...]:
    """The level names the table knows today (it may gain ``expert`` and more)."""
    from fieldcraft.agents import levels

    return tuple(levels.LEVELS)


def _level_spec(game: str, level: str, players: int | None) -> str:
    """The game's spec for ``level``, at ``players`` if the table has per-count specs (its
    ``level_spec`` then takes a ``players`` argument)."""
    from fieldcraft.agents import levels

    params = inspect.signature(levels.level_spec).parameters
    if players is not None and "players" in params:
        return str(levels.level_spec(game, level, players=players))
    return str(levels.level_spec(game, level))


def resolve_agents(game: str, specs: list[str], players: int | None = None
                   ) -> list[AgentChoice]:
    """``specs`` with every level name replaced by ``game``'s agent for it (at ``players``,
    where levels differ by player count); other specs pass through unchanged."""
    known = level_names()
    return [AgentChoice(_level_spec(game, s.lower(), players), s.lower())
            if s.lower() in known else AgentChoice(s) for s in specs]


def resolve_for_counts(game: str, specs: list[str], counts: list[int]) -> list[AgentChoice]:
    """:func:`resolve_agents` for a study over several player counts, which seats one list of
    agents at every count: a level that means different agents at two of the counts is an
    error (a ``ValueError`` naming them), not a silent pick of one."""
    chosen = resolve_agents(game, specs, counts[0] if counts else None)
    for p in counts[1:]:
        other = resolve_agents(game, specs, p)
        for a, b in zip(chosen, other, strict=True):
            if a.spec != b.spec:
                raise ValueError(f"level {a.level!r} is {a.spec} at {counts[0]} players and "
                                 f"{b.spec} at {p}; study one player count at a time")
    return chosen


def describe_levels(chosen: list[AgentChoice]) -> str:
    """``strong = ismcts(iterations=4000), normal = heuristic``: the levels a command resolved,
    for its printed output (empty when no level was named)."""
    return ", ".join(dict.fromkeys(c.label for c in chosen if c.level))
