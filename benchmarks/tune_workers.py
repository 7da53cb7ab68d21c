"""Trials per second of ``fieldcraft tune`` with 1 and with 2 local worker processes.

The same search (game, params, target, trials, games per trial, seed) runs once per worker
count, the counts interleaved over ``--repeats`` rounds (1, 2, 1, 2, ...) so that load from
others on a shared machine falls on both alike; the median wall time per count is reported,
and the ratio of the two is the speed-up. The time is the search phase's (``tune.json``'s
``seconds.search``: the ``--trials`` TPE trials; the default's trial, the re-evaluation,
imports and files are left out, as they do not grow with the trials), and the whole run's.

On a shared machine two processes only run twice as fast if two cores are free, so each round
also times a pure-Python CPU loop in 1 and in 2 processes (``machine_speedup``): the speed-up
the machine could give at that moment. ``speedup`` near ``machine_speedup`` means tune uses
what it gets; both near 2 means the 2x claim holds. CPU time does not depend on others' load
as wall time does, so each run also records the CPU seconds of this process (the sampler,
the metrics, the files: the serial part) and of its worker processes; ``cpu_bound_speedup``
is the 1-worker run's CPU seconds over (serial + workers' / 2), the speed-up two free cores
would give by Amdahl's law.

    python benchmarks/tune_workers.py under-current --players 4 --trials 12 --games 200
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from fieldcraft.sim.tune import tune

_BURN = 8_000_000


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_ratio() -> float:
    """Seconds of two CPU loops in one process over the same two in two processes."""
    start = time.perf_counter()
    _burn(_BURN)
    _burn(_BURN)
    one = time.perf_counter() - start
    with ProcessPoolExecutor(2) as pool:
        pool.submit(_burn, 1).result()  # the pool's start-up is not the machine's speed
        start = time.perf_counter()
        list(pool.map(_burn, [_BURN, _BURN]))
        two = time.perf_counter() - start
    return one / two


def measure(game: str, players: list[int], params: list[str], target: str, trials: int,
            games: int, workers: list[int], repeats: int, seed: int = 0) -> dict[str, Any]:
    """Median wall seconds and trials/s per worker count, with every run's seconds."""
    runs: dict[int, list[float]] = {k: [] for k in workers}
    search: dict[int, list[float]] = {k: [] for k in workers}
    machine: list[float] = []
    cpus: dict[int, list[tuple[float, float]]] = {k: [] for k in workers}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeats):
            machine.append(machine_ratio())
            for k in workers:
                kids = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu, start = time.process_time(), time.perf_counter()
                meta = tune(game, players, params, target, trials, Path(tmp) / f"w{k}-{r}",
                            games_per_trial=games, seed=seed, workers=k, reeval_games=0)
                runs[k].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool has ended
                cpus[k].append((time.process_time() - cpu,
                                after.ru_utime + after.ru_stime - kids.ru_utime - kids.ru_stime))
                search[k].append(meta["seconds"]["search"])
    out: dict[str, Any] = {"game": game, "players": players, "params": params,
                           "target": target, "trials": trials, "games_per_trial": games,
                           "repeats": repeats, "workers": {},
                           "machine_speedup": [round(m, 2) for m in machine]}
    for k in workers:
        med = statistics.median(search[k])
        out["workers"][str(k)] = {"search_seconds": [round(s, 2) for s in search[k]],
                                  "run_seconds": [round(s, 2) for s in runs[k]],
                                  "median_search_seconds": round(med, 2),
                                  "trials_per_s": round(trials / med, 2),
                                  "cpu_serial_seconds": [round(a, 2) for a, _ in cpus[k]],
                                  "cpu_worker_seconds": [round(b, 2) for _, b in cpus[k]]}
    if len(workers) >= 2:
        a, b = (out["workers"][str(k)] for k in workers[:2])
        out["speedup"] = round(a["median_search_seconds"] / b["median_search_seconds"], 2)
        out["speedup_whole_run"] = round(statistics.median(runs[workers[0]])
                                         / statistics.median(runs[workers[1]]), 2)
        out["median_machine_speedup"] = round(statistics.median(machine), 2)
        one = statistics.median(a + b for a, b in cpus[workers[0]])
        serial = statistics.median(a for a, _ in cpus[workers[1]])
        parallel = statistics.median(b for _, b in cpus[workers[1]])
        out["cpu_bound_speedup"] = round(one / (serial + parallel / workers[1]), 2)
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
