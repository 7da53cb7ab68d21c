"""What the designer's metrics cost: one heuristic-bot study timed with and without them.

The same games (same seed, one worker, so nothing but the tracing differs) are played as a
study with ``metrics=None``, with the default metrics (true metrics on every game, perceived on
every 4th from one seat, 2 resamples), and with perceived metrics on every game, in interleaved
rounds so machine load falls on every variant alike; each variant's time is the median over
rounds, and the overhead is against the untraced study of the same round. The budget is +30%
for the default. Writing the parquet and aggregating (bootstrap) are inside the timed study.

    python benchmarks/study_metrics.py                       # the four games, 200 games each
    python benchmarks/study_metrics.py --games 400 --rounds 5 --only spy-tracker
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from fieldcraft.sim.metrics import MetricsOptions
from fieldcraft.sim.study import load_results, run_study

GAMES = [("against-the-current", 3), ("spy-tracker", 3), ("undercover", 2), ("under-current", 5)]
VARIANTS: dict[str, MetricsOptions | None] = {
    "none": None,
    "default": MetricsOptions(),
    "perceived_every_game": MetricsOptions(samples=2, every=1),
}


def measure(game: str, players: int, games: int, rounds: int, seed: int = 0
            ) -> dict[str, Any]:
    """Median seconds per variant over ``rounds`` interleaved rounds, and the overheads."""
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    winners: dict[str, list[Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for name, options in VARIANTS.items():
                out = Path(tmp) / f"{name}-{r}"
                start = time.perf_counter()
                run_study(game, [players], "heuristic", games, seed, {}, 1, out,
                          metrics=options)
                times[name].append(time.perf_counter() - start)
                rows, _ = load_results(out)
                winners.setdefault(name, [row["winners"] for row in rows])
    same = all(w == winners["none"] for w in winners.values())
    base = statistics.median(times["none"])
    result: dict[str, Any] = {"game": game, "players": players, "games": games,
                              "rounds": rounds, "same_games": same,
                              "seconds": {k: round(statistics.median(v), 3)
                                          for k, v in times.items()}}
    result["overhead"] = {k: f"{statistics.median(v) / base - 1:+.0%}"
                          for k, v in times.items() if k != "none"}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="one game id")
    args = parser.parse_args()
    for game, players in GAMES:
        if args.only and game != args.only:
            continue
        print(json.dumps(measure(game, players, args.games, args.rounds)), flush=True)


if __name__ == "__main__":
    main()
