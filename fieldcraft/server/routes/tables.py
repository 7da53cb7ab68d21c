"""The JSON API: things that happen once (list games, create a table, claim a seat, start,
replay a finished game). The game itself goes over the WebSocket (``routes/live.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from fieldcraft.agents.levels import WEB_BOTS, is_bot_name
from fieldcraft.core.errors import FieldcraftError, RulesetError
from fieldcraft.core.registry import game_spec, list_games, load_game
from fieldcraft.core.text import DEFAULT as DEFAULT_LANG
from fieldcraft.core.text import LANGUAGES
from fieldcraft.server import access, store
from fieldcraft.server import errors as E
from fieldcraft.server.catalogue import game_catalogue
from fieldcraft.server.clock import BANK_RANGE, INCREMENT_RANGE
from fieldcraft.server.errors import TableError
from fieldcraft.server.jsonin import MAX_SAFE_INT
from fieldcraft.server.limits import client_address
from fieldcraft.server.routes.requests import (
    INT_MAX,
    field,
    hub_of,
    int_field,
    only,
    person_name,
    read_json,
    seat_param,
)

router = APIRouter(prefix="/api")

CREATE_FIELDS = {"game", "players", "seats", "bot", "overrides", "turn_seconds", "clock", "seat",
                 "name", "seed", "proxy_bot", "away_bot", "public", "feedback"}
LIST_LIMIT = 50
"""Live tables in one ``GET /api/tables`` answer by default (at most ``LIST_MAX``): the lobby
stays a few kilobytes however many tables the server has."""
LIST_MAX = 100
FINISHED_LISTED = 20


@router.get("/games")
async def api_games(lang: str = DEFAULT_LANG) -> dict[str, Any]:
    """The games in the lobby's order, their cards' words in ``lang`` (English if unknown)."""
    return {"games": game_catalogue(lang if lang in LANGUAGES else DEFAULT_LANG),
            "bots": list(WEB_BOTS)}  # one per level, weakest first (agents/levels.py)


@router.get("/tables")
async def api_tables(request: Request, limit: int = Query(LIST_LIMIT, ge=1, le=LIST_MAX),
                     offset: int = Query(0, ge=0, le=INT_MAX)) -> dict[str, Any]:
    """The lobby: public tables only (a private one is reachable only by its link or code),
    newest first, ``limit`` at a time from ``offset``; ``next_offset`` is where the next page
    starts, or ``None``. ``finished``: the latest finished public games, for their replays."""
    hub = hub_of(request)
    listed = hub.listed_rooms()
    page = listed[offset:offset + limit]
    tables = []
    for room in page:
        info = room.table_info()
        del info["join_code"]  # the id is listed; the lobby needs no second key
        tables.append(info)
    finished = await asyncio.to_thread(store.read_recent_finished, hub.engine, FINISHED_LISTED)
    more = offset + limit < len(listed)
    return {"tables": tables, "next_offset": offset + limit if more else None,
            "finished": [
                {"id": f.id, "game": f.game, "players": f.players, "status": f.status,
                 "version": f.version, "result": f.result,
                 "seats": [{"seat": s.seat, "kind": s.kind, "bot": s.bot, "name": s.name}
                           for s in f.seats]} for f in finished]}


@router.get("/codes/{code}")
async def api_code(request: Request, code: str) -> dict[str, Any]:
    """A join code, as typed (any case, with or without dashes), to its table's link."""
    table_id = await hub_of(request).find_code(code)
    return {"id": table_id, "url": f"/t/{table_id}"}


def seat_kinds(raw: list[Any], players: int, default_bot: str) -> list[tuple[str, str | None]]:
    """``["human", "bot", "bot:<name>", {"kind": ..., "bot": ...}]`` read and checked."""
    if len(raw) != players:
        raise TableError(E.BAD_SEATS, f"'seats' must list {players} seats")
    kinds: list[tuple[str, str | None]] = []
    for entry in raw:
        if entry == "human":
            kinds.append(("human", None))
        elif entry == "bot":
            kinds.append(("bot", default_bot))
        elif isinstance(entry, str) and entry.startswith("bot:"):
            kinds.append(("bot", entry[4:]))
        elif isinstance(entry, dict) and entry.get("kind") in ("human", "bot"):
            bot = entry.get("bot", default_bot) if entry["kind"] == "bot" else None
            if bot is not None and not isinstance(bot, str):
                raise TableError(E.BAD_SEATS, "a seat's bot must be a bot name")
            kinds.append((entry["kind"], bot))
        else:
            raise TableError(E.BAD_SEATS, "each seat is 'human', 'bot', 'bot:<name>' or "
                             "{'kind': 'human'|'bot', 'bot': name}")
    return kinds


