"""A room's broadcast edge: store a change, then tell each connection its own cut of it.

Every message a room sends about its game is put together here, from :meth:`Table.view_text`
(the one place a seat's view is cut) and :meth:`Table.log_text` (the seat's own log lines), as
boardgame.io filters each player's view in one place at the broadcast edge. A change is always
told the same way: the table prepares it on a clone (:func:`commit`), the writer thread commits
its rows, and only then is it accepted, the actor answered and every connection told
(:func:`store_and_tell`), so nobody hears of a move the database does not hold.

These are functions of the room, not an object it keeps: they hold nothing between calls, so
they add no link back to the room (an evicted room is freed by reference counting alone), and a
room put together from other parts (the audits' twin rooms) is told through its own parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fieldcraft.server import store
from fieldcraft.server.connection import Connection, dumps
from fieldcraft.server.table import Commit

if TYPE_CHECKING:
    from fieldcraft.server.room import Room

Ack = tuple[Connection, Any]
"""The connection that sent a move and its message id, answered once the move is stored."""


# -- who is told ---------------------------------------------------------------------------------
def audience(room: Room) -> list[tuple[int | None, set[Connection]]]:
    """The connections of each connected seat and (seat ``None``) the spectators'."""
    out: list[tuple[int | None, set[Connection]]] = list(room.seats.connected())
    if room.spectators:
        out.append((None, room.spectators))
    return out


def send_all(room: Room, text: str) -> None:
    """``text`` to every connection, seated or watching (the same for all)."""
    for _, conns in audience(room):
        for conn in list(conns):
            conn.send(text)


def send_seated(room: Room, text: str) -> None:
    """``text`` to the seated players' connections only, not the spectators'."""
    for _, conns in room.seats.connected():
        for conn in list(conns):
            conn.send(text)


# -- what each is told ---------------------------------------------------------------------------
def may_act(room: Room, seat: int | None) -> bool:
    return seat is not None and room.status == "playing" and not room.seats[seat].is_bot


def view_extra(room: Room) -> dict[str, Any]:
    """The room's keys of every view (after the table's): the same for every seat."""
    return {"status": room.status, "seats": room.seats.public(),
            "deadline_in": room.clock.left(), "banks": banks_of(room)}


def banks_of(room: Room) -> dict[str, Any] | None:
    """Each seat's time bank and whose is running (``None``: the table has no time banks;
    :class:`~fieldcraft.server.clock.Bank`): public, like whose turn it is."""
    bank = getattr(room, "bank", None)
    return None if bank is None else bank.public()  # type: ignore[no-any-return]


def view_text(room: Room, seat: int | None, tail: str | None = None) -> str:
    """Everything one seat (``None``: a spectator) is sent about the table right now, encoded
    (once per version and seat, by the table); ``tail`` is the encoded :func:`view_extra`
    when the caller already has it."""
    if tail is None:
        tail = "," + dumps(view_extra(room))[1:]
    return room.table.view_text(seat, may_act(room, seat), tail)


def update_text(room: Room, seat: int | None, since: int, tail: str | None = None) -> str:
    """The ``update`` message for ``seat`` after versions ``since+1 ..`` were committed."""
    return (f'{{"type":"update","since":{since},"version":{room.version},"events":'
            f'{room.table.log_text(seat, since)},"view":'
            f'{view_text(room, seat, tail)}}}')


def send_update(room: Room, since: int) -> None:
    """Tell every connection: one encoding per seat, the room's part encoded once."""
    tail = "," + dumps(view_extra(room))[1:]
    for seat, conns in audience(room):
        text = update_text(room, seat, since, tail)
        for conn in list(conns):
            conn.send(text)


def presence_text(room: Room) -> str:
    return dumps({"type": "presence", "version": room.version, "seats": room.seats.public(),
                  "deadline_in": room.clock.left(), "banks": banks_of(room),
                  "status": room.status})


def send_presence(room: Room) -> None:
    send_all(room, presence_text(room))


def sync_text(room: Room, seat: int | None, last_version: int | None,
              pending: tuple[int, int | None] | None = None) -> str:
    """What a (re)connecting client missed: the events after ``last_version`` if it is a
    version this room has had, else the whole log; always with a fresh view, the latest chat
    and, for ``pending`` (the version and action of a move the client sent and never heard
    back about), whether that move is in the history (:meth:`Room.pending_answer`)."""
    since = last_version if last_version is not None and last_version <= room.version else 0
    extra = ""
    if pending is not None:
        extra = f',"pending":{dumps(room.pending_answer(seat, *pending))}'
    return (f'{{"type":"sync","since":{since},"version":{room.version},"events":'
            f'{room.table.log_text(seat, since)},"view":{view_text(room, seat)},'
            f'"table":{dumps(room.table_info())},"you":{dumps(room.you(seat))},'
            f'"chat":{dumps(room.chat.latest())}{extra}}}')


# -- changing the table --------------------------------------------------------------------------
async def commit(room: Room, moves: list[tuple[int, int, bool]], ack: Ack | None = None
                 ) -> None:
    """Prepare ``moves`` (and the chance draws after them) on the table, store them in one
    transaction, then accept them and tell everyone. Must be called with the room's lock held.
    An illegal move raises the engine's ``IllegalActionError``; on a storage failure nothing
    changes and :class:`store.StorageError` propagates."""
    prepared = room.table.prepare(moves, room.driver.chance_rng)
    if prepared is not None:
        await store_and_tell(room, prepared, ack)


async def store_and_tell(room: Room, commit: Commit, ack: Ack | None = None) -> None:
    """Store a prepared commit, then accept it, answer ``ack`` and update every connection."""
    status = "finished" if commit.terminal else None
    await room.hub.writer.submit(store.job_append_actions(
        room.id, commit.since + 1, commit.rows, snapshot=commit.snapshot, status=status,
        result=commit.result))
    room.table.accept(commit)
    if commit.terminal:
        room.status = "finished"
        room.result = commit.result
        room.hub.evict_finished()
    room.arm_clock()
    if ack is not None:
        conn, msg_id = ack
        # the version of the acknowledged action itself (chance draws may follow it)
        conn.send_doc({"type": "ack", "id": msg_id, "version": commit.acked})
    send_update(room, commit.since)
    room.hub.actions_committed += len(commit.rows)
