"""``POST /api/tables/<id>/branch``: play on from any step of a finished game's replay.

"What if I had called instead?" is asked of one moment and from one seat's knowledge. The new
table starts from the original's position at that step with everything that seat could not
see re-dealt (:meth:`fieldcraft.server.hub.Hub.branch`), so playing it on neither shows nor
uses the real hidden cards; the asker takes that seat and bots of the chosen strength the
others. The answer has the shape of ``POST /api/tables`` (the seat token to keep).

``GET /api/tables/<id>/branch`` tells the replay's panel which bots it may offer: the levels'
web ids the lobby offers for the table's game (:func:`fieldcraft.agents.levels.offered_levels`),
so a level added there is offered without touching the page's script."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from fieldcraft.agents.levels import offered_levels
from fieldcraft.server import access
from fieldcraft.server import errors as E
from fieldcraft.server.limits import client_address
from fieldcraft.server.routes.requests import (
    INT_MAX,
    field,
    hub_of,
    int_field,
    only,
    person_name,
    read_json,
)

router = APIRouter(prefix="/api")

BRANCH_FIELDS = {"step", "seat", "bot", "name"}
DEFAULT_BOT = "heuristic"
"""The other seats' bot when none is named: a fair opponent that answers at once."""
UNNAMED = "Player"
"""The asker's name when neither they nor the original seat had one."""


def original_name(seats: Any, seat: int, players: int) -> str:
    """The name the branch's seat takes when the asker gives none: the original seat's
    person's, so the branch reads as the same game played on (issue 34: it said "Player"
    even where the original seat had a name). A bot's seat had no person to name."""
    if 0 <= seat < players and seats[seat].kind == "human" and seats[seat].name:
        return str(seats[seat].name)
    return UNNAMED


@router.get("/tables/{table_id}/branch")
async def api_branch_options(request: Request, table_id: str) -> dict[str, Any]:
    """``{bots, default}``: the bots a branch of this table may seat, weakest first (those the
    lobby offers for its game), and the one chosen unless the asker picks another. The table
    must exist (the panel asks from its replay)."""
    room = await hub_of(request).require(table_id)
    return {"bots": offered_levels(room.game_name), "default": DEFAULT_BOT}


@router.post("/tables/{table_id}/branch", status_code=201)
async def api_branch(request: Request, table_id: str) -> JSONResponse:
    """``{step, seat, bot?, name?}`` -> ``201 {id, url, join_code, seat, token, host_token,
    table}``. Refused, with nothing made: a table that is not finished
    (``table.not_finished``), a step outside 0..steps or at the game's end
    (``request.bad_step``), a seat that does not exist (``request.bad_seat``), an unknown bot
    (``request.unknown_bot``)."""
    address = client_address(request)
    doc = await read_json(request)
    only(doc, BRANCH_FIELDS)
    step = int_field(doc, "step", 0, INT_MAX, code=E.BAD_STEP, required=True)
    seat = int_field(doc, "seat", 0, INT_MAX, code=E.BAD_SEAT, required=True)
    assert step is not None and seat is not None
    bot = field(doc, "bot", (str,), DEFAULT_BOT)
    hub = hub_of(request)
    room = await hub.require(table_id)
    name = person_name(doc, original_name(room.seats, seat, room.players))
    follow, token = await hub.branch(room, step, seat, bot, name, address)
    return JSONResponse({
        "id": follow.id, "url": f"/t/{follow.id}",
        "join_code": access.show_join_code(follow.join_code),
        "seat": seat, "token": token, "host_token": token,
        "table": follow.table_info()}, status_code=201)
