"""What one rollout playout costs in Undercover, per playout policy and table size.

Why: the rollout agent's strength at six players is bounded by how many playouts fit in about a
second a move, and a playout with the Normal bot (``bot.choose``, with its one-reply look) at
six seats was measured at 0.3-0.4 s. This plays the same positions out with each policy, so the
figures compare policies on equal work; budgets are positions and seeds, not seconds.

Positions: the state after ``--at`` decisions of an all-Normal game of each seed (mid-game by
default). Each is played to the end (or ``--depth`` decisions) once per policy with the same
playout seed. Prints ms a playout and ms a decision (mean, and the slowest playout), and the
load average, since the machine may be shared.

    PYTHONPATH=. python benchmarks/undercover_playouts.py --players 6 --positions 10
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any

from fieldcraft.agents import View, make_agent
from fieldcraft.agents.rollout import playout, rollout_policy
from fieldcraft.core.api import CHANCE, TERMINAL
from fieldcraft.core.registry import load_game


def position(game: Any, seed: int, at: int) -> Any:
    """The state after ``at`` decisions of an all-Normal game (fewer if it ends first)."""
    rng = random.Random(seed)
    agents = [make_agent("heuristic", seed=rng.randrange(2**32))
              for _ in range(game.num_players)]
    state = game.new_initial_state()
    decisions = 0
    while decisions < at:
        player = state.current_player()
        if player == TERMINAL:
            break
        if player == CHANCE:
            state.play_chance(rng)
            continue
        state._apply(agents[player].act(View(state, player)))
        decisions += 1
    return state


class Counting:
    """A policy wrapper that counts its calls (a playout's decisions with a choice)."""

    def __init__(self, policy: Any) -> None:
        self.policy, self.calls = policy, 0

    def __call__(self, view: Any, rng: random.Random) -> int:
        self.calls += 1
        return self.policy(view, rng)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--at", type=int, default=45, help="decisions played before")
    parser.add_argument("--depth", type=int, default=None)
    parser.add_argument("--policies", default="choose,choose_fast")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = load_game("undercover", players=args.players)
    states = [position(game, args.seed * 1000 + i, args.at) for i in range(args.positions)]
    print(f"load average {os.getloadavg()[0]:.1f}; {args.players} players, {args.positions} "
          f"positions after {args.at} decisions, depth {args.depth}")
    for name in args.policies.split(","):
        policy = Counting(rollout_policy(game, name))
        times = []
        for i, state in enumerate(states):
            start = time.perf_counter()
            playout(state.clone(), 0, 7 + i, policy, args.depth)
            times.append(time.perf_counter() - start)
        total = sum(times)
        print(f"{name}: {1000 * total / len(times):.1f} ms a playout (max "
              f"{1000 * max(times):.1f}), {1000 * total / max(1, policy.calls):.2f} ms a "
              f"decision over {policy.calls} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
