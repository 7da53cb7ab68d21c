"""The abuse limits (fieldcraft/server/limits.py): each one hit, with its code and when to
retry; a burst of 3,000 create attempts leaves the server bounded; waiting tables expire on a
fake clock while running and finished ones are kept (and stay replayable); the client address
comes from the proxy's header only with ``--proxy-headers``.

No test sleeps to let a limit's time pass: the app runs on a :class:`FakeClock` the test moves.
Clients at different addresses go through uvicorn's own ``ProxyHeadersMiddleware`` (what
``--proxy-headers`` turns on) trusting the test client, each request naming its address in
``X-Forwarded-For``.
"""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from fieldcraft.server import create_app, exposure_warning
from fieldcraft.server.hub import Hub
from fieldcraft.server.limits import (
    CLOSE_RATE_LIMITED,
    LimitSettings,
    MessageGate,
    TokenBucket,
    address_key,
)
from tests.server.helpers import ROOT, SeatSocket, free_port


class FakeClock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Server:
    """An app on a fake clock behind uvicorn's proxy-headers middleware."""

    def __init__(self, client: TestClient, hub: Hub, clock: FakeClock, db_file: Path):
        self.client = client
        self.hub = hub
        self.clock = clock
        self.db_file = db_file
        self.open = True

    def close(self) -> None:
        if self.open:
            self.open = False
            self.client.__exit__(None, None, None)

    @staticmethod
    def at(address: str) -> dict[str, str]:
        return {"X-Forwarded-For": address}

    def create(self, address: str = "10.0.0.1", **body: Any) -> httpx.Response:
        body.setdefault("game", "spy-tracker")
        body.setdefault("players", 2)
        body.setdefault("seats", ["human", "human"])  # the host takes one: it waits for one
        body.setdefault("public", True)  # listed, so the lobby list shows what is kept
        return self.client.post("/api/tables", json=body, headers=self.at(address))

    def sweep(self) -> list[str]:
        return self.client.portal.call(self.hub.expire_waiting)

    def db_status(self, table_id: str) -> str | None:
        with sqlite3.connect(self.db_file) as conn:
            row = conn.execute("SELECT status FROM game_tables WHERE id = ?",
                               (table_id,)).fetchone()
        return row[0] if row else None

    def db_count(self) -> int:
        with sqlite3.connect(self.db_file) as conn:
            return conn.execute("SELECT count(*) FROM game_tables").fetchone()[0]


ServerFactory = Callable[..., Server]


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[ServerFactory]:
    """``make_server(**limits)``: a server with those limits changed from the defaults."""
    opened: list[Server] = []

    def make(db_name: str = "web.db", **limits: Any) -> Server:
        clock = FakeClock()
        db_file = tmp_path / db_name
        app = create_app(f"sqlite:///{db_file}", allowed_hosts=["testserver"],
                         bot_delay=0.0, away_grace=30.0,
                         synchronous="NORMAL", limits=replace(LimitSettings(), **limits),
                         clock=clock)
        client = TestClient(ProxyHeadersMiddleware(app, trusted_hosts="*"))  # type: ignore
        client.__enter__()
        opened.append(Server(client, app.state.hub, clock, db_file))
        return opened[-1]

    yield make
    for server in opened:
        server.close()


