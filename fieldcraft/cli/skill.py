"""``fieldcraft skill``: a skill trace on its own, by iterations or by seconds a move.

``study --skill-trace`` plays one after a study; this command plays only the trace (a designer
asking "how much does thinking pay in this game?" needs no balance study first), writes it
with its chart and Markdown into a folder, and with ``--study`` adds it to an existing study so
the designer's lab report shows it. ``--seconds 0.1,0.3,1,3`` gives the searcher a time per
move, as a person waiting at a table gives the bot (issue #35), with ``--clock cpu`` counted in
the searcher's CPU seconds so a shared machine's load does not shrink it; ``--iterations``
repeatable budgets. Progress is shown from the first game: every budget's games as they finish,
the whole trace's with the time left, and a line per budget with its result once it is played.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fieldcraft.cli.args import parse_player_range, parse_sets
from fieldcraft.core.api import FieldcraftError


def parse_budgets(text: str, option: str) -> list[float]:
    """``0.1,0.3,1,3`` as positive numbers, or a one-line error naming ``option``."""
    try:
        budgets = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        budgets = []
    if not budgets or min(budgets) <= 0:
        raise FieldcraftError(f"{option} expects positive numbers like 0.1,0.3,1,3; got {text!r}")
    return budgets


def _cmd_skill(args: argparse.Namespace) -> int:
    try:
        import matplotlib  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise FieldcraftError(
            f"skill traces need the study extra (pip install -e '.[study]'): {exc}") from None
    if args.seconds and args.iterations:
        raise FieldcraftError("give --seconds or --iterations, not both")
    if args.clock == "cpu" and not args.seconds:
        raise FieldcraftError("--clock cpu times --seconds budgets; give --seconds too")
    unit = ("cpu" if args.clock == "cpu" else "time") if args.seconds else "iterations"
    budgets = parse_budgets(args.seconds or args.iterations or "25,50,100,200,400",
                            "--seconds" if args.seconds else "--iterations")
    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    if not (args.out or args.study):
        raise FieldcraftError("give --out DIR (a new folder) or --study DIR (a study's folder)")
    out = Path(args.out or args.study)
    if args.study and not (out / "study.json").exists():
        raise FieldcraftError(f"--study {out}: no study.json there (run fieldcraft study)")
    counts = parse_player_range(args.players)
    trace = play_trace(args, counts, budgets, unit, out)
    return _write(args, trace, out)


def play_trace(args: argparse.Namespace, counts: list[int], budgets: list[float], unit: str,
               out: Path) -> dict[str, Any]:
    """The trace, with progress on stderr: a bar per budget, one for the whole trace with
    the time left, and a line per finished budget."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from fieldcraft.sim import skill

    console = Console(stderr=True, highlight=False)
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=console) as progress:
        whole = progress.add_task(f"skill trace {args.game}: all games", total=None)
        tasks: dict[str, Any] = {}

        def on_budget(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = progress.add_task(f"  {label}", total=total)
            progress.update(tasks[label], completed=done, total=total)
            if done == total and total:
                progress.console.print(f"played {label}: {total} games")

        def on_all(done: int, total: int) -> None:
            progress.update(whole, completed=done, total=total)

        try:
            return skill.run_skill_trace(args.game, counts, args.seed, parse_sets(args.set),
                                         args.workers, out, budgets, args.games, unit,
                                         progress=on_budget, overall=on_all)
        except ValueError as exc:
            raise FieldcraftError(str(exc)) from None


def _write(args: argparse.Namespace, trace: dict[str, Any], out: Path) -> int:
    """``skill_trace.json``, ``skill_trace.md`` and the chart in ``out``; with ``--study``
    the trace also goes into the study and its report is written again."""
    from fieldcraft.sim import skill

    (out / "skill_trace.json").write_text(json.dumps(trace, indent=2) + "\n", encoding="utf-8")
    lines = [f"# Skill trace: {args.game}", "", *skill.section(trace), ""]
    (out / "skill_trace.md").write_text("\n".join(lines), encoding="utf-8")
    skill.chart(trace, out)
    if args.study:
        from fieldcraft.sim.report import write_report

        skill.add_to_study(out, trace)
        write_report(out)
    if args.json:
        print(json.dumps(trace))
    else:
        print("\n".join(lines))
    return 130 if trace.get("interrupted") else 0


def add(sub: Any) -> None:
    """Register ``skill`` on the ``fieldcraft`` parser."""
    p = sub.add_parser("skill", help="a skill trace: one search seat at growing budgets "
                                     "against the heuristic bot")
    p.add_argument("game")
    p.add_argument("--players", default="2", help="a count or range (default 2)")
    p.add_argument("--seconds", default=None, metavar="S,S,...",
                   help="seconds a move, e.g. 0.1,0.3,1,3 (the searcher's time per move)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="with --seconds: wall time (default; what a person waits, so the load "
                        "matters) or the searcher's CPU time (the same budget on a busy machine)")
    p.add_argument("--iterations", default=None, metavar="B,B,...",
                   help="iterations a move (default 25,50,100,200,400)")
    p.add_argument("--games", type=int, default=40, help="games per budget and player count")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.add_argument("--workers", type=int, default=None, help="local processes (default: cores)")
    p.add_argument("--out", default=None, help="a folder for the trace, its chart and text")
    p.add_argument("--study", default=None, metavar="DIR",
                   help="add the trace to this study's folder and write its report again")
    p.add_argument("--json", action="store_true", help="print the trace as JSON")
    p.set_defaults(func=_cmd_skill)
