"""Who sits at a table before its game starts: a person claims a seat, or the host starts.

A person's seat is claimed with a fresh token, stored as its SHA-256 only; the game starts when
every person's seat is taken, or when the host starts it at once (the seats still free become
bots). A rematch's seats are kept for the players of the last game (:mod:`.rematch`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fieldcraft.server import broadcast, store
from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError
from fieldcraft.server.seats import hash_token, new_token, same_token

if TYPE_CHECKING:
    from fieldcraft.server.room import Room


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
