"""The edge against other sites' pages: the Host and Origin allowlists and the security headers.

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
that needs the proxy to pass ``Host`` on (or to say ``X-Forwarded-Host``, with
``--proxy-headers``) and to say ``X-Forwarded-Proto`` (uvicorn trusts it from 127.0.0.1), or
the public address given with ``--allowed-origin https://games.example``.

That alone would trust whatever ``Host`` a browser sends, and DNS rebinding makes a browser send
a name of the attacker's choosing: a page on ``rebind.example`` whose name is then pointed at
127.0.0.1 talks to this server *as its own origin* (``Host: rebind.example:8000``, ``Origin:
http://rebind.example:8000``), so the Origin check lets it in. Hence the Host allowlist, as
Django's ``ALLOWED_HOSTS``: every request and WebSocket must name this server by one of its
names (``--allowed-host``; by default the listening address, ``localhost``, ``127.0.0.1`` and
``[::1]``; any port), or it gets ``auth.bad_host`` (HTTP 400; a socket one ``error`` and close
4400), GET included, since reading the API is what the rebinding page is after. With
``--proxy-headers`` every name in ``X-Forwarded-Host`` must be allowed *as well as* ``Host``:
checking both means a forged ``X-Forwarded-Host`` can only get a request refused, never let in,
so it needs no judgement of which peer is a trusted proxy (uvicorn's proxy middleware, which
runs first, has already replaced the peer's address by then).

Every HTTP response also gets :data:`SECURITY_HEADERS`: a Content-Security-Policy without
inline script or style (the pages load only their own files; the data they embed is in
``<script type="application/json">`` blocks, which are never run), no framing, no MIME sniffing,
no ``Referer`` (a table's link is its join code).

This is a plain ASGI middleware, not a Starlette ``BaseHTTPMiddleware``: it adds a few headers
to the hot path and nothing else.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import re
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
WS_CLOSE_BAD_HOST = 4400
DEFAULT_ALLOWED_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The names a server answers to without ``--allowed-host`` (besides the address it listens
on): the ones this machine's own browser uses for a loopback server."""
ANY_HOST = "*"
"""``--allowed-host '*'``: answer to any name (a proxy in front checks the name itself)."""
_HOST_RE = re.compile(r"(?P<name>[a-z0-9._-]+|\[[0-9a-f:.]+\])(?::(?P<port>[0-9]{1,5}))?")
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


def normalise_host(text: str) -> str:
    """A host name as ``--allowed-host`` takes it and a ``Host`` header's name is compared with
    it: lower case, without a trailing dot (``example.org.`` is the same name) and an IPv6
    address in brackets; ``*`` stays ``*``. Raises ``ValueError`` for anything else (a port, a
    path, a space, a name that is not ASCII: browsers send such names in punycode)."""
    name = text.strip().lower()
    if name == ANY_HOST:
        return name
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"  # a bare IPv6 address, as --host takes it
    match = _HOST_RE.fullmatch(name)
    try:
        if match is None or match.group("port") is not None or not name.strip("."):
            raise ValueError
        return _bare(name)
    except ValueError:
        raise ValueError(f"{text!r} is not a host name (give the name without a port, "
                         "e.g. games.example or [::1])") from None


def _bare(name: str) -> str:
    if name.startswith("["):
        return f"[{ipaddress.IPv6Address(name[1:-1])}]"  # one spelling of each address
    return name.rstrip(".")


