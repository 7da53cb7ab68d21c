"""A game's notation: the names of its actions, reading them back, and the log lines.

One class per game (in its folder's ``notation.py``), made once per ``Game`` and asked with the
state in hand, so the rules module knows nothing of wording. Each legal action also comes as a
structured :class:`Choice` (``kind`` and ``args`` beside the English ``label``), so a board or a
translation never has to parse the label: the wording is for people, the choice is the API.
"""

from __future__ import annotations

from typing import Any, TypedDict

from fieldcraft.core.errors import MalformedActionError
from fieldcraft.core.text import Event


class Choice(TypedDict):
    """One legal action as a front end needs it."""

    action: int
    label: str
    kind: str
    args: dict[str, Any]


class Notation:
    """Names, parsing and per-seat log lines of one game's actions.

    Subclasses implement :meth:`action_to_string` and :meth:`string_to_action` (exact inverses
    for every action, chance outcomes included) and :meth:`choice`; :meth:`describe_action`
    shows decisions to everyone and hides chance outcomes unless overridden.
    """

    def __init__(self, game: Any):
        self.game = game

    def action_to_string(self, state: Any, action: int) -> str:
        raise NotImplementedError

    def string_to_action(self, state: Any, text: str) -> int:
        raise NotImplementedError

    def choice(self, state: Any, action: int) -> tuple[str, dict[str, Any]]:
        """``(kind, args)`` of a legal action: what a board needs to place it (a cell, a card, a
        seat) without reading its label."""
        raise NotImplementedError

    def describe_action(self, state: Any, action: int, seat: int | None) -> str | None:
        """The log line ``seat`` (``None``: a spectator) sees when ``action`` is applied to
        ``state``; ``None`` if that seat sees nothing. Called before applying."""
        if state.is_chance_node():
            return None
        return f"seat {state.current_player()}: {self.action_to_string(state, action)}"

    def event(self, state: Any, action: int, seat: int | None) -> Event | None:
        """What ``seat`` (``None``: a spectator) is told when ``action`` is applied to
        ``state``, for people: a ``log.<key>`` of the game's catalogues and its parameters
        (``None``: nothing to tell). Called before applying.

        Beside :meth:`describe_action` (the compact English line an information state and the
        golden replays keep), this is what a table's log and the terminal show, rendered per
        reader and language. The default tells a decision to everyone as its choice: key
        ``<kind>`` with the choice's args and the acting ``seat``; chance is told to nobody
        unless a game overrides it (a deal, a roll, one line for the whole setup)."""
        if state.is_chance_node():
            return None
        kind, args = self.choice(state, action)
        return {"key": kind, "params": {**args, "seat": state.current_player()}}

    def summary(self, state: Any) -> dict[str, Any] | None:
        """A finished game's final-scores table and why it ended, for the end screen.

        ``{"columns": [{"key", "ns"?}], "rows": [{"seat", "winner", "values": {key: v}}],
        "reason": Event}``: column headers are the catalogue's ``col.<key>``, a value is shown
        through namespace ``ns`` when the column names one (a role, an animal), the reason is
        ``end.<key>``. ``None`` before the end. The default lists the seats' returns."""
        if not state.is_terminal():
            return None
        returns = state.returns()
        winners = set(state.winners())
        return {
            "columns": [{"key": "return"}],
            "rows": [{"seat": s, "winner": s in winners, "values": {"return": r}}
                     for s, r in enumerate(returns)],
            "reason": {"key": "winners" if winners else "nobody",
                       "params": {"winners": sorted(winners)}},
        }

    def choices(self, state: Any) -> list[Choice]:
        """Every legal action of the seat to move, in ``legal_actions`` order."""
        out: list[Choice] = []
        for action in state.legal_actions():
            kind, args = self.choice(state, action)
            out.append({"action": action, "label": self.action_to_string(state, action),
                        "kind": kind, "args": args})
        return out


def normalize(text: str) -> str:
    """Case and spacing as typed do not matter when reading an action back."""
    return " ".join(text.lower().split())


def require_text(text: Any) -> str:
    if not isinstance(text, str):
        raise MalformedActionError(f"{text!r} is not an action string")
    return text
