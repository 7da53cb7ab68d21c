"""Under Current's evaluation (``heuristic_returns``) against the results: Brier score by fifth
of the game beside each seat's base rate, and the cost of a call (figures for
docs/rules/under-current.md, "The evaluation").

    .venv/bin/python benchmarks/under_current_eval.py [--players 4 6] [--games 1000]
        [--seed 2000000]

Each game is played by one kind of bot at every seat (random, then heuristic); the evaluation is
read at every decision point, and a decision ``k`` of a game with ``d`` decisions falls in fifth
``floor(5 k / d)``. The base rate is each seat's win rate over the same games (in-sample, so a
slightly flattering baseline). The time is the mean of a call over the decision states of the
played games (best of 5 passes).
"""

from __future__ import annotations

import argparse
import time

from fieldcraft.core.api import TERMINAL
from fieldcraft.core.registry import load_game
from fieldcraft.sim.simulate import play_game

FIFTHS = 5


def measure(players: int, agent: str, games: int, seed: int) -> tuple[list[float],
                                                                       list[float], float]:
    game = load_game("under-current", players=players)
    played = []
    for i in range(games):
        states = []

        def watch(state, player: int, states=states) -> None:
            if player != TERMINAL:
                states.append(state.clone())

        end = play_game(game, [agent] * players, seed + i, trusted=True, watch=watch)
        played.append((states, end.returns()))
    base = [sum(y[s] for _, y in played) / games for s in range(players)]
    ours, prior, count = [0.0] * FIFTHS, [0.0] * FIFTHS, [0] * FIFTHS
    evaluate = game.search_model.heuristic_returns
    for states, y in played:
        for k, state in enumerate(states):
            est = evaluate(state)
            f = FIFTHS * k // len(states)
            ours[f] += sum((est[s] - y[s]) ** 2 for s in range(players))
            prior[f] += sum((base[s] - y[s]) ** 2 for s in range(players))
            count[f] += players
    every = [state for states, _ in played for state in states]
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for state in every:
            evaluate(state)
        best = min(best, (time.perf_counter() - start) / len(every))
    return ([o / c for o, c in zip(ours, count, strict=True)],
            [p / c for p, c in zip(prior, count, strict=True)], best * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 6])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2000000)
    args = parser.parse_args()
    print("| game | " + " | ".join(f"{20 * f}–{20 * f + 20}%" for f in range(FIFTHS))
          + " | µs/call |")
    print("|---" * (FIFTHS + 2) + "|")
    for players in args.players:
        for agent in ("random", "heuristic"):
            ours, prior, micros = measure(players, agent, args.games, args.seed)
            cells = " | ".join(f"{o:.3f} (base {p:.3f})" for o, p in zip(ours, prior,
                                                                            strict=True))
            print(f"| {players} players, {agent} bots | {cells} | {micros:.1f} |")


if __name__ == "__main__":
    main()
