"""The registry: every game package found, each known by the ``SPEC`` it declares.

Games are found, not listed: each package under ``fieldcraft.games`` (and under any folder named
in the ``FIELDCRAFT_GAMES_PATH`` environment variable, ``os.pathsep``-separated) whose
``__init__`` sets ``SPEC`` is a game. A package's ``__init__`` imports nothing heavy (its modules
are named as strings), so listing the games imports no engine, and adding a game never means
editing a shared list.
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import pkgutil
from functools import cache
from importlib import resources
from typing import Any

from fieldcraft.core.api import Game
from fieldcraft.core.errors import RulesetError, UnknownGameError
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


VARIANTS_FILE = "variants.json"


@cache
def _variants_of(package: str) -> dict[str, dict[str, Any]]:
    """The named variants a game package declares in ``variants.json``, checked for shape
    once (each value's keys are checked against the ruleset when a game is made)."""
    path = resources.files(package).joinpath(VARIANTS_FILE)
    if not path.is_file():
        return {}
    found = json.loads(path.read_text(encoding="utf-8"))
    for key, entry in found.items():
        if not (isinstance(entry, dict) and isinstance(entry.get("rules"), dict)
                and isinstance(entry.get("about", ""), str)):
            raise RulesetError(f"{package}: variant {key!r} in {VARIANTS_FILE} must be an "
                               'object with "rules" (ruleset overrides) and "about" (a line)')
    return found


def game_variants(spec: GameSpec) -> dict[str, dict[str, Any]]:
    """A fresh copy of the named variants ``spec``'s package declares (see :func:`variants`)."""
    return copy.deepcopy(_variants_of(spec.package))


def variants(name: str) -> dict[str, dict[str, Any]]:
    """A game's named variants (``variants.json`` in its package; none if it has no such file):
    each name's ``about`` (one line for people) and ``rules`` (the ruleset overrides it stands
    for). A fresh copy, safe to modify."""
    return game_variants(game_spec(name))


def variant_overrides(name: str, variant: str | None, overrides: dict[str, Any]
                      ) -> dict[str, Any]:
    """The ruleset overrides that ``variant`` and explicit ``overrides`` make together: the
    variant's, with every explicit override on top (an explicit key wins, so a study can vary
    one rule of a variant). A variant is only a name for a set of overrides, so the result is
    all a game needs to be rebuilt (pickling, a shared game, a study's ruleset file).

    A game whose own ruleset has a key ``variant`` (Undercover's ``"classified"``) declares no
    named variant under that key's values: there ``variant`` is that ruleset key, as it was
    before named variants existed. Otherwise an unknown name raises :class:`RulesetError`
    listing the known ones.
    """
    if variant is None:
        return dict(overrides)
    spec = game_spec(name)
    known = game_variants(spec)
    if variant in known:
        return {**known[variant]["rules"], **overrides}
    if "variant" in _default_ruleset(spec):
        return {"variant": variant, **overrides}
    names = ", ".join(sorted(known)) or "none"
    raise RulesetError(f"unknown variant {variant!r} for {name}; known variants: {names}")


def load_game(name: str, players: int | None = None, variant: str | None = None,
              **overrides: Any) -> Game:
    """Create a game by id with a player count, optionally a named variant (a set of ruleset
    overrides the game declares, see :func:`variants`), and optional ruleset overrides, which
    win over the variant's.

    Raises :class:`UnknownGameError` for an unknown id and :class:`RulesetError` for an unknown
    variant, an unknown override key, a value of the wrong shape, or a player count the game
    does not support.
    """
    spec = game_spec(name)
    overrides = variant_overrides(name, variant, overrides)
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
