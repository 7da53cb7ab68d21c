"""The FastAPI application: pages, the JSON API and the WebSocket endpoint.

HTTP is for things that happen once (list games, create a table, claim a seat, start, replay a
finished game); the WebSocket carries the game itself. Every refusal, on either channel, has a
stable error ``code`` and changes nothing. Request bodies are read by hand (not through pydantic
models) so that every bad body gets the same error shape as the WebSocket errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.websockets import WebSocketDisconnect

from fieldcraft.agents import AGENTS
from fieldcraft.core.api import FieldcraftError
from fieldcraft.core.registry import default_ruleset, list_games
from fieldcraft.server import i18n, store
from fieldcraft.server import protocol as P
from fieldcraft.server.rooms import Connection, HttpError, Hub, Room

log = logging.getLogger("fieldcraft.server")

MAX_BODY_BYTES = P.MAX_MESSAGE_BYTES
FIXED_KEYS = ("min_players", "max_players", "default_players")
NAME_MAX = 40
HELLO_TIMEOUT = 30.0
"""Seconds a new WebSocket may stay silent before it must have said hello."""


def _package_dir(name: str) -> str:
    return str(resources.files("fieldcraft.server").joinpath(name))


def script_json(doc: Any) -> str:
    """JSON that is safe inside a <script> element even when it holds user-chosen names (no
    ``</script>`` can appear in it)."""
    text = json.dumps(doc, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def read_json(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise HttpError(413, P.TOO_LARGE, f"request body is over {MAX_BODY_BYTES} bytes")
    if not body:
        return {}
    try:
        doc = json.loads(body)
    except ValueError:
        raise HttpError(400, P.BAD_JSON, "request body is not valid JSON") from None
    if not isinstance(doc, dict):
        raise HttpError(400, P.BAD_JSON, "request body must be a JSON object")
    return doc


def _field(doc: dict[str, Any], name: str, types: tuple[type, ...], default: Any = None,
           required: bool = False) -> Any:
    if name not in doc or doc[name] is None:
        if required:
            raise HttpError(400, "bad_request", f"field {name!r} is required")
        return default
    value = doc[name]
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        wanted = " or ".join(t.__name__ for t in types)
        raise HttpError(400, "bad_request", f"field {name!r} must be {wanted}")
    return value


def _name(doc: dict[str, Any], default: str) -> str:
    name = _field(doc, "name", (str,), default).strip() or default
    if len(name) > NAME_MAX:
        raise HttpError(400, "bad_request", f"name is longer than {NAME_MAX} characters")
    return name


def game_catalogue() -> list[dict[str, Any]]:
    """Every registered game with its player range and changeable ruleset values, so the lobby
    picks up new games with no code change."""
    out = []
    for name in list_games():
        rules = default_ruleset(name)
        out.append({"id": name, "min_players": rules["min_players"],
                    "max_players": rules["max_players"],
                    "default_players": rules["default_players"],
                    "ruleset": {k: v for k, v in rules.items() if k not in FIXED_KEYS}})
    return out


def tune_gc() -> None:
    """Make garbage-collection pauses short and rare in the server process.

    Measured with 500 live tables: with CPython's default thresholds the full (generation 2)
    collections paused the event loop for up to 290 ms each and cost ~10% of the CPU, which
    alone breaks a 100 ms latency target. Freezing what exists after start-up and collecting
    the young generation less often removed the full collections (longest pause ~50 ms) and
    raised throughput by about a third. Our hot path frees its garbage by reference counting;
    the cyclic collector is still there, just run less often.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


