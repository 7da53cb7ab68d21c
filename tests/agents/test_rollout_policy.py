"""The rollout agent's ``policy`` option: the playouts use a cheaper function the game's bot
module offers (Undercover's ``choose_fast``), while the candidates' safe default stays the
Normal bot's own move. Strength is measured in benchmarks/levels.py (docs/bots-ucv.md)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fieldcraft.agents import View, make_agent
from fieldcraft.agents.rollout import RolloutAgent, rollout_policy
from fieldcraft.core.api import CHANCE, TERMINAL, FieldcraftError, sample_chance
from fieldcraft.core.registry import load_game
from fieldcraft.games.undercover import bot
from tests.agents.test_rollout import Race

CALLS = {"normal": 0, "cheap": 0}


def normal(view: Any, rng: random.Random) -> int:
    """The toy's Normal bot: the smallest step."""
    CALLS["normal"] += 1
    return min(view.legal_actions())


def cheap(view: Any, rng: random.Random) -> int:
    """The toy's cheap policy: the largest step."""
    CALLS["cheap"] += 1
    return max(view.legal_actions())


class _Spec:
    id = "toy-race"
    package = "tests.agents"
    bot = "test_rollout_policy:normal"

    def optional(self, name: str) -> Any:
        return normal if name == "bot" else None


class _Game:
    num_players = 2
    spec = _Spec()


def test_playouts_use_the_named_policy_and_the_default_stays_normal() -> None:
    CALLS.update(normal=0, cheap=0)
    agent = RolloutAgent(rollouts=3, policy="cheap", seed=0)
    state = Race(_Game(), total=0, step=3)
    agent.act(View(state, 0))
    assert CALLS["normal"] == 1  # the agent's own (default) move, once
    assert CALLS["cheap"] > 3 * len(agent.last["candidates"])  # every playout decision
    assert agent.last["own"] == 1  # Normal's smallest step is the one kept in the candidates
    # The values follow the named policy: from 4 with the others at 0 a greedy game is
    # 4 + 3 (other) + 3 (me): 10, mine, whatever the seeds.
    CALLS.update(normal=0, cheap=0)
    greedy = RolloutAgent(rollouts=2, policy="cheap", z=0, seed=1)
    greedy.act(View(Race(_Game(), total=1, step=3), 0))
    three = greedy.last["candidates"].index(3)
    assert [row[three] for row in greedy.last["values"]] == [1.0, 1.0]


def test_named_policy_is_looked_up_in_the_bot_module() -> None:
    game = load_game("undercover", players=6)
    assert rollout_policy(game, "choose_fast") is bot.choose_fast
    assert rollout_policy(game) is bot.choose
    for name in ("no_such_policy", "random"):  # "random" is a module there, not a policy
        with pytest.raises(FieldcraftError, match="undercover has no rollout policy"):
            rollout_policy(game, name)


def test_bad_policy_names_are_refused() -> None:
    for spec in ("rollout(policy=1x)", "rollout(policy=a.b)", "rollout(policy=3)"):
        with pytest.raises(FieldcraftError):
            make_agent(spec, seed=0)
    agent: Any = make_agent("rollout(rollouts=2, policy=choose_fast)", seed=0)
    assert agent.policy == "choose_fast" and agent.name == "rollout(rollouts=2, policy=choose_fast)"


def _six_seat_decision(seed: int, skip: int) -> Any:
    """An Undercover six-player state at its ``skip``-th real choice of a random game."""
    state = load_game("undercover", players=6).new_initial_state()
    rng = random.Random(seed)
    seen = 0
    while state.current_player() != TERMINAL:
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            if seen == skip:
                return state
            seen += 1
        state.apply_action(rng.choice(legal))
    raise AssertionError("the game ended too soon")


def test_undercover_choice_is_legal_repeatable_and_leaves_the_state_alone() -> None:
    state = _six_seat_decision(seed=2, skip=40)
    seat = state.current_player()
    before = state.to_json()
    first = RolloutAgent(rollouts=2, depth=6, policy="choose_fast", seed=5)
    second = RolloutAgent(rollouts=2, depth=6, policy="choose_fast", seed=5)
    action = first.act(View(state, seat))
    assert action in state.legal_actions()
    assert second.act(View(state, seat)) == action
    assert second.last["values"] == first.last["values"]
    assert state.to_json() == before
    # The default it keeps is the Normal bot's own move for the agent's first random stream.
    normal_move = bot.choose(View(state, seat), random.Random(random.Random(5).getrandbits(64)))
    assert first.last["own"] == normal_move


def test_an_unknown_policy_fails_before_anything_is_played() -> None:
    state = _six_seat_decision(seed=2, skip=40)
    before = state.to_json()
    agent = RolloutAgent(rollouts=2, policy="no_such_policy", seed=0)
    with pytest.raises(FieldcraftError, match="no_such_policy"):
        agent.act(View(state, state.current_player()))
    assert state.to_json() == before and agent.searched_moves == 0
