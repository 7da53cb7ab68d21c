"""Fit and check Against the Current's learned win-probability model (issue #35).

Every search tried for the Strong level scores its leaves by the race model
(``heuristic_returns``) and none beat the heuristic bot, which scores its turn by the same
model. This script asks how well that model predicts the winner, and fits a better one:

1. plays ``--games`` heuristic self-play games per player count (the deals of
   ``fieldcraft.sim.simulate.game_seed(--seed, i)``), keeping positions where search puts a
   leaf (a token choice, a challenge, with a turn under way), each with every seat's
   features (:data:`~fieldcraft.games.against_the_current.value.FEATURES`) and the game's
   result;
2. holds out every ``--test-every``-th game (whole games, since positions of one game are
   alike) and fits a conditional logit on the rest (Newton's method, a small ridge);
3. reports held-out log loss (``-sum_s y_s log p_s``, a position's cross-entropy) and Brier
   (``sum_s (p_s - y_s)^2``) of the race model, the race model recalibrated (its log chance
   alone, one weight) and the full model, with a bootstrap over held-out games for the
   difference; and ``--write`` stores the weights in the game's ``value.json``.

    PYTHONPATH=. python benchmarks/atc_value.py --players 2,4 --games 2000 --write

``--judge SPEC`` instead asks whether an agent's choices are better than the heuristic's,
far more sharply than whole games can (the dice decide most of those): it plays heuristic
self-play games and, wherever the agent would choose otherwise than the heuristic, plays both
moves out ``--rollouts`` times with everyone on the heuristic afterwards, each pair of
playouts on the same dice and the same bots' random streams (common random numbers), and
reports the mean gain in the mover's win chance per disagreement and per game.

    PYTHONPATH=. python benchmarks/atc_value.py --judge "expectimax(turns=2, value=learned)"

numpy is needed here only (not at play time).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

import numpy as np

from fieldcraft.agents import View, make_agent
from fieldcraft.core.api import CHANCE, TERMINAL, sample_chance
from fieldcraft.core.registry import load_game
from fieldcraft.games.against_the_current import bot, value
from fieldcraft.games.against_the_current.layout import ATTEMPT, TOKEN
from fieldcraft.sim.simulate import game_seed

LEAF_PHASES = (TOKEN, ATTEMPT)
RIDGE = 1e-3


def self_play(game: Any, seed: int, keep: float, rng: random.Random
              ) -> tuple[list[list[list[float]]], list[list[float]], list[float]]:
    """One heuristic self-play game: kept positions' feature rows and race chances, and the
    result (each seat's share of the win)."""
    deal = random.Random(seed)
    agents = [make_agent("heuristic", seed=deal.randrange(2**32))
              for _ in range(game.num_players)]
    state = game.new_initial_state()
    rows: list[list[list[float]]] = []
    races: list[list[float]] = []
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return rows, races, state.returns()
        if player == CHANCE:
            state.apply_action(sample_chance(state, deal))
            continue
        if state.phase in LEAF_PHASES and rng.random() < keep:
            rows.append(value.features(state))
            races.append(list(state.heuristic_returns()))
        state.apply_action(agents[player].act(View(state, player)))


def collect(players: int, games: int, seed: int, keep: float, progress: bool
            ) -> dict[str, np.ndarray]:
    """Self-play positions of ``games`` games: features X (positions, seats, features), race
    chances R, results Y and each position's game index G."""
    game = load_game("against-the-current", players=players)
    rng = random.Random(seed * 7919 + players)
    xs, rs, ys, gs = [], [], [], []
    started = time.perf_counter()
    for i in range(games):
        rows, races, result = self_play(game, game_seed(seed, i), keep, rng)
        xs += rows
        rs += races
        ys += [result] * len(rows)
        gs += [i] * len(rows)
        if progress and (i + 1) % 200 == 0:
            print(f"{players}p: {i + 1}/{games} games, {len(xs)} positions, "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return {"X": np.array(xs), "R": np.array(rs), "Y": np.array(ys), "G": np.array(gs)}


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit(X: np.ndarray, Y: np.ndarray, columns: list[int]) -> np.ndarray:
    """Conditional-logit weights over ``columns`` of the features (Newton, ridge RIDGE)."""
    Xc = X[:, :, columns]
    k = len(columns)
    w = np.zeros(k)
    if 0 in columns:
        w[columns.index(0)] = 1.0  # start at the race model itself
    for _ in range(50):
        p = softmax(Xc @ w)
        mean = np.einsum("ns,nsk->nk", p, Xc)
        grad = np.einsum("ns,nsk->k", p - Y, Xc) + RIDGE * w
        hess = (np.einsum("ns,nsj,nsk->jk", p, Xc, Xc) - mean.T @ mean
                + RIDGE * np.eye(k))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def losses(P: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-position log loss and Brier score."""
    return (-(Y * np.log(np.clip(P, 1e-12, 1.0))).sum(axis=1), ((P - Y) ** 2).sum(axis=1))


def bootstrap(diff: np.ndarray, G: np.ndarray, rounds: int = 1000, seed: int = 0
              ) -> tuple[float, float]:
    """95% interval of the mean of ``diff``, resampling whole games."""
    games = np.unique(G)
    sums = np.bincount(np.searchsorted(games, G), weights=diff)
    counts = np.bincount(np.searchsorted(games, G))
    rng = np.random.default_rng(seed)
    means = []
    for _ in range(rounds):
        pick = rng.integers(0, len(games), len(games))
        means.append(sums[pick].sum() / counts[pick].sum())
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def evaluate(data: dict[str, np.ndarray], test_every: int) -> dict[str, Any]:
    X, R, Y, G = data["X"], data["R"], data["Y"], data["G"]
    test = G % test_every == 0
    full = list(range(len(value.FEATURES)))
    w_full = fit(X[~test], Y[~test], full)
    w_temp = fit(X[~test], Y[~test], [0])
    preds = {"race": R[test] / R[test].sum(axis=1, keepdims=True),
             "race recalibrated": softmax(X[test][:, :, [0]] @ w_temp),
             "learned": softmax(X[test] @ w_full)}
    out: dict[str, Any] = {"positions": int(len(X)), "train": int((~test).sum()),
                           "test": int(test.sum()), "test_games": int(len(np.unique(G[test]))),
                           "weights": [round(float(w), 6) for w in w_full],
                           "temperature": float(w_temp[0]), "models": {}}
    base_log, base_brier = losses(preds["race"], Y[test])
    for name, P in preds.items():
        log, brier = losses(P, Y[test])
        row = {"log_loss": float(log.mean()), "brier": float(brier.mean())}
        if name != "race":
            row["log_loss_minus_race_95"] = bootstrap(log - base_log, G[test])
            row["brier_minus_race_95"] = bootstrap(brier - base_brier, G[test])
        out["models"][name] = row
    # Calibration of seat 0's chance, in tenths.
    bins = []
    for name in ("race", "learned"):
        p0, y0 = preds[name][:, 0], Y[test][:, 0]
        edges = np.minimum((p0 * 10).astype(int), 9)
        bins.append({name: [(int((edges == b).sum()), round(float(p0[edges == b].mean()), 3),
                             round(float(y0[edges == b].mean()), 3))
                            for b in range(10) if (edges == b).any()]})
    out["calibration"] = bins
    return out


def _twin(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def playout(state: Any, chance: random.Random, rngs: list[random.Random], seat: int) -> float:
    """``state`` played to its end by heuristic bots (seat ``s`` deciding with ``rngs[s]``),
    chance drawn from ``chance``; the seat's result."""
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[seat]
        if player == CHANCE:
            state._apply(sample_chance(state, chance))
        elif len(legal := state.legal_actions()) == 1:
            state._apply(legal[0])
        else:
            state._apply(bot.choose(View(state, player), rngs[player]))


def paired_gain(state: Any, mine: int, theirs: int, rollouts: int, seed: int) -> float:
    """Mean over ``rollouts`` paired playouts of the mover's result after ``mine`` less after
    ``theirs``, each pair on the same chance and bot streams."""
    seat = state.current_player()
    total = 0.0
    for k in range(rollouts):
        base = random.Random(seed * 1_000_003 + k)
        rngs = [random.Random(base.randrange(2**32)) for _ in range(state.game.num_players)]
        results = []
        for action in (mine, theirs):
            child = state.clone()
            child._apply(action)
            results.append(playout(child, _twin(base), [_twin(r) for r in rngs], seat))
        total += results[0] - results[1]
    return total / rollouts


def judge(spec: str, players: int, games: int, seed: int, rollouts: int, progress: bool
          ) -> dict[str, Any]:
    """Where ``spec`` chooses otherwise than the heuristic in heuristic self-play, the paired
    playout gain of its choice (see the module docstring)."""
    game = load_game("against-the-current", players=players)
    agent = make_agent(spec, seed=seed)
    decisions = 0
    gains: list[float] = []
    started = time.perf_counter()
    for i in range(games):
        deal = random.Random(game_seed(seed, i))
        rngs = [random.Random(deal.randrange(2**32)) for _ in range(players)]
        state = game.new_initial_state()
        while (player := state.current_player()) != TERMINAL:
            if player == CHANCE:
                state.apply_action(sample_chance(state, deal))
                continue
            legal = state.legal_actions()
            theirs = bot.choose(View(state, player), rngs[player])
            if len(legal) > 1 and state.phase not in bot.LOOKAHEAD_PHASES:
                decisions += 1
                mine = agent.act(View(state, player))
                if mine != theirs:
                    gains.append(paired_gain(state, mine, theirs, rollouts,
                                             seed * 100_003 + len(gains)))
            state.apply_action(theirs)
        if progress:
            mean = sum(gains) / len(gains) if gains else 0.0
            print(f"judge {i + 1}/{games} games: {len(gains)} of {decisions} decisions "
                  f"differ, mean gain {mean:+.4f}, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
    arr = np.array(gains) if gains else np.zeros(1)
    se = float(arr.std(ddof=1) / np.sqrt(len(arr))) if len(gains) > 1 else float("nan")
    per_game = arr.sum() / (games * players)
    return {"spec": spec, "players": players, "games": games, "seed": seed,
            "rollouts": rollouts, "decisions": decisions, "disagreements": len(gains),
            "gain_per_disagreement": float(arr.mean()),
            "gain_per_disagreement_95": [float(arr.mean()) - 1.96 * se,
                                         float(arr.mean()) + 1.96 * se],
            "better": int((arr > 0).sum()), "worse": int((arr < 0).sum()),
            "seat_win_points_per_game": float(100 * per_game),
            "seat_win_points_per_game_95": [100 * (per_game - 1.96 * se * len(gains)
                                                   / (games * players)),
                                            100 * (per_game + 1.96 * se * len(gains)
                                                   / (games * players))],
            "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--keep", type=float, default=0.3,
                        help="share of leaf positions kept (positions of a game are alike)")
    parser.add_argument("--test-every", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="store the weights in value.json")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--judge", metavar="SPEC", help="judge an agent's choices instead")
    parser.add_argument("--rollouts", type=int, default=100, help="--judge: playout pairs")
    args = parser.parse_args()
    if args.judge:
        for players in (int(p) for p in args.players.split(",")):
            print(json.dumps(judge(args.judge, players, args.games, args.seed, args.rollouts,
                                   args.progress)), flush=True)
        return
    report: dict[str, Any] = {"features": list(value.FEATURES), "games": args.games,
                              "seed": args.seed, "keep": args.keep, "results": {}}
    for players in (int(p) for p in args.players.split(",")):
        started = time.perf_counter()
        data = collect(players, args.games, args.seed, args.keep, args.progress)
        result = evaluate(data, args.test_every)
        result["seconds"] = round(time.perf_counter() - started, 1)
        report["results"][str(players)] = result
    print(json.dumps(report, indent=1))
    if args.write:
        table = {"features": list(value.FEATURES),
                 "fitted": f"benchmarks/atc_value.py --games {args.games} --seed {args.seed} "
                           f"--keep {args.keep}, heuristic self-play, every "
                           f"{args.test_every}th game held out",
                 "weights": {p: r["weights"] for p, r in report["results"].items()}}
        if value.WEIGHTS_FILE.exists():  # keep counts fitted by an earlier run
            old = json.loads(value.WEIGHTS_FILE.read_text(encoding="utf-8"))
            if old.get("features") == table["features"]:
                table["weights"] = {**old["weights"], **table["weights"]}
        value.WEIGHTS_FILE.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
