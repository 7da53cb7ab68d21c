"""Property: every message the server cannot process gets a clear error and changes nothing
(issue 19). Hypothesis throws WebSocket messages and HTTP bodies at a table in play: random
JSON, the real token and version beside wrong ones, lone surrogates, NaN, numbers past 2^53,
deep nesting, oversized and non-UTF-8 frames, wrong media types and other sites' origins. For
each one the test asserts a reply with a known namespaced code (or the normal answer, for the
few that are valid requests), an unchanged table (version, status, state, seats) and a server
that still answers.

Bounded for CI: 100 examples a test by default (``FIELDCRAFT_FUZZ_EXAMPLES`` for more),
derandomized so a run is repeatable (``FIELDCRAFT_FUZZ_RANDOM=1`` draws new examples), no
example database written into the work tree, and a deadline that a busy 2-core machine meets.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fieldcraft.core.registry import list_games
from fieldcraft.server import create_app
from fieldcraft.server import errors as E
from fieldcraft.server.limits import LimitSettings
from tests.server.helpers import SeatSocket, create_table

SAFE = 2**53 - 1
LIMIT = 16 * 1024
OWN = "http://testserver"
EVIL = "https://evil.example"
FUZZ = settings(
    max_examples=int(os.environ.get("FIELDCRAFT_FUZZ_EXAMPLES", "100")),
    derandomize=not os.environ.get("FIELDCRAFT_FUZZ_RANDOM"),
    database=None,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- values ---------------------------------------------------------------------------------------
NASTY = ["\ud800", "x\udfff", "\udc00\ud800", "\ud83d\ude00", "\x00", "a\nb", "</script>",
         "x" * 513, "", "act", "hello", "ping", "[[[[", "\\", '"']
text = st.one_of(st.text(max_size=12), st.sampled_from(NASTY))
numbers = st.one_of(st.integers(-3, 40), st.integers(-(2**70), 2**70),
                    st.sampled_from([SAFE, SAFE + 1, -SAFE, -SAFE - 1]),
                    st.floats(allow_nan=True, allow_infinity=True))
leaf = st.one_of(st.none(), st.booleans(), numbers, text)
any_json = st.recursive(leaf, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(text, inner, max_size=3), max_leaves=10)


def chance(times: int, out_of: int) -> st.SearchStrategy[bool]:
    """True ``times`` in ``out_of`` (Hypothesis draws small integers far more often than
    large ones, so ``integers(0, n) == 0`` would be anything but rare)."""
    return st.sampled_from([True] * times + [False] * (out_of - times))


def mostly(good: st.SearchStrategy[Any], junk: st.SearchStrategy[Any] = any_json
           ) -> st.SearchStrategy[Any]:
    """``good`` five times in six: enough well-formed fields that a message gets past the
    schema to the token, turn, version and rules checks behind it."""
    return chance(5, 6).flatmap(lambda ok: good if ok else junk)


def has_surrogate(doc: Any) -> bool:
    if isinstance(doc, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in doc)
    if isinstance(doc, dict):
        return any(has_surrogate(k) or has_surrogate(v) for k, v in doc.items())
    if isinstance(doc, list):
        return any(has_surrogate(v) for v in doc)
    return False


@st.composite
def raw_payload(draw: st.DrawFn, documents: st.SearchStrategy[dict[str, Any]]
                ) -> tuple[str | bytes, Any]:
    """One client payload and, when it is a JSON document, the document (else None)."""
    kind = draw(st.sampled_from(["doc"] * 10 + ["any", "garbage", "bytes", "deep", "deep", "big"]))
    if kind == "doc":
        doc: Any = draw(documents)
        if draw(chance(1, 6)):  # now and then a field nobody asked for
            doc.update(draw(st.dictionaries(text, any_json, min_size=1, max_size=2)))
    elif kind == "any":
        doc = draw(any_json)
    elif kind == "garbage":
        return draw(st.text(max_size=40)), None
    elif kind == "bytes":
        return draw(st.binary(max_size=40)), None
    elif kind == "deep":
        depth = draw(st.sampled_from([15, 16, 17, 100, 999, 1000, 2000, 3000])
                     | st.integers(10, 3000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        inner = opener * depth + ("1" if opener != "[" else "") + closer * depth
        return '{"type": "ping", "id": ' + inner + "}", None
    else:
        return json.dumps({"type": "ping", "id": "x" * draw(st.integers(LIMIT - 20, LIMIT + 20))}
                          ), None
    raw = json.dumps(doc)  # ensure_ascii: surrogates go out as \udXXX escapes, NaN as NaN
    as_bytes = draw(st.booleans())
    return (raw.encode() if as_bytes else raw), doc


def sendable_size(raw: str | bytes) -> int:
    return len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))


def is_int(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= SAFE


# -- the table under attack -----------------------------------------------------------------------
class Target:
    """A two-person table in play, seat ``me`` to move; ``snapshot()`` is all it is."""

    def __init__(self, client: TestClient):
        self.client = client
        made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                            name="Host", away_bot=False)
        joined = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bo"}).json()
        self.id = made["id"]
        self.host_token = made["host_token"]
        self.room = client.app.state.hub.rooms[self.id]
        assert self.room.status == "playing"
        deadline = time.monotonic() + 20
        while self.room.state.current_player() < 0:  # the deal is still being drawn
            assert time.monotonic() < deadline, "the table never came to a person's turn"
            time.sleep(0.02)
        self.me = self.room.state.current_player()
        self.token = made["token"] if self.me == 0 else joined["token"]
        self.other_token = joined["token"] if self.me == 0 else made["token"]
        self.version = self.room.version
        legal = set(self.room.state.legal_actions())
        self.legal = legal
        self.illegal = [a for a in range(60) if a not in legal][:5] + [SAFE]

    def snapshot(self) -> tuple[Any, ...]:
        room = self.room
        return (room.version, room.status, room.state.to_json(), room.seats.public(),
                room.result)

    def harmless(self, doc: Any) -> Any:
        """The same document, except that a legal move at the right version becomes an
        illegal one: the one valid request that would change the table on purpose."""
        if not (isinstance(doc, dict) and doc.get("type") == "act"):
            return doc
        doc = dict(doc)
        if is_int(doc.get("action"), 0) and doc["action"] in self.legal:
            doc["action"] = self.illegal[0]
        action_text = doc.get("action_text")
        if isinstance(action_text, str) and not has_surrogate(action_text):
            try:
                if self.room.table.parse(action_text) in self.legal:
                    doc["action_text"] = "not a move"
            except Exception:  # noqa: BLE001 - unreadable text stays as it is
                pass
        return doc


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("fuzz") / "web.db"
    # bots wait a minute before moving: tables the fuzzer happens to create stay still
    app = create_app(f"sqlite:///{db}", allowed_hosts=["testserver"],
                     bot_delay=60.0, away_grace=3600.0,
                     limits=LimitSettings.unlimited())  # hundreds of creations a test
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def target(client: TestClient) -> Target:
    return Target(client)


@pytest.fixture(scope="module")
def seated(client: TestClient, target: Target) -> Iterator[SeatSocket]:
    with client.websocket_connect(f"/ws/{target.id}") as ws:
        seat = SeatSocket(ws)
        assert seat.hello(target.token)["type"] == "sync"
        yield seat


MESSAGE_FIELDS = {"hello": ["token", "last_version"], "sync": ["token", "last_version"],
                  "ping": ["token", "id"], "back": ["token"],
                  "act": ["token", "version", "action", "action_text", "id"]}


@st.composite
def messages(draw: st.DrawFn, target: Target) -> dict[str, Any]:
    """A message of one type with mostly that type's fields, mostly well-formed (so it gets
    as far as the token, turn, version and rules checks), sometimes a field too many."""
    versions = st.sampled_from([target.version] * 4 + [target.version - 1, target.version + 1,
                                                        0])
    values = {
        "token": mostly(st.sampled_from([target.token] * 5 + [target.token + "x",
                                                              target.other_token, ""])),
        "version": mostly(versions),
        "last_version": mostly(versions),
        "action": mostly(st.sampled_from(target.illegal) | st.sampled_from(sorted(target.legal))),
        "action_text": mostly(text),
        "id": mostly(text | st.integers(-(2**60), 2**60)),
    }
    kind = draw(mostly(st.sampled_from([*MESSAGE_FIELDS, "act", "act", "act", "act", "dance"])))
    doc: dict[str, Any] = {"type": kind} if draw(chance(9, 10)) else {}
    names = MESSAGE_FIELDS.get(kind, ["token"]) if isinstance(kind, str) else ["token"]
    if kind == "act":  # usually exactly one of the two ways to name the move
        left_out = draw(st.sampled_from(["action", "action_text"] * 3 + [""]))
        names = [n for n in names if n != left_out]
    for name in names:
        if draw(chance(4, 5)):
            doc[name] = draw(values[name])
    if draw(chance(1, 8)):
        extra = draw(st.sampled_from(sorted(values)))
        doc[extra] = draw(values[extra])
    return doc


SCHEMAS: dict[str, dict[str, str]] = {
    "hello": {"token": "str", "last_version": "count"},
    "sync": {"token": "str", "last_version": "count"},
    "ping": {"token": "str", "id": "id"},
    "back": {"token": "str"},
}


def valid(doc: Any, raw: str | bytes, token: str | None, first: bool) -> bool:
    """The oracle, written apart from the server's parser: is this a request the protocol
    accepts from this connection (``first``: as its first message)? ``act`` never is here
    (every move sent is illegal, stale, unreadable or badly formed)."""
    if doc is None or sendable_size(raw) > LIMIT or has_surrogate(doc):
        return False
    if not isinstance(doc, dict) or not isinstance(doc.get("type"), str) \
            or doc["type"] not in SCHEMAS:
        return False
    kind = doc["type"]
    if first != (kind == "hello"):
        return False
    schema = SCHEMAS[kind]
    if any(k != "type" and k not in schema for k in doc):
        return False
    present = {k: v for k, v in doc.items() if k != "type" and v is not None}
    if kind == "back" and "token" not in present:
        return False
    if present.get("token") != token:  # a seat sends its token; a spectator sends none
        return False
    for name, value in present.items():
        shape = schema[name]
        if shape == "str" and not (isinstance(value, str) and len(value) <= 512):
            return False
        if shape == "count" and not is_int(value, 0):
            return False
        if shape == "id" and not (isinstance(value, str) and len(value) <= 512
                                  or is_int(value, -SAFE)):
            return False
    return True


def check_error(reply: dict[str, Any]) -> None:
    assert reply["code"] in E.ERROR_CODES, reply
    assert reply["code"] != E.INTERNAL, reply
    assert isinstance(reply["message"], str) and reply["message"], reply


def send(seat: SeatSocket, raw: str | bytes) -> None:
    if isinstance(raw, bytes):
        seat.ws.send_bytes(raw)
    else:
        seat.ws.send_text(raw)


# -- WebSocket ------------------------------------------------------------------------------------
@FUZZ
@given(data=st.data())
@example(data=None)  # the findings themselves, always tried first (see below)
def test_any_message_on_a_seated_socket_is_answered_and_changes_nothing(
        client: TestClient, target: Target, seated: SeatSocket, data: Any) -> None:
    before = target.snapshot()
    if data is None:
        cases: list[tuple[str | bytes, Any]] = [
            ("[" * 2000 + "]" * 2000, None), ('{"type": "ping", "id": "\\ud800"}', None),
            ('{"type": "ping", "token": "' + target.token + '", "id": "\\ud800"}', None),
            (json.dumps({"type": "act", "token": target.token, "version": target.version,
                         "action_text": "launch the rockets"}), None),
            (json.dumps({"type": "act", "token": target.token, "version": target.version,
                         "action": target.illegal[0]}), None)]
    else:
        cases = [data.draw(raw_payload(messages(target)), label="payload")]
    for raw, doc in cases:
        doc = target.harmless(doc)
        if doc is not None:
            raw = json.dumps(doc).encode() if isinstance(raw, bytes) else json.dumps(doc)
        send(seated, raw)
        probe = f"probe-{uuid.uuid4()}"
        seated.send({"type": "ping", "token": target.token, "id": probe})
        replies = []
        while True:
            message = seated.recv()
            if message["type"] == "pong" and message.get("id") == probe:
                break
            if message["type"] != "presence":
                replies.append(message)
        ok = valid(doc, raw, target.token, first=False)
        if ok and doc.get("type") == "back":
            assert replies == []
        else:
            assert len(replies) == 1, (raw, replies)
            reply = replies[0]
            if ok:
                assert reply["type"] == {"ping": "pong", "sync": "sync"}[doc["type"]], reply
            else:
                assert reply["type"] == "error", (raw, reply)
                check_error(reply)
        assert target.snapshot() == before
    assert client.get("/healthz").status_code == 200


@FUZZ
@given(data=st.data())
def test_any_first_message_is_answered_and_changes_nothing(
        client: TestClient, target: Target, data: Any) -> None:
    before = target.snapshot()
    raw, doc = data.draw(raw_payload(messages(target)), label="payload")
    doc = target.harmless(doc)
    if doc is not None:
        raw = json.dumps(doc).encode() if isinstance(raw, bytes) else json.dumps(doc)
    with client.websocket_connect(f"/ws/{target.id}") as ws:
        seat = SeatSocket(ws)
        send(seat, raw)
        reply = seat.recv()
        token = doc.get("token") if isinstance(doc, dict) else None
        seat_token = token if token in (target.token, target.other_token) else None
        if valid(doc, raw, seat_token, first=True):
            assert reply["type"] == "sync", reply
        else:
            assert reply["type"] == "error", (raw, reply)
            check_error(reply)
            assert seat.hello()["type"] == "sync"  # the socket still works
    assert target.snapshot() == before
    assert client.get("/healthz").status_code == 200


# -- HTTP -----------------------------------------------------------------------------------------
def body_fields(target: Target, endpoint: str) -> dict[str, st.SearchStrategy[Any]]:
    seat_kinds = st.sampled_from(["human", "bot", "bot:random", "bot:nobody",
                                  {"kind": "bot", "bot": "random"}, {"kind": "robot"}])
    names = mostly(st.sampled_from(["Ann", "", " ", "x" * 41]) | text)
    if endpoint == "join":
        return {"seat": mostly(st.integers(-2, 3)), "name": names}
    if endpoint == "start":
        return {"token": mostly(st.sampled_from([target.host_token, target.token, ""])),
                "bot": mostly(st.sampled_from(["random", "nobody"]))}
    return {
        "game": mostly(st.sampled_from(list_games()), text | any_json),
        "players": mostly(st.integers(0, 9)),
        "seats": mostly(st.lists(seat_kinds, max_size=5)),
        "bot": mostly(st.sampled_from(["random", "nobody"])),
        "overrides": mostly(st.dictionaries(text, any_json, max_size=2)),
        "turn_seconds": mostly(st.sampled_from([None, 1, 5, 86400, 86401])),
        "seat": mostly(st.integers(-1, 4)),
        "name": names,
        "proxy_bot": mostly(st.sampled_from(["random", "nobody"])),
        "away_bot": mostly(st.booleans()),
    }


CONTENT_TYPES = ["application/json"] * 5 + [
    "application/json; charset=utf-8", "application/json; charset=latin-1", "text/plain",
    "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None]


def is_json_type(content_type: str | None) -> bool:
    return content_type in ("application/json", "application/json; charset=utf-8")


@FUZZ
@given(data=st.data())
@example(data=None)
def test_any_request_body_is_answered_and_changes_nothing(
        client: TestClient, target: Target, data: Any) -> None:
    before = target.snapshot()
    if data is None:  # the findings: deep nesting, a lone surrogate name, a cross-site post
        cases: list[tuple[str, str | bytes, str | None, str | None]] = [
            ("create", "[" * 2000 + "]" * 2000, "application/json", None),
            ("create", '{"game": "spy-tracker", "name": "\\ud800"}', "application/json", None),
            ("join", '{"name": "\\ud800"}', "application/json", None),
            ("create", '{"game": "spy-tracker"}', "text/plain", None),
            ("join", "{}", "application/json", EVIL)]
    else:
        endpoint = data.draw(st.sampled_from(["create", "join", "start"]), label="endpoint")
        bodies = st.fixed_dictionaries({}, optional=body_fields(target, endpoint))
        raw, doc = data.draw(raw_payload(bodies), label="body")
        content_type = data.draw(st.sampled_from(CONTENT_TYPES), label="content_type")
        origin = data.draw(st.sampled_from([None] * 5 + [OWN, EVIL, "null"]), label="origin")
        cases = [(endpoint, raw, content_type, origin)]
    for endpoint, raw, content_type, origin in cases:
        path = {"create": "/api/tables", "join": f"/api/tables/{target.id}/join",
                "start": f"/api/tables/{target.id}/start"}[endpoint]
        headers = {}
        if content_type is not None:
            headers["content-type"] = content_type
        if origin is not None:
            headers["origin"] = origin
        body = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
        tables = len(client.app.state.hub.rooms)
        res = client.post(path, content=body, headers=headers)
        answer = res.json()  # always JSON, never a plain-text 500
        if res.status_code < 300:
            assert endpoint == "create" and res.status_code == 201, (raw, answer)
            assert origin in (None, OWN) and is_json_type(content_type)
            assert len(client.app.state.hub.rooms) == tables + 1
        else:
            check_error(answer["error"])
            assert res.status_code == E.STATUS[answer["error"]["code"]], answer
            assert len(client.app.state.hub.rooms) == tables
            expected = None
            if origin in (EVIL, "null"):
                expected = "auth.bad_origin"
            elif len(body) > LIMIT:
                expected = "request.too_large"
            elif (body or content_type is not None) and not is_json_type(content_type):
                expected = "request.unsupported_media_type"
            if expected is not None:
                assert answer["error"]["code"] == expected, (raw, answer)
        for name in ("content-security-policy", "x-frame-options", "x-content-type-options"):
            assert name in res.headers
        assert target.snapshot() == before
    assert client.get("/healthz").status_code == 200
