"""PPO in numpy alone, learning Spy Tracker (two players) against the random bot through
:class:`fieldcraft.adapters.vector.VectorEnv`: a one-hidden-layer policy with a value head, the
clipped surrogate loss, its gradients and Adam written out by hand (no torch or jax needed).

The learner plays one seat of every env (seat ``i % 2`` in env ``i``, so both seats are
learnt), the random bot the other; the env draws the chance. Spy Tracker scores only at the end,
so each of the learner's decisions is credited with its game's final return (no discounting) and
the advantage is that return less the value head's estimate. The policy starts uniform over the
legal actions (its output layer starts at zero), so before training it *is* the random bot and
wins about half its games; ``main`` prints the win rate against the random bot before and after.

    PYTHONPATH=. .venv/bin/python examples/ppo_spy_tracker.py [--seconds 120] [--games 1000]
        [--updates N] [--seed 0] [--json]

Run as a script it keeps numpy's BLAS to one thread: the matrices are small, and on a busy
machine OpenBLAS's spinning threads made the same run 15 times slower.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass, field

if __name__ == "__main__":  # before numpy loads OpenBLAS
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from fieldcraft.adapters.vector import VectorEnv  # noqa: E402


@dataclass
class Settings:
    """PPO's knobs; the defaults learn within a minute or two on one core."""

    num_envs: int = 64
    hidden: int = 64
    batch: int = 4096          # learner decisions of finished games per update
    epochs: int = 4
    minibatch: int = 512
    clip: float = 0.2
    lr: float = 3e-3
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    seed: int = 0


@dataclass
class Policy:
    """``obs -> tanh(obs / scale @ w1 + b1) -> (logits, value)``; ``scale`` is the largest
    magnitude seen of each input so far (counts and ranks grow to about 10 while one-hots are
    1; a fixed scale keeps the first layer's steps alike for all of them)."""

    params: dict[str, np.ndarray]
    scale: np.ndarray
    adam: dict[str, list[np.ndarray]] = field(default_factory=dict)
    steps: int = 0

    @classmethod
    def new(cls, obs_size: int, actions: int, hidden: int, rng: np.random.Generator) -> Policy:
        params = {
            "w1": rng.normal(0, 1 / np.sqrt(obs_size), (obs_size, hidden)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "wp": np.zeros((hidden, actions), np.float32),  # uniform over legal actions at first
            "bp": np.zeros(actions, np.float32),
            "wv": np.zeros((hidden, 1), np.float32),
            "bv": np.zeros(1, np.float32),
        }
        return cls(params, np.ones(obs_size, np.float32))

    def forward(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray, np.ndarray]:
        """Hidden layer, masked action probabilities and values for a batch of rows."""
        p = self.params
        x = obs / self.scale
        h = np.tanh(x @ p["w1"] + p["b1"])
        logits = h @ p["wp"] + p["bp"]
        logits = np.where(mask > 0, logits, -1e9)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits) * (mask > 0)
        probs = e / e.sum(axis=1, keepdims=True)
        return x, h, probs, (h @ p["wv"] + p["bv"])[:, 0]

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A sampled action per row, its log-probability and the row's value."""
        _, _, probs, value = self.forward(obs, mask)
        cum = probs.cumsum(axis=1)
        u = rng.random((len(probs), 1)) * cum[:, -1:]
        actions = np.minimum((cum < u).sum(axis=1), probs.shape[1] - 1)
        while True:  # float rounding can land u on an illegal action's flat stretch
            bad = mask[np.arange(len(actions)), actions] == 0
            if not bad.any():
                break
            actions[bad] -= 1
        chosen = probs[np.arange(len(actions)), actions]
        return actions, np.log(chosen + 1e-12), value


def ppo_gradients(policy: Policy, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray,
                  old_logp: np.ndarray, returns: np.ndarray, s: Settings
                  ) -> dict[str, np.ndarray]:
    """Gradients of the clipped surrogate loss, plus the value loss, less the entropy bonus,
    averaged over the minibatch, by hand through the softmax, the heads and the tanh layer."""
    p = policy.params
    x, h, probs, value = policy.forward(obs, mask)
    n = len(actions)
    rows = np.arange(n)
    adv = returns - value
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = probs[rows, actions] / np.exp(old_logp)
    # The surrogate's gradient flows only where the unclipped term is the smaller one.
    live = np.where(adv >= 0, ratio < 1 + s.clip, ratio > 1 - s.clip)
    onehot = np.zeros_like(probs)
    onehot[rows, actions] = 1.0
    g_logits = -(live * adv * ratio)[:, None] * (onehot - probs)  # d(-r A)/d logits
    logp = np.log(np.where(probs > 0, probs, 1.0))
    entropy = -(probs * logp).sum(axis=1, keepdims=True)
    g_logits += s.entropy_coef * probs * (logp + entropy)  # d(-c H)/d logits
    g_logits *= mask > 0
    g_value = s.value_coef * 2 * (value - returns)[:, None]
    g_h = g_logits @ p["wp"].T + g_value @ p["wv"].T
    g_pre = g_h * (1 - h * h)
    grads = {"wp": h.T @ g_logits, "bp": g_logits.sum(0), "wv": h.T @ g_value,
             "bv": g_value.sum(0), "w1": x.T @ g_pre, "b1": g_pre.sum(0)}
    return {k: (v / n).astype(np.float32) for k, v in grads.items()}


