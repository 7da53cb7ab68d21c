"""Policy rollouts of the heuristic bot (Tesauro & Galperin's rollout improvement).

Why: the search bots (ISMCTS, the dice expectimax) judge a move by a model of the game that is
no better than the hand-written heuristic, and in several games and counts they did not beat
it. A rollout asks the question directly: if I play this action and then everyone (me
included) plays the Normal bot to the end, how often do I win? The move with the best answer
is, in expectation, at least as good as the heuristic's own (the policy-improvement step of
dynamic programming), whatever the heuristic misjudges.

How one decision is made:

* The candidates are the legal actions the game thinks worth searching (``search_actions``),
  cut to the ``top`` best by a one-step look at ``heuristic_returns`` where there are many;
  the heuristic's own choice is always one of them.
* A *round* draws one determinisation (the hidden state sampled from what the seat knows) and
  one seed, and plays every candidate out from that same world with that same seed: the same
  chance draws and the same tie-breaks for every seat (common random numbers). Two actions
  are thus compared on the same dice and cards, so the luck that dominates a single playout
  largely cancels in their difference, and a few dozen rounds separate what hundreds of
  independent playouts would not.
* Rounds go on until ``rollouts`` rounds or ``time`` seconds, whichever comes first; a round
  is started only if the time left fits one more (by the mean round so far), so every
  candidate always has the same number of playouts.
* The best mean wins, but the agent leaves the heuristic's choice only when the paired mean
  difference exceeds ``z`` standard errors: with few rounds the largest of several noisy means
  is biased upward, and the heuristic's move is the safe default.
* A playout runs to the end, or ``depth`` decisions and then ``heuristic_returns``.
* ``policy`` names a cheaper function in the game's bot module for the playouts (Undercover's
  ``choose_fast``: its Normal bot costs too much to play six seats to the end many times a
  move); the candidates and the safe default stay the Normal bot's.
* With ``infer=1``, the worlds are drawn in proportion to how plausible the other seats' public
  play makes them, where the game models that (``informed_resampler``: Under Current weighs
  each role deal by the receiving choices seen), instead of uniformly among those the seat
  cannot rule out. Why: the playouts' answer is only as good as the worlds they start from,
  and in a hidden-role game the choices people make say much about who they are.
* With ``halve=h``, the rounds are spent unevenly (successive halving): after
  ``rollouts / 2**h``, ..., a quarter and half of the ``rollouts`` rounds, the candidates are
  cut to the better half by their mean so far (the heuristic's choice always kept), and the
  rounds left go to those.
  Why: at large tables most of a flat budget goes to moves that are plainly worse; halving
  gives the contenders twice the rounds for about the same number of playouts, and the final
  choice is made among fewer noisy means. Every kept candidate has played every round, so
  the comparison stays paired.

Everything a playout does is plain rules and the game's own bot (``SPEC.bot``; a game without
one gets the heuristic agent's one-step lookahead), on clones: no deep copies.
"""

from __future__ import annotations

import importlib
import math
import random
import time as _time
from collections.abc import Callable
from typing import Any

from fieldcraft.agents import View
from fieldcraft.agents.heuristic import lookahead
from fieldcraft.core.api import CHANCE, TERMINAL, FieldcraftError

DEFAULT_ROLLOUTS = 32
"""Rounds per decision when neither ``rollouts`` nor ``time`` is given."""

Policy = Callable[[Any, random.Random], int]


def rollout_policy(game: Any, name: str | None = None) -> Policy:
    """The Normal bot's decision function for ``game`` (its ``bot.choose``), the policy every
    seat plays in a rollout; the heuristic agent's lookahead for a game without one. ``name``
    picks another function of the same module instead (a cheaper policy the game offers)."""
    if name is None:
        return game.spec.optional("bot") or lookahead
    module = (game.spec.bot or "").partition(":")[0]
    found = getattr(importlib.import_module(f"{game.spec.package}.{module}"), name,
                    None) if module else None
    if not callable(found):
        raise FieldcraftError(f"{game.spec.id} has no rollout policy {name!r} in its bot module")
    return found


