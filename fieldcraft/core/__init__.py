"""The shared game API (see :mod:`fieldcraft.core.api`)."""

from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    Choice,
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
from fieldcraft.core.registry import (
    default_ruleset,
    game_spec,
    list_games,
    load_game,
    register_game,
)
from fieldcraft.core.spec import GameInfo, GameSpec, GameType, SearchSettings

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Choice",
    "FieldcraftError",
    "Game",
    "GameInfo",
    "GameSpec",
    "GameType",
    "IllegalActionError",
    "MalformedActionError",
    "RulesetError",
    "SearchSettings",
    "State",
    "UnknownGameError",
    "default_ruleset",
    "game_spec",
    "list_games",
    "load_game",
    "random_playout",
    "register_game",
    "sample_chance",
    "shuffle",
]
