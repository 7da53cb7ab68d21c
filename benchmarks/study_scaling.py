"""Games per second of ``run_study`` with 1 and 2 local worker processes, and optionally on Ray.

Shows whether splitting a study across processes pays for its overhead (starting workers,
pickling rows back) on a given game, and checks on the way that the results are identical.
With ``--ray`` the same study also runs as Ray tasks (``--ray auto``: a local Ray instance with
as many CPUs as the largest ``--workers``). Ray's start-up is timed apart from the games, since
it is paid once per connection: ``games_per_s`` leaves it out, ``games_per_s_with_startup``
is what a single ``fieldcraft study --ray auto`` sees.

    python benchmarks/study_scaling.py against-the-current --players 4 --games 4000
    python benchmarks/study_scaling.py under-current --players 5 --games 4000 --workers 1 2
    python benchmarks/study_scaling.py under-current --players 5 --games 4000 --ray
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from fieldcraft.sim.study import load_results, ray_cluster, run_study


def measure(game: str, players: int, games: int, workers: list[int], agent: str = "random",
            seed: int = 0, ray: str | None = None) -> list[dict[str, Any]]:
    """Wall-clock games/s of one study per worker count (including writing the parquet), then
    of one study on Ray when ``ray`` is an address or ``"auto"``."""
    out: list[dict[str, Any]] = []
    reference = None

    def timed(label: dict[str, Any], path: Path, **kwargs: Any) -> dict[str, Any]:
        nonlocal reference
        start = time.perf_counter()
        run_study(game, [players], agent, games, seed, {}, out_dir=path, **kwargs)
        elapsed = time.perf_counter() - start
        rows, _ = load_results(path)
        if reference is None:
            reference = rows
        result = {**label, "games": games, "seconds": round(elapsed, 3),
                  "games_per_s": round(games / elapsed, 1),
                  "identical_to_first": rows == reference}
        out.append(result)
        return result

    with tempfile.TemporaryDirectory() as tmp:
        for k in workers:
            timed({"backend": "local", "workers": k}, Path(tmp) / f"w{k}", workers=k)
        if ray is not None:
            start = time.perf_counter()
            with ray_cluster(ray, max(workers)) as (_, cpus):
                startup = time.perf_counter() - start
                result = timed({"backend": "ray", "ray": ray, "workers": cpus},
                               Path(tmp) / "ray", workers=None, ray_address=ray)
            result["startup_seconds"] = round(startup, 3)
            result["games_per_s_with_startup"] = round(
                games / (startup + result["seconds"]), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--agent", default="random")
    parser.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                        help="also run on Ray: 'auto' (the default) starts a local instance")
    args = parser.parse_args()
    results = measure(args.game, args.players, args.games, args.workers, args.agent,
                      ray=args.ray)
    print(json.dumps(results, indent=2))
    if not all(r["identical_to_first"] for r in results):
        raise SystemExit("results differ between runs: the study is not reproducible")


if __name__ == "__main__":
    main()
