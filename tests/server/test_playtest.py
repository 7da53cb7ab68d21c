"""Playtests (issue #33 item 1): a named variant stored by the designer, its public page in
three languages, "Play" making a tagged table through the ordinary table creation, and the
designer's token guarding the report and the close. Every refusal stores nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from fieldcraft.server import create_app
from fieldcraft.server import playtest as P
from fieldcraft.server.errors import TableError


@pytest.fixture
def fast(tmp_path: Path) -> Iterator[TestClient]:
    """Bots at once, and the stand-in bot at once for an absent person: a table with a person
    at it finishes without anyone playing."""
    app = create_app(f"sqlite:///{tmp_path / 'pt.db'}", allowed_hosts=["testserver"],
                     bot_delay=0.0, away_grace=0.0)
    with TestClient(app) as c:
        yield c


def engine_of(client: TestClient) -> Any:
    return client.app.state.hub.engine  # type: ignore[attr-defined]


def made_playtest(client: TestClient, name: str = "one-point",
                  players: list[int] | None = None) -> str:
    _, token = P.create(engine_of(client), name, "spy-tracker", players or [2, 3],
                        {"points_to_win": 1}, "random")
    return token


def table_rows(client: TestClient) -> list[tuple[Any, ...]]:
    with engine_of(client).connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text(
            "SELECT id, playtest, settings FROM game_tables ORDER BY created_at"))]


def refused(res: Any, status: int, code: str) -> None:
    assert res.status_code == status, res.text
    assert res.json()["error"]["code"] == code, res.text


def finish(client: TestClient, table_id: str) -> None:
    room = client.app.state.hub.rooms[table_id]  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60
    while room.status != "finished":
        assert time.monotonic() < deadline, "the game did not finish"
        time.sleep(0.01)


# -- making one -------------------------------------------------------------------------------
def test_create_stores_the_variant_and_only_the_token_hash(fast: TestClient) -> None:
    token = made_playtest(fast)
    found = P.read(engine_of(fast), "one-point")
    assert found is not None and found.open
    assert (found.game, found.min_players, found.max_players, found.bot) == \
        ("spy-tracker", 2, 3, "random")
    assert found.overrides == {"points_to_win": 1} and token not in found.designer_hash
    assert found.public()["changes"] == [{"key": "points_to_win", "default": 3, "value": 1}]
    assert "designer_hash" not in found.public()


@pytest.mark.parametrize("name, game, players, overrides, bot, code", [
    ("Bad_Name", "spy-tracker", [2], {}, "random", "playtest.bad_playtest"),
    ("-dash", "spy-tracker", [2], {}, "random", "playtest.bad_playtest"),
    ("x" * 41, "spy-tracker", [2], {}, "random", "playtest.bad_playtest"),
    ("ok", "chess", [2], {}, "random", "rules.unknown_game"),
    ("ok", "spy-tracker", [9], {}, "random", "playtest.bad_playtest"),
    ("ok", "spy-tracker", [2, 4], {}, "random", "playtest.bad_playtest"),
    ("ok", "spy-tracker", [2], {}, "nobody", "playtest.bad_playtest"),
    ("ok", "spy-tracker", [2], {"points_to_win": -1}, "random", "rules.bad_ruleset"),
    ("ok", "spy-tracker", [2], {"no_such_rule": 1}, "random", "rules.bad_ruleset"),
])
def test_a_bad_playtest_is_refused_and_nothing_is_stored(
        fast: TestClient, name: str, game: str, players: list[int],
        overrides: dict[str, Any], bot: str, code: str) -> None:
    with pytest.raises(Exception) as caught:
        P.create(engine_of(fast), name, game, players, overrides, bot)
    assert getattr(caught.value, "code", None) == code, caught.value
    with engine_of(fast).connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM playtests")).scalar() == 0


def test_a_taken_name_is_refused(fast: TestClient) -> None:
    made_playtest(fast)
    with pytest.raises(TableError) as caught:
        P.create(engine_of(fast), "one-point", "undercover", [2], {}, "random")
    assert caught.value.code == "playtest.exists"
    assert P.require(engine_of(fast), "one-point").game == "spy-tracker"


# -- the public page and Play -----------------------------------------------------------------
@pytest.mark.parametrize("lang, words, rule", [
    ("en", "Play", "Points needed to win"), ("ja", "遊ぶ", "勝利に必要な得点"),
    ("zh-Hant", "開始玩", "獲勝所需的分數")])
def test_the_page_shows_the_changes_the_rules_and_play(fast: TestClient, lang: str,
                                                       words: str, rule: str) -> None:
    made_playtest(fast)
    res = fast.get(f"/p/one-point?lang={lang}")
    assert res.status_code == 200
    html = res.text
    assert words in html and 'data-key="points_to_win"' in html
    assert f'<span class="rule-words">{rule}</span>' in html  # the change in words, then its key
    assert 'href="/games/spy-tracker/rules"' in html and "/static/playtest.js" in html


def test_an_unknown_playtest_page_is_a_404_page(fast: TestClient) -> None:
    res = fast.get("/p/nothing-here")
    assert res.status_code == 404 and "nothing-here" in res.text
    refused(fast.get("/api/playtests/nothing-here"), 404, "playtest.no_such_playtest")


def test_play_makes_a_tagged_table_that_asks_and_is_counted(fast: TestClient) -> None:
    made_playtest(fast)
    res = fast.post("/api/playtests/one-point/tables",
                    json={"seats": ["human", "bot", "bot"], "name": "Ann"})
    assert res.status_code == 201, res.text
    made = res.json()
    assert made["token"] and made["seat"] == 0 and made["playtest"] == "one-point"
    assert made["table"]["players"] == 3
    assert made["table"]["overrides"] == {"points_to_win": 1}
    assert [s["kind"] for s in made["table"]["seats"]] == ["human", "bot", "bot"]
    assert all(s["bot"] == "random" for s in made["table"]["seats"][1:])
    rows = table_rows(fast)
    assert len(rows) == 1 and rows[0][:2] == (made["id"], "one-point")
    assert '"feedback": true' in rows[0][2]
    finish(fast, made["id"])
    doc = fast.get("/api/playtests/one-point").json()
    assert doc["tables"]["made"] == 1 and doc["tables"]["finished"] == 1
    assert [g["id"] for g in doc["finished"]] == [made["id"]]
    assert doc["finished"][0]["replay"] == f"/t/{made['id']}/replay"
    assert f"/t/{made['id']}/replay" in fast.get("/p/one-point").text  # in the page's data
    assert fast.get(f"/api/tables/{made['id']}/feedback").json()["on"] is True
    res = fast.post(f"/api/tables/{made['id']}/feedback", json={
        "token": made["token"],
        "answers": {"fun": 5, "clarity": 4, "close": 2, "length": "right"}})
    assert res.status_code == 201, res.text


def test_a_rematch_of_a_playtest_table_is_one_of_its_tables(fast: TestClient) -> None:
    made_playtest(fast)
    made = fast.post("/api/playtests/one-point/tables", json={"seats": ["human", "bot"]}).json()
    finish(fast, made["id"])
    res = fast.post(f"/api/tables/{made['id']}/rematch", json={"token": made["token"]})
    assert res.status_code == 201, res.text
    again = res.json()["id"]
    assert [r[1] for r in table_rows(fast)] == ["one-point", "one-point"]
    finish(fast, again)
    doc = fast.get("/api/playtests/one-point").json()
    assert doc["tables"]["made"] == 2 and doc["tables"]["finished"] == 2
    assert fast.get(f"/api/tables/{again}/feedback").json()["on"] is True


def test_an_ordinary_table_is_not_a_playtests(fast: TestClient) -> None:
    made_playtest(fast)
    res = fast.post("/api/tables", json={"game": "spy-tracker", "players": 2})
    assert res.status_code == 201
    assert table_rows(fast)[0][1] is None
    assert fast.get("/api/playtests/one-point").json()["tables"]["made"] == 0


@pytest.mark.parametrize("body, status, code", [
    ({"seats": ["human"]}, 400, "request.bad_seats"),  # below the playtest's range
    ({"seats": ["human", "bot", "bot", "bot"]}, 400, "request.bad_seats"),  # above it
    ({"seats": ["bot", "bot"]}, 400, "request.bad_seats"),  # nobody to ask
    ({"seats": ["human", "bot:ismcts"]}, 400, "request.bad_seats"),  # the designer's bot only
    ({"seats": ["human", {"kind": "bot"}]}, 400, "request.bad_seats"),
    ({"seats": "human,bot"}, 400, "request.bad_request"),
    ({}, 400, "request.bad_request"),
    ({"seats": ["human", "bot"], "game": "undercover"}, 400, "request.bad_request"),
    ({"seats": ["human", "bot"], "name": "a\u202eb"}, 400, "request.bad_name"),
])
def test_a_bad_play_is_refused_and_makes_no_table(fast: TestClient, body: dict[str, Any],
                                                  status: int, code: str) -> None:
    made_playtest(fast)
    refused(fast.post("/api/playtests/one-point/tables", json=body), status, code)
    assert table_rows(fast) == []


def test_play_of_an_unknown_playtest_is_refused(fast: TestClient) -> None:
    refused(fast.post("/api/playtests/none/tables", json={"seats": ["human", "bot"]}),
            404, "playtest.no_such_playtest")
    refused(fast.post("/api/playtests/BAD NAME/tables", json={"seats": ["human", "bot"]}),
            404, "playtest.no_such_playtest")
    assert table_rows(fast) == []


# -- the designer -----------------------------------------------------------------------------
def test_the_report_and_the_close_need_the_designers_token(fast: TestClient) -> None:
    token = made_playtest(fast)
    other = made_playtest(fast, "other")
    for path in ("report", "close"):
        refused(fast.post(f"/api/playtests/one-point/{path}", json={}), 403, "auth.bad_token")
        refused(fast.post(f"/api/playtests/one-point/{path}", json={"token": other}), 403,
                "auth.bad_token")
        refused(fast.post(f"/api/playtests/one-point/{path}", json={"token": 3}), 403,
                "auth.bad_token")
        refused(fast.post(f"/api/playtests/nope/{path}", json={"token": token}), 404,
                "playtest.no_such_playtest")
    assert P.require(engine_of(fast), "one-point").open
    report = fast.post("/api/playtests/one-point/report", json={"token": token})
    assert report.status_code == 200, report.text
    doc = report.json()
    assert doc["human_games"] == 0 and doc["feedback"]["count"] == 0
    assert {"minutes", "seats", "bots", "text"} <= set(doc)


def test_a_closed_playtest_makes_no_tables(fast: TestClient) -> None:
    token = made_playtest(fast)
    res = fast.post("/api/playtests/one-point/close", json={"token": token})
    assert res.status_code == 200 and res.json()["status"] == "closed"
    assert not P.require(engine_of(fast), "one-point").open
    refused(fast.post("/api/playtests/one-point/tables", json={"seats": ["human", "bot"]}),
            409, "playtest.closed")
    assert table_rows(fast) == []
    again = fast.post("/api/playtests/one-point/close", json={"token": token})
    assert again.status_code == 200
    assert 'id="playtest-closed"' in fast.get("/p/one-point").text
