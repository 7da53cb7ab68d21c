"""Answer audit: what a seat or a spectator is *answered* when it asks must not depend on what
it cannot see.

``test_leak_audit.py`` checks every payload the server *sends* during play against the same
payload built from a re-dealt twin. That missed an oracle: a seat that asked the resync
protocol "did my move at version v land?" for every version and every action there was told
the truth about other seats' moves and the deal, and rebuilt the whole game. Every answer a
client can get is a channel, so this audit *asks*: at quiet moments of games of all four games
played through the server, for each seat that holds a token and for a spectator, a generator
sends every kind of request the protocol and the HTTP API take, with every past version and
every action id there (chance outcomes included), every seat number and every step:

* **WebSocket**: ``hello`` (with and without a token, ``last_version`` variants, pending moves),
  ``sync`` (every past version x every action legal there, in the real game or the twin, as a
  pending move), ``act`` (every action id of the game's action space at the current version,
  stale and future versions, action texts), ``back``, ``ping``, ``chat``, wrong tokens;
* **HTTP**: every route of the app (the test fails on a route it has no generator for), each
  with every seat number and step it takes, and the POSTs a seat can make with its token.

Each WebSocket request goes to two probe rooms: the real table and a twin table in which
everything the asking viewer cannot see was re-dealt by ``state.resample`` (its past moves are
the twin worlds' moves of ``SeatTwins``: another seat's hidden pass, another card dealt), both
behind the server's own :class:`Room` code with identical stand-ins for the parts that do not
belong to the game (a writer that refuses to commit, no clock, no connections of real people):
nothing asked changes the real table. HTTP requests go through the real app, once with the
real room in the hub and once with its twin. Replies must be byte-identical once times are
removed (a turn clock's ``deadline_in``, a limit's ``retry_after``).

After the end of a game everything is public by design (``GET /api/tables/<id>/export``
hands out every action), so the HTTP sweep runs during play; the resync sweep runs at the end
too. Planted oracles show the audit catches what it is for: today's old ``pending_answer``,
and an endpoint that echoes another seat's hand.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi import Request
from fastapi.testclient import TestClient

from fieldcraft.core.api import CHANCE
from fieldcraft.server.chat import Chat
from fieldcraft.server.room import Room
from fieldcraft.server.routes.requests import hub_of
from fieldcraft.server.seats import Seats, SeatState
from tests.server.helpers import SeatSocket
from tests.server.test_leak_audit import (
    LeakAuditor,
    Viewer,
    first_difference,
    make_twin_room,
    redact,
    who,
)
from tests.server.test_secrecy import play_through_server

pytestmark = [pytest.mark.seeded_tables, pytest.mark.no_limits]

TIMES = ("deadline_in", "retry_after", "created_at")
"""Keys whose values are clock readings, removed before two answers are compared."""

ACTION_SPACE_SAMPLE = 160
"""Action ids sent as ``act`` at one moment: all of a small action space, else this many."""


def normalised(text: str) -> str:
    """An answer with its clock readings removed (the two probes are asked a moment apart)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return text

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: (None if k in TIMES else strip(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return json.dumps(strip(doc), ensure_ascii=False)


def app_routes(routes: list[Any]) -> Iterator[tuple[str, str]]:
    """(method, path) of every route of the app, included routers flattened."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from app_routes(inner.routes)
        elif type(route).__name__ == "Mount":
            yield "MOUNT", route.path
        elif type(route).__name__ in ("APIWebSocketRoute", "WebSocketRoute"):
            yield "WS", route.path
        else:
            for method in sorted(getattr(route, "methods", None) or ()):
                if method != "HEAD":
                    yield method, route.path


# Routes that take no table and name nothing of one (their answers cannot differ between two
# tables); every other route needs a generator below, so a new endpoint cannot go unaudited.
TABLE_FREE = {
    ("GET", "/"), ("GET", "/games/{game}/rules"), ("GET", "/api/games"),
    ("POST", "/api/tables"), ("POST", "/api/rulesets/check"), ("GET", "/games/{game}/{name}"),
    ("MOUNT", "/static"), ("GET", "/healthz"), ("WS", "/{path:path}"),
    ("GET", "/p/{name}"), ("GET", "/api/playtests/{name}"),
    ("POST", "/api/playtests/{name}/tables"), ("POST", "/api/playtests/{name}/report"),
    ("POST", "/api/playtests/{name}/close"),
}


class Capture:
    """A client connection of the probe rooms: it keeps what it is sent."""

    def __init__(self, seat: int | None, token_hash: str | None, ready: bool):
        self.seat, self.token_hash, self.ready = seat, token_hash, ready
        self.closed = False
        self.texts: list[str] = []

    def send(self, text: str) -> None:
        self.texts.append(text)

    def send_doc(self, doc: dict[str, Any]) -> None:
        self.texts.append(json.dumps(doc, separators=(",", ":"), ensure_ascii=False))


def make_probe(room: Room, table: Any) -> Room:
    """``room`` around ``table`` with stand-ins for everything that is not the game: its own
    seats (same kinds, names and tokens, no connections), no spectators, a copy of the chat,
    a writer that refuses every commit, no clock, no driver. Built the same way for the real
    table and its twin, so the two can differ only through the game."""
    probe = make_twin_room(room, table)
    probe.seats = Seats([SeatState(seat=s.seat, kind=s.kind, bot=s.bot, name=s.name,
                                   token_hash=s.token_hash, away=s.away)
                         for s in room.seats])
    probe.spectators = set()
    probe.chat = Chat(list(room.chat), clock=lambda: 0.0)  # its own chat limits
    probe.clock = SimpleNamespace(left=lambda: None, arm=lambda *a: None, stop=lambda: None)
    return probe


@dataclass
class Tally:
    ws: int = 0
    http: int = 0
    pending: int = 0
    failures: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"{self.ws} WebSocket requests ({self.pending} pending-move questions) and "
                f"{self.http} HTTP requests asked of the real table and its twin")


class Asker:
    """Sends every request a viewer can make to the real table and its re-dealt twin."""

    def __init__(self, client: TestClient, auditor: LeakAuditor, seed: int):
        self.client = client
        self.auditor = auditor
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.routes: set[tuple[str, str]] = set()

    def fail(self, text: str) -> None:
        self.tally.failures.append(text)

    def assert_clean(self) -> None:
        if self.tally.failures:
            shown = "\n".join(self.tally.failures[:6])
            raise AssertionError(f"{len(self.tally.failures)} answer(s) depend on what the "
                                 f"asker cannot see:\n{shown}")

    # -- WebSocket ---------------------------------------------------------------------------
    def actions_there(self, room: Room, viewer: Viewer, version: int) -> list[int]:
        """Every action id that could have made ``version + 1``: legal in the real game there
        (chance outcomes too), the real one, and the twin world's."""
        twins = self.auditor.seat_twins(room, viewer)
        state = twins.world.at(version)
        found = set(state.legal_actions())
        if state.current_player() == CHANCE:
            found.update(a for a, _ in state.chance_outcomes())
        found.add(room.table.history()[version])
        twins.lines_upto(version + 1)
        found.add(twins.moves[version])
        return sorted(found)

    def ws_requests(self, room: Room, viewer: Viewer, token: str | None, sweep: bool
                    ) -> Iterator[tuple[bool, dict[str, Any]]]:
        """(is a hello, message) for ``viewer``: a full sweep of the pending-move questions
        when ``sweep``, else a sample of them."""
        now = room.version
        tok = {} if token is None else {"token": token}
        versions = range(now) if sweep else sorted(self.rng.sample(range(now), min(now, 12)))
        for v in versions:
            actions = self.actions_there(room, viewer, v)
            for a in actions:
                self.tally.pending += 1
                yield False, {"type": "sync", **tok, "last_version": now,
                              "pending_version": v, "pending_action": a}
            yield False, {"type": "sync", **tok, "last_version": now, "pending_version": v}
            if v % 5 == 0:  # hello takes the same question on a reconnect
                yield True, {"type": "hello", **tok, "last_version": v,
                             "pending_version": v, "pending_action": actions[0]}
        for last in (None, 0, now // 2, now, now + 1):
            yield True, {"type": "hello", **tok, "last_version": last}
            yield False, {"type": "sync", **tok, "last_version": last}
        yield True, {"type": "hello", "token": "not-a-seat-token"}
        yield True, {"type": "hello", **tok, "pending_version": now + 5, "pending_action": 0}
        size = room.table.game.num_distinct_actions()
        ids = list(range(size)) if size <= ACTION_SPACE_SAMPLE else sorted(
            {0, size - 1, *self.rng.sample(range(size), ACTION_SPACE_SAMPLE)})
        for a in ids:
            yield False, {"type": "act", **tok, "version": now, "action": a, "id": "m"}
        for v in (0, max(0, now - 1), now + 1):
            yield False, {"type": "act", **tok, "version": v, "action": ids[0]}
        state = room.table.state
        texts = ["pass the salt to seat 9", "use"]
        texts += [state.action_to_string(a) for a in state.legal_actions()[:8]]
        for text in texts:
            yield False, {"type": "act", **tok, "version": now, "action_text": text}
        for doc in ({"type": "back"}, {"type": "ping", "id": 7}, {"type": "chat", "phrase": "gg"},
                    {"type": "chat", "text": "hello"}, {"type": "chat", "text": " "},
                    {"type": "concede"}, {"type": "concede", "id": "c"}):
            yield False, {**doc, **tok}
        yield False, {"type": "sync", "token": "not-a-seat-token", "last_version": now}

    def ask_ws(self, room: Room, viewer: Viewer, token: str | None, sweep: bool) -> None:
        twins = self.auditor.seat_twins(room, viewer)
        twin_table = twins.twin_table(room.version)
        digest = None if viewer is None else room.seats[viewer].token_hash
        for hello, doc in self.ws_requests(room, viewer, token, sweep):
            raw = json.dumps(doc)
            answers = []
            for table in (room.table, twin_table):
                probe = make_probe(room, table)
                conn = Capture(None if hello else viewer, None if hello else digest, not hello)
                self.client.portal.call(probe.handle, conn, raw)
                answers.append([normalised(t) for t in conn.texts])
            self.tally.ws += 1
            if answers[0] != answers[1]:
                real, twin = answers
                where = next((f"answer {i}: {first_difference(a, b)}" for i, (a, b)
                              in enumerate(zip(real, twin, strict=False)) if a != b),
                             f"{len(real)} answers / twin {len(twin)}")
                self.fail(f"{who(viewer)} asked {redact(raw)} at version {room.version}: "
                          f"{where}")

    # -- HTTP ---------------------------------------------------------------------------------
    def http_requests(self, room: Room, tokens: dict[int, str]
                      ) -> Iterator[tuple[tuple[str, str], str, str, dict[str, Any] | None]]:
        """(route, method, url, JSON body) for every table route of the app."""
        tid, n, now = room.id, room.players, room.version
        seats = ["", "spectator", "all", "x", "-1", str(n), *map(str, range(n))]
        steps = sorted({-1, 0, 1, now // 2, now, now + 1, 2**31})
        for route in (("GET", "/t/{table_id}"), ("GET", "/t/{table_id}/replay")):
            yield route, "GET", route[1].replace("{table_id}", tid), None
        yield ("GET", "/api/tables/{table_id}"), "GET", f"/api/tables/{tid}", None
        for q in ("", "?limit=1", "?offset=1", "?limit=100&offset=0"):
            yield ("GET", "/api/tables"), "GET", f"/api/tables{q}", None
        yield ("GET", "/api/codes/{code}"), "GET", f"/api/codes/{room.join_code}", None
        for seat in seats:
            for step in steps:
                yield (("GET", "/api/tables/{table_id}/replay"), "GET",
                       f"/api/tables/{tid}/replay?seat={seat}&step={step}", None)
            yield (("GET", "/api/tables/{table_id}/deduction"), "GET",
                   f"/api/tables/{tid}/deduction?seat={seat}", None)
        for step in steps:
            yield (("GET", "/api/tables/{table_id}/analysis"), "GET",
                   f"/api/tables/{tid}/analysis?step={step}", None)
        yield ("GET", "/api/tables/{table_id}/export"), "GET", f"/api/tables/{tid}/export", None
        for s in [None, -1, n, *range(n)]:
            yield (("POST", "/api/tables/{table_id}/join"), "POST", f"/api/tables/{tid}/join",
                   {} if s is None else {"seat": s})
        yield (("GET", "/api/tables/{table_id}/branch"), "GET",
               f"/api/tables/{tid}/branch", None)
        for step in steps:
            for s in range(n):
                yield (("POST", "/api/tables/{table_id}/branch"), "POST",
                       f"/api/tables/{tid}/branch", {"step": step, "seat": s})
        for token in [*tokens.values(), "not-a-token"]:
            for path in ("start", "rematch"):
                yield (("POST", f"/api/tables/{{table_id}}/{path}"), "POST",
                       f"/api/tables/{tid}/{path}", {"token": token})
        for q in ("", "?lang=ja"):
            yield (("GET", "/api/tables/{table_id}/feedback"), "GET",
                   f"/api/tables/{tid}/feedback{q}", None)
        answers = {"fun": 3, "clarity": 3, "close": 3, "length": "right"}
        for token in [*tokens.values(), "not-a-token", None]:
            yield (("POST", "/api/tables/{table_id}/feedback"), "POST",
                   f"/api/tables/{tid}/feedback", {"token": token, "answers": answers})
        yield ("WS", "/ws/{table_id}"), "WS", "", None  # asked by ask_ws

    def ask_http(self, room: Room, viewer: Viewer, tokens: dict[int, str]) -> None:
        """Every table route, real and twin (for the table must be quiet and still playing:
        after the end everything is public, see the module text)."""
        assert room.status == "playing"
        hub = self.client.app.state.hub
        twin = self.auditor.twin(room, viewer)
        for route, method, url, body in self.http_requests(room, tokens):
            self.routes.add(route)
            if method == "WS":
                continue
            answers = []
            for holder in (room, twin):
                hub.rooms[room.id] = holder
                try:
                    res = self.client.request(method, url, json=body)
                finally:
                    hub.rooms[room.id] = room
                answers.append((res.status_code, normalised(res.text)))
            self.tally.http += 1
            if answers[0] != answers[1]:
                (sa, a), (sb, b) = answers
                self.fail(f"{method} {url} {body or ''} at version {room.version} "
                          f"(twin of {who(viewer)}): {sa} / twin {sb}, "
                          f"{first_difference(a, b)}")
        assert room.version == hub.rooms[room.id].version and room.status == "playing"

    def uncovered_routes(self) -> set[tuple[str, str]]:
        every = set(app_routes(self.client.app.routes))
        return every - self.routes - TABLE_FREE


@pytest.fixture
def asker(client: TestClient) -> Asker:
    return Asker(client, LeakAuditor(client.app.state.hub), seed=5)


def asked_game(client: TestClient, asker: Asker, game: str, players: int,
               humans: tuple[int, ...], seed: int, **options: Any) -> Room:
    """Play one game through the server; ask at a few quiet moments (a full sweep of the
    pending-move questions once per viewer, in the middle of the game), and at the end."""
    rng = random.Random(seed)
    turns = {"n": 0}
    swept: set[Viewer] = set()
    seen: dict[int, str] = {}

    def on_turn(tid: str, sockets: dict[Viewer, SeatSocket], tokens: dict[int, str]) -> None:
        turns["n"] += 1
        seen.update(tokens)
        room = client.app.state.hub.rooms[tid]
        if turns["n"] % 4 != 3:
            return
        viewers: list[Viewer] = [*tokens, None]
        viewer = viewers[(turns["n"] // 4) % len(viewers)]
        sweep = viewer not in swept and room.version >= 12
        if sweep:
            swept.add(viewer)
        asker.ask_ws(room, viewer, tokens.get(viewer) if viewer is not None else None, sweep)
        if turns["n"] % 8 == 3:
            asker.ask_http(room, rng.choice(viewers), tokens)

    tid, _ = play_through_server(client, game, players, humans, seed, on_turn=on_turn,
                                 **options)
    room = client.app.state.hub.rooms[tid]
    assert room.status == "finished"
    for viewer in (humans[0], None):  # the resync questions after the end too
        asker.ask_ws(room, viewer, seen.get(viewer) if viewer is not None else None,
                     sweep=False)
    return room


CONFIGS: list[tuple[str, int, tuple[int, ...], int, dict[str, Any]]] = [
    ("under-current", 4, (0, 2), 61, {"turn_seconds": 600}),
    ("spy-tracker", 3, (0, 1), 62, {"public": True}),
    ("against-the-current", 2, (0, 1), 63, {}),
    ("undercover", 3, (0, 2), 64, {}),
]


@pytest.mark.parametrize(("game", "players", "humans", "seed", "options"), CONFIGS,
                         ids=[f"{g}-{n}p" for g, n, _, _, _ in CONFIGS])
def test_every_answer_is_the_same_in_a_re_dealt_twin(
        client: TestClient, asker: Asker, game: str, players: int, humans: tuple[int, ...],
        seed: int, options: dict[str, Any]) -> None:
    asked_game(client, asker, game, players, humans, seed, **options)
    print(f"\n{game} {players}p: {asker.tally}; twins: {asker.auditor.coverage}")
    asker.assert_clean()
    assert not asker.uncovered_routes(), f"routes with no request generator: " \
        f"{sorted(asker.uncovered_routes())}"
    assert asker.tally.pending > 200 and asker.tally.http > 100
    c = asker.auditor.coverage
    # the twins really differ: re-dealt views, and (where a game hides moves) other moves
    assert c.views_redealt >= c.views // 4, "the twins hardly ever differed from the truth"
    if game != "against-the-current":  # its moves are public (only the event pile is hidden)
        assert c.lines_moved > 0


# -- planted oracles: the audit must catch each of them -------------------------------------
def old_pending_answer(self: Room, seat: int | None, version: int, action: int | None
                       ) -> dict[str, Any]:
    """The re-check as it was: it answered for any version, whoever moved there."""
    history = self.table.history()
    landed = False
    if seat is not None and 0 <= version < len(history):
        landed = action is None or history[version] == action
    return {"version": version, "action": action, "landed": landed}


@pytest.mark.parametrize("game", [c[0] for c in CONFIGS])
def test_the_old_resync_oracle_is_caught(client: TestClient, asker: Asker, game: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Room, "pending_answer", old_pending_answer)
    config = next(c for c in CONFIGS if c[0] == game)
    asked_game(client, asker, *config[:4], **config[4])
    with pytest.raises(AssertionError) as caught:
        asker.assert_clean()
    report = str(caught.value)
    print(f"\n{report}"[:1500])
    assert "pending_version" in report and "$.pending.landed" in report


def test_an_endpoint_echoing_another_seats_hand_is_caught(
        client: TestClient, asker: Asker) -> None:
    """A planted statistics endpoint that answers the size of a seat's hand (public) and,
    by mistake, its first card (not)."""
    async def hand(request: Request, table_id: str, seat: int = 0) -> dict[str, Any]:
        room = await hub_of(request).require(table_id)
        cards = room.table.state.hands[seat % room.players]
        return {"seat": seat, "size": len(cards), "first": cards[0] if cards else None}

    client.app.router.add_api_route("/api/tables/{table_id}/hand", hand, methods=["GET"])
    real_requests = Asker.http_requests

    def with_planted(self: Asker, room: Room, tokens: dict[int, str]) -> Iterator[Any]:
        yield from real_requests(self, room, tokens)
        for s in range(room.players):
            yield (("GET", "/api/tables/{table_id}/hand"), "GET",
                   f"/api/tables/{room.id}/hand?seat={s}", None)

    asker.http_requests = with_planted.__get__(asker)  # type: ignore[method-assign]
    asked_game(client, asker, "spy-tracker", 3, (0, 1), 62, public=True)
    with pytest.raises(AssertionError) as caught:
        asker.assert_clean()
    report = str(caught.value)
    print(f"\n{report}"[:1500])
    assert "/hand?seat=" in report and "$.first" in report


def test_an_unaudited_route_is_named(client: TestClient, asker: Asker) -> None:
    """A new endpoint without a request generator fails the audit by name."""
    async def stats(table_id: str) -> dict[str, Any]:
        return {}

    client.app.router.add_api_route("/api/tables/{table_id}/stats", stats, methods=["GET"])
    asker.routes |= {r for r in app_routes(client.app.routes) if "stats" not in r[1]}
    assert asker.uncovered_routes() == {("GET", "/api/tables/{table_id}/stats")}
