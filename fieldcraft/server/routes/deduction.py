"""After the game: the deduction report of a finished table and its export as a replay file.

Both only for finished games (during play the report would tell hidden cards). The report is
computed once per table and seat, in a worker thread, and kept (a finished table never
changes): the first request waits for it up to ``WAIT_SECONDS``, and if it is not ready by
then gets ``202`` with ``{"status": "computing"}``, so the page polls instead of holding a
request open while a long game is worked through.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from fieldcraft.core.deduction import NoSecretsError, deduction_for, deduction_report
from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError
from fieldcraft.server.room import Room
from fieldcraft.server.routes.requests import hub_of, seat_param

router = APIRouter(prefix="/api")

WAIT_SECONDS = 1.0
"""How long a request waits for a report being computed before answering ``202``."""
CACHED = 64
"""Reports kept (table and seat each); the oldest is dropped first. Each is tens of kB."""
SAMPLES = 200
"""Resamples per step for a belief a game gives no exact answer for."""


def _finished(room: Room) -> None:
    if room.status != "finished":
        raise TableError(E.NOT_FINISHED, "the deduction report and the export are for "
                                         "finished games")


def _cache(request: Request) -> OrderedDict[tuple[str, int | None], asyncio.Future[Any]]:
    state = request.app.state
    cache = getattr(state, "deduction_reports", None)
    if cache is None:
        cache = state.deduction_reports = OrderedDict()
    return cache


def export_doc(room: Room) -> dict[str, Any]:
    """The finished game as a replay file: enough to rebuild every step exactly."""
    return {"game": room.game_name, "players": room.players,
            "overrides": dict(room.overrides or {}), "actions": room.table.state.history(),
            "table": room.id}


@router.get("/tables/{table_id}/export")
async def api_export(request: Request, table_id: str) -> dict[str, Any]:
    """``{"game", "players", "overrides", "actions"}`` of a finished table (and its id): what
    ``fieldcraft report-game`` and ``fieldcraft play --from`` read."""
    room = await hub_of(request).require(table_id)
    _finished(room)
    return export_doc(room)


@router.get("/tables/{table_id}/deduction")
async def api_deduction(request: Request, table_id: str, seat: str = "") -> Any:
    """What ``seat`` (empty: every seat) could deduce at each step of a finished table (see
    :func:`fieldcraft.core.deduction.deduction_report`)."""
    room = await hub_of(request).require(table_id)
    _finished(room)
    viewer = seat_param(seat, room.players, ("", "all"))
    try:
        deduction_for(room.table.game)
    except NoSecretsError as exc:  # the page hides its panel for such a game
        return JSONResponse({"error": {"code": exc.code, "message": str(exc)}},
                            status_code=404)
    cache = _cache(request)
    key = (room.id, viewer)
    future = cache.get(key)
    if future is None or (future.done() and future.exception() is not None):
        game, actions = room.table.game, room.table.state.history()
        future = asyncio.ensure_future(asyncio.to_thread(
            deduction_report, game, actions, viewer, SAMPLES, 0))
        cache[key] = future
        while len(cache) > CACHED:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    try:
        report = await asyncio.wait_for(asyncio.shield(future), WAIT_SECONDS)
    except TimeoutError:
        return JSONResponse({"status": "computing"}, status_code=202)
    return {"status": "ready", "table": room.id, **report}
