"""Reading JSON that a client sent: bounded in size and nesting, and only text the server can
store and send back.

``json.loads`` alone is not safe on untrusted input here: two thousand nested brackets make the C
decoder raise ``RecursionError`` (which no handler expected, so the socket closed without a word
and HTTP answered a plain-text 500); a ``"\\ud800"`` escape decodes to a lone surrogate that
UTF-8 cannot encode, so echoing it killed the socket and storing it failed as a storage error;
``NaN`` and ``1e400`` are not JSON at all once sent on. :func:`load` refuses all of these with a
:class:`TableError` whose code says which rule was broken, before anything else looks at the
document. The checks cost two ``str.count`` calls and one regular-expression search on an
ordinary message; the slower walks run only when those find something suspicious.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError

MAX_DEPTH = 16
"""Deepest nesting of arrays and objects accepted (a table's ruleset overrides need 4)."""

MAX_SAFE_INT = 2**53 - 1
"""Largest integer accepted: beyond it a browser's numbers are no longer exact."""

# A JSON string literal (the "unrolled loop" form: linear, no backtracking); strings are
# blanked out before brackets are counted.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def _openers(limit: int) -> re.Pattern[str]:
    """``limit + 1`` openers with no closer between them: nested too deep, seen in one pass."""
    return re.compile(r"[\[{](?:[^\]}\[{]*[\[{]){" + str(limit) + "}")


_OPENERS = _openers(MAX_DEPTH)
_BRACKET = re.compile(r"[\[\]{}]")
_INNERMOST = re.compile(r"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")
# An escape that may decode to a surrogate (paired ones are fine and decode to one character),
# or a surrogate itself (a str handed in by a caller): either means "walk the document".
_MAYBE_SURROGATE = re.compile("\\\\u[dD][89abcdefABCDEF]|[\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_OUT_OF_RANGE = "out of range"


def _parse_int(text: str) -> int:
    if len(text) > 17:  # a sign and 16 digits at most; refused before int() does the work
        raise ValueError(_OUT_OF_RANGE)
    value = int(text)
    if abs(value) > MAX_SAFE_INT:
        raise ValueError(_OUT_OF_RANGE)
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(_OUT_OF_RANGE)
    return value


def _parse_constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float,
                            parse_constant=_parse_constant)


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """True if arrays/objects in ``text`` nest deeper than ``limit`` (brackets inside strings
    do not count). The work is done in C: strings are blanked out, then each pass of a
    regular expression removes the innermost level of brackets; a bracket still there after
    ``limit`` passes is a level too many. (A pass that removes nothing with brackets left
    means they do not pair up: not JSON, which the decoder then says.) A run of more than
    ``limit`` openers with no closer between them is caught at once, before each pass.
    Measured on 16 KB messages: a character loop took 2.4 ms; this takes 5-15 us for
    ``[[[[...``, at most ~1 ms for the costliest shapes found (thousands of small
    containers), against 0.1-0.2 ms to decode them."""
    rest = _STRING.sub("", text)
    openers = _OPENERS if limit == MAX_DEPTH else _openers(limit)
    for _ in range(limit):
        if openers.search(rest):  # [[[[... (also what is left of [[],[[],[[],... once peeled)
            return True
        rest, removed = _INNERMOST.subn("", rest)
        if not removed:
            return False
    return _BRACKET.search(rest) is not None


def has_lone_surrogate(doc: Any) -> bool:
    """True if any string in ``doc`` (keys included) holds a surrogate code point. Iterative:
    ``doc`` may be as deep as :data:`MAX_DEPTH` allows, and this must not recurse anyway."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def load(raw: str | bytes, what: str, max_bytes: int) -> Any:
    """Decode one JSON document from a client, or raise :class:`TableError`:
    ``request.too_large`` (over ``max_bytes`` of UTF-8), ``request.bad_json`` (not UTF-8, not
    JSON, ``NaN``/``Infinity``, a number beyond +-2^53), ``request.too_deep`` (nested deeper
    than :data:`MAX_DEPTH`), ``request.bad_unicode`` (a lone surrogate such as ``\\ud800``).
    ``what`` names the thing in the message ("message", "request body")."""
    if isinstance(raw, bytes):
        size = len(raw)
        if size > max_bytes:
            raise TableError(E.TOO_LARGE, f"{what} is {size} bytes; the limit is {max_bytes}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise TableError(E.BAD_JSON, f"{what} is not UTF-8 text") from None
    else:
        text = raw
        if len(text) > max_bytes // 4:  # only long text can be over the limit: measure it
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise TableError(E.TOO_LARGE, f"{what} is {size} bytes; the limit is "
                                              f"{max_bytes}")
    if text.count("[") + text.count("{") > MAX_DEPTH and too_deep(text):
        raise TableError(E.TOO_DEEP, f"{what} is nested more than {MAX_DEPTH} levels deep")
    try:
        doc = _DECODER.decode(text)
    except RecursionError:  # deep brackets that do not pair up are left to the decoder
        raise TableError(E.TOO_DEEP, f"{what} is nested too deep") from None
    except ValueError as exc:
        if str(exc) == _OUT_OF_RANGE:
            why = f"{what} holds a number beyond +-2^53 or one that is not finite"
        elif str(exc).endswith("is not JSON"):
            why = f"{what} holds {exc}"
        else:
            why = f"{what} is not valid JSON"
        raise TableError(E.BAD_JSON, why) from None
    if _MAYBE_SURROGATE.search(text) and has_lone_surrogate(doc):
        raise TableError(E.BAD_UNICODE, f"{what} holds a lone surrogate (such as \\ud800): "
                                        "not a Unicode character")
    return doc
