"""The Host allowlist (issue 31, finding 1): a page on another name that DNS rebinding points
at this server's address names itself in ``Host`` and ``Origin`` alike, so the Origin check
alone let it create tables, open sockets and read the API. Every request and socket must name
one of the server's own names (``--allowed-host``), or it gets ``auth.bad_host`` and nothing
changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from fieldcraft.server import create_app
from fieldcraft.server.guard import DEFAULT_ALLOWED_HOSTS, listening_names, normalise_host
from tests.server.helpers import SeatSocket, ServerProcess, create_table

REBIND = {"host": "rebind.example:8000", "origin": "http://rebind.example:8000"}


def bad_host(res: httpx.Response) -> str:
    assert res.status_code == 400, res.text
    body = res.json()
    assert body["error"]["code"] == "auth.bad_host", body
    assert "content-security-policy" in res.headers  # refused at the edge, headers and all
    return str(body["error"]["message"])


def waiting(client: TestClient) -> dict[str, Any]:
    return create_table(client, game="spy-tracker", players=2, seats=["human", "human"])


def test_a_rebinding_page_cannot_read_the_api(client: TestClient) -> None:
    made = waiting(client)
    for path in ("/api/tables", f"/api/tables/{made['id']}", "/api/games", "/healthz",
                 f"/t/{made['id']}", "/", "/static/common.js", "/nothere"):
        message = bad_host(client.get(path, headers=REBIND))
        assert "rebind.example" in message and "--allowed-host" in message
    assert client.head("/api/tables", headers=REBIND).status_code == 400
    bad_host(client.options("/api/tables", headers=REBIND))


def test_a_rebinding_page_cannot_create_join_or_start(client: TestClient) -> None:
    made = waiting(client)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    tables = set(hub.rooms)
    room = hub.rooms[made["id"]]
    before = (room.version, room.status, room.seats.public())
    bad_host(client.post("/api/tables", json={"game": "spy-tracker"}, headers=REBIND))
    bad_host(client.post(f"/api/tables/{made['id']}/join", json={"name": "Eve"},
                         headers=REBIND))
    bad_host(client.post(f"/api/tables/{made['id']}/start",
                         json={"token": made["host_token"]}, headers=REBIND))
    bad_host(client.delete("/api/tables", headers=REBIND))
    assert set(hub.rooms) == tables
    assert (room.version, room.status, room.seats.public()) == before


def test_a_rebinding_page_cannot_open_a_socket(client: TestClient) -> None:
    made = waiting(client)
    with client.websocket_connect(f"/ws/{made['id']}", headers=REBIND) as ws:
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "error" and reply["code"] == "auth.bad_host", reply
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4400
    assert client.app.state.hub.rooms[made["id"]].idle()  # type: ignore[attr-defined]


@pytest.mark.parametrize("host", ["", "rebind.example", "testserver.rebind.example",
                                  "localhost.rebind.example", "127.0.0.1.nip.io",
                                  "testserver:8000/x", "user@testserver", "[::2]",
                                  "tëstserver", "testserver:99999x"])
def test_other_names_and_bad_host_headers_are_refused(client: TestClient, host: str) -> None:
    bad_host(client.get("/api/tables", headers={"host": host.encode()}))


def test_the_default_names_pass_with_any_port(db_url: str) -> None:
    """Without ``allowed_hosts`` an app answers to the loopback names only (what a browser on
    this machine uses), with or without a port; the embedder names anything else."""
    with TestClient(create_app(db_url, bot_delay=0.0)) as client:
        for host in ("localhost", "LocalHost:8000", "localhost.:80", "127.0.0.1",
                     "127.0.0.1:8000", "[::1]", "[::1]:8000", "[0:0::1]:9"):
            res = client.get("/api/tables", headers={"host": host})
            assert res.status_code == 200, (host, res.text)
        bad_host(client.get("/api/tables"))  # the TestClient's own "testserver"
        with client.websocket_connect("/ws/nothere", headers={"host": "localhost:8000"}) as ws:
            assert json.loads(ws.receive_text())["code"] == "table.no_such_table"


def test_allowed_names_pass_over_http_and_websocket(db_url: str) -> None:
    app = create_app(db_url, bot_delay=0.0, allowed_hosts=["testserver", "Games.Example."])
    with TestClient(app) as client:
        made = waiting(client)
        own = {"host": "games.example:8443", "origin": "http://games.example:8443"}
        res = client.post(f"/api/tables/{made['id']}/join", json={"name": "Fr"}, headers=own)
        assert res.status_code == 200, res.text
        assert client.get("/api/tables", headers={"host": "GAMES.example"}).status_code == 200
        with client.websocket_connect(f"/ws/{made['id']}", headers=own) as ws:
            assert SeatSocket(ws).hello(made["token"])["type"] == "sync"
        bad_host(client.get("/api/tables", headers={"host": "localhost"}))  # not named


def test_any_host_when_asked_for_explicitly(db_url: str) -> None:
    with TestClient(create_app(db_url, bot_delay=0.0, allowed_hosts=["*"])) as client:
        assert client.get("/api/tables", headers=REBIND).status_code == 200


def test_behind_a_proxy_the_forwarded_host_is_checked_too(db_url: str) -> None:
    """With ``proxy_headers`` every name in ``X-Forwarded-Host`` must be allowed as well as
    ``Host``: a forged header can get a request refused, never let in."""
    app = create_app(db_url, bot_delay=0.0, proxy_headers=True,
                     allowed_hosts=["127.0.0.1", "play.example"])
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        ok = client.get("/api/tables", headers={"x-forwarded-host": "play.example"})
        assert ok.status_code == 200, ok.text
        assert client.get("/api/tables").status_code == 200  # no header: Host alone
        bad_host(client.get("/api/tables", headers={"x-forwarded-host": "rebind.example"}))
        bad_host(client.get("/api/tables",
                            headers={"x-forwarded-host": "localhost, rebind.example"}))
        bad_host(client.get("/api/tables", headers={"host": "rebind.example",
                                                    "x-forwarded-host": "play.example"}))
        # the page's own origin is the forwarded host's
        res = client.post("/api/tables", json={"game": "spy-tracker", "players": 2,
                                               "seats": ["human", "human"]},
                          headers={"x-forwarded-host": "play.example",
                                   "x-forwarded-proto": "http",
                                   "origin": "http://play.example"})
        assert res.status_code == 201, res.text
    without = create_app(db_url, bot_delay=0.0, allowed_hosts=["127.0.0.1"])
    with TestClient(without, base_url="http://127.0.0.1:8000") as client:  # header ignored
        res = client.get("/api/tables", headers={"x-forwarded-host": "rebind.example"})
        assert res.status_code == 200, res.text


@pytest.mark.parametrize("text, name", [("Games.Example", "games.example"),
                                        ("games.example.", "games.example"),
                                        ("::1", "[::1]"), ("[0:0::1]", "[::1]"),
                                        ("0.0.0.0", "0.0.0.0"), ("*", "*")])
def test_host_names_are_normalised(text: str, name: str) -> None:
    assert normalise_host(text) == name


@pytest.mark.parametrize("text", ["games.example:8000", "https://games.example", "", ".",
                                  "games example", "gämes.example", "[::1]:80", "[zz]"])
def test_bad_allowed_hosts_stop_the_server_at_start(text: str) -> None:
    from fieldcraft.cli import build_parser
    from fieldcraft.server.__main__ import main

    with pytest.raises(ValueError):
        normalise_host(text)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--allowed-host", text])
    with pytest.raises(SystemExit):
        main(["--allowed-host", text])


@pytest.mark.parametrize("entry", ["cli", "module"])
def test_allowed_host_flags_reach_the_app(entry: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``--allowed-host`` (repeatable) is parsed by both entry points, and ``run`` adds the
    listening address and the loopback names to it."""
    import uvicorn

    import fieldcraft.server
    import fieldcraft.server.__main__ as module_main
    from fieldcraft.cli import main

    seen: dict[str, Any] = {}
    real_create = fieldcraft.server.create_app

    def spy(db_url: str | None = None, **options: Any) -> Any:
        seen.update(options)
        return real_create(db_url, **options)

    monkeypatch.setattr(fieldcraft.server, "create_app", spy)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    argv = ["--host", "192.168.1.5", "--db", str(tmp_path / "w.db"),
            "--allowed-host", "Games.Example", "--allowed-host", "[::2]", "--proxy-headers"]
    if entry == "cli":
        main(["serve", *argv])
    else:
        module_main.main(argv)
    assert set(seen["allowed_hosts"]) == {"localhost", "127.0.0.1", "[::1]", "192.168.1.5",
                                          "games.example", "[::2]"}
    assert seen["proxy_headers"] is True


