"""The conformance suite's registry and the seeded walks its checks share
(:mod:`fieldcraft.core.conformance` runs them; the checks live there and in
:mod:`fieldcraft.core.conformance_views`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from fieldcraft.core.api import Game, State, sample_chance

PLAYOUTS = 25
"""Seeded random games each configuration plays for the bounds and returns checks."""

Check = Callable[[Game], None]
CHECKS: dict[str, Check] = {}


def check(function: Check) -> Check:
    CHECKS[function.__name__] = function
    return function


# -- helpers ---------------------------------------------------------------------------------------
def _step(state: State, rng: random.Random) -> int:
    if state.is_chance_node():
        return sample_chance(state, rng)
    legal = state.legal_actions()
    return legal[rng.randrange(len(legal))]


def _points(game: Game, seed: int, every: int, games: int = 3,
            decisions_only: bool = True) -> Iterator[tuple[State, int]]:
    """Every ``every``-th step of a few seeded random games (a seat's decision unless
    ``decisions_only`` is off), as (state, step); the game goes on from the state after the
    caller is done with it, so a caller must not change it."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        step = 0
        while not state.is_terminal():
            step += 1
            if step % every == 0 and not (decisions_only and state.is_chance_node()):
                yield state, step
            state.apply_action(_step(state, rng))
        if not decisions_only:
            yield state, step + 1


def _every(game: Game) -> int:
    """How far apart sampled decision points lie: denser in short games, so each check still
    sees a few dozen points per configuration."""
    return 3 if game.num_players <= 3 else 4
