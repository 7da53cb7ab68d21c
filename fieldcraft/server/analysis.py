""""What would the bot have done": the Strong bot's view of one decision of a finished game.

After a game people ask "should I have called instead?". :func:`analyse` answers for one
position: the game's Strong level (its spec in :mod:`fieldcraft.agents.levels`, the bot a player
meets at a table: ISMCTS in most games, an expectimax over the dice in Against the Current)
decides it with a seed, and the answer names that bot (``agent``) and gives the move it would
play and, for every legal option, the figures its search has: an ISMCTS's visits and estimated
win chance (the mean result of its playouts through that option, for the seat to move), or a
policy search's value per option when the game's bot offers them (``search_values`` beside
``search_choose``); otherwise only the choice. Searches with an iteration budget stop at
:data:`~fieldcraft.agents.levels.WEB_TIME_CAP`, as at a table: a person waits for the panel
too. (A cap makes the iteration count depend on the machine's load; the answer is cached per
step, so a page sees one answer.) An explicit ``iterations`` (``serve --analysis-iterations``,
tests) asks plain ISMCTS at that budget, uncapped, as before levels existed.

The search must judge the decision as the seat to move could have, so it never starts from the
true state: its root is ``state.resample(seat, rng)``, a position with every card that seat
could not see re-dealt consistently with what it knew (each game's ``resample`` also rewrites
the history to match, so not even the deal actions tell). Two states that differ only in what
the seat cannot see resample identically for the same seed (the conformance check
``resample_depends_only_on_what_the_seat_knows``), so they get the same analysis, bit for bit.

On the server (:class:`Analyser`) the search runs in one worker process, so the event loop
keeps serving tables while it thinks: one worker (a search is CPU-bound and the machine serves
games first), a bounded number of waiting requests (more are refused with
``limits.analysis_busy``, 429, and a ``Retry-After``), and an LRU cache per (table, step): a
finished game never changes, so an answer is good for ever. The seed is derived from the table
and step, so the same request gives the same answer whichever server process computes it.
"""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import random
import sys
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from fieldcraft.agents import View, make_agent, parse_agent_spec
from fieldcraft.agents.levels import WEB_TIME_CAP
from fieldcraft.agents.specs import resolve_agents
from fieldcraft.core.api import CHANCE, TERMINAL, State
from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError

ITERATIONS: int | None = None
"""No explicit budget: each game's Strong level decides (see the module docstring)."""
LEVEL = "strong"
"""The level the panel asks."""
CACHE_SIZE = 512
"""Analysed steps kept in memory (each a few kilobytes, Spy Tracker's long bid lists included)."""
QUEUE_LIMIT = 4
"""Distinct steps waiting for or in the worker at once; a fifth is refused as busy."""
RETRY_AFTER = 2.0
"""Seconds a refused client is told to wait: about the time one analysis takes."""


