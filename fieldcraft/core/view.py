"""What a seat sees: a game's observer and the pieces its observation is made of.

As in OpenSpiel, an observer names what a player sees. Each game's ``view.py`` declares the
:class:`Piece` entries of its observation (every key of the dict, and whether only a seat's own
view carries it) and builds the observation in one method. Deciding what a seat may know in one
place is what lets the conformance suite catch a leak with ``resample``; declaring the pieces
lets it catch a key that slipped in unannounced, and tells adapters what there is to encode.

For learning code (OpenSpiel, PettingZoo, Gymnasium) the observer also writes a seat's view as a
flat list of floats, made of named :class:`Plane` segments in a fixed order, like OpenSpiel's
dict observer. The tensor is a function of the seat's observation and loses nothing of it
(except pieces declared ``tensor=False``); the conformance suite checks both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Piece:
    """One key of an observation."""

    name: str
    doc: str
    seat_only: bool = False
    """Present only in a seat's own view (its hand, its role), never in a spectator's."""
    optional: bool = False
    """Present only at some moments (a pending card while it is being passed, say)."""
    tensor: bool = True
    """Encoded in the observation tensor (off only for what a net has no use for, such as the
    game id or a name that repeats an id already encoded)."""


@dataclass(frozen=True)
class Plane:
    """One named segment of the observation tensor, row-major within its shape."""

    name: str
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def plane_offsets(planes: tuple[Plane, ...]) -> dict[str, int]:
    """Where each plane starts in the flat tensor (a game's ``tensor`` writes at these)."""
    offsets: dict[str, int] = {}
    at = 0
    for plane in planes:
        offsets[plane.name] = at
        at += plane.size
    return offsets


class Observer:
    """Builds a game's observations. Subclasses set :attr:`pieces` and implement
    :meth:`observation`."""

    pieces: tuple[Piece, ...] = ()

    def __init__(self, game: Any):
        self.game = game

    def observation(self, state: Any, seat: int | None) -> dict[str, Any]:
        """JSON-able dict of everything ``seat`` knows now (``None``: a spectator)."""
        raise NotImplementedError

    def planes(self) -> tuple[Plane, ...]:
        """The segments of the observation tensor for this game's player count and ruleset, in
        the order :meth:`tensor` writes them."""
        raise NotImplementedError

    def tensor_size(self) -> int:
        return sum(p.size for p in self.planes())

    def tensor(self, state: Any, seat: int) -> list[float]:
        """``seat``'s view as ``tensor_size()`` floats laid out as :meth:`planes` says; read
        from the state directly (it is on the learning hot path), never from what the seat
        cannot see."""
        raise NotImplementedError

    def split(self, tensor: list[float]) -> dict[str, list[float]]:
        """A flat tensor cut into its planes by name (flat lists), for tests and debugging."""
        out: dict[str, list[float]] = {}
        at = 0
        for plane in self.planes():
            out[plane.name] = list(tensor[at:at + plane.size])
            at += plane.size
        return out

    def piece_names(self, seat: int | None, required: bool = False) -> list[str]:
        """The keys an observation for ``seat`` may have (with ``required``: must have), in
        declared order."""
        return [p.name for p in self.pieces if (seat is not None or not p.seat_only)
                and not (required and p.optional)]
