"""The pure-Python build beside a Cython-compiled build of the same source, in one run.

Copies ``fieldcraft/`` into a scratch folder, compiles the hot modules there with Cython (the
source unchanged: pure-Python mode, ``annotation_typing=False`` so annotations keep their
Python meaning), and then times both trees alternately, each round a fresh process per build,
so the machine's swings hit both alike:

- random playouts (``random_playout``, steps per second: the same 600 seeded games a run), every
  game;
- ISMCTS iterations per second (400-iteration searches of the same four positions as
  ``bench_ismcts``, seed 0), every game;

  both in CPU time: each run repeats its fixed work until it lasts ``--min-seconds`` (1 s;
  ``timeit``'s autorange) and the best of ``--runs`` (3) counts. The same work every run makes
  the fastest run the one the shared machine disturbed least; runs of a few dozen
  milliseconds, as a compiled playout run of 600 games is, swing by a quarter;
- the public-API loop (``api_loop``) of every game, and the API alone with the moves drawn
  beforehand (``api_replay_loop``), each beside pyspiel's C++ ``liars_dice`` when
  ``open_spiel`` is installed: each game's loop and liars_dice's alternate, ``--seconds`` of
  CPU time a run, and the best of ``--runs`` counts.

Each figure is the median over rounds, and the ratio compiled/pure is taken from the same
rounds. Nothing is written into the source tree: the ``.so`` files live in the scratch folder.

    python benchmarks/compiled.py [--rounds 3] [--build-dir /tmp/fieldcraft-compiled]
    python benchmarks/compiled.py --reuse --build-dir DIR   # time an earlier build again
    python benchmarks/compiled.py --json
    python benchmarks/compiled.py --installed   # this checkout's install (compiled by
                                                # `pip install -e .`) against FIELDCRAFT_PURE=1

Needs Cython (``pip install cython``) and a C compiler. A build of the modules below takes
about three minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT))
from fieldcraft.build import HOT_MODULES as _HOT  # noqa: E402
from fieldcraft.build import make_compiled_copy  # noqa: E402

HOT_MODULES = _HOT  # what is compiled: see fieldcraft/build.py

_WORKER = r"""
import json, random, sys, time
from fieldcraft.agents import View
from fieldcraft.agents.ismcts import ISMCTSAgent
from fieldcraft.core.api import random_playout
from fieldcraft.sim.bench import api_loop, api_replay_loop, decision_positions, \
    record_random_games
from fieldcraft.core.registry import game_spec, list_games, load_game
games, iterations, seconds, seed = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), \
    int(sys.argv[4])
runs, min_seconds = int(sys.argv[5]), float(sys.argv[6])
names = sys.argv[7:] or list_games()

def best_rate(work):
    # work() does the same work every call and returns how many units it did. Repeat it until
    # one run lasts min_seconds of CPU time (timeit's autorange), then the best of runs.
    reps = 1
    while True:
        start = time.process_time()
        units = sum(work() for _ in range(reps))
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            break
        reps = max(reps + 1, int(reps * min_seconds / max(elapsed, 1e-3) * 1.1))
    rates = [units / elapsed]
    for _ in range(runs - 1):
        start = time.process_time()
        units = sum(work() for _ in range(reps))
        rates.append(units / (time.process_time() - start))
    return max(rates)

from fieldcraft.build import active_build
out = {"build": active_build()["build"], "games": {}}
for name in names:
    game = load_game(name)

    def playouts():
        rng = random.Random(seed)
        return sum(random_playout(game.new_initial_state(), rng) for _ in range(games))

    states = decision_positions(name, game_spec(name).default_players, 4)

    def searches():
        agent = ISMCTSAgent(iterations=iterations, seed=0)
        for state in states:
            agent.search(View(state, state.current_player()))
        return iterations * len(states)

    out["games"][name] = {
        "playout_steps_per_second": best_rate(playouts),
        "ismcts_iterations_per_second": best_rate(searches)}
# The API loops: each game's and pyspiel's liars_dice's, alternating, best of runs (CPU time).
try:
    import pyspiel
except ImportError:
    pyspiel = None
makes = {name: load_game(name).new_initial_state for name in names}
if pyspiel is not None:
    makes["liars_dice"] = pyspiel.load_game("liars_dice").new_initial_state
recorded = {name: record_random_games(make, seed=seed) for name, make in makes.items()}
loop, replay = {name: 0.0 for name in makes}, {name: 0.0 for name in makes}
for _ in range(runs):
    for name, make in makes.items():
        loop[name] = max(loop[name], api_loop(make, seconds, seed))
        replay[name] = max(replay[name], api_replay_loop(make, recorded[name], seconds))
for name in names:
    out["games"][name]["api_steps_per_second"] = round(loop[name])
    out["games"][name]["api_replay_steps_per_second"] = round(replay[name])
if pyspiel is not None:
    out["liars_dice_steps_per_second"] = round(loop["liars_dice"])
    out["liars_dice_replay_steps_per_second"] = round(replay["liars_dice"])
print(json.dumps(out))
"""


def build(build_dir: Path) -> float:
    """A fresh compiled copy of the package in ``build_dir``; the build's seconds."""
    if build_dir.exists():
        shutil.rmtree(build_dir)
    build_dir.mkdir(parents=True)
    return make_compiled_copy(build_dir)


