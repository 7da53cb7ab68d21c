"""The FastAPI application: the routers, the lifespan (database, writer, hub) and the edge where
errors become HTTP answers.

HTTP is for things that happen once; the WebSocket carries the game itself. Every refusal, on
either channel, has a stable namespaced error ``code`` (:mod:`fieldcraft.server.errors`) and
changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from fieldcraft.core.errors import FieldcraftError
from fieldcraft.server import errors as E
from fieldcraft.server import store
from fieldcraft.server.analysis import ITERATIONS as ANALYSIS_ITERATIONS
from fieldcraft.server.analysis import Analyser
from fieldcraft.server.collector import CollectorClock
from fieldcraft.server.errors import TableError
from fieldcraft.server.guard import DEFAULT_ALLOWED_HOSTS, SECURITY_HEADERS, EdgeGuard
from fieldcraft.server.hub import Hub
from fieldcraft.server.limits import Clock, Limits, LimitSettings
from fieldcraft.server.routes import (
    analysis,
    branch,
    deduction,
    games,
    live,
    pages,
    playtests,
    tables,
)
from fieldcraft.server.routes.requests import hub_of


def _answer(exc: FieldcraftError, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(E.error_body(exc), status_code=E.http_status(exc),
                        headers={**(E.http_headers(exc) or {}), **(headers or {})})


FRAMEWORK_CODES = {400: E.BAD_REQUEST, 404: E.NOT_FOUND, 405: E.METHOD_NOT_ALLOWED,
                   413: E.TOO_LARGE, 415: E.NOT_JSON_BODY}
"""The code of each refusal the framework makes by itself (no route for the path, none for the
method, Starlette's static files), so that those answer in the same body as ours."""


def framework_error(exc: HTTPException, path: str) -> TableError:
    """The :class:`TableError` for one of Starlette's own ``HTTPException`` refusals."""
    code = FRAMEWORK_CODES.get(exc.status_code,
                               E.INTERNAL if exc.status_code >= 500 else E.BAD_REQUEST)
    if code == E.NOT_FOUND:
        return TableError(code, f"nothing is at {path[:200]!r}")
    if code == E.METHOD_NOT_ALLOWED:
        allowed = (exc.headers or {}).get("Allow", "")
        return TableError(code, f"{path[:200]!r} does not take this method"
                          + (f" (it takes {allowed})" if allowed else ""))
    return TableError(code, str(exc.detail))


def create_app(db_url: str | None = None, *, bot_delay: float = 0.6, synchronous: str = "FULL",
               snapshot_every: int = 50, away_grace: float = 10.0,
               announce: str | None = None, gc_tuning: bool = False,
               allow_seeded_tables: bool = False, limits: LimitSettings | None = None,
               clock: Clock | None = None, allowed_origins: Iterable[str] = (),
               allowed_hosts: Iterable[str] = DEFAULT_ALLOWED_HOSTS,
               proxy_headers: bool = False,
               analysis_iterations: int | None = ANALYSIS_ITERATIONS) -> FastAPI:
    """Build the app. ``db_url`` defaults to the SQLite file in the user's data folder;
    ``bot_delay`` is the pause before each bot move so people can follow the table;
    ``gc_tuning`` (for a dedicated server process only) runs the :class:`CollectorClock`;
    ``allow_seeded_tables`` lets a create request carry a ``seed`` (predictable deals, for
    tests and demos; off by default because the host could then foresee every hidden card);
    ``limits`` are the abuse limits (default :class:`LimitSettings`), timed by ``clock``
    (monotonic seconds; tests pass a fake one); ``allowed_origins`` are the other sites whose
    pages may use this server besides its own (``--allowed-origin``; see
    :mod:`fieldcraft.server.guard`); ``allowed_hosts`` are the names it answers to (any
    port; ``--allowed-host``: a request naming another host is refused, against DNS
    rebinding; the default is the loopback names only, so an embedder names its host, and the
    tests name Starlette's ``testserver``); ``proxy_headers`` says a proxy in front sets
    ``X-Forwarded-Host``, whose names must then be allowed too; ``analysis_iterations`` asks
    plain ISMCTS at that budget per analysed replay step instead of each game's Strong level
    (:mod:`fieldcraft.server.analysis`)."""
    url = store.normalise_url(db_url or store.default_db_url())

    def make_hub(engine: Any, writer: store.Writer) -> Hub:
        return Hub(engine, writer, bot_delay=bot_delay, snapshot_every=snapshot_every,
                   away_grace=away_grace, limits=Limits(limits, clock))

    lifespan = _lifespan(url, synchronous, make_hub, gc_tuning, announce)
    app = FastAPI(title="fieldcraft web table", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url=None)
    app.state.allow_seeded_tables = allow_seeded_tables
    app.state.analyser = Analyser(analysis_iterations)
    app.mount("/static", StaticFiles(directory=str(resources.files("fieldcraft.server")
                                                   / "static")), name="static")
    for module in (pages, tables, analysis, deduction, branch, playtests, games, live):
        app.include_router(module.router)
    app.add_middleware(EdgeGuard, allowed_origins=list(allowed_origins),
                       allowed_hosts=list(allowed_hosts), proxy_headers=proxy_headers)

    _add_error_answers(app)
    _add_edge_routes(app)
    return app


def _lifespan(url: str, synchronous: str, make_hub: Callable[[Any, store.Writer], Hub],
              gc_tuning: bool, announce: str | None
              ) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """The app's life: the database (migrated), its writer thread and the hub with every
    table resumed; on the way out the hub closes before the writer and the database."""
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = store.make_engine(url, synchronous=synchronous)
        await asyncio.to_thread(store.migrate, engine)
        writer = store.Writer(engine)
        hub = make_hub(engine, writer)
        app.state.hub = hub
        resumed = await hub.resume()
        hub.start_sweeper()
        collector = None
        if gc_tuning:
            clock = app.state.collector = CollectorClock()
            clock.start()
            collector = asyncio.get_running_loop().create_task(clock.run())
        if announce:
            print(f"{announce} (resumed {resumed} table(s))", flush=True)
        try:
            yield
        finally:
            if collector is not None:
                collector.cancel()
                app.state.collector.stop()
            await hub.close()
            app.state.analyser.close()
            await asyncio.to_thread(writer.close)
            engine.dispose()

    return lifespan


def _add_error_answers(app: FastAPI) -> None:
    """Every refusal and failure, ours or the framework's, answered in the documented body."""
    @app.exception_handler(FieldcraftError)
    async def _refused(_: Request, exc: FieldcraftError) -> JSONResponse:
        return _answer(exc)

    @app.exception_handler(HTTPException)
    async def _framework(request: Request, exc: HTTPException) -> JSONResponse:
        # an unknown path (an encoded slash never matches a route or a static file), or a
        # method the path does not take: the documented body, not the framework's "detail"
        headers = {"Allow": exc.headers["Allow"]} if exc.headers and "Allow" in exc.headers \
            else None
        return _answer(framework_error(exc, request.url.path), headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        where = ", ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))} ({e.get('msg')})"
                          for e in exc.errors())
        return _answer(TableError(E.BAD_REQUEST, f"bad parameter(s): {where}"))

    @app.exception_handler(store.StorageError)
    async def _storage_error(_: Request, exc: store.StorageError) -> JSONResponse:
        return _answer(TableError(E.STORAGE_ERROR, str(exc)))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        # A bug, not a refusal: answer in the same JSON shape as every refusal (not a
        # plain-text 500), and log it. Nothing was accepted: changes commit before they apply.
        logging.getLogger("fieldcraft.server").error(
            "%s %s failed", request.method, request.url.path, exc_info=exc)
        answer = _answer(TableError(E.INTERNAL, "the server could not handle this request; "
                                    "nothing changed"))
        # this handler runs outside every middleware (Starlette's ServerErrorMiddleware), so
        # the guard's headers are added here
        answer.headers.update({k.decode(): v.decode() for k, v in SECURITY_HEADERS})
        return answer


def _add_edge_routes(app: FastAPI) -> None:
    """A socket to a path with no socket, and the health check (after the routers')."""
    @app.websocket("/{path:path}")
    async def _no_such_socket(ws: WebSocket, path: str) -> None:
        """A WebSocket to a path with no socket: accept, say so, close (4404), as for a table
        that does not exist, instead of a refused handshake that a page cannot read."""
        await ws.accept()
        await ws.send_json(E.error_message(TableError(E.NOT_FOUND,
                                                      f"no WebSocket at {'/' + path[:200]!r}")))
        await ws.close(code=4404)

    @app.get("/healthz")
    async def health(request: Request) -> dict[str, Any]:
        hub = hub_of(request)
        return {"ok": True, "tables": len(hub.live_rooms()),
                "actions_committed": hub.actions_committed, "commits": hub.writer.commits}
