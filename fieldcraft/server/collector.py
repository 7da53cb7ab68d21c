"""The server's cyclic collector on a clock of its own: what is new is frozen every tenth of a
second, and everything is collected only when the frozen population has grown.

Why: a busy table server replaces its working set about once a second (every commit makes a
table's new state, every socket waits on a new future after each message), and CPython counts
allocations *minus* deallocations, so in that turnover its young generation quietly grows to the
whole working set; each young collection then walks all of it. At 1,000 Under Current tables that
was 45-90 ms of CPU three times in 20 s, plus a middle-generation collection of 250-380 ms, with
the server near a core's worth of work: each pause queued hundreds of moves and set the p99 of
``benchmarks/web_load.py`` (docs/web.md, "Memory and the collector").

Collecting the young generation more often (and freezing what survived) was tried and cost
three times the collector CPU, because objects that live a second get walked instead of dying
first. This clock walks nothing in steady play: :func:`gc.freeze` is constant-time (it splices the
generations onto the permanent one), and an object frozen that later loses its last reference is
freed by reference counting as usual. What freezing keeps from the collector is *cyclic*
garbage, which the server's hot path does not make (tests/server/test_memory.py checks that a
finished table goes by reference counting alone); for the rest (uvicorn leaves a small cycle per
closed HTTP connection) the clock counts the frozen objects now and then and, when they have
grown by a quarter since the last full collection (CPython's own rule for its oldest
generation), unfreezes and collects everything once.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

from fieldcraft.agents.ismcts import freeze_after_searches

log = logging.getLogger("fieldcraft.server")


class CollectorClock:
    """Freezes the young objects every ``freeze_every`` seconds and runs a full collection when
    the frozen population is ``growth`` times what it was after the last one (checked every
    ``check_every`` seconds, at most once per ``min_gap``). Counting the frozen objects walks a
    list (about 2 ms per 100,000 objects), so it is not done at every freeze."""

    def __init__(self, freeze_every: float = 0.1, check_every: float = 10.0,
                 growth: float = 1.25, min_gap: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if freeze_every <= 0 or check_every <= 0 or growth <= 1 or min_gap < 0:
            raise ValueError("freeze_every and check_every must be positive, growth above 1, "
                             "min_gap not negative")
        self.freeze_every = freeze_every
        self.check_every = check_every
        self.growth = growth
        self.min_gap = min_gap
        self.clock = clock
        self.baseline = 0
        self.last_full = clock()
        self.last_check = self.last_full
        self.full_collections = 0
        self.collected = 0

    def start(self) -> None:
        """Collect what start-up left as garbage, freeze the rest, and keep CPython's own young
        collections out of the way (the clock's freezes reset their counter long before it
        could reach this threshold). A bot's search then leaves what it made frozen, as the
        next tick would (:func:`fieldcraft.agents.ismcts.freeze_after_searches`)."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(100_000, 50, 100)
        self.baseline = gc.get_freeze_count()
        self.last_full = self.last_check = self.clock()
        freeze_after_searches(True)

    def stop(self) -> None:
        """The clock no longer runs: a bot's search must not leave its objects frozen."""
        freeze_after_searches(False)

    def tick(self) -> bool:
        """One turn of the clock: freeze, and now and then check the growth. True when a full
        collection ran."""
        now = self.clock()
        full = False
        if now - self.last_check >= self.check_every:
            self.last_check = now
            if (now - self.last_full >= self.min_gap
                    and gc.get_freeze_count() > self.growth * max(self.baseline, 1)):
                self.collect_all()
                full = True
        gc.freeze()
        return full

    def collect_all(self) -> int:
        """Unfreeze and collect everything once (the one long pause, on growth only); returns
        the number of unreachable objects found."""
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.baseline = gc.get_freeze_count()
        self.last_full = self.clock()
        self.full_collections += 1
        self.collected += found
        log.debug("full collection: %d unreachable, %d objects frozen", found, self.baseline)
        return found

    async def run(self) -> None:
        """Tick until cancelled (the app's lifespan owns the task)."""
        while True:
            await asyncio.sleep(self.freeze_every)
            self.tick()


__all__ = ["CollectorClock"]
