"""The edge against other sites' pages: the Origin allowlist and the security headers.

Seat tokens are not cookies, so a page of another site cannot act *as* a player; but it runs in
the player's browser, on their network, and could still create tables, take free seats, start
games or open sockets on a server that only that browser can reach (one on 127.0.0.1, say).
Browsers name the page behind every WebSocket handshake and every cross-site ``POST`` in an
``Origin`` header, so:

* a WebSocket whose ``Origin`` is neither this server's own origin nor one given with
  ``--allowed-origin`` gets one ``error`` message (``auth.bad_origin``) and is closed (4403);
* so does every state-changing HTTP request (anything but GET/HEAD/OPTIONS): 403, same code;
* a request *without* ``Origin`` is allowed: browsers always send one in both cases above, so a
  request without it comes from a program (the tests, httpx, the benchmark, a command-line
  client), which could send any ``Origin`` it liked anyway. ``Origin: null`` (a sandboxed frame,
  a ``file://`` page) is refused.

"This server's own origin" is the request's scheme and its ``Host`` header. Behind a TLS proxy
that needs the proxy to pass ``Host`` on and to say ``X-Forwarded-Proto`` (uvicorn trusts it
from 127.0.0.1), or the public address given with ``--allowed-origin https://games.example``.

Every HTTP response also gets :data:`SECURITY_HEADERS`: a Content-Security-Policy without
inline script or style (the pages load only their own files; the data they embed is in
``<script type="application/json">`` blocks, which are never run), no framing, no MIME sniffing,
no ``Referer`` (a table's link is its join code).

This is a plain ASGI middleware, not a Starlette ``BaseHTTPMiddleware``: it adds a few headers
to the hot path and nothing else.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WS_CLOSE_BAD_ORIGIN = 4403
_DEFAULT_PORTS = {"http": 80, "https": 443}
_WS_SCHEMES = {"ws": "http", "wss": "https"}


def normalise_origin(url: str) -> str:
    """``scheme://host[:port]`` in lower case, without a default port, as a browser writes an
    ``Origin``; raises ``ValueError`` for anything that is not an http(s) origin (a path, a
    query, a user name, no host)."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ValueError(f"{url!r} is not an origin like https://games.example:8443") from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or parts.username is not None \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"{url!r} is not an origin like https://games.example:8443 "
                         "(http or https, a host, an optional port, no path)")
    host = parts.hostname.lower()
    if ":" in host:  # IPv6
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    return f"{scheme}://{host}"


def origin_arg(text: str) -> str:
    """``--allowed-origin URL`` read and checked by argparse (a usage error if it is not an
    origin), so a typo stops the server at start-up instead of refusing every page later."""
    try:
        return normalise_origin(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def own_origin(scope: Scope) -> str | None:
    """The origin of this server as the request reached it (scheme + ``Host``), or None if
    the request names no usable host."""
    host = _header(scope, b"host")
    if not host:
        return None
    scheme = _WS_SCHEMES.get(scope.get("scheme", "http"), scope.get("scheme", "http"))
    try:
        return normalise_origin(f"{scheme}://{host}")
    except ValueError:
        return None


class EdgeGuard:
    """ASGI middleware: refuses other sites' pages (see the module text) and adds
    :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str] = ()):
        self.app = app
        self.allowed = frozenset(normalise_origin(o) for o in allowed_origins)

    def origin_refused(self, scope: Scope) -> str | None:
        """Why this request's ``Origin`` is refused, or None if it may go on."""
        origin = _header(scope, b"origin")
        if origin is None:
            return None
        try:
            origin = normalise_origin(origin)
        except ValueError:
            return f"requests from origin {origin[:80]!r} are not accepted"
        if origin in self.allowed or origin == own_origin(scope):
            return None
        return (f"requests from {origin[:80]!r} are not accepted here (start the server with "
                f"--allowed-origin {origin[:80]} to allow that site)")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            if scope.get("method", "GET") not in SAFE_METHODS:
                why = self.origin_refused(scope)
                if why is not None:
                    await self._refuse_http(send, why)
                    return

            async def send_with_headers(message: Message) -> None:
                if message["type"] == "http.response.start":
                    present = {k.lower() for k, _ in message.get("headers", ())}
                    extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                    message["headers"] = [*message.get("headers", ()), *extra]
                await send(message)

            await self.app(scope, receive, send_with_headers)
        elif kind == "websocket":
            why = self.origin_refused(scope)
            if why is not None:
                await self._refuse_websocket(receive, send, why)
                return
            await self.app(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    @staticmethod
    async def _refuse_http(send: Send, why: str) -> None:
        exc = TableError(E.BAD_ORIGIN, why)
        body = json.dumps(E.error_body(exc), separators=(",", ":")).encode()
        await send({"type": "http.response.start", "status": E.http_status(exc),
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    async def _refuse_websocket(receive: Receive, send: Send, why: str) -> None:
        """Accept, say why, close: a browser's WebSocket API shows nothing of a refused
        handshake, so the page could not tell this refusal from a network failure."""
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        text = json.dumps(E.error_message(TableError(E.BAD_ORIGIN, why)),
                          separators=(",", ":"))
        await send({"type": "websocket.send", "text": text})
        await send({"type": "websocket.close", "code": WS_CLOSE_BAD_ORIGIN})
