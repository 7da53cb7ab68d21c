"""A table the hub has let go of is freed at once, by reference counting alone.

The server runs with a tuned cyclic collector (once ``app.tune_gc``: start-up objects frozen,
young collections rare; now ``collector.CollectorClock``, which freezes what is new and collects
everything only on growth), which in practice never reached rooms caught in a reference cycle: a
server that played 3,000 bot games grew from 85 to 796 MB. So every test here plays with the cyclic
collector switched off and checks, with weak references, that the evicted room, its table and
its driver are gone: anything still alive is held by a cycle (or a real leak).
"""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fieldcraft.server import create_app
from fieldcraft.server.hub import Hub
from fieldcraft.server.limits import LimitSettings
from tests.server.helpers import SeatSocket, create_table

pytestmark = pytest.mark.no_limits  # more tables than a client may create a minute


class FakeClock:
    """Monotonic seconds that move only when the test says so (for the waiting-table expiry)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def no_cycle_collector() -> Iterator[None]:
    """The cyclic collector off for the test (what was garbage before it, collected first)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


Refs = tuple[weakref.ref[Any], ...]


def refs_of(hub: Hub, table_id: str) -> Refs:
    room = hub.rooms[table_id]
    return weakref.ref(room), weakref.ref(room.table), weakref.ref(room.driver), \
        weakref.ref(room.clock)


def wait_until(pred: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def wait_finished(hub: Hub, table_id: str) -> None:
    """Until the game is over and its driver has stopped (its task holds the room while it
    runs, as it should)."""
    def over() -> bool:
        room = hub.rooms[table_id]
        task = room.driver.task
        return room.status == "finished" and (task is None or task.done())

    wait_until(over)


def left_for_the_collector() -> list[str]:
    """The project's objects that only the cyclic collector would free, by type (run with it
    off: everything unreachable since it was switched off is here)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = sorted({f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage
                        if type(o).__module__.startswith("fieldcraft")})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return found


def alive(refs: list[Refs]) -> list[str]:
    names = ("Room", "Table", "Driver", "TurnClock")
    return [f"{names[i]} of table {n}" for n, group in enumerate(refs)
            for i, ref in enumerate(group) if ref() is not None]


def test_evicted_bot_games_are_freed_without_the_cycle_collector(
        client: TestClient, no_cycle_collector: None) -> None:
    hub: Hub = client.app.state.hub
    games = [("spy-tracker", 2), ("under-current", 4), ("undercover", 3),
             ("against-the-current", 2)]
    refs = []
    for game, players in games:
        made = create_table(client, game=game, players=players, seats=["bot"] * players)
        refs.append(refs_of(hub, made["id"]))
        wait_finished(hub, made["id"])
        # a spectator who came and left, and the finished table's pages and API answers
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            SeatSocket(ws).hello()
        assert client.get(f"/api/tables/{made['id']}").status_code == 200
        assert client.get(f"/api/tables/{made['id']}/replay").status_code == 200
    wait_until(lambda: all(r[0]().idle() for r in refs))  # type: ignore[union-attr]
    hub.evict_finished(keep=0)
    assert hub.rooms == {}
    assert alive(refs) == []
    # nor any part of them: a game and its notation, states, agents, log lines...
    assert left_for_the_collector() == []


def test_keep_zero_evicts_every_idle_finished_room(client: TestClient) -> None:
    hub: Hub = client.app.state.hub
    made = create_table(client, game="spy-tracker", players=2, seats=["bot", "bot"])
    wait_finished(hub, made["id"])
    hub.evict_finished(keep=1)
    assert made["id"] in hub.rooms
    hub.evict_finished(keep=0)
    assert made["id"] not in hub.rooms


def test_a_finished_room_loaded_on_demand_is_freed_again(
        client: TestClient, no_cycle_collector: None) -> None:
    hub: Hub = client.app.state.hub
    made = create_table(client, game="spy-tracker", players=2, seats=["bot", "bot"])
    wait_finished(hub, made["id"])
    hub.evict_finished(keep=0)
    assert made["id"] not in hub.rooms
    # loaded from the database for its replay, then let go again
    assert client.get(f"/api/tables/{made['id']}/replay").json()["steps"] > 0
    refs = [refs_of(hub, made["id"])]
    hub.evict_finished(keep=0)
    assert alive(refs) == []


def test_a_room_whose_turn_clock_ran_is_freed(client: TestClient,
                                              no_cycle_collector: None) -> None:
    """A person's seat with a turn timer: every turn runs out, the stand-in bot plays it (the
    clock's callback and the timed-out tasks), to the end of the game."""
    hub: Hub = client.app.state.hub
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "bot"],
                        turn_seconds=30)
    room = hub.rooms[made["id"]]
    room.settings["turn_seconds"] = 0.01  # the API's minimum is 5 s
    refs = [refs_of(hub, made["id"])]
    del room
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        seat = SeatSocket(ws)
        seat.hello(made["token"])
        seat.until(lambda m: m.get("view", {}).get("terminal") is True, timeout=60)
    wait_finished(hub, made["id"])
    wait_until(lambda: hub.rooms[made["id"]].idle())
    hub.evict_finished(keep=0)
    assert alive(refs) == []


def test_an_expired_waiting_table_is_freed(tmp_path: Path, no_cycle_collector: None) -> None:
    clock = FakeClock()
    app = create_app(f"sqlite:///{tmp_path / 'expiry.db'}", bot_delay=0.0, away_grace=30.0,
                     limits=LimitSettings(), clock=clock, allowed_hosts=["testserver"])
    with TestClient(app) as client:
        hub: Hub = app.state.hub
        made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"],
                            turn_seconds=60)
        refs = [refs_of(hub, made["id"])]
        clock.now += LimitSettings().waiting_expiry
        assert client.portal.call(hub.expire_waiting) == [made["id"]]
        assert alive(refs) == []


def test_tables_of_one_ruleset_share_one_game(client: TestClient) -> None:
    """A game's tables and caches (50-300 KB) are made once per ruleset, not once per table."""
    hub: Hub = client.app.state.hub
    one = create_table(client, game="spy-tracker", players=2, seats=["human", "bot"])
    two = create_table(client, game="spy-tracker", players=2, seats=["human", "bot"])
    other = create_table(client, game="spy-tracker", players=3, seats=["human", "bot", "bot"])
    game = hub.rooms[one["id"]].table.game
    assert hub.rooms[two["id"]].table.game is game
    assert hub.rooms[other["id"]].table.game is not game
    assert hub.game("spy-tracker", 2, {}) is game


def test_a_tables_log_is_nothing_the_collector_walks(client: TestClient) -> None:
    """The log only grows, by several entries a move: kept as text, a collection skips it
    (as dicts and tuples, 1,000 mid-game tables made every full collection ~6 times longer)."""
    hub: Hub = client.app.state.hub
    made = create_table(client, game="under-current", players=4, seats=["bot"] * 4)
    wait_finished(hub, made["id"])
    table = hub.rooms[made["id"]].table
    gc.collect()
    assert len(table.lines) == table.version > 0
    assert [entry for entry in table.lines if gc.is_tracked(entry)] == []
    events = table.log_for(None, 0)
    assert events and {"version", "line", "event"} == set(events[0])
