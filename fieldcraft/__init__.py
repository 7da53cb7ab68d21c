"""fieldcraft: rules engines, bots and tools for four espionage-themed tabletop games."""

from fieldcraft.core import (
    CHANCE,
    TERMINAL,
    FieldcraftError,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
    UnknownGameError,
    default_ruleset,
    list_games,
    load_game,
)

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "TERMINAL",
    "FieldcraftError",
    "IllegalActionError",
    "MalformedActionError",
    "RulesetError",
    "UnknownGameError",
    "default_ruleset",
    "list_games",
    "load_game",
]
