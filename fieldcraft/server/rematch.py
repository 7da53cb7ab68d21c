"""A table's rematch: the follow-up of a finished table, and the table it follows.

A rematch is offered to the seated players only, and its seats are bound to them: the first
player to ask creates it (:meth:`Hub.rematch`), the others take their old seat there with their
seat token here; a spectator or a stranger holding its id can watch it but not sit at it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fieldcraft.server import broadcast
from fieldcraft.server.connection import dumps

if TYPE_CHECKING:
    from fieldcraft.server.room import Room


class Rematch:
    """``id``: the follow-up of this (finished) table, once someone asked for it; ``of``: the
    finished table this one is the rematch of (its seats are kept for that table's players)."""

    __slots__ = ("id", "of")

    def __init__(self, rematch_id: str | None, of: str | None):
        self.id = rematch_id
        self.of = of

    @property
    def url(self) -> str | None:
        return None if self.id is None else f"/t/{self.id}"

    def offer(self, room: Room, rematch_id: str) -> None:
        """Remember the follow-up table and tell the seated players' pages (not the
        spectators': the rematch's seats are kept for this table's players)."""
        self.id = rematch_id
        broadcast.send_seated(room, dumps({"type": "rematch", "url": self.url,
                                           "id": rematch_id}))
