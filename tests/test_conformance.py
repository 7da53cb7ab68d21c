"""Conformance suite: the checks every registered game must pass, at every player count.

A new game gets all of this for free by registering itself; its own rule tests live beside it.
Each check is written so that a stub or a leaky implementation fails it: playouts must really
end, illegal actions must really be rejected without side effects, replays and JSON must be exact,
and ``resample`` must change hidden information while leaving the seat's view untouched (so a view
that shows something hidden is caught).
"""

from __future__ import annotations

import json
import pickle
import random

import pytest

from fieldcraft.core import (
    CHANCE,
    TERMINAL,
    IllegalActionError,
    MalformedActionError,
    load_game,
    random_playout,
    sample_chance,
)
from tests.conftest import config_id, game_configs

CONFIGS = game_configs()
PLAYOUTS = 25


def _hidden_fields(state):
    """State fields without the action list (a resample keeps the list it was made from)."""
    return {k: v for k, v in state.to_dict()["state"].items() if k not in ("actions", "history")}


def _step(state, rng):
    if state.is_chance_node():
        return sample_chance(state, rng)
    legal = state.legal_actions()
    return legal[rng.randrange(len(legal))]


def _decision_points(game, rng, every, games=3):
    """Every ``every``-th step of a few random games that is a seat's decision, as
    (state, step); the game goes on from the state after the caller is done with it."""
    for _ in range(games):
        state = game.new_initial_state()
        step = 0
        while not state.is_terminal():
            step += 1
            if not state.is_chance_node() and step % every == 0:
                yield state, step
            state.apply_action(_step(state, rng))


@pytest.fixture(params=CONFIGS, ids=[config_id(c) for c in CONFIGS])
def game(request):
    name, players, overrides = request.param
    return load_game(name, players=players, **overrides)


def test_random_playouts_end_with_valid_returns(game):
    rng = random.Random(1)
    lengths = []
    for _ in range(PLAYOUTS):
        state = game.new_initial_state()
        lengths.append(random_playout(state, rng, max_steps=100_000))
        assert state.is_terminal()
        assert state.current_player() == TERMINAL
        assert state.legal_actions() == []
        returns = state.returns()
        assert len(returns) == game.num_players
        assert all(r in (0.0, 1.0) for r in returns)
        assert state.winners() == [s for s, r in enumerate(returns) if r == 1.0]
        json.dumps(state.outcome())
    assert min(lengths) > game.num_players  # a real game, not an immediate stop


def test_every_step_keeps_invariants_and_api_contracts(game):
    rng = random.Random(2)
    num_actions = game.num_distinct_actions()
    for _ in range(6):
        state = game.new_initial_state()
        state.check_invariants()
        while not state.is_terminal():
            player = state.current_player()
            assert player == CHANCE or 0 <= player < game.num_players
            legal = state.legal_actions()
            assert legal, "a non-terminal state must offer an action"
            assert legal == sorted(set(legal))
            assert all(0 <= a < num_actions for a in legal)
            if player == CHANCE:
                outcomes = state.chance_outcomes()
                assert sorted(a for a, _ in outcomes) == legal
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                assert all(p > 0 for _, p in outcomes)
                if state.uniform_chance:  # the flag lets samplers skip the odds: verify it
                    assert all(abs(p - outcomes[0][1]) < 1e-12 for _, p in outcomes)
            for action in legal:
                text = state.action_to_string(action)
                assert isinstance(text, str) and text
                assert state.string_to_action(text) == action, text
            ply = state.ply()
            assert ply == len(state.history())
            state.apply_action(_step(state, rng))
            assert state.ply() == ply + 1  # search bots rely on it to keep a turn's tree
            state.check_invariants()


def test_illegal_actions_are_rejected_and_change_nothing(game):
    rng = random.Random(3)
    num_actions = game.num_distinct_actions()
    checked = 0
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = set(state.legal_actions())
            illegal = [a for a in rng.sample(range(num_actions), min(8, num_actions))
                       if a not in legal] + [-1, num_actions, 10**9]
            before = state.to_dict()
            for action in illegal:
                with pytest.raises(IllegalActionError):
                    state.apply_action(action)
                assert state.to_dict() == before
                checked += 1
            state.apply_action(_step(state, rng))
        final = state.to_dict()
        with pytest.raises(IllegalActionError):
            state.apply_action(0)
        assert state.to_dict() == final
    assert checked > 0


def test_malformed_strings_are_rejected(game):
    state = game.new_initial_state()
    for text in ["", "definitely not an action", "pass to seat 99", "42 42 42"]:
        with pytest.raises(MalformedActionError):
            state.string_to_action(text)


