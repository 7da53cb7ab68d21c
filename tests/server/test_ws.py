"""The WebSocket game channel: tokens, turns, legality, schema, size, reconnects, spectators."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fieldcraft.core.registry import load_game
from tests.server.helpers import SeatSocket, create_table

pytestmark = pytest.mark.seeded_tables  # its tables are seeded: reproducible deals


def two_player_table(client: TestClient, game: str = "spy-tracker", **extra: Any
                     ) -> tuple[str, str, str]:
    """A two-person table (seed fixed): returns (table id, seat 0 token, seat 1 token)."""
    made = create_table(client, game=game, players=2, seats=["human", "human"], seed=11,
                        **extra)
    joined = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bo"}).json()
    return made["id"], made["token"], joined["token"]


def server_state(client: TestClient, table_id: str) -> Any:
    return client.app.state.hub.rooms[table_id].state


def connect(client: TestClient, table_id: str, token: str | None,
            last_version: int | None = None) -> tuple[Any, SeatSocket]:
    ctx = client.websocket_connect(f"/ws/{table_id}")
    ws = ctx.__enter__()
    seat = SeatSocket(ws)
    first = seat.hello(token, last_version)
    assert first["type"] == "sync", first
    return ctx, seat


def expect_error(seat: SeatSocket, doc: dict[str, Any] | str, code: str) -> dict[str, Any]:
    seat.send(doc)
    reply = seat.until(lambda m: m["type"] == "error")
    assert reply["code"] == code, reply
    assert reply["message"]
    return reply


def test_first_message_must_be_hello(client: TestClient) -> None:
    tid, _, _ = two_player_table(client)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        seat = SeatSocket(ws)
        expect_error(seat, {"type": "ping"}, "auth.hello_required")
        expect_error(seat, {"type": "hello", "token": "not-a-token"}, "auth.bad_token")
        assert seat.hello()["type"] == "sync"  # still usable after refusals


def test_unknown_table(client: TestClient) -> None:
    with client.websocket_connect("/ws/nothere") as ws:
        reply = SeatSocket(ws).recv()
        assert reply["type"] == "error" and reply["code"] == "table.no_such_table"


def test_seat_sees_own_hand_and_choices_only_on_its_turn(client: TestClient) -> None:
    tid, tok0, tok1 = two_player_table(client)
    c0, s0 = connect(client, tid, tok0)
    c1, s1 = connect(client, tid, tok1)
    try:
        state = server_state(client, tid)
        mover = state.current_player()
        movers = {0: s0, 1: s1}
        view = movers[mover].my_turn()
        other = movers[1 - mover]
        other.until_version(movers[mover].version or 0)
        assert other.view is not None and other.view["choices"] == []
        assert view["observation"] == state.observation(mover)
        assert other.view["observation"] == state.observation(1 - mover)
        assert view["observation"]["hand"] != other.view["observation"]["hand"]
        labels = [c["label"] for c in view["choices"]]
        assert labels == [state.action_to_string(a) for a in state.legal_actions()]
        assert s0.messages[0]["you"] == {"seat": 0, "name": "Host", "rematch": None}
    finally:
        c0.__exit__(None, None, None)
        c1.__exit__(None, None, None)


def play_one(seat: SeatSocket, token: str, use_text: bool = False) -> dict[str, Any]:
    view = seat.my_turn()
    action, label = view["choices"][0]["action"], view["choices"][0]["label"]
    doc: dict[str, Any] = {"type": "act", "token": token, "version": seat.version, "id": "m1"}
    if use_text:
        doc["action_text"] = label
    else:
        doc["action"] = action
    seat.send(doc)
    ack = seat.until(lambda m: m["type"] in ("ack", "error"))
    assert ack["type"] == "ack", ack
    assert ack["id"] == "m1"
    seat.until_version(ack["version"])
    return ack


def test_bad_messages_change_nothing(client: TestClient) -> None:
    tid, tok0, tok1 = two_player_table(client)
    c0, s0 = connect(client, tid, tok0)
    c1, s1 = connect(client, tid, tok1)
    try:
        state = server_state(client, tid)
        mover = state.current_player()
        me, them = (s0, s1) if mover == 0 else (s1, s0)
        my_tok, their_tok = (tok0, tok1) if mover == 0 else (tok1, tok0)
        me.my_turn()
        them.until_version(me.version or 0)
        before = server_state(client, tid).to_json()
        version = me.version
        legal = set(server_state(client, tid).legal_actions())
        illegal = next(a for a in range(10_000) if a not in legal)
        good = me.view["choices"][0]["action"]
        cases = [
            (me, {"type": "act", "token": their_tok, "version": version, "action": good},
             "auth.bad_token"),
            (me, {"type": "act", "version": version, "action": good}, "request.bad_message"),
            (them, {"type": "act", "token": their_tok, "version": version, "action": good},
             "move.not_your_turn"),
            (me, {"type": "act", "token": my_tok, "version": version, "action": illegal},
             "rules.illegal_action"),
            (me, {"type": "act", "token": my_tok, "version": version - 1, "action": good},
             "move.stale_version"),
            (me, {"type": "act", "token": my_tok, "version": version,
                  "action_text": "launch the rockets"}, "rules.malformed_action"),
            (me, {"type": "act", "token": my_tok, "version": version, "action": good,
                  "action_text": "call"}, "request.bad_message"),
            (me, {"type": "act", "token": my_tok, "version": version, "action": "1"},
             "request.bad_message"),
            (me, {"type": "act", "token": my_tok, "version": version, "action": True},
             "request.bad_message"),
            (me, {"type": "act", "token": my_tok, "version": version, "action": -3},
             "request.bad_message"),
            (me, {"type": "act", "token": my_tok, "version": version, "action": good,
                  "extra": 1}, "request.bad_message"),
            (me, {"type": "dance", "token": my_tok}, "request.unknown_type"),
            (me, {"token": my_tok}, "request.bad_message"),
            (me, "[1, 2, 3]", "request.bad_json"),
            (me, "{oops", "request.bad_json"),
            (me, json.dumps({"type": "act", "token": my_tok, "version": version,
                             "action": good, "id": "x" * 17000}), "request.too_large"),
            (me, {"type": "hello", "token": my_tok}, "request.bad_message"),
            (me, {"type": "sync", "last_version": 0}, "auth.bad_token"),
            (me, {"type": "ping"}, "auth.bad_token"),
            (me, {"type": "back"}, "request.bad_message"),
            (me, {"type": "back", "token": their_tok}, "auth.bad_token"),
        ]
        for seat, doc, code in cases:
            expect_error(seat, doc, code)
            assert server_state(client, tid).to_json() == before, code
        assert client.app.state.hub.rooms[tid].version == version
        # ...and the table still works afterwards.
        ack = play_one(me, my_tok)
        assert ack["version"] > version
    finally:
        c0.__exit__(None, None, None)
        c1.__exit__(None, None, None)


def test_binary_frames_are_read_like_text(client: TestClient) -> None:
    tid, tok0, _ = two_player_table(client)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        seat = SeatSocket(ws)
        ws.send_bytes(json.dumps({"type": "hello", "token": tok0}).encode())
        assert seat.recv()["type"] == "sync"
        ws.send_bytes(b"\xff\xfe")
        assert seat.until(lambda m: m["type"] == "error")["code"] == "request.bad_json"


def test_spectator_gets_public_view_and_cannot_act(client: TestClient) -> None:
    made = create_table(client, game="under-current", players=4,
                        seats=["human", "bot", "bot", "bot"], seed=3)
    tid = made["id"]
    c0, me = connect(client, tid, made["token"])
    cs, spy = connect(client, tid, None)
    try:
        me.my_turn()
        spy.until_version(me.version or 0)
        state = server_state(client, tid)
        obs = spy.view["observation"]
        assert obs == state.observation(None)
        assert obs["hand"] is None and obs["role"] is None
        assert spy.view["choices"] == []
        assert spy.messages[0]["you"] is None
        lines = [e["line"] for e in spy.log]
        assert lines and not any("you" in line.split() for line in lines)
        assert not any(name in line for line in lines for name in state.game.role_names)
        expect_error(spy, {"type": "act", "version": me.version, "action": 0},
                     "request.bad_message")
        expect_error(spy, {"type": "act", "token": made["token"], "version": me.version,
                           "action": 0}, "auth.spectator")
        expect_error(spy, {"type": "back", "token": made["token"]}, "auth.spectator")
        expect_error(spy, {"type": "ping", "token": "x"}, "auth.bad_token")
        spy.send({"type": "ping"})
        assert spy.until(lambda m: m["type"] == "pong")["version"] == me.version
    finally:
        c0.__exit__(None, None, None)
        cs.__exit__(None, None, None)


def test_act_by_text_and_full_game_to_the_end(client: TestClient) -> None:
    tid, tok0, tok1 = two_player_table(client)
    c0, s0 = connect(client, tid, tok0)
    c1, s1 = connect(client, tid, tok1)
    try:
        seats = {0: (s0, tok0), 1: (s1, tok1)}
        moves = 0
        while True:
            room = client.app.state.hub.rooms[tid]
            if room.status == "finished":
                break
            player = room.state.current_player()
            if player < 0:
                s0.recv()
                continue
            seat, tok = seats[player]
            play_one(seat, tok, use_text=moves % 2 == 0)
            moves += 1
            assert moves < 2000
        for seat in (s0, s1):
            seat.until_version(room.version)
            assert seat.view["terminal"] and seat.view["result"]["winners"]
            assert seat.view["status"] == "finished"
        info = client.get(f"/api/tables/{tid}").json()
        assert info["status"] == "finished" and info["result"]["winners"]
        state = server_state(client, tid)
        expect_error(s0, {"type": "act", "token": tok0, "version": s0.version, "action": 0},
                     "table.game_over")
        # the finished game replays from any seat's point of view
        total = len(state.history())
        res = client.get(f"/api/tables/{tid}/replay?seat=1&step=5").json()
        assert res["steps"] == total and res["step"] == 5
        replayed = state.game.replay(state.history()[:5])
        assert res["observation"] == replayed.observation(1)
        end = client.get(f"/api/tables/{tid}/replay?seat=").json()
        assert end["observation"] == state.observation(None) and end["step"] == total
        assert client.get(f"/api/tables/{tid}/replay?seat=9").status_code == 400
        # "²" is a digit to str.isdigit but no int: refused, not a server error
        odd = client.get(f"/api/tables/{tid}/replay", params={"seat": "²"})
        assert odd.status_code == 400 and odd.json()["error"]["code"] == "request.bad_seat"
        bad = client.get(f"/api/tables/{tid}/replay?step=abc")
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "request.bad_request"
        assert client.get(f"/t/{tid}/replay").status_code == 200
    finally:
        c0.__exit__(None, None, None)
        c1.__exit__(None, None, None)


def test_reconnect_gets_what_it_missed(client: TestClient) -> None:
    tid, tok0, tok1 = two_player_table(client)
    c0, s0 = connect(client, tid, tok0)
    c1, s1 = connect(client, tid, tok1)
    try:
        seats = {0: (s0, tok0), 1: (s1, tok1)}
        room = client.app.state.hub.rooms[tid]
        s0.until_version(room.version)
        left_at = s0.version
        log_before = list(s0.log)
        c0.__exit__(None, None, None)
        # seat 1 keeps playing while seat 0 is away (only seat 1's turns)
        played = 0
        for _ in range(3):
            if room.state.current_player() != 1:
                break
            play_one(s1, tok1)
            played += 1
        assert room.version > left_at or played == 0
        c0, s0 = connect(client, tid, tok0, last_version=left_at)
        sync = s0.messages[0]
        assert sync["since"] == left_at and sync["version"] == room.version
        assert all(e["version"] > left_at for e in sync["events"])
        # the missed lines are exactly what a fresh connection sees after left_at
        cf, fresh = connect(client, tid, tok0)
        full = fresh.messages[0]
        assert full["since"] == 0
        assert log_before + sync["events"] == full["events"]
        assert sync["view"] == full["view"]
        cf.__exit__(None, None, None)
        # a version from the future (another server's database) gets the whole log
        cx, sx = connect(client, tid, tok0, last_version=room.version + 100)
        assert sx.messages[0]["since"] == 0
        cx.__exit__(None, None, None)
        seats[0] = (s0, tok0)
    finally:
        c0.__exit__(None, None, None)
        c1.__exit__(None, None, None)


def test_two_connections_for_one_seat_both_get_updates(client: TestClient) -> None:
    tid, tok0, tok1 = two_player_table(client)
    ca, a = connect(client, tid, tok0)
    cb, b = connect(client, tid, tok0)
    c1, s1 = connect(client, tid, tok1)
    try:
        room = client.app.state.hub.rooms[tid]
        mover = room.state.current_player()
        if mover == 0:
            play_one(a, tok0)
        else:
            play_one(s1, tok1)
        target = room.version
        a.until_version(target)
        b.until_version(target)
        assert a.view == b.view
    finally:
        for ctx in (ca, cb, c1):
            ctx.__exit__(None, None, None)


@pytest.mark.parametrize("game", ["against-the-current", "undercover"])
def test_other_games_play_through_the_server(client: TestClient, game: str) -> None:
    """Any registered game works with no server change: here two bots and a spectator."""
    made = create_table(client, game=game, players=2, seats=["bot", "bot"], seed=2)
    cs, spy = connect(client, made["id"], None)
    try:
        spy.until(lambda m: m.get("view", {}).get("terminal", False), timeout=60)
        state = server_state(client, made["id"])
        assert spy.view["observation"] == state.observation(None)
        assert state.is_terminal()
        same = load_game(game, players=2).replay(state.history())
        assert same == state
    finally:
        cs.__exit__(None, None, None)


def test_silent_connection_is_closed(client: TestClient,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.websockets import WebSocketDisconnect

    import fieldcraft.server.routes.live as live

    monkeypatch.setattr(live, "HELLO_TIMEOUT", 0.2)
    tid, _, _ = two_player_table(client)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        seat = SeatSocket(ws)
        reply = seat.recv(5)
        assert reply["type"] == "error" and reply["code"] == "auth.hello_required"
        with pytest.raises(WebSocketDisconnect):
            seat.recv(5)


@pytest.mark.parametrize("game", ["under-current", "spy-tracker", "against-the-current",
                                  "undercover"])
def test_action_ids_past_the_end_are_refused_not_fatal(client: TestClient, game: str) -> None:
    """An action id beyond every action of the game is refused like any illegal move and
    changes nothing. The table used to write the move's log lines before the engine checked
    it, and Under Current's line for such an id raised IndexError: the socket closed with no
    answer (found by the leak audit, tests/server/test_leak_audit.py)."""
    players = load_game(game).num_players
    made = create_table(client, game=game, players=players, seats=["human"] * players, seed=5)
    tokens = [made["token"]] + [
        client.post(f"/api/tables/{made['id']}/join", json={}).json()["token"]
        for _ in range(players - 1)]
    contexts, seats = zip(*(connect(client, made["id"], t) for t in tokens), strict=True)
    try:
        mover = server_state(client, made["id"]).current_player()
        me = seats[mover]
        me.my_turn()
        before = server_state(client, made["id"]).to_json()
        top = load_game(game, players=players).num_distinct_actions()
        for action in (top, top + 7, 10**6):
            expect_error(me, {"type": "act", "token": tokens[mover], "version": me.version,
                              "action": action}, "rules.illegal_action")
        me.send({"type": "ping", "token": tokens[mover], "id": 1})
        assert me.until(lambda m: m["type"] == "pong")["id"] == 1  # the socket lives on
        assert server_state(client, made["id"]).to_json() == before
    finally:
        for ctx in contexts:
            ctx.__exit__(None, None, None)
