"""Random-playout speed of every game: the number that bots and balance studies live on.

Each run plays a fixed number of seeded games with ``random_playout`` (chance steps counted) and
the report gives the median of several runs, which is steadier than a mean on a shared machine.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from fieldcraft.core.api import random_playout
from fieldcraft.core.registry import default_ruleset, list_games, load_game


def bench_game(name: str, players: int | None = None, games: int = 300, runs: int = 5,
               seed: int = 0) -> dict[str, Any]:
    if players is None:
        players = default_ruleset(name)["default_players"]
    game = load_game(name, players=players)
    rates, game_rates, steps_per_game = [], [], []
    for run in range(runs):
        rng = random.Random(seed + run)
        steps = 0
        start = time.perf_counter()
        for _ in range(games):
            steps += random_playout(game.new_initial_state(), rng)
        elapsed = time.perf_counter() - start
        rates.append(steps / elapsed)
        game_rates.append(games / elapsed)
        steps_per_game.append(steps / games)
    return {
        "game": name,
        "players": players,
        "games_per_run": games,
        "runs": runs,
        "steps_per_second": round(statistics.median(rates)),
        "games_per_second": round(statistics.median(game_rates), 1),
        "mean_steps_per_game": round(statistics.mean(steps_per_game), 1),
    }


def bench_all(games: int = 300, runs: int = 5, names: list[str] | None = None,
              players: int | None = None) -> list[dict[str, Any]]:
    return [bench_game(name, players, games, runs) for name in (names or list_games())]
