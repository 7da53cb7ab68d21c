"""Self-play decisions per second through :class:`fieldcraft.adapters.vector.VectorEnv`
(observation tensors and masks included), per game with N random-policy envs, beside
PettingZoo's ``connect_four_v3`` AEC loop with random legal actions in the same run (the
yardstick of issue #36: ≥ 20x it for Spy Tracker, ≥ 10x for every game). Figures for
docs/research.md; run it on the compiled build, as a learner would. Both loops are timed in
CPU seconds of this process (on a machine shared with other jobs wall time swings by several
times; CPU time much less).

Rounds interleave the yardstick and the games so that a busy machine slows both alike; the
medians and their ratio are printed. ``env only`` is the share of the loop spent in
``VectorEnv.step`` (the rest is the random policy over the mask, done in numpy).
``--before`` also times :class:`LoopVectorEnv` (the env before its per-game loops moved into
``fieldcraft.core.fast``) and :class:`ListVectorEnv` (its first way of writing its buffers) in
the same rounds, for a before/after in one run. ``--profile GAME`` prints cProfile's top
entries for that game's loop instead; ``--breakdown``
the microseconds per decision of the tensor written into the buffer, the legal actions marked,
and a whole step (random policy included), per game.

    PYTHONPATH=. .venv/bin/python benchmarks/vector_env.py [--envs 64] [--seconds 2]
        [--rounds 3] [--before] [--profile spy-tracker] [--breakdown]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

from fieldcraft.adapters.vector import VectorEnv
from fieldcraft.core import fast
from fieldcraft.core.api import CHANCE, TERMINAL
from fieldcraft.core.registry import list_games

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adapters import pz_rate  # noqa: E402 - the same AEC loop the adapters benchmark times


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

    return pz_rate(connect_four_v3.env, seconds)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row: the k-th legal one, k drawn per row (one
    ``flatnonzero`` over the batch, read as bools: a tenth of the time of a cumulative sum or
    a 2-d ``nonzero`` over Undercover's wide int8 mask)."""
    width = mask.shape[1]
    flat = np.flatnonzero(mask.view(np.bool_).ravel())
    counts = np.bincount(flat // width, minlength=len(mask))
    k = (rng.random(len(mask)) * counts).astype(np.int64)
    return flat[np.cumsum(counts) - counts + k] % width


class LoopVectorEnv(VectorEnv):
    """The env as it stepped before its per-game loops moved into ``fieldcraft.core.fast``
    (issue #36 item 4), kept to time beside the current one in the same run: the actions
    applied and the rows written by loops in this module (Python, whichever build), the
    batch's actions checked by half a dozen numpy calls."""

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        states = self.states
        acts = np.asarray(actions)
        acts_list: list[int] = acts.tolist()
        self._check(acts, acts_list)
        rewards, terminated, truncated = self._rewards, self._terminated, self._truncated
        if self.finished:
            rewards.fill(0.0)
            terminated.fill(False)
            truncated.fill(False)
        self.finished = []
        decisions, cap, rngs = self._decisions, self.cap, self._rngs
        for i, state in enumerate(states):
            state._apply(acts_list[i])
            decisions[i] += 1
            rng = rngs[i]
            player = state.current_player()
            while player == CHANCE:
                state.play_chance(rng)
                player = state.current_player()
            if player == TERMINAL:
                rewards[i] = state.returns()
                terminated[i] = True
            elif cap is not None and decisions[i] >= cap:
                truncated[i] = True
            else:
                continue
            self.finished.append((i, state, self._seats[i]))
            states[i] = self._new_game(i)
            decisions[i] = 0
        self._write_all()
        info: dict[str, Any] = {"seat": self._seat, "truncated": truncated}
        if self.finished:
            info["final_returns"] = rewards
        return self._obs, self._mask, rewards, terminated, info

    def _check(self, acts: np.ndarray, acts_list: list[int]) -> None:
        inside = (acts >= 0) & (acts < self.num_actions)
        ok = inside.copy()
        ok[inside] = self._legal[self._rows[inside], acts[inside]] == 1
        if not ok.all():
            raise ValueError(f"env {int(np.flatnonzero(~ok)[0])}: illegal action")

    def _write_all(self) -> None:
        seats, flat, size, write = self._seats, self._flat, self.obs_size, self._write
        flags, width = self._flags, self.num_actions
        put_flags, put_doubles, tensor = fast.put_flags, fast.put_doubles, self._tensor
        self._legal.fill(0)
        at = 0
        row = 0
        for i, state in enumerate(self.states):
            seat = state.current_player()
            seats[i] = seat
            if write is not None:
                write(state, seat, flat, at)
            else:
                put_doubles(flat, at, tensor(state, seat))
            put_flags(flags, row, width, state.legal_actions())
            at += size
            row += width
        np.copyto(self._obs, self._wide, casting="same_kind")
        np.copyto(self._mask, self._legal)
        self._seat[:] = seats


class ListVectorEnv(LoopVectorEnv):
    """The env as it wrote its buffers before ``write_tensor`` (issue #36's first version,
    stepping as :class:`LoopVectorEnv` does), kept to time beside the current one in the same
    run: each tensor built as a Python list and packed into its float32 row by ``struct``,
    every action checked by the game's ``is_legal``, the masks set by one fancy-index
    assignment of the concatenated lists."""

    def _check(self, acts: np.ndarray, acts_list: list[int]) -> None:
        for i, (state, action) in enumerate(zip(self.states, acts_list, strict=True)):
            if not state.is_legal(action):
                raise ValueError(f"env {i}: illegal action {action}")

    def _write_all(self) -> None:
        import struct

        pack = struct.Struct(f"{self.obs_size}f").pack_into
        obs, seats, row_bytes = self._obs, self._seats, 4 * self.obs_size
        cols: list[int] = []
        counts: list[int] = []
        for i, state in enumerate(self.states):
            seat = state.current_player()
            seats[i] = seat
            pack(obs, i * row_bytes, *self._tensor(state, seat))
            legal = state.legal_actions()
            cols += legal
            counts.append(len(legal))
        self._seat[:] = seats
        self._mask.fill(0)
        self._mask[np.repeat(self._rows, counts), cols] = 1

def vector_rate(game: str, envs: int, seconds: float, kind: type[VectorEnv] = VectorEnv
                ) -> tuple[float, float]:
    """Decisions per second of ``envs`` random-policy self-play games, and the share of the
    time spent inside ``VectorEnv.step``."""
    env = kind(game, envs, seed=0)
    rng = np.random.default_rng(0)
    _, mask, _ = env.reset()
    steps = 0
    in_env = 0.0
    clock = time.process_time  # CPU time, as the yardstick's loop counts it
    start = clock()
    while clock() - start < seconds:
        actions = random_actions(mask, rng)
        t = clock()
        _, mask, _, _, _ = env.step(actions)
        in_env += clock() - t
        steps += 1
    elapsed = clock() - start
    return steps * envs / elapsed, in_env / elapsed


def breakdown(game: str, envs: int, repeat: int = 20) -> dict[str, float]:
    """Microseconds per decision (CPU time) of each part of a step, on the positions of a
    batch after a few random steps: the game's tensor written into the env's buffer (its
    ``write_tensor``, or its list copied in), the legal actions marked into the flags, and the
    whole step (rules, chance, the casts and the random policy included)."""
    env = VectorEnv(game, envs, seed=0)
    rng = np.random.default_rng(0)
    _, mask, _ = env.reset()
    for _ in range(20):
        _, mask, _, _, _ = env.step(random_actions(mask, rng))
    states = env.states
    seats = [s.current_player() for s in states]
    observer = env.game.observer
    size, width = env.obs_size, env.num_actions
    write = getattr(observer, "write_tensor", None)

    def tensors() -> None:
        for i, (s, seat) in enumerate(zip(states, seats, strict=True)):
            if write is not None:
                write(s, seat, env._flat, i * size)
            else:
                fast.put_doubles(env._flat, i * size, observer.tensor(s, seat))

    def legal() -> None:
        for i, s in enumerate(states):
            fast.put_flags(env._flags, i * width, width, s.legal_actions())

    def per_decision(fn: Any) -> float:
        best = float("inf")
        for _ in range(repeat):
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
        return best / envs * 1e6

    out = {"tensor": per_decision(tensors), "legal": per_decision(legal)}
    steps = 0
    t = time.process_time()
    while steps < 200:
        actions = random_actions(mask, rng)
        _, mask, _, _, _ = env.step(actions)
        steps += 1
    out["step"] = (time.process_time() - t) / (steps * envs) * 1e6
    return out


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
    parser.add_argument("--breakdown", action="store_true",
                        help="microseconds per decision of the parts of a step, per game")
    parser.add_argument("--before", action="store_true",
                        help="time the first version's buffer writing too (ListVectorEnv)")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.envs, args.seconds)
        return
    if args.breakdown:
        for game in args.games:
            parts = breakdown(game, args.envs)
            print(f"{game:22} " + "  ".join(f"{k} {v:5.1f} us" for k, v in parts.items()))
        return
    import fieldcraft.core.api as api

    build = "compiled" if api.__file__.endswith((".so", ".pyd")) else "pure Python"
    print(f"build: {build}; N = {args.envs} envs; {args.rounds} rounds of {args.seconds} s "
          f"(CPU time)")
    runs = [(f"{g} VectorEnv", g, VectorEnv) for g in args.games]
    if args.before:
        runs = [r for g in args.games for r in ((f"{g} VectorEnv", g, VectorEnv),
                                                (f"{g} before (loops)", g, LoopVectorEnv),
                                                (f"{g} before (lists)", g, ListVectorEnv))]
    compare(runs, args.envs, args.seconds, args.rounds)


def compare(runs: list[tuple[str, str, type[VectorEnv]]], envs: int, seconds: float,
            rounds: int) -> None:
    """Rounds alternating the yardstick and every run, then each run's median rate and its
    ratio to the yardstick's median."""
    c4: list[float] = []
    rates: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    shares: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    for _ in range(rounds):
        c4.append(connect_four_rate(seconds))
        for label, game, kind in runs:
            rate, share = vector_rate(game, envs, seconds, kind)
            rates[label].append(rate)
            shares[label].append(share)
    base = statistics.median(c4)
    print(f"{'connect_four_v3 (PettingZoo AEC)':34} {base:>10,.0f} decisions/s    1.0x")
    for label, _, _ in runs:
        rate = statistics.median(rates[label])
        share = statistics.median(shares[label])
        print(f"{label:34} {rate:>10,.0f} decisions/s {rate / base:6.1f}x"
              f"   (step: {share:.0%} of the loop; step alone {rate / share:,.0f}/s, "
              f"{rate / share / base:.1f}x)")


if __name__ == "__main__":
    main()