def adam_step(policy: Policy, grads: dict[str, np.ndarray], lr: float,
              betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
    policy.steps += 1
    t = policy.steps
    for k, g in grads.items():
        m, v = policy.adam.setdefault(k, [np.zeros_like(g), np.zeros_like(g)])
        m *= betas[0]
        m += (1 - betas[0]) * g
        v *= betas[1]
        v += (1 - betas[1]) * g * g
        step = lr * (m / (1 - betas[0] ** t)) / (np.sqrt(v / (1 - betas[1] ** t)) + eps)
        policy.params[k] -= step.astype(np.float32)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (the random bot)."""
    return (rng.random(mask.shape) * (mask > 0)).argmax(axis=1)


def play(env: VectorEnv, policy: Policy, rng: np.random.Generator, on_learner: object,
         on_game: object, stop: object) -> None:
    """Step every env, the learner at seat ``i % 2`` of env ``i`` and the random bot at the
    other; ``on_learner(rows, obs, mask, actions, logp)`` sees the learner's decisions,
    ``on_game(env, learner_return)`` each finished game; runs until ``stop()``."""
    learner = np.arange(env.num_envs) % 2
    obs, mask, info = env.reset()
    while not stop():  # type: ignore[operator]
        actions = random_legal(mask, rng)
        rows = np.flatnonzero(info["seat"] == learner)
        if len(rows):
            mine, logp, _ = policy.act(obs[rows], mask[rows], rng)
            on_learner(rows, obs[rows].copy(), mask[rows].copy(), mine, logp)  # type: ignore
            actions[rows] = mine
        obs, mask, rewards, terminated, info = env.step(actions)
        for i in np.flatnonzero(terminated | info["truncated"]):
            on_game(int(i), float(rewards[i, learner[i]]))  # type: ignore[operator]


def win_rate(policy: Policy, games: int, seed: int, num_envs: int = 64) -> float:
    """Share of ``games`` the policy, sampling, wins against the random bot, on seeded deals:
    the first ``games`` games to finish. (Spy Tracker's returns are 1 for the winner, 0 for
    the others; a game cut at the length cap, which random play does not reach, would count
    as lost.)"""
    env = VectorEnv("spy-tracker", num_envs, players=2, seed=seed)
    rng = np.random.default_rng(seed)
    results: list[float] = []
    play(env, policy, rng, lambda *a: None,
         lambda i, r: results.append(1.0 if r > 0 else 0.0),
         lambda: len(results) >= games)
    return float(np.mean(results[:games]))


class Trainer:
    """Collects the learner's decisions per env until their game ends, then files them with
    the game's return; every ``batch`` of them makes one PPO update of a few epochs."""

    def __init__(self, s: Settings):
        self.s = s
        self.env = VectorEnv("spy-tracker", s.num_envs, players=2, seed=s.seed)
        self.rng = np.random.default_rng(s.seed)
        self.policy = Policy.new(self.env.obs_size, self.env.num_actions, s.hidden, self.rng)
        self.pending: list[list[tuple[np.ndarray, ...]]] = [[] for _ in range(s.num_envs)]
        self.done: list[tuple[np.ndarray, ...]] = []
        self.updates = 0

    def on_learner(self, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                   actions: np.ndarray, logp: np.ndarray) -> None:
        self.policy.scale = np.maximum(self.policy.scale, np.abs(obs).max(axis=0))
        for k, i in enumerate(rows):
            self.pending[i].append((obs[k], mask[k], actions[k], logp[k]))

    def on_game(self, i: int, result: float) -> None:
        self.done += [(*d, np.float32(result)) for d in self.pending[i]]
        self.pending[i] = []
        if len(self.done) >= self.s.batch:
            self.update()

    def update(self) -> None:
        s = self.s
        obs, mask, actions, logp, returns = (np.stack(c) for c in zip(*self.done, strict=True))
        self.done = []
        for _ in range(s.epochs):
            order = self.rng.permutation(len(actions))
            for start in range(0, len(order), s.minibatch):
                b = order[start:start + s.minibatch]
                grads = ppo_gradients(self.policy, obs[b], mask[b], actions[b], logp[b],
                                      returns[b], s)
                adam_step(self.policy, grads, s.lr)
        self.updates += 1

    def train(self, updates: int | None = None, seconds: float | None = None) -> Policy:
        """Play and learn until ``updates`` PPO updates are made or ``seconds`` pass."""
        end = time.monotonic() + seconds if seconds is not None else float("inf")
        limit = updates if updates is not None else 1 << 62
        play(self.env, self.policy, self.rng, self.on_learner, self.on_game,
             lambda: self.updates >= limit or time.monotonic() > end)
        return self.policy


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--updates", type=int, help="stop after this many updates instead")
    parser.add_argument("--games", type=int, default=1000, help="games per evaluation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print only the two win rates")
    args = parser.parse_args(argv)
    trainer = Trainer(Settings(seed=args.seed))
    evaluate_seed = 10_000 + args.seed
    before = win_rate(trainer.policy, args.games, evaluate_seed)
    if args.updates is not None:
        trainer.train(updates=args.updates)
    else:
        print(f"before: win rate vs random {before:.1%} ({args.games} games)")
        start = time.monotonic()
        while (elapsed := time.monotonic() - start) < args.seconds:
            trainer.train(seconds=min(20.0, args.seconds - elapsed))
            rate = win_rate(trainer.policy, args.games // 4, evaluate_seed)
            print(f"{time.monotonic() - start:6.0f} s, {trainer.updates:4d} updates: "
                  f"win rate vs random {rate:.1%} ({args.games // 4} games)", flush=True)
    after = win_rate(trainer.policy, args.games, evaluate_seed)
    if args.json:
        print(json.dumps({"before": before, "after": after, "updates": trainer.updates}))
    else:
        print(f"after {trainer.updates} updates: win rate vs random {after:.1%} "
              f"({args.games} games)")


if __name__ == "__main__":
    main()
