"""The turn clock of a table: when a person's turn is handed to the stand-in bot.

Two things hand a turn to the stand-in bot: the table's turn timer running out
(``turn_seconds``), and the person having left (no connection) for ``away_grace`` seconds while
it is their turn, unless the table was made with ``away_bot`` off. :class:`TurnClock` times the
turn of the person to move; :func:`arm_turn` (re)starts it after anything that may change whose
turn it is, and a timeout marks that person ``away`` and wakes the driver.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fieldcraft.server import broadcast
from fieldcraft.server.seats import SeatState

if TYPE_CHECKING:
    from fieldcraft.server.room import Room

AWAY_GRACE = 10.0
"""Seconds a disconnected person's turn waits before the stand-in bot plays it (when the table
has a turn timer), so that reloading the page does not hand the turn to a bot."""


class TurnClock:
    """The clock of the person to move: the turn timer, or ``away_grace`` seconds after the
    person left, whichever is first (neither: with ``away_bot`` off and no timer it waits for
    them however long it takes)."""

    def __init__(self, settings: dict[str, Any], away_grace: Callable[[], float],
                 on_timeout: Callable[[int, int], None]):
        """``on_timeout(version, player)`` is called when the time is up; it must not hold the
        room strongly (:func:`timeout_handler` holds it weakly), since the room owns this clock
        and a strong link back would be a reference cycle keeping an evicted room alive."""
        self.settings = settings
        self.away_grace = away_grace
        self._on_timeout = on_timeout
        self.deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.deadline = None

    def arm(self, seat: SeatState | None, version: int) -> None:
        """(Re)start the clock for ``seat`` to move at ``version`` (``None``: no person to
        move, so no clock)."""
        self.stop()
        if seat is None or seat.is_bot or seat.away:
            return
        limit = self.settings.get("turn_seconds")
        delays = [float(limit)] if limit else []
        if not seat.connections and self.settings.get("away_bot", True):
            delays.append(self.away_grace())
        if not delays:
            return
        delay = min(delays)
        self.deadline = time.time() + delay
        player = seat.seat
        self._timer = asyncio.get_running_loop().call_later(delay, self._ran_out, version,
                                                            player)

    def _ran_out(self, version: int, player: int) -> None:
        self._timer = None
        self._on_timeout(version, player)

    def left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, round(self.deadline - time.time(), 1))


def arm_turn(room: Room) -> None:
    """(Re)start the clock of the person to move at ``room``, if there is one."""
    player = room.state.current_player()
    if room.status != "playing" or room.hub.closing or player < 0:
        room.clock.stop()
        return
    room.clock.arm(room.seats[player], room.version)


def timeout_handler(room: Room) -> Callable[[int, int], None]:
    """What ``room``'s clock calls when a turn's time is up. It holds the room weakly (a
    timeout after the room is gone does nothing)."""
    ref = weakref.ref(room)

    def on_timeout(version: int, player: int) -> None:
        room = ref()
        if room is not None:
            room.hub.spawn(_timed_out(room, version, player))

    return on_timeout


async def _timed_out(room: Room, version: int, player: int) -> None:
    """The turn of ``player`` at ``version`` ran out: if it is still theirs, they are away
    (the stand-in bot plays for them) and everyone is told."""
    async with room.lock:
        if room.version != version or room.state.current_player() != player \
                or room.status != "playing":
            return
        room.seats[player].away = True
        room.clock.stop()
        broadcast.send_presence(room)
    room.kick()
