"""Root parallelisation of :class:`~fieldcraft.agents.ismcts.ISMCTSAgent` (``workers=N``).

This process and ``N - 1`` helper processes each grow their own tree from the same view with
their own seed, and the move is chosen on the root counts summed over all trees (see the
``ismcts`` module docstring for what that buys and costs). The helpers are started once
(forkserver) and shared by every search bot in the process. Nothing here runs per iteration, so
this module stays plain Python in the compiled build; ``ISMCTSAgent.search`` imports it on first
use.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from fieldcraft.agents.ismcts import ISMCTSAgent, _Node


def search_parallel(agent: ISMCTSAgent, view: Any) -> _Node:
    """``agent.search(view)`` with ``agent.workers`` processes: the helpers search copies of the
    view while this process searches its own share; then the root counts are summed."""
    count = agent.workers
    seeds = [agent.rng.randrange(1 << 62) for _ in range(count - 1)]
    shares: list[int | None] = [None] * count
    if agent.iterations is not None:
        share, extra = divmod(agent.iterations, count)
        shares = [share + (k < extra) for k in range(count)]
    options = {key: getattr(agent, key) for key in _SHARE_OPTIONS}
    # The helpers stop at the same moment as this process, however long they waited to start.
    deadline = None if agent.time is None else time.time() + agent.time
    futures = _submit(count - 1, [(view, options, seed, budget, deadline)
                                  for seed, budget in zip(seeds, shares[1:], strict=True)
                                  if budget != 0])
    try:
        root = agent._grow(view, _Node(), shares[0], agent.time)
        done = [(os.getpid(), agent.last_iterations)]
        for future in futures:
            try:
                stats, iterations, pid = future.result()
            except BrokenProcessPool:
                warnings.warn("a search helper process died; this move is chosen on the "
                              "trees that were finished", RuntimeWarning, stacklevel=3)
                continue
            done.append((pid, iterations))
            for action, visits, reward in stats:
                i = root.index.get(action)
                if i is None:
                    i = root.add(action)
                root.n[i] += visits
                root.w[i] += reward
    finally:
        for future in futures:  # after an error here, shares not started are not run
            future.cancel()
    agent.last_shares = done
    root.visits = agent.last_iterations = sum(n for _, n in done)
    return root


_SHARE_OPTIONS = ("c", "rollout_depth", "widening", "alpha", "ordered", "expand_after", "beliefs",
                  "opponents", "chance_nodes", "infer")
"""The settings a helper's search copies from the bot (its budget and seed are its own)."""

_pool: tuple[Executor, int] | None = None
_lock = threading.Lock()


def _helpers(count: int) -> Executor:
    """At least ``count`` helper processes, started on first use and shared by every search bot
    of this process: starting a pool per decision would cost more than a short search. They are
    forked from a clean server process, not from this one, which may be running threads (the
    web table)."""
    global _pool
    # A pool whose process died (killed, out of memory) fails every call: start a new one.
    if _pool is None or _pool[1] < count or getattr(_pool[0], "_broken", False):
        import multiprocessing
        import multiprocessing.util
        from concurrent.futures import ProcessPoolExecutor

        if _pool is not None:
            _pool[0].shutdown(wait=False)
        else:
            # Before multiprocessing joins a process's children at its exit (a study's worker
            # process would otherwise wait there for its idle helpers for ever), and before it
            # closes the pool's queues (priority 10), which must still carry the stop signal.
            multiprocessing.util.Finalize(None, _close_helpers, exitpriority=20)
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        _pool = (ProcessPoolExecutor(count, mp_context=context, initializer=_helper_start,
                                     initargs=(os.getpid(),)), count)
    return _pool[0]


def _submit(count: int, shares: list[tuple[Any, ...]]) -> list[Future[Any]]:
    """Start ``_search_share`` on each share. Bots may search at once from several threads (the
    web table runs each in one), so the pool is made, grown and used under one lock: a pool
    replaced by a larger one still finishes what it was given, but takes nothing new."""
    with _lock:
        try:
            pool = _helpers(count)
            return [pool.submit(_search_share, *share) for share in shares]
        except BrokenProcessPool:  # a helper died since the pool was last looked at
            pool = _helpers(count)
            return [pool.submit(_search_share, *share) for share in shares]


def _close_helpers() -> None:
    """Stop the helpers before the interpreter tears down the modules their pool still uses."""
    global _pool
    if _pool is not None:
        _pool[0].shutdown(wait=True, cancel_futures=True)
        _pool = None


def _forget_helpers() -> None:
    """A forked child (a study's worker process) cannot use its parent's helpers, whose pipes
    and manager thread stay with the parent; it starts its own if it needs them."""
    global _pool, _lock
    _pool = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)


def _helper_start(parent: int) -> None:
    """Helpers ignore Ctrl-C, which the bot's own process handles, and exit if that process
    dies without stopping them (killed), instead of waiting for work for ever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(0)
            except OSError:
                pass

    threading.Thread(target=watch, daemon=True).start()


def _search_share(view: Any, options: dict[str, Any], seed: int, iterations: int | None,
                  deadline: float | None) -> tuple[list[tuple[int, int, float]], int, int]:
    """One helper's search, until ``iterations`` or the wall-clock ``deadline``: its tree's root
    counts ``(action, visits, reward)``, its iterations and its process id."""
    agent = ISMCTSAgent(seed=seed, **options)
    seconds = None if deadline is None else max(deadline - time.time(), 1e-3)
    root = agent._grow(view, _Node(), iterations, seconds)
    return (list(zip(root.actions, root.n, root.w, strict=True)), agent.last_iterations,
            os.getpid())
