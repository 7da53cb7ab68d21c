"""Self-play through :class:`fieldcraft.adapters.vector.VectorEnv`: how a learner credits the
end-of-game returns to the decisions each seat made (the env gives the returns of every seat
when a game ends, and resets it in the same step).

    PYTHONPATH=. .venv/bin/python examples/vector_self_play.py [game] [num_envs] [steps]
"""

from __future__ import annotations

import sys

import numpy as np

from fieldcraft.adapters.vector import VectorEnv


def main(game: str = "spy-tracker", num_envs: int = 16, steps: int = 2000) -> None:
    env = VectorEnv(game, num_envs, seed=0)
    rng = np.random.default_rng(0)
    obs, mask, info = env.reset()
    # Per env, the (seat, observation) of every decision of the game under way: a real
    # learner would keep its network's outputs here too.
    trajectories: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(num_envs)]
    samples: list[tuple[np.ndarray, float]] = []  # (observation, return of the seat that saw it)
    for _ in range(steps):
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)  # random legal actions
        for i in range(num_envs):
            trajectories[i].append((int(info["seat"][i]), obs[i].copy()))  # buffers are reused
        obs, mask, rewards, terminated, info = env.step(actions)
        for i in np.flatnonzero(terminated | info["truncated"]):
            samples += [(o, float(rewards[i, seat])) for seat, o in trajectories[i]]
            trajectories[i] = []
    credited = len(samples)
    mean = np.mean([r for _, r in samples]) if samples else float("nan")
    print(f"{game}: {credited} decisions of finished games credited, mean return {mean:.3f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0] if args else "spy-tracker", *(int(a) for a in args[1:3]))
