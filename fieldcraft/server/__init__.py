"""The web table: play any registered game in the browser with friends and bots.

``run()`` starts the server (FastAPI on uvicorn); ``create_app()`` builds the ASGI app for tests
and embedding. The parts, one concern each:

* ``table``: a game on the server, no asyncio: moves as commits, the log, each seat's view;
* ``seats``: seats, tokens and the turn clock; ``driver``: the bot and chance player;
* ``room``: one live table (the lock, the connections, commit-then-tell); ``hub``: all rooms;
* ``store``: database, migrations, group-commit writer; ``protocol``: WebSocket messages;
* ``errors``: the one error type and its namespaced codes, mapped to HTTP or WebSocket answers
  only at the edge; ``routes/``: pages, JSON API, the game channel, the games' assets;
* ``i18n`` and ``catalogue``: words and games, from each game's own folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

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


def run(host: str = "127.0.0.1", port: int = 8000, db: str | None = None, *,
        bot_delay: float = 0.6, log_level: str = "warning",
        sqlite_synchronous: str = "FULL", allow_seeded_tables: bool = False) -> None:
    """Serve the web table until interrupted, printing its address once it is ready.

    ``db`` is a SQLAlchemy URL (``sqlite:///path.db``, ``postgresql://user@host/db``) or a file
    path; the default is an SQLite file in the user's data folder. Migrations run at start-up.
    ``sqlite_synchronous="NORMAL"`` skips the fsync per commit: still safe against ``kill -9``
    (the operating system has the data), not against a power cut. ``allow_seeded_tables``
    accepts tables created with a ``seed`` (reproducible, predictable deals: tests and demos).
    """
    import uvicorn

    from fieldcraft.server import store

    url = store.normalise_url(db or store.default_db_url())
    shown = host if ":" not in host else f"[{host}]"
    safe_url = url.split("@")[-1] if "@" in url else url
    announce = f"fieldcraft web table: http://{shown}:{port}/  (database {safe_url})"
    if sqlite_synchronous not in ("FULL", "NORMAL"):
        raise ValueError("sqlite_synchronous must be FULL or NORMAL")
    app = create_app(url, bot_delay=bot_delay, announce=announce,
                     synchronous=sqlite_synchronous, gc_tuning=True,
                     allow_seeded_tables=allow_seeded_tables)
    uvicorn.run(app, host=host, port=port, ws_max_size=WS_MAX_BYTES,
                ws_per_message_deflate=False, log_level=log_level)


__all__ = ["SEEDED_HELP", "create_app", "run"]
