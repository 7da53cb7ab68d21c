"""The JSON API and the pages: creating tables, joining, starting, refusals, languages."""

from __future__ import annotations

import importlib
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fieldcraft.core.registry import game_spec, list_games
from fieldcraft.server import i18n
from tests.server.helpers import create_table


def test_games_lists_every_registered_game(client: TestClient) -> None:
    data = client.get("/api/games").json()
    # in the lobby's order (frame change: the games' lobby_order, then id)
    assert [g["id"] for g in data["games"]] == sorted(
        list_games(), key=lambda name: (game_spec(name).lobby_order, name))
    assert "random" in data["bots"]
    uc = next(g for g in data["games"] if g["id"] == "under-current")
    assert (uc["min_players"], uc["max_players"]) == (3, 8)
    assert "min_players" not in uc["ruleset"]


def test_create_table_with_bots_starts_at_once(client: TestClient) -> None:
    made = create_table(client, game="under-current", players=4,
                        seats=["human", "bot", "bot:random", {"kind": "bot", "bot": "random"}],
                        name="Ann")
    assert made["seat"] == 0 and made["token"] == made["host_token"]
    assert made["url"] == f"/t/{made['id']}" and made["join_code"] != made["id"]
    assert client.get(f"/api/codes/{made['join_code']}").json()["id"] == made["id"]
    info = client.get(f"/api/tables/{made['id']}").json()
    assert info["status"] == "playing"
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "bot", "bot"]
    assert info["seats"][0]["name"] == "Ann"
    assert all("token" not in key for s in info["seats"] for key in s)


def test_tokens_are_stored_hashed(client: TestClient, db_url: str) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    joined = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bo"}).json()
    path = db_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        dump = "\n".join(conn.iterdump())
    for token in (made["token"], joined["token"]):
        assert token not in dump
    import hashlib
    assert hashlib.sha256(joined["token"].encode()).hexdigest() in dump


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"game": "chess"}, 400, "rules.unknown_game"),
    ({"game": "under-current", "players": 2}, 400, "request.bad_players"),
    ({"game": "under-current", "players": 9}, 400, "request.bad_players"),
    ({"game": "under-current", "players": 3, "seats": ["human"]}, 400, "request.bad_seats"),
    ({"game": "under-current", "players": 3, "seats": ["human", "bot", "wizard"]}, 400,
     "request.bad_seats"),
    ({"game": "under-current", "players": 3, "seats": ["human", "bot:nobody", "bot"]}, 400,
     "request.unknown_bot"),
    ({"game": "under-current", "players": 3, "overrides": {"no_such_rule": 1}}, 400,
     "rules.bad_ruleset"),
    ({"game": "under-current", "players": 3, "overrides": {"hand_size": "two"}}, 400,
     "rules.bad_ruleset"),
    ({"game": "under-current", "players": 3, "turn_seconds": 1}, 400, "request.bad_timer"),
    ({"game": "under-current", "players": "three"}, 400, "request.bad_request"),
    ({"game": "under-current", "colour": "blue"}, 400, "request.bad_request"),
    ({"game": "under-current", "players": 3, "seats": ["bot", "bot", "human"], "seat": 0}, 400,
     "request.bad_seat"),
    ({"players": 3}, 400, "request.bad_request"),
    ({"game": "under-current", "players": 3, "away_bot": "yes"}, 400, "request.bad_request"),
    ({"game": "under-current", "players": 3, "seed": True}, 400, "request.bad_request"),
])
def test_create_table_refusals(client: TestClient, body: dict, status: int, code: str) -> None:
    # every table the server has (tables are private by default, so the lobby list is not)
    before = set(client.app.state.hub.rooms)
    res = client.post("/api/tables", json=body)
    assert res.status_code == status, res.text
    assert res.json()["error"]["code"] == code
    assert res.json()["error"]["message"]
    assert set(client.app.state.hub.rooms) == before


def test_bad_bodies(client: TestClient) -> None:
    res = client.post("/api/tables", content=b"{not json",
                      headers={"content-type": "application/json"})
    assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_json"
    res = client.post("/api/tables", json=[1, 2])
    assert res.json()["error"]["code"] == "request.bad_json"
    big = {"game": "under-current", "name": "x" * 20000}
    res = client.post("/api/tables", json=big)
    assert res.status_code == 413 and res.json()["error"]["code"] == "request.too_large"
    assert client.app.state.hub.rooms == {}  # no table at all (the lobby lists public ones)


@pytest.mark.seeded_tables
def test_ruleset_overrides_are_applied(client: TestClient) -> None:
    made = create_table(client, game="under-current", players=3, overrides={"hand_size": 3},
                        seats=["bot", "bot", "bot"], seed=5)
    assert made["table"]["overrides"] == {"hand_size": 3}
    assert made["seat"] is None and made["token"] is None


