"""A short learning demonstration (not run in CI): sb3-contrib's MaskablePPO learns Spy Tracker
2p against the random bot through ``fieldcraft/SpyTracker-v0``; prints the win rate (Wilson 95%)
before and after a few minutes of training.

    .venv/bin/pip install torch==2.13.0 sb3-contrib
    .venv/bin/python benchmarks/learn_spy_tracker.py [--minutes 5] [--games 400]
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import fieldcraft.adapters.gym  # noqa: F401  (registers the environments)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def win_rate(model: MaskablePPO, games: int, seed: int) -> tuple[float, float, float]:
    env = gym.make("fieldcraft/SpyTracker-v0", players=2, seat=None, opponents="random")
    wins = 0.0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(),
                                      deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        wins += reward > 0
    low, high = wilson(wins, games)
    return wins / games, low, high


class Deadline(BaseCallback):
    def __init__(self, seconds: float):
        super().__init__()
        self.end = time.time() + seconds

    def _on_step(self) -> bool:
        return time.time() < self.end


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    env = gym.make("fieldcraft/SpyTracker-v0", players=2, seat=None, opponents="random")
    model = MaskablePPO("MlpPolicy", env, seed=0, verbose=0, n_steps=1024, batch_size=256)
    before = win_rate(model, args.games, 10_000)
    start = time.time()
    model.learn(total_timesteps=10**9, callback=Deadline(args.minutes * 60))
    trained = time.time() - start
    after = win_rate(model, args.games, 20_000)
    print(f"MaskablePPO, Spy Tracker 2p vs random, {args.games} games each, seats random:")
    print(f"  before training: {before[0]:.1%} (95% {before[1]:.1%}-{before[2]:.1%})")
    print(f"  after {trained / 60:.1f} min ({model.num_timesteps:,} steps): {after[0]:.1%} "
          f"(95% {after[1]:.1%}-{after[2]:.1%})")


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
