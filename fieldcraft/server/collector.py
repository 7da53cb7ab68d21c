"""The server process's cyclic collector: short young collections, full ones only when needed.

Why not CPython's schedule: a busy table server keeps a large *young* working set alive. Each
table's state is replaced on every commit (its ~30 lists are new), each of thousands of sockets
waits on a fresh future after every message, and these live a second or more. The collector's
counter is allocations *minus deallocations*, so in that steady turnover it hardly moves while
the young generation grows to the whole working set: at 1,000 Under Current tables and 4,000
sockets every young collection walked about 100,000 objects (55 ms of CPU), and at 85 % of a
core each such stop leaves a backlog that takes several times as long to drain. Middle and full
collections walk more (800,000 objects are alive at that size).

So the server runs the collector on its own clock (:class:`Collector`). Every ``interval``
seconds the young generation is collected, which then holds only what was made since the last
tick and is still alive (a few ms), and the survivors are frozen (``gc.freeze()``, a
constant-time list move), so no collection walks them again. CPython's own schedule is left
only a young collection after ``burst`` net allocations, for a burst between two ticks (4,000
sockets opening at once made 740,000 young objects, a 375 ms collection, without it).
Frozen objects are still freed by reference counting, the way the server frees nearly all its
garbage (nothing of a room points back at it: tests/server/test_memory.py). Garbage *cycles*
among frozen objects wait for a full collection; measured, the only ones a served game makes are
each closed HTTP connection's (uvicorn's protocol object and its parser, 14 objects). A full
collection runs when the frozen population has grown by a quarter since the last one and that
one is ten minutes old (CPython waits for 25 % more long-lived objects too), or at once when it
has quadrupled: so a steady server pauses for one at most every ten minutes, and memory stays
bounded.
"""

from __future__ import annotations

import asyncio
import gc
import time
from dataclasses import dataclass, field

_NEVER = 1 << 30
"""A middle or full threshold the automatic collector never reaches."""


@dataclass
class Collector:
    """Young collections every ``interval`` s. A full collection when the frozen population
    has grown by ``growth`` (times what the last one left, plus ``slack``) and the last one
    is ``min_gap`` s old, or at once when it has outgrown ``hard_growth`` times that plus
    ``hard_slack`` (a flood of connections). ``stats`` counts both kinds and their CPU time,
    which ``/healthz`` reports."""

    interval: float = 0.1
    burst: int = 50_000
    growth: float = 1.25
    slack: int = 100_000
    min_gap: float = 600.0
    hard_growth: float = 4.0
    hard_slack: int = 1_000_000
    check_every: int = 10
    """Young collections between two looks at the frozen population (counting it walks a
    list of every frozen object, a millisecond or two at a thousand tables)."""
    baseline: int = 0
    last_full: float = 0.0
    _since_check: int = 0
    _thresholds: tuple[int, ...] = (700, 10, 10)
    stats: dict[str, float] = field(default_factory=lambda: {
        "young": 0, "young_cpu_ms": 0.0, "young_max_ms": 0.0,
        "full": 0, "full_cpu_ms": 0.0, "full_max_ms": 0.0, "full_freed": 0,
        "frozen_after_full": 0})

    def due(self, frozen: int, now: float) -> bool:
        """Whether ``frozen`` objects (``now`` on the monotonic clock) call for a full
        collection."""
        if frozen > self.hard_growth * self.baseline + self.hard_slack:
            return True
        return (frozen > self.growth * self.baseline + self.slack
                and now - self.last_full >= self.min_gap)

    def start(self) -> None:
        """Take over from CPython's schedule: collect and freeze what start-up made; leave the
        automatic collector only a young collection after ``burst`` net allocations (a burst
        of new sockets between two ticks) and never a middle or full one."""
        self._thresholds = gc.get_threshold()
        gc.set_threshold(self.burst, _NEVER, _NEVER)
        self.full()

    def stop(self) -> None:
        """Give the process back to CPython's own schedule (tests build many apps in one
        process)."""
        gc.unfreeze()
        gc.set_threshold(*self._thresholds)

    def young(self) -> None:
        """Collect what was made since the last call and is still alive, then freeze it."""
        began = time.thread_time()
        gc.collect(0)
        gc.freeze()
        self._count("young", began)
        self._since_check += 1
        if self._since_check >= self.check_every:
            self._since_check = 0
            if self.due(gc.get_freeze_count(), time.monotonic()):
                self.full()

    def full(self) -> None:
        """Walk everything once (the only pause that grows with the server's size)."""
        began = time.thread_time()
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.baseline = gc.get_freeze_count()
        self.last_full = time.monotonic()
        self._count("full", began)
        self.stats["full_freed"] += freed
        self.stats["frozen_after_full"] = self.baseline

    def _count(self, kind: str, began: float) -> None:
        took = (time.thread_time() - began) * 1000
        self.stats[kind] += 1
        self.stats[f"{kind}_cpu_ms"] += took
        self.stats[f"{kind}_max_ms"] = max(self.stats[f"{kind}_max_ms"], took)

    async def run(self) -> None:
        """The loop's own task: a young collection every ``interval`` seconds."""
        try:
            while True:
                await asyncio.sleep(self.interval)
                self.young()
        finally:
            self.stop()
