"""The frame around the boards, at the HTTP and WebSocket level: table chat (write, read,
limits, stored across a restart), rematch, the ruleset check, the lobby's game catalogue, the
games' pictures and rules pages, and the re-check of a move lost with its socket."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fieldcraft.core import registry, text
from fieldcraft.server import create_app
from fieldcraft.server.protocol import CHAT_MAX_CHARS
from tests.server.helpers import SeatSocket, create_table


def two_people(client: TestClient, game: str = "spy-tracker") -> tuple[str, str, str]:
    made = create_table(client, game=game, players=2, seats=["human", "human"], name="Ann")
    joined = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bo"}).json()
    return made["id"], made["token"], joined["token"]


def connect(client: TestClient, table_id: str, token: str | None,
            **hello: Any) -> tuple[Any, SeatSocket]:
    ctx = client.websocket_connect(f"/ws/{table_id}")
    seat = SeatSocket(ctx.__enter__())
    doc: dict[str, Any] = {"type": "hello", **hello}
    if token is not None:
        doc["token"] = token
    seat.send(doc)
    first = seat.recv()
    assert first["type"] == "sync", first
    return ctx, seat


def error_of(seat: SeatSocket, doc: dict[str, Any]) -> dict[str, Any]:
    seat.send(doc)
    return seat.until(lambda m: m["type"] == "error")


# -- chat --------------------------------------------------------------------------------------
def test_chat_is_written_by_seats_read_by_all_checked_and_kept_across_a_restart(
        db_url: str) -> None:
    app = create_app(db_url, allowed_hosts=["testserver"], bot_delay=0.0, away_grace=30.0)
    with TestClient(app) as client:
        tid, tok0, tok1 = two_people(client)
        c0, s0 = connect(client, tid, tok0)
        cs, spec = connect(client, tid, None)
        try:
            assert s0.messages[0]["chat"] == []
            s0.send({"type": "chat", "token": tok0, "text": " <b>hi</b> & bye ", "id": "c1"})
            got = spec.until(lambda m: m["type"] == "chat")["message"]
            assert got["seat"] == 0 and got["text"] == "<b>hi</b> & bye" and got["phrase"] is None
            assert s0.until(lambda m: m["type"] == "ack")["id"] == "c1"
            s0.send({"type": "chat", "token": tok0, "phrase": "gg"})
            assert spec.until(lambda m: m["type"] == "chat")["message"]["phrase"] == "gg"
            # a spectator reads but cannot write
            assert error_of(spec, {"type": "chat", "text": "hello"})["code"] == "auth.spectator"
            assert error_of(spec, {"type": "chat", "token": "x", "text": "hello"})["code"] \
                == "auth.spectator"
            # too long, empty, a control character, an unknown phrase, both or neither
            for doc, code in (
                    ({"text": "x" * (CHAT_MAX_CHARS + 1)}, "chat.too_long"),
                    ({"text": "   "}, "chat.empty"),
                    ({"text": "a\nb"}, "chat.bad_text"),
                    ({"phrase": "nice_bluff"}, "chat.unknown_phrase"),
                    ({"text": "a", "phrase": "gg"}, "request.bad_message"),
                    ({}, "request.bad_message")):
                assert error_of(s0, {"type": "chat", "token": tok0, **doc})["code"] == code
            assert len(client.app.state.hub.rooms[tid].chat) == 2  # nothing refused was kept
            # the rate: a burst, then refused with a time to wait
            codes = []
            for i in range(6):
                s0.send({"type": "chat", "token": tok0, "text": f"m{i}", "id": f"c{i + 10}"})
                reply = s0.until(lambda m: m["type"] in ("ack", "error"))
                codes.append(reply.get("code", "ok"))
            assert "chat.too_fast" in codes and codes[0] == "ok"
            refused = [m for m in s0.messages if m.get("code") == "chat.too_fast"][0]
            assert refused["retry_after"] > 0
            kept = [c.text or c.phrase for c in client.app.state.hub.rooms[tid].chat]
        finally:
            c0.__exit__(None, None, None)
            cs.__exit__(None, None, None)
    # a new server on the same database: the chat is still there, in order
    app = create_app(db_url, allowed_hosts=["testserver"], bot_delay=0.0, away_grace=30.0)
    with TestClient(app) as client:
        c1, s1 = connect(client, tid, tok1)
        try:
            chat = s1.messages[0]["chat"]
            assert [m["text"] or m["phrase"] for m in chat] == kept
            assert [m["seq"] for m in chat] == list(range(1, len(kept) + 1))
            assert {m["version"] for m in chat} == {client.app.state.hub.rooms[tid].version}
        finally:
            c1.__exit__(None, None, None)


# -- a move lost with its socket ------------------------------------------------------------------
def test_a_hello_asks_whether_a_pending_move_landed(client: TestClient) -> None:
    tid, tok0, tok1 = two_people(client)
    c0, s0 = connect(client, tid, tok0)
    try:
        room = client.app.state.hub.rooms[tid]
        while room.state.current_player() != 0 or not s0.view or not s0.view["choices"]:
            if room.state.current_player() == 1:
                c1, s1 = connect(client, tid, tok1)
                view = s1.my_turn()
                s1.send({"type": "act", "token": tok1, "version": s1.version,
                         "action": view["choices"][0]["action"]})
                s1.until(lambda m: m["type"] == "ack")
                c1.__exit__(None, None, None)
            s0.recv()
        at = s0.version
        action = s0.view["choices"][0]["action"]
    finally:
        c0.__exit__(None, None, None)
    # not sent: the table is still at that version
    c0, s0 = connect(client, tid, tok0, last_version=at, pending_version=at,
                     pending_action=action)
    assert s0.messages[0]["pending"] == {"version": at, "action": action, "landed": False}
    s0.send({"type": "act", "token": tok0, "version": at, "action": action})
    s0.until(lambda m: m["type"] == "ack")
    c0.__exit__(None, None, None)
    # sent: the history holds it
    c0, s0 = connect(client, tid, tok0, last_version=at, pending_version=at,
                     pending_action=action)
    assert s0.messages[0]["pending"]["landed"] is True
    c0.__exit__(None, None, None)


@pytest.mark.no_limits  # it asks about every version at machine speed
def test_a_seat_is_told_only_whether_its_own_move_landed(client: TestClient) -> None:
    """The re-check answers for the asking seat's own moves only: asked about the other
    seat's move or a chance draw (the deal), even with the action really played there, it
    says ``landed: false``, so asking every action at every version rebuilds nothing."""
    tid, tok0, tok1 = two_people(client)
    room = client.app.state.hub.rooms[tid]
    c0, s0 = connect(client, tid, tok0)
    c1, s1 = connect(client, tid, tok1)
    try:
        for _ in range(6):  # a few moves of each seat (Spy Tracker: one move a turn)
            mover = room.state.current_player()
            sock, tok = (s0, tok0) if mover == 0 else (s1, tok1)
            sock.until_version(room.version)
            view = sock.my_turn()
            sock.send({"type": "act", "token": tok, "version": sock.version,
                       "action": view["choices"][0]["action"]})
            sock.until(lambda m: m["type"] == "ack")
        history, movers = room.table.history(), []
        replay = room.table.game.new_initial_state()
        for action in history:
            movers.append(replay.current_player())
            replay.apply_action(action)
        assert -1 in movers and 0 in movers and 1 in movers  # chance, and both seats
        for version, (action, mover) in enumerate(zip(history, movers, strict=True)):
            for seat, sock, tok in ((0, s0, tok0), (1, s1, tok1)):
                sock.send({"type": "sync", "token": tok, "last_version": room.version,
                           "pending_version": version, "pending_action": action})
                answer = sock.until(lambda m: m["type"] == "sync")["pending"]
                assert answer["landed"] is (mover == seat), (version, mover, seat)
    finally:
        c0.__exit__(None, None, None)
        c1.__exit__(None, None, None)


# -- rematch ------------------------------------------------------------------------------
def test_rematch_makes_one_table_like_the_last_and_seats_each_asker(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=3,
                        seats=["human", "bot:heuristic", "human"], name="Ann",
                        overrides={"points_to_win": 1}, turn_seconds=60)
    tid, tok0 = made["id"], made["token"]
    tok2 = client.post(f"/api/tables/{tid}/join", json={"name": "Cy"}).json()["token"]
    # not before the end, and not for a spectator or a wrong token
    early = client.post(f"/api/tables/{tid}/rematch", json={"token": tok0})
    assert early.status_code == 409 and early.json()["error"]["code"] == "table.not_finished"
    bad = client.post(f"/api/tables/{tid}/rematch", json={"token": "nope"})
    assert bad.status_code == 403 and bad.json()["error"]["code"] == "auth.not_seated"
    room = client.app.state.hub.rooms[tid]
    # a chat message written mid-game is shown in the replay from its step on
    c2, s2 = connect(client, tid, tok2)
    s2.send({"type": "chat", "token": tok2, "phrase": "thinking", "id": "c1"})
    s2.until(lambda m: m["type"] == "ack")
    said_at = room.chat[0].version
    c2.__exit__(None, None, None)
    assert said_at > 0
    deadline = time.monotonic() + 60
    while room.status != "finished":
        assert time.monotonic() < deadline
        seat = room.state.current_player()
        if seat not in (0, 2):  # the bot's turn (or a draw): it moves by itself
            time.sleep(0.005)
            continue
        tok = {0: tok0, 2: tok2}[seat]
        ctx, s = connect(client, tid, tok)
        if s.view["choices"]:
            s.send({"type": "act", "token": tok, "version": s.version,
                    "action": s.view["choices"][0]["action"]})
            s.until(lambda m: m["type"] in ("ack", "error"))
        ctx.__exit__(None, None, None)
    replay = f"/api/tables/{tid}/replay?seat=2&step="
    assert client.get(replay + str(said_at - 1)).json()["chat"] == []
    assert [m["phrase"] for m in client.get(replay + str(said_at)).json()["chat"]] == ["thinking"]
    watch_ctx, watcher = connect(client, tid, tok0)
    spy_ctx, spy = connect(client, tid, None)
    try:
        first = client.post(f"/api/tables/{tid}/rematch", json={"token": tok2})
        assert first.status_code == 201, first.text
        new = first.json()
        assert new["created"] and new["seat"] == 2 and new["host_token"] == new["token"]
        info = new["table"]
        assert info["game"] == "spy-tracker" and info["players"] == 3
        assert info["overrides"] == {"points_to_win": 1} and info["turn_seconds"] == 60
        assert [(s["kind"], s["bot"]) for s in info["seats"]] == \
            [("human", None), ("bot", "heuristic"), ("human", None)]
        assert info["status"] == "waiting"
        assert [s["claimed"] for s in info["seats"]] == [False, True, True]
        # the other player's page is told, and their seat waits for them; the rematch is
        # private and offered to the players only: not in the public table info, not to a
        # spectator, and its seats cannot be taken by anyone holding its id or join code
        told = watcher.until(lambda m: m["type"] == "rematch")
        assert told["url"] == new["url"]
        assert "rematch" not in client.get(f"/api/tables/{tid}").json()
        assert info["public"] is False
        watcher.send({"type": "sync", "token": tok0, "last_version": room.version})
        assert watcher.until(lambda m: m["type"] == "sync")["you"]["rematch"] == new["url"]
        spy.send({"type": "sync", "last_version": room.version})
        synced = spy.until(lambda m: m["type"] == "sync")
        assert synced["you"] is None and "rematch" not in synced["table"]
        assert not any(m["type"] == "rematch" for m in spy.messages)
        assert new["id"] not in "".join(spy.raw) and new["id"] not in client.get(f"/t/{tid}").text
        for seat in (None, 0):
            body = {} if seat is None else {"seat": seat}
            stolen = client.post(f"/api/tables/{new['id']}/join", json=body)
            assert stolen.status_code == 403, stolen.text
            assert stolen.json()["error"]["code"] == "auth.seat_reserved"
        second = client.post(f"/api/tables/{tid}/rematch", json={"token": tok0})
        assert second.status_code == 200 and second.json()["id"] == new["id"]
        assert second.json()["seat"] == 0 and not second.json()["created"]
        assert client.get(f"/api/tables/{new['id']}").json()["status"] == "playing"
    finally:
        watch_ctx.__exit__(None, None, None)
        spy_ctx.__exit__(None, None, None)


# -- the ruleset check ---------------------------------------------------------------------------
def test_ruleset_check_names_the_key_at_fault_and_creates_nothing(client: TestClient) -> None:
    before = len(client.app.state.hub.rooms)
    ok = client.post("/api/rulesets/check", json={
        "game": "spy-tracker", "players": 3, "overrides": {"points_to_win": 2}})
    assert ok.status_code == 200 and ok.json()["ok"] is True
    for overrides, key in (({"points_to_win": "two"}, "points_to_win"),
                           ({"max_bid": "everything"}, "max_bid"),  # the game's own check
                           ({"no_such_rule": 1}, "no_such_rule")):
        res = client.post("/api/rulesets/check", json={
            "game": "spy-tracker", "players": 3, "overrides": overrides})
        assert res.status_code == 400, res.text
        error = res.json()["error"]
        assert error["code"] == "rules.bad_ruleset" and error["key"] == key, error
        assert key in error["message"]
    res = client.post("/api/rulesets/check", json={"game": "chess", "overrides": {}})
    assert res.json()["error"]["code"] == "rules.unknown_game"
    assert len(client.app.state.hub.rooms) == before


# -- the lobby's games: order, pictures, rules pages --------------------------------------
@pytest.fixture
def pictured_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Spy Tracker's folder copied as a new game that declares an icon, a rules page (with
    markup that must not pass) and ``lobby_order`` 0; the registry is restored afterwards."""
    import fieldcraft.games as games
    from tests.test_fifth_game import NEW_ID, NEW_PACKAGE, copy_game

    folder = copy_game(tmp_path)
    package = folder / NEW_PACKAGE
    init = package / "__init__.py"
    source = re.sub(r"\n\s*(icon|rules_pages|lobby_order)=[^\n]*,", "", init.read_text())
    init.write_text(source.replace(
        'board="board.js",', 'board="board.js", icon="icon.svg", rules_pages="rules", '
        'lobby_order=0,'))
    (package / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" '
                                      'viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>')
    shutil.rmtree(package / "rules", ignore_errors=True)
    (package / "rules").mkdir()
    (package / "rules" / "en.md").write_text(
        "# Double Agents\n\nBid on the **spies**.\n\n<script>alert(1)</script>\n\n"
        "[bad](javascript:alert(1))\n")
    (package / "rules" / "ja.md").write_text("# ダブルエージェント\n\nスパイの数を宣言する。\n")
    monkeypatch.setattr(games, "__path__", [*games.__path__, str(folder)])
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    monkeypatch.setattr(registry, "_SEARCHED", set(registry._SEARCHED))
    assert NEW_ID in registry.list_games()
    yield NEW_ID


