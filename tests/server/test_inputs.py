"""Hostile and careless input at the edge (issue 19, findings 4, 5 and 8): nesting, lone
surrogates, numbers JSON cannot carry, bodies that are not JSON, other sites' pages, and the
security headers on every response. Each refusal has a namespaced code and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from fieldcraft.server import create_app
from fieldcraft.server import errors as E
from fieldcraft.server.guard import SECURITY_HEADERS, normalise_origin
from fieldcraft.server.jsonin import MAX_DEPTH
from fieldcraft.server.limits import LimitSettings
from tests.server.helpers import SeatSocket, ServerProcess, create_table

DEEP_ARRAY = "[" * 2000 + "]" * 2000
DEEP_OBJECT = '{"a":' * 2000 + "1" + "}" * 2000
JSON = {"content-type": "application/json"}


pytestmark = pytest.mark.no_limits  # bursts of hostile requests from one address

def waiting_table(client: TestClient) -> dict[str, Any]:
    """A two-seat table with the host seated and one seat free (no seed: works however
    seeded tables are allowed)."""
    return create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                        name="Host")


def snapshot(client: TestClient, table_id: str) -> tuple[int, str, str, list[Any]]:
    room = client.app.state.hub.rooms[table_id]
    return room.version, room.status, room.state.to_json(), room.seats.public()


def error_of(res: Any, status: int, code: str) -> str:
    assert res.status_code == status, res.text
    body = res.json()
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body["error"]["message"]


def ws_error(client: TestClient, table_id: str, raw: str | bytes, hello: bool = True,
             token: str | None = None) -> dict[str, Any]:
    """Send ``raw`` (after a hello) and return the reply, checking the socket still works."""
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        seat = SeatSocket(ws)
        if hello:
            assert seat.hello(token)["type"] == "sync"
        if isinstance(raw, bytes):
            ws.send_bytes(raw)
        else:
            ws.send_text(raw)
        reply = seat.until(lambda m: m["type"] in ("error", "pong"))
        ping: dict[str, Any] = {"type": "ping", "id": "after"}
        if token is not None:
            ping["token"] = token
        seat.send(ping if hello else {"type": "hello"})
        # the socket lives on
        seat.until(lambda m: m["type"] == "sync" or m.get("id") == "after" and m["type"] == "pong")
        return reply


# -- finding 4: nesting ---------------------------------------------------------------------------
@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT,
                                  '{"game": "spy-tracker", "overrides": ' + DEEP_ARRAY + "}"])
def test_deeply_nested_body_is_refused_and_the_server_goes_on(body: str, db_url: str) -> None:
    app = create_app(db_url, allowed_hosts=["testserver"],
                     bot_delay=0.0)  # never the user's own database
    with TestClient(app, raise_server_exceptions=False) as client:
        before = set(client.app.state.hub.rooms)  # every table (the lobby lists public ones)
        res = client.post("/api/tables", content=body, headers=JSON)
        error_of(res, 400, "request.too_deep")
        assert set(client.app.state.hub.rooms) == before
        assert client.get("/healthz").status_code == 200


@pytest.fixture
def quiet_client(db_url: str) -> Any:
    """A client that reports server errors as responses (500) instead of raising them, so a
    test sees what a real client would."""
    with TestClient(create_app(db_url, allowed_hosts=["testserver"],
                               bot_delay=0.0, limits=LimitSettings.unlimited()),
                    raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("raw", [DEEP_ARRAY, DEEP_OBJECT,
                                 '{"type": "ping", "id": ' + DEEP_ARRAY + "}"])
def test_deeply_nested_message_gets_an_error_not_a_closed_socket(quiet_client: TestClient,
                                                                 raw: str) -> None:
    made = waiting_table(quiet_client)
    before = snapshot(quiet_client, made["id"])
    reply = ws_error(quiet_client, made["id"], raw, token=made["token"])
    assert reply["type"] == "error" and reply["code"] == "request.too_deep", reply
    assert snapshot(quiet_client, made["id"]) == before


def test_nesting_up_to_the_limit_is_read_and_brackets_in_strings_do_not_count(
        client: TestClient) -> None:
    made = waiting_table(client)
    inside = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)  # the message itself is one level
    reply = ws_error(client, made["id"], '{"type": "ping", "id": ' + inside + "}",
                     token=made["token"])
    assert reply["code"] == "request.bad_message"  # read fine, then the schema says no
    text = json.dumps({"type": "ping", "token": made["token"], "id": "[{" * 3000})
    reply = ws_error(client, made["id"], text, token=made["token"])
    assert reply["code"] == "request.bad_message"  # an id that long: not "too deep"
    text = json.dumps({"type": "ping", "token": made["token"], "id": "[{" * 100})
    reply = ws_error(client, made["id"], text, token=made["token"])
    assert reply["type"] == "pong" and reply["id"] == "[{" * 100


@pytest.mark.parametrize("limit", [3, MAX_DEPTH])
def test_nesting_is_measured_exactly(limit: int) -> None:
    from fieldcraft.server.jsonin import too_deep

    def shapes(n: int) -> list[str]:
        return ["[" * n + "]" * n, '{"a":' * n + "1" + "}" * n, "[[]," * (n - 1) + "]" * (n - 1),
                '[1,{"a":' * (n // 2) + "2" + "}]" * (n // 2),
                "[" + '"]]]",' * 50 + "[" * (n - 1) + "]" * (n - 1) + "]"]

    for text in shapes(limit):
        assert not too_deep(text, limit), text
    for text in shapes(limit + 2)[:3]:
        assert too_deep(text, limit), text
    assert too_deep('[1,{"a":' * limit + "2" + "}]" * limit, limit)
    assert not too_deep('["' + "[" * 100 + '"]', limit)  # brackets in a string do not count
    assert not too_deep("[}" * 500, limit)  # not JSON: left to the decoder (bad_json)


# -- finding 5: lone surrogates and other text the server cannot keep -----------------------------
@pytest.mark.parametrize("raw", [
    '{"type": "ping", "id": "\\ud800"}',
    '{"type": "ping", "id": "ok\\udfff"}',
    '{"type": "ping", "id": "\\ude00\\ud83d"}',  # a pair in the wrong order is two lone ones
    '{"type": "act", "token": "\\ud800", "version": 0, "action": 1}',
    '{"type": "ping", "\\ud800": 1}',
    '{"type": "\\ud800"}',
])
def test_lone_surrogate_in_a_message_is_refused_with_a_reply(quiet_client: TestClient,
                                                             raw: str) -> None:
    made = waiting_table(quiet_client)
    before = snapshot(quiet_client, made["id"])
    reply = ws_error(quiet_client, made["id"], raw, token=made["token"])
    assert reply["type"] == "error" and reply["code"] == "request.bad_unicode", reply
    assert "id" not in reply
    assert snapshot(quiet_client, made["id"]) == before


def test_lone_surrogate_before_hello_is_refused_too(quiet_client: TestClient) -> None:
    made = waiting_table(quiet_client)
    reply = ws_error(quiet_client, made["id"], '{"type": "hello", "token": "\\udbff"}',
                     hello=False)
    assert reply["code"] == "request.bad_unicode"


def test_surrogate_pairs_are_ordinary_characters(client: TestClient) -> None:
    made = waiting_table(client)
    reply = ws_error(client, made["id"],
                     '{"type": "ping", "token": "' + made["token"] + '", "id": "\\ud83d\\ude00"}',
                     token=made["token"])
    assert reply == {"type": "pong", "id": "\U0001f600", "version": 0}
    res = client.post(f"/api/tables/{made['id']}/join",
                      content='{"name": "Bea \\ud83d\\ude00"}', headers=JSON)
    assert res.status_code == 200, res.text
    assert res.json()["table"]["seats"][1]["name"] == "Bea \U0001f600"


@pytest.mark.parametrize("body", [
    '{"game": "spy-tracker", "name": "\\ud800"}',
    '{"game": "spy-tracker", "players": 2, "overrides": {"\\udc00": 1}}',
    '{"game": "spy-\\udc00tracker"}',
])
def test_lone_surrogate_in_a_body_is_a_400_not_a_storage_error(quiet_client: TestClient,
                                                               body: str) -> None:
    before = set(quiet_client.app.state.hub.rooms)  # every table (the lobby lists public ones)
    res = quiet_client.post("/api/tables", content=body, headers=JSON)
    error_of(res, 400, "request.bad_unicode")
    made = waiting_table(quiet_client)
    res = quiet_client.post(f"/api/tables/{made['id']}/join",
                            content='{"name": "\\ud800"}', headers=JSON)
    error_of(res, 400, "request.bad_unicode")
    assert quiet_client.get(f"/api/tables/{made['id']}").json()["seats"][1]["name"] is None
    assert set(quiet_client.app.state.hub.rooms) == before | {made["id"]}


@pytest.mark.parametrize("name", ["Bea\x00", "a\nb", "\x1b[31mred", "x\x7f"])
def test_names_with_control_characters_are_refused(client: TestClient, name: str) -> None:
    made = waiting_table(client)
    res = client.post(f"/api/tables/{made['id']}/join", json={"name": name})
    error_of(res, 400, "request.bad_request")
    assert client.get(f"/api/tables/{made['id']}").json()["seats"][1]["name"] is None


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e400",
                                   str(2**53), str(-(2**53)), "1" * 5000])
def test_numbers_json_cannot_carry_are_refused(client: TestClient, value: str) -> None:
    made = waiting_table(client)
    reply = ws_error(client, made["id"], '{"type": "ping", "id": ' + value + "}",
                     token=made["token"])
    assert reply["type"] == "error" and reply["code"] == "request.bad_json", reply
    res = client.post("/api/tables", content='{"game": "spy-tracker", "players": ' + value
                      + "}", headers=JSON)
    error_of(res, 400, "request.bad_json")
    limit = ws_error(client, made["id"], json.dumps(
        {"type": "ping", "token": made["token"], "id": -(2**53 - 1)}), token=made["token"])
    assert limit == {"type": "pong", "id": -(2**53 - 1), "version": 0}


def test_error_replies_can_always_be_sent() -> None:
    exc = E.TableError(E.BAD_MESSAGE, "unknown field 'a\ud800b'", "x\udfff")
    message = E.error_message(exc)
    assert "id" not in message
    json.dumps(message, ensure_ascii=False).encode("utf-8")
    json.dumps(E.error_body(exc), ensure_ascii=False).encode("utf-8")
    assert E.error_message(E.TableError(E.BAD_MESSAGE, "m", "ok"))["id"] == "ok"


# -- finding 8: JSON endpoints take JSON only -----------------------------------------------------
@pytest.mark.parametrize("content_type", [
    "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", "application/json; charset=latin-1", "json", ""])
def test_json_endpoints_refuse_other_media_types(client: TestClient,
                                                 content_type: str) -> None:
    made = waiting_table(client)
    before = snapshot(client, made["id"])
    body = json.dumps({"game": "spy-tracker"})
    res = client.post("/api/tables", content=body, headers={"content-type": content_type})
    error_of(res, 415, "request.unsupported_media_type")
    res = client.post(f"/api/tables/{made['id']}/join", content=b'{"name": "Eve"}',
                      headers={"content-type": content_type})
    error_of(res, 415, "request.unsupported_media_type")
    res = client.post(f"/api/tables/{made['id']}/join", content=b"",
                      headers={"content-type": content_type})
    error_of(res, 415, "request.unsupported_media_type")
    res = client.post(f"/api/tables/{made['id']}/start", content=json.dumps(
        {"token": made["host_token"]}), headers={"content-type": content_type})
    error_of(res, 415, "request.unsupported_media_type")
    assert snapshot(client, made["id"]) == before


def test_json_with_a_utf8_charset_and_a_bare_empty_post_are_fine(client: TestClient) -> None:
    res = client.post("/api/tables", content=json.dumps({"game": "spy-tracker"}),
                      headers={"content-type": "Application/JSON; charset=\"utf-8\""})
    assert res.status_code == 201, res.text
    made = waiting_table(client)
    res = client.post(f"/api/tables/{made['id']}/join")  # no body, no Content-Type
    assert res.status_code == 200, res.text
    assert res.json()["seat"] == 1


def test_body_over_the_limit_is_refused_by_its_length(client: TestClient) -> None:
    res = client.post("/api/tables", content=b" " * 20_000, headers=JSON)
    error_of(res, 413, "request.too_large")

    def chunks() -> Any:  # no Content-Length: counted while it arrives
        for _ in range(40):
            yield b" " * 1000

    res = client.post("/api/tables", content=chunks(), headers=JSON)
    error_of(res, 413, "request.too_large")


# -- finding 8: other sites' pages ----------------------------------------------------------------
EVIL = "https://evil.example"
OWN = "http://testserver"  # the TestClient's host and scheme


@pytest.mark.parametrize("origin", [EVIL, "null", "http://testserver.evil.example",
                                    "https://testserver", "http://testserver:8080", "nonsense"])
def test_websocket_from_another_origin_gets_an_error_and_is_closed(client: TestClient,
                                                                   origin: str) -> None:
    made = waiting_table(client)
    with client.websocket_connect(f"/ws/{made['id']}", headers={"origin": origin}) as ws:
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "error" and reply["code"] == "auth.bad_origin", reply
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4403
    assert client.app.state.hub.rooms[made["id"]].idle()


@pytest.mark.parametrize("origin", [None, OWN, "HTTP://TestServer", "http://testserver:80"])
def test_websocket_from_the_same_origin_or_a_program_is_served(client: TestClient,
                                                               origin: str | None) -> None:
    made = waiting_table(client)
    headers = {} if origin is None else {"origin": origin}
    with client.websocket_connect(f"/ws/{made['id']}", headers=headers) as ws:
        assert SeatSocket(ws).hello(made["token"])["type"] == "sync"


def test_state_changing_requests_from_another_origin_are_refused(client: TestClient) -> None:
    made = waiting_table(client)
    before = snapshot(client, made["id"])
    tables = set(client.app.state.hub.rooms)  # every table (the lobby lists public ones)
    evil = {"origin": EVIL}
    error_of(client.post("/api/tables", json={"game": "spy-tracker"}, headers=evil), 403,
             "auth.bad_origin")
    error_of(client.post(f"/api/tables/{made['id']}/join", json={}, headers=evil), 403,
             "auth.bad_origin")
    error_of(client.post(f"/api/tables/{made['id']}/start", json={
        "token": made["host_token"]}, headers=evil), 403, "auth.bad_origin")
    error_of(client.post(f"/api/tables/{made['id']}/join", json={}, headers={"origin": "null"}),
             403, "auth.bad_origin")
    assert snapshot(client, made["id"]) == before
    assert set(client.app.state.hub.rooms) == tables
    # reading is not refused (no CORS header is sent, so the other site cannot read it)
    res = client.get(f"/api/tables/{made['id']}", headers=evil)
    assert res.status_code == 200 and "access-control-allow-origin" not in res.headers
    res = client.post(f"/api/tables/{made['id']}/join", json={}, headers={"origin": OWN})
    assert res.status_code == 200, res.text


def test_allowed_origins_are_let_in(db_url: str) -> None:
    app = create_app(db_url, allowed_hosts=["testserver"], bot_delay=0.0,
                     allowed_origins=["https://Games.Example:443/", "http://127.0.0.1:9000"])
    with TestClient(app) as client:
        made = waiting_table(client)
        for origin in ("https://games.example", "http://127.0.0.1:9000"):
            with client.websocket_connect(f"/ws/{made['id']}", headers={"origin": origin}) as ws:
                assert SeatSocket(ws).hello()["type"] == "sync"
        res = client.post(f"/api/tables/{made['id']}/join", json={},
                          headers={"origin": "https://games.example"})
        assert res.status_code == 200, res.text
        res = client.post("/api/tables", json={"game": "spy-tracker"},
                          headers={"origin": "http://127.0.0.1:9001"})
        error_of(res, 403, "auth.bad_origin")


@pytest.mark.parametrize("url, expected", [
    ("https://Games.Example", "https://games.example"),
    ("https://games.example:443/", "https://games.example"),
    ("http://games.example:8080", "http://games.example:8080"),
    ("http://[::1]:8000", "http://[::1]:8000"),
])
def test_origins_are_normalised(url: str, expected: str) -> None:
    assert normalise_origin(url) == expected


@pytest.mark.parametrize("url", ["games.example", "ftp://games.example", "https://",
                                 "https://games.example/lobby", "https://u@games.example",
                                 "https://games.example?x=1", "http://games.example:99999"])
def test_bad_allowed_origins_are_refused_at_start(url: str) -> None:
    with pytest.raises(ValueError):
        normalise_origin(url)
    with pytest.raises(SystemExit):
        from fieldcraft.cli import build_parser

        build_parser().parse_args(["serve", "--allowed-origin", url])


def test_serve_takes_repeated_allowed_origins() -> None:
    from fieldcraft.cli import build_parser

    args = build_parser().parse_args(["serve", "--allowed-origin", "https://A.example",
                                      "--allowed-origin", "http://b.example:8080"])
    assert args.allowed_origin == ["https://a.example", "http://b.example:8080"]


# -- finding 8: security headers ------------------------------------------------------------------
def test_every_response_has_the_security_headers(client: TestClient) -> None:
    made = waiting_table(client)
    responses = [
        client.get("/"), client.get(f"/t/{made['id']}"), client.get(f"/t/{made['id']}/replay"),
        client.get("/t/nothere"), client.get("/api/games"), client.get("/api/tables"),
        client.get("/api/tables/nothere"), client.get("/static/common.js"),
        client.get("/static/style.css"), client.get("/static/nothere.js"),
        client.get("/games/spy-tracker/board.js"), client.get("/games/spy-tracker/x.py"),
        client.get("/healthz"), client.get("/nothere"),
        client.post("/api/tables", content=b"x", headers={"content-type": "text/plain"}),
        client.post("/api/tables", json={}, headers={"origin": EVIL}),
        client.get("/?lang=ja"),
    ]
    for res in responses:
        for name, value in SECURITY_HEADERS:
            assert res.headers.get(name.decode()) == value.decode(), (res.url, name)
    csp = responses[0].headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp


def test_pages_have_no_inline_script_or_handlers(client: TestClient) -> None:
    """Only JSON data blocks may be inline: a CSP without 'unsafe-inline' blocks the rest."""
    import re

    made = waiting_table(client)
    for path in ("/", f"/t/{made['id']}", f"/t/{made['id']}/replay", "/t/nothere"):
        html = client.get(path).text
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag or 'type="application/json"' in tag, (path, tag)
        assert not re.search(r"\son[a-z]+\s*=", html), path
        assert not re.search(r"\sstyle\s*=", html), path
        assert "javascript:" not in html, path


# -- bugs are answered too -----------------------------------------------------------------------
def test_a_bug_while_handling_a_request_is_a_json_500(quiet_client: TestClient,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from fieldcraft.server.routes import tables

    def broken() -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(tables, "game_catalogue", broken)
    res = quiet_client.get("/api/games")
    error_of(res, 500, "server.internal_error")
    for name, value in SECURITY_HEADERS:
        assert res.headers.get(name.decode()) == value.decode()
    assert quiet_client.get("/healthz").status_code == 200


def test_a_bug_while_handling_a_message_is_answered_and_the_socket_stays(
        quiet_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from fieldcraft.server import protocol

    made = waiting_table(quiet_client)
    real = protocol.parse_message

    def sometimes_broken(raw: str | bytes) -> Any:
        if "boom" in (raw if isinstance(raw, str) else raw.decode()):
            raise RecursionError("a bug")
        return real(raw)

    monkeypatch.setattr(protocol, "parse_message", sometimes_broken)
    before = snapshot(quiet_client, made["id"])
    reply = ws_error(quiet_client, made["id"], '{"type": "ping", "id": "boom"}',
                     token=made["token"])
    assert reply["type"] == "error" and reply["code"] == "server.internal_error", reply
    assert snapshot(quiet_client, made["id"]) == before


# -- the same through a real server (uvicorn, real sockets, real UTF-8) ---------------------------
def test_a_real_server_answers_hostile_input_and_keeps_serving(tmp_path: Path) -> None:
    """The TestClient hands Python strings over without encoding them; only a real server
    shows the dead socket of finding 5 (a reply with a lone surrogate cannot be sent) and the
    plain-text 500 of finding 4. Also checks ``--allowed-origin`` end to end."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    srv = ServerProcess(f"sqlite:///{tmp_path / 'real.db'}",
                        args=["--allowed-origin", "https://friends.example"]).start()
    try:
        with httpx.Client(base_url=srv.base, timeout=10) as http:  # one kept-alive connection
            made = http.post("/api/tables", json={
                "game": "spy-tracker", "players": 2, "seats": ["human", "human"]}).json()
            for body, code in ((DEEP_ARRAY, "request.too_deep"),
                               ('{"game": "spy-tracker", "name": "\\ud800"}',
                                "request.bad_unicode")):
                res = http.post("/api/tables", content=body, headers=JSON)
                error_of(res, 400, code)
                assert http.get("/healthz").status_code == 200  # the next request is served
            error_of(http.post(f"/api/tables/{made['id']}/join", content=b'{"name": "Eve"}',
                               headers={"content-type": "text/plain"}), 415,
                     "request.unsupported_media_type")
            error_of(http.post(f"/api/tables/{made['id']}/join", json={},
                               headers={"origin": EVIL}), 403, "auth.bad_origin")
            assert http.get(f"/api/tables/{made['id']}").json()["seats"][1]["name"] is None
        url = f"{srv.ws_base}/ws/{made['id']}"
        with connect(url, open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": made["token"]}))
            assert json.loads(ws.recv(timeout=10))["type"] == "sync"
            for raw, code in (('{"type": "ping", "token": "%s", "id": "\\ud800"}'
                               .replace("%s", made["token"]), "request.bad_unicode"),
                              (DEEP_ARRAY, "request.too_deep"),
                              ('{"type": "ping", "id": NaN}', "request.bad_json")):
                ws.send(raw)
                reply = json.loads(ws.recv(timeout=10))
                while reply["type"] == "presence":
                    reply = json.loads(ws.recv(timeout=10))
                assert reply["type"] == "error" and reply["code"] == code, reply
            ws.send(json.dumps({"type": "ping", "token": made["token"], "id": "alive"}))
            assert json.loads(ws.recv(timeout=10))["id"] == "alive"
        with connect(url, origin=EVIL, open_timeout=10) as ws:  # type: ignore[arg-type]
            reply = json.loads(ws.recv(timeout=10))
            assert reply["code"] == "auth.bad_origin", reply
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        for origin in ("https://friends.example", srv.base):  # --allowed-origin, and itself
            with connect(url, origin=origin, open_timeout=10) as ws:  # type: ignore[arg-type]
                ws.send('{"type": "hello"}')
                assert json.loads(ws.recv(timeout=10))["type"] == "sync"
        res = httpx.post(f"{srv.base}/api/tables/{made['id']}/join", json={"name": "Fr"},
                         headers={"origin": "https://friends.example"})
        assert res.status_code == 200, res.text
    finally:
        srv.stop()
