"""Reading requests: bodies are read by hand (not through pydantic models) so that every bad
body gets the same error shape as the WebSocket errors."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request, WebSocket

from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError
from fieldcraft.server.hub import Hub
from fieldcraft.server.protocol import MAX_MESSAGE_BYTES

MAX_BODY_BYTES = MAX_MESSAGE_BYTES
NAME_MAX = 40


def hub_of(request: Request | WebSocket) -> Hub:
    return request.app.state.hub


def script_json(doc: Any) -> str:
    """JSON that is safe inside a <script> element even when it holds user-chosen names (no
    ``</script>`` can appear in it)."""
    text = json.dumps(doc, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


async def read_json(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise TableError(E.TOO_LARGE, f"request body is over {MAX_BODY_BYTES} bytes")
    if not body:
        return {}
    try:
        doc = json.loads(body)
    except ValueError:
        raise TableError(E.BAD_JSON, "request body is not valid JSON") from None
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


def person_name(doc: dict[str, Any], default: str) -> str:
    name = field(doc, "name", (str,), default).strip() or default
    if len(name) > NAME_MAX:
        raise TableError(E.BAD_REQUEST, f"name is longer than {NAME_MAX} characters")
    return name
