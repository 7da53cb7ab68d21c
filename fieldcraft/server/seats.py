"""Who sits at a table: seats, their tokens and connections.

A seat is a person's or a bot's. A person's seat is claimed with a token (only its SHA-256 is
kept, so a leaked database cannot be used to play) and is played by a stand-in bot while the
person is ``away``: their turn clock ran out, or they left the table while it was their turn
(:mod:`fieldcraft.server.clock`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any


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
    conceded: bool = False
    """Its person conceded: the stand-in bot plays it for the rest of the game
    (:func:`fieldcraft.server.seating.concede`); its kind stays ``human``, so a rematch keeps
    the seat for them."""
    connections: set[Any] = field(default_factory=set)

    @property
    def is_bot(self) -> bool:
        """Played by a bot for good: a bot's seat, or a person's who conceded (never timed,
        never offered choices)."""
        return self.kind == "bot" or self.conceded

    @property
    def free(self) -> bool:
        """A person's seat nobody has taken yet."""
        return not self.is_bot and self.token_hash is None

    def public(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "bot": self.bot, "name": self.name,
                "claimed": self.is_bot or self.token_hash is not None,
                "connected": bool(self.connections), "away": self.away,
                "conceded": self.conceded}


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
