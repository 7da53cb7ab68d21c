"""Playtests and the post-game questionnaire over HTTP: the public page ``/p/<name>``, its
"Play" (``POST /api/playtests/<name>/tables``), the designer's report and close, and
``/api/tables/<id>/feedback``. The rules of each live in :mod:`fieldcraft.server.playtest` and
:mod:`fieldcraft.server.feedback`; this module only reads requests and answers them."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from fieldcraft.server import access, i18n
from fieldcraft.server import errors as E
from fieldcraft.server import feedback as F
from fieldcraft.server import playtest as P
from fieldcraft.server.errors import TableError
from fieldcraft.server.limits import client_address
from fieldcraft.server.routes.pages import lang_of, page
from fieldcraft.server.routes.requests import (
    field,
    hub_of,
    only,
    person_name,
    read_json,
    script_json,
)

router = APIRouter()


def _public_finished(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"id": r["id"], "players": r["players"], "url": r["url"], "replay": r["replay"],
             "winners": (r["result"] or {}).get("winners"),
             "seats": r["seats"],
             "ended": r["updated_at"].isoformat() if r["updated_at"] else None}
            for r in rows]


async def _overview(request: Request, name: str) -> dict[str, Any]:
    engine = hub_of(request).engine
    found = await asyncio.to_thread(P.require, engine, name)
    counts = await asyncio.to_thread(P.counts, engine, name)
    finished = await asyncio.to_thread(P.finished_tables, engine, name)
    return {**found.public(), "tables": counts, "finished": _public_finished(finished)}


@router.get("/p/{name}", response_class=HTMLResponse)
async def playtest_page(request: Request, name: str) -> Response:
    """The playtest's public page: what the variant changes, the rules, its finished games
    and "Play"; with ``#designer=<token>`` the designer's report and close as well."""
    try:
        doc = await _overview(request, name)
    except TableError as exc:
        if exc.code != E.NO_SUCH_PLAYTEST:
            raise
        return page(request, "playtest.html", {"playtest": None, "missing": name[:60]},
                    status_code=404)
    return page(request, "playtest.html", {"playtest": doc, "playtest_json": script_json(doc),
                                           "game": doc["game"]})


@router.get("/api/playtests/{name}")
async def api_playtest(request: Request, name: str) -> dict[str, Any]:
    """The public facts of a playtest: its game, players, changes, counts, finished games."""
    return await _overview(request, name)


@router.post("/api/playtests/{name}/tables", status_code=201)
async def api_play(request: Request, name: str) -> JSONResponse:
    """A table of the playtest: ``{"seats": ["human", "bot", ...], "name"?}``, one entry per
    seat (as many as the playtest allows players), at least one person; "bot" seats are played
    by the playtest's bot. The asking person takes the first human seat. It goes through the
    same :meth:`~fieldcraft.server.hub.Hub.create` as ``POST /api/tables`` (the same limits,
    the same answer), tagged with the playtest and asking the questionnaire at its end."""
    address = client_address(request)
    hub = hub_of(request)
    hub.limits.check_create_rate(address)
    doc = await read_json(request)
    only(doc, {"seats", "name"})
    found = await asyncio.to_thread(P.require, hub.engine, name)
    if not found.open:
        raise TableError(E.PLAYTEST_CLOSED, f"the playtest {name!r} is closed: its designer "
                         "has what they need; thank you")
    raw = field(doc, "seats", (list,), required=True)
    if not found.min_players <= len(raw) <= found.max_players:
        raise TableError(E.BAD_SEATS, f"this playtest is for {found.min_players}-"
                         f"{found.max_players} players: list that many seats, not {len(raw)}")
    if any(entry not in ("human", "bot") for entry in raw):
        raise TableError(E.BAD_SEATS, "each seat of a playtest table is 'human' or 'bot' "
                         f"(its bot is the playtest's: {found.bot})")
    if "human" not in raw:
        raise TableError(E.BAD_SEATS, "a playtest table needs at least one person: bots "
                         "alone are a study (fieldcraft study)")
    kinds: list[tuple[str, str | None]] = [(k, found.bot if k == "bot" else None) for k in raw]
    host_seat = raw.index("human")
    person = person_name(doc, "Host")
    settings: dict[str, Any] = {"turn_seconds": None, "proxy_bot": found.bot, "away_bot": True,
                                "feedback": True, "playtest": found.name}
    room, host_token, seat = await hub.create(
        found.game, len(raw), kinds, dict(found.overrides), settings, host_seat, person,
        public=False, address=address, playtest=found.name)
    return JSONResponse({
        "id": room.id, "url": f"/t/{room.id}",
        "join_code": access.show_join_code(room.join_code),
        "host_token": host_token, "seat": seat,
        "token": host_token if seat is not None else None,
        "playtest": found.name, "table": room.table_info()}, status_code=201)