def refusal(res: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert res.status_code == status, res.text
    error = res.json()["error"]
    assert error["code"] == code and error["message"]
    return error


# -- the mechanisms -------------------------------------------------------------------------------
def test_token_bucket_allows_a_burst_then_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=2.0, capacity=3, clock=clock)
    assert [bucket.take() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take() == pytest.approx(0.5)
    assert bucket.take() == pytest.approx(0.5)  # a refusal takes nothing
    clock.advance(0.25)
    assert bucket.take() == pytest.approx(0.25)
    clock.advance(0.25)
    assert bucket.take() == 0.0
    clock.advance(100)
    assert bucket.full() and bucket.tokens == 3


def test_message_gate_refuses_a_burst_and_closes_sustained_flooding() -> None:
    clock = FakeClock()
    gate = MessageGate(rate=10, burst=5, clock=clock)
    assert [gate.check()[0] for _ in range(5)] == ["ok"] * 5
    assert [gate.check()[0] for _ in range(5)] == ["refuse"] * 5  # a burst: answered, kept
    clock.advance(1.0)  # a quiet second: both buckets refill
    assert [gate.check()[0] for _ in range(10)] == ["ok"] * 5 + ["refuse"] * 5
    # twice the rate for ever is tolerated (half refused, never closed) ...
    clock.advance(1.0)
    for _ in range(1000):
        clock.advance(0.05)
        assert gate.check()[0] in ("ok", "refuse")
    # ... but a flood at many times the rate empties the strikes and closes the socket
    verdicts = [gate.check()[0] for _ in range(20)]
    assert verdicts[-1] == "close" and "ok" not in verdicts
    off = MessageGate(rate=0, burst=0, clock=clock)
    assert all(off.check() == ("ok", 0.0) for _ in range(1000))


def test_address_key_groups_ipv6_by_its_64() -> None:
    assert address_key("203.0.113.9") == "203.0.113.9"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::7") \
        == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:198.51.100.4") == "198.51.100.4"
    assert address_key(None) == "unknown" and address_key("testclient") == "testclient"


# -- each limit, over HTTP and the WebSocket ------------------------------------------------------
def test_tables_per_minute_per_address(make_server: ServerFactory) -> None:
    srv = make_server()  # the defaults: 10 a minute
    for _ in range(10):
        assert srv.create("10.0.0.1", seats=["human", "bot"]).status_code == 201
    def listed() -> list[str]:
        return sorted(t["id"] for t in srv.client.get("/api/tables").json()["tables"])

    before = listed()
    rows = srv.db_count()
    res = srv.create("10.0.0.1", seats=["human", "bot"])
    refusal(res, 429, "limits.rate_limited")
    assert res.headers["Retry-After"] == "6"  # one table every 60/10 s
    # refused: nothing changed; and other addresses are not affected
    assert listed() == before and len(before) == 10 and srv.db_count() == rows
    assert srv.create("10.0.0.2", seats=["human", "bot"]).status_code == 201
    srv.clock.advance(3)
    assert srv.create("10.0.0.1", seats=["human", "bot"]).headers["Retry-After"] == "3"
    srv.clock.advance(3)
    assert srv.create("10.0.0.1", seats=["human", "bot"]).status_code == 201
    # every attempt counts, a bad one too (it is refused by the limit before being read)
    bad = srv.client.post("/api/tables", content=b"{", headers={
        "X-Forwarded-For": "10.0.0.1", "Content-Type": "application/json"})
    refusal(bad, 429, "limits.rate_limited")


def test_waiting_tables_per_address(make_server: ServerFactory) -> None:
    srv = make_server(tables_per_minute=0, waiting_per_address=3)
    made = [srv.create("10.0.0.1").json() for _ in range(3)]
    res = srv.create("10.0.0.1")
    refusal(res, 429, "limits.too_many_waiting_tables")
    assert res.headers["Retry-After"] == "1800"  # when the first of them expires
    srv.clock.advance(600)
    assert srv.create("10.0.0.1").headers["Retry-After"] == "1200"
    assert len(srv.hub.limits.waiting) == 3 and srv.db_count() == 3
    # a table that starts at once is not waiting: allowed; and so is another address
    assert srv.create("10.0.0.1", seats=["human", "bot"]).status_code == 201
    assert srv.create("10.0.0.9").status_code == 201
    # once one of the three starts (its free seat taken), there is room for another
    joined = srv.client.post(f"/api/tables/{made[0]['id']}/join", json={"name": "Bo"})
    assert joined.status_code == 200 and joined.json()["table"]["status"] == "playing"
    assert srv.create("10.0.0.1").status_code == 201
    refusal(srv.create("10.0.0.1"), 429, "limits.too_many_waiting_tables")