def create_app(db_url: str | None = None, *, bot_delay: float = 0.6, synchronous: str = "FULL",
               snapshot_every: int = 50, away_grace: float = 10.0,
               announce: str | None = None, gc_tuning: bool = False) -> FastAPI:
    """Build the app. ``db_url`` defaults to the SQLite file in the user's data folder;
    ``bot_delay`` is the pause before each bot move so people can follow the table;
    ``gc_tuning`` (for a dedicated server process only) applies :func:`tune_gc`."""
    url = store.normalise_url(db_url or store.default_db_url())

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = store.make_engine(url, synchronous=synchronous)
        await asyncio.to_thread(store.migrate, engine)
        writer = store.Writer(engine)
        hub = Hub(engine, writer, bot_delay=bot_delay, snapshot_every=snapshot_every,
                  away_grace=away_grace)
        app.state.hub = hub
        resumed = await hub.resume()
        if gc_tuning:
            tune_gc()
        if announce:
            print(f"{announce} (resumed {resumed} table(s))", flush=True)
        try:
            yield
        finally:
            await hub.close()
            await asyncio.to_thread(writer.close)
            engine.dispose()

    app = FastAPI(title="fieldcraft web table", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url=None)
    templates = Jinja2Templates(directory=_package_dir("templates"))
    app.mount("/static", StaticFiles(directory=_package_dir("static")), name="static")

    def hub_of(request: Request | WebSocket) -> Hub:
        return request.app.state.hub

    @app.exception_handler(HttpError)
    async def _http_error(_: Request, exc: HttpError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(FieldcraftError)
    async def _rules_error(_: Request, exc: FieldcraftError) -> JSONResponse:
        return error_response(400, "bad_rules", str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        where = ", ".join(".".join(str(p) for p in e.get("loc", ())) for e in exc.errors())
        return error_response(400, "bad_request", f"bad parameter(s): {where}")

    @app.exception_handler(store.StorageError)
    async def _storage_error(_: Request, exc: store.StorageError) -> JSONResponse:
        return error_response(503, P.STORAGE_ERROR, str(exc))

    # -- pages ------------------------------------------------------------------------------------
    def page(request: Request, name: str, context: dict[str, Any],
             status_code: int = 200) -> Response:
        lang = i18n.pick_language(request.query_params.get("lang"),
                                  request.cookies.get("lang"),
                                  request.headers.get("accept-language"))
        t = i18n.Translator(lang)
        ctx = {"t": t, "lang": lang, "languages": i18n.LANGUAGES,
               "catalogue_json": script_json(t.messages), **context}
        response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
        if request.query_params.get("lang") in i18n.LANGUAGES:
            response.set_cookie("lang", lang, max_age=365 * 24 * 3600, samesite="lax")
        return response

    @app.get("/", response_class=HTMLResponse)
    async def lobby(request: Request) -> Response:
        return page(request, "lobby.html", {
            "games_json": script_json(game_catalogue()),
            "bots_json": script_json(sorted(AGENTS)),
        })

    @app.get("/t/{table_id}", response_class=HTMLResponse)
    async def table_page(request: Request, table_id: str) -> Response:
        room = await hub_of(request).get(table_id)
        if room is None:
            return page(request, "missing.html", {"table_id": table_id}, status_code=404)
        return page(request, "table.html", {"table_json": script_json(room.table_info()),
                                            "table": room.table_info()})

    @app.get("/t/{table_id}/replay", response_class=HTMLResponse)
    async def replay_page(request: Request, table_id: str) -> Response:
        room = await hub_of(request).get(table_id)
        if room is None:
            return page(request, "missing.html", {"table_id": table_id}, status_code=404)
        return page(request, "replay.html", {"table_json": script_json(room.table_info()),
                                             "table": room.table_info()})

    # -- JSON API ---------------------------------------------------------------------------------
    @app.get("/api/games")
    async def api_games() -> dict[str, Any]:
        return {"games": game_catalogue(), "bots": sorted(AGENTS)}

    @app.get("/api/tables")
    async def api_tables(request: Request) -> dict[str, Any]:
        hub = hub_of(request)
        live = [r.table_info() for r in sorted(hub.live_rooms(), key=lambda r: r.created_at,
                                               reverse=True)]
        finished = await asyncio.to_thread(store.read_recent_finished, hub.engine)
        return {"tables": live, "finished": [
            {"id": f.id, "game": f.game, "players": f.players, "status": f.status,
             "version": f.version, "result": f.result,
             "seats": [{"seat": s.seat, "kind": s.kind, "bot": s.bot, "name": s.name}
                       for s in f.seats]} for f in finished]}

    @app.post("/api/tables", status_code=201)
    async def api_create(request: Request) -> JSONResponse:
        doc = await read_json(request)
        known = {"game", "players", "seats", "bot", "overrides", "turn_seconds", "seat", "name",
                 "seed", "proxy_bot", "away_bot"}
        extra = sorted(set(doc) - known)
        if extra:
            raise HttpError(400, "bad_request", f"unknown field(s): {', '.join(extra)}")
        game = _field(doc, "game", (str,), required=True)
        if game not in list_games():
            raise HttpError(400, "unknown_game", f"unknown game {game!r}; known games: "
                            f"{', '.join(list_games())}")
        rules = default_ruleset(game)
        players = _field(doc, "players", (int,), rules["default_players"])
        if not rules["min_players"] <= players <= rules["max_players"]:
            raise HttpError(400, "bad_players", f"{game} is for {rules['min_players']}-"
                            f"{rules['max_players']} players, not {players}")
        default_bot = _field(doc, "bot", (str,), "random")
        raw_seats = _field(doc, "seats", (list,), None)
        if raw_seats is None:
            raw_seats = ["human"] + ["bot"] * (players - 1)
        if len(raw_seats) != players:
            raise HttpError(400, "bad_seats", f"'seats' must list {players} seats")
        kinds: list[tuple[str, str | None]] = []
        for entry in raw_seats:
            if entry == "human":
                kinds.append(("human", None))
            elif entry == "bot":
                kinds.append(("bot", default_bot))
            elif isinstance(entry, str) and entry.startswith("bot:"):
                kinds.append(("bot", entry[4:]))
            elif isinstance(entry, dict) and entry.get("kind") in ("human", "bot"):
                bot = entry.get("bot", default_bot) if entry["kind"] == "bot" else None
                if bot is not None and not isinstance(bot, str):
                    raise HttpError(400, "bad_seats", "a seat's bot must be a bot name")
                kinds.append((entry["kind"], bot))
            else:
                raise HttpError(400, "bad_seats", "each seat is 'human', 'bot', 'bot:<name>' "
                                "or {'kind': 'human'|'bot', 'bot': name}")
        overrides = _field(doc, "overrides", (dict,), {})
        turn_seconds = _field(doc, "turn_seconds", (int,), None)
        if turn_seconds is not None and not 5 <= turn_seconds <= 86400:
            raise HttpError(400, "bad_timer", "turn_seconds must be 5-86400 (or null for none)")
        proxy_bot = _field(doc, "proxy_bot", (str,), "random")
        if proxy_bot not in AGENTS:
            raise HttpError(400, "unknown_bot", f"unknown bot {proxy_bot!r}")
        away_bot = _field(doc, "away_bot", (bool,), True)
        seed = _field(doc, "seed", (int,), None)
        humans = [i for i, (k, _) in enumerate(kinds) if k == "human"]
        if "seat" in doc:
            host_seat = _field(doc, "seat", (int,), None)
        else:
            host_seat = humans[0] if humans else None
        name = _name(doc, "Host")
        settings: dict[str, Any] = {"turn_seconds": turn_seconds, "proxy_bot": proxy_bot,
                                    "away_bot": away_bot}
        if seed is not None:
            settings["seed"] = seed
        room, host_token, seat = await hub_of(request).create(
            game, players, kinds, overrides, settings, host_seat, name)
        return JSONResponse({
            "id": room.id, "url": f"/t/{room.id}", "join_code": room.id,
            "host_token": host_token, "seat": seat,
            "token": host_token if seat is not None else None,
            "table": room.table_info()}, status_code=201)

    async def room_or_404(request: Request, table_id: str) -> Room:
        room = await hub_of(request).get(table_id)
        if room is None:
            raise HttpError(404, P.NO_SUCH_TABLE, f"no table {table_id!r}")
        return room

    @app.get("/api/tables/{table_id}")
    async def api_table(request: Request, table_id: str) -> dict[str, Any]:
        room = await room_or_404(request, table_id)
        info = room.table_info()
        if room.status == "finished":
            info["result"] = room.result
        return info

    @app.post("/api/tables/{table_id}/join")
    async def api_join(request: Request, table_id: str) -> dict[str, Any]:
        doc = await read_json(request)
        extra = sorted(set(doc) - {"seat", "name"})
        if extra:
            raise HttpError(400, "bad_request", f"unknown field(s): {', '.join(extra)}")
        room = await room_or_404(request, table_id)
        seat = _field(doc, "seat", (int,), None)
        name = _name(doc, "Player")
        seat, token = await room.claim(seat, name)
        return {"id": room.id, "seat": seat, "token": token, "table": room.table_info()}

    @app.post("/api/tables/{table_id}/start")
    async def api_start(request: Request, table_id: str) -> dict[str, Any]:
        doc = await read_json(request)
        token = _field(doc, "token", (str,), required=True)
        bot = _field(doc, "bot", (str,), "random")
        if bot not in AGENTS:
            raise HttpError(400, "unknown_bot", f"unknown bot {bot!r}")
        room = await room_or_404(request, table_id)
        await room.start_now(token, bot)
        return room.table_info()

    @app.get("/api/tables/{table_id}/replay")
    async def api_replay(request: Request, table_id: str, step: int = -1,
                         seat: str = "") -> dict[str, Any]:
        """One step of a finished game from one seat's point of view (``seat`` empty: the
        spectator's). Only finished games: during play this would reveal hidden cards."""
        room = await room_or_404(request, table_id)
        if room.status != "finished":
            raise HttpError(409, "not_finished", "replays are for finished games")
        viewer: int | None = None
        if seat not in ("", "spectator"):
            if not seat.isdigit() or not 0 <= int(seat) < room.players:
                raise HttpError(400, "bad_seat", f"seat must be 0-{room.players - 1} or empty")
            viewer = int(seat)
        history = room.state.history()
        total = len(history)
        if step < 0 or step > total:
            step = total
        state = room.game.replay(history[:step])
        col = room.players if viewer is None else viewer
        lines = room.lines
        log_lines = [{"version": v + 1, "line": lines[v][col]} for v in range(step)
                     if lines[v][col] is not None]
        marks = [v + 1 for v in range(total) if lines[v][col] is not None]
        player = state.current_player()
        return {"step": step, "steps": total, "seat": viewer, "observation":
                state.observation(viewer), "log": log_lines, "marks": marks,
                "current_player": player if player >= 0 else None,
                "result": room.result, "seats": room.seat_info()}

    @app.get("/healthz")
    async def health(request: Request) -> dict[str, Any]:
        hub = hub_of(request)
        return {"ok": True, "tables": len(hub.live_rooms()),
                "actions_committed": hub.actions_committed, "commits": hub.writer.commits}

    # -- the game channel -------------------------------------------------------------------------
    @app.websocket("/ws/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        room = await hub_of(ws).get(table_id)
        if room is None:
            await ws.send_text(json.dumps({"type": "error", "code": P.NO_SUCH_TABLE,
                                           "message": f"no table {table_id!r}"}))
            await ws.close(code=4404)
            return
        conn = Connection(ws)
        pump = asyncio.create_task(conn.pump())
        try:
            while not conn.closed:
                if conn.ready:
                    message = await ws.receive()
                else:
                    try:
                        message = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
                    except TimeoutError:
                        conn.send_doc({"type": "error", "code": P.HELLO_REQUIRED,
                                       "message": "no hello received; closing"})
                        break
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                await room.handle(conn, raw)
        except WebSocketDisconnect:
            pass
        finally:
            room.detach(conn)
            with contextlib.suppress(asyncio.QueueFull):
                conn.queue.put_nowait(None)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(pump, timeout=1.0)
            pump.cancel()

    return app
