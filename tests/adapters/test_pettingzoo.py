"""fieldcraft games as PettingZoo AEC environments: PettingZoo's own api_test and seed_test on
every game, what the observation holds, and that bad input is refused."""

from __future__ import annotations

import numpy as np
import pytest

from fieldcraft.core.errors import IllegalActionError
from fieldcraft.core.registry import game_spec, list_games

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from fieldcraft.adapters.pettingzoo import env, raw_env  # noqa: E402


@pytest.mark.parametrize("name", list_games())
def test_pettingzoo_api_and_seed_tests_pass(name: str) -> None:
    players = game_spec(name).min_players
    api_test(env(name, players=players), num_cycles=200)
    seed_test(lambda: env(name, players=players), num_cycles=200)


def play(e, seed: int) -> tuple[list[int], dict[str, float]]:
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    paid: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            paid[agent] = reward
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        actions.append(action)
        e.step(action)
    return actions, paid


def test_a_game_plays_to_the_end_and_pays_the_returns() -> None:
    e = raw_env("spy-tracker", players=3)
    actions, rewards = play(e, 5)
    assert e.state.is_terminal()
    assert e.state.history()[-1] == actions[-1]
    assert sorted(rewards.values()) == [0.0, 0.0, 1.0]  # one seat wins the game


def test_the_seed_replays_the_game_and_another_seed_does_not() -> None:
    a = play(raw_env("under-current", players=5), 3)
    b = play(raw_env("under-current", players=5), 3)
    c = play(raw_env("under-current", players=5), 4)
    assert a == b and a[0] != c[0]


def test_the_observation_is_the_seats_tensor_and_mask() -> None:
    e = raw_env("spy-tracker", players=2)
    e.reset(seed=1)
    seat = e.state.current_player()
    mover, other = f"seat_{seat}", f"seat_{1 - seat}"
    obs = e.observe(mover)
    assert obs["observation"].dtype == np.float32
    assert obs["observation"].tolist() == e.fc.observer.tensor(e.state, seat)
    assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == sorted(e.state.legal_actions())
    assert not e.observe(other)["action_mask"].any()
    assert e.observation_space(mover).contains(obs)


def test_ruleset_overrides_reach_the_game_and_bad_ones_are_refused() -> None:
    assert raw_env("spy-tracker", players=2, min_bid=2).fc.ruleset["min_bid"] == 2
    with pytest.raises(Exception, match="unknown ruleset key"):
        raw_env("spy-tracker", players=2, nope=1)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    e = raw_env("spy-tracker", players=2)
    e.reset(seed=0)
    before = e.state.to_json()
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        e.step(illegal)
    assert e.state.to_json() == before
