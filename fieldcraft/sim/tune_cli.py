"""``fieldcraft tune``: its arguments and its run with a Rich progress bar.

Kept apart from ``fieldcraft/cli/`` (which only wires it in) so the command's options live
beside the search they drive; importing this module imports neither Optuna nor matplotlib, so
``fieldcraft --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fieldcraft.core.api import FieldcraftError


def add_tune_parser(sub: Any, func: Callable[[argparse.Namespace], int]) -> None:
    """Add the ``tune`` subcommand to ``sub`` (the CLI's subparsers)."""
    p = sub.add_parser("tune", help="search rule values for a balance target (Optuna TPE)",
                       description="Search rule values for a target with Optuna's TPE; the "
                                   "best few are re-played on fresh deals before one is "
                                   "declared best. Writes best.json, trials.csv/json, "
                                   "tune.json and convergence.png.")
    p.add_argument("game")
    p.add_argument("--players", required=True, help="a count or range: 5, 3-8, 3,5,8")
    p.add_argument("--param", action="append", required=True, metavar="KEY=LOW..HIGH",
                   help="a rule to vary: key=low..high (int or float, from the default's "
                        "type), key=a,b,c (choices), or a true/false key alone; a key path "
                        "reaches nested values, e.g. roles.5.from=3..8")
    p.add_argument("--target", required=True,
                   help="balance (all sides' win rates equal), side:LABEL=RATE "
                        "(e.g. side:Yellow=0.2) or duration=N (mean decisions a game)")
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--games-per-trial", type=int, default=200,
                   help="games per player count in each trial (the same deals every trial)")
    p.add_argument("--top-k", type=int, default=3,
                   help="distinct best trials re-played, with the default, before the best is "
                        "declared (default 3)")
    p.add_argument("--reeval-games", type=int, default=None,
                   help="games per player count in each re-play (default 4 x games per trial; "
                        "0 skips re-playing)")
    p.add_argument("--agents", default="heuristic",
                   help="comma-separated agent specs or level names (easy, normal, strong)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="a fixed ruleset override for every trial (or @file.json)")
    p.add_argument("--workers", type=int, default=None,
                   help="local processes (default 1; with more, trials overlap); with --ray, "
                        "the most chunks running at once and the CPUs of '--ray auto'")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="play on Ray: 'auto' starts a local instance, or a cluster address "
                        "(head:6379); needs the ray extra")
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(func=func)


def run_tune(args: argparse.Namespace, players: list[int], overrides: dict[str, Any]) -> int:
    """Run ``fieldcraft tune`` from parsed arguments; print the best ruleset and the files."""
    try:
        import matplotlib  # noqa: F401
        import optuna  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise FieldcraftError(
            f"tune needs the study extra (pip install -e '.[study]'): {exc}") from None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from fieldcraft.cli.study import study_agents
    from fieldcraft.sim.study import require_ray
    from fieldcraft.sim.tune import prepare, tune

    # Level names (strong, normal...) mean this game's agent for them, as in study and tournament.
    agents = [choice.spec for choice in study_agents(args.game, args.agents, players)]
    # Bad --param, --target or --set input fails here, in one line, before the progress bar.
    prepare(args.game, players, args.param, args.target, overrides, agents)
    for name in ("trials", "games_per_trial"):
        if getattr(args, name) < 1:
            raise FieldcraftError(f"--{name.replace('_', '-')} must be at least 1")
    if args.ray is not None:
        if not args.ray.strip():
            raise FieldcraftError("--ray expects 'auto' or a cluster address like head:6379")
        require_ray()
    if args.workers is not None and args.workers < 1:
        raise FieldcraftError("--workers must be at least 1")
    if args.top_k < 1:
        raise FieldcraftError("--top-k must be at least 1")
    out = Path(args.out)
    console = Console(highlight=False)
    started = time.perf_counter()
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  "{task.fields[best]}", TimeRemainingColumn(), console=console) as progress:
        task = progress.add_task(f"tune {args.game} {args.players}p", total=None, best="")

        def on_progress(done: int, total: int, best: float | None) -> None:
            progress.update(task, completed=done, total=total,
                            best="" if best is None else f"best loss {best:.4f}")

        meta = tune(args.game, players, args.param, args.target, args.trials, out,
                    games_per_trial=args.games_per_trial, agents=agents,
                    seed=args.seed, overrides=overrides, workers=args.workers,
                    ray_address=args.ray, top_k=args.top_k, reeval_games=args.reeval_games,
                    progress=on_progress)
    return _print_result(console, meta, args.trials, time.perf_counter() - started, out)


def _distinct_note(distinct: dict[str, int] | None) -> str:
    """", 6 distinct (6 reused a result)" when trials played equivalent rules: the run was
    cheaper than its trial count says, and the search saw fewer rulesets than it asked for."""
    if not distinct or not distinct.get("reused"):
        return ""
    return f", {distinct['distinct']} distinct ({distinct['reused']} reused a result)"


def _loss(entry: dict[str, Any]) -> str:
    """A re-played loss with its 95% interval, when there is one."""
    text = f"{entry['reeval_loss']:.4f}"
    interval = entry.get("reeval_interval")
    return text + (f" (95% {interval[0]:.4f}–{interval[1]:.4f})" if interval else "")


def _print_result(console: Any, meta: dict[str, Any], trials: int, seconds: float,
                  out: Path) -> int:
    """What the run found, and the files it wrote; the exit status (130: interrupted)."""
    from fieldcraft.sim.tune import BEST, CHART, TRIALS_CSV, TUNE

    best, default = meta["best"], meta["default"]
    console.print(f"target {meta['target']}: {trials} trials in {seconds:.1f} s"
                  f"{_distinct_note(meta.get('distinct'))}")
    if meta["reeval_games"] and None not in (best["reeval_loss"], default["reeval_loss"]):
        console.print(f"re-played on {meta['reeval_games']} fresh games per count: default "
                      f"loss {_loss(default)}, best loss {_loss(best)}")
    if meta["improved"]:
        console.print(f"best: {json.dumps(best['values'])} (trial {best['trial']})")
    else:
        console.print("[yellow]no trial beat the default ruleset once re-played[/]")
    console.print(f"files: {out / BEST} (use --set @{out / BEST}), {out / TRIALS_CSV}, "
                  f"{out / TUNE}, {out / CHART}")
    if meta["interrupted"]:
        console.print("[yellow]interrupted: the files cover the trials that finished, and the "
                      "best was not re-played[/]")
        return 130
    return 0
