"""The ``fieldcraft`` command: play, simulate, bench, and list the games.

Argument errors and rules errors exit with status 2 and a one-line message, never a traceback:
the people typing these commands are players and designers.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fieldcraft.core.api import FieldcraftError


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """``--set key=value`` pairs; values are read as JSON when they can be (numbers, lists...)."""
    overrides: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise FieldcraftError(f"--set expects key=value, got {item!r}")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    return overrides


def parse_seats(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(part) for part in text.split(",") if part.strip() != ""]
    except ValueError:
        raise FieldcraftError(f"--humans expects seat numbers like 0,2; got {text!r}") from None


def _cmd_list(args: argparse.Namespace) -> int:
    from fieldcraft.core.registry import game_spec, list_games

    for name in list_games():
        spec = game_spec(name)
        print(f"{name}  ({spec.min_players}-{spec.max_players} players)  {spec.title}")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from fieldcraft.play import TerminalTable

    humans = parse_seats(args.humans)
    if humans is None:
        humans = [args.seat]
    table = TerminalTable(args.game, args.players, humans, bot=args.bots, seed=args.seed,
                          overrides=parse_sets(args.set))
    table.run()
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from fieldcraft.sim.simulate import simulate

    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    result = simulate(args.game, args.players, args.games, args.seed, parse_sets(args.set))
    if args.json:
        keys = ("game", "players", "games", "wins_by_faction", "wins_by_seat", "no_winner",
                "mean_steps", "seed", "overrides", "endings")
        print(json.dumps({k: result[k] for k in keys}))
        return 0
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    games = result["games"]
    console.print(f"[bold]{result['game']}[/], {result['players']} players, {games} random-bot "
                  f"games, seed {result['seed']}; mean {result['mean_steps']:.1f} steps a game")
    if result["wins_by_faction"]:
        table = Table("side", "games won", "share")
        for label, wins in result["wins_by_faction"].items():
            table.add_row(label, str(wins), f"{wins / games:.1%}")
        console.print(table)
    table = Table("seat", "games won", "share")
    for seat, wins in enumerate(result["wins_by_seat"]):
        table.add_row(str(seat), str(wins), f"{wins / games:.1%}")
    console.print(table)
    console.print(f"games nobody won: {result['no_winner']}")
    if result["endings"]:
        console.print("how games ended: " + ", ".join(
            f"{k} {v}" for k, v in result["endings"].items()))
    return 0


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
    if args.json:
        print(json.dumps(results))
        return 0
    if args.api:
        print("public-API loop (README): " + (f"pyspiel liars_dice {reference:,} steps/s"
              if reference else "open_spiel not installed, no liars_dice reference"))
    for r in results:
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
        if "ismcts_tree_iterations_per_second" in r:
            line += (f"\n{'':<26}{r['ismcts_tree_iterations_per_second']:>10,} ISMCTS "
                     f"iterations/s (CPU, opponents: tree; median of {r['ismcts_runs']} runs, "
                     f"best {r['ismcts_tree_iterations_per_second_best']:,})")
        print(line)
    return 0


def _cmd_tournament(args: argparse.Namespace) -> int:
    from fieldcraft.sim.tournament import tournament

    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    agents = split_agents(args.agents)
    if len(agents) < 2:
        raise FieldcraftError("--agents needs at least two agents, e.g. heuristic,random")
    if args.json:
        result = tournament(args.game, args.players, agents, args.games, args.seed,
                            parse_sets(args.set))
        print(json.dumps(result))
        return 0
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    console = Console(highlight=False)
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=console) as progress:
        task = progress.add_task(f"{args.game} {args.players}p", total=args.games)
        result = tournament(args.game, args.players, agents, args.games, args.seed,
                            parse_sets(args.set), on_game=lambda _: progress.advance(task))
    table = Table("agent", "games", "wins", "win rate", "Wilson 95%", "OpenSkill mu",
                  "sigma", "ordinal")
    for row in result["agents"]:
        low, high = row["wilson95"]
        table.add_row(row["agent"], str(row["games"]), f"{row['wins']:g}",
                      f"{row['win_rate']:.1%}", f"{low:.1%} - {high:.1%}", f"{row['mu']:.2f}",
                      f"{row['sigma']:.2f}", f"{row['ordinal']:.2f}")
    console.print(table)
    console.print(f"wins by seat: {result['wins_by_seat']}; mean length "
                  f"{result['mean_length']:.1f} actions")
    return 0


def split_agents(text: str) -> list[str]:
    """Split ``ismcts(time=1, c=0.5),heuristic`` on the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        import alembic  # noqa: F401
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import sqlalchemy  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise FieldcraftError(
            f"the web table needs the web extras (pip install -e '.[web]'): {exc}"
        ) from None
    from fieldcraft.server import run

    run(host=args.host, port=args.port, db=args.db, bot_delay=args.bot_delay,
        allow_seeded_tables=args.allow_seeded_tables)
    return 0