async def _designer(request: Request, name: str) -> P.Playtest:
    doc = await read_json(request)
    only(doc, {"token"})
    found = await asyncio.to_thread(P.require, hub_of(request).engine, name)
    P.check_designer(found, doc.get("token"))
    return found


@router.post("/api/playtests/{name}/report")
async def api_report(request: Request, name: str) -> dict[str, Any]:
    """The designer's report (``{"token"}``: the designer link's): human games pooled, the
    questionnaire (:mod:`fieldcraft.sim.playtest_report`)."""
    from fieldcraft.sim.playtest_report import playtest_report

    found = await _designer(request, name)
    return await asyncio.to_thread(playtest_report, hub_of(request).engine, found.name)


@router.post("/api/playtests/{name}/close")
async def api_close(request: Request, name: str) -> dict[str, Any]:
    """Close the playtest (``{"token"}``): its page makes no more tables. Closing a closed
    one is not an error: it answers the same."""
    found = await _designer(request, name)
    await asyncio.to_thread(P.close, hub_of(request).engine, found.name)
    return {"name": found.name, "status": "closed"}


# -- the questionnaire ------------------------------------------------------------------------
@router.get("/api/tables/{table_id}/feedback")
async def api_feedback_form(request: Request, table_id: str) -> dict[str, Any]:
    """Whether this table asks (``on``), whether it is over, how many have answered, and the
    questions in the page's language (the rules to pick from). The answers themselves are
    the designer's (the report), not anyone's who holds the table's link."""
    hub = hub_of(request)
    room = await hub.require(table_id)
    answered = await asyncio.to_thread(F.count, hub.engine, room.id)
    return {"on": F.asks(room.settings), "finished": room.status == "finished",
            "answers": answered, "questions": F.questionnaire(room.game_name, lang_of(request))}


@router.post("/api/tables/{table_id}/feedback", status_code=201)
async def api_feedback(request: Request, table_id: str) -> JSONResponse:
    """One seated person's answers (``{"token", "answers", "lang"?}``): 201 when stored. A
    table that does not ask, one not finished, a spectator, a token of no seat here, a bad
    answer and a second answer are each refused with their own code, storing nothing."""
    hub = hub_of(request)
    doc = await read_json(request)
    only(doc, {"token", "answers", "lang"})
    room = await hub.require(table_id)
    if not F.asks(room.settings):
        raise TableError(E.FEEDBACK_OFF, "this table does not ask for feedback")
    if room.status != "finished":
        raise TableError(E.NOT_FINISHED, "the questionnaire comes after the game")
    seat = F.seat_of(doc.get("token"), room.seats)
    answers = F.check_answers(doc.get("answers"), room.game_name)
    lang = doc.get("lang")
    if not isinstance(lang, str) or lang not in i18n.LANGUAGES:  # a list is not hashable
        lang = lang_of(request)
    stored = await hub.writer.submit(F.job_add(room.id, seat, answers, lang))
    if not stored:
        raise TableError(E.FEEDBACK_ANSWERED, "this seat has already answered; thank you")
    return JSONResponse({"table": room.id, "seat": seat, "answers": answers},
                        status_code=201)
