"""The registry: every game package found, each known by the ``SPEC`` it declares.

Games are found, not listed: each package under ``fieldcraft.games`` (and under any folder named
in the ``FIELDCRAFT_GAMES_PATH`` environment variable, ``os.pathsep``-separated) whose
``__init__`` sets ``SPEC`` is a game. A package's ``__init__`` imports nothing heavy (its modules
are named as strings), so listing the games imports no engine, and adding a game never means
editing a shared list.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
from typing import Any

from fieldcraft.core.api import Game
from fieldcraft.core.errors import UnknownGameError
from fieldcraft.core.ruleset import default_ruleset as _default_ruleset
from fieldcraft.core.ruleset import resolve
from fieldcraft.core.spec import GameSpec

GAMES_PATH_ENV = "FIELDCRAFT_GAMES_PATH"

_SPECS: dict[str, GameSpec] = {}
_SEARCHED: set[str] = set()


def _discover() -> None:
    """Import each game package not looked at yet and keep its ``SPEC``."""
    import fieldcraft.games as games

    for folder in os.environ.get(GAMES_PATH_ENV, "").split(os.pathsep):
        if folder and folder not in games.__path__:
            games.__path__.append(folder)
    for info in pkgutil.iter_modules(games.__path__):
        if info.name in _SEARCHED:
            continue
        _SEARCHED.add(info.name)
        module = importlib.import_module(f"fieldcraft.games.{info.name}")
        spec = getattr(module, "SPEC", None)
        if isinstance(spec, GameSpec) and spec.id not in _SPECS:
            _SPECS[spec.id] = spec


def register_game(spec: GameSpec) -> None:
    """Register a game that lives outside ``fieldcraft.games`` (its package is importable)."""
    _SPECS[spec.id] = spec


def list_games() -> list[str]:
    _discover()
    return sorted(_SPECS)


def game_spec(name: str) -> GameSpec:
    """The declaration of a registered game; :class:`UnknownGameError` if there is none."""
    spec = _SPECS.get(name)
    if spec is None:
        _discover()
        spec = _SPECS.get(name)
        if spec is None:
            raise UnknownGameError(
                f"unknown game {name!r}; known games: {', '.join(list_games())}")
    return spec


def default_ruleset(name: str) -> dict[str, Any]:
    """A fresh copy of a game's default ruleset (safe to modify)."""
    return _default_ruleset(game_spec(name))


def load_game(name: str, players: int | None = None, **overrides: Any) -> Game:
    """Create a game by id with a player count and optional ruleset overrides.

    Raises :class:`UnknownGameError` for an unknown id and :class:`RulesetError` for an unknown
    override key, a value of the wrong shape, or a player count the game does not support.
    """
    spec = game_spec(name)
    players, ruleset = resolve(spec, players, overrides)
    game = spec.resolve(spec.rules)(spec, players, ruleset, overrides)
    game._reduce = (shared_game, (name, players, json.dumps(overrides, sort_keys=True)))
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
