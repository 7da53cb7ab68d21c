"""Self-play decisions per second through :class:`fieldcraft.adapters.vector.VectorEnv`
(observation tensors and masks included), per game with N random-policy envs, beside
PettingZoo's ``connect_four_v3`` AEC loop with random legal actions in the same run (the
yardstick of issue #36: ≥ 20x it for Spy Tracker, ≥ 10x for every game). Figures for
docs/research.md; run it on the compiled build, as a learner would.

Rounds interleave the yardstick and the games so that a busy machine slows both alike; the
medians and their ratio are printed. ``env only`` is the share of the loop spent in
``VectorEnv.step`` (the rest is the random policy over the mask, done in numpy).
``--profile GAME`` prints cProfile's top entries for that game's loop instead.

    PYTHONPATH=. .venv/bin/python benchmarks/vector_env.py [--envs 64] [--seconds 2]
        [--rounds 3] [--profile spy-tracker]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
import types
from typing import Any

import numpy as np

from fieldcraft.adapters.vector import VectorEnv
from fieldcraft.core.registry import list_games


def connect_four_rate(seconds: float) -> float:
    """PettingZoo's own classic loop: ``last``, then ``step`` with a random legal action.

    ``connect_four`` imports pygame at import time though it draws only in a render mode this
    loop never uses; without pygame installed an empty stand-in module lets it load (the game
    logic is unchanged)."""
    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    rng = np.random.default_rng(0)
    decisions = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row: the k-th legal one, k drawn per row (one
    ``flatnonzero`` over the batch, read as bools: a tenth of the time of a cumulative sum or
    a 2-d ``nonzero`` over Undercover's wide int8 mask)."""
    width = mask.shape[1]
    flat = np.flatnonzero(mask.view(np.bool_).ravel())
    counts = np.bincount(flat // width, minlength=len(mask))
    k = (rng.random(len(mask)) * counts).astype(np.int64)
    return flat[np.cumsum(counts) - counts + k] % width


def vector_rate(game: str, envs: int, seconds: float) -> tuple[float, float]:
    """Decisions per second of ``envs`` random-policy self-play games, and the share of the
    time spent inside ``VectorEnv.step``."""
    env = VectorEnv(game, envs, seed=0)
    rng = np.random.default_rng(0)
    _, mask, _ = env.reset()
    steps = 0
    in_env = 0.0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        actions = random_actions(mask, rng)
        t = clock()
        _, mask, _, _, _ = env.step(actions)
        in_env += clock() - t
        steps += 1
    elapsed = clock() - start
    return steps * envs / elapsed, in_env / elapsed


def profile(game: str, envs: int, seconds: float, top: int = 20) -> None:
    profiler = cProfile.Profile()
    profiler.runcall(vector_rate, game, envs, seconds)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", nargs="*", default=list_games())
    parser.add_argument("--profile", metavar="GAME")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.envs, args.seconds)
        return
    import fieldcraft.core.api as api

    build = "compiled" if api.__file__.endswith((".so", ".pyd")) else "pure Python"
    print(f"build: {build}; N = {args.envs} envs; {args.rounds} rounds of {args.seconds} s")
    c4: list[float] = []
    rates: dict[str, list[float]] = {g: [] for g in args.games}
    shares: dict[str, list[float]] = {g: [] for g in args.games}
    for _ in range(args.rounds):
        c4.append(connect_four_rate(args.seconds))
        for game in args.games:
            rate, share = vector_rate(game, args.envs, args.seconds)
            rates[game].append(rate)
            shares[game].append(share)
    base = statistics.median(c4)
    print(f"{'connect_four_v3 (PettingZoo AEC)':34} {base:>10,.0f} decisions/s    1.0x")
    for game in args.games:
        rate = statistics.median(rates[game])
        share = statistics.median(shares[game])
        print(f"{game + ' VectorEnv':34} {rate:>10,.0f} decisions/s {rate / base:6.1f}x"
              f"   (step: {share:.0%} of the loop; step alone {rate / share:,.0f}/s, "
              f"{rate / share / base:.1f}x)")


if __name__ == "__main__":
    main()
