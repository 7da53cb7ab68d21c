"""Lists of agent specs as the command line takes them (``--agents``).

A spec may carry arguments with commas of its own (``ismcts(time=1, c=0.5)``), so a list of
specs is split on the commas outside parentheses. Every command that plays several agents
(study, tournament, compare, tune) reads its list here, so they all read it alike.
"""

from __future__ import annotations


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
