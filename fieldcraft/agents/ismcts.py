"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse, 2012), for any game.

Each iteration imagines the hidden cards with ``view.resample`` (a determinisation consistent
with everything the seat knows), then walks one shared tree keyed by action sequences. Because
different determinisations allow different actions, UCB uses *availability counts* (how often a
child was legal when its parent was visited) instead of the parent's visit count. Chance events
below the root are sampled afresh each iteration and are not tree levels ("open loop"), which
keeps one tree per decision rather than one per deal. A chance event with at most
``chance_nodes`` outcomes (default: the game's ``SearchSettings.chance_nodes``, 0 for every game so
far)
branches the tree instead ("closed loop"), so that a choice after a die roll is judged per face;
for Against the Current this lost to open loop at equal iterations (the subtrees get too few
visits), so it is an option to try, not a default.

Games with many legal actions at a node (Spy Tracker's bids) would spend whole budgets trying
every action once, so children are added by *progressive widening*: at most
``ceil(widening * visits ** alpha)`` children per node. Untried actions are added lowest id first
(``ordered=1``, the default): games number their actions so that this is a sensible order (Spy
Tracker: call, spot, then bids from the smallest raise up), which keeps the decisive actions from
being left out by chance; ``ordered=0`` adds them at random.

A node grows children only after ``expand_after`` visits (default: the game's
``SearchSettings.expand_after``); until then its position is scored directly, which keeps a good
evaluation from being diluted by a barely explored opponent reply.

Determinisations are uniform over what the seat cannot see unless the game says otherwise: when
its states have a ``belief_weight`` (how plausible the hidden cards are given the opponents'
public actions, e.g. Spy Tracker's bids), a pool of ``beliefs`` resamples is drawn once per
decision and each iteration picks one in proportion to its weight (importance resampling).
This is where inference about hands enters; ``beliefs=0`` turns it off. With ``infer=1``, the
resamples themselves come from the game's ``informed_resampler`` where it has one (Under
Current: role deals weighed by the receiving choices seen), the same draws the rollout bot's
``infer=1`` makes. A game that had both a ``belief_weight`` and an informed resampler would
have the same evidence counted twice if it read the same choices in both: each game uses one.

In single-observer ISMCTS the other seats' choices share the searcher's tree, so each is
averaged over the searcher's guesses of their cards: in effect they play knowing the searcher's
hand and not their own, which makes every bluff look hopeless. With ``opponents="policy"``
(default: the game's ``SearchSettings.opponents``) they instead play the game's ``policy_action``, a
quick model that decides from their own cards in the determinisation (or, without one, the
hand-written heuristic bot from their own view); their replies branch the tree like chance, so
the searcher's later choices are kept apart per reply. The search then plays a best reply to
that model, over as many of its own moves as the budget reaches.

When a turn is several decisions in a row (Undercover: take, flip, place), the subtree under the
move just chosen already holds a search of the next decision; with ``reuse=1`` the next search
starts from it rather than from nothing. It is kept only when the game has seen exactly one action
since, this seat's own (the public count ``view.ply()``), so no other seat's move or chance draw
can have made it stale, and only moves legal now are played from it. A reveal by the move itself
(a flipped tile's back) still leaves visits from worlds now ruled out. It is off by default: in
Undercover it won 21 of 38 games against the same search without it at equal iterations, and at
1 s a move against the heuristic bot 43 of 70 (40 of 60 without), so no gain was measured.

With ``workers=N`` the search runs on N processes at once (root parallelisation, Chaslot,
Winands & van den Herik 2008): this process and N-1 helpers each grow their own tree from the
same view with their own seed, and the move is chosen on the root counts summed over all trees.
With ``time=`` every process searches for the whole time, so N free cores give about N times
the iterations; with ``iterations=`` the total is split N ways (the same work, sooner).
Progressive widening applies per tree, so the summed root has tried fewer of a wide node's moves
than one tree of the summed size. In Undercover at 1 s a move against the heuristic bot, 2
workers won 77 of 120 games (64%), level with one process (65% over 230 games): twice the
iterations bought no measurable strength there, so it is off by default. The helpers are
started once (forkserver) and shared by every search bot in the process (``ismcts_workers.py``
holds all of this); a study's worker processes each start their own, so there ``workers`` > 1
only competes for the same cores. With an iteration budget the decisions depend only on the
seed. As with any use of
``multiprocessing``, a script that makes such a bot needs the ``if __name__ == "__main__":``
guard, because the helpers import the script's main module.

Leaves are scored by a random rollout of at most ``rollout_depth`` decisions (default: the game's
``SearchSettings.rollout_depth``), then by the game's ``heuristic_returns()`` if it has one (a cheap
estimate for long games), else the rollout runs on to the end.
"""

from __future__ import annotations

import gc
import math
import os
import random
import threading
import time
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import Any

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

if cython.compiled:  # the C function on C doubles; the same libm call as math.sqrt
    from cython.cimports.libc.math import sqrt
else:
    from math import sqrt

from fieldcraft.agents import View
from fieldcraft.core.api import CHANCE, TERMINAL, State, sample_chance
from fieldcraft.core.search import SearchModel

_LOG = [0.0] + [math.log(i) for i in range(1, 1 << 16)]
"""log(n) for availability counts: a list index is cheaper than a call in the UCB loop."""


def _log_table(size: int) -> list[float]:
    global _LOG
    if size >= len(_LOG):
        _LOG = [0.0] + [math.log(i) for i in range(1, 2 * size)]
    return _LOG


_NONE: list[Any] = []
"""The child lists of a node without children; never appended to (``_Node.add`` replaces it)."""
_NO_INDEX: dict[int, int] = {}
_NO_SET: set[int] = set()

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""What a ``time=`` budget counts. ``wall``: the seconds a person waits at the table. ``cpu``:
this process's CPU seconds, the iterations a free core would buy in that time whatever else
the machine runs, so a time budget measured on a shared machine (a skill trace) repeats."""


class _Node:
    """Statistics of a node's children in parallel lists (one list comprehension scores them
    all, several times faster than touching one object per child)."""

    # The fields, declared once: the pure build's slots are made from these annotations, and the
    # compiled build's C fields too (the build derives the .pxd field block from them).
    actions: list[int]
    index: dict[int, int]
    kids: list[_Node]
    n: list[int]  # visits of each child
    w: list[float]  # total reward of each child, for the player who chose it
    avail: list[int]  # how often each child was legal when this node was visited
    visits: cython.Py_ssize_t
    # The legal actions seen at the last visit. Most nodes see the same list every time, so
    # only the tried children are looked at, not every legal action (hundreds of bids in Spy
    # Tracker).
    legal: list[int]
    legal_set: set[int]
    all_legal: bool  # every child is in ``legal``
    # The node after each move the search does not choose: a chance outcome when small chance
    # events branch the tree, or a modelled opponent's reply (see ``branch``).
    chance: dict[int, _Node] | None
    __slots__ = tuple(__annotations__)  # noqa: F821 - the class body's own annotations

    def __init__(self) -> None:
        # Most nodes are made and never grow a child (a reply seen once, a young leaf), so the
        # child lists start as shared empty ones and ``add`` gives a node its own.
        self.actions = _NONE
        self.index = _NO_INDEX
        self.kids = _NONE
        self.n = _NONE
        self.w = _NONE
        self.avail = _NONE
        self.visits = 0
        self.legal = _NONE
        self.legal_set = _NO_SET
        self.all_legal = True
        self.chance = None

    def branch(self, action: int) -> _Node:
        """The node after a move the search does not choose (a chance outcome or a modelled
        opponent's reply), made on first use."""
        branches = self.chance
        if branches is None:
            self.chance = branches = {}
        child = branches.get(action)
        if child is None:
            branches[action] = child = _Node()
        return child

    def add(self, action: int) -> int:
        if self.kids is _NONE:
            self.actions, self.index, self.kids = [], {}, []
            self.n, self.w, self.avail = [], [], []
        i = len(self.actions)
        self.actions.append(action)
        self.index[action] = i
        self.kids.append(_Node())
        self.n.append(0)
        self.w.append(0.0)
        self.avail.append(1)
        return i


class ISMCTSAgent:
    """Information-set MCTS with a time or iteration budget; seeded, so decisions repeat."""

    name = "ismcts"

    def __init__(self, iterations: int | None = None, time: float | None = None,
                 c: float | None = None, seed: int | None = None, rollout_depth: int | None = None,
                 widening: float = 2.0, alpha: float = 0.5, ordered: int = 1,
                 expand_after: int | None = None, beliefs: int = 1000,
                 opponents: str | None = None, chance_nodes: int | None = None,
                 reuse: int = 0, workers: int = 1, clock: str = "wall", infer: int = 0):
        if iterations is None and time is None:
            iterations = 1000
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if time is not None and time <= 0:
            raise ValueError("time must be positive")
        self.iterations = iterations
        self.time = time
        self.c = c
        self.rollout_depth = rollout_depth
        self.widening = widening
        self.alpha = alpha
        self.ordered = bool(ordered)
        self.expand_after = expand_after
        if beliefs < 0:
            raise ValueError("beliefs must be at least 0")
        self.beliefs = beliefs
        if opponents not in (None, "tree", "policy"):
            raise ValueError(f'opponents must be "tree" or "policy", got {opponents!r}')
        self.opponents = opponents
        self._model: Any = None
        self.chance_nodes = chance_nodes
        self.reuse = bool(reuse)
        if workers < 1:
            raise ValueError("workers must be at least 1")
        if workers > 1 and self.reuse:
            raise ValueError("reuse keeps one tree, so it cannot be combined with workers > 1")
        self.workers = workers
        if clock not in CLOCKS:
            raise ValueError(f'clock must be "wall" or "cpu", got {clock!r}')
        if clock == "cpu" and workers > 1:
            raise ValueError("clock=cpu times one process's search, so it cannot be combined "
                             "with workers > 1")
        self.clock = clock
        if infer not in (0, 1):
            raise ValueError(f"infer must be 0 or 1, not {infer!r}")
        self.infer = bool(infer)
        self._kept: tuple[int, int, _Node] | None = None  # (seat, ply it is for, subtree)
        self.rng = random.Random(seed)
        self.last_iterations = 0
        self.last_reused = 0  # visits the last search started with from the kept subtree
        # (process id, iterations) of each process in the last parallel search, this one first
        self.last_shares: list[tuple[int, int]] = []

    def act(self, view: Any) -> int:
        legal = view.legal_actions()
        ply = view.ply() if self.reuse else None
        kept = self._kept
        self._kept = None
        root = None
        if kept is not None and ply is not None and kept[:2] == (view.seat, ply):
            root = kept[2]
        if len(legal) == 1:
            i = None if root is None else root.index.get(legal[0])
            if i is not None and ply is not None:  # a forced step: follow it down the tree
                self._kept = (view.seat, ply + 1, root.kids[i])
            return legal[0]
        self.last_reused = 0 if root is None else root.visits
        root = self.search(view, root)
        # A kept tree may hold moves that are not legal now (its search also saw worlds that
        # this move's reveal ruled out, such as the other back of a flipped tile).
        legal_set = set(legal)
        choices = [i for i, a in enumerate(root.actions) if a in legal_set]
        if not choices:
            return legal[0]
        best = max(choices, key=lambda i: (root.n[i], root.w[i]))
        if ply is not None:
            self._kept = (view.seat, ply + 1, root.kids[best])
        return root.actions[best]

    def search(self, view: Any, root: _Node | None = None) -> _Node:
        """Grow the tree at ``root`` (a fresh one by default) for this decision's budget.

        With ``workers`` > 1 the result is a fresh root whose children's counts are summed over
        every process's tree: statistics to choose a move by, not a tree to search further."""
        if root is None:
            if self.workers > 1:  # root parallelisation: a module of its own, loaded on use
                from fieldcraft.agents.ismcts_workers import search_parallel

                return search_parallel(self, view)
            root = _Node()
        return self._grow(view, root, self.iterations, self.time)

    def _grow(self, view: Any, root: _Node, limit: int | None, seconds: float | None) -> _Node:
        _pause_gc()  # the belief pool is drawn in the same spirit: no cycles, many objects
        try:
            return self._grow_tree(view, root, limit, seconds)
        finally:
            _resume_gc()

    def _grow_tree(self, view: Any, root: _Node, limit: int | None, seconds: float | None
                   ) -> _Node:
        rng = self.rng
        now = CLOCKS[self.clock]
        deadline = None if seconds is None else now() + seconds
        draw = self._sampler(view, rng, limit)
        defaults = view.game.spec.search
        # The settings every iteration reads, looked up once per search rather than per pass.
        threshold = self.expand_after
        if threshold is None:
            threshold = defaults.expand_after
        chance_nodes = self.chance_nodes
        if chance_nodes is None:
            chance_nodes = defaults.chance_nodes
        depth = self.rollout_depth
        if depth is None:
            depth = defaults.rollout_depth
            if depth is None:
                depth = 1 << 30
        settings = (
            threshold,
            self.c if self.c is not None else defaults.c,
            chance_nodes,
            (self.opponents or defaults.opponents) == "policy",
            view.game.search_model,  # asked directly: one call less per question
            depth,
        )
        iterate = self._iterate
        done = 0
        while True:
            if limit is not None and done >= limit:
                break
            if deadline is not None and done % 8 == 0 and now() >= deadline:
                if done > 0:
                    break
            iterate(root, draw(), rng, settings)
            done += 1
        self.last_iterations = done
        return root

    def _model_agent(self) -> Any:
        """The heuristic bot that stands in for opponents in games without a quick policy."""
        if self._model is None:
            from fieldcraft.agents.heuristic import HeuristicAgent

            self._model = HeuristicAgent(seed=self.rng.randrange(1 << 30))
        return self._model

    def _sampler(self, view: Any, rng: random.Random,
                 limit: int | None = None) -> Callable[[], State]:
        """A function returning one determinisation per iteration: fresh uniform resamples, or
        draws from a weighted pool when the game weighs beliefs (see the module docstring)."""
        resample = (view.informed_resampler() if self.infer else None) or view.resampler()
        first = resample(rng)
        seat = view.seat
        weight = first.belief_weight(seat) if self.beliefs else None
        if weight is None:
            spare = [first]

            def fresh() -> State:
                return spare.pop() if spare else resample(rng)
            return fresh
        size = self.beliefs if limit is None else min(self.beliefs, limit)
        pool = [first]
        weights = [weight]
        for _ in range(size - 1):
            sample = resample(rng)
            pool.append(sample)
            weights.append(sample.belief_weight(seat))
        cumulative = list(accumulate(weights))
        total = cumulative[-1]
        last = len(pool) - 1
        random_ = rng.random
        if total <= 0.0:  # nothing fits the model: fall back to uniform over the pool
            return lambda: pool[int(random_() * len(pool))].clone()
        return lambda: pool[min(bisect_right(cumulative, random_() * total), last)].clone()

    @cython.cpow(True)  # visits ** alpha: a C pow on a positive base, not a complex one
    @cython.locals(node=_Node, state=State, player=cython.int, me=cython.int,
                   threshold=cython.Py_ssize_t, c=cython.double, chance_nodes=cython.Py_ssize_t,
                   widening=cython.double, alpha=cython.double, tried=cython.Py_ssize_t,
                   best=cython.Py_ssize_t, k=cython.Py_ssize_t, outcome=cython.int,
                   action=cython.int, path=list, legal=list, avail=list, log=list,
                   parent=_Node, returns=list)
    def _iterate(self, root: _Node, state: State, rng: random.Random,
                 settings: tuple[int, float, int, bool, SearchModel, int]) -> None:
        path = []  # (node, child index, player who chose it)
        node = root
        threshold, c, chance_nodes, model, search, depth = settings
        widening, alpha = self.widening, self.alpha
        me = state.current_player()
        random_ = rng.random
        log = _LOG if root.visits + 2 < len(_LOG) else _log_table(root.visits + 2)
        while True:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                if chance_nodes and len(state.chance_outcomes()) <= chance_nodes:
                    outcome = sample_chance(state, rng)
                    node = node.branch(outcome)
                    state._apply(outcome)
                else:
                    state.play_chance(rng)
                continue
            if model and player != me:
                # The opponent plays the game's policy from its own cards; its replies branch
                # the tree like chance, so the searcher's later choices are kept per reply.
                reply = search.policy_action(state, rng)
                if reply is None:  # no quick policy: the hand-written bot, from its view
                    reply = self._model_agent().act(View(state, player))
                action = reply
                node = node.branch(action)
                state._apply(action)
                continue
            if node is not root and node.visits < threshold:
                node.visits += 1  # young node: score the position, do not grow the tree yet
                break
            legal = search.search_actions(state)
            if legal != node.legal:
                node.legal = legal
                node.legal_set = legal_set = set(legal)
                node.all_legal = all(a in legal_set for a in node.actions)
            node.visits += 1
            if node.all_legal:
                usable = None
                avail = node.avail
                node.avail = avail = [a + 1 for a in avail]
                tried = len(avail)
            else:
                legal_set = node.legal_set
                usable = [i for i, a in enumerate(node.actions) if a in legal_set]
                avail = node.avail
                for i in usable:
                    avail[i] += 1
                tried = len(usable)
            if tried < len(legal) and len(node.actions) < widening * node.visits ** alpha:
                index = node.index
                if self.ordered:  # the lowest action id not tried yet
                    action = next(a for a in legal if a not in index)
                else:
                    while True:  # a random legal action not tried yet
                        action = legal[int(random_() * len(legal))]
                        if action not in index:
                            break
                path.append((node, node.add(action), player))
                state._apply(action)
                break
            if tried == 0:  # widening is full but no tried child is legal here
                action = legal[int(random_() * len(legal))]
                found = node.index.get(action)
                if found is None:
                    found = node.add(action)
                    node.all_legal = False
                path.append((node, found, player))
                state._apply(action)
                break
            best = _ucb_best(node.w, node.n, avail, log, c, usable)
            path.append((node, best, player))
            state._apply(node.actions[best])
            node = node.kids[best]
        returns = self._rollout(state, rng, search, depth)
        for step in path:
            parent, k, player = step
            parent.n[k] += 1
            parent.w[k] += returns[player]

    @cython.locals(state=State, depth=cython.Py_ssize_t, player=cython.int, legal=list,
                   r=cython.double)
    def _rollout(self, state: State, rng: random.Random, search: SearchModel,
                 depth: int) -> list[float]:
        random_ = rng.random
        while True:
            player = state.current_player()
            if player == TERMINAL:
                return state.returns()
            if player == CHANCE:
                state.play_chance(rng)
                continue
            if depth <= 0:
                estimate = search.heuristic_returns(state)
                if estimate is not None:
                    return estimate
            legal = state.legal_actions()
            r = random_()
            state._apply(legal[int(r * len(legal))])
            depth -= 1


@cython.locals(w=list, n=list, avail=list, log=list, c=cython.double, best=cython.Py_ssize_t,
               j=cython.Py_ssize_t, i=cython.Py_ssize_t, k=cython.Py_ssize_t, ni=cython.double,
               score=cython.double, top=cython.double)
def _ucb_best(w: list[float], n: list[int], avail: list[int], log: list[float], c: float,
              usable: list[int] | None) -> int:
    """The child with the highest UCB score (availability counts in the log term): the first
    of equals, over ``usable`` children if given, else over all. A loop rather than a list
    of scores so that the compiled build scores in C doubles (the same arithmetic in the same
    order, so both builds choose alike)."""
    if usable is None:
        best = 0
        k = len(w)
    else:
        best = usable[0]
        k = len(usable)
    ni = n[best]
    top = w[best] / ni + c * sqrt(log[avail[best]] / ni)
    for j in range(1, k):
        i = j if usable is None else usable[j]
        ni = n[i]
        score = w[i] / ni + c * sqrt(log[avail[i]] / ni)
        if score > top:
            top = score
            best = i
    return best


_gc_pauses = 0
_gc_was_enabled = False
_gc_lock = threading.Lock()


def _pause_gc() -> None:
    """Hold the cyclic garbage collector off while a search grows its tree.

    The tree has no reference cycles (a node owns its children and nothing points back), nor
    must what the game's code makes during a search (a test checks every game), so reference
    counting frees it all; the cyclic collector would only walk it again and again as it
    grows: a third of a 3,000-iteration Spy Tracker search went to that. Searches may run at
    once in several threads (the web table), so the collector comes back when the last ends,
    and only if it was on before the first began."""
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1


def _resume_gc() -> None:
    """Let the collector run again, without first walking what the searches made.

    Every object made while it was held off is in the youngest generation, so the first
    allocation after ``gc.enable()`` would trigger one collection that walks the whole tree at
    once: a quarter of a second after a 4,000-iteration Spy Tracker search at four players, in
    the move's time, where a person waits. Freezing moves every tracked object out of the
    generations in constant time. Where nothing else is frozen (a study, the terminal) they are
    thawed straight away into the oldest generation, whose full collections go on as before.
    Where the process freezes what is young itself and collects on growth (the web's collector
    clock, :func:`freeze_after_searches`), they stay frozen, as the clock's next tick would
    have left them (a search running compiled code in a worker thread can keep the clock from
    ticking). Where something else froze objects, for its own reasons, nothing changes.
    Either way the objects are freed by reference counting; the searches make no reference
    cycles (tests/agents/test_search_features.py checks every game), so none waits for a full
    collection."""
    global _gc_pauses
    with _gc_lock:
        _gc_pauses -= 1
        if _gc_pauses == 0 and _gc_was_enabled:
            if _freeze_after:
                gc.freeze()
            elif gc.get_freeze_count() == 0:  # walks the frozen list: short where it is empty
                gc.freeze()
                gc.unfreeze()
            gc.enable()


_freeze_after = False


def freeze_after_searches(on: bool) -> None:
    """Tell the searches that this process freezes young objects itself and collects them on
    growth (``fieldcraft.server.collector.CollectorClock``), so a search's objects may stay
    frozen when it ends; counting the frozen objects to find out would walk them all."""
    global _freeze_after
    _freeze_after = bool(on)


def _forget_gc_pauses() -> None:
    """A search running in another thread of the parent does not exist in a forked child
    (a study's worker process): nothing will end it, so its pause is forgotten there."""
    global _gc_lock, _gc_pauses
    _gc_lock = threading.Lock()
    if _gc_pauses:
        _gc_pauses = 0
        if _gc_was_enabled:
            gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_gc_pauses)