def host_arg(text: str) -> str:
    """``--allowed-host NAME`` read and checked by argparse, so a typo stops the server at
    start-up instead of refusing every page later."""
    try:
        return normalise_host(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def listening_names(host: str) -> list[str]:
    """The names a server listening on ``host`` answers to by default: that address (when it is
    one a browser could use) and :data:`DEFAULT_ALLOWED_HOSTS`."""
    names = list(DEFAULT_ALLOWED_HOSTS)
    try:
        own = normalise_host(host)
    except ValueError:
        return names
    if own != ANY_HOST and own not in names:
        names.append(own)
    return names


def host_name(value: str) -> str | None:
    """The name in a ``Host`` (or ``X-Forwarded-Host``) value, ``name[:port]``, normalised as
    :func:`normalise_host` does; None if the value is not a host and a port."""
    match = _HOST_RE.fullmatch(value.strip().lower())
    if match is None or not match.group("name").strip("."):
        return None
    try:
        return _bare(match.group("name"))
    except ValueError:
        return None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def _headers(scope: Scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope.get("headers", ()) if key == name]


def _forwarded_hosts(scope: Scope) -> list[str]:
    """Every name in the ``X-Forwarded-Host`` headers, first (the browser's, as the first
    proxy received it) to last."""
    return [part.strip() for value in _headers(scope, b"x-forwarded-host")
            for part in value.split(",")]


def own_origin(scope: Scope, forwarded: bool = False) -> str | None:
    """The origin of this server as the request reached it (scheme + ``Host``, or the first
    ``X-Forwarded-Host`` when ``forwarded`` and present), or None if the request names no
    usable host."""
    host = _header(scope, b"host")
    if forwarded:
        host = next(iter(_forwarded_hosts(scope)), host)
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

    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str] = (),
                 allowed_hosts: Iterable[str] = DEFAULT_ALLOWED_HOSTS,
                 proxy_headers: bool = False):
        self.app = app
        self.allowed = frozenset(normalise_origin(o) for o in allowed_origins)
        self.hosts = frozenset(normalise_host(h) for h in allowed_hosts)
        self.proxy_headers = proxy_headers

    def host_refused(self, scope: Scope) -> str | None:
        """Why this request's ``Host`` (and, behind a proxy, ``X-Forwarded-Host``) is
        refused, or None if every name it gives is one of this server's."""
        values = _headers(scope, b"host")
        if not values:
            return "the request names no Host; this server answers only to its own names"
        if self.proxy_headers:
            values += _forwarded_hosts(scope)
        if ANY_HOST in self.hosts:
            return None
        for value in values:
            name = host_name(value)
            if name is None:
                return f"{value[:80]!r} is not a host name and a port"
            if name not in self.hosts:
                return (f"this server does not answer to the name {name[:80]!r} (if that is "
                        f"its name, start it with --allowed-host {name[:80]})")
        return None

    def origin_refused(self, scope: Scope) -> str | None:
        """Why this request's ``Origin`` is refused, or None if it may go on."""
        origin = _header(scope, b"origin")
        if origin is None:
            return None
        try:
            origin = normalise_origin(origin)
        except ValueError:
            return f"requests from origin {origin[:80]!r} are not accepted"
        if origin in self.allowed or origin == own_origin(scope, self.proxy_headers):
            return None
        return (f"requests from {origin[:80]!r} are not accepted here (start the server with "
                f"--allowed-origin {origin[:80]} to allow that site)")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            code, why = E.BAD_HOST, self.host_refused(scope)
            if why is None and scope.get("method", "GET") not in SAFE_METHODS:
                code, why = E.BAD_ORIGIN, self.origin_refused(scope)
            if why is not None:
                await self._refuse_http(send, TableError(code, why))
                return

            async def send_with_headers(message: Message) -> None:
                if message["type"] == "http.response.start":
                    present = {k.lower() for k, _ in message.get("headers", ())}
                    extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                    message["headers"] = [*message.get("headers", ()), *extra]
                await send(message)

            await self.app(scope, receive, send_with_headers)
        elif kind == "websocket":
            why = self.host_refused(scope)
            if why is not None:
                await self._refuse_websocket(receive, send, TableError(E.BAD_HOST, why),
                                             WS_CLOSE_BAD_HOST)
                return
            why = self.origin_refused(scope)
            if why is not None:
                await self._refuse_websocket(receive, send, TableError(E.BAD_ORIGIN, why),
                                             WS_CLOSE_BAD_ORIGIN)
                return
            await self.app(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    @staticmethod
    async def _refuse_http(send: Send, exc: TableError) -> None:
        body = json.dumps(E.error_body(exc), separators=(",", ":")).encode()
        await send({"type": "http.response.start", "status": E.http_status(exc),
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    async def _refuse_websocket(receive: Receive, send: Send, exc: TableError,
                                close_code: int) -> None:
        """Accept, say why, close: a browser's WebSocket API shows nothing of a refused
        handshake, so the page could not tell this refusal from a network failure."""
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        text = json.dumps(E.error_message(exc), separators=(",", ":"))
        await send({"type": "websocket.send", "text": text})
        await send({"type": "websocket.close", "code": close_code})
