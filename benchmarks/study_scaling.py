"""Games per second of ``run_study`` with 1 and 2 local worker processes.

Shows whether splitting a study across processes pays for its overhead (starting workers,
pickling rows back) on a given game, and checks on the way that the results are identical.

    python benchmarks/study_scaling.py against-the-current --players 4 --games 4000
    python benchmarks/study_scaling.py under-current --players 5 --games 4000 --workers 1 2
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from fieldcraft.sim.study import load_results, run_study


def measure(game: str, players: int, games: int, workers: list[int], agent: str = "random",
            seed: int = 0) -> list[dict]:
    """Wall-clock games/s of one study per worker count (including writing the parquet)."""
    out = []
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        for k in workers:
            path = Path(tmp) / f"w{k}"
            start = time.perf_counter()
            run_study(game, [players], agent, games, seed, {}, k, path)
            elapsed = time.perf_counter() - start
            rows, _ = load_results(path)
            if reference is None:
                reference = rows
            out.append({"workers": k, "games": games, "seconds": round(elapsed, 3),
                        "games_per_s": round(games / elapsed, 1),
                        "identical_to_first": rows == reference})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--agent", default="random")
    args = parser.parse_args()
    results = measure(args.game, args.players, args.games, args.workers, args.agent)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
