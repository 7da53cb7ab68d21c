"""Seat-rotated tournaments between agents, with Wilson intervals and OpenSkill ratings.

Game ``i`` seats agent ``(s + i) mod A`` at seat ``s``, so over a multiple of ``A`` games every
agent plays every seat equally often and the seat advantage cancels out. Every agent and every
chance draw is seeded from the tournament seed and the game index, so a tournament repeats
exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fieldcraft.agents import make_agent
from fieldcraft.core.registry import load_game
from fieldcraft.sim.simulate import game_seed, play_game
from fieldcraft.sim.stats import wilson


def tournament(name: str, players: int, agents: list[str], games: int, seed: int = 0,
               overrides: dict[str, Any] | None = None,
               on_game: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play ``games`` seat-rotated games between ``agents`` (specs such as ``ismcts(time=1)``)."""
    from openskill.models import PlackettLuce

    game = load_game(name, players=players, **(overrides or {}))
    for spec in agents:  # fail on a bad spec before any game runs
        make_agent(spec, seed=0)
    model = PlackettLuce()
    ratings = {spec: model.rating(name=spec) for spec in agents}
    played = dict.fromkeys(agents, 0)
    won = dict.fromkeys(agents, 0.0)
    seat_wins = [[0, 0] for _ in range(players)]  # per seat: wins, games
    lengths = []
    for i in range(games):
        specs = [agents[(s + i) % len(agents)] for s in range(players)]
        state = play_game(game, specs, game_seed(seed, i))
        returns = state.returns()
        lengths.append(len(state.history()))
        for seat, spec in enumerate(specs):
            played[spec] += 1
            won[spec] += returns[seat]
            seat_wins[seat][0] += int(returns[seat] > 0)
            seat_wins[seat][1] += 1
        _rate(model, ratings, specs, returns)
        if on_game is not None:
            on_game(i)
    table = []
    for spec in dict.fromkeys(agents):  # a spec named twice (one per seat) is one agent
        n = played[spec]
        low, high = wilson(won[spec], n)
        rating = ratings[spec]
        table.append({
            "agent": spec,
            "games": n,
            "wins": won[spec],
            "win_rate": won[spec] / n if n else 0.0,
            "wilson95": [round(low, 4), round(high, 4)],
            "mu": round(rating.mu, 3),
            "sigma": round(rating.sigma, 3),
            "ordinal": round(rating.ordinal(), 3),
        })
    return {
        "game": name,
        "players": players,
        "games": games,
        "seed": seed,
        "overrides": overrides or {},
        "agents": table,
        "wins_by_seat": [w for w, _ in seat_wins],
        "mean_length": sum(lengths) / len(lengths) if lengths else 0.0,
    }


def _rate(model: Any, ratings: dict[str, Any], specs: list[str], returns: list[float]) -> None:
    """Update ``ratings`` after one game. OpenSkill: each seat is a one-player team ranked by
    its return (ties share a rank); an agent in several seats gets the mean of its updates."""
    teams = [[ratings[spec]] for spec in specs]
    ranks = [1 if r > 0 else 2 for r in returns]
    if len(set(ranks)) > 1:
        updated = model.rate(teams, ranks=ranks)
        sums: dict[str, list[float]] = {}
        for spec, team in zip(specs, updated, strict=True):
            acc = sums.setdefault(spec, [0.0, 0.0, 0])
            acc[0] += team[0].mu
            acc[1] += team[0].sigma
            acc[2] += 1
        for spec, (mu, sigma, count) in sums.items():
            ratings[spec] = model.rating(mu=mu / count, sigma=sigma / count, name=spec)
