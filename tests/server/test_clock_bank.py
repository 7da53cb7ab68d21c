"""Time banks (issue #34 item 5): each seat's bank counts down on its turn, gains the increment
when its turn passes, and a bank that runs out hands the seat to the stand-in bot, as the
per-turn timer does (tests/server/test_timer.py). Time is driven by the server's clock seam
(``create_app(clock=...)``), so the counts are exact and nothing sleeps to count."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fieldcraft.server import create_app, store
from fieldcraft.server.limits import LimitSettings
from tests.server.helpers import SeatSocket, create_table

BANK = {"bank": 60, "increment": 5}


class FakeClock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake() -> FakeClock:
    return FakeClock()


def make_client(db_url: str, fake: FakeClock) -> TestClient:
    # no limits: their token buckets read the same frozen clock and would never refill
    app = create_app(db_url, allowed_hosts=["testserver"], bot_delay=0.0, away_grace=30.0,
                     allow_seeded_tables=True, limits=LimitSettings.unlimited(), clock=fake)
    return TestClient(app)


@pytest.fixture
def client(db_url: str, fake: FakeClock) -> Iterator[TestClient]:
    with make_client(db_url, fake) as c:
        yield c


def wait_for(pred: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def bank_table(client: TestClient, seats: list[str] | None = None, **extra: Any
               ) -> dict[str, Any]:
    return create_table(client, game="spy-tracker", players=len(seats or "hb"),
                        seats=seats or ["human", "bot"], seed=4, clock=BANK, **extra)


def play_turn(me: SeatSocket, token: str) -> None:
    """Play this seat's whole turn (a Spy Tracker turn is two actions), first choice each
    time, until another seat is to move."""
    view = me.my_turn()
    seat = view["current_player"]
    while view["current_player"] == seat and view["choices"]:
        me.send({"type": "act", "token": token, "version": me.version,
                 "action": view["choices"][0]["action"]})
        me.until(lambda m: m["type"] == "ack")
        me.until(lambda m: m["type"] == "update")
        assert me.view is not None
        view = me.view


def test_the_running_bank_counts_down_and_gains_the_increment(client: TestClient,
                                                              fake: FakeClock) -> None:
    made = bank_table(client)
    assert made["table"]["clock"] == BANK and made["table"]["turn_seconds"] is None
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        me = SeatSocket(ws)
        me.hello(made["token"])
        view = me.my_turn()
        assert view["banks"] == {"left": [60.0, 60.0], "running": 0, "increment": 5.0}
        assert 0 < view["deadline_in"] <= 60
        fake.advance(12.5)
        me.send({"type": "sync", "token": made["token"]})
        sync = me.until(lambda m: m["type"] == "sync")
        assert sync["view"]["banks"]["left"] == [47.5, 60.0]
        play_turn(me, made["token"])
        fake.advance(100)  # while the bot is to move nobody's bank runs... (it moves at once)
        me.view = None
        view = me.my_turn()
        # ...and seat 0's turn passed once: 60 - 12.5 + 5; the bot's seat is never charged
        assert view["banks"] == {"left": [52.5, 60.0], "running": 0, "increment": 5.0}


def test_a_bank_that_runs_out_hands_the_seat_to_the_stand_in(client: TestClient) -> None:
    made = bank_table(client)
    room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
    room.bank.left[0] = 0.2  # the API's minimum is 10 s; the timeout itself runs in real time
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        me = SeatSocket(ws)
        me.hello(made["token"])
        first = me.version or 0
        away = me.until(lambda m: m["type"] == "presence" and m["seats"][0]["away"])
        assert away["banks"]["left"][0] == 0.0 and away["banks"]["running"] is None
        # the stand-in bot plays seat 0's turn; the turn passing earns it the increment
        me.until(lambda m: m["type"] == "update" and m["version"] > first
                 and m["view"]["current_player"] != 0)
        wait_for(lambda: room.bank.left[0] == 5.0)
        me.send({"type": "back", "token": made["token"]})
        me.until(lambda m: m["type"] == "presence" and not m["seats"][0]["away"])
        # A view read before the return may show seat 0 to move (the stand-in midway through
        # its two-action turn), its bank not running: ask for the table as it is now.
        me.view = None
        me.send({"type": "sync", "token": made["token"]})
        me.until(lambda m: m["type"] == "sync")
        view = me.my_turn()
        assert view["choices"] and view["banks"]["running"] == 0
        assert view["banks"]["left"][0] == 5.0


def test_every_seat_and_spectator_is_told_every_bank(client: TestClient,
                                                     fake: FakeClock) -> None:
    made = bank_table(client, ["human", "human"])
    other = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bo"}).json()
    room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
    wait_for(lambda: room.bank.running is not None)  # the deal is done, a person is to move
    with client.websocket_connect(f"/ws/{made['id']}") as w0, \
            client.websocket_connect(f"/ws/{made['id']}") as w1, \
            client.websocket_connect(f"/ws/{made['id']}") as w2:
        fake.advance(3)
        views = [SeatSocket(w0).hello(made["token"])["view"],
                 SeatSocket(w1).hello(other["token"])["view"],
                 SeatSocket(w2).hello()["view"]]
    banks = [v["banks"] for v in views]
    assert banks[0] == banks[1] == banks[2]
    player = views[0]["current_player"]
    assert banks[0]["running"] == player and banks[0]["left"][player] == 57.0
    assert banks[0]["left"][1 - player] == 60.0


def test_a_table_without_a_bank_says_so(client: TestClient) -> None:
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "bot"],
                        turn_seconds=30)
    assert made["table"]["clock"] is None
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        me = SeatSocket(ws)
        me.hello(made["token"])
        view = me.my_turn()  # after the deal: the per-turn timer runs
    assert view["banks"] is None and view["deadline_in"] is not None


@pytest.mark.parametrize("body", [
    {"clock": "bank"}, {"clock": []}, {"clock": {}}, {"clock": {"increment": 5}},
    {"clock": {"bank": 9}}, {"clock": {"bank": 86401}}, {"clock": {"bank": 60.5}},
    {"clock": {"bank": True}}, {"clock": {"bank": "60"}},
    {"clock": {"bank": 60, "increment": -1}}, {"clock": {"bank": 60, "increment": 3601}},
    {"clock": {"bank": 60, "increment": 1.5}}, {"clock": {"bank": 60, "fischer": 1}},
    {"clock": BANK, "turn_seconds": 30},
])
def test_bad_clock_settings_are_refused_and_make_nothing(client: TestClient,
                                                         body: dict[str, Any]) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    before = set(hub.rooms)
    res = client.post("/api/tables", json={"game": "spy-tracker", "players": 2,
                                           "seats": ["human", "bot"], **body})
    assert res.status_code == 400, res.text
    assert res.json()["error"]["code"] == "request.bad_timer"
    assert set(hub.rooms) == before


def test_banks_survive_a_restart_and_a_rematch_starts_afresh(db_url: str,
                                                             fake: FakeClock) -> None:
    with make_client(db_url, fake) as client:
        made = bank_table(client)
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            me = SeatSocket(ws)
            me.hello(made["token"])
            me.my_turn()
            fake.advance(20)
            play_turn(me, made["token"])
            me.view = None
            me.my_turn()  # the bot moved: seat 0 is to move again with 60 - 20 + 5
        engine = client.app.state.hub.engine  # type: ignore[attr-defined]
        wait_for(lambda: (store.read_table(engine, made["id"]).settings  # type: ignore[union-attr]
                          .get("banks_left") == [45.0, 60.0]))
    with make_client(db_url, fake) as client:
        room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
        assert room.bank.left == [45.0, 60.0]
        assert "banks_left" not in room.settings  # what a rematch copies has no banks
        assert room.settings["clock"] == BANK
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            view = SeatSocket(ws).hello(made["token"])["view"]
        assert view["banks"]["left"] == [45.0, 60.0] and view["banks"]["running"] == 0