def test_waiting_tables_on_the_whole_server(make_server: ServerFactory) -> None:
    srv = make_server(tables_per_minute=0, waiting_per_address=0, waiting_total=5)
    first = [srv.create(f"10.0.1.{i}").json()["id"] for i in range(5)]
    res = srv.create("10.0.1.99")
    refusal(res, 429, "limits.server_full")
    assert res.headers["Retry-After"] == "1800"
    assert srv.create("10.0.1.99", seats=["human", "bot"]).status_code == 201  # not waiting
    # when the cap is reached and tables are due, they are expired there and then
    srv.clock.advance(1800)
    assert srv.create("10.0.1.99").status_code == 201
    assert all(srv.db_status(t) == "expired" for t in first)
    assert len(srv.hub.limits.waiting) == 1


def answer(message: dict[str, Any]) -> bool:
    """A reply to a message (not an update or presence the table sends by itself)."""
    return message["type"] in ("pong", "error", "ack")


def test_messages_per_socket(make_server: ServerFactory) -> None:
    srv = make_server(messages_per_second=2, message_burst=4)
    made = srv.create("10.0.0.1").json()
    tid, token = made["id"], made["token"]
    with srv.client.websocket_connect(f"/ws/{tid}", headers=srv.at("10.0.0.1")) as ws:
        seat = SeatSocket(ws)
        assert seat.hello(token)["type"] == "sync"  # 1 of the burst of 4
        for _ in range(3):
            seat.send({"type": "ping", "token": token})
            assert seat.until(answer)["type"] == "pong"
        seat.send({"type": "ping", "token": token})
        over = seat.until(answer)
        assert over["type"] == "error" and over["code"] == "limits.rate_limited"
        assert over["retry_after"] == 0.5 and over["message"]
        # the socket stays open: once the time has come, messages are answered again
        srv.clock.advance(0.5)
        seat.send({"type": "ping", "token": token})
        assert seat.until(answer)["type"] == "pong"
        # a flood: answered rate_limited (nothing done) until the strikes run out, then closed
        codes = []
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(20):
                seat.send({"type": "ping", "token": token})
                codes.append(seat.until(answer)["code"])
        assert closed.value.code == CLOSE_RATE_LIMITED == 4429
        assert codes and set(codes) == {"limits.rate_limited"}
        assert seat.messages[-1]["message"] == "too many messages for too long; closing"


def test_a_move_over_the_message_rate_changes_nothing(make_server: ServerFactory) -> None:
    srv = make_server(messages_per_second=1, message_burst=2)
    made = srv.create("10.0.0.1", seats=["human", "bot"]).json()
    tid, token = made["id"], made["token"]
    with srv.client.websocket_connect(f"/ws/{tid}", headers=srv.at("10.0.0.1")) as ws:
        seat = SeatSocket(ws)
        seat.hello(token)
        view = seat.my_turn()
        seat.send({"type": "ping", "token": token})
        seat.until(answer)
        version = seat.version
        seat.send({"type": "act", "token": token, "version": version,
                   "action": view["choices"][0]["action"]})
        assert seat.until(answer)["code"] == "limits.rate_limited"
        assert srv.hub.rooms[tid].version == version
        srv.clock.advance(1.0)
        seat.send({"type": "act", "token": token, "version": version,
                   "action": view["choices"][0]["action"]})
        assert seat.until(lambda m: m["type"] in ("ack", "error"))["type"] == "ack"