def iterations_arg(text: str) -> int:
    """``--analysis-iterations``: a whole number of at least 1, refused by the argument parser
    with its own message otherwise (not a traceback at start-up)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def analysis_seed(table_id: str, step: int) -> int:
    """The seed of a step's analysis: the same (table, step) always gives the same answer, and
    no two steps share a stream of draws."""
    digest = hashlib.sha256(f"fieldcraft-analysis:{table_id}:{step}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def nothing_to_decide(state: State) -> str | None:
    """``"chance"`` or ``"terminal"`` when no seat chooses at ``state``, else ``None``."""
    player = state.current_player()
    if player == TERMINAL:
        return "terminal"
    if player == CHANCE:
        return "chance"
    return None


def search_root(state: State, seed: int) -> tuple[State, int, int]:
    """The position the search starts from, as the seat to move could imagine it: ``(root,
    seat, the search's own seed)``. Everything the analysis reads later comes from ``root``,
    never from ``state``'s hidden cards."""
    seat = state.current_player()
    if seat < 0:
        raise ValueError("nobody decides at a chance or terminal step")
    rng = random.Random(seed)
    root = state.resample(seat, rng)
    return root, seat, rng.randrange(1 << 62)


def analysis_spec(state: State, iterations: int | None = None) -> tuple[str, str | None]:
    """``(agent spec, level)`` that analyses ``state``'s game: its Strong level at its player
    count, or plain ISMCTS at ``iterations`` (level ``None``) when a budget is given."""
    if iterations is not None:
        return f"ismcts(iterations={int(iterations)})", None
    chosen = resolve_agents(state.game.name, [LEVEL], state.game.num_players)[0]
    return chosen.spec, chosen.level


def describe_agent(spec: str, level: str | None) -> dict[str, Any]:
    """What the panel says about the bot: its level, kind and options (``kind`` ``expectimax``,
    ``options`` ``{"turns": 3}``: "Strong: expectimax, 3 turns")."""
    kind, options = parse_agent_spec(spec)
    return {"level": level, "kind": kind, "options": options, "spec": spec}


def search(root: State, seat: int, spec: str, seed: int,
           cap: float | None = None) -> dict[str, Any]:
    """Run the bot ``spec`` on ``root`` (a resample, see :func:`search_root`), an iteration
    budget stopped at ``cap`` seconds, and report its choice and what it knows of every legal
    option; the worker process runs this."""
    agent: Any = make_agent(spec, seed)
    if cap is not None and getattr(agent, "time", False) is None:
        agent.time = cap
    view = View(root, seat)
    if hasattr(agent, "search"):
        found = _tree_answer(agent, view, root)
    else:
        found = _policy_answer(agent, view, root, seed)
    return {"seat": seat, **found}


def _tree_answer(agent: Any, view: View, root: State) -> dict[str, Any]:
    """An ISMCTS's choice and, per legal option, its visits and mean playout result."""
    tree = agent.search(view)
    stats = {a: (n, w) for a, n, w in zip(tree.actions, tree.n, tree.w, strict=True)}
    total = sum(n for n, _ in stats.values()) or 1
    choices = root.choices()
    legal = {c["action"] for c in choices}
    # The bot's own rule (ISMCTSAgent.act): the most visited legal move, ties to the higher
    # total reward; a move the search never tried only if it tried none.
    tried = [a for a in stats if a in legal]
    best = max(tried, key=lambda a: stats[a]) if tried else choices[0]["action"]
    options = []
    for c in choices:
        n, w = stats.get(c["action"], (0, 0.0))
        options.append({"action": c["action"], "kind": c["kind"], "args": c["args"],
                        "label": c["label"], "visits": n, "share": n / total,
                        "win": w / n if n else None})
    options.sort(key=lambda o: (-o["visits"], -(o["win"] or 0.0), o["action"]))
    chosen = stats.get(best, (0, 0.0))
    return {"iterations": agent.last_iterations, "choice": best,
            "win": chosen[1] / chosen[0] if chosen[0] else None, "options": options}


def _policy_answer(agent: Any, view: View, root: State, seed: int) -> dict[str, Any]:
    """A bot without a tree (an expectimax): its move, and per option the value its game's
    ``search_values`` gives (the same search, seeded alike) when the game offers one."""
    from fieldcraft.agents.expectimax import search_policy

    best = agent.act(view)
    values: dict[int, float] = {}
    policy = search_policy(root.game)
    module = sys.modules.get(getattr(policy, "__module__", "")) if policy is not None else None
    valuer = getattr(module, "search_values", None)
    if valuer is not None:
        values = dict(valuer(view, random.Random(seed), **getattr(agent, "options", {})))
    options = [{"action": c["action"], "kind": c["kind"], "args": c["args"],
                "label": c["label"], "visits": 0, "share": 0.0,
                "win": values.get(c["action"])} for c in root.choices()]
    options.sort(key=lambda o: (o["action"] != best, -(o["win"] or 0.0), o["action"]))
    return {"iterations": None, "choice": best, "win": values.get(best), "options": options}


def analyse(state: State, seed: int, iterations: int | None = ITERATIONS) -> dict[str, Any]:
    """The Strong bot's analysis of the decision at ``state`` from the view of the seat to
    move (see the module docstring), in-process: the library form of what the server's worker
    computes. Raises ``ValueError`` at a chance or terminal step."""
    spec, level = analysis_spec(state, iterations)
    root, seat, own_seed = search_root(state, seed)
    cap = WEB_TIME_CAP if level is not None else None
    return {**search(root, seat, spec, own_seed, cap), "agent": describe_agent(spec, level)}


Job = Callable[[State, int, str, int, "float | None"], dict[str, Any]]


class Analyser:
    """The server's analysis worker: one process, a bounded queue and an LRU cache per
    (table, step). ``job`` is what the worker runs (:func:`search`; tests give a slower one to
    watch the server stay responsive); ``computed`` counts the searches started."""

    def __init__(self, iterations: int | None = ITERATIONS, cache_size: int = CACHE_SIZE,
                 queue_limit: int = QUEUE_LIMIT, job: Job = search):
        if iterations is not None and iterations < 1:
            raise ValueError("analysis iterations must be at least 1")
        self.iterations = iterations
        self.cache_size = cache_size
        self.queue_limit = queue_limit
        self.job = job
        self.computed = 0
        self._cache: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._pending: dict[tuple[str, int], asyncio.Future[dict[str, Any]]] = {}
        self._pool: Executor | None = None

    def _executor(self) -> Executor:
        """The worker, started on first use from a clean forkserver process (the server runs
        threads, which a plain fork would copy mid-lock)."""
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in methods else "spawn")
            self._pool = ProcessPoolExecutor(1, mp_context=context)
        return self._pool

    def cached(self, table_id: str, step: int) -> dict[str, Any] | None:
        found = self._cache.get((table_id, step))
        if found is not None:
            self._cache.move_to_end((table_id, step))
        return found

    async def analyse(self, table_id: str, step: int,
                      state_at: Callable[[int], State]) -> dict[str, Any]:
        """The analysis of ``step`` of the finished table ``table_id`` (``state_at(step)``
        rebuilds its state): from the cache, joined to the same step's search in progress, or
        searched in the worker. Refused with ``limits.analysis_busy`` when ``queue_limit``
        other steps are already waiting."""
        key = (table_id, step)
        found = self.cached(table_id, step)
        if found is not None:
            return found
        pending = self._pending.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        if len(self._pending) >= self.queue_limit:
            error = TableError(E.ANALYSIS_BUSY, "the analysis worker is busy with other "
                               "steps; try again in a moment")
            error.retry_after = RETRY_AFTER  # type: ignore[attr-defined]
            raise error
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._pending[key] = future
        try:
            result = await self._compute(table_id, step, state_at)
        except asyncio.CancelledError:
            future.cancel()  # the asker went away; a request joined to it asks again
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may be waiting for it
            raise
        finally:
            del self._pending[key]
        future.set_result(result)
        self._cache[key] = result
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return result

    async def _compute(self, table_id: str, step: int,
                       state_at: Callable[[int], State]) -> dict[str, Any]:
        def prepare() -> tuple[str | None, Any]:
            state = state_at(step)
            nothing = nothing_to_decide(state)
            if nothing is not None:
                return nothing, None
            return None, (*search_root(state, analysis_seed(table_id, step)),
                          *analysis_spec(state, self.iterations))

        nothing, root = await asyncio.to_thread(prepare)
        if nothing is not None:
            return {"step": step, "nothing": nothing}
        position, seat, seed, spec, level = root
        cap = WEB_TIME_CAP if level is not None else None
        self.computed += 1
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(self._executor(), self.job, position, seat,
                                               spec, seed, cap)
        except BrokenProcessPool:
            self._pool = None  # the worker died (killed, out of memory): a new one next time
            raise TableError(E.ANALYSIS_FAILED, "the analysis worker stopped; try again") from None
        return {"step": step, "nothing": None, **found,
                "agent": describe_agent(spec, level)}

    def close(self) -> None:
        """Stop the worker; a search in progress is abandoned (its answer is not needed)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


__all__ = ["ITERATIONS", "LEVEL", "Analyser", "analyse", "analysis_seed", "analysis_spec",
           "describe_agent", "iterations_arg", "nothing_to_decide", "search", "search_root"]
