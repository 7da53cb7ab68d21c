"""Seconds a move of an Undercover agent spec, wall clock and CPU, over whole games.

Why: the level benchmark reports wall-clock ms a move, which on a shared machine mostly says
how busy the machine was. CPU seconds of this process (``time.process_time``) are much less
sensitive to other work, so they estimate what the move costs on a quiet server (one core).
The agent sits at seat 0 among Normal bots; every decision of seat 0 with a real choice is
timed. Budgets are the spec's (rounds, depth), so the games repeat for a seed.

    PYTHONPATH=. python benchmarks/undercover_move_time.py --players 6 --games 2 \
        --spec "rollout(rollouts=16, depth=18, top=4, policy=choose_fast)"
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from fieldcraft.core.registry import load_game
from fieldcraft.sim.simulate import play_game


class Timer:
    """Wraps seat 0's agent: wall and CPU seconds of each ``act`` with a real choice."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self._start: tuple[float, float] | None = None

    def __call__(self, state: Any, player: int) -> None:
        if self._start is not None:
            self.wall.append(time.perf_counter() - self._start[0])
            self.cpu.append(time.process_time() - self._start[1])
            self._start = None
        if player == 0 and len(state.legal_actions()) > 1:
            self._start = (time.perf_counter(), time.process_time())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--spec", required=True)
    args = parser.parse_args(argv)
    game = load_game("undercover", players=args.players)
    timer = Timer()
    load = os.getloadavg()[0]
    for i in range(args.games):
        play_game(game, [args.spec] + ["heuristic"] * (args.players - 1), args.seed * 1000 + i,
                  watch=timer)
    wall, cpu = sorted(timer.wall), sorted(timer.cpu)
    n = len(wall)
    print(f"{args.spec}, {args.players} players, {args.games} games, {n} moves, load "
          f"{load:.1f}-{os.getloadavg()[0]:.1f}: wall mean {1000 * sum(wall) / n:.0f} ms, "
          f"median {1000 * wall[n // 2]:.0f}, max {1000 * wall[-1]:.0f}; CPU mean "
          f"{1000 * sum(cpu) / n:.0f} ms, median {1000 * cpu[n // 2]:.0f}, max "
          f"{1000 * cpu[-1]:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
