"""Trials per second of ``fieldcraft tune`` with 1 and with 2 local worker processes.

The same search (game, params, target, trials, games per trial, seed) runs once per worker
count, the counts interleaved over ``--repeats`` rounds (1, 2, 1, 2, ...) so that load from
others on a shared machine falls on both alike; the median wall time per count is reported,
and the ratio of the two is the speed-up. Re-evaluation is switched off (``reeval_games=0``)
so the time is the trials' own: the default's trial plus ``--trials`` search trials.

    python benchmarks/tune_workers.py under-current --players 4 --trials 12 --games 200
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from fieldcraft.sim.tune import tune


def measure(game: str, players: list[int], params: list[str], target: str, trials: int,
            games: int, workers: list[int], repeats: int, seed: int = 0) -> dict[str, Any]:
    """Median wall seconds and trials/s per worker count, with every run's seconds."""
    runs: dict[int, list[float]] = {k: [] for k in workers}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeats):
            for k in workers:
                start = time.perf_counter()
                tune(game, players, params, target, trials, Path(tmp) / f"w{k}-{r}",
                     games_per_trial=games, seed=seed, workers=k, reeval_games=0)
                runs[k].append(time.perf_counter() - start)
    evaluations = trials + 1  # the default's trial and the search's
    out: dict[str, Any] = {"game": game, "players": players, "params": params,
                           "target": target, "trials": trials, "games_per_trial": games,
                           "repeats": repeats, "workers": {}}
    for k, secs in runs.items():
        med = statistics.median(secs)
        out["workers"][str(k)] = {"seconds": [round(s, 2) for s in secs],
                                  "median_seconds": round(med, 2),
                                  "trials_per_s": round(evaluations / med, 2)}
    if len(workers) >= 2:
        a, b = (out["workers"][str(k)]["median_seconds"] for k in workers[:2])
        out["speedup"] = round(a / b, 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", default="under-current")
    parser.add_argument("--players", type=int, nargs="+", default=[4])
    parser.add_argument("--param", action="append", default=None)
    parser.add_argument("--target", default="balance")
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--games", type=int, default=200, help="games per trial per count")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    params = args.param or ["roles.5.from=3..8", "hand_size=1..3"]
    print(json.dumps(measure(args.game, args.players, params, args.target, args.trials,
                             args.games, args.workers, args.repeats), indent=2))


if __name__ == "__main__":
    main()
