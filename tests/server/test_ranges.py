"""Integer ranges (issue 31, finding 2): an ``act`` with an action id from 2^31 to 2^53, sent
by the seat to move, reached the compiled legality check, which raised ``OverflowError``:
``server.internal_error`` and a logged traceback per message, in all four games. Every integer
a client sends is now checked against its range when it is read, and the room holds an action
id to its game's action space before the engine sees it."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fieldcraft.core.registry import load_game
from fieldcraft.server.protocol import MAX_ACTION_ID
from fieldcraft.server.routes.requests import INT_MAX
from tests.server.helpers import SeatSocket, create_table

GAMES = ["under-current", "spy-tracker", "against-the-current", "undercover"]
SAFE = 2**53 - 1


def seated_table(client: TestClient, game: str) -> tuple[dict[str, Any], list[str], list[Any],
                                                         list[SeatSocket]]:
    players = load_game(game).num_players
    made = create_table(client, game=game, players=players, seats=["human"] * players, seed=5)
    tokens = [made["token"]] + [
        client.post(f"/api/tables/{made['id']}/join", json={}).json()["token"]
        for _ in range(players - 1)]
    contexts, seats = [], []
    for token in tokens:
        ctx = client.websocket_connect(f"/ws/{made['id']}")
        seat = SeatSocket(ctx.__enter__())
        assert seat.hello(token)["type"] == "sync"
        contexts.append(ctx)
        seats.append(seat)
    return made, tokens, contexts, seats


def reply_to(seat: SeatSocket, doc: dict[str, Any]) -> dict[str, Any]:
    seat.send(doc)
    return seat.until(lambda m: m["type"] in ("error", "ack", "sync", "pong"))


@pytest.mark.seeded_tables
@pytest.mark.parametrize("game", GAMES)
def test_action_ids_beyond_the_game_are_refused_before_the_engine(
        client: TestClient, game: str, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    made, tokens, contexts, seats = seated_table(client, game)
    room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
    try:
        mover = room.state.current_player()
        me = seats[mover]
        me.my_turn()
        version, before = room.version, room.state.to_json()
        seen: list[Any] = []
        prepare = room.table.prepare
        monkeypatch.setattr(room.table, "prepare",
                            lambda moves, rng: seen.append(moves) or prepare(moves, rng))
        top = room.table.game.num_distinct_actions()
        caplog.set_level(logging.ERROR)
        for action, code in ((2**31, "request.out_of_range"), (SAFE, "request.out_of_range"),
                             (MAX_ACTION_ID + 1, "request.out_of_range"),
                             (top, "rules.illegal_action"),
                             (MAX_ACTION_ID, "rules.illegal_action")):
            reply = reply_to(me, {"type": "act", "token": tokens[mover], "version": version,
                                  "action": action, "id": "x"})
            assert reply["type"] == "error" and reply["code"] == code, (action, reply)
            assert reply["id"] == "x" and str(action) in reply["message"]
        assert seen == []  # no id outside the action space reached the engine
        assert room.version == version and room.state.to_json() == before
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        pong = reply_to(me, {"type": "ping", "token": tokens[mover], "id": 1})
        assert pong["type"] == "pong"  # the socket lives on
        legal = me.view["choices"][0]["action"]  # and a real move still goes through
        ack = reply_to(me, {"type": "act", "token": tokens[mover], "version": version,
                            "action": legal})
        assert ack["type"] == "ack", ack
    finally:
        for ctx in contexts:
            ctx.__exit__(None, None, None)


@pytest.mark.seeded_tables
def test_every_integer_field_of_a_message_has_a_range(client: TestClient) -> None:
    made, tokens, contexts, seats = seated_table(client, "spy-tracker")
    room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
    try:
        me = seats[room.state.current_player()]
        token = tokens[room.state.current_player()]
        version, before = room.version, room.state.to_json()
        cases: list[tuple[dict[str, Any], str]] = [
            ({"type": "sync", "token": token, "pending_version": 0,
              "pending_action": 2**31}, "request.out_of_range"),
            ({"type": "sync", "token": token, "last_version": -1}, "request.bad_message"),
            ({"type": "act", "token": token, "version": SAFE, "action": 0},
             "move.stale_version"),  # any JSON-safe count is a version, just not this one
            ({"type": "act", "token": token, "version": version, "action": -1},
             "request.bad_message"),
        ]
        for doc, code in cases:
            reply = reply_to(me, doc)
            assert reply["type"] == "error" and reply["code"] == code, (doc, reply)
        synced = reply_to(me, {"type": "sync", "token": token, "last_version": SAFE,
                               "pending_version": SAFE, "pending_action": MAX_ACTION_ID})
        assert synced["type"] == "sync" and synced["pending"]["landed"] is False
        assert room.version == version and room.state.to_json() == before
    finally:
        for ctx in contexts:
            ctx.__exit__(None, None, None)
    with client.websocket_connect(f"/ws/{made['id']}") as ws:  # a first message, too
        seat = SeatSocket(ws)
        seat.send({"type": "hello", "pending_version": 1, "pending_action": 2**40})
        assert seat.recv()["code"] == "request.out_of_range"


def finished_table(client: TestClient) -> str:
    made = create_table(client, game="spy-tracker", players=2, seats=["bot", "bot"])
    deadline = time.monotonic() + 60
    while client.get(f"/api/tables/{made['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.05)
    return str(made["id"])


def test_integer_query_parameters_have_ranges(client: TestClient) -> None:
    """A seat given as thousands of digits used to reach ``int()``, which refuses more than
    4300 digits with an exception: ``server.internal_error`` instead of an answer."""
    tid = finished_table(client)
    huge = "9" * 5000
    for path, code in [(f"/api/tables/{tid}/replay?seat={huge}", "request.bad_seat"),
                       (f"/api/tables/{tid}/replay?seat=99999999999", "request.bad_seat"),
                       (f"/api/tables/{tid}/deduction?seat={huge}", "request.bad_seat"),
                       (f"/api/tables/{tid}/replay?step=-2", "request.bad_request"),
                       (f"/api/tables/{tid}/replay?step={INT_MAX + 1}", "request.bad_request"),
                       (f"/api/tables/{tid}/replay?step={huge}", "request.bad_request"),
                       (f"/api/tables/{tid}/analysis?step={2**31}", "request.bad_request"),
                       (f"/api/tables?offset={2**31}", "request.bad_request")]:
        res = client.get(path)
        assert res.status_code == 400, (path[:80], res.text)
        assert res.json()["error"]["code"] == code, (path[:80], res.text)
    assert client.get(f"/api/tables/{tid}/replay?step={INT_MAX}").json()["step"] > 0  # the end
    assert client.get(f"/api/tables?offset={INT_MAX}").json()["tables"] == []


@pytest.mark.seeded_tables
def test_integer_body_fields_have_ranges(client: TestClient) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    tables = set(hub.rooms)
    base = {"game": "spy-tracker", "players": 2, "seats": ["human", "human"]}
    for body, code in [({**base, "players": 2**40}, "request.bad_players"),
                       ({**base, "seat": 2**40}, "request.bad_seat"),
                       ({**base, "seat": -1}, "request.bad_seat"),
                       ({**base, "turn_seconds": SAFE}, "request.bad_timer")]:
        res = client.post("/api/tables", json=body)
        assert res.status_code == 400 and res.json()["error"]["code"] == code, (body, res.text)
    assert set(hub.rooms) == tables
    res = client.post("/api/tables", json={**base, "seed": -SAFE})  # any JSON-safe seed
    assert res.status_code == 201, res.text
    made = res.json()
    room = hub.rooms[made["id"]]
    seats = room.seats.public()
    for body, code in [({"seat": 2**40}, "request.bad_seat"), ({"seat": -5}, "request.bad_seat")]:
        res = client.post(f"/api/tables/{made['id']}/join", json=body)
        assert res.status_code == 400 and res.json()["error"]["code"] == code, (body, res.text)
    assert room.seats.public() == seats
    res = client.post("/api/rulesets/check", json={"game": "spy-tracker", "players": 2**40,
                                                   "overrides": {}})
    assert res.status_code == 400 and res.json()["error"]["code"] == "request.out_of_range"
    tid = finished_table(client)
    for body, code in [({"step": 2**40, "seat": 0}, "request.bad_step"),
                       ({"step": 1, "seat": 2**40}, "request.bad_seat")]:
        res = client.post(f"/api/tables/{tid}/branch", json=body)
        assert res.status_code == 400 and res.json()["error"]["code"] == code, (body, res.text)
