"""``fieldcraft bench``: random-playout, search and public-API speed of every game."""

from __future__ import annotations

import argparse
import json
from typing import Any


def _cmd_bench(args: argparse.Namespace) -> int:
    from fieldcraft.sim.bench import bench_all

    names = [args.game] if args.game else None
    results = bench_all(games=args.games, runs=args.runs, names=names, players=args.players)
    if not args.no_ismcts:
        from fieldcraft.sim.bench import bench_ismcts

        for r in results:
            search = bench_ismcts(r["game"], r["players"], runs=max(1, min(args.runs, 3)))
            r["ismcts_iterations_per_second"] = search["ismcts_iterations_per_second"]
            r["ismcts_iterations_per_second_best"] = search["ismcts_iterations_per_second_best"]
            r["ismcts_runs"] = search["runs"]
            r["ismcts_rollout_depth"] = search["rollout_depth"]
            r["ismcts_opponents"] = search["opponents"]
            if search["opponents"] != "tree":  # also the plain single-observer rate
                tree = bench_ismcts(r["game"], r["players"], runs=max(1, min(args.runs, 3)),
                                    opponents="tree")
                r["ismcts_tree_iterations_per_second"] = tree["ismcts_iterations_per_second"]
                r["ismcts_tree_iterations_per_second_best"] = (
                    tree["ismcts_iterations_per_second_best"])
    reference = None
    if args.api:  # the public-API loop, beside pyspiel's liars_dice when open_spiel is there
        from fieldcraft.sim.bench import bench_api

        api = bench_api(names, args.players, rounds=args.runs, seconds=args.api_seconds)
        reference = api["liars_dice_steps_per_second"]
        for r, row in zip(results, api["games"], strict=True):
            r["api_steps_per_second"] = row["steps_per_second"]
            r["api_ratio_to_liars_dice"] = row["ratio_to_liars_dice"]
            r["liars_dice_steps_per_second"] = reference
            r["api_replay_steps_per_second"] = row["replay_steps_per_second"]
            r["api_replay_ratio_to_liars_dice"] = row["replay_ratio_to_liars_dice"]
            r["liars_dice_replay_steps_per_second"] = api["liars_dice_replay_steps_per_second"]
    if args.json:
        from fieldcraft.build import active_build

        build = active_build()
        for r in results:
            r["build"] = build["build"]
            r["compiled_modules"] = build["compiled"]
        print(json.dumps(results))
        return 0
    if args.api:
        print("public-API loop (README): " + (f"pyspiel liars_dice {reference:,} steps/s"
              if reference else "open_spiel not installed, no liars_dice reference"))
    for r in results:
        print(_bench_lines(r))
    return 0


def _bench_lines(r: dict[str, Any]) -> str:
    """One game's results as text: playouts, then search and API rates if measured."""
    line = (f"{r['game']:<22} {r['players']}p  {r['steps_per_second']:>10,} steps/s  "
            f"{r['games_per_second']:>8,.1f} games/s  ({r['mean_steps_per_game']} steps/game, "
            f"median of {r['runs']} runs x {r['games_per_run']} games)")
    if "ismcts_iterations_per_second" in r:
        line += (f"\n{'':<26}{r['ismcts_iterations_per_second']:>10,} ISMCTS iterations/s "
                 f"(CPU, opponents: {r['ismcts_opponents']}; median of {r['ismcts_runs']} "
                 f"runs, best {r['ismcts_iterations_per_second_best']:,})")
    if "api_steps_per_second" in r:
        ratio = r["api_ratio_to_liars_dice"]
        line += (f"\n{'':<26}{r['api_steps_per_second']:>10,} steps/s through the public API"
                 + (f" ({ratio:.2f}x liars_dice)" if ratio is not None else ""))
        ratio = r["api_replay_ratio_to_liars_dice"]
        line += (f"\n{'':<26}{r['api_replay_steps_per_second']:>10,} steps/s of the API "
                 "alone, moves drawn beforehand"
                 + (f" ({ratio:.2f}x liars_dice)" if ratio is not None else ""))
    if "ismcts_tree_iterations_per_second" in r:
        line += (f"\n{'':<26}{r['ismcts_tree_iterations_per_second']:>10,} ISMCTS "
                 f"iterations/s (CPU, opponents: tree; median of {r['ismcts_runs']} runs, "
                 f"best {r['ismcts_tree_iterations_per_second_best']:,})")
    return line


def add(sub: Any) -> None:
    """Register this module's commands on the ``fieldcraft`` parser."""
    p = sub.add_parser("bench", help="random-playout speed of every game")
    p.add_argument("--game", help="only this game")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--games", type=int, default=300, help="games per run")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--no-ismcts", action="store_true", help="skip the search benchmark")
    p.add_argument("--api", action="store_true",
                   help="also time the public-API loop (and pyspiel's liars_dice if installed)")
    p.add_argument("--api-seconds", type=float, default=1.0, metavar="S",
                   help="seconds per game per run of the public-API loop (default 1)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_bench)