def playout(state: Any, seat: int, seed: int, policy: Policy, depth: int | None = None
            ) -> float:
    """Play ``state`` (consumed) on with every seat on ``policy``; ``seat``'s return.

    Chance draws come from one stream and each seat's decisions from a stream of its own, all
    made from ``seed``: two playouts with the same seed that differ in one early action still
    see the same dice and the same tie-breaks, as far as the games stay alike. After ``depth``
    decisions the game's ``heuristic_returns`` judges the position (if it has one)."""
    chance = random.Random(seed)
    seats = [random.Random(seed + 1 + s) for s in range(state.game.num_players)]
    decisions = 0
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return float(state.returns()[seat])
        if player == CHANCE:
            state.play_chance(chance)
            continue
        if depth is not None and decisions >= depth:
            estimate = state.heuristic_returns()
            if estimate is not None:
                return float(estimate[seat])
        legal = state.legal_actions()
        state._apply(legal[0] if len(legal) == 1 else policy(View(state, player), seats[player]))
        decisions += 1


class RolloutAgent:
    """Flat Monte Carlo over the candidates with heuristic rollouts and common random numbers;
    seeded, and with a ``rollouts`` budget alone its decisions repeat."""

    name = "rollout"

    def __init__(self, rollouts: int | None = None, time: float | None = None,
                 top: int | None = None, depth: int | None = None, z: float = 1.0,
                 policy: str | None = None, halve: int = 0, infer: int = 0,
                 seed: int | None = None):
        if rollouts is None and time is None:
            rollouts = DEFAULT_ROLLOUTS
        if rollouts is not None and (not isinstance(rollouts, int) or rollouts < 1):
            raise ValueError(f"rollouts must be a whole number of at least 1, not {rollouts!r}")
        if time is not None and (not isinstance(time, (int, float)) or time <= 0):
            raise ValueError(f"time must be a positive number of seconds, not {time!r}")
        if top is not None and (not isinstance(top, int) or top < 2):
            raise ValueError(f"top must be a whole number of at least 2, not {top!r}")
        if depth is not None and (not isinstance(depth, int) or depth < 1):
            raise ValueError(f"depth must be a whole number of at least 1, not {depth!r}")
        if not isinstance(z, (int, float)) or z < 0:
            raise ValueError(f"z must be a number of at least 0, not {z!r}")
        if policy is not None and (not isinstance(policy, str) or not policy.isidentifier()):
            raise ValueError(f"policy must name a function of the game's bot module, not "
                             f"{policy!r}")
        if not isinstance(halve, int) or halve < 0:
            raise ValueError(f"halve must be a whole number of at least 0, not {halve!r}")
        if halve and rollouts is None:
            raise ValueError("halve needs a rollouts budget: its cuts are shares of it")
        if infer not in (0, 1):
            raise ValueError(f"infer must be 0 or 1, not {infer!r}")
        self.halve, self.infer = halve, bool(infer)
        self.rollouts, self.time, self.top, self.depth, self.z = rollouts, time, top, depth, z
        self.policy = policy
        self.rng = random.Random(seed)
        self.clock: Callable[[], float] = _time.perf_counter
        # What the last search saw (for tests and benchmarks): candidates, their per-round
        # values, and the heuristic's own choice; and the running time per searched move.
        self.last: dict[str, Any] = {}
        self.searched_moves = 0
        self.search_seconds = 0.0
        self.search_max = 0.0

    def act(self, view: Any) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        start = self.clock()
        policy = rollout_policy(view.game)
        own = policy(view, random.Random(self.rng.getrandbits(64)))
        if self.policy is not None:
            policy = rollout_policy(view.game, self.policy)
        informed = view.informed_resampler() if self.infer else None
        draw = informed or view.resampler()
        candidates = self._candidates(draw, legal, own)
        values: list[list[float]] = []
        searched = candidates
        if len(candidates) > 1:
            searched, values = self._rounds(view.seat, draw, candidates, own, policy, start)
        choice = pick(searched, values, own, self.z)
        self.last = {"candidates": candidates, "searched": searched, "values": values,
                     "own": own, "choice": choice, "informed": informed is not None}
        spent = self.clock() - start
        self.searched_moves += 1
        self.search_seconds += spent
        self.search_max = max(self.search_max, spent)
        return choice

    def _candidates(self, draw: Callable[[random.Random], Any], legal: list[int], own: int
                    ) -> list[int]:
        """The search's actions (the game's ``search_actions`` on a determinisation, legal
        ones only), at most ``top`` of them by a one-step estimate; ``own`` always in."""
        world = draw(random.Random(self.rng.getrandbits(64)))
        seat = world.current_player()
        allowed = set(legal)
        actions = [a for a in world.search_actions() if a in allowed]
        if own not in actions:
            actions.append(own)
        if self.top is None or len(actions) <= self.top:
            return actions
        rng = random.Random(self.rng.getrandbits(64))
        scored = sorted(actions, key=lambda a: -_one_step(world, a, seat, rng))
        kept = scored[:self.top]
        if own not in kept:
            kept[-1] = own
        return kept

    def _rounds(self, seat: int, draw: Callable[[random.Random], Any], candidates: list[int],
                own: int, policy: Policy, start: float) -> tuple[list[int], list[list[float]]]:
        """Rounds of paired playouts (see the module docstring), within the budget: the
        candidates still searched at the end and their values, one row a round."""
        depth, clock = self.depth, self.clock
        deadline = None if self.time is None else start + self.time
        cuts = set()
        if self.rollouts is not None:
            cuts = {self.rollouts >> k for k in range(1, self.halve + 1)} - {0}
        values: list[list[float]] = []
        began = clock()
        while self.rollouts is None or len(values) < self.rollouts:
            if deadline is not None and values:
                now = clock()
                if now + (now - began) / len(values) > deadline:
                    break
            if len(values) in cuts:
                candidates, values = halve(candidates, values, own)
            # The world has a stream of its own: drawn from the playouts' seed, the hidden
            # cards and the first dice would come from the same numbers.
            world = draw(random.Random(self.rng.getrandbits(64)))
            seed = self.rng.getrandbits(62)
            values.append(play_round(world, candidates, seat, seed, policy, depth))
        return candidates, values