def test_sockets_per_address(make_server: ServerFactory) -> None:
    srv = make_server(sockets_per_address=3)
    tid = srv.create("10.0.0.1").json()["id"]
    url = f"/ws/{tid}"
    cms = [srv.client.websocket_connect(url, headers=srv.at("10.0.0.1")) for _ in range(3)]
    socks = [SeatSocket(cm.__enter__()) for cm in cms]
    for s in socks:
        assert s.hello()["type"] == "sync"
    assert srv.hub.limits.sockets("10.0.0.1") == 3
    with srv.client.websocket_connect(url, headers=srv.at("10.0.0.1")) as ws:
        extra = SeatSocket(ws)
        refused = extra.recv()
        assert refused["code"] == "limits.too_many_sockets" and refused["retry_after"] == 5
        with pytest.raises(WebSocketDisconnect) as closed:
            extra.recv()
        assert closed.value.code == CLOSE_RATE_LIMITED
    assert srv.hub.limits.sockets("10.0.0.1") == 3  # the refused one was not counted
    with srv.client.websocket_connect(url, headers=srv.at("10.0.0.2")) as ws:
        assert SeatSocket(ws).hello()["type"] == "sync"  # another address has its own count
    cms.pop().__exit__(None, None, None)
    with srv.client.websocket_connect(url, headers=srv.at("10.0.0.1")) as ws:
        assert SeatSocket(ws).hello()["type"] == "sync"  # a closed socket gave its place back
    for cm in cms:
        cm.__exit__(None, None, None)
    assert srv.hub.limits.sockets("10.0.0.1") == 0


def test_a_burst_of_3000_create_attempts_leaves_the_server_bounded(
        make_server: ServerFactory) -> None:
    """The finding: one client made 3,000 waiting tables in 18 s. Now one address gets its 10,
    and a thousand addresses together get no more than the server's cap of waiting tables."""
    srv = make_server()  # the defaults
    statuses: dict[int, int] = {}
    for _ in range(3000):
        code = srv.create("198.51.100.7").status_code
        statuses[code] = statuses.get(code, 0) + 1
    assert statuses == {201: 10, 429: 2990}
    assert srv.db_count() == 10  # a refusal writes nothing
    for i in range(1000):  # and a thousand addresses, ten a second each
        code = srv.create(f"10.{i // 250}.{i % 250}.1").status_code
        statuses[code] = statuses.get(code, 0) + 1
    assert statuses[201] == 500  # LimitSettings().waiting_total
    assert len(srv.hub.rooms) == 500 and len(srv.hub.limits.waiting) == 500
    assert srv.db_count() == 500
    listing = srv.client.get("/api/tables")  # one page of the 500 (the lobby list is paged)
    assert len(listing.json()["tables"]) == 50 and listing.json()["next_offset"] == 50
    assert len(listing.content) < 50 * 800  # a page is tens of KB, not 3 MB
    # and they all go away after the expiry time, from memory and from the list
    srv.clock.advance(LimitSettings().waiting_expiry)
    assert len(srv.sweep()) == 500
    assert srv.hub.rooms == {} and srv.client.get("/api/tables").json()["tables"] == []
    assert srv.hub.limits.tracked_addresses() == 0  # the refilled per-address buckets too


# -- expiry ---------------------------------------------------------------------------------------
def play_to_the_end(srv: Server, table_id: str) -> None:
    """Watch an all-bot table until it is over (the bots play at once)."""
    with srv.client.websocket_connect(f"/ws/{table_id}") as ws:
        spy = SeatSocket(ws)
        spy.hello()
        while not spy.view or not spy.view["terminal"]:
            spy.recv(30)


def test_waiting_tables_expire_running_and_finished_ones_stay(
        make_server: ServerFactory) -> None:
    srv = make_server(messages_per_second=0)
    waiting = srv.create("10.0.0.1").json()["id"]
    running = srv.create("10.0.0.1", seats=["human", "bot"]).json()["id"]
    finished = srv.create("10.0.0.1", seats=["bot", "bot"]).json()["id"]
    play_to_the_end(srv, finished)
    srv.clock.advance(29 * 60)
    assert srv.sweep() == []
    srv.clock.advance(60)
    assert srv.sweep() == [waiting]
    # gone from memory and the lobby; marked in the database; every door says so
    assert waiting not in srv.hub.rooms
    assert srv.db_status(waiting) == "expired"
    listed = srv.client.get("/api/tables").json()
    assert [t["id"] for t in listed["tables"]] == [running]
    refusal(srv.client.get(f"/api/tables/{waiting}"), 410, "table.expired")
    refusal(srv.client.post(f"/api/tables/{waiting}/join", json={}), 410, "table.expired")
    assert srv.client.get(f"/t/{waiting}").status_code == 404
    with srv.client.websocket_connect(f"/ws/{waiting}") as ws:
        assert SeatSocket(ws).recv()["code"] == "table.no_such_table"
    # the running table is never expired, however long it runs
    srv.clock.advance(24 * 3600)
    assert srv.sweep() == []
    assert srv.client.get(f"/api/tables/{running}").json()["status"] == "playing"
    # the finished one stays replayable, from memory and loaded again from the database
    for _ in range(2):
        replay = srv.client.get(f"/api/tables/{finished}/replay", params={"seat": "0"})
        assert replay.status_code == 200 and replay.json()["result"] is not None
        assert srv.db_status(finished) == "finished"
        srv.hub.rooms.pop(finished)
    assert finished in [t["id"] for t in listed["finished"]]


