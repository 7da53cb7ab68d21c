"""The ``fieldcraft`` command: play, simulate, bench, and list the games.

Argument errors and rules errors exit with status 2 and a one-line message, never a traceback:
the people typing these commands are players and designers.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fieldcraft.agents.specs import split_agents
from fieldcraft.core.api import FieldcraftError


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """``--set key=value`` pairs; values are read as JSON when they can be (numbers, lists...).
    ``--set @file.json`` reads a whole set of overrides (``fieldcraft tune``'s ``best.json``)."""
    overrides: dict[str, Any] = {}
    for item in items or []:
        if item.startswith("@"):
            overrides.update(_read_overrides(item[1:]))
            continue
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise FieldcraftError(f"--set expects key=value, got {item!r}")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    return overrides


def _read_overrides(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise FieldcraftError(f"--set @{path}: cannot read overrides: {exc}") from None
    if not isinstance(data, dict):
        raise FieldcraftError(f"--set @{path}: expected a JSON object of ruleset overrides")
    return data


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

    if args.replay is not None:
        return _play_branch(args)
    if args.game is None:
        raise FieldcraftError("play needs a game (see 'fieldcraft list'), or --from REPLAY.json")
    if args.step is not None:
        raise FieldcraftError("--step goes with --from REPLAY.json")
    humans = parse_seats(args.humans)
    if humans is None:
        humans = [args.seat]
    table = TerminalTable(args.game, args.players, humans, bot=args.bots, seed=args.seed,
                          overrides=parse_sets(args.set), lang=args.lang)
    table.run()
    return 0


def _play_branch(args: argparse.Namespace) -> int:
    """``play --from REPLAY.json --step K --seat S``: play on from a moment of a replay."""
    from fieldcraft.play import branch_table, read_replay

    if args.step is None:
        raise FieldcraftError("--from needs --step K: the step of the replay to play on from")
    if args.humans is not None or args.set:
        raise FieldcraftError("--from plays one seat (--seat) with the replay's own ruleset: "
                              "--humans and --set do not apply")
    if args.game is not None and args.game != read_replay(args.replay)["game"]:
        raise FieldcraftError(f"{args.replay} is a game of "
                              f"{read_replay(args.replay)['game']}, not {args.game}")
    table = branch_table(args.replay, args.step, args.seat, bot=args.bots, seed=args.seed,
                         lang=args.lang)
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
    from fieldcraft.server import limits, run

    run(host=args.host, port=args.port, db=args.db, bot_delay=args.bot_delay,
        allow_seeded_tables=args.allow_seeded_tables,
        limits=limits.from_arguments(args), proxy_headers=args.proxy_headers,
        forwarded_allow_ips=args.forwarded_allow_ips, allowed_origins=args.allowed_origin,
        allowed_hosts=args.allowed_host, analysis_iterations=args.analysis_iterations)
    return 0


def _iterations(text: str) -> int:
    """``serve --analysis-iterations``, checked by the server's own reader (imported only when
    the flag is given: it loads the search bot)."""
    from fieldcraft.server.analysis import iterations_arg

    return iterations_arg(text)


def _serve_limit_options(parser: argparse.ArgumentParser) -> None:
    """``--proxy-headers`` and the abuse limits (their module needs no web extras, so
    ``--help`` shows them and their defaults everywhere)."""
    from fieldcraft.server import limits

    limits.add_proxy_arguments(parser)
    limits.add_arguments(parser)


def _origin(text: str) -> str:
    from fieldcraft.server.guard import origin_arg  # no web extras needed to read the flag

    return origin_arg(text)


def _host(text: str) -> str:
    from fieldcraft.server.guard import host_arg  # no web extras needed to read the flag

    return host_arg(text)


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

    from fieldcraft.sim.metrics import MetricsOptions
    from fieldcraft.sim.report import write_report
    from fieldcraft.sim.study import require_ray, run_study

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
    metrics = None if args.no_metrics else MetricsOptions(args.perceived_samples,
                                                          args.perceived_every)
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
                  ray_address=args.ray, until_ci=args.until_ci, max_games=args.max_games,
                  metrics=metrics)
    meta = json.loads((out / "study.json").read_text())
    if args.skill_trace and not meta.get("interrupted"):
        _skill_trace(args, budgets, players, out, console)
    html, md = write_report(out)
    meta = json.loads((out / "study.json").read_text())
    if meta.get("until_ci"):
        from fieldcraft.sim.precision import describe

        console.print(describe(meta["until_ci"]))
    console.print(f"results: {out / 'results.parquet'}\nreport: {html}\n        {md}")
    if meta.get("interrupted") or meta.get("skill_trace", {}).get("interrupted"):
        console.print("[yellow]interrupted: the report covers the games that finished[/]")
        return 130
    return 0


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
    players = parse_player_range(args.players)
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), console=Console(stderr=True)) as progress:
        tasks = {side: progress.add_task(f"{args.run} {args.players}p ruleset {side}",
                                         total=None) for side in ("A", "B")}

        def on_progress(side: str, done: int, total: int) -> None:
            progress.update(tasks[side], completed=done, total=total)

        run_pair(args.run, players, split_agents(args.agents), args.games, args.seed,
                 parse_sets(args.set_a), parse_sets(args.set_b), args.workers, Path(args.a),
                 Path(args.b), progress=on_progress, ray_address=args.ray)
    for folder in (args.a, args.b):
        write_report(Path(folder))


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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress

    from fieldcraft.sim import skill

    counts = parse_player_range(args.skill_players) if args.skill_players else players
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), console=console) as progress:
        tasks: dict[str, Any] = {}

        def on_progress(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = progress.add_task(f"skill trace {label}", total=total)
            progress.update(tasks[label], completed=done, total=total)

        try:
            trace = skill.run_skill_trace(args.game, counts, args.seed, parse_sets(args.set),
                                          args.workers, out, budgets, args.skill_games,
                                          args.skill_unit, progress=on_progress,
                                          ray_address=args.ray)
        except ValueError as exc:
            raise FieldcraftError(str(exc)) from None
    skill.add_to_study(out, trace)


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
        print(json.dumps(result))
        return 0
    print(md.read_text())
    print(f"chart: {png}")
    return 0


def _cmd_tune(args: argparse.Namespace) -> int:
    from fieldcraft.sim.tune_cli import run_tune

    return run_tune(args, parse_player_range(args.players), parse_sets(args.set))


def _cmd_report_game(args: argparse.Namespace) -> int:
    """What each seat could deduce in a finished game (see :mod:`fieldcraft.core.deduction`)."""
    from fieldcraft.core.deduction import deduction_report, read_replay, report_lines

    try:
        with open(args.replay, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FieldcraftError(f"cannot read {args.replay}: {exc}") from None
    game, actions = read_replay(doc)
    if args.seat is not None and not 1 <= args.seat <= game.num_players:
        raise FieldcraftError(f"--seat must be 1-{game.num_players}, got {args.seat}")
    seat = None if args.seat is None else args.seat - 1
    report = deduction_report(game, actions, seat=seat, samples=args.samples, seed=args.seed)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print("\n".join(report_lines(report)))
    return 0


class _VersionAction(argparse.Action):
    """``--version``: worked out only when asked (it looks up where the hot modules load from)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help=kwargs.get("help"))  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from fieldcraft.build import describe

        print(describe())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fieldcraft", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction,
                        help="the version and which build (pure Python or compiled) is active")
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
    p.add_argument("--allowed-origin", action="append", default=[], type=_origin, metavar="URL",
                   help="another site whose pages may use this server, e.g. "
                        "https://games.example (repeatable; its own origin always may)")
    p.add_argument("--allowed-host", action="append", default=[], type=_host, metavar="NAME",
                   help="a name this server answers to besides its listening address, "
                   "localhost, 127.0.0.1 and [::1], e.g. games.example (repeatable; any port; "
                   "'*' for any name): a request naming another host is refused, against DNS "
                   "rebinding")
    p.add_argument("--analysis-iterations", type=_iterations, default=2000,
                   help="the strong bot's iterations per analysed replay step (default 2000)")
    _serve_limit_options(p)
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("list", help="list the games")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("play", help="play in the terminal against bots or hot-seat")
    p.add_argument("game", nargs="?", default=None)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--humans", help="seats played by people at this terminal, e.g. 0,2")
    p.add_argument("--bots", default="random",
                   help="bot for the other seats: random, heuristic, ismcts, "
                        "or e.g. 'ismcts(time=2)' (default random)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.add_argument("--lang", default="en", help="language of the game text: en, ja, zh-Hant")
    p.add_argument("--from", dest="replay", metavar="REPLAY.json", default=None,
                   help="play on from a moment of this replay ({game, players, overrides, "
                        "actions}) as --seat, what that seat could not see re-dealt")
    p.add_argument("--step", type=int, default=None,
                   help="with --from: the number of actions of the replay to play on after")
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
    p.add_argument("--skill-unit", choices=("iterations", "time"), default="iterations",
                   help="with --skill-trace: budgets in iterations a move (default; "
                        "repeatable) or seconds a move")
    p.add_argument("--skill-games", type=int, default=40, metavar="N",
                   help="with --skill-trace: games per budget and player count (default 40)")
    p.add_argument("--skill-players", default=None, metavar="COUNTS",
                   help="with --skill-trace: only these player counts (default: the study's)")
    p.add_argument("--no-metrics", action="store_true",
                   help="skip the designer's metrics (lead changes, drama, decisiveness, ...)")
    p.add_argument("--perceived-samples", type=int, default=2, metavar="K",
                   help="resamples of a seat's view per decision for the perceived metrics "
                        "(0: none; default 2)")
    p.add_argument("--perceived-every", type=int, default=4, metavar="M",
                   help="measure perceived metrics on every M-th game (default 4)")
    p.add_argument("--out", required=True, help="output folder")
    p.set_defaults(func=_cmd_study)

    from fieldcraft.sim.tune_cli import add_tune_parser

    add_tune_parser(sub, _cmd_tune)

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
    p.add_argument("--agents", default="random", help="with --run: comma-separated agent specs")
    p.add_argument("--games", type=int, default=1000, help="with --run: games per player count")
    p.add_argument("--seed", type=int, default=0, help="with --run: the seed both share")
    p.add_argument("--set-a", action="append", metavar="KEY=VALUE",
                   help="with --run: ruleset A's override (default: the default rules)")
    p.add_argument("--set-b", action="append", metavar="KEY=VALUE",
                   help="with --run: ruleset B's override")
    p.add_argument("--workers", type=int, default=None, help="with --run: as for study")
    p.add_argument("--ray", metavar="ADDRESS", default=None, help="with --run: as for study")
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

    p = sub.add_parser("report-game", help="what each seat could deduce in a finished game")
    p.add_argument("replay", help='REPLAY.json: {"game", "players", "overrides", "actions"}')
    p.add_argument("--seat", type=int, default=None, help="only this seat (from 1)")
    p.add_argument("--samples", type=int, default=200,
                   help="resamples per step where a belief is estimated (default 200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.set_defaults(func=_cmd_report_game)
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
