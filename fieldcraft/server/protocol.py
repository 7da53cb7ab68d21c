"""The WebSocket protocol: message schemas and their checking.

Every client message is one JSON object of at most 16 KB, nested at most 16 deep, with no lone
surrogate in its strings and no number beyond +-2^53 (:mod:`fieldcraft.server.jsonin`). Each
integer field has its own range (:data:`INT_RANGES`): an action id beyond
:data:`MAX_ACTION_ID` is ``request.out_of_range`` here, before any game sees it. The schema
check is strict (unknown fields and wrong types are errors) because a message that is only half
understood must change nothing: each rejected message gets an ``error`` reply with a
stable ``code`` that the page and the tests can rely on, and the table is left exactly as it
was.

Client -> server::

    {"type": "hello", "token"?: str, "last_version"?: int}   first message; no token = spectator
    {"type": "act", "token": str, "version": int, "action"?: int, "action_text"?: str, "id"?: ...}
    {"type": "sync", "token"?: str, "last_version"?: int}    ask again for what was missed
    {"type": "back", "token": str}                           "I am here": stop the stand-in bot
    {"type": "concede", "token": str}                        give up: a bot plays the seat
    {"type": "ping", "token"?: str}
    {"type": "chat", "token": str, "text"?: str, "phrase"?: str, "id"?: ...}   seats only

``hello`` and ``sync`` may carry ``pending_version`` and ``pending_action``: a move the page
sent at that version and never heard back about (its socket dropped). The ``sync`` answer then
says in ``pending`` whether that move is in the table's history (``landed``), so the page can
ask the person to choose again instead of silently losing the click.

Server -> client: ``sync`` (view + log since a version, the chat, any rematch), ``update`` (new
events + view), ``ack``, ``presence`` (who is connected / stood in for), ``chat`` (one new
message), ``conceded`` (a seat gave up), ``rematch`` (the finished table's follow-up),
``error``, ``pong``. See docs/web.md.
Error codes are in :mod:`fieldcraft.server.errors`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from fieldcraft.server import jsonin
from fieldcraft.server.errors import (
    BAD_JSON,
    BAD_MESSAGE,
    CHAT_BAD_TEXT,
    CHAT_EMPTY,
    CHAT_TOO_LONG,
    CHAT_UNKNOWN_PHRASE,
    OUT_OF_RANGE,
    UNKNOWN_TYPE,
    TableError,
)

MAX_MESSAGE_BYTES = 16 * 1024
MAX_ACTION_ID = 2**31 - 1
"""The largest action id a message may carry. No game has this many actions, and the compiled
engines keep an action in a C ``int``: a larger id used to end in an ``OverflowError`` inside
the legality check (``server.internal_error`` and a logged traceback per message). The room
then holds the id to its game's own ``num_distinct_actions``."""
INT_RANGES: dict[str, tuple[int, int]] = {
    "version": (0, jsonin.MAX_SAFE_INT), "last_version": (0, jsonin.MAX_SAFE_INT),
    "pending_version": (0, jsonin.MAX_SAFE_INT),
    "action": (0, MAX_ACTION_ID), "pending_action": (0, MAX_ACTION_ID),
    "id": (-jsonin.MAX_SAFE_INT, jsonin.MAX_SAFE_INT),
}
"""Each integer field's range. Versions may be any JSON-safe count (they are only compared);
an ``id`` is only echoed back."""
CHAT_MAX_CHARS = 300
"""Characters in one chat message (a table chat is for a sentence or two, not a letter)."""
CHAT_PHRASES = ("gg", "your_turn", "well_played", "thinking")
"""The quick phrases' keys: stored as the key, shown in each reader's language
(``chat.phrase.<key>`` in the page catalogues)."""


@dataclass
class Message:
    type: str
    token: str | None = None
    last_version: int | None = None
    version: int | None = None
    action: int | None = None
    action_text: str | None = None
    id: Any = None
    text: str | None = None
    phrase: str | None = None
    pending_version: int | None = None
    pending_action: int | None = None