def clock_setting(raw: Any, turn_seconds: int | None) -> dict[str, int] | None:
    """The ``clock`` of a create request: ``null`` (none, or the per-turn ``turn_seconds``) or
    a time bank ``{"bank": seconds, "increment": seconds}``, each a whole number in its range
    (``clock.BANK_RANGE``, ``clock.INCREMENT_RANGE``). A bank and a per-turn timer together
    are refused: the page could show only one of them, and which would win is a guess."""
    if raw is None:
        return None
    low, high = BANK_RANGE
    inc_low, inc_high = INCREMENT_RANGE
    shape = (f"'clock' is null or {{\"bank\": {low}-{high}, \"increment\": "
             f"{inc_low}-{inc_high}}} (seconds)")
    if not isinstance(raw, dict) or not raw.keys() <= {"bank", "increment"} \
            or "bank" not in raw:
        raise TableError(E.BAD_TIMER, shape)
    bank, increment = raw["bank"], raw.get("increment", 0)
    for value, (a, b) in ((bank, BANK_RANGE), (increment, INCREMENT_RANGE)):
        if isinstance(value, bool) or not isinstance(value, int) or not a <= value <= b:
            raise TableError(E.BAD_TIMER, shape)
    if turn_seconds is not None:
        raise TableError(E.BAD_TIMER, "a table has a per-turn timer ('turn_seconds') or a "
                         "time bank ('clock'), not both")
    return {"bank": bank, "increment": increment}


def known_bot(name: str) -> str:
    if not is_bot_name(name):
        raise TableError(E.UNKNOWN_BOT, f"unknown bot {name!r}")
    return name


@router.post("/tables", status_code=201)
async def api_create(request: Request) -> JSONResponse:
    address = client_address(request)
    hub_of(request).limits.check_create_rate(address)  # every attempt counts, before any work
    doc = await read_json(request)
    only(doc, CREATE_FIELDS)
    game = field(doc, "game", (str,), required=True)
    if game not in list_games():
        raise TableError(E.UNKNOWN_GAME, f"unknown game {game!r}; known games: "
                         f"{', '.join(list_games())}")
    spec = game_spec(game)
    players = int_field(doc, "players", 0, INT_MAX, code=E.BAD_PLAYERS,
                        default=spec.default_players)
    assert players is not None
    if not spec.min_players <= players <= spec.max_players:
        raise TableError(E.BAD_PLAYERS, f"{game} is for {spec.min_players}-"
                         f"{spec.max_players} players, not {players}")
    default_bot = field(doc, "bot", (str,), "random")
    raw_seats = field(doc, "seats", (list,), None)
    if raw_seats is None:
        raw_seats = ["human"] + ["bot"] * (players - 1)
    kinds = seat_kinds(raw_seats, players, default_bot)
    overrides = field(doc, "overrides", (dict,), {})
    turn_seconds = field(doc, "turn_seconds", (int,), None)
    if turn_seconds is not None and not 5 <= turn_seconds <= 86400:
        raise TableError(E.BAD_TIMER, "turn_seconds must be 5-86400 (or null for none)")
    clock = clock_setting(doc.get("clock"), turn_seconds)
    proxy_bot = known_bot(field(doc, "proxy_bot", (str,), "random"))
    away_bot = field(doc, "away_bot", (bool,), True)
    public = field(doc, "public", (bool,), False)
    feedback = field(doc, "feedback", (bool,), False)  # the questionnaire at the end
    seed = int_field(doc, "seed", -MAX_SAFE_INT, MAX_SAFE_INT)
    if seed is not None and not request.app.state.allow_seeded_tables:
        raise TableError(E.SEED_NOT_ALLOWED, "this server does not create seeded tables: a "
                         "seed makes every deal predictable; start it with "
                         "--allow-seeded-tables for tests and demos")
    humans = [i for i, (k, _) in enumerate(kinds) if k == "human"]
    if "seat" in doc:
        host_seat = int_field(doc, "seat", 0, INT_MAX, code=E.BAD_SEAT)
    else:
        host_seat = humans[0] if humans else None
    name = person_name(doc, "Host")
    settings: dict[str, Any] = {"turn_seconds": turn_seconds, "proxy_bot": proxy_bot,
                                "away_bot": away_bot}
    if clock is not None:
        settings["clock"] = clock
    if seed is not None:
        settings["seed"] = seed
    if feedback:
        settings["feedback"] = True
    room, host_token, seat = await hub_of(request).create(
        game, players, kinds, overrides, settings, host_seat, name, public=public,
        address=address)
    return JSONResponse({
        "id": room.id, "url": f"/t/{room.id}",
        "join_code": access.show_join_code(room.join_code),
        "host_token": host_token, "seat": seat,
        "token": host_token if seat is not None else None,
        "table": room.table_info()}, status_code=201)


@router.get("/tables/{table_id}")
async def api_table(request: Request, table_id: str) -> dict[str, Any]:
    room = await hub_of(request).require(table_id)
    info = room.table_info()
    if room.status == "finished":
        info["result"] = room.result
    return info


