"""The server's collector clock: young objects frozen without being walked, cyclic garbage
collected once the frozen population has grown, nothing collected while it has not."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from fieldcraft.agents.ismcts import freeze_after_searches
from fieldcraft.server.collector import CollectorClock


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Node:
    """A cyclic-garbage maker: two nodes pointing at each other."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def restored_gc() -> Iterator[None]:
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        freeze_after_searches(False)  # the clocks started here never stop
        gc.unfreeze()
        gc.set_threshold(*threshold)
        gc.collect()


def test_tick_freezes_the_young_generation_without_collecting(restored_gc: None) -> None:
    clock = FakeClock()
    collector = CollectorClock(clock=clock)
    collector.start()
    frozen = gc.get_freeze_count()
    garbage = cycle()
    keep = [[i] for i in range(2_000)]
    assert gc.get_count()[0] > 0
    assert collector.tick() is False  # no time has passed: no check, no collection
    assert gc.get_count()[0] == 0  # the young generation went to the permanent one
    assert gc.get_freeze_count() >= frozen + len(keep)
    assert garbage() is not None  # frozen cyclic garbage waits for a full collection
    assert collector.full_collections == 0


def test_the_clock_tells_the_searches_it_freezes_while_it_runs(restored_gc: None) -> None:
    """A bot's search in the web leaves its objects frozen only while a clock runs to collect
    them on growth; once it stops, searches thaw what they froze again."""
    from fieldcraft.agents import ismcts

    collector = CollectorClock(clock=FakeClock())
    collector.start()
    assert ismcts._freeze_after is True
    collector.stop()
    assert ismcts._freeze_after is False


def test_growth_brings_one_full_collection_that_frees_frozen_cycles(restored_gc: None) -> None:
    clock = FakeClock()
    collector = CollectorClock(check_every=1.0, growth=1.25, min_gap=60.0, clock=clock)
    collector.start()
    # grows the population (made before the cycle: so many new objects may well start one of
    # CPython's own young collections, which would free a cycle not yet frozen)
    keep = [[i] for i in range(int(collector.baseline * 0.5) + 1_000)]
    collector.tick()
    garbage = cycle()
    collector.tick()
    clock.now += 30.0  # a check, but too soon after the start
    assert collector.tick() is False
    assert garbage() is not None
    clock.now += 31.0
    assert collector.tick() is True
    assert garbage() is None
    assert collector.full_collections == 1 and collector.collected >= 2
    assert collector.baseline >= len(keep)  # the new population is the new baseline
    clock.now += 120.0
    assert collector.tick() is False  # no growth since: no second full collection


def test_no_full_collection_without_growth(restored_gc: None) -> None:
    clock = FakeClock()
    collector = CollectorClock(check_every=1.0, min_gap=0.0, clock=clock)
    collector.start()
    for _ in range(20):
        churn = [[i] for i in range(1_000)]  # replaced every turn, as table states are
        clock.now += 1.0
        assert collector.tick() is False
    assert churn and collector.full_collections == 0


@pytest.mark.parametrize("kwargs", [{"freeze_every": 0}, {"check_every": -1}, {"growth": 1.0},
                                    {"min_gap": -1}])
def test_settings_out_of_range_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        CollectorClock(**kwargs)
