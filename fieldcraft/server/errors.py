"""The web table's one error type and its namespaced codes.

Everything the table refuses raises :class:`TableError` (or one of the engine's
:class:`~fieldcraft.core.errors.FieldcraftError` subclasses, whose codes live in the ``rules``
namespace). Nothing below the edge knows about transports: the HTTP routes turn an error into a
status from :data:`STATUS` and a ``{"error": {code, message}}`` body, the WebSocket into an
``error`` message, each in one place. A code names what went wrong as ``namespace.name``
(``move.stale_version``); pages and tests match on codes, people read the message.
"""

from __future__ import annotations

import math
from typing import Any

from fieldcraft.core.errors import (
    FieldcraftError,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
    UnknownGameError,
)

# request.*: the message or body itself is wrong
TOO_LARGE = "request.too_large"
BAD_JSON = "request.bad_json"
TOO_DEEP = "request.too_deep"  # arrays/objects nested deeper than jsonin.MAX_DEPTH
BAD_UNICODE = "request.bad_unicode"  # a lone surrogate (\ud800): no character, cannot be sent
NOT_JSON_BODY = "request.unsupported_media_type"  # a JSON endpoint sent anything else
BAD_MESSAGE = "request.bad_message"
UNKNOWN_TYPE = "request.unknown_type"
BAD_REQUEST = "request.bad_request"
OUT_OF_RANGE = "request.out_of_range"  # an integer field outside what it can mean
BAD_NAME = "request.bad_name"  # a name with invisible formatting characters (bidi, zero-width)
BAD_PLAYERS = "request.bad_players"
BAD_SEATS = "request.bad_seats"
BAD_SEAT = "request.bad_seat"
BAD_TIMER = "request.bad_timer"
BAD_STEP = "request.bad_step"  # a replay step out of range, or one nothing can follow
UNKNOWN_BOT = "request.unknown_bot"
NOT_FOUND = "request.not_found"  # no such path (or a game's file, rules page)
METHOD_NOT_ALLOWED = "request.method_not_allowed"  # a path that exists, another method
SEED_NOT_ALLOWED = "request.seed_not_allowed"  # seeded deals need --allow-seeded-tables
# auth.*: who is asking
HELLO_REQUIRED = "auth.hello_required"
BAD_TOKEN = "auth.bad_token"
SPECTATOR = "auth.spectator"
BAD_ORIGIN = "auth.bad_origin"  # a browser page of another site (see guard.py)
BAD_HOST = "auth.bad_host"  # a Host that is none of this server's names (DNS rebinding)
NOT_SEATED = "auth.not_seated"  # a rematch is asked for by a seat of the finished table
SEAT_RESERVED = "auth.seat_reserved"  # a rematch's seats are its last game's players' only
# table.*: the table is not in a state that allows it
NO_SUCH_TABLE = "table.no_such_table"
NOT_WAITING = "table.not_waiting"
TABLE_FULL = "table.table_full"
SEAT_TAKEN = "table.seat_taken"
NOT_STARTED = "table.not_started"
GAME_OVER = "table.game_over"
NOT_FINISHED = "table.not_finished"
TABLE_EXPIRED = "table.expired"  # nobody joined it in time (limits.py)
# move.*: a move that came at the wrong moment
STALE_VERSION = "move.stale_version"
NOT_YOUR_TURN = "move.not_your_turn"
CONCEDED = "move.conceded"  # this seat conceded: a bot plays it for the rest of the game
# rules.*: the engine's own codes (fieldcraft.core.errors)
ILLEGAL_ACTION = IllegalActionError.code
MALFORMED_ACTION = MalformedActionError.code
BAD_RULESET = RulesetError.code
UNKNOWN_GAME = UnknownGameError.code
# chat.*: a table chat message that cannot be sent (protocol.check_chat, Room._chat)
CHAT_TOO_LONG = "chat.too_long"
CHAT_EMPTY = "chat.empty"
CHAT_BAD_TEXT = "chat.bad_text"
CHAT_UNKNOWN_PHRASE = "chat.unknown_phrase"
CHAT_TOO_FAST = "chat.too_fast"  # over the per-seat chat rate; retry_after says when
# feedback.*: a post-game questionnaire answer that cannot be taken (fieldcraft/server/feedback.py)
FEEDBACK_OFF = "feedback.off"  # this table does not ask (not a playtest's, not turned on)
FEEDBACK_ANSWERED = "feedback.already_answered"  # one answer per seat, never replaced
FEEDBACK_BAD_ANSWER = "feedback.bad_answer"  # a missing, unknown or out-of-range answer
# playtest.*: a designer's public playtest (fieldcraft/server/playtest.py)
NO_SUCH_PLAYTEST = "playtest.no_such_playtest"
PLAYTEST_CLOSED = "playtest.closed"  # its designer closed it: no new tables
PLAYTEST_EXISTS = "playtest.exists"  # the name is taken
BAD_PLAYTEST = "playtest.bad_playtest"  # a bad name, player range or bot
# server.*: not the client's fault
STORAGE_ERROR = "server.storage_error"
SERVER_CLOSING = "server.closing"  # not a refusal: the server is shutting down; reconnect
# limits.*: over one of the abuse limits (fieldcraft/server/limits.py); retry later
RATE_LIMITED = "limits.rate_limited"
TOO_MANY_WAITING = "limits.too_many_waiting_tables"
SERVER_FULL = "limits.server_full"
TOO_MANY_SOCKETS = "limits.too_many_sockets"
ANALYSIS_BUSY = "limits.analysis_busy"  # the analysis worker has enough waiting; retry later
ANALYSIS_FAILED = "server.analysis_failed"  # the analysis worker died; the next try restarts it
INTERNAL = "server.internal_error"  # a bug: the request changed nothing, the server lives on

