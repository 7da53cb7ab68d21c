"""Play many bot games and count who wins.

Game ``i`` of a run with seed ``S`` always uses the same per-game seed, whatever else runs, so
results are reproducible and a later parallel runner can split the games without changing them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from fieldcraft.agents import View, make_agent
from fieldcraft.core.api import CHANCE, TERMINAL, Game, sample_chance
from fieldcraft.core.registry import load_game


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` in a run seeded ``seed`` (independent of run order)."""
    return (seed * 1_000_003 + index) & 0xFFFFFFFFFFFF


def play_game(game: Game, specs: list[str], seed: int, trusted: bool = False,
              watch: Callable[[Any, int], None] | None = None) -> Any:
    """One game with agent ``specs[s]`` at seat ``s``, every agent and chance draw seeded from
    ``seed``; returns the final state (its action list gives the length).

    ``trusted`` skips the legality check, for the built-in agents whose actions come straight
    from ``legal_actions`` (it saves a re-computation per step in long simulations).
    ``watch(state, player)`` is called at every decision point and once at the end (player
    ``TERMINAL``), for the study metrics' trace (:class:`fieldcraft.sim.metrics.Tracer`).
    """
    rng = random.Random(seed)
    agents = [make_agent(spec, seed=rng.randrange(2**32)) for spec in specs]
    state = game.new_initial_state()
    apply = state._apply if trusted else state.apply_action
    while True:
        player = state.current_player()
        if watch is not None and player != CHANCE:
            watch(state, player)
        if player == TERMINAL:
            return state
        if player == CHANCE:
            apply(sample_chance(state, rng))
        else:
            apply(agents[player].act(View(state, player)))


def simulate(name: str, players: int, games: int, seed: int = 0,
             overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play ``games`` random-bot games; wins by side (faction, animal...), by seat, and length."""
    game = load_game(name, players=players, **(overrides or {}))
    by_faction: Counter[str] = Counter()
    by_seat = [0] * players
    no_winner = 0
    total_steps = 0
    endings: Counter[str] = Counter()
    for i in range(games):
        state = play_game(game, ["random"] * players, game_seed(seed, i), trusted=True)
        steps = len(state.history())
        total_steps += steps
        winners = state.winners()
        if not winners:
            no_winner += 1
        for seat in winners:
            by_seat[seat] += 1
        for label in {state.seat_label(s) for s in winners} - {None}:
            by_faction[label] += 1
        outcome = state.outcome()
        how = ":".join(str(outcome[k]) for k in ("ending", "decided_by") if outcome.get(k))
        if how:
            endings[how] += 1
    return {
        "game": name,
        "players": players,
        "games": games,
        "seed": seed,
        "overrides": overrides or {},
        "wins_by_faction": dict(sorted(by_faction.items())),
        "wins_by_seat": by_seat,
        "no_winner": no_winner,
        "mean_steps": total_steps / games if games else 0.0,
        "endings": dict(sorted(endings.items())),
    }
