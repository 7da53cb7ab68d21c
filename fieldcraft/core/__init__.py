"""The shared game API (see :mod:`fieldcraft.core.api`)."""

from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    FieldcraftError,
    Game,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
    State,
    UnknownGameError,
    random_playout,
    sample_chance,
    shuffle,
)
from fieldcraft.core.registry import default_ruleset, list_games, load_game, register_game

__all__ = [
    "CHANCE",
    "TERMINAL",
    "FieldcraftError",
    "Game",
    "IllegalActionError",
    "MalformedActionError",
    "RulesetError",
    "State",
    "UnknownGameError",
    "default_ruleset",
    "list_games",
    "load_game",
    "random_playout",
    "register_game",
    "sample_chance",
    "shuffle",
]
