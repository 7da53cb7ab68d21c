"""The WebSocket protocol: message schemas and their checking.

Every client message is one JSON object of at most 16 KB, nested at most 16 deep, with no lone
surrogate in its strings and no number beyond +-2^53 (:mod:`fieldcraft.server.jsonin`). The
schema check is strict (unknown fields and wrong types are errors) because a message that is
only half understood must change nothing: each rejected message gets an ``error`` reply with a
stable ``code`` that the page and the tests can rely on, and the table is left exactly as it
was.

Client -> server::

    {"type": "hello", "token"?: str, "last_version"?: int}   first message; no token = spectator
    {"type": "act", "token": str, "version": int, "action"?: int, "action_text"?: str, "id"?: ...}
    {"type": "sync", "token"?: str, "last_version"?: int}    ask again for what was missed
    {"type": "back", "token": str}                           "I am here": stop the stand-in bot
    {"type": "ping", "token"?: str}

Server -> client: ``sync`` (view + log since a version), ``update`` (new events + view), ``ack``,
``presence`` (who is connected / stood in for), ``error``, ``pong``. See docs/web.md. Error codes
are in :mod:`fieldcraft.server.errors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fieldcraft.server import jsonin
from fieldcraft.server.errors import BAD_JSON, BAD_MESSAGE, UNKNOWN_TYPE, TableError

MAX_MESSAGE_BYTES = 16 * 1024


@dataclass
class Message:
    type: str
    token: str | None = None
    last_version: int | None = None
    version: int | None = None
    action: int | None = None
    action_text: str | None = None
    id: Any = None


# field name -> (accepted types, required)
_INT = (int,)
_STR = (str,)
_ID = (str, int)
_SCHEMAS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "hello": {"token": (_STR, False), "last_version": (_INT, False)},
    "act": {"token": (_STR, True), "version": (_INT, True), "action": (_INT, False),
            "action_text": (_STR, False), "id": (_ID, False)},
    "sync": {"token": (_STR, False), "last_version": (_INT, False)},
    "back": {"token": (_STR, True)},
    "ping": {"token": (_STR, False), "id": (_ID, False)},
}


def parse_message(raw: str | bytes) -> Message:
    """Check size, JSON, type and every field; raise :class:`TableError` on any problem."""
    doc = jsonin.load(raw, "message", MAX_MESSAGE_BYTES)
    if not isinstance(doc, dict):
        raise TableError(BAD_JSON, "message must be a JSON object")
    msg_id = doc.get("id") if isinstance(doc.get("id"), (str, int)) else None
    kind = doc.get("type")
    if not isinstance(kind, str):
        raise TableError(BAD_MESSAGE, "message needs a string field 'type'", msg_id)
    schema = _SCHEMAS.get(kind)
    if schema is None:
        raise TableError(UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}; known: "
                                          f"{', '.join(sorted(_SCHEMAS))}", msg_id)
    extra = sorted(k for k in doc if k != "type" and k not in schema)
    if extra:
        shown = ", ".join(repr(k[:40]) for k in extra[:5]) + (", ..." if len(extra) > 5 else "")
        raise TableError(BAD_MESSAGE, f"unknown field(s) in {kind!r}: {shown}", msg_id)
    for name, (types, required) in schema.items():
        if name not in doc or doc[name] is None:
            if required:
                raise TableError(BAD_MESSAGE, f"{kind!r} needs field {name!r}", msg_id)
            continue
        value = doc[name]
        if isinstance(value, bool) or not isinstance(value, types):
            wanted = " or ".join(t.__name__ for t in types)
            raise TableError(BAD_MESSAGE, f"field {name!r} must be {wanted}", msg_id)
        if isinstance(value, int) and value < 0 and name != "id":
            raise TableError(BAD_MESSAGE, f"field {name!r} must not be negative", msg_id)
        if isinstance(value, str) and len(value) > 512:
            raise TableError(BAD_MESSAGE, f"field {name!r} is too long", msg_id)
    if kind == "act" and (doc.get("action") is None) == (doc.get("action_text") is None):
        raise TableError(BAD_MESSAGE, "'act' needs exactly one of 'action' or 'action_text'",
                            msg_id)
    return Message(type=kind, token=doc.get("token"), last_version=doc.get("last_version"),
                   version=doc.get("version"), action=doc.get("action"),
                   action_text=doc.get("action_text"), id=msg_id)
