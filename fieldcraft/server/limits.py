"""Abuse limits of the web table: how fast one client may create tables, how many tables may
wait for players, how fast a socket may talk, how many sockets one address may hold, and when
a table nobody joined is given up.

Why: without them one client made 3,000 waiting tables in 18 s (all answered 201), the server
grew from 112 to 231 MB, nothing ever removed a waiting table, and ``GET /api/tables`` grew to
3 MB. Each limit here bounds one of those, and each refusal has its own code so that a client
(or the person reading the page) knows what happened and when to try again:

- tables created per address a minute: HTTP 429 ``limits.rate_limited``;
- waiting tables per address: HTTP 429 ``limits.too_many_waiting_tables``;
- waiting tables on the server: HTTP 429 ``limits.server_full``;
- messages per socket (a token bucket): WebSocket ``error`` ``limits.rate_limited``, the socket
  kept; well over twice the rate for a while: closed with code 4429;
- sockets per address: WebSocket ``error`` ``limits.too_many_sockets``, then closed with 4429.

HTTP refusals carry ``Retry-After``, WebSocket ones ``retry_after``: when to try again.

A waiting table (no game started) that nobody is connected to is *expired* once it is older than
``waiting_expiry``: marked ``expired`` in the database and dropped from memory. Running tables
are never expired, and finished ones stay in the database and replayable.

Everything takes its time from one injectable ``clock`` (seconds, monotonic), so the tests drive
it with a fake clock instead of sleeping. The "client address" is the socket's peer, which is
the proxy's forwarded address only when the server runs with ``--proxy-headers`` (uvicorn then
rewrites the peer from ``X-Forwarded-For``, trusting only ``--forwarded-allow-ips``). IPv6
addresses are grouped by their /64 network, because one home or one server usually holds a
whole /64 and could otherwise pick a fresh address per request.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError

if TYPE_CHECKING:  # the command line reads the options below without the web extras
    from starlette.requests import HTTPConnection

Clock = Callable[[], float]

CLOSE_RATE_LIMITED = 4429
"""WebSocket close code for a socket refused by a limit (too many sockets from its address, or
messages far over the rate); the ``error`` message before it says which."""

MAX_TRACKED_ADDRESSES = 4096
"""At this many per-address buckets, the ones that have refilled (and so mean nothing) are
dropped at once instead of at the next sweep (and the mark doubles while most are in use, so
that a flood from many addresses does not pay for a scan on every request)."""


@dataclass(frozen=True)
class LimitSettings:
    """The limits of one server; 0 switches a limit off. The defaults are generous for people
    (a browser sends a message or two a second; a household creates a table now and then) and
    tight for scripts."""

    tables_per_minute: int = 10
    """Tables one client address may create a minute (a burst of this many, then one every
    ``60 / tables_per_minute`` seconds). Every ``POST /api/tables`` counts, refused or not."""
    waiting_per_address: int = 10
    """Tables created by one address that may be waiting for players at once."""
    waiting_total: int = 500
    """Tables that may be waiting for players on the whole server."""
    messages_per_second: float = 20.0
    """Sustained messages a second one WebSocket may send (a token bucket) ..."""
    message_burst: int = 40
    """... and how many it may send at once before that rate applies."""
    sockets_per_address: int = 32
    """WebSockets one client address may hold open at once."""
    waiting_expiry: float = 1800.0
    """Seconds after which a waiting table nobody is connected to is expired."""

    @classmethod
    def unlimited(cls) -> LimitSettings:
        """Every limit off (load benchmarks, trusted networks)."""
        return cls(**{f.name: 0 for f in fields(cls)})


class LimitError(TableError):
    """A refusal by a limit: ``retry_after`` is the number of seconds after which the same
    request may succeed (the WebSocket error's ``retry_after``, to 0.01 s; the HTTP
    ``Retry-After`` header rounds it up to whole seconds)."""

    def __init__(self, code: str, message: str, retry_after: float):
        super().__init__(code, message)
        self.retry_after = math.ceil(max(0.01, retry_after) * 100) / 100


def address_key(host: str | None) -> str:
    """The key limits count by: an IPv4 address as it is, an IPv6 address by its /64 network
    (an IPv4-mapped one as the IPv4 address), anything else (a test client's name) as it is."""
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_address(conn: HTTPConnection) -> str:
    """The limit key of a request's or socket's client (see :func:`address_key`)."""
    return address_key(conn.client.host if conn.client else None)


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` a second; each allowed event takes one.

    Why a token bucket: it allows a short burst (a page connecting sends a few messages at
    once) while holding the long-run rate, and it needs two numbers of state, not a log."""

    __slots__ = ("capacity", "clock", "rate", "stamp", "tokens")

    def __init__(self, rate: float, capacity: float, clock: Clock):
        self.rate = rate
        self.capacity = capacity
        self.clock = clock
        self.tokens = float(capacity)
        self.stamp = clock()

    def _refill(self) -> None:
        now = self.clock()
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> float:
        """Take a token: 0.0 if there was one, else the seconds until there will be (nothing
        is taken then)."""
        self._refill()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate

    def full(self) -> bool:
        self._refill()
        return self.tokens >= self.capacity


Verdict = Literal["ok", "refuse", "close"]


class MessageGate:
    """The rate limit of one WebSocket's incoming messages.

    A message over the rate is refused (answered ``limits.rate_limited``, nothing else done)
    and counts as a strike; strikes drain a second bucket of the same size and rate. A client
    that overshoots briefly (a burst, or up to twice the rate for ever) keeps its socket; one
    that keeps sending well over twice the rate empties the strike bucket and is closed."""

    __slots__ = ("messages", "strikes")

    def __init__(self, rate: float, burst: int, clock: Clock):
        capacity = max(1, burst)
        self.messages = TokenBucket(rate, capacity, clock) if rate > 0 else None
        self.strikes = TokenBucket(rate, capacity, clock) if rate > 0 else None

    def check(self) -> tuple[Verdict, float]:
        """``("ok", 0)``, ``("refuse", seconds until a message will be taken)`` or
        ``("close", ...)`` for sustained abuse."""
        if self.messages is None or self.strikes is None:
            return "ok", 0.0
        wait = self.messages.take()
        if wait == 0.0:
            return "ok", 0.0
        if self.strikes.take() > 0.0:
            return "close", wait
        return "refuse", wait


@dataclass
class Waiting:
    """A table waiting for players: who created it and since when (on :class:`Limits`'s
    clock)."""

    address: str | None
    since: float


class Limits:
    """The limits of one server and the counts they are checked against."""

    def __init__(self, settings: LimitSettings | None = None, clock: Clock | None = None):
        self.settings = settings or LimitSettings()
        self.clock: Clock = clock or time.monotonic
        self._created: dict[str, TokenBucket] = {}
        self._prune_at = MAX_TRACKED_ADDRESSES
        self._sockets: dict[str, int] = {}
        self.waiting: dict[str, Waiting] = {}
        """Table id -> :class:`Waiting`, for every table that may still be waiting (entries of
        tables that started are dropped by :meth:`prune`)."""
        self._by_address: dict[str, set[str]] = {}

    # -- creating tables -------------------------------------------------------------------------
    def check_create_rate(self, address: str) -> None:
        """Count one table-creation attempt of ``address``; raise ``limits.rate_limited`` if it
        is over ``tables_per_minute``."""
        per_minute = self.settings.tables_per_minute
        if per_minute <= 0:
            return
        bucket = self._created.get(address)
        if bucket is None:
            if len(self._created) >= self._prune_at:
                self.forget_idle()
                self._prune_at = max(MAX_TRACKED_ADDRESSES, 2 * len(self._created))
            bucket = self._created[address] = TokenBucket(per_minute / 60.0, per_minute,
                                                          self.clock)
        wait = bucket.take()
        if wait > 0.0:
            raise LimitError(E.RATE_LIMITED, f"too many tables created from your address "
                             f"(at most {per_minute} a minute); try again in "
                             f"{math.ceil(wait)} s", wait)

    def check_waiting(self, address: str | None, still_waiting: Callable[[str], bool]) -> None:
        """Raise if one more waiting table from ``address`` would be over a cap
        (``limits.too_many_waiting_tables`` for the address, ``limits.server_full`` for the
        server; ``address`` ``None``: the server's own, no per-address cap).
        ``still_waiting(table_id)`` says whether a noted table is still waiting."""
        s = self.settings
        at_total = s.waiting_total > 0 and len(self.waiting) >= s.waiting_total
        at_mine = s.waiting_per_address > 0 and address is not None and \
            len(self._by_address.get(address, ())) >= s.waiting_per_address
        if not (at_total or at_mine):  # the common case: no need to look for started tables
            return
        self.prune(still_waiting)
        if s.waiting_total > 0 and len(self.waiting) >= s.waiting_total:
            raise LimitError(E.SERVER_FULL, f"the server has {len(self.waiting)} tables waiting "
                             "for players, as many as it takes; try again later",
                             self._next_expiry(None))
        held = len(self._by_address.get(address, ())) if address is not None else 0
        if s.waiting_per_address > 0 and held >= s.waiting_per_address:
            raise LimitError(E.TOO_MANY_WAITING, f"you already have {held} tables waiting "
                             "for players; start one or wait until one expires",
                             self._next_expiry(address))

    def _next_expiry(self, address: str | None) -> float:
        """Seconds until the first (of ``address``'s, or of all) waiting tables is due to
        expire: when the refused request may succeed. A minute when nothing expires."""
        ttl = self.settings.waiting_expiry
        if ttl <= 0:
            return 60.0
        now = self.clock()
        ids = self.waiting if address is None else self._by_address.get(address, ())
        dues = [self.waiting[t].since + ttl - now for t in ids]
        return max(1.0, min(dues, default=60.0))

    # -- waiting tables --------------------------------------------------------------------------
    def note_waiting(self, table_id: str, address: str | None, age: float = 0.0) -> None:
        """A table is waiting for players; ``age`` is how long it has been (for tables resumed
        after a restart, whose creator's address is not kept)."""
        self.forget(table_id)
        self.waiting[table_id] = Waiting(address, self.clock() - max(0.0, age))
        if address is not None:
            self._by_address.setdefault(address, set()).add(table_id)

    def forget(self, table_id: str) -> None:
        entry = self.waiting.pop(table_id, None)
        if entry is not None and entry.address is not None:
            mine = self._by_address.get(entry.address)
            if mine is not None:
                mine.discard(table_id)
                if not mine:
                    del self._by_address[entry.address]

    def prune(self, still_waiting: Callable[[str], bool]) -> None:
        """Drop the tables that are no longer waiting (started, or gone)."""
        for table_id in [t for t in self.waiting if not still_waiting(t)]:
            self.forget(table_id)

    def any_due(self) -> bool:
        ttl = self.settings.waiting_expiry
        if ttl <= 0 or not self.waiting:
            return False
        return self.clock() - min(w.since for w in self.waiting.values()) >= ttl

    def due(self) -> list[str]:
        """Tables that have waited ``waiting_expiry`` seconds or more, oldest first."""
        ttl = self.settings.waiting_expiry
        if ttl <= 0:
            return []
        now = self.clock()
        return [t for t, w in sorted(self.waiting.items(), key=lambda kv: kv[1].since)
                if now - w.since >= ttl]

    # -- sockets ---------------------------------------------------------------------------------
    def open_socket(self, address: str) -> LimitError | None:
        """Count a new WebSocket of ``address``; the refusal if it is one too many (then it is
        not counted). Every socket counted must be given back with :meth:`close_socket`."""
        cap = self.settings.sockets_per_address
        held = self._sockets.get(address, 0)
        if cap > 0 and held >= cap:
            return LimitError(E.TOO_MANY_SOCKETS, f"your address already has {held} "
                              f"connections open (at most {cap}); close some", 5.0)
        self._sockets[address] = held + 1
        return None

    def close_socket(self, address: str) -> None:
        held = self._sockets.get(address, 0) - 1
        if held > 0:
            self._sockets[address] = held
        else:
            self._sockets.pop(address, None)

    def sockets(self, address: str) -> int:
        return self._sockets.get(address, 0)

    def message_gate(self) -> MessageGate:
        return MessageGate(self.settings.messages_per_second, self.settings.message_burst,
                           self.clock)

    # -- housekeeping ----------------------------------------------------------------------------
    def forget_idle(self) -> None:
        """Drop per-address creation buckets that have refilled: they are the same as none, so
        the memory they take stays proportional to the addresses active in the last minute."""
        for address in [a for a, b in self._created.items() if b.full()]:
            del self._created[address]

    def tracked_addresses(self) -> int:
        return len(self._created)


# -- command-line options ------------------------------------------------------------------------
def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (no limit) or more")
    return value


def _amount(text: str) -> float:
    value = float(text)
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError("must be 0 (no limit) or more")
    return value


def add_proxy_arguments(parser: argparse.ArgumentParser) -> None:
    """``--proxy-headers`` and ``--forwarded-allow-ips``, passed through to uvicorn."""
    parser.add_argument("--proxy-headers", action="store_true",
                        help="take the client's address from X-Forwarded-For (for the limits) "
                        "and the scheme from X-Forwarded-Proto: ONLY behind a trusted reverse "
                        "proxy (default: off, the address is the socket's peer)")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="with --proxy-headers, the proxy addresses whose headers are "
                        "believed (uvicorn's option; default 127.0.0.1,::1)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The limit options of ``fieldcraft serve`` and ``python -m fieldcraft.server``, with their
    defaults in ``--help``."""
    d = LimitSettings()
    g = parser.add_argument_group("abuse limits (0 switches a limit off; see docs/web.md)")
    g.add_argument("--max-tables-per-minute", type=_count, default=d.tables_per_minute,
                   metavar="N", help="tables one client address may create a minute "
                   "(default %(default)s)")
    g.add_argument("--max-waiting-per-address", type=_count, default=d.waiting_per_address,
                   metavar="N", help="tables of one address waiting for players at once "
                   "(default %(default)s)")
    g.add_argument("--max-waiting-tables", type=_count, default=d.waiting_total, metavar="N",
                   help="tables waiting for players on the whole server (default %(default)s)")
    g.add_argument("--max-messages-per-second", type=_amount, default=d.messages_per_second,
                   metavar="R", help="messages a second one WebSocket may send "
                   "(default %(default)s) ...")
    g.add_argument("--message-burst", type=_count, default=d.message_burst, metavar="N",
                   help="... after a burst of this many (default %(default)s)")
    g.add_argument("--max-sockets-per-address", type=_count, default=d.sockets_per_address,
                   metavar="N", help="WebSockets one client address may hold open "
                   "(default %(default)s)")
    g.add_argument("--waiting-expiry-minutes", type=_amount, default=d.waiting_expiry / 60,
                   metavar="M", help="a table nobody joined or watches is expired after this "
                   "many minutes waiting for players (default %(default)s)")
    g.add_argument("--no-limits", action="store_true",
                   help="switch every limit above off (load tests on a trusted network)")


def from_arguments(args: Any) -> LimitSettings:
    """The :class:`LimitSettings` of parsed :func:`add_arguments` options."""
    if args.no_limits:
        return LimitSettings.unlimited()
    return LimitSettings(
        tables_per_minute=args.max_tables_per_minute,
        waiting_per_address=args.max_waiting_per_address,
        waiting_total=args.max_waiting_tables,
        messages_per_second=args.max_messages_per_second,
        message_burst=args.message_burst,
        sockets_per_address=args.max_sockets_per_address,
        waiting_expiry=args.waiting_expiry_minutes * 60)