def test_replay_from_history_is_exact(game):
    rng = random.Random(4)
    for _ in range(5):
        state = game.new_initial_state()
        random_playout(state, rng)
        replayed = game.replay(state.history())
        assert replayed == state
        assert replayed.returns() == state.returns()


def test_same_seed_same_game(game):
    a, b = game.new_initial_state(), game.new_initial_state()
    random_playout(a, random.Random(99))
    random_playout(b, random.Random(99))
    assert a.history() == b.history()


def test_json_round_trip_at_every_step(game):
    rng = random.Random(5)
    state = game.new_initial_state()
    while True:
        restored = game.state_from_json(state.to_json())
        assert restored == state
        assert restored.legal_actions() == state.legal_actions()
        assert restored.current_player() == state.current_player()
        if state.is_terminal():
            break
        state.apply_action(_step(state, rng))


def test_pickled_states_share_one_game_per_ruleset(game):
    """Parallel search sends views to other processes by pickle: a state must come back equal,
    with a game loaded from the same ruleset rather than a copy of the game's caches, and every
    state of that ruleset must share that one game."""
    rng = random.Random(8)
    for state, _ in _decision_points(game, rng, every=9, games=1):
        copy = pickle.loads(pickle.dumps(state))
        assert copy == state and copy.legal_actions() == state.legal_actions()
        assert copy.game is not game and repr(copy.game) == repr(game)
        assert pickle.loads(pickle.dumps(state)).game is copy.game


def test_play_chance_appends_a_run_of_legal_outcomes(game):
    """``play_chance`` may resolve several chance outcomes at once (a whole deal), but each must
    be a legal outcome in turn: the history it leaves replays, step by checked step, to the
    very state it made."""
    rng = random.Random(9)
    calls = 0
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                if rng.random() < 0.3:  # sometimes start partway through a run (a deal)
                    state.apply_action(sample_chance(state, rng))
                    continue
                before = len(state.history())
                state.play_chance(rng)
                calls += 1
                assert len(state.history()) > before
                state.check_invariants()
                assert game.replay(state.history()) == state
            else:
                state.apply_action(_step(state, rng))
    assert calls > 0


def test_clone_is_independent(game):
    rng = random.Random(6)
    state = game.new_initial_state()
    for _ in range(15):
        if state.is_terminal():
            break
        state.apply_action(_step(state, rng))
    snapshot = state.to_dict()
    copy = state.clone()
    assert copy == state
    random_playout(copy, rng)
    assert state.to_dict() == snapshot


def test_observations_are_json_and_resample_hides_only_hidden(game):
    """For each seat, resampling must keep that seat's observation identical, give a playable
    state, and over a game actually vary the hidden information."""
    rng = random.Random(7)
    varied = [0] * game.num_players
    decisions = [0] * game.num_players
    for _ in range(3):
        state = game.new_initial_state()
        step = 0
        while not state.is_terminal():
            step += 1
            if not state.is_chance_node() and step % 3 == 0:
                json.dumps(state.observation(None))
                truth = _hidden_fields(state)
                for seat in range(game.num_players):
                    view = state.observation(seat)
                    assert json.loads(json.dumps(view)) == view
                    decisions[seat] += 1
                    for _ in range(3):
                        sample = state.resample(seat, rng)
                        assert sample.observation(seat) == view
                        assert sample.current_player() == state.current_player()
                        sample.check_invariants()
                        if _hidden_fields(sample) != truth:
                            varied[seat] += 1
                    random_playout(sample, rng)
            state.apply_action(_step(state, rng))
    for seat in range(game.num_players):
        assert decisions[seat] > 0
        assert varied[seat] > 0, f"resample({seat}) never changed any hidden information"


def test_resampler_draws_what_resample_draws(game):
    """Search draws through ``resampler``; a game that prepares it once per position must not
    drift from ``resample`` (same seed, same sample, field for field, history included)."""
    checked = 0
    for state, step in _decision_points(game, random.Random(10), every=3):
        seat = state.current_player()
        draw = state.resampler(seat)
        for k in range(3):
            a = draw(random.Random(step * 7 + k))
            b = state.resample(seat, random.Random(step * 7 + k))
            assert a.to_dict() == b.to_dict()
            checked += 1
    assert checked > 0


def test_resample_depends_only_on_what_the_seat_knows(game):
    """Two states a seat cannot tell apart must resample identically for the same seed; this
    is what makes a searching bot decide alike in both (it cannot peek at hidden cards)."""
    rng = random.Random(8)
    checked = 0
    for state, step in _decision_points(game, rng, every=4):
        seat = state.current_player()
        twin = state.resample(seat, rng)
        a = state.resample(seat, random.Random(step))
        b = twin.resample(seat, random.Random(step))
        assert _hidden_fields(a) == _hidden_fields(b)
        checked += 1
    assert checked > 0