def test_listening_on_every_address_says_which_names_it_answers_to() -> None:
    from fieldcraft.server import names_hint

    for host in ("0.0.0.0", "::", "[::]"):
        hint = names_hint(host, [])
        assert hint is not None and "--allowed-host" in hint
        assert names_hint(host, ["192.168.1.5"]) is None
    assert names_hint("127.0.0.1", []) is None and names_hint("games.example", []) is None


def test_listening_names() -> None:
    assert listening_names("127.0.0.1") == list(DEFAULT_ALLOWED_HOSTS)
    assert listening_names("::") == [*DEFAULT_ALLOWED_HOSTS, "[::]"]
    assert listening_names("games.example") == [*DEFAULT_ALLOWED_HOSTS, "games.example"]


def test_a_real_server_refuses_other_names(tmp_path: Path) -> None:
    """Through uvicorn: the real ``Host`` of a real request (the helpers and the benchmark
    name 127.0.0.1, which is allowed by default)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    srv = ServerProcess(f"sqlite:///{tmp_path / 'hosts.db'}",
                        args=["--allowed-host", "games.example"]).start()
    try:
        with httpx.Client(base_url=srv.base, timeout=10) as http:
            assert http.get("/api/tables").status_code == 200
            for host in ("localhost:1", "games.example", "games.example:8000"):
                assert http.get("/api/tables", headers={"host": host}).status_code == 200
            bad_host(http.get("/api/tables", headers={"host": f"rebind.example:{srv.port}"}))
            bad_host(http.post("/api/tables", json={"game": "spy-tracker"},
                               headers={"host": f"rebind.example:{srv.port}",
                                        "origin": f"http://rebind.example:{srv.port}"}))
            assert http.get("/api/tables").json()["tables"] == []
        url = f"ws://127.0.0.1:{srv.port}/ws/nothere"
        with connect(url, open_timeout=10, origin=f"http://rebind.example:{srv.port}",  # type: ignore[arg-type]
                     additional_headers={"Host": f"rebind.example:{srv.port}"}) as ws:
            reply = json.loads(ws.recv(timeout=10))
            assert reply["code"] == "auth.bad_host", reply
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400
    finally:
        srv.stop()
