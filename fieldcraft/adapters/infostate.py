"""The perfect-recall information-state tensor of every fieldcraft game (OpenSpiel adapter).

A seat's information state is what it has seen, in order: the log lines of the actions it saw
(the game's per-seat ``describe_action``: its own cards and moves, what was shown to it, the
public events, each as that seat sees it) and its current observation. The information-state
*string* is exactly that text; this tensor holds the same things, so that it is a function of
the string and loses none of it:

* the game's observation planes (the observation tensor, each plane under its own name), and
* ``history_seen`` ``[L]``: 1 for each log line the seat has seen so far, in order, then 0;
* ``history_text`` ``[L, W // 3]``: each of those lines as UTF-8 bytes, three to a value
  (``(b0 << 16 | b1 << 8 | b2) / 2**24``: in [0, 1), so a network's inputs stay small, and
  exact, a 24-bit integer over a power of two being a float32 with nothing rounded), padded
  with zero bytes.

Why the line and not an action id: a line says what the action was *as this seat sees it*
(the card it was dealt but only "seat 2 draws a card" for someone else's, a bid in full, a
card passed face down as "a card") and also what the action revealed (the true count of a
challenge, the role a retirement showed), which no action id carries. A hidden action is
therefore its public part, or nothing at all if the seat was not told of it, as in the string.

``L`` is the longest possible history: the game's ``max_game_length`` decisions plus its
``max_chance_nodes`` chance events (an action gives a seat at most one line), both as the
adapter declares them (the ``max_game_length`` cap of a game that could go on for ever).
``W`` is :data:`LINE_BYTES` per game, longer than any line its notation writes; a longer line
raises rather than being cut, since a cut would make two information states look alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LINE_BYTES = {
    "against-the-current": 120,
    "spy-tracker": 120,
    "under-current": 120,
    "undercover": 120,
}
"""Bytes kept per log line, per game (a multiple of three). The longest lines seen over many
random games are 66-88 bytes; the test suite's random play checks the bound holds."""
_SCALE = float(1 << 24)
DEFAULT_LINE_BYTES = 150
"""For a game not listed above (a new game starts with room to spare)."""


class InfoStateLayout:
    """The declared pieces of one game's (at one player count) information-state tensor.

    ``observer`` is the game's :class:`~fieldcraft.core.view.Observer`; ``max_lines`` is the
    bound on a seat's log lines (decisions plus chance events)."""

    def __init__(self, game_id: str, observer: Any, max_lines: int):
        width = LINE_BYTES.get(game_id, DEFAULT_LINE_BYTES)
        if width % 3:
            raise ValueError(f"line width {width} must be a multiple of three")
        self.width = width
        self.max_lines = max_lines
        self.observer = observer
        self.obs_size = observer.tensor_size()
        self.pieces: list[tuple[str, tuple[int, ...]]] = [
            (plane.name, tuple(plane.shape)) for plane in observer.planes()]
        self.pieces.append(("history_seen", (max_lines,)))
        self.pieces.append(("history_text", (max_lines, width // 3)))
        self.size = self.obs_size + max_lines + max_lines * (width // 3)

    def views(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views into ``tensor`` (one per piece), as an observer's ``dict``."""
        out: dict[str, np.ndarray] = {}
        at = 0
        for name, shape in self.pieces:
            n = int(np.prod(shape))
            out[name] = tensor[at:at + n].reshape(shape)
            at += n
        return out

    def fill(self, out: np.ndarray, lines: list[str], state: Any, seat: int) -> None:
        """Write ``seat``'s tensor into ``out`` (float32, ``size`` long) from the lines it has
        seen and its current observation of the fieldcraft ``state``."""
        n = len(lines)
        if n > self.max_lines:
            raise ValueError(f"{n} log lines exceed the declared {self.max_lines}")
        obs = self.obs_size
        out[:obs] = self.observer.tensor(state, seat)
        seen = out[obs:obs + self.max_lines]
        seen[:] = 0.0
        seen[:n] = 1.0
        text = out[obs + self.max_lines:]
        text[:] = 0.0
        if n:
            text[:n * (self.width // 3)] = self.pack(lines)

    def pack(self, lines: list[str]) -> np.ndarray:
        """The lines as one flat array, ``width // 3`` values per line (see the module text)."""
        width = self.width
        blob = bytearray()
        for line in lines:
            data = line.encode()
            if len(data) > width:
                raise ValueError(f"log line longer than the declared {width} bytes: {line!r}")
            blob += data.ljust(width, b"\0")
        raw = np.frombuffer(bytes(blob), np.uint8).reshape(-1, 3).astype(np.uint32)
        packed = (raw[:, 0] << 16) | (raw[:, 1] << 8) | raw[:, 2]
        return (packed.astype(np.float64) / _SCALE).astype(np.float32)

    def unpack(self, tensor: np.ndarray) -> list[str]:
        """The log lines back from a tensor (what the tests use to show nothing was lost)."""
        views = self.views(np.asarray(tensor, np.float32))
        n = int(views["history_seen"].sum())
        values = (views["history_text"][:n].astype(np.float64) * _SCALE).astype(np.uint32)
        values = values.reshape(-1)
        raw = np.stack([(values >> 16) & 255, (values >> 8) & 255, values & 255], axis=1)
        rows = raw.astype(np.uint8).reshape(n, self.width)
        return [bytes(row).rstrip(b"\0").decode() for row in rows]
