"""``fieldcraft compare``: the rule A/B test between two studies, paired when they allow."""

from __future__ import annotations

import argparse
import json
from typing import Any

from fieldcraft.cli.args import parse_player_range, parse_sets
from fieldcraft.core.api import FieldcraftError


def _run_paired_studies(args: argparse.Namespace) -> None:
    """``compare A B --run GAME``: play ruleset A into folder A and B into folder B from one
    seed (the same deals and seats), with a report for each, before comparing them."""
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    from fieldcraft.sim.paired import run_pair
    from fieldcraft.sim.report import write_report

    try:
        import matplotlib  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise FieldcraftError(
            f"studies need the study extra (pip install -e '.[study]'): {exc}") from None
    if args.players is None:
        raise FieldcraftError("--run needs --players (a count or range: 5, 3-8, 3,5,8)")
    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    from fieldcraft.cli.study import study_agents

    players = parse_player_range(args.players)
    agents = [a.spec for a in study_agents(args.run, args.agents, players)]
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), console=Console(stderr=True)) as progress:
        tasks = {side: progress.add_task(f"{args.run} {args.players}p ruleset {side}",
                                         total=None) for side in ("A", "B")}

        def on_progress(side: str, done: int, total: int) -> None:
            progress.update(tasks[side], completed=done, total=total)

        run_pair(args.run, players, agents, args.games, args.seed,
                 parse_sets(args.set_a), parse_sets(args.set_b), args.workers, Path(args.a),
                 Path(args.b), progress=on_progress, ray_address=args.ray)
    for folder in (args.a, args.b):
        write_report(Path(folder))


def _cmd_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from fieldcraft.sim.compare import compare, write_comparison

    paired = False if args.unpaired else (True if args.paired or args.run else None)
    if args.run:
        _run_paired_studies(args)
    try:
        result = compare(Path(args.a), Path(args.b), paired)
    except (ValueError, FileNotFoundError) as exc:
        raise FieldcraftError(str(exc)) from None
    out = Path(args.out) if args.out else Path(args.b)
    md, png = write_comparison(Path(args.a), Path(args.b), out, paired)
    if args.json:
        print(json.dumps(result, allow_nan=False))  # strict: jq and browsers refuse Infinity
        return 0
    print(md.read_text())
    print(f"chart: {png}")
    return 0


def add(sub: Any) -> None:
    """Register this module's commands on the ``fieldcraft`` parser."""
    p = sub.add_parser("compare", help="rule A/B test between two study folders")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--out", help="where to write comparison.md/png (default: folder B)")
    p.add_argument("--json", action="store_true")
    pairing = p.add_mutually_exclusive_group()
    pairing.add_argument("--paired", action="store_true",
                         help="require paired games (same seed and agents; the default pairs "
                              "them whenever the studies allow)")
    pairing.add_argument("--unpaired", action="store_true",
                         help="compare as independent studies even when the games pair")
    p.add_argument("--run", metavar="GAME",
                   help="first play both rulesets as studies into folders A and B from one "
                        "seed (same deals and seats: a paired test), then compare them")
    p.add_argument("--players", help="with --run: a count or range: 5, 3-8, 3,5,8")
    p.add_argument("--agents", default="random",
                   help="with --run: comma-separated agent specs or bot levels (easy, normal, "
                        "strong)")
    p.add_argument("--games", type=int, default=1000, help="with --run: games per player count")
    p.add_argument("--seed", type=int, default=0, help="with --run: the seed both share")
    p.add_argument("--set-a", action="append", metavar="KEY=VALUE",
                   help="with --run: ruleset A's override (default: the default rules)")
    p.add_argument("--set-b", action="append", metavar="KEY=VALUE",
                   help="with --run: ruleset B's override")
    p.add_argument("--workers", type=int, default=None, help="with --run: as for study")
    p.add_argument("--ray", metavar="ADDRESS", default=None, help="with --run: as for study")
    p.set_defaults(func=_cmd_compare)
