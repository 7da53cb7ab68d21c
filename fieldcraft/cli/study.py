"""``fieldcraft study`` (with its skill trace) and ``fieldcraft tune``: the designer's lab."""

from __future__ import annotations

import argparse
import json
from typing import Any

from fieldcraft.agents.specs import describe_levels, resolve_for_counts, split_agents
from fieldcraft.cli.args import parse_player_range, parse_sets
from fieldcraft.core.api import FieldcraftError
from fieldcraft.sim.skill import UNITS

ROBUSTNESS_GAMES = 20
"""Games per player count of a study's robustness check by default (docs/designers.md)."""
ROBUSTNESS_SECONDS = 300.0
"""Its time budget by default: a game of the second mix took 0.4-7 s in Spy Tracker, Against the
Current and Under Current and 10-21 s in two-player Undercover (compiled, one process), so with
two workers 20 games at 4 counts fit in it except in Undercover, which gets its first dozen or
so per count; a default study takes minutes itself (docs/designers.md, "Robustness")."""


def _cmd_study(args: argparse.Namespace) -> int:
    from pathlib import Path

    try:
        import matplotlib  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise FieldcraftError(
            f"studies need the study extra (pip install -e '.[study]'): {exc}"
        ) from None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from fieldcraft.sim.report import write_report
    from fieldcraft.sim.study import run_study

    budgets, players, metrics = _study_options(args)
    agents = study_agents(args.game, args.agents, players)
    out = Path(args.out)
    console = Console(highlight=False)
    if describe_levels(agents):
        console.print(f"levels in {args.game}: {describe_levels(agents)}")
    import time

    started = time.perf_counter()
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), "{task.fields[rate]}", TimeRemainingColumn(),
                  console=console) as progress:
        label = f"{args.game} {args.players}p"
        waiting = f"{label} (starting Ray)" if args.ray == "auto" else f"{label} (connecting)"
        task = progress.add_task(waiting if args.ray else label, total=None, rate="")

        def on_progress(done: int, total: int) -> None:
            nonlocal started
            if done == 0:  # games start now: the rate leaves out Ray's start-up
                started = time.perf_counter()
            rate = done / max(time.perf_counter() - started, 1e-9)
            progress.update(task, description=label, completed=done, total=total,
                            rate=f"{rate:,.0f} games/s")

        run_study(args.game, players, [a.spec for a in agents], args.games, args.seed,
                  parse_sets(args.set), args.workers, out, progress=on_progress,
                  ray_address=args.ray, until_ci=args.until_ci, max_games=args.max_games,
                  metrics=metrics)
    meta = json.loads((out / "study.json").read_text())
    if args.skill_trace and not meta.get("interrupted"):
        _skill_trace(args, budgets, players, out, console)
    stopped = False
    if not meta.get("interrupted"):
        try:
            _robustness(args, out, console)
        except KeyboardInterrupt:  # the study's games are kept; the check is not stored
            stopped = True
    html, md = write_report(out)
    meta = json.loads((out / "study.json").read_text())
    if meta.get("until_ci"):
        from fieldcraft.sim.precision import describe

        console.print(describe(meta["until_ci"]))
    console.print(f"results: {out / 'results.parquet'}\nreport: {html}\n        {md}")
    if meta.get("interrupted") or meta.get("skill_trace", {}).get("interrupted"):
        console.print("[yellow]interrupted: the report covers the games that finished[/]")
        return 130
    if stopped:
        console.print("[yellow]robustness check interrupted: the report says it was not "
                      "checked[/]")
        return 130
    return 0


def add_robustness_arguments(p: argparse.ArgumentParser, among: str) -> None:
    """The second bot mix's options, shared by ``study`` and ``playtest report`` so that both
    take the same names, defaults and meaning; ``among`` says whose bots the search bot joins."""
    p.add_argument("--robustness-games", type=int, default=ROBUSTNESS_GAMES, metavar="N",
                   help="re-play up to N games per player count with one search bot (the "
                        f"game's Strong level at that count) {among} and flag the conclusions "
                        f"that flip (default {ROBUSTNESS_GAMES}; 0 switches it off and the "
                        "report says so)")
    p.add_argument("--robustness-seconds", type=float, default=ROBUSTNESS_SECONDS,
                   metavar="S", help="start no game of that check after S seconds, so the "
                   "slow search bot cannot stretch the run; the report says how many games "
                   f"each count got (default {ROBUSTNESS_SECONDS:g}; 0: no limit)")
    p.add_argument("--robustness-bot", default=None, metavar="SPEC",
                   help="the search bot of that second mix (default: the game's Strong level)")


