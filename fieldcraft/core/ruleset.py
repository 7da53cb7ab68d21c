"""Ruleset loading: a game's defaults from its ``ruleset.json``, overrides checked against them.

Every value a designer may change lives in the game folder's ``ruleset.json``. Overrides are
merged into a copy after checking that every key exists and every value has the shape of the
default it replaces, so a typo in a balance study fails at once instead of silently running the
default rules. The player counts are part of the game's declaration, not of its rules; they are
shown in a resolved ruleset (first) so that a study's ruleset file says everything.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

from fieldcraft.core.errors import RulesetError
from fieldcraft.core.spec import GameSpec

FIXED_KEYS = ("min_players", "max_players", "default_players")
"""Keys of a resolved ruleset that describe the game rather than a rule a designer may change."""


@cache
def _ruleset_text(package: str) -> str:
    return resources.files(package).joinpath("ruleset.json").read_text(encoding="utf-8")


def default_ruleset(spec: GameSpec) -> dict[str, Any]:
    """A fresh copy of a game's default ruleset, player counts first (safe to modify)."""
    rules = json.loads(_ruleset_text(spec.package))
    fixed = {"min_players": spec.min_players, "max_players": spec.max_players,
             "default_players": spec.default_players}
    clash = sorted(set(rules) & set(fixed))
    if clash:
        raise RulesetError(f"{spec.id}: ruleset.json must not set {', '.join(clash)} (the "
                           "player counts are declared in the game's SPEC)")
    return {**fixed, **rules}


def check_shape(default: Any, value: Any, path: str, nullable: bool = False) -> None:
    """Raise :class:`RulesetError` unless ``value`` has the shape of ``default`` (or is
    ``None`` for a key the game declares nullable: a limit whose ``null`` means "none")."""
    if nullable and value is None:
        return
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
                check_shape(proto, item, f"{path}[{i}]")
    elif isinstance(default, dict):
        ok = isinstance(value, dict)
        if ok:
            for key, item in value.items():
                if key in default:
                    check_shape(default[key], item, f"{path}.{key}")
    else:
        ok = True
    if not ok:
        raise RulesetError(
            f"ruleset value {path} must be {type(default).__name__} like the default "
            f"{default!r}, got {value!r}"
        )


def resolve(spec: GameSpec, players: int | None, overrides: dict[str, Any]
            ) -> tuple[int, dict[str, Any]]:
    """The player count (the default if ``None``) and the ruleset with ``overrides`` applied,
    each checked."""
    ruleset = default_ruleset(spec)
    if players is None:
        players = spec.default_players
    if isinstance(players, bool) or not isinstance(players, int):
        raise RulesetError(f"players must be an int, got {players!r}")
    if not spec.min_players <= players <= spec.max_players:
        raise RulesetError(
            f"{spec.id} is for {spec.min_players}-{spec.max_players} players, not {players}"
        )
    for key, value in overrides.items():
        if key in FIXED_KEYS:
            raise RulesetError(f"{key} is fixed by the game and cannot be overridden")
        if key not in ruleset:
            known = ", ".join(k for k in sorted(ruleset) if k not in FIXED_KEYS)
            raise RulesetError(f"unknown ruleset key {key!r} for {spec.id}; known keys: {known}")
        check_shape(ruleset[key], value, key, key in spec.nullable_keys)
        ruleset[key] = copy.deepcopy(value)
    return players, ruleset
