"""Turn timer and absent players: a stand-in bot plays for a seat until its person returns."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import SeatSocket, create_table

pytestmark = pytest.mark.seeded_tables  # its tables are seeded: reproducible deals


def wait_for(pred, timeout: float = 10.0) -> None:  # noqa: ANN001 - a small polling helper
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def table_with_timer(client: TestClient, seconds: float | None, away_bot: bool = True
                     ) -> tuple[str, str, object]:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "bot"],
                        seed=4, turn_seconds=30 if seconds else None, away_bot=away_bot)
    room = client.app.state.hub.rooms[made["id"]]
    room.settings["turn_seconds"] = seconds  # the API's minimum is 5 s; tests need it short
    client.app.state.hub.away_grace = 0.2  # and the grace for someone who left
    return made["id"], made["token"], room


def test_timeout_hands_the_seat_to_a_bot_until_back(client: TestClient) -> None:
    tid, token, room = table_with_timer(client, 0.3)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        me = SeatSocket(ws)
        me.hello(token)
        me.my_turn()
        assert me.view["deadline_in"] is not None and me.view["deadline_in"] <= 0.3
        first_turn = me.version
        away = me.until(lambda m: m["type"] == "presence" and m["seats"][0]["away"])
        assert away["seats"][0]["connected"] is True
        # the stand-in bot plays seat 0's turn
        me.until(lambda m: m["type"] == "update" and m["version"] > (first_turn or 0))
        wait_for(lambda: room.version > first_turn + 1)
        room.settings["turn_seconds"] = None
        me.send({"type": "back", "token": token})
        me.until(lambda m: m["type"] == "presence" and not m["seats"][0]["away"])
        view = me.my_turn()
        assert view["choices"]
        still = room.version
        time.sleep(0.5)  # no timer now: the table waits for the person
        assert room.version == still
    from fieldcraft.server import store

    actions = store.read_all_actions(room.hub.engine, tid)
    assert len(actions) >= first_turn + 1


def test_absent_player_is_played_by_a_bot_and_resumes(client: TestClient) -> None:
    tid, token, room = table_with_timer(client, 5.0)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        me = SeatSocket(ws)
        me.hello(token)
        me.my_turn()
    # gone: after the short grace the bot plays seat 0 and the game goes on without them
    wait_for(lambda: room.seats[0].away, timeout=5)
    wait_for(lambda: room.status == "finished", timeout=30)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        me = SeatSocket(ws)
        sync = me.hello(token, last_version=0)
        assert sync["view"]["terminal"]
        assert sync["view"]["seats"][0]["away"] is False


def test_without_timer_a_connected_player_is_waited_for(client: TestClient) -> None:
    tid, token, room = table_with_timer(client, None)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        me = SeatSocket(ws)
        me.hello(token)
        me.my_turn()
        assert me.view["deadline_in"] is None
        version = room.version
        time.sleep(0.6)
        assert room.version == version and not room.seats[0].away


def test_without_timer_a_player_who_left_is_played_by_a_bot(client: TestClient) -> None:
    tid, token, room = table_with_timer(client, None)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        me = SeatSocket(ws)
        me.hello(token)
        me.my_turn()
        version = room.version
    wait_for(lambda: room.version > version, timeout=5)  # after the 0.2 s grace of the tests
    assert room.seats[0].away


def test_away_bot_off_and_no_timer_waits_for_whoever_left(client: TestClient) -> None:
    tid, token, room = table_with_timer(client, None, away_bot=False)
    assert client.get(f"/api/tables/{tid}").json()["away_bot"] is False
    with client.websocket_connect(f"/ws/{tid}") as ws:
        me = SeatSocket(ws)
        me.hello(token)
        me.my_turn()
    version = room.version
    time.sleep(0.6)
    assert room.version == version and not room.seats[0].away