# field name -> (accepted types, required)
_INT = (int,)
_STR = (str,)
_ID = (str, int)
_SCHEMAS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "hello": {"token": (_STR, False), "last_version": (_INT, False),
              "pending_version": (_INT, False), "pending_action": (_INT, False)},
    "act": {"token": (_STR, True), "version": (_INT, True), "action": (_INT, False),
            "action_text": (_STR, False), "id": (_ID, False)},
    "sync": {"token": (_STR, False), "last_version": (_INT, False),
             "pending_version": (_INT, False), "pending_action": (_INT, False)},
    "back": {"token": (_STR, True)},
    "concede": {"token": (_STR, True), "id": (_ID, False)},
    "ping": {"token": (_STR, False), "id": (_ID, False)},
    "chat": {"token": (_STR, False), "text": (_STR, False), "phrase": (_STR, False),
             "id": (_ID, False)},
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
        if isinstance(value, int):
            low, high = INT_RANGES[name]
            if value < 0 and low == 0:
                raise TableError(BAD_MESSAGE, f"field {name!r} must not be negative", msg_id)
            if not low <= value <= high:
                raise TableError(OUT_OF_RANGE, f"field {name!r} must be {low}-{high}, not "
                                 f"{value}", msg_id)
        if isinstance(value, str) and len(value) > 512 and name != "text":
            raise TableError(BAD_MESSAGE, f"field {name!r} is too long", msg_id)
    if kind == "act" and (doc.get("action") is None) == (doc.get("action_text") is None):
        raise TableError(BAD_MESSAGE, "'act' needs exactly one of 'action' or 'action_text'",
                            msg_id)
    if kind == "chat":
        check_chat(doc, msg_id)
    return Message(type=kind, token=doc.get("token"), last_version=doc.get("last_version"),
                   version=doc.get("version"), action=doc.get("action"),
                   action_text=doc.get("action_text"), id=msg_id, text=doc.get("text"),
                   phrase=doc.get("phrase"), pending_version=doc.get("pending_version"),
                   pending_action=doc.get("pending_action"))


INVISIBLE_CATEGORIES = frozenset({"Cf", "Zl", "Zp"})
"""Unicode format characters (bidi overrides and isolates U+202A-U+202E and U+2066-U+2069,
zero-width U+200B-U+200D, U+2060, U+FEFF, ...) and the line and paragraph separators: none
shows, but each changes how the text around it shows. In a name or a chat line a right-to-left
override turns ``Bob`` followed by ``gnp.exe`` into something else on screen, and zero-width
characters make two names that look the same, so another person can pose as a player."""


def invisible_character(text: str) -> str | None:
    """The first character of ``text`` that is in :data:`INVISIBLE_CATEGORIES`, written for
    people (``U+202E RIGHT-TO-LEFT OVERRIDE``), or None."""
    if text.isascii():
        return None
    for c in text:
        if unicodedata.category(c) in INVISIBLE_CATEGORIES:
            return f"U+{ord(c):04X} {unicodedata.name(c, '')}".strip()
    return None


def check_chat(doc: dict[str, Any], msg_id: Any) -> None:
    """A chat message is one short line of text or one known quick phrase. Control characters
    are refused (a newline or a NUL would break the log or PostgreSQL), and so are invisible
    formatting characters (:data:`INVISIBLE_CATEGORIES`) and blank text: each gets its own
    code or message, so the page can say exactly what to fix."""
    text, phrase = doc.get("text"), doc.get("phrase")
    if (text is None) == (phrase is None):
        raise TableError(BAD_MESSAGE, "'chat' needs exactly one of 'text' or 'phrase'", msg_id)
    if phrase is not None:
        if phrase not in CHAT_PHRASES:
            raise TableError(CHAT_UNKNOWN_PHRASE, f"unknown phrase {phrase[:40]!r}; known: "
                             f"{', '.join(CHAT_PHRASES)}", msg_id)
        return
    assert isinstance(text, str)
    if len(text) > CHAT_MAX_CHARS:
        raise TableError(CHAT_TOO_LONG, f"a chat message is at most {CHAT_MAX_CHARS} "
                         f"characters, this one has {len(text)}", msg_id)
    if not text.strip():
        raise TableError(CHAT_EMPTY, "the chat message is empty", msg_id)
    if any(unicodedata.category(c) == "Cc" for c in text):
        raise TableError(CHAT_BAD_TEXT, "a chat message cannot hold control characters "
                         "(newlines included)", msg_id)
    hidden = invisible_character(text)
    if hidden is not None:
        raise TableError(CHAT_BAD_TEXT, "a chat message cannot hold invisible formatting "
                         f"characters ({hidden})", msg_id)
