"""The web table: play any registered game in the browser with friends and bots.

``run()`` starts the server (FastAPI on uvicorn); ``create_app()`` builds the ASGI app for tests
and embedding. The parts, one concern each:

* ``table``: a game on the server, no asyncio: moves as commits, the log, each seat's view;
* ``seats``: seats, tokens and the turn clock; ``driver``: the bot and chance player;
* ``room``: one live table (the lock, the connections, commit-then-tell); ``hub``: all rooms;
* ``store``: database, migrations, group-commit writer; ``protocol``: WebSocket messages;
* ``errors``: the one error type and its namespaced codes, mapped to HTTP or WebSocket answers
  only at the edge; ``routes/``: pages, JSON API, the game channel, the games' assets;
* ``limits``: the abuse limits (tables, sockets, messages per client address) and the expiry
  of tables nobody joined;
* ``i18n`` and ``catalogue``: words and games, from each game's own folder.
"""

from __future__ import annotations

import ipaddress
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from fastapi import FastAPI

    from fieldcraft.server.limits import LimitSettings

WS_MAX_BYTES = 1024 * 1024
"""uvicorn's frame limit: well above the protocol's 16 KB so that an oversized message still
reaches the app and gets a ``too_large`` error instead of a dropped connection."""

SEEDED_HELP = ("accept tables created with a 'seed' (every deal then follows the seed, so "
               "whoever knows it can predict hidden cards; the table tells every seat): for "
               "tests and demos only")


def create_app(db_url: str | None = None, **options: object) -> FastAPI:
    """See :func:`fieldcraft.server.app.create_app`."""
    from fieldcraft.server.app import create_app as _create

    return _create(db_url, **options)  # type: ignore[arg-type]


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` keeps the server to this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def exposure_warning(host: str, proxy_headers: bool) -> str | None:
    """The warning for listening beyond this machine without ``--proxy-headers``: then people
    reach the server directly, without TLS, or a proxy is in front but every client counts as
    the proxy's one address for the limits."""
    if proxy_headers or is_loopback(host):
        return None
    return (f"warning: listening on {host} without --proxy-headers. Reached directly, the web "
            "table has no TLS: seat tokens and moves travel in clear text. Put a TLS reverse "
            "proxy (Caddy, nginx) in front, listen on 127.0.0.1 and add --proxy-headers; "
            "behind a proxy without it, every client counts as the proxy's address for the "
            "limits. See docs/web.md, 'Running it for real'.")


def names_hint(host: str, allowed_hosts: Sequence[str]) -> str | None:
    """The note for listening on every address (``0.0.0.0``, ``::``) without
    ``--allowed-host``: people then reach the server by an address or name of this machine
    that it does not answer to (DNS rebinding; ``guard.py``), so say which flag lets them."""
    if allowed_hosts or host.strip("[]") not in ("0.0.0.0", "::"):
        return None
    return (f"note: listening on {host}, but answering only to localhost, 127.0.0.1 and [::1]: "
            "add --allowed-host NAME for each address or name people use to reach this "
            "machine (e.g. --allowed-host 192.168.1.5). See docs/web.md, 'Running it for real'.")


def run(host: str = "127.0.0.1", port: int = 8000, db: str | None = None, *,
        bot_delay: float = 0.6, log_level: str = "warning",
        sqlite_synchronous: str = "FULL", allow_seeded_tables: bool = False,
        limits: LimitSettings | None = None,
        proxy_headers: bool = False, forwarded_allow_ips: str | None = None,
        allowed_origins: Sequence[str] = (), allowed_hosts: Sequence[str] = (),
        stderr: TextIO | None = None, analysis_iterations: int | None = None) -> None:
    """Serve the web table until interrupted, printing its address once it is ready.

    ``db`` is a SQLAlchemy URL (``sqlite:///path.db``, ``postgresql://user@host/db``) or a file
    path; the default is an SQLite file in the user's data folder. Migrations run at start-up.
    ``sqlite_synchronous="NORMAL"`` skips the fsync per commit: still safe against ``kill -9``
    (the operating system has the data), not against a power cut. ``allow_seeded_tables``
    accepts tables created with a ``seed`` (reproducible, predictable deals: tests and demos).
    ``limits`` are the abuse limits (default :class:`~fieldcraft.server.limits.LimitSettings`).
    ``allowed_origins``: other sites whose pages may use this server (its own always may; see
    ``guard.py``). ``allowed_hosts``: more names the server answers to besides ``host``,
    ``localhost``, ``127.0.0.1`` and ``[::1]`` (a request naming any other is refused: DNS
    rebinding; see ``guard.py``). ``analysis_iterations``: plain ISMCTS at this budget per analysed
    replay step instead of each game's Strong level (``fieldcraft.server.analysis``).

    ``proxy_headers`` makes uvicorn take the client's address (which the limits count by) and
    scheme from ``X-Forwarded-For``/``X-Forwarded-Proto``, but only on connections from
    ``forwarded_allow_ips`` (uvicorn's default: 127.0.0.1 and ::1, or ``$FORWARDED_ALLOW_IPS``).
    Only for a server behind a trusted reverse proxy: anyone else could name any address. Off,
    the address is always the socket's peer (uvicorn itself would trust the headers from
    127.0.0.1 by default, so that any local client could pose as any address).
    """
    import uvicorn

    from fieldcraft.server import store
    from fieldcraft.server.guard import listening_names, normalise_host

    url = store.normalise_url(db or store.default_db_url())
    shown = host if ":" not in host else f"[{host}]"
    safe_url = url.split("@")[-1] if "@" in url else url
    announce = f"fieldcraft web table: http://{shown}:{port}/  (database {safe_url})"
    if sqlite_synchronous not in ("FULL", "NORMAL"):
        raise ValueError("sqlite_synchronous must be FULL or NORMAL")
    warning = exposure_warning(host, proxy_headers)
    if warning:
        print(warning, file=stderr or sys.stderr, flush=True)
    hint = names_hint(host, allowed_hosts)
    if hint:
        print(hint, file=stderr or sys.stderr, flush=True)
    app = create_app(url, bot_delay=bot_delay, announce=announce,
                     synchronous=sqlite_synchronous, gc_tuning=True,
                     allow_seeded_tables=allow_seeded_tables, limits=limits,
                     allowed_origins=allowed_origins,
                     allowed_hosts=[*listening_names(host),
                                    *(normalise_host(h) for h in allowed_hosts)],
                     proxy_headers=proxy_headers, analysis_iterations=analysis_iterations)
    uvicorn.run(app, host=host, port=port, ws_max_size=WS_MAX_BYTES,
                ws_per_message_deflate=False, log_level=log_level,
                proxy_headers=proxy_headers, forwarded_allow_ips=forwarded_allow_ips)


__all__ = ["SEEDED_HELP", "create_app", "run"]
