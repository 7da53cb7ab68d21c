"""The turn clock of a table: when a person's turn is handed to the stand-in bot.

Three things hand a turn to the stand-in bot: the table's turn timer running out
(``turn_seconds``, the same every turn), the seat's time bank running out (a table made with
``clock: {bank, increment}``: :class:`Bank`, a chess clock as Board Game Arena's), and the
person having left (no connection) for ``away_grace`` seconds while it is their turn, unless
the table was made with ``away_bot`` off. :class:`TurnClock` times the turn of the person to
move; :func:`arm_turn` (re)starts it after anything that may change whose turn it is (and
brings the banks up to date), and a timeout marks that person ``away`` and wakes the driver.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fieldcraft.server import broadcast, seating
from fieldcraft.server.seats import SeatState

if TYPE_CHECKING:
    from fieldcraft.server.room import Room

AWAY_GRACE = 10.0
"""Seconds a disconnected person's turn waits before the stand-in bot plays it (when the table
has a turn timer), so that reloading the page does not hand the turn to a bot."""
BANK_RANGE = (10, 86400)
"""Seconds a time bank may start with (10 s to a day: a correspondence game)."""
INCREMENT_RANGE = (0, 3600)
"""Seconds a bank may gain per turn."""


class Bank:
    """Each seat's time bank, in seconds: the seat to move spends its own while it is a
    person's turn (not while the stand-in bot or a bot plays it), and gains ``increment`` each
    time its turn passes to another seat (whoever played it: a person back from a timeout
    then has the increment to play with). A bank that reaches zero is a timeout, as the turn
    timer's. Times are read from ``now`` (the server's monotonic clock seam, which the tests
    drive), so what the page is told is exact to the tenth, whatever the timers' jitter."""

    def __init__(self, initial: float, increment: float, players: int,
                 left: list[float] | None, now: Callable[[], float]):
        """``left``: the banks stored with the table (a restart); else ``initial`` each."""
        self.initial = float(initial)
        self.increment = float(increment)
        ok = isinstance(left, list) and len(left) == players and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in left)
        self.left: list[float] = [float(x) for x in left] if ok and left else \
            [self.initial] * players
        self.now = now
        self.running: int | None = None
        """The seat whose bank is counting down (a person to move), if any..."""
        self.since = 0.0
        """...since this reading of ``now``, up to which ``left`` is charged."""
        self.turn: tuple[int, int] | None = None
        """(seat to move, version) when the banks were last brought up to date."""

    def remaining(self, seat: int) -> float:
        """Seconds ``seat`` has left now (its running time charged)."""
        left = self.left[seat]
        if seat == self.running:
            left -= self.now() - self.since
        return max(0.0, left)

    def settle(self) -> None:
        """Charge the running bank with the time spent since it was last charged."""
        if self.running is not None:
            now = self.now()
            self.left[self.running] = max(0.0, self.left[self.running] - (now - self.since))
            self.since = now

    def follow(self, player: int, version: int, runs: bool,
               earns: Callable[[int], bool]) -> bool:
        """Bring the banks up to the table where ``player`` is to move at ``version``: charge
        the running bank, add the increment to the seat whose turn passed (if ``earns`` it: a
        person's seat), and run ``player``'s bank if ``runs`` (a person is to move). Returns
        whether a turn passed (the banks are then worth storing)."""
        self.settle()
        passed = False
        if self.turn is not None:
            seat, at = self.turn
            if version != at and seat != player:
                passed = True
                if earns(seat):
                    self.left[seat] += self.increment
        self.turn = (player, version) if player >= 0 else None
        running = player if runs else None
        if running != self.running:
            self.running = running
            self.since = self.now()
        return passed

    def public(self) -> dict[str, Any]:
        """What every seat and spectator is told: each seat's seconds left (to the tenth) and
        whose bank is running. Nothing here depends on a hidden card: only on whose turn it
        was and for how long, which every view already shows."""
        return {"left": [round(self.remaining(s), 1) for s in range(len(self.left))],
                "running": self.running, "increment": self.increment}


def bank_of(settings: dict[str, Any], players: int, now: Callable[[], float]) -> Bank | None:
    """The bank of a table made with ``clock: {bank, increment}`` (``None`` for any other),
    with the banks stored in ``settings`` by :func:`seating.save_live` if it has them."""
    config = settings.get("clock")
    if not isinstance(config, dict):
        return None
    return Bank(config.get("bank", BANK_RANGE[0]), config.get("increment", 0), players,
                settings.get(seating.BANKS_KEY), now)


class TurnClock:
    """The clock of the person to move: the turn timer, or ``away_grace`` seconds after the
    person left, whichever is first (neither: with ``away_bot`` off and no timer it waits for
    them however long it takes)."""

    def __init__(self, settings: dict[str, Any], away_grace: Callable[[], float],
                 on_timeout: Callable[[int, int], None], bank: Bank | None = None):
        """``on_timeout(version, player)`` is called when the time is up; it must not hold the
        room strongly (:func:`timeout_handler` holds it weakly), since the room owns this clock
        and a strong link back would be a reference cycle keeping an evicted room alive.
        ``bank``: the table's time banks, which then time each turn instead of
        ``turn_seconds``."""
        self.settings = settings
        self.away_grace = away_grace
        self._on_timeout = on_timeout
        self.bank = bank
        self.deadline: float | None = None
        self.bank_deadline = False
        """Whether the armed deadline is the end of the seat's bank (not the away grace)."""
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
        if self.bank is not None:
            delays = [self.bank.remaining(seat.seat)]
        else:
            limit = self.settings.get("turn_seconds")
            delays = [float(limit)] if limit else []
        if not seat.connections and self.settings.get("away_bot", True):
            delays.append(self.away_grace())
        if not delays:
            return
        delay = min(delays)
        self.bank_deadline = self.bank is not None and delay == delays[0]
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
    """(Re)start the clock of the person to move at ``room``, if there is one; on a table
    with time banks, first bring them up to date (and store them once a turn has passed)."""
    player = room.state.current_player()
    playing = room.status == "playing" and not room.hub.closing
    bank = getattr(room, "bank", None)
    if bank is not None and room.status in ("playing", "finished"):
        seat = room.seats[player] if playing and player >= 0 else None
        runs = seat is not None and not seat.is_bot and not seat.away
        if bank.follow(player, room.version, runs, lambda s: not room.seats[s].is_bot):
            seating.save_soon(room)
    if not playing or player < 0:
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
        bank = getattr(room, "bank", None)
        if bank is not None:
            bank.settle()
            if room.clock.bank_deadline:  # out of time: exactly, whatever the timer's jitter
                bank.left[player] = 0.0
            bank.running = None
            seating.save_soon(room)
        room.clock.stop()
        broadcast.send_presence(room)
    room.kick()
