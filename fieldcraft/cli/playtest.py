"""``fieldcraft playtest``: make a public playtest of a variant, read its report, close it.

A designer works from the command line (studies, comparisons, tuning); a playtest is where their
variant meets people. ``create`` writes it into the server's database (the same ``--db`` the
server runs on; migrated first) and prints the public page and the designer link once: only the
token's hash is stored, so a lost link cannot be shown again. ``report`` and ``close`` work on
the database directly: whoever can open it needs no token.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fieldcraft.cli.study import add_robustness_arguments
from fieldcraft.core.api import FieldcraftError


def _engine(db: str | None) -> Any:
    try:
        import alembic  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError as exc:
        raise FieldcraftError(
            f"playtests need the web extras (pip install -e '.[web]'): {exc}") from None
    from fieldcraft.server import store

    engine = store.make_engine(store.normalise_url(db or store.default_db_url()))
    store.migrate(engine)
    return engine


def _cmd_create(args: argparse.Namespace) -> int:
    from fieldcraft.cli.args import parse_player_range, parse_sets
    from fieldcraft.server import playtest

    players = parse_player_range(args.players) if args.players else []
    overrides = parse_sets(args.set)
    engine = _engine(args.db)
    try:
        found, token = playtest.create(engine, args.name, args.game, players, overrides,
                                       args.bots)
    finally:
        engine.dispose()
    base = args.url.rstrip("/")
    page = f"{base}/p/{found.name}"
    designer = playtest.designer_link(found.name, token, base)
    if args.json:
        print(json.dumps({**found.public(), "page": page, "designer_url": designer,
                          "designer_token": token}, ensure_ascii=False))
        return 0
    print(f"playtest {found.name}: {found.game}, {found.min_players}-{found.max_players} "
          f"players, bots: {found.bot}")
    for change in found.public()["changes"]:
        print(f"  {change['key']}: {change['default']!r} -> {change['value']!r}")
    print(f"public page:   {page}")
    print(f"designer link: {designer}")
    print("keep the designer link secret: it reads the report and closes the playtest, and "
          "it is shown only now")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from fieldcraft.sim.playtest_report import playtest_report

    if (args.bot_games is not None and args.bot_games < 0) or args.robustness_games < 0 \
            or args.robustness_seconds < 0:
        raise FieldcraftError("--bot-games, --robustness-games and --robustness-seconds must "
                              "be 0 or more")
    if args.bot_games:
        # The prediction runs before anything is printed, minutes with the search bot's mix
        # (2 min 23 s for 20 + 20 Spy Tracker games at 3-4 players): say so, not a silent wait.
        limit = f", {args.robustness_seconds:g} s at most" if args.robustness_seconds else ""
        mix = (f", then up to {args.robustness_games} with one "
               f"{args.robustness_bot or 'Strong-level search bot'} among them (the slow "
               f"part{limit})" if args.robustness_games else "")
        print(f"playing the bots' prediction: {args.bot_games} games per player count{mix}; "
              "kept for later reports", file=sys.stderr, flush=True)
    engine = _engine(args.db)
    try:
        report = playtest_report(engine, args.name, args.bot_games, args.robustness_games,
                                 args.robustness_bot, args.robustness_seconds or None)
    finally:
        engine.dispose()
    if args.out:
        from pathlib import Path

        from fieldcraft.sim.playtest_report import export

        for path in export(report, Path(args.out)):
            print(f"wrote {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, default=str))
    else:
        print(report["text"])
    return 0


def _cmd_close(args: argparse.Namespace) -> int:
    from fieldcraft.server import playtest

    engine = _engine(args.db)
    try:
        playtest.require(engine, args.name)
        changed = playtest.close(engine, args.name)
    finally:
        engine.dispose()
    print(f"playtest {args.name} {'closed' if changed else 'was already closed'}")
    return 0


def add(sub: Any) -> None:
    """Register ``fieldcraft playtest create|report|close``."""
    p = sub.add_parser("playtest", help="public playtests of a variant: create, report, close")
    cmds = p.add_subparsers(dest="playtest_command", required=True)
    c = cmds.add_parser("create", help="store a named variant and print its public page")
    c.add_argument("game")
    c.add_argument("--name", required=True, help="its address: /p/NAME (a-z, 0-9, dashes)")
    c.add_argument("--players", default=None,
                   help="a count or range (4, 3-5); default: every count the game allows")
    c.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    c.add_argument("--bots", default="heuristic", metavar="SPEC",
                   help="the bot that plays seats left to bots (default heuristic)")
    c.add_argument("--db", default=None, help="the server's database (default: its own)")
    c.add_argument("--url", default="http://127.0.0.1:8000",
                   help="the server's address, for the printed links")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_create)
    r = cmds.add_parser("report", help="people's games and answers of a playtest, pooled")
    r.add_argument("name")
    r.add_argument("--db", default=None)
    r.add_argument("--bot-games", type=int, default=None, metavar="N",
                   help="play N bot games per player count as the bots' prediction and keep "
                   "it for later reports (default: reuse the kept one for this ruleset if "
                   "any, else name the study; 0: neither)")
    add_robustness_arguments(r, "among the bots of --bot-games")
    r.add_argument("--out", default=None, metavar="DIR",
                   help="also write games.csv/.parquet and answers.csv/.parquet there")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_cmd_report)
    x = cmds.add_parser("close", help="stop a playtest's page making tables")
    x.add_argument("name")
    x.add_argument("--db", default=None)
    x.set_defaults(func=_cmd_close)
