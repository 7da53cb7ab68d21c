"""A table's chat: its lines and each seat's rate limit.

Chat is public (seats and spectators read the same lines) and only seated players write; the
text was checked by the protocol (:func:`fieldcraft.server.protocol.parse_message`), the rate is
checked here, per seat, so two tabs of one seat share it. A line is stored before anyone is sent
it, like a move.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, overload

from fieldcraft.server import broadcast, store
from fieldcraft.server import errors as E
from fieldcraft.server import protocol as P
from fieldcraft.server.connection import Connection, dumps
from fieldcraft.server.errors import TableError
from fieldcraft.server.limits import Clock, LimitError, TokenBucket

if TYPE_CHECKING:
    from fieldcraft.server.room import Room

CHAT_RATE = 0.5
"""Chat messages a seat may send a second in the long run (one every two seconds)..."""
CHAT_BURST = 4
"""...after a burst of this many (a quick "gg" and a sentence should never be refused)."""
CHAT_SENT = 100
"""Chat messages a (re)connecting page is sent: the latest ones (all are kept)."""


class Chat:
    """The chat lines of one table, oldest first (a sequence of :class:`store.ChatRow`), and
    the rate buckets of the seats that wrote; ``clock`` times the buckets (the limits')."""

    def __init__(self, lines: list[store.ChatRow], clock: Clock):
        self.lines = lines
        self._clock = clock
        self._buckets: dict[int, TokenBucket] = {}

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, i: int) -> store.ChatRow: ...

    @overload
    def __getitem__(self, i: slice) -> list[store.ChatRow]: ...

    def __getitem__(self, i: int | slice) -> store.ChatRow | list[store.ChatRow]:
        return self.lines[i]

    def __iter__(self) -> Iterator[store.ChatRow]:
        return iter(self.lines)

    def latest(self) -> list[dict[str, Any]]:
        """The lines a (re)connecting page is sent (the newest ``CHAT_SENT``)."""
        return [c.public() for c in self.lines[-CHAT_SENT:]]

    def until(self, version: int) -> list[dict[str, Any]]:
        """The chat written up to game version ``version`` (a replay at that step)."""
        return [c.public() for c in self.lines if c.version <= version]

    def check_rate(self, seat: int) -> None:
        """Take one of ``seat``'s chat tokens, or refuse with ``chat.too_fast``."""
        bucket = self._buckets.get(seat)
        if bucket is None:
            bucket = self._buckets[seat] = TokenBucket(CHAT_RATE, CHAT_BURST, self._clock)
        wait = bucket.take()
        if wait > 0:
            raise LimitError(E.CHAT_TOO_FAST, "too many chat messages; wait a moment", wait)

    async def say(self, room: Room, conn: Connection, msg: P.Message) -> None:
        """Store a seated player's chat message, then send it to everyone at the table."""
        seat = conn.seat
        assert seat is not None
        self.check_rate(seat)
        async with room.lock:
            row = store.ChatRow(seq=len(self.lines) + 1, seat=seat, version=room.version,
                                text=msg.text.strip() if msg.text is not None else None,
                                phrase=msg.phrase, created_at=store.now())
            try:
                await room.hub.writer.submit(store.job_add_chat(room.id, row))
            except store.StorageError as exc:
                raise TableError(E.STORAGE_ERROR, f"could not save the message: {exc}") from None
            self.lines.append(row)
            broadcast.send_all(room, dumps({"type": "chat", "message": row.public()}))
        if msg.id is not None:
            conn.send_doc({"type": "ack", "id": msg.id, "version": room.version})
