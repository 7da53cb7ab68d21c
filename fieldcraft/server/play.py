"""A person's move: checked against the table, prepared on a clone, stored, then told.

Every refusal comes before anything changes, in a fixed order (who asks and whether they
conceded, the table's status,
the version the client saw, whose turn it is, the action id's range), so a refusal says the
same whatever the hidden state; legality itself is the engine's, on the clone
(:meth:`Table.prepare`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fieldcraft.server import broadcast, store
from fieldcraft.server import errors as E
from fieldcraft.server import protocol as P
from fieldcraft.server.connection import Connection
from fieldcraft.server.errors import TableError

if TYPE_CHECKING:
    from fieldcraft.server.room import Room


async def act(room: Room, conn: Connection, msg: P.Message) -> None:
    """Play ``msg``'s action for ``conn``'s seat: stored, acknowledged, then every connection
    updated (holds the room's lock); a refusal raises and changes nothing."""
    async with room.lock:
        seat = conn.seat
        if seat is None:
            raise TableError(E.SPECTATOR, "spectators cannot act")
        if room.seats[seat].conceded:
            raise TableError(E.CONCEDED, "you conceded: a bot plays this seat")
        if room.status == "waiting":
            raise TableError(E.NOT_STARTED, "the table is still waiting for players")
        if room.status == "finished" or room.state.is_terminal():
            raise TableError(E.GAME_OVER, "the game is over")
        if msg.version != room.version:
            raise TableError(E.STALE_VERSION, f"your view is version {msg.version}; the "
                             f"table is at version {room.version}")
        if room.state.current_player() != seat:
            raise TableError(E.NOT_YOUR_TURN, "it is not your turn")
        action = _action_of(room, msg)
        commit = room.table.prepare([(action, seat, False)], room.driver.chance_rng)
        assert commit is not None  # a move was given
        room.seats[seat].away = False
        try:
            await broadcast.store_and_tell(room, commit, ack=(conn, msg.id))
        except store.StorageError as exc:
            raise TableError(E.STORAGE_ERROR, f"could not save the action: {exc}") from None


def _action_of(room: Room, msg: P.Message) -> int:
    """The action id ``msg`` names (by id or as text), refused if it is outside the game's
    action space: such an id is never handed to the engine (see ``protocol.MAX_ACTION_ID``)."""
    if msg.action_text is not None:
        action = room.table.parse(msg.action_text)
    else:
        action = int(msg.action or 0)
    top = room.table.game.num_distinct_actions()
    if not 0 <= action < top:
        raise TableError(E.ILLEGAL_ACTION, f"action {action} is not an action of this "
                         f"game (its actions are 0-{top - 1})")
    return action