def _robustness(args: argparse.Namespace, out: Any, console: Any) -> None:
    """The second bot mix (:mod:`fieldcraft.sim.robustness`), or the note that it was switched
    off, stored in the study for its report."""
    from fieldcraft.sim import robustness

    if not args.robustness_games:
        robustness.switched_off(out)
        return
    console.print(f"robustness: up to {args.robustness_games} games per player count with one "
                  f"search bot among the study's (at most {args.robustness_seconds:g} s; "
                  "--robustness-games 0 skips it)")
    result = robustness.add_to_study(out, args.robustness_games, args.robustness_bot,
                                     args.workers, args.robustness_seconds or None)
    played = ", ".join(f"{n} at {p}p" for p, n in result["played"].items())
    console.print(f"robustness: {played}; {len(result['flips'])} conclusion(s) flip")


def study_agents(game: str, text: str, counts: list[int]) -> list[Any]:
    """``--agents`` of a command that plays one list at several player counts, level names
    resolved for ``game`` (:func:`fieldcraft.agents.specs.resolve_for_counts`)."""
    try:
        return resolve_for_counts(game, split_agents(text), counts)
    except ValueError as exc:
        raise FieldcraftError(str(exc)) from None


def _study_options(args: argparse.Namespace) -> tuple[list[float], list[int], Any]:
    """The study's options checked before anything is played: the skill trace's budgets, the
    player counts and the metrics options (None: ``--no-metrics``)."""
    from fieldcraft.sim.metrics import MetricsOptions
    from fieldcraft.sim.study import require_ray

    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    if args.until_ci is not None and not 0 < args.until_ci < 0.5:
        raise FieldcraftError(f"--until-ci is a half-width between 0 and 0.5 (0.02 is ±2 "
                              f"points), got {args.until_ci}")
    if args.max_games is not None and args.max_games < args.games:
        raise FieldcraftError("--max-games must be at least --games")
    budgets = _skill_budgets(args) if args.skill_trace else []
    if args.ray is not None:
        if not args.ray.strip():
            raise FieldcraftError("--ray expects 'auto' or a cluster address like head:6379")
        require_ray()  # fail before the progress bar, not inside it
    players = parse_player_range(args.players)
    if args.perceived_samples < 0 or args.perceived_every < 0:
        raise FieldcraftError("--perceived-samples and --perceived-every must be >= 0")
    if args.robustness_games < 0 or args.robustness_seconds < 0:
        raise FieldcraftError("--robustness-games and --robustness-seconds must be >= 0")
    metrics = None if args.no_metrics else MetricsOptions(args.perceived_samples,
                                                          args.perceived_every)
    return budgets, players, metrics


def _skill_budgets(args: argparse.Namespace) -> list[float]:
    """``--skill-budgets`` and ``--skill-games`` checked before any game is played."""
    try:
        budgets = [float(x) for x in args.skill_budgets.split(",") if x.strip()]
    except ValueError:
        budgets = []
    if not budgets or min(budgets) <= 0:
        raise FieldcraftError(f"--skill-budgets expects positive numbers like 25,50,100; got "
                              f"{args.skill_budgets!r}")
    if args.skill_games < 1:
        raise FieldcraftError("--skill-games must be at least 1")
    return budgets


