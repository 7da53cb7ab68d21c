"""``GET /api/tables/{id}/analysis?step=K``: what the strong bot would have played at step K of
a finished game, from the view of the seat to move there (see :mod:`fieldcraft.server.analysis`).

Only finished games, as for the replay: during play the bot's opinion of a seat's options would
help whoever asks. Step ``K`` is the position after the first ``K`` actions (the replay's step),
and ``played`` is the action taken there, so the page can set the bot's choice beside it. A step
where chance draws or the game is over answers ``nothing: "chance" | "terminal"``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request

from fieldcraft.server import errors as E
from fieldcraft.server.analysis import Analyser
from fieldcraft.server.errors import TableError
from fieldcraft.server.routes.requests import INT_MAX, hub_of

router = APIRouter(prefix="/api")


def analyser_of(request: Request) -> Analyser:
    return request.app.state.analyser  # type: ignore[no-any-return]


@router.get("/tables/{table_id}/analysis")
async def api_analysis(request: Request, table_id: str,
                       step: int = Query(ge=-INT_MAX, le=INT_MAX)) -> dict[str, Any]:
    room = await hub_of(request).require(table_id)
    if room.status != "finished":
        raise TableError(E.NOT_FINISHED, "the analysis is for finished games")
    table = room.table
    total = table.version
    if not 0 <= step <= total:
        raise TableError(E.BAD_STEP, f"step must be 0-{total} for this game, not {step}")
    doc = dict(await analyser_of(request).analyse(room.id, step, table.state_at))
    history = table.state.history()
    doc["steps"] = total
    doc["played"] = history[step] if step < total and doc["nothing"] is None else None
    return doc