def test_join_flow_and_refusals(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=3,
                        seats=["human", "human", "human"], name="Host")
    tid = made["id"]
    assert client.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    res = client.post(f"/api/tables/{tid}/join", json={"seat": 0, "name": "Eve"})
    assert res.status_code == 409 and res.json()["error"]["code"] == "table.seat_taken"
    res = client.post(f"/api/tables/{tid}/join", json={"seat": 7})
    assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_seat"
    res = client.post(f"/api/tables/{tid}/join", json={"seat": 1, "name": "B" * 41})
    assert res.status_code == 400
    res = client.post(f"/api/tables/{tid}/join", json={"seat": 1, "name": "Bea", "x": 1})
    assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_request"
    one = client.post(f"/api/tables/{tid}/join", json={"seat": 1, "name": "Bea"}).json()
    assert one["seat"] == 1 and one["token"] and one["token"] != made["token"]
    assert client.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    two = client.post(f"/api/tables/{tid}/join", json={"name": "Cy"}).json()
    assert two["seat"] == 2
    assert client.get(f"/api/tables/{tid}").json()["status"] == "playing"
    res = client.post(f"/api/tables/{tid}/join", json={})
    assert res.status_code == 409 and res.json()["error"]["code"] == "table.not_waiting"
    res = client.post("/api/tables/nope/join", json={})
    assert res.status_code == 404 and res.json()["error"]["code"] == "table.no_such_table"


def test_host_can_start_with_bots(client: TestClient) -> None:
    made = create_table(client, game="under-current", players=3,
                        seats=["human", "human", "human"])
    tid = made["id"]
    res = client.post(f"/api/tables/{tid}/start", json={"token": "wrong"})
    assert res.status_code == 403 and res.json()["error"]["code"] == "auth.bad_token"
    assert client.get(f"/api/tables/{tid}").json()["status"] == "waiting"
    res = client.post(f"/api/tables/{tid}/start", json={"token": made["host_token"]})
    assert res.status_code == 200
    info = client.get(f"/api/tables/{tid}").json()
    assert info["status"] == "playing"
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "bot"]
    res = client.post(f"/api/tables/{tid}/start", json={"token": made["host_token"]})
    assert res.status_code == 409


def test_lobby_lists_tables(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                        public=True)  # the lobby lists public tables only
    listed = client.get("/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [made["id"]]
    assert listed[0]["seats"][1]["claimed"] is False


def test_pages_render(client: TestClient) -> None:
    made = create_table(client, game="under-current", players=3, seats=["human", "bot", "bot"])
    lobby = client.get("/")
    assert lobby.status_code == 200 and "create-form" in lobby.text
    page = client.get(made["url"])
    assert page.status_code == 200 and made["id"] in page.text
    missing = client.get("/t/doesnotexist")
    assert missing.status_code == 404
    assert client.get("/static/table.js").status_code == 200


def test_names_cannot_inject_markup(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                        name="</script><script>alert(1)</script>")
    page = client.get(made["url"]).text
    assert "<script>alert(1)</script>" not in page


@pytest.mark.parametrize(("lang", "word"), [("ja", "ロビー"), ("zh-Hant", "大廳"), ("en", "Lobby")])
def test_language_choice(client: TestClient, lang: str, word: str) -> None:
    page = client.get(f"/?lang={lang}")
    assert word in page.text and f'lang="{lang}"' in page.text
    assert page.cookies.get("lang") == lang
    again = client.get("/")  # the cookie keeps the choice
    assert word in again.text


def test_accept_language_picks_japanese(client: TestClient) -> None:
    page = client.get("/", headers={"accept-language": "ja-JP,ja;q=0.9"})
    assert "ロビー" in page.text


def test_catalogues_have_the_same_keys() -> None:
    english = set(i18n._load_frame("en"))
    for lang in i18n.LANGUAGES:
        assert set(i18n._load_frame(lang)) == english, lang
    for name in list_games():
        spec = game_spec(name)
        words = set(i18n._game_file(spec.package, spec.messages, "en")) | {"title"}
        for lang in set(i18n.LANGUAGES) - {"en"}:  # English titles come from the SPEC
            assert set(i18n._game_file(spec.package, spec.messages, lang)) == words, (name, lang)
    assert i18n.game_messages(game_spec("under-current"), "ja")["row"] == "中央ファイル列"
    assert i18n.Translator("ja")("game.under-current") == "アンダーカレント"


def test_every_template_key_is_in_the_catalogue() -> None:
    """Every key the frame's templates and scripts ask with ``t(...)`` is in the frame's
    catalogue, and every key a game's board asks with ``T(...)`` is in that game's."""
    import re
    folder = Path(__file__).resolve().parents[2] / "fieldcraft" / "server"
    english = set(i18n._load_frame("en"))
    used: set[str] = set()
    board_keys = 0
    for path in list((folder / "templates").glob("*.html")) + list(
            (folder / "static").glob("*.js")):
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_.-]+)["']""", path.read_text()))
    for name in list_games():
        spec = game_spec(name)
        if spec.board is None:
            continue
        board = Path(importlib.import_module(spec.package).__file__).parent / spec.board
        text = board.read_text()
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_.-]+)["']""", text))
        asked = set(re.findall(r"""\bT\(\s*["']([a-z_.-]+)["']""", text))
        words = set(i18n._game_file(spec.package, spec.messages, "en"))
        assert not sorted(asked - words), (name, sorted(asked - words))
        board_keys += len(asked)
    missing = sorted(k for k in used if k not in english and not k.endswith("."))
    assert not missing, missing
    assert len(used) + board_keys > 40


def test_replay_only_for_finished_games(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    res = client.get(f"/api/tables/{made['id']}/replay")
    assert res.status_code == 409 and res.json()["error"]["code"] == "table.not_finished"
