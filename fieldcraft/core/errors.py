"""Every error fieldcraft raises on bad input, each with a stable namespaced ``code``.

The codes are what programs match on (the web table sends them to the page, tests assert them),
while the message is for people and may change. A front end maps a code to its own status (an
HTTP status, a WebSocket error) at its edge; nothing below the edge knows about transports.
"""

from __future__ import annotations


class FieldcraftError(Exception):
    """Base class for every error fieldcraft raises on bad input."""

    code = "fieldcraft.error"


class RulesetError(FieldcraftError, ValueError):
    """A ruleset override names an unknown key or gives a value of the wrong shape."""

    code = "rules.bad_ruleset"


class UnknownGameError(FieldcraftError, KeyError):
    """``load_game`` was asked for a game that is not registered."""

    code = "rules.unknown_game"

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else "unknown game"


class MalformedActionError(FieldcraftError, ValueError):
    """A string could not be read as any action of this game (a typo, not a rules question)."""

    code = "rules.malformed_action"


class IllegalActionError(FieldcraftError, ValueError):
    """A well-formed action that the rules do not allow in this state.

    Kept separate from :class:`MalformedActionError` (as python-chess does) so a user interface
    can say "that is not a move" apart from "that move is not allowed now".
    """

    code = "rules.illegal_action"
