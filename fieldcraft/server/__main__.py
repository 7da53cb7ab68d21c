"""``python -m fieldcraft.server``: the web table without the ``fieldcraft`` command (used by the
tests and the benchmark to start a real server process)."""

from __future__ import annotations

import argparse

from fieldcraft.server import SEEDED_HELP, run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m fieldcraft.server",
                                     description="Serve the fieldcraft web table.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None, help="database URL or SQLite file path")
    parser.add_argument("--bot-delay", type=float, default=0.6,
                        help="seconds before each bot move (default 0.6)")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--sqlite-sync", choices=("FULL", "NORMAL"), default="FULL",
                        help="FULL (default): fsync every commit; NORMAL: survive kill -9 only")
    parser.add_argument("--allow-seeded-tables", action="store_true",
                        help=SEEDED_HELP)
    args = parser.parse_args(argv)
    run(args.host, args.port, args.db, bot_delay=args.bot_delay, log_level=args.log_level,
        sqlite_synchronous=args.sqlite_sync, allow_seeded_tables=args.allow_seeded_tables)


if __name__ == "__main__":
    main()