def test_a_waiting_table_someone_is_at_is_kept(make_server: ServerFactory) -> None:
    srv = make_server()
    made = srv.create("10.0.0.1").json()
    srv.clock.advance(3600)
    with srv.client.websocket_connect(f"/ws/{made['id']}") as ws:
        SeatSocket(ws).hello(made["token"])
        assert srv.sweep() == []
    assert srv.sweep() == [made["id"]]  # the host left: expired at the next sweep


def test_expiry_counts_from_creation_across_a_restart(make_server: ServerFactory) -> None:
    srv = make_server()
    tid = srv.create("10.0.0.1").json()["id"]
    srv.close()
    again = make_server()  # same database: the table is resumed, still waiting
    assert again.client.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    again.clock.advance(LimitSettings().waiting_expiry)
    assert again.sweep() == [tid]
    again.close()
    third = make_server()
    assert tid not in third.hub.rooms  # not resumed
    refusal(third.client.get(f"/api/tables/{tid}"), 410, "table.expired")


def test_expiry_off_keeps_waiting_tables(make_server: ServerFactory) -> None:
    srv = make_server(waiting_expiry=0)
    tid = srv.create("10.0.0.1").json()["id"]
    srv.clock.advance(10 * 365 * 24 * 3600)
    assert srv.sweep() == []
    assert srv.client.get(f"/api/tables/{tid}").json()["status"] == "waiting"


