"""Game registry and ruleset loading.

Games are registered by id with the dotted path of their ``Game`` class, so importing fieldcraft
does not import every engine. Each game's defaults live in a ``ruleset.json`` beside its code;
``load_game`` merges caller overrides into a copy after checking that every key exists and every
value has the shape of the default it replaces, so a typo in a balance study fails at once instead
of silently running the default rules.
"""

from __future__ import annotations

import copy
import importlib
import json
import pkgutil
from functools import cache
from importlib import resources
from typing import Any

from fieldcraft.core.api import Game, RulesetError, UnknownGameError

_REGISTRY: dict[str, str] = {}
_DISCOVERED = False


def _discover() -> None:
    """Register every package under ``fieldcraft.games`` that names its game.

    A game package's ``__init__`` sets ``GAME_ID`` and ``GAME_CLASS`` (and imports nothing heavy),
    so adding a game never means editing a shared list.
    """
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    import fieldcraft.games as games

    for info in pkgutil.iter_modules(games.__path__):
        module = importlib.import_module(f"fieldcraft.games.{info.name}")
        game_id = getattr(module, "GAME_ID", None)
        if game_id and game_id not in _REGISTRY:
            _REGISTRY[game_id] = module.GAME_CLASS

# Keys every ruleset has that describe the game rather than a rule a designer may change.
_FIXED_KEYS = ("min_players", "max_players", "default_players")


def register_game(name: str, target: str) -> None:
    """Register a game id; ``target`` is ``"package.module:ClassName"``."""
    _REGISTRY[name] = target


def list_games() -> list[str]:
    _discover()
    return sorted(_REGISTRY)


def _game_class(name: str) -> type[Game]:
    _discover()
    if name not in _REGISTRY:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(list_games())}")
    module_name, _, class_name = _REGISTRY[name].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


@cache
def _default_ruleset_text(package: str) -> str:
    return resources.files(package).joinpath("ruleset.json").read_text(encoding="utf-8")


def default_ruleset(name: str) -> dict[str, Any]:
    """A fresh copy of a game's default ruleset (safe to modify)."""
    cls = _game_class(name)
    return json.loads(_default_ruleset_text(cls.__module__.rpartition(".")[0]))


def _check_shape(default: Any, value: Any, path: str) -> None:
    if isinstance(default, bool) or isinstance(value, bool):
        ok = isinstance(default, bool) and isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float))
    elif isinstance(default, str):
        ok = isinstance(value, str)
    elif isinstance(default, list):
        ok = isinstance(value, list)
        if ok and default:
            proto = default[0]
            for i, item in enumerate(value):
                _check_shape(proto, item, f"{path}[{i}]")
    elif isinstance(default, dict):
        ok = isinstance(value, dict)
        if ok:
            for key, item in value.items():
                if key in default:
                    _check_shape(default[key], item, f"{path}.{key}")
    else:
        ok = True
    if not ok:
        raise RulesetError(
            f"ruleset value {path} must be {type(default).__name__} like the default "
            f"{default!r}, got {value!r}"
        )


def load_game(name: str, players: int | None = None, **overrides: Any) -> Game:
    """Create a game by id with a player count and optional ruleset overrides.

    Raises :class:`UnknownGameError` for an unknown id and :class:`RulesetError` for an unknown
    override key, a value of the wrong shape, or a player count the game does not support.
    """
    cls = _game_class(name)
    ruleset = default_ruleset(name)
    if players is None:
        players = ruleset["default_players"]
    if isinstance(players, bool) or not isinstance(players, int):
        raise RulesetError(f"players must be an int, got {players!r}")
    if not ruleset["min_players"] <= players <= ruleset["max_players"]:
        raise RulesetError(
            f"{name} is for {ruleset['min_players']}-{ruleset['max_players']} players, "
            f"not {players}"
        )
    for key, value in overrides.items():
        if key in _FIXED_KEYS:
            raise RulesetError(f"{key} is fixed by the game and cannot be overridden")
        if key not in ruleset:
            known = ", ".join(k for k in sorted(ruleset) if k not in _FIXED_KEYS)
            raise RulesetError(f"unknown ruleset key {key!r} for {name}; known keys: {known}")
        _check_shape(ruleset[key], value, key)
        ruleset[key] = copy.deepcopy(value)
    game = cls(players, ruleset, overrides)
    return game


_shared: dict[tuple[str, int, str], Game] = {}


def shared_game(name: str, players: int, overrides: str) -> Game:
    """The one game per ruleset (overrides as sorted JSON) that unpickled states of this process
    share; see ``Game.__reduce__``."""
    key = (name, players, overrides)
    game = _shared.get(key)
    if game is None:
        if len(_shared) >= 64:  # a long-lived helper that has seen many rulesets
            _shared.clear()
        _shared[key] = game = load_game(name, players, **json.loads(overrides))
    return game