def test_lobby_catalogue_pictures_and_rules_pages(client: TestClient, pictured_game: str
                                                  ) -> None:
    games = client.get("/api/games").json()["games"]
    assert games[0]["id"] == pictured_game  # lobby_order 0 comes first
    ja = {g["id"]: g for g in client.get("/api/games?lang=ja").json()["games"]}
    for game in games:
        words = text.game_messages(registry.game_spec(game["id"]), "ja")
        assert ja[game["id"]]["about"] == words.get("about")
        assert ja[game["id"]]["name"] == words["title"]
    first = games[0]
    assert first["icon"] == f"/games/{pictured_game}/icon.svg" and first["rules"] is True
    assert first["ruleset_values"]["max_bid"] == ["cards_in_play", "deck"]
    plain = [g for g in games if g["id"] == "spy-tracker"][0]
    spec = registry.game_spec("spy-tracker")
    assert (plain["icon"] is None) == (spec.icon is None)
    icon = client.get(first["icon"])
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert client.get(f"/games/{pictured_game}/rules/en.md").status_code == 404
    page = client.get(f"/games/{pictured_game}/rules?lang=en")
    assert page.status_code == 200
    assert "<strong>spies</strong>" in page.text and 'id="rules-page"' in page.text
    assert "<script>alert" not in page.text and "&lt;script&gt;" in page.text
    assert 'href="javascript:' not in page.text
    ja = client.get(f"/games/{pictured_game}/rules?lang=ja")
    assert "スパイの数を宣言する" in ja.text
    zh = client.get(f"/games/{pictured_game}/rules?lang=zh-Hant")  # no zh page: English
    assert "<strong>spies</strong>" in zh.text
    # every real game: the catalogue says whether it has a rules page, and the route agrees
    for game in games:
        has = registry.game_spec(game["id"]).rules_pages is not None
        assert game["rules"] == has
        assert client.get(f"/games/{game['id']}/rules").status_code == (200 if has else 404)
    assert client.get("/games/no-such-game/rules").status_code == 404