STATUS: dict[str, int] = {
    TOO_LARGE: 413, BAD_JSON: 400, BAD_MESSAGE: 400, UNKNOWN_TYPE: 400, BAD_REQUEST: 400,
    BAD_PLAYERS: 400, BAD_SEATS: 400, BAD_SEAT: 400, BAD_TIMER: 400, UNKNOWN_BOT: 400,
    BAD_STEP: 400,
    HELLO_REQUIRED: 400, BAD_TOKEN: 403, SPECTATOR: 403, SEED_NOT_ALLOWED: 403,
    NO_SUCH_TABLE: 404, NOT_WAITING: 409, TABLE_FULL: 409, SEAT_TAKEN: 409, NOT_STARTED: 409,
    GAME_OVER: 409, NOT_FINISHED: 409, NOT_FOUND: 404, STALE_VERSION: 409, NOT_YOUR_TURN: 409,
    CONCEDED: 409,
    ILLEGAL_ACTION: 400, MALFORMED_ACTION: 400, BAD_RULESET: 400, UNKNOWN_GAME: 400,
    STORAGE_ERROR: 503, SERVER_CLOSING: 503,
    TABLE_EXPIRED: 410, RATE_LIMITED: 429, TOO_MANY_WAITING: 429, SERVER_FULL: 429,
    TOO_MANY_SOCKETS: 429,
    CHAT_TOO_LONG: 400, CHAT_EMPTY: 400, CHAT_BAD_TEXT: 400, CHAT_UNKNOWN_PHRASE: 400,
    CHAT_TOO_FAST: 429, NOT_SEATED: 403, SEAT_RESERVED: 403,
    TOO_DEEP: 400, BAD_UNICODE: 400, NOT_JSON_BODY: 415, BAD_ORIGIN: 403, INTERNAL: 500,
    BAD_HOST: 400, OUT_OF_RANGE: 400, BAD_NAME: 400, METHOD_NOT_ALLOWED: 405,
    ANALYSIS_BUSY: 429, ANALYSIS_FAILED: 503,
    FEEDBACK_OFF: 409, FEEDBACK_ANSWERED: 409, FEEDBACK_BAD_ANSWER: 400,
    NO_SUCH_PLAYTEST: 404, PLAYTEST_CLOSED: 409, PLAYTEST_EXISTS: 409, BAD_PLAYTEST: 400,
}
"""HTTP status of each code; any other engine error is a 400."""

ERROR_CODES = tuple(STATUS)


class TableError(FieldcraftError):
    """A refusal with a namespaced ``code`` and a message for people; ``msg_id`` is the id of
    the WebSocket message it answers, if any."""

    def __init__(self, code: str, message: str, msg_id: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id


def http_status(exc: FieldcraftError) -> int:
    return STATUS.get(exc.code, 400)


def sendable(text: str) -> str:
    """``text`` with any lone surrogate written as ``\\udXXX``, so that an error that quotes a
    client's input can always be encoded as UTF-8 and sent (an exception while sending the
    reply would drop the connection without one)."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_body(exc: FieldcraftError) -> dict[str, Any]:
    """The JSON body of an HTTP refusal."""
    return {"error": {"code": exc.code, "message": sendable(str(exc))}}


def http_headers(exc: FieldcraftError) -> dict[str, str] | None:
    """Extra headers of an HTTP refusal: ``Retry-After`` (whole seconds) for a limit's."""
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is None:
        return None
    return {"Retry-After": str(max(1, math.ceil(retry_after)))}


def error_message(exc: FieldcraftError, msg_id: Any = None) -> dict[str, Any]:
    """The WebSocket ``error`` message of a refusal (with ``retry_after`` seconds for a
    limit's, and the id of the message it answers unless that id itself could not be sent
    back)."""
    out: dict[str, Any] = {"type": "error", "code": exc.code, "message": sendable(str(exc))}
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        out["retry_after"] = retry_after
    if msg_id is None:
        msg_id = getattr(exc, "msg_id", None)
    if isinstance(msg_id, str) and sendable(msg_id) != msg_id:
        msg_id = None
    if msg_id is not None:
        out["id"] = msg_id
    return out
