"""How a table is found: its id (the link) and its join code, both unguessable.

Tables are private unless their host ticks "public": a private table is listed nowhere, so the
only ways in are its link (``/t/<id>``) and its join code, and each must be as hard to guess as
a password. Both are drawn from ``secrets``, independently of each other:

* the **id** is 128 random bits, URL-safe (``secrets.token_urlsafe(16)``, 22 characters), so
  table ids cannot be enumerated (they were 48 bits before, and a listed table gave them away);
* the **join code** is 80 random bits in Crockford's base32, shown as ``XXXX-XXXX-XXXX-XXXX``:
  short enough to read out over the phone or type on another device, with no letters that are
  easily confused (no I, L, O, U; typed ones are read as 1, 1, 0 and refused). It is not derived
  from the id, so knowing one code tells nothing about any other table.

Holding either is the invitation: it lets a person watch the table and take a free seat, as the
link always did. Guessing one at a billion tries a second would take ~10^7 years for a code,
far longer for an id (and the server's rate limits allow far fewer tries).
"""

from __future__ import annotations

import secrets

TABLE_ID_BYTES = 16
"""128 bits: a table's id is its link and must not be guessable."""

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base32: 32 symbols (5 bits each), none easily mistaken for another."""
CODE_LENGTH = 16
"""16 symbols = 80 bits."""
CODE_GROUP = 4
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})


def new_table_id() -> str:
    return secrets.token_urlsafe(TABLE_ID_BYTES)


def new_join_code() -> str:
    """A fresh join code in its stored form: 16 symbols of :data:`CODE_ALPHABET`, no dashes."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_join_code(text: str) -> str | None:
    """The stored form of a typed code (any case, dashes and spaces ignored, O/I/L read as
    0/1/1), or ``None`` if it cannot be a code at all (then no lookup is needed)."""
    code = text.strip().upper().translate(_READ_AS)
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def show_join_code(code: str | None) -> str | None:
    """A stored code as people read it: ``7KQ2-M9XD-4RTA-WZ3F``."""
    if code is None:
        return None
    return "-".join(code[i:i + CODE_GROUP] for i in range(0, len(code), CODE_GROUP))
