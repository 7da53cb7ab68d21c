"""``fieldcraft serve``: the web table. Its flags are read without the web extras, so ``--help``
works everywhere."""

from __future__ import annotations

import argparse
from typing import Any

from fieldcraft.core.api import FieldcraftError


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


def add(sub: Any) -> None:
    """Register this module's commands on the ``fieldcraft`` parser."""
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
    p.add_argument("--analysis-iterations", type=_iterations, default=None,
                   help="the analysis: plain ISMCTS at this many iterations per replay "
                   "step (default: each game's Strong level)")
    _serve_limit_options(p)
    p.set_defaults(func=_cmd_serve)
