"""Who can find a table and what its deals can be known by (issue 19, findings 1 and 3).

Seeded deals (every draw ``Random(f"{seed}/{version}")``, so the host can foresee every hidden
card) only on a server started with ``--allow-seeded-tables``, and then announced to every seat
and in the replay; unseeded deals come from the operating system's CSPRNG. Tables are private
unless the host ticks "public": listed nowhere, found only by their 128-bit link or their
80-bit join code; the lobby lists public tables only, a page at a time.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from fieldcraft.server import create_app, store
from tests.server.helpers import SeatSocket, create_table, migration_head

ID_RE = re.compile(r"^[A-Za-z0-9_-]{22}$")  # token_urlsafe(16): 128 bits
CODE_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$")  # 80 bits


def wait_finished(client: TestClient, table_id: str, timeout: float = 60.0) -> None:
    room = client.app.state.hub.rooms[table_id]
    deadline = time.monotonic() + timeout
    while room.status != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.02)


# -- finding 1: seeded deals ----------------------------------------------------------------------
def test_a_seed_is_refused_unless_the_server_allows_seeded_tables(client: TestClient) -> None:
    res = client.post("/api/tables", json={"game": "spy-tracker", "players": 2,
                                           "seats": ["human", "bot"], "seed": 7})
    assert res.status_code == 403, res.text
    assert res.json()["error"]["code"] == "request.seed_not_allowed"
    assert "--allow-seeded-tables" in res.json()["error"]["message"]
    assert client.app.state.hub.rooms == {}  # nothing was created
    # a seed of the wrong type is still a plain bad request
    res = client.post("/api/tables", json={"game": "spy-tracker", "seed": "x"})
    assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_request"


@pytest.mark.seeded_tables
def test_a_seeded_table_tells_every_seat_the_page_and_the_replay(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                        seed=5, name="Ann")
    tid = made["id"]
    assert made["table"]["seeded"] is True
    bea = client.post(f"/api/tables/{tid}/join", json={"seat": 1, "name": "Bea"}).json()
    assert client.get(f"/api/tables/{tid}").json()["seeded"] is True
    for token in (made["token"], bea["token"], None):  # both seats and a spectator
        with client.websocket_connect(f"/ws/{tid}") as ws:
            sync = SeatSocket(ws).hello(token)
            assert sync["type"] == "sync" and sync["table"]["seeded"] is True
            assert "seed" not in sync["table"]  # the fact, never the seed itself
    page = client.get(f"/t/{tid}").text
    assert 'id="seeded-notice"' in page and "predict every hidden card" in page
    ja = client.get(f"/t/{tid}?lang=ja").text
    assert 'id="seeded-notice"' in ja and "シード固定のテーブル" in ja

    bots = create_table(client, game="spy-tracker", players=2, seats=["bot", "bot"], seed=6)
    wait_finished(client, bots["id"])
    replay = client.get(f"/api/tables/{bots['id']}/replay?seat=0&step=3").json()
    assert replay["seeded"] is True
    assert 'id="seeded-notice"' in client.get(f"/t/{bots['id']}/replay").text


def test_an_unseeded_table_says_so_and_draws_from_the_system_csprng(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["bot", "bot"])
    tid = made["id"]
    assert made["table"]["seeded"] is False
    assert 'id="seeded-notice"' not in client.get(f"/t/{tid}").text
    room = client.app.state.hub.rooms[tid]
    rng = room.driver.chance_rng(1)
    # the OS generator: no state that could be rebuilt from seen cards or replayed
    assert isinstance(rng, random.SystemRandom)
    with pytest.raises(NotImplementedError):
        rng.getstate()
    wait_finished(client, tid)
    replay = client.get(f"/api/tables/{tid}/replay").json()
    assert replay["seeded"] is False
    assert 'id="seeded-notice"' not in client.get(f"/t/{tid}/replay").text


def test_serve_has_the_allow_seeded_tables_option(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import fieldcraft.server
    import fieldcraft.server.__main__ as server_main
    from fieldcraft import cli

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(fieldcraft.server, "run", lambda **kw: calls.append(kw))
    monkeypatch.setattr(server_main, "run", lambda *a, **kw: calls.append(kw))
    assert cli.main(["serve"]) == 0
    assert cli.main(["serve", "--allow-seeded-tables"]) == 0
    server_main.main(["--allow-seeded-tables"])
    server_main.main([])
    assert [c["allow_seeded_tables"] for c in calls] == [False, True, True, False]
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    assert "--allow-seeded-tables" in capsys.readouterr().out


# -- finding 3: private by default ----------------------------------------------------------------
def test_tables_are_private_unless_the_host_ticks_public(client: TestClient) -> None:
    private = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    public = create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                          public=True)
    assert private["table"]["public"] is False and public["table"]["public"] is True
    listed = client.get("/api/tables").json()
    assert [t["id"] for t in listed["tables"]] == [public["id"]]
    assert private["id"] not in json.dumps(listed)
    assert private["join_code"] not in json.dumps(listed)
    assert private["id"] not in client.get("/").text
    # the link and the code still reach it: they are the invitation
    info = client.get(f"/api/tables/{private['id']}").json()
    assert info["status"] == "waiting" and info["join_code"] == private["join_code"]
    page = client.get(private["url"]).text
    assert private["join_code"] in page and 'data-public="no"' in page
    assert 'data-public="yes"' in client.get(public["url"]).text
    found = client.get(f"/api/codes/{private['join_code']}").json()
    assert found == {"id": private["id"], "url": private["url"]}
    joined = client.post(f"/api/tables/{private['id']}/join", json={"name": "Bea"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1
    res = client.post("/api/tables", json={"game": "spy-tracker", "public": "yes"})
    assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_request"


def test_private_finished_games_are_not_listed_either(client: TestClient) -> None:
    private = create_table(client, game="spy-tracker", players=2, seats=["bot", "bot"])
    public = create_table(client, game="spy-tracker", players=2, seats=["bot", "bot"],
                          public=True)
    wait_finished(client, private["id"])
    wait_finished(client, public["id"])
    finished = client.get("/api/tables").json()["finished"]
    assert [t["id"] for t in finished] == [public["id"]]
    # its replay is still there for whoever has the link
    res = client.get(f"/api/tables/{private['id']}/replay")
    assert res.status_code == 200 and res.json()["steps"] > 0


@pytest.mark.no_limits
def test_ids_and_join_codes_cannot_be_guessed(client: TestClient) -> None:
    made = [create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
            for _ in range(30)]
    ids = [m["id"] for m in made]
    codes = [m["join_code"] for m in made]
    assert all(ID_RE.match(i) for i in ids), ids
    assert all(CODE_RE.match(c) for c in codes), codes
    assert len(set(ids)) == len(set(codes)) == 30
    for m in made:
        assert m["join_code"].replace("-", "") not in m["id"]  # not derived from the id
    # typed by a person: any case, no dashes, O/I/L for 0/1
    code = codes[0]
    for typed in (code.lower(), code.replace("-", ""), " " + code.replace("-", " ") + " ",
                  code.replace("0", "o").replace("1", "l")):
        assert client.get(f"/api/codes/{typed}").json()["id"] == ids[0], typed
    for wrong in ("0000-0000-0000-0000", ids[0], code[:-1], "U" * 16, "x"):
        res = client.get(f"/api/codes/{wrong}")
        assert res.status_code == 404, wrong
        assert res.json()["error"]["code"] == "table.no_such_table"
    res = client.get("/api/tables/" + "A" * 22)
    assert res.status_code == 404 and res.json()["error"]["code"] == "table.no_such_table"


@pytest.mark.no_limits
def test_the_lobby_list_is_public_only_and_a_page_at_a_time(client: TestClient) -> None:
    public = [create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                           public=True)["id"] for _ in range(60)]
    for _ in range(5):
        create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    res = client.get("/api/tables")
    first = res.json()
    assert len(first["tables"]) == 50 and first["next_offset"] == 50
    assert len(res.content) < 40_000  # 50 tables of 2 seats: ~20 KB
    assert "join_code" not in first["tables"][0]
    second = client.get("/api/tables?offset=50").json()
    assert len(second["tables"]) == 10 and second["next_offset"] is None
    seen = [t["id"] for t in first["tables"] + second["tables"]]
    assert seen == public[::-1]  # newest first, each once, no private table
    assert [t["id"] for t in client.get("/api/tables?limit=5").json()["tables"]] == seen[:5]
    for bad in ("limit=0", "limit=101", "offset=-1", "limit=x"):
        res = client.get(f"/api/tables?{bad}")
        assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_request"


def test_the_lobby_offers_the_public_checkbox(client: TestClient) -> None:
    page = client.get("/").text
    box = re.search(r'<input id="public-table"[^>]*>', page)
    assert box and "checked" not in box.group(0)  # private unless ticked
    assert "Public: list this table in the lobby" in page
    assert "公開" in client.get("/?lang=ja").text


def _alembic_upgrade(engine: sa.Engine, revision: str) -> None:
    from importlib import resources

    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location",
                        str(resources.files("fieldcraft.server").joinpath("migrations")))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def test_an_old_database_upgrades_its_tables_private_with_fresh_codes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = store.make_engine(url)
    _alembic_upgrade(engine, "0001")  # the schema before private tables
    stamp = store.now()
    with engine.begin() as conn:
        for tid in ("oldTab01", "oldTab02"):
            conn.execute(sa.text(
                "INSERT INTO game_tables (id, game, players, overrides, settings, status, "
                "host_hash, version, result, created_at, updated_at) VALUES (:id, "
                "'spy-tracker', 2, '{}', '{}', 'waiting', NULL, 0, NULL, :t, :t)"),
                {"id": tid, "t": stamp})
            for seat in (0, 1):
                conn.execute(sa.text("INSERT INTO seats (table_id, seat, kind) VALUES "
                                     "(:id, :seat, 'human')"), {"id": tid, "seat": seat})
    engine.dispose()
    with TestClient(create_app(url, allowed_hosts=["testserver"], bot_delay=0.0)) as client:
        assert client.get("/api/tables").json()["tables"] == []  # nobody chose to list them
        info = client.get("/api/tables/oldTab01").json()  # the old link still works
        assert info["public"] is False and CODE_RE.match(info["join_code"])
        other = client.get("/api/tables/oldTab02").json()["join_code"]
        assert other != info["join_code"]
        assert client.get(f"/api/codes/{info['join_code']}").json()["id"] == "oldTab01"
        joined = client.post("/api/tables/oldTab01/join", json={"name": "Ann"})
        assert joined.status_code == 200
    engine = store.make_engine(url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() \
            == migration_head()
    engine.dispose()