def parse_player_range(text: str) -> list[int]:
    """``5`` -> [5]; ``3-8`` -> [3, 4, ..., 8]; ``3,5,8`` -> [3, 5, 8]."""
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-", 1))
            return list(range(low, high + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise FieldcraftError(f"--players expects 5, 3-8 or 3,5,8; got {text!r}") from None


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
    from fieldcraft.sim.study import require_ray, run_study

    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    if args.ray is not None:
        if not args.ray.strip():
            raise FieldcraftError("--ray expects 'auto' or a cluster address like head:6379")
        require_ray()  # fail before the progress bar, not inside it
    players = parse_player_range(args.players)
    out = Path(args.out)
    console = Console(highlight=False)
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

        run_study(args.game, players, split_agents(args.agents), args.games, args.seed,
                  parse_sets(args.set), args.workers, out, progress=on_progress,
                  ray_address=args.ray)
    html, md = write_report(out)
    meta = json.loads((out / "study.json").read_text())
    console.print(f"results: {out / 'results.parquet'}\nreport: {html}\n        {md}")
    if meta.get("interrupted"):
        console.print("[yellow]interrupted: the report covers the games that finished[/]")
        return 130
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from fieldcraft.sim.compare import compare, write_comparison

    try:
        result = compare(Path(args.a), Path(args.b))
    except (ValueError, FileNotFoundError) as exc:
        raise FieldcraftError(str(exc)) from None
    out = Path(args.out) if args.out else Path(args.b)
    md, png = write_comparison(Path(args.a), Path(args.b), out)
    if args.json:
        print(json.dumps(result))
        return 0
    print(md.read_text())
    print(f"chart: {png}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fieldcraft", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="the web table: play in the browser with friends and bots")
    p.add_argument("--db", default=None, metavar="URL",
                   help="database URL or SQLite file (default: the user's data folder)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--bot-delay", type=float, default=0.6, help="seconds before each bot move")
    p.add_argument("--allow-seeded-tables", action="store_true",
                   help="accept tables created with a 'seed' (predictable deals, announced to "
                        "every seat): for tests and demos only")
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("list", help="list the games")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("play", help="play in the terminal against bots or hot-seat")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--humans", help="seats played by people at this terminal, e.g. 0,2")
    p.add_argument("--bots", default="random",
                   help="bot for the other seats: random, heuristic, ismcts, "
                        "or e.g. 'ismcts(time=2)' (default random)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("simulate", help="play many random-bot games and count wins")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("tournament", help="seat-rotated games between agents")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--agents", default="heuristic,random",
                   help="comma-separated agent specs, e.g. 'ismcts(time=1),heuristic,random'")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.set_defaults(func=_cmd_tournament)

    p = sub.add_parser("study", help="a balance study: many bot games, parquet and a report")
    p.add_argument("game")
    p.add_argument("--players", required=True, help="a count or range: 5, 3-8, 3,5,8")
    p.add_argument("--agents", default="random", help="comma-separated agent specs")
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
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(func=_cmd_study)

    p = sub.add_parser("compare", help="rule A/B test between two study folders")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--out", help="where to write comparison.md/png (default: folder B)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_compare)

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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "players", None) is None and hasattr(args, "game") and args.game:
        if args.command in ("play", "simulate", "tournament"):
            from fieldcraft.core.registry import game_spec

            try:
                args.players = game_spec(args.game).default_players
            except FieldcraftError as exc:
                print(f"fieldcraft: error: {exc}", file=sys.stderr)
                return 2
    try:
        return args.func(args)
    except FieldcraftError as exc:
        print(f"fieldcraft: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head, say: not an error
        return 0


if __name__ == "__main__":
    sys.exit(main())