def _skill_trace(args: argparse.Namespace, budgets: list[float], players: list[int], out: Any,
                 console: Any) -> None:
    """``study --skill-trace``: ISMCTS at doubling budgets against the heuristic bot, stored in
    the study's ``study.json`` for the report."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from fieldcraft.sim import skill

    counts = parse_player_range(args.skill_players) if args.skill_players else players
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=console) as progress:
        whole = progress.add_task("skill trace: all games", total=None)
        tasks: dict[str, Any] = {}

        def on_progress(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = progress.add_task(f"skill trace {label}", total=total)
            progress.update(tasks[label], completed=done, total=total)

        def on_all(done: int, total: int) -> None:
            progress.update(whole, completed=done, total=total)

        try:
            trace = skill.run_skill_trace(args.game, counts, args.seed, parse_sets(args.set),
                                          args.workers, out, budgets, args.skill_games,
                                          args.skill_unit, progress=on_progress,
                                          ray_address=args.ray, overall=on_all)
        except ValueError as exc:
            raise FieldcraftError(str(exc)) from None
    skill.add_to_study(out, trace)


def _cmd_tune(args: argparse.Namespace) -> int:
    from fieldcraft.sim.tune_cli import run_tune

    return run_tune(args, parse_player_range(args.players), parse_sets(args.set))


def add(sub: Any) -> None:
    """Register this module's commands on the ``fieldcraft`` parser."""
    from fieldcraft.sim.metrics import DEFAULT_METRICS
    p = sub.add_parser("study", help="a balance study: many bot games, parquet and a report")
    p.add_argument("game")
    p.add_argument("--players", required=True, help="a count or range: 5, 3-8, 3,5,8")
    p.add_argument("--agents", default="random",
                   help="comma-separated agent specs or bot levels (easy, normal, strong)")
    p.add_argument("--games", type=int, default=1000, help="games per player count")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.add_argument("--workers", type=int, default=None,
                   help="local processes (default: cores); with --ray, the most chunks of games "
                        "running at once, and the CPUs of the instance '--ray auto' starts")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="play on Ray instead of local processes: 'auto' starts a local Ray "
                        "instance for this study, or give a cluster's address (head:6379, "
                        "ray://head:10001); needs the ray extra")
    p.add_argument("--until-ci", type=float, default=None, metavar="HALF_WIDTH",
                   help="keep playing batches (the first is --games) until every win rate by "
                        "side and by seat, at every player count, is known to within "
                        "± HALF_WIDTH (0.02: ±2 points, the 95%% interval's half-width)")
    p.add_argument("--max-games", type=int, default=None, metavar="N",
                   help="with --until-ci: stop at N games per player count even if not "
                        "narrow enough (default 20,000)")
    p.add_argument("--skill-trace", action="store_true",
                   help="also play one ISMCTS seat at doubling budgets against the heuristic "
                        "bot and chart its win rate per budget: how much skill pays")
    p.add_argument("--skill-budgets", default="25,50,100,200,400", metavar="B,B,...",
                   help="with --skill-trace: the budgets (default 25,50,100,200,400)")
    p.add_argument("--skill-unit", choices=UNITS, default="iterations",
                   help="with --skill-trace: budgets in iterations a move (default; "
                        "repeatable), seconds a move or CPU seconds a move")
    p.add_argument("--skill-games", type=int, default=40, metavar="N",
                   help="with --skill-trace: games per budget and player count (default 40)")
    p.add_argument("--skill-players", default=None, metavar="COUNTS",
                   help="with --skill-trace: only these player counts (default: the study's)")
    p.add_argument("--no-metrics", action="store_true",
                   help="skip the designer's metrics (lead changes, drama, decisiveness, ...)")
    p.add_argument("--perceived-samples", type=int, default=DEFAULT_METRICS.samples,
                   metavar="K", help="resamples of a seat's view per decision for the "
                   f"perceived metrics (0: none; default {DEFAULT_METRICS.samples}, the "
                   "smallest count at which they are stable: docs/designers.md)")
    add_robustness_arguments(p, "among the study's bots")
    p.add_argument("--perceived-every", type=int, default=DEFAULT_METRICS.every, metavar="M",
                   help=f"measure perceived metrics on every M-th game (default "
                        f"{DEFAULT_METRICS.every})")
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(func=_cmd_study)

    from fieldcraft.cli import skill
    from fieldcraft.sim.tune_cli import add_tune_parser

    add_tune_parser(sub, _cmd_tune)
    skill.add(sub)  # skill: the trace on its own