def halve(candidates: list[int], values: list[list[float]], own: int
          ) -> tuple[list[int], list[list[float]]]:
    """The better half of ``candidates`` by mean value (ties to the earlier), ``own`` always
    kept, and ``values`` cut to their columns; fewer than three candidates are left as they
    are (there is nothing to gain)."""
    if len(candidates) < 3 or not values:
        return candidates, values
    n = len(values)
    means = [sum(row[i] for row in values) / n for i in range(len(candidates))]
    mine = candidates.index(own)
    order = sorted(range(len(candidates)), key=lambda i: (-means[i], i))
    kept = set(order[:(len(candidates) + 1) // 2])
    kept.add(mine)
    columns = sorted(kept)
    return ([candidates[i] for i in columns],
            [[row[i] for i in columns] for row in values])


def play_round(world: Any, candidates: list[int], seat: int, seed: int, policy: Policy,
               depth: int | None = None) -> list[float]:
    """One round: every candidate played out from ``world`` with the same ``seed``."""
    out = []
    for action in candidates:
        state = world.clone()
        state._apply(action)
        out.append(playout(state, seat, seed, policy, depth))
    return out


def pick(candidates: list[int], values: list[list[float]], own: int, z: float) -> int:
    """The candidate with the best mean, if its paired lead over ``own`` is more than ``z``
    standard errors (and positive); else ``own``."""
    if not values:
        return own
    n = len(values)
    means = [sum(row[i] for row in values) / n for i in range(len(candidates))]
    mine = candidates.index(own)
    best = max(range(len(candidates)), key=lambda i: (means[i], i == mine))
    if best == mine:
        return own
    diffs = [row[best] - row[mine] for row in values]
    lead = sum(diffs) / n
    if lead <= 0:
        return own
    if z > 0:
        if n < 2:
            return own
        var = sum((d - lead) ** 2 for d in diffs) / (n - 1)
        if lead <= z * math.sqrt(var / n):
            return own
    return candidates[best]


def _one_step(world: Any, action: int, seat: int, rng: random.Random) -> float:
    """``seat``'s estimated return just after ``action`` (chance sampled to the next decision):
    the cheap ranking that cuts many candidates to ``top``."""
    state = world.clone()
    state._apply(action)
    while state.current_player() == CHANCE:
        state.play_chance(rng)
    if state.current_player() == TERMINAL:
        return float(state.returns()[seat])
    estimate = state.heuristic_returns()
    return float(estimate[seat]) if estimate is not None else 0.5


__all__ = ["DEFAULT_ROLLOUTS", "RolloutAgent", "halve", "pick", "play_round", "playout",
           "rollout_policy"]