# -- the command line: options, defaults, proxy headers, the warning -------------------------------
def test_serve_help_shows_every_limit_with_its_default(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    from fieldcraft.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option, default in [("--max-tables-per-minute", "10"),
                            ("--max-waiting-per-address", "10"),
                            ("--max-waiting-tables", "500"),
                            ("--max-messages-per-second", "20.0"),
                            ("--message-burst", "40"),
                            ("--max-sockets-per-address", "32"),
                            ("--waiting-expiry-minutes", "30.0")]:
        assert option in text
        assert f"(default {default})" in text.split(option, 2)[-1].split("--", 1)[0]
    assert "--proxy-headers" in text and "ONLY behind a trusted reverse proxy" in text


@pytest.mark.parametrize("entry", ["cli", "module"])
def test_options_reach_the_server(entry: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import fieldcraft.server
    import fieldcraft.server.__main__ as module_main
    from fieldcraft.cli import main

    seen: dict[str, Any] = {}

    def fake_run(*args: Any, **kwargs: Any) -> None:
        seen.update(kwargs)

    monkeypatch.setattr(fieldcraft.server, "run", fake_run)
    monkeypatch.setattr(module_main, "run", fake_run)
    argv = ["--max-tables-per-minute", "3", "--max-waiting-tables", "0",
            "--waiting-expiry-minutes", "5", "--proxy-headers", "--forwarded-allow-ips",
            "10.1.1.1"]
    if entry == "cli":
        main(["serve", *argv])
    else:
        module_main.main(argv)
    assert seen["limits"] == replace(LimitSettings(), tables_per_minute=3, waiting_total=0,
                                     waiting_expiry=300.0)
    assert seen["proxy_headers"] is True and seen["forwarded_allow_ips"] == "10.1.1.1"
    seen.clear()
    if entry == "cli":
        main(["serve", "--no-limits"])
    else:
        module_main.main(["--no-limits"])
    assert seen["limits"] == LimitSettings.unlimited() and seen["proxy_headers"] is False
    with pytest.raises(SystemExit):
        module_main.main(["--max-waiting-tables", "-1"])


def test_non_loopback_host_without_proxy_headers_warns(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from fieldcraft.server import run

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    db = str(tmp_path / "w.db")
    for host, proxy, warned in [("0.0.0.0", False, True), ("::", False, True),
                                ("192.168.1.5", False, True), ("example.org", False, True),
                                ("0.0.0.0", True, False), ("127.0.0.1", False, False),
                                ("::1", False, False), ("localhost", False, False)]:
        err = io.StringIO()
        run(host=host, port=8000, db=db, proxy_headers=proxy, stderr=err)
        assert ("warning: listening on" in err.getvalue()) is warned, (host, proxy)
        assert (exposure_warning(host, proxy) is not None) is warned
        assert calls[-1]["proxy_headers"] is proxy  # uvicorn's own default would be True


def start_process(db: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "fieldcraft.server", "--port", str(port),
                             "--db", f"sqlite:///{db}", "--bot-delay", "0", *extra],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.1)


@pytest.mark.parametrize("proxy_headers", [False, True])
def test_forwarded_address_is_believed_only_with_proxy_headers(
        tmp_path: Path, proxy_headers: bool) -> None:
    """A real server on 127.0.0.1: uvicorn (by default) believes X-Forwarded-For from 127.0.0.1,
    which let any local client pose as a fresh address for every request."""
    extra = ["--max-tables-per-minute", "2"] + (["--proxy-headers"] if proxy_headers else [])
    proc, base = start_process(tmp_path / "proxy.db", *extra)
    try:
        body = {"game": "spy-tracker", "players": 2, "seats": ["human", "bot"]}
        codes = [httpx.post(base + "/api/tables", json=body,
                            headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
                 for i in range(3)]
        same = [httpx.post(base + "/api/tables", json=body,
                           headers={"X-Forwarded-For": "203.0.113.50"}).status_code
                for _ in range(3)]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()
    if proxy_headers:  # each forwarded address has its own count
        assert codes == [201, 201, 201] and same == [201, 201, 429]
    else:  # all of them are 127.0.0.1, whatever the header says
        assert codes == [201, 201, 429] and same == [429, 429, 429]


def test_limit_codes_have_statuses_and_words() -> None:
    from fieldcraft.server import errors as E

    for code in (E.RATE_LIMITED, E.TOO_MANY_WAITING, E.SERVER_FULL, E.TOO_MANY_SOCKETS):
        assert E.STATUS[code] == 429 and code.startswith("limits.")
    assert E.STATUS[E.TABLE_EXPIRED] == 410
    locales = ROOT / "fieldcraft" / "server" / "locales"
    for path in locales.glob("*.json"):
        words = json.loads(path.read_text(encoding="utf-8"))
        for code in (E.RATE_LIMITED, E.TOO_MANY_WAITING, E.SERVER_FULL, E.TOO_MANY_SOCKETS,
                     E.TABLE_EXPIRED):
            assert words.get(f"error.{code}"), (path.name, code)


def test_per_address_buckets_stay_bounded() -> None:
    """A flood from many addresses: buckets that refilled are dropped, so memory follows the
    addresses active in the last minute, not every address ever seen."""
    from fieldcraft.server.limits import MAX_TRACKED_ADDRESSES, Limits

    clock = FakeClock()
    limits = Limits(LimitSettings(tables_per_minute=10), clock)
    for i in range(3 * MAX_TRACKED_ADDRESSES):
        limits.check_create_rate(f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
        clock.advance(0.1)  # a bucket refills in 6 s: ~60 addresses are live at any time
    assert limits.tracked_addresses() <= MAX_TRACKED_ADDRESSES
