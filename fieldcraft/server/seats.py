"""Who sits at a table: seats, their tokens and connections, and the turn clock.

A seat is a person's or a bot's. A person's seat is claimed with a token (only its SHA-256 is
kept, so a leaked database cannot be used to play) and is played by a stand-in bot while the
person is ``away``: their turn clock ran out, or they left the table while it was their turn.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
import types
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

AWAY_GRACE = 10.0
"""Seconds a disconnected person's turn waits before the stand-in bot plays it (when the table
has a turn timer), so that reloading the page does not hand the turn to a bot."""


def hash_token(token: str) -> str:
    """Tokens are stored only as SHA-256 digests: a leaked database cannot be used to play."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def same_token(token: str, digest: str | None) -> bool:
    return hmac.compare_digest(hash_token(token), digest or "")


@dataclass
class SeatState:
    seat: int
    kind: str  # "human" | "bot"
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None
    away: bool = False
    connections: set[Any] = field(default_factory=set)

    @property
    def is_bot(self) -> bool:
        return self.kind == "bot"

    @property
    def free(self) -> bool:
        """A person's seat nobody has taken yet."""
        return not self.is_bot and self.token_hash is None

    def public(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "bot": self.bot, "name": self.name,
                "claimed": self.is_bot or self.token_hash is not None,
                "connected": bool(self.connections), "away": self.away}


class Seats:
    """The seats of one table."""

    def __init__(self, seats: list[SeatState]):
        self.seats = seats

    def __getitem__(self, seat: int) -> SeatState:
        return self.seats[seat]

    def __iter__(self) -> Any:
        return iter(self.seats)

    def __len__(self) -> int:
        return len(self.seats)

    def public(self) -> list[dict[str, Any]]:
        return [s.public() for s in self.seats]

    def free(self) -> list[int]:
        return [s.seat for s in self.seats if s.free]

    def holding(self, token: str) -> int | None:
        """The seat this token holds, if any (compared in constant time)."""
        digest = hash_token(token)
        found = None
        for s in self.seats:
            if s.token_hash and hmac.compare_digest(s.token_hash, digest):
                found = s.seat
        return found

    def played_by_bot(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.is_bot or s.away

    def connected(self) -> list[tuple[int, set[Any]]]:
        return [(s.seat, s.connections) for s in self.seats if s.connections]


class TurnClock:
    """The clock of the person to move. Two things hand a turn to the stand-in bot: the
    table's turn timer running out (``turn_seconds``), and the person having left (no
    connection) for ``away_grace`` seconds while it is their turn, unless the table was made
    with ``away_bot`` off (then, without a timer, it waits for them however long it takes)."""

    def __init__(self, settings: dict[str, Any], away_grace: Callable[[], float],
                 on_timeout: Callable[[int, int], None]):
        """``on_timeout`` is usually the room's bound method: it is held weakly, since the room
        owns this clock and a strong link back would be a reference cycle keeping an evicted
        room alive. A timeout after the room is gone does nothing."""
        self.settings = settings
        self.away_grace = away_grace
        self._on_timeout: Callable[[], Callable[[int, int], None] | None] = (
            weakref.WeakMethod(on_timeout) if isinstance(on_timeout, types.MethodType)
            else lambda: on_timeout)
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
        on_timeout = self._on_timeout()
        if on_timeout is not None:
            on_timeout(version, player)

    def left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, round(self.deadline - time.time(), 1))
