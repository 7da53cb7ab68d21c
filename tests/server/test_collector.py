"""The server's collector schedule (:mod:`fieldcraft.server.collector`): young collections free
young cycles and freeze what survives, so no later collection walks it; cycles among frozen
objects wait for a full collection, which runs only when the frozen population has grown."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from fieldcraft.server import create_app
from fieldcraft.server.collector import Collector


class Node:
    """A container that can be part of a reference cycle and be watched by a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A two-node cycle nothing else holds: garbage only the cyclic collector can free."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def tracked_by_collections(obj: object) -> bool:
    """Whether a collection of any generation would walk ``obj`` (frozen objects are in no
    generation)."""
    return any(o is obj for o in gc.get_objects())


@pytest.fixture
def collector() -> Iterator[Collector]:
    before = gc.get_threshold()
    c = Collector()
    c.start()
    try:
        yield c
    finally:
        c.stop()
    assert gc.get_threshold() == before


def test_start_takes_over_from_the_automatic_collector(collector: Collector) -> None:
    young, middle, full = gc.get_threshold()
    assert young == collector.burst and middle > 10**8 and full > 10**8
    assert collector.stats["full"] == 1
    assert collector.baseline > 0 and gc.get_freeze_count() > 0


def test_a_young_cycle_is_freed_and_a_survivor_is_frozen(collector: Collector) -> None:
    garbage = cycle()
    survivor = Node()
    assert garbage() is not None and tracked_by_collections(survivor)
    collector.young()
    assert garbage() is None
    assert not tracked_by_collections(survivor)  # frozen: no collection walks it again
    assert collector.stats["young"] == 1


def test_a_cycle_that_dies_after_freezing_waits_for_the_full_collection(
        collector: Collector) -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a
    watch = weakref.ref(a)
    collector.young()  # both frozen while still alive
    del a, b
    collector.young()
    assert watch() is not None  # a frozen cycle: young collections do not see it
    collector.full()
    assert watch() is None
    assert collector.stats["full_freed"] >= 2


def test_full_collections_wait_for_growth_and_the_gap_unless_growth_is_extreme() -> None:
    c = Collector(growth=1.25, slack=100, min_gap=600.0, hard_growth=4.0, hard_slack=1000)
    c.baseline, c.last_full = 1000, 50.0
    assert not c.due(1300, now=10_000.0)  # not grown enough (1.25 * 1000 + 100 = 1350)
    assert c.due(1400, now=10_000.0)  # grown, and the last one is old
    assert not c.due(1400, now=600.0)  # grown, but the last one is recent
    assert not c.due(5000, now=600.0)  # 4 * 1000 + 1000 = 5000: not over the hard bound
    assert c.due(5001, now=600.0)  # a flood: at once


def test_young_runs_a_full_collection_when_due(collector: Collector) -> None:
    collector.check_every = 1
    collector.min_gap = 0.0
    collector.baseline = 0
    collector.slack = 0  # any frozen object is growth now
    collector.young()
    assert collector.stats["full"] == 2


def test_the_server_reports_its_collector_and_gives_the_process_back(tmp_path) -> None:
    app = create_app(f"sqlite:///{tmp_path}/c.db", gc_tuning=True, allowed_hosts=["testserver"])
    try:
        before = gc.get_threshold()
        with TestClient(app) as client:
            assert gc.get_threshold()[1] > 10**8
            stats = client.get("/healthz").json()["collector"]
            assert stats["full"] >= 1 and stats["young"] >= 0
        assert gc.get_threshold() == before
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
    plain = create_app(f"sqlite:///{tmp_path}/p.db", allowed_hosts=["testserver"])
    with TestClient(plain) as client:
        assert client.get("/healthz").json()["collector"] is None


def test_a_burst_between_two_ticks_is_collected_by_the_automatic_young_collection(
        collector: Collector) -> None:
    collector.young()
    kept = [Node() for _ in range(3 * collector.burst)]  # 4,000 sockets opening at once
    assert len(gc.get_objects(0)) <= collector.burst + 1000  # not the whole burst at the tick
    assert len(kept) == 3 * collector.burst
