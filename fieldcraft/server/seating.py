"""Who sits at a table before its game starts: a person claims a seat, or the host starts.

A person's seat is claimed with a fresh token, stored as its SHA-256 only; the game starts when
every person's seat is taken, or when the host starts it at once (the seats still free become
bots). A rematch's seats are kept for the players of the last game (:mod:`.rematch`).

Once the game is under way a person may concede (:func:`concede`): the table's stand-in bot
plays their seat for the rest of the game, so a team or many-player game goes on, and the seat
is marked ``conceded`` in the seat list. What changes during play besides the moves (who
conceded, each seat's time bank) is stored in the table's ``settings`` JSON under its own keys
(:func:`save_live`), which :func:`take_live` removes from the settings the room keeps, so a
rematch, which copies the settings, starts afresh.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from fieldcraft.server import broadcast, store
from fieldcraft.server import errors as E
from fieldcraft.server.connection import Connection, dumps
from fieldcraft.server.errors import TableError
from fieldcraft.server.models import game_tables
from fieldcraft.server.seats import hash_token, new_token, same_token

if TYPE_CHECKING:
    from fieldcraft.server.room import Room

BANKS_KEY = "banks_left"
"""The stored settings' key of each seat's time bank (seconds) when last stored."""
CONCEDED_KEY = "conceded"
"""The stored settings' key of the seats that conceded."""
LIVE_KEYS = (BANKS_KEY, CONCEDED_KEY)

log = logging.getLogger("fieldcraft.server")


async def claim(room: Room, seat: int | None, name: str, rematch: bool) -> tuple[int, str]:
    """Give a person an unclaimed human seat (the first free one for ``None``); returns
    (seat, token). Starts the game when every human seat is taken. Holds the room's lock."""
    async with room.lock:
        seat = _free_seat(room, seat, rematch)
        last = len(room.seats.free()) == 1
        token = new_token()
        digest = hash_token(token)
        ok = await room.hub.writer.submit(store.job_claim_seat(room.id, seat, name, digest))
        if not ok:
            raise TableError(E.SEAT_TAKEN, f"seat {seat} is not free")
        room.seats[seat].name = name
        room.seats[seat].token_hash = digest
        if last:
            await _start(room, {})
        else:
            broadcast.send_presence(room)
    return seat, token


def _free_seat(room: Room, seat: int | None, rematch: bool) -> int:
    """The seat to give, or the refusal: a rematch's seats only to its players, only while
    waiting, a seat of this table, and free."""
    if room.rematch.of is not None and not rematch:
        raise TableError(E.SEAT_RESERVED, "this table is a rematch: its seats are "
                         "kept for the players of the last game, who take them "
                         "with its rematch button")
    if room.status != "waiting":
        raise TableError(E.NOT_WAITING, "this table is no longer taking players")
    free = room.seats.free()
    if seat is None:
        if not free:
            raise TableError(E.TABLE_FULL, "every seat is taken")
        seat = free[0]
    if not 0 <= seat < room.players:
        raise TableError(E.BAD_SEAT, f"seat must be 0-{room.players - 1}")
    if seat not in free:
        raise TableError(E.SEAT_TAKEN, f"seat {seat} is not free")
    return seat


async def start_now(room: Room, host_token: str, bot: str) -> None:
    """The host starts without waiting: unclaimed seats become ``bot``s. Holds the lock."""
    async with room.lock:
        if not room.host_hash or not same_token(host_token, room.host_hash):
            raise TableError(E.BAD_TOKEN, "only the table's host can start it")
        if room.status != "waiting":
            raise TableError(E.NOT_WAITING, "the game has already started")
        await _start(room, {seat: bot for seat in room.seats.free()})


async def _start(room: Room, bots: dict[int, str]) -> None:
    await room.hub.writer.submit(store.job_set_status(room.id, "playing", bots))
    for seat, bot in bots.items():
        room.seats[seat].kind = "bot"
        room.seats[seat].bot = bot
    room.status = "playing"
    room.arm_clock()
    broadcast.send_update(room, room.version)


# -- conceding -----------------------------------------------------------------------------------
async def concede(room: Room, conn: Connection) -> None:
    """``conn``'s seat gives up: from now on the table's stand-in bot plays it (its person
    keeps their view and the chat). Stored before anyone is told; every connection then gets
    a ``conceded`` message and the seat list. Refused, changing nothing: a spectator, a table
    not started or over, a seat that has conceded already. Holds the room's lock."""
    async with room.lock:
        seat = conn.seat
        if seat is None:
            raise TableError(E.SPECTATOR, "spectators cannot concede")
        if room.seats[seat].conceded:
            raise TableError(E.CONCEDED, "you have already conceded: a bot plays this seat")
        if room.status == "waiting":
            raise TableError(E.NOT_STARTED, "the game has not started; leave the table instead")
        if room.status != "playing" or room.state.is_terminal():
            raise TableError(E.GAME_OVER, "the game is over")
        conceded = [s.seat for s in room.seats if s.conceded] + [seat]
        try:
            await room.hub.writer.submit(_job_save(room, conceded))
        except store.StorageError as exc:
            raise TableError(E.STORAGE_ERROR, f"could not save the concession: {exc}") from None
        room.seats[seat].conceded = True
        room.seats[seat].away = False
        room.arm_clock()  # a bank no longer runs for it; the bot plays its turn
        broadcast.send_all(room, dumps({"type": "conceded", "seat": seat,
                                        "name": room.seats[seat].name,
                                        "version": room.version}))
        broadcast.send_presence(room)


# -- what is stored besides the moves ------------------------------------------------------------
def take_live(settings: dict[str, Any]) -> dict[str, Any]:
    """Remove the stored live keys from a table's ``settings`` (in place) and return them: the
    room keeps the settings as they were made (what a rematch copies)."""
    return {key: settings.pop(key) for key in LIVE_KEYS if key in settings}


def _live(room: Room, conceded: list[int] | None = None) -> dict[str, Any]:
    live: dict[str, Any] = {CONCEDED_KEY: conceded if conceded is not None
                            else [s.seat for s in room.seats if s.conceded]}
    bank = getattr(room, "bank", None)
    if bank is not None:
        bank.settle()
        live[BANKS_KEY] = [round(x, 3) for x in bank.left]
    return live


def _job_save(room: Room, conceded: list[int] | None = None) -> store.Job:
    """The job that stores the room's settings with its live keys."""
    text = json.dumps({**room.settings, **_live(room, conceded)})
    table_id = room.id

    def run(conn: sa.engine.Connection) -> None:
        conn.execute(game_tables.update().where(game_tables.c.id == table_id)
                     .values(settings=text))
    return run


def save_soon(room: Room) -> None:
    """Store the banks (a turn passed, a bank ran out) without waiting for the commit: the
    moves are already stored, and a bank stored one turn late costs at most that turn's time
    after a crash (jobs are committed in order, so the last one stored is the newest)."""
    job = _job_save(room)

    async def save() -> None:
        try:
            await room.hub.writer.submit(job)
        except store.StorageError as exc:
            log.error("table %s: could not store the time banks: %s", room.id, exc)

    room.hub.spawn(save())
