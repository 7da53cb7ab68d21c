"""The game channel: one WebSocket per person or spectator at a table, messages handed to the
table's room one at a time. A refusal is answered with an ``error`` message (the room does it).

The socket limits apply here, before a message reaches the room: sockets per client address
and messages per socket (a message over the rate is answered ``limits.rate_limited`` and
dropped; a socket that keeps flooding is closed with code 4429)."""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from fieldcraft.server import errors as E
from fieldcraft.server.connection import Connection, dumps
from fieldcraft.server.errors import TableError
from fieldcraft.server.limits import CLOSE_RATE_LIMITED, LimitError, client_address
from fieldcraft.server.routes.requests import hub_of

router = APIRouter()

HELLO_TIMEOUT = 30.0
"""Seconds a new WebSocket may stay silent before it must have said hello."""


@router.websocket("/ws/{table_id}")
async def ws_table(ws: WebSocket, table_id: str) -> None:
    await ws.accept()
    limits = hub_of(ws).limits
    address = client_address(ws)
    refused = limits.open_socket(address)
    if refused is not None:
        await ws.send_text(dumps(E.error_message(refused)))
        await ws.close(code=CLOSE_RATE_LIMITED)
        return
    try:
        await serve_socket(ws, table_id)
    finally:
        limits.close_socket(address)


async def serve_socket(ws: WebSocket, table_id: str) -> None:
    """One accepted socket, counted by the limits, until it closes."""
    room = await hub_of(ws).get(table_id)
    if room is None:
        await ws.send_text(dumps(E.error_message(
            TableError(E.NO_SUCH_TABLE, f"no table {table_id!r}"))))
        await ws.close(code=4404)
        return
    conn = Connection(ws)
    gate = hub_of(ws).limits.message_gate()
    pump = asyncio.create_task(conn.pump())
    try:
        while not conn.closed:
            if conn.ready:
                message = await ws.receive()
            else:
                try:
                    message = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
                except TimeoutError:
                    conn.send_doc(E.error_message(TableError(
                        E.HELLO_REQUIRED, "no hello received; closing")))
                    break
            if message["type"] == "websocket.disconnect":
                break
            verdict, wait = gate.check()
            if verdict != "ok":
                conn.send_doc(E.error_message(LimitError(
                    E.RATE_LIMITED, "too many messages; slow down" if verdict == "refuse"
                    else "too many messages for too long; closing", wait)))
                if verdict == "close":
                    conn.close_code = CLOSE_RATE_LIMITED
                    break
                continue
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            await room.handle(conn, raw)
    except WebSocketDisconnect:
        pass
    finally:
        room.detach(conn)
        with contextlib.suppress(asyncio.QueueFull):
            conn.queue.put_nowait(None)
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(pump, timeout=1.0)
        pump.cancel()
