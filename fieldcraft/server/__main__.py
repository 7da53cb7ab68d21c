"""``python -m fieldcraft.server``: the web table without the ``fieldcraft`` command (used by the
tests and the benchmark to start a real server process)."""

from __future__ import annotations

import argparse

from fieldcraft.server import SEEDED_HELP, limits, run
from fieldcraft.server.analysis import iterations_arg as _iterations
from fieldcraft.server.guard import host_arg, origin_arg


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
    parser.add_argument("--allowed-origin", action="append", default=[], type=origin_arg,
                        metavar="URL", help="another site whose pages may use this server "
                        "(e.g. https://games.example; repeatable; its own origin always may)")
    parser.add_argument("--allowed-host", action="append", default=[], type=host_arg,
                        metavar="NAME", help="a name this server answers to besides its "
                        "listening address, localhost, 127.0.0.1 and [::1] (repeatable; any "
                        "port; '*' for any name)")
    parser.add_argument("--analysis-iterations", type=_iterations, default=None,
                        help="the analysis: plain ISMCTS at this many iterations per replay "
                             "step (default: each game's Strong level)")
    limits.add_proxy_arguments(parser)
    limits.add_arguments(parser)
    args = parser.parse_args(argv)
    run(args.host, args.port, args.db, bot_delay=args.bot_delay, log_level=args.log_level,
        sqlite_synchronous=args.sqlite_sync, allow_seeded_tables=args.allow_seeded_tables,
        limits=limits.from_arguments(args),
        proxy_headers=args.proxy_headers, forwarded_allow_ips=args.forwarded_allow_ips,
        allowed_origins=args.allowed_origin, allowed_hosts=args.allowed_host,
        analysis_iterations=args.analysis_iterations)


if __name__ == "__main__":
    main()
