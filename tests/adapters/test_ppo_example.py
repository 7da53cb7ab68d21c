"""examples/ppo_spy_tracker.py: its hand-written gradients are the loss's, and a short run
learns to beat the random bot (fixed seeds, so the figures are the same at every run)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ppo_spy_tracker.py"


@pytest.fixture(scope="module")
def ppo():
    spec = importlib.util.spec_from_file_location("ppo_spy_tracker", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_gradients_match_finite_differences(ppo):
    """Every parameter's gradient against central differences of the loss written plainly
    (clipped surrogate with the advantage held fixed, value error, entropy bonus), in float64
    on a small random network with a mask that rules out some actions."""
    rng = np.random.default_rng(1)
    n, d, a = 20, 7, 5
    policy = ppo.Policy.new(d, a, 6, rng)
    for k in policy.params:
        policy.params[k] = rng.normal(0, 0.5, policy.params[k].shape)
    obs = rng.normal(size=(n, d))
    mask = (rng.random((n, a)) < 0.6).astype(np.int8)
    mask[:, 0] = 1
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    _, _, probs, value = policy.forward(obs, mask)
    rows = np.arange(n)
    old_logp = np.log(probs[rows, actions]) + rng.normal(0, 0.3, n)  # some ratios get clipped
    returns = rng.choice([-1.0, 1.0], n)
    s = ppo.Settings(entropy_coef=0.05)
    adv = returns - value
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)

    def loss() -> float:
        _, _, p, v = policy.forward(obs, mask)
        r = p[rows, actions] / np.exp(old_logp)
        surrogate = -np.minimum(r * adv, np.clip(r, 1 - s.clip, 1 + s.clip) * adv).mean()
        entropy = -(p * np.log(np.where(p > 0, p, 1.0))).sum(axis=1).mean()
        return surrogate + s.value_coef * ((v - returns) ** 2).mean() - s.entropy_coef * entropy

    grads = ppo.ppo_gradients(policy, obs, mask, actions, old_logp, returns, s)
    for name, param in policy.params.items():
        numeric = np.zeros_like(param)
        for idx in np.ndindex(param.shape):
            old = param[idx]
            param[idx] = old + 1e-6
            up = loss()
            param[idx] = old - 1e-6
            numeric[idx] = (up - loss()) / 2e-6
            param[idx] = old
        assert np.abs(numeric - grads[name]).max() <= 1e-4 * np.abs(numeric).max(), name


def test_a_short_run_beats_the_random_bot():
    """The untrained policy is uniform over legal actions, so it wins about half its games
    against the random bot; six PPO updates (about 25,000 of its decisions, seconds) must
    lift that clearly, on the same deals. Run as the script is (BLAS on one thread)."""
    env = dict(os.environ, PYTHONPATH=str(EXAMPLE.parents[1]))
    done = subprocess.run([sys.executable, str(EXAMPLE), "--updates", "6", "--games", "400",
                           "--seed", "3", "--json"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rates = json.loads(done.stdout.splitlines()[-1])
    assert rates["updates"] == 6
    assert 0.40 <= rates["before"] <= 0.60, rates
    assert rates["after"] >= rates["before"] + 0.15, rates
