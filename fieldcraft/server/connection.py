"""One WebSocket connection's outgoing side: a bounded queue drained by its own task.

Messages go through the queue so that a slow client never stalls a table; a client that falls
too far behind is closed (it resynchronises when it reconnects).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

SEND_QUEUE = 2000

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


def dumps(doc: Any) -> str:
    """Compact JSON. Messages are trees built here, never cyclic, so the cycle check (a third
    of the encoding time of a view) is skipped; one encoder serves every call (``json.dumps``
    with options builds a new one each time)."""
    return _ENCODER.encode(doc)


class Connection:
    def __init__(self, ws: Any):
        self.ws = ws
        self.seat: int | None = None
        self.token_hash: str | None = None
        self.ready = False  # after a valid hello
        self.closed = False
        self.close_code = 4008  # fell behind; a limit sets its own (limits.CLOSE_RATE_LIMITED)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=SEND_QUEUE)

    def send(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.get_nowait()
                self.queue.put_nowait(None)

    def send_doc(self, doc: dict[str, Any]) -> None:
        self.send(dumps(doc))

    async def pump(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    await self.ws.close(code=self.close_code)
                    return
                await self.ws.send_text(text)
        except Exception:  # noqa: BLE001 - the socket went away; the reader will notice
            self.closed = True
