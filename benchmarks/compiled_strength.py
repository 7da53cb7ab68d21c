"""What the compiled build's speed buys: search strength at ``time=1`` and the cost of a study.

Three measurements, each with the pure build (``FIELDCRAFT_PURE=1``) and this checkout's
installed compiled build side by side:

1. ``budget``: how many ISMCTS iterations ``time=1`` gives, per build, on seeded Undercover
   2-player decision positions (a fresh process per build and round, builds alternating; CPU
   time, so another process on the machine does not shrink one build's share).
2. ``strength``: Undercover 2 players, ISMCTS against the heuristic bot, seat-rotated, at each
   build's median ``time=1`` budget as a fixed iteration count, with Wilson 95% intervals. A fixed
   budget makes the games exactly the same in both builds (tests/test_compiled.py checks the
   decisions are identical), so these games run on the compiled build, two at a time, and a busy
   machine cannot bias them; a ``time=1`` game on the pure build would play these same moves at
   the pure budget.
3. ``study``: the cost of an Under Current 5-player study with ISMCTS (its default 1,000
   iterations) in every seat: games alternating between builds, CPU seconds per game, and that
   figure times 200.

    python benchmarks/compiled_strength.py budget --rounds 3
    python benchmarks/compiled_strength.py strength --games 120 --pure 6100 --compiled 7300
    python benchmarks/compiled_strength.py study --games 3
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_BUDGET = r"""
import json, sys, time
from fieldcraft.agents import View
from fieldcraft.agents.ismcts import ISMCTSAgent
from fieldcraft.build import active_build
from fieldcraft.sim.bench import decision_positions
counts = []
for state in decision_positions("undercover", 2, int(sys.argv[1]), seed=int(sys.argv[2])):
    agent = ISMCTSAgent(time=1.0, seed=1)
    agent.search(View(state, state.current_player()))
    counts.append(agent.last_iterations)
print(json.dumps({"build": active_build()["build"], "iterations": counts}))
"""

_STUDY = r"""
import json, sys, time
from fieldcraft.build import active_build
from fieldcraft.core.registry import load_game
from fieldcraft.sim.simulate import game_seed, play_game
game = load_game("under-current", players=5)
start = time.process_time()
state = play_game(game, ["ismcts"] * 5, game_seed(200, int(sys.argv[1])))
print(json.dumps({"build": active_build()["build"], "cpu": time.process_time() - start,
                  "steps": len(state.history())}))
"""


def _run(code: str, pure: bool, *args: object) -> dict:
    env = dict(os.environ)
    env.pop("FIELDCRAFT_PURE", None)
    if pure:
        env["FIELDCRAFT_PURE"] = "1"
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, env=env,
                          check=True, capture_output=True, text=True)
    out = json.loads(done.stdout)
    want = "pure" if pure else "compiled"
    if out["build"] != want:
        raise SystemExit(f"expected the {want} build, ran {out['build']} (is it installed?)")
    return out


def budget(rounds: int, positions: int) -> dict:
    seen: dict[str, list[int]] = {"pure": [], "compiled": []}
    for r in range(rounds):
        for label in (("pure", "compiled") if r % 2 == 0 else ("compiled", "pure")):
            seen[label] += _run(_BUDGET, label == "pure", positions, 11 + r)["iterations"]
    med = {k: round(statistics.median(v)) for k, v in seen.items()}
    return {"positions": positions * rounds, "median_iterations": med,
            "ratio": round(med["compiled"] / med["pure"], 2)}


def _strength_game(job: tuple[int, int, int]) -> float:
    from fieldcraft.core.registry import load_game
    from fieldcraft.sim.simulate import game_seed, play_game

    iterations, i, seed = job
    seat = i % 2
    specs = ["heuristic", "heuristic"]
    specs[seat] = f"ismcts(iterations={iterations})"
    state = play_game(load_game("undercover", players=2), specs, game_seed(seed, i))
    return state.returns()[seat]


def strength(budgets: dict[str, int], games: int, seed: int, workers: int) -> dict:
    from fieldcraft.build import active_build
    from fieldcraft.sim.stats import wilson

    if active_build()["build"] != "compiled":
        raise SystemExit("run the strength games on the compiled build (pip install -e .)")
    out = {}
    with multiprocessing.get_context("forkserver").Pool(workers) as pool:
        for label, iterations in budgets.items():
            start = time.perf_counter()
            wins = sum(pool.map(_strength_game, [(iterations, i, seed) for i in range(games)]))
            low, high = wilson(wins, games)
            out[label] = {"iterations": iterations, "games": games, "wins": wins,
                          "win_rate": round(wins / games, 4),
                          "wilson95": [round(low, 4), round(high, 4)],
                          "wall_seconds": round(time.perf_counter() - start)}
            print(json.dumps({label: out[label]}), file=sys.stderr, flush=True)
    return out


def study(games: int) -> dict:
    seen: dict[str, list[float]] = {"pure": [], "compiled": []}
    for i in range(games):
        for label in (("pure", "compiled") if i % 2 == 0 else ("compiled", "pure")):
            seen[label].append(_run(_STUDY, label == "pure", i)["cpu"])
    per = {k: round(statistics.mean(v), 1) for k, v in seen.items()}
    return {"games_per_build": games, "cpu_seconds_per_game": per,
            "estimated_200_game_study_cpu_minutes": {k: round(v * 200 / 60) for k, v in
                                                     per.items()},
            "ratio": round(per["pure"] / per["compiled"], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    b = sub.add_parser("budget")
    b.add_argument("--rounds", type=int, default=3)
    b.add_argument("--positions", type=int, default=4)
    s = sub.add_parser("strength")
    s.add_argument("--games", type=int, default=120)
    s.add_argument("--pure", type=int, help="the pure build's time=1 budget")
    s.add_argument("--compiled", type=int, help="the compiled build's time=1 budget")
    s.add_argument("--seed", type=int, default=2026)
    s.add_argument("--workers", type=int, default=2)
    t = sub.add_parser("study")
    t.add_argument("--games", type=int, default=3, help="games per build")
    args = parser.parse_args(argv)
    if args.what == "budget":
        result = budget(args.rounds, args.positions)
    elif args.what == "strength":
        budgets = {label: n for label, n in (("pure", args.pure), ("compiled", args.compiled))
                   if n is not None}
        if not budgets:
            parser.error("strength needs --pure, --compiled or both (iterations per move)")
        result = strength(budgets, args.games, args.seed, args.workers)
    else:
        result = study(args.games)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
