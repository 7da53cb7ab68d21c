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
    assert e.game_state.is_terminal()
    assert e.game_state.history()[-1] == actions[-1]
    assert sorted(rewards.values()) == [0.0, 0.0, 1.0]  # one seat wins the game


def test_the_seed_replays_the_game_and_another_seed_does_not() -> None:
    a = play(raw_env("under-current", players=5), 3)
    b = play(raw_env("under-current", players=5), 3)
    c = play(raw_env("under-current", players=5), 4)
    assert a == b and a[0] != c[0]


def test_the_observation_is_the_seats_tensor_and_mask() -> None:
    e = raw_env("spy-tracker", players=2)
    e.reset(seed=1)
    seat = e.game_state.current_player()
    mover, other = f"seat_{seat}", f"seat_{1 - seat}"
    obs = e.observe(mover)
    assert obs["observation"].dtype == np.float32
    assert obs["observation"].tolist() == e.fc.observer.tensor(e.game_state, seat)
    legal = e.game_state.legal_actions()
    assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == sorted(legal)
    assert not e.observe(other)["action_mask"].any()
    assert e.observation_space(mover).contains(obs)


def test_ruleset_overrides_reach_the_game_and_bad_ones_are_refused() -> None:
    assert raw_env("spy-tracker", players=2, min_bid=2).fc.ruleset["min_bid"] == 2
    with pytest.raises(Exception, match="unknown ruleset key"):
        raw_env("spy-tracker", players=2, nope=1)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    e = raw_env("spy-tracker", players=2)
    e.reset(seed=0)
    before = e.game_state.to_json()
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        e.step(illegal)
    assert e.game_state.to_json() == before


@pytest.mark.filterwarnings("ignore:Environment's m.* state space value is .*infinity")
@pytest.mark.parametrize("name", list_games())
def test_state_is_every_seats_view_within_the_state_space(name: str) -> None:
    """``AECEnv.state()`` is PettingZoo's global state for centralised training; the env used
    to keep its game in an attribute called ``state``, which hid the method (``env.state()``
    raised ``TypeError: 'State' object is not callable``). It is every seat's observation
    tensor in seat order, of the declared ``state_space``, through the wrappers too."""
    from pettingzoo.test.state_test import test_state_space

    players = game_spec(name).max_players
    e = env(name, players=players)
    e.reset(seed=3)
    e.state()  # the TypeError
    test_state_space(e)
    raw = e.unwrapped
    space = e.state_space
    assert space.shape == (players * raw.observation_space("seat_0")["observation"].shape[0],)
    rng = np.random.default_rng(3)
    for _ in e.agent_iter(400):
        state = e.state()
        assert space.contains(state)
        views = [e.observe(a)["observation"] for a in raw.possible_agents]
        assert np.array_equal(state, np.concatenate(views))
        obs, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(
            obs["action_mask"]))))
    assert space.contains(e.state())


@pytest.mark.parametrize("name", list_games())
def test_pettingzoo_render_test_passes(name: str) -> None:
    """PettingZoo's ``render_test`` builds the env with ``render_mode="human"`` first, which
    used to be refused (``ValueError``), so it could not run at all."""
    from pettingzoo.test import render_test

    players = game_spec(name).min_players
    render_test(lambda render_mode=None: env(name, players=players, render_mode=render_mode))


def test_human_mode_prints_what_ansi_returns(capsys: pytest.CaptureFixture[str]) -> None:
    """``human`` prints the text ``ansi`` returns, at ``render()`` and after every step, as
    PettingZoo's classic games do; ``ansi`` returns it and prints nothing (it used to print
    at every step)."""
    ansi, human = (raw_env("spy-tracker", players=2, render_mode=m) for m in ("ansi", "human"))
    for e in (ansi, human):
        e.reset(seed=7)
    text = ansi.render()
    assert isinstance(text, str) and text == str(ansi.game_state)
    assert capsys.readouterr().out == ""
    assert human.render() is None
    assert capsys.readouterr().out == text + "\n"
    for e in (ansi, human):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert capsys.readouterr().out == ansi.render() + "\n"  # the human env's step, only
    with pytest.raises(ValueError, match="render_mode must be one of"):
        raw_env("spy-tracker", players=2, render_mode="rgb_array")


@pytest.mark.parametrize("name", list_games())
def test_observations_lie_in_finite_declared_bounds(name: str) -> None:
    """The observation and state boxes were ±inf (the games declared no ranges); they now carry
    the Gymnasium env's bounds, derived from the rules, and random play at the smallest and
    largest count stays inside them for every seat."""
    for players in (game_spec(name).min_players, game_spec(name).max_players):
        e = raw_env(name, players=players)
        box = e.observation_space("seat_0")["observation"]
        assert np.isfinite(box.low).all() and np.isfinite(box.high).all()
        assert np.isfinite(e.state_space.low).all() and np.isfinite(e.state_space.high).all()
        for seed in range(3):
            e.reset(seed=seed)
            rng = np.random.default_rng(seed)
            for _agent in e.agent_iter(600):
                for seat in e.possible_agents:
                    assert box.contains(e.observe(seat)["observation"]), (players, seed)
                obs, _, terminated, truncated, _ = e.last()
                e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(
                    obs["action_mask"]))))