def run_tree(tree: Path, games: int, iterations: int, seconds: float, seed: int,
             names: list[str], pure: bool = False, runs: int = 3,
             min_seconds: float = 1.0) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("FIELDCRAFT_PURE", None)
    if pure:
        env["FIELDCRAFT_PURE"] = "1"
    done = subprocess.run([sys.executable, "-c", _WORKER, str(games), str(iterations),
                           str(seconds), str(seed), str(runs), str(min_seconds), *names],
                          cwd=tree, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=600,
                        help="random playouts per run (a compiled run of 150 lasts a few "
                        "milliseconds: too short to time)")
    parser.add_argument("--iterations", type=int, default=400, help="ISMCTS iterations a search")
    parser.add_argument("--seconds", type=float, default=0.5, help="API loop time per game")
    parser.add_argument("--runs", type=int, default=3,
                        help="timed runs of the playouts and of the searches; the best counts")
    parser.add_argument("--min-seconds", type=float, default=1.0,
                        help="CPU seconds a timed run lasts at least (the work is repeated)")
    parser.add_argument("--game", action="append", default=[], help="only these games")
    parser.add_argument("--build-dir", type=Path, default=None)
    parser.add_argument("--pure-dir", type=Path, default=None,
                        help="the pure tree to time (default: this checkout)")
    parser.add_argument("--reuse", action="store_true", help="time the build in --build-dir")
    parser.add_argument("--installed", action="store_true",
                        help="time this checkout's installed build against FIELDCRAFT_PURE=1")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    build_seconds = None
    if args.installed:
        trees = {"pure": ROOT, "compiled": ROOT}
    else:
        build_dir = args.build_dir or Path(tempfile.mkdtemp(prefix="fieldcraft-compiled-"))
        if not args.reuse:
            build_seconds = build(build_dir)
        trees = {"pure": args.pure_dir or ROOT, "compiled": build_dir}
    samples: dict[str, list[dict]] = {"pure": [], "compiled": []}
    for round_ in range(args.rounds):
        order = ("pure", "compiled") if round_ % 2 == 0 else ("compiled", "pure")
        for label in order:
            result = run_tree(trees[label], args.games, args.iterations, args.seconds, round_,
                              args.game, pure=label == "pure", runs=args.runs,
                              min_seconds=args.min_seconds)
            if result["build"] != label:
                raise SystemExit(f"{trees[label]} ran the {result['build']} build, not {label}")
            samples[label].append(result)

    def med(label: str, game: str, key: str) -> float:
        return statistics.median(s["games"][game][key] for s in samples[label])

    games = list(samples["pure"][0]["games"])
    keys = ("playout_steps_per_second", "ismcts_iterations_per_second", "api_steps_per_second",
            "api_replay_steps_per_second")
    report: dict = {"rounds": args.rounds, "build_seconds": build_seconds,
                    "modules": len(HOT_MODULES), "games": {}}
    for game in games:
        report["games"][game] = {
            key: {"pure": round(med("pure", game, key)),
                  "compiled": round(med("compiled", game, key)),
                  "ratio": round(statistics.median(
                      c["games"][game][key] / p["games"][game][key]
                      for p, c in zip(samples["pure"], samples["compiled"], strict=True)), 2)}
            for key in keys}
    ld = None
    for loop in ("api_steps_per_second", "api_replay_steps_per_second"):
        key = f"liars_dice_{loop[4:]}"
        ld = [s[key] for s in samples["pure"] + samples["compiled"] if key in s]
        if not ld:
            break
        ref = statistics.median(ld)
        report[key] = round(ref)
        for game in games:
            entry = report["games"][game][loop]
            entry["compiled_ratio_to_liars_dice"] = round(entry["compiled"] / ref, 2)
            entry["pure_ratio_to_liars_dice"] = round(entry["pure"] / ref, 2)
    if args.json:
        print(json.dumps(report))
        return 0
    if build_seconds is not None:
        print(f"built {len(HOT_MODULES)} modules in {build_seconds:.0f} s into "
              f"{trees['compiled']}")
    print(f"median of {args.rounds} rounds, builds alternating; ratio = compiled / pure "
          "(median of the rounds' ratios)")
    labels = {"playout_steps_per_second": "random playouts, steps/s",
              "ismcts_iterations_per_second": "ISMCTS iterations/s (CPU)",
              "api_steps_per_second": "public-API loop, steps/s",
              "api_replay_steps_per_second": "API alone (moves drawn), /s"}
    for game in games:
        print(game)
        for key in keys:
            e = report["games"][game][key]
            extra = ""
            if "compiled_ratio_to_liars_dice" in e:
                extra = f"   vs liars_dice: {e['pure_ratio_to_liars_dice']:.2f} -> " \
                        f"{e['compiled_ratio_to_liars_dice']:.2f}"
            print(f"  {labels[key]:<28} {e['pure']:>10,} -> {e['compiled']:>10,}  "
                  f"x{e['ratio']:.2f}{extra}")
    if ld:
        print(f"pyspiel liars_dice (C++) public-API loop: {report['liars_dice_steps_per_second']:,}"
              f" steps/s; API alone: {report['liars_dice_replay_steps_per_second']:,} steps/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
