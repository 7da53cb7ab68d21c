"""The conformance suite (:mod:`fieldcraft.core.conformance`) for every registered game, at
every player count and test configuration: a game added to ``fieldcraft/games`` is checked here
without any edit."""

from __future__ import annotations

import pytest

from fieldcraft.core.conformance import CHECKS, configurations
from fieldcraft.core.registry import list_games, load_game


def _params() -> list:
    out = []
    for name in list_games():
        for players, overrides in configurations(name):
            extra = "-".join(f"{k}={v}" for k, v in sorted(overrides.items()))
            label = f"{name}-{players}p" + (f"-{extra}" if extra else "")
            for check in CHECKS:
                out.append(pytest.param(name, players, overrides, check, id=f"{check}[{label}]"))
    return out


@pytest.mark.parametrize(("name", "players", "overrides", "check"), _params())
def test_conformance(name: str, players: int, overrides: dict, check: str) -> None:
    CHECKS[check](load_game(name, players=players, **overrides))
