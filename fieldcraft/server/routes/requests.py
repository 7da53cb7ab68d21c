"""Reading requests: bodies are read by hand (not through pydantic models) so that every bad
body gets the same error shape as the WebSocket errors, through the same bounded JSON reader
(:mod:`fieldcraft.server.jsonin`)."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from fastapi import Request, WebSocket

from fieldcraft.server import errors as E
from fieldcraft.server import jsonin
from fieldcraft.server.errors import TableError
from fieldcraft.server.hub import Hub
from fieldcraft.server.protocol import MAX_MESSAGE_BYTES, invisible_character

MAX_BODY_BYTES = MAX_MESSAGE_BYTES
NAME_MAX = 40
INT_MAX = 2**31 - 1
"""The largest count, seat, step or offset a request may give: far beyond any table, and small
enough for every engine to hold (the compiled ones use a C ``int``)."""


def hub_of(request: Request | WebSocket) -> Hub:
    return request.app.state.hub


def script_json(doc: Any) -> str:
    """JSON that is safe inside a <script> element even when it holds user-chosen names (no
    ``</script>`` can appear in it)."""
    text = json.dumps(doc, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def is_json_type(content_type: str | None) -> bool:
    """``application/json``, with at most a UTF-8 ``charset`` (JSON is UTF-8 by definition)."""
    if content_type is None:
        return False
    media, _, params = content_type.partition(";")
    if media.strip().lower() != "application/json":
        return False
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and \
                value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The body, read only up to ``limit`` bytes: a larger one is refused as soon as its
    ``Content-Length`` or its bytes say so, instead of being held in memory first."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise TableError(E.TOO_LARGE, f"request body is over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TableError(E.TOO_LARGE, f"request body is over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request) -> dict[str, Any]:
    """The JSON object a state-changing endpoint was sent. It must come as
    ``application/json``: a page of another site can post ``text/plain`` or a form without
    asking first (no CORS preflight), but not JSON, so this also closes that door. An empty
    body without a ``Content-Type`` (a bare ``POST`` from a script) reads as ``{}``."""
    content_type = request.headers.get("content-type")
    body = await read_body(request)
    if not body and content_type is None:
        return {}
    if not is_json_type(content_type):
        raise TableError(E.NOT_JSON_BODY, "send the body as JSON with the header "
                         "'Content-Type: application/json'")
    if not body:
        return {}
    doc = jsonin.load(body, "request body", MAX_BODY_BYTES)
    if not isinstance(doc, dict):
        raise TableError(E.BAD_JSON, "request body must be a JSON object")
    return doc


def only(doc: dict[str, Any], known: set[str]) -> None:
    extra = sorted(set(doc) - known)
    if extra:
        raise TableError(E.BAD_REQUEST, f"unknown field(s): {', '.join(extra)}")


def field(doc: dict[str, Any], name: str, types: tuple[type, ...], default: Any = None,
          required: bool = False) -> Any:
    if name not in doc or doc[name] is None:
        if required:
            raise TableError(E.BAD_REQUEST, f"field {name!r} is required")
        return default
    value = doc[name]
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        wanted = " or ".join(t.__name__ for t in types)
        raise TableError(E.BAD_REQUEST, f"field {name!r} must be {wanted}")
    return value


def int_field(doc: dict[str, Any], name: str, low: int, high: int, *,
              code: str = E.OUT_OF_RANGE, default: int | None = None,
              required: bool = False) -> int | None:
    """An integer field checked against its range as it is read, so nothing behind the edge
    (an engine least of all) sees a value it cannot mean; ``code`` is the field's own code
    where it has one (``request.bad_seat``), else ``request.out_of_range``."""
    value = field(doc, name, (int,), default, required)
    if value is not None and not low <= value <= high:
        raise TableError(code, f"field {name!r} must be {low}-{high}, not {value}")
    return value  # type: ignore[no-any-return]


def seat_param(raw: str, players: int, every: tuple[str, ...]) -> int | None:
    """A query's ``seat``: one of ``every`` (the spectator's view, or every seat) for None,
    else a seat number. The length is checked before ``int()``, which refuses (with an
    exception, not an answer) a string of more than 4300 digits."""
    if raw in every:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or not 0 <= int(raw) < players:
        raise TableError(E.BAD_SEAT, f"seat must be 0-{players - 1} or empty")
    return int(raw)


def person_name(doc: dict[str, Any], default: str) -> str:
    """A name shown to the other seats: at most :data:`NAME_MAX` characters, no control
    characters (a NUL cannot even be stored in PostgreSQL; a newline would break the log) and
    no invisible formatting ones (``request.bad_name``: a bidi override or a zero-width space
    lets one name pass for another; see :data:`~fieldcraft.server.protocol.INVISIBLE_CATEGORIES`).
    """
    name = field(doc, "name", (str,), default).strip() or default
    if len(name) > NAME_MAX:
        raise TableError(E.BAD_REQUEST, f"name is longer than {NAME_MAX} characters")
    if not name.isprintable() and any(unicodedata.category(c) == "Cc" for c in name):
        raise TableError(E.BAD_REQUEST, "a name cannot hold control characters")
    hidden = invisible_character(name)
    if hidden is not None:
        raise TableError(E.BAD_NAME, f"a name cannot hold invisible formatting characters "
                         f"({hidden})")
    return name
