"""fieldcraft: rules engines, bots and tools for four espionage-themed tabletop games."""

from fieldcraft.build import install_guard as _install_guard

_install_guard()  # before any hot module loads: a stale or unwanted extension module never runs

from fieldcraft.core import (  # noqa: E402
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