@router.post("/tables/{table_id}/join")
async def api_join(request: Request, table_id: str) -> dict[str, Any]:
    doc = await read_json(request)
    only(doc, {"seat", "name"})
    room = await hub_of(request).require(table_id)
    seat = int_field(doc, "seat", 0, INT_MAX, code=E.BAD_SEAT)
    name = person_name(doc, "Player")
    seat, token = await room.claim(seat, name)
    return {"id": room.id, "seat": seat, "token": token, "table": room.table_info()}


@router.post("/tables/{table_id}/start")
async def api_start(request: Request, table_id: str) -> dict[str, Any]:
    doc = await read_json(request)
    token = field(doc, "token", (str,), required=True)
    bot = known_bot(field(doc, "bot", (str,), "random"))
    room = await hub_of(request).require(table_id)
    await room.start_now(token, bot)
    return room.table_info()


@router.post("/tables/{table_id}/rematch")
async def api_rematch(request: Request, table_id: str) -> JSONResponse:
    """A new table like this finished one (see :meth:`Hub.rematch`); ``token`` is the asking
    player's seat token here. 201 when this request created it, 200 when it joined the one
    another player created."""
    address = client_address(request)
    doc = await read_json(request)
    only(doc, {"token"})
    token = field(doc, "token", (str,), required=True)
    hub = hub_of(request)
    room = await hub.require(table_id)
    seat = room.seats.holding(token)
    if seat is None:
        raise TableError(E.NOT_SEATED, "only a player of this table can ask for a rematch")
    follow, seat_token, got, host_token, created = await hub.rematch(room, seat, address)
    return JSONResponse({
        "id": follow.id, "url": f"/t/{follow.id}", "seat": got, "token": seat_token,
        "host_token": host_token, "created": created, "table": follow.table_info()},
        status_code=201 if created else 200)


@router.post("/rulesets/check")
async def api_check_ruleset(request: Request) -> JSONResponse:
    """Check ruleset changes with the engine's own validation before a table is made: the
    shape check of :func:`fieldcraft.core.ruleset.resolve` and the game's own checks (its
    ``Game`` refuses values the rules cannot play). The refusal names the ``key`` at fault
    when one key alone is refused, so the lobby can show it next to that field."""
    doc = await read_json(request)
    only(doc, {"game", "players", "overrides"})
    game = field(doc, "game", (str,), required=True)
    if game not in list_games():
        raise TableError(E.UNKNOWN_GAME, f"unknown game {game!r}")
    players = int_field(doc, "players", 0, INT_MAX)
    overrides = field(doc, "overrides", (dict,), {})
    try:
        await asyncio.to_thread(check_ruleset, game, players, overrides)
    except RulesetFault as fault:
        body = E.error_body(fault.error)
        body["error"]["key"] = fault.key
        return JSONResponse(body, status_code=400)
    return JSONResponse({"ok": True, "game": game, "overrides": overrides})


class RulesetFault(Exception):
    """A refused ruleset and the key at fault (``None``: only the keys together fail)."""

    def __init__(self, error: FieldcraftError, key: str | None):
        super().__init__(str(error))
        self.error = error
        self.key = key


def check_ruleset(game: str, players: int | None, overrides: dict[str, Any]) -> None:
    """Build the game with each override alone, then with all of them (what creating the
    table does); raise :class:`RulesetFault` at the first refusal."""
    for key, value in overrides.items():
        try:
            load_game(game, players=players, **{key: value})
        except FieldcraftError as exc:
            raise RulesetFault(exc, key) from None
        except (TypeError, ValueError, KeyError) as exc:  # a game's check that is not ours
            raise RulesetFault(RulesetError(f"{key}: {exc}"), key) from None
    try:
        load_game(game, players=players, **overrides)
    except FieldcraftError as exc:
        raise RulesetFault(exc, None) from None
    except (TypeError, ValueError, KeyError) as exc:
        raise RulesetFault(RulesetError(str(exc)), None) from None


@router.get("/tables/{table_id}/replay")
async def api_replay(request: Request, table_id: str,
                     step: int = Query(-1, ge=-1, le=INT_MAX), seat: str = "") -> dict[str, Any]:
    """One step of a finished game from one seat's point of view (``seat`` empty: the
    spectator's; ``step`` -1 or past the end: the last). Only finished games: during play this
    would reveal hidden cards."""
    room = await hub_of(request).require(table_id)
    if room.status != "finished":
        raise TableError(E.NOT_FINISHED, "replays are for finished games")
    viewer = seat_param(seat, room.players, ("", "spectator"))
    doc = room.table.replay_view(viewer, step)
    doc["result"] = room.result
    doc["seats"] = room.seats.public()
    doc["seeded"] = room.seeded
    doc["chat"] = room.chat.until(doc["step"])
    return doc
