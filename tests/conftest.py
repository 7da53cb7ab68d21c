"""Shared fixtures: the (game, players, overrides) grid that the conformance suite runs over."""

from __future__ import annotations

from fieldcraft.core.registry import _game_class, default_ruleset, list_games


def game_configs() -> list[tuple[str, int, dict]]:
    """Every registered game at every supported player count, with each of its test configs."""
    configs = []
    for name in list_games():
        rules = default_ruleset(name)
        for overrides in _game_class(name).test_configs:
            for players in range(rules["min_players"], rules["max_players"] + 1):
                configs.append((name, players, overrides))
    return configs


def config_id(config: tuple[str, int, dict]) -> str:
    name, players, overrides = config
    extra = "-".join(f"{k}={v}" for k, v in sorted(overrides.items()))
    return f"{name}-{players}p" + (f"-{extra}" if extra else "")
