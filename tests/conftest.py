"""Shared fixtures: the (game, players, overrides) grid that the conformance suite runs over."""

from __future__ import annotations

from fieldcraft.core.registry import game_spec, list_games


def game_configs() -> list[tuple[str, int, dict]]:
    """Every registered game at every supported player count, with each of its test configs."""
    configs = []
    for name in list_games():
        spec = game_spec(name)
        for overrides in spec.test_configs:
            for players in spec.player_counts:
                configs.append((name, players, overrides))
    return configs


def config_id(config: tuple[str, int, dict]) -> str:
    name, players, overrides = config
    extra = "-".join(f"{k}={v}" for k, v in sorted(overrides.items()))
    return f"{name}-{players}p" + (f"-{extra}" if extra else "")
