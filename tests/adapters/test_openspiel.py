"""fieldcraft games inside OpenSpiel: OpenSpiel's own random_sim_test (with serialization) at the
smallest and largest player count of every variant, resampling, and its Python ISMCTS and MCTS
bots playing whole games. Each game runs in a subprocess (see ``openspiel_run.py``)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fieldcraft.core.registry import game_spec, list_games

pyspiel = pytest.importorskip("pyspiel")
import fieldcraft.adapters.openspiel as fo  # noqa: E402

RUN = Path(__file__).with_name("openspiel_run.py")


@pytest.mark.parametrize("name", list_games())
def test_openspiel_checks_pass(name: str) -> None:
    done = subprocess.run([sys.executable, str(RUN), name, "3"], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["sims"], "no configuration was simulated"
    assert result["resample"] > 0
    for bot in ("ismcts", "mcts"):
        returns, moves = result[bot]
        assert moves > 0 and len(returns) >= 2


def test_declared_numbers_are_the_games_own() -> None:
    game = pyspiel.load_game("fieldcraft_spy_tracker", {"players": 3})
    info = game.setup.fc.info()
    assert game.num_distinct_actions() == info.num_distinct_actions
    assert game.max_chance_outcomes() == info.max_chance_outcomes
    assert game.max_game_length() == info.max_game_length == 1397
    assert game.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert game.utility_sum() == 1.0
    state = game.new_initial_state()
    assert all(0 <= a < game.max_chance_outcomes() for a, _ in state.chance_outcomes())


def test_rules_parameter_round_trips_through_the_game_string() -> None:
    game = pyspiel.load_game("fieldcraft_spy_tracker",
                             {"players": 3, "rules": '{"no_repeat_bids": false, "min_bid": 2}'})
    assert game.setup.fc.ruleset["min_bid"] == 2
    again = pyspiel.load_game(str(game))
    assert again.setup.fc.ruleset == game.setup.fc.ruleset
    assert again.max_game_length() == 3000  # the variant can go on for ever: the spec's cap


@pytest.mark.parametrize(("rules", "message"), [
    ('{"nope": 1}', "unknown ruleset key 'nope'"),
    ("[1]", "JSON object"),
    ("{bad", "JSON object"),
])
def test_bad_rules_are_refused_by_name(rules: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("fieldcraft_spy_tracker", {"players": 2, "rules": rules})


@pytest.mark.parametrize(("name", "players", "length"), [
    ("against_the_current", 2, 1208), ("against_the_current", 4, 2416),
    ("undercover", 2, 600), ("undercover", 6, 1800),
])
def test_a_round_limit_gives_openspiel_the_games_own_finite_length(name: str, players: int,
                                                                    length: int) -> None:
    """With the default ``round_limit`` the games are bounded: OpenSpiel gets their declared
    length, not the spec's cap, and a ``max_game_length`` parameter changes nothing."""
    game = pyspiel.load_game(f"fieldcraft_{name}", {"players": players})
    assert game.max_game_length() == game.setup.fc.info().max_game_length == length
    assert game.setup.cap is None
    capped = pyspiel.load_game(f"fieldcraft_{name}", {"players": players, "max_game_length": 20})
    assert capped.max_game_length() == length
    endless = pyspiel.load_game(f"fieldcraft_{name}",
                                {"players": players, "rules": '{"round_limit": null}'})
    assert endless.max_game_length() == game_spec(name.replace("_", "-")).length_cap


def test_a_capped_game_ends_as_a_draw() -> None:
    game = pyspiel.load_game("fieldcraft_against_the_current",
                             {"players": 2, "max_game_length": 20,
                              "rules": '{"round_limit": null}'})  # the rulebook: endless
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])
            decisions += 1
    assert decisions == 20  # random-free first choices do not finish a race in 20
    assert state.returns() == [0.5, 0.5]


def test_illegal_action_raises_and_changes_nothing() -> None:
    game = pyspiel.load_game("fieldcraft_spy_tracker", {"players": 2})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before = str(state)
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(0)  # a call before any bid
    assert str(state) == before and fo.short_name("spy-tracker") == "fieldcraft_spy_tracker"


def _deal_and_open(game, swap_opponent: bool):
    """Spy Tracker 2p, seat 0 opening: seat 0 gets the same two cards either way, seat 1 gets
    one of two different pairs."""
    state = game.new_initial_state()
    state.apply_action(0)  # chance: seat 0 opens
    fc = game.setup.fc
    ours, theirs = [0, 1], ([2, 3] if not swap_opponent else [4, 5])
    while state.is_chance_node():
        inner = state.inner
        cards = ours if inner.deal_seat == 0 else theirs
        card = cards.pop(0)
        state.apply_action(inner.deal_first + card - game.setup.offset)
    assert fc is state.inner.game
    return state


def test_information_state_is_what_the_seat_saw_and_nothing_else() -> None:
    game = pyspiel.load_game("fieldcraft_spy_tracker",
                             {"players": 2, "rules": '{"sources": {"2": 1}}'})
    a, b = _deal_and_open(game, False), _deal_and_open(game, True)
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.observation_tensor(0) == b.observation_tensor(0)


def test_information_state_remembers_earlier_rounds() -> None:
    game = pyspiel.load_game("fieldcraft_spy_tracker", {"players": 2})
    state = game.new_initial_state()
    rng = __import__("random").Random(4)
    first_round_bid = None
    while not state.is_terminal() and state.inner.round == 1:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        action = rng.choice(state.legal_actions())
        if first_round_bid is None and action >= 2:
            first_round_bid = state.action_to_string(state.current_player(), action)
        state.apply_action(action)
    assert first_round_bid is not None and state.inner.round == 2
    assert json.loads(state.observation_string(0))["bids"] == []  # the view forgets the round
    assert first_round_bid in state.information_state_string(0)  # the information state does not


def _per_player_calls(game, state) -> dict[str, Any]:
    """Every per-player call of a state and its observers, as ``call(player)``."""
    observers = {
        "observer": game.make_py_observer(),
        "info_state_observer": game.make_py_observer(
            pyspiel.IIGObservationType(perfect_recall=True)),
        "spectator": game.make_py_observer(
            pyspiel.IIGObservationType(perfect_recall=False,
                                       private_info=pyspiel.PrivateInfoType.NONE)),
    }
    calls: dict[str, Any] = {
        "observation_string": state.observation_string,
        "observation_tensor": state.observation_tensor,
        "information_state_string": state.information_state_string,
        "information_state_tensor": state.information_state_tensor,
        "player_return": state.player_return,
        "resample_from_infostate": lambda p: state.resample_from_infostate(
            p, pyspiel.UniformProbabilitySampler(0., 1.)),
    }
    for name, obs in observers.items():
        calls[f"{name}.set_from"] = lambda p, obs=obs: obs.set_from(state, p)
        calls[f"{name}.string_from"] = lambda p, obs=obs: obs.string_from(state, p)
    return calls


@pytest.mark.parametrize("name", list_games())
def test_per_player_calls_refuse_a_player_that_is_not_a_seat(name: str) -> None:
    """OpenSpiel's own games stop on ``player >= 0``; the adapter used to index Python lists
    with the id, so ``observation_string(-1)`` at a chance node gave the last seat's view (Spy
    Tracker 4p: seat 3's hand), a too large id raised ``IndexError``, and at a terminal the
    default (the current player, ``TERMINAL``) wrapped round or failed by accident. Now a
    negative or too large id, or no id where there is no current player, raises
    ``SpielError`` (also a ``ValueError``) and changes nothing; every seat still works."""
    spec = game_spec(name)
    game = pyspiel.load_game(fo.short_name(name), {"players": spec.max_players})
    n = game.num_players()
    state = game.new_initial_state()
    rng = random.Random(1)
    seen: set[str] = set()
    while True:
        kind = ("terminal" if state.is_terminal() else
                "chance" if state.is_chance_node() else "decision")
        if kind not in seen:
            seen.add(kind)
            before = (str(state), [state.information_state_string(s) for s in range(n)])
            calls = _per_player_calls(game, state)
            for call in calls.values():
                for bad in (-1, -2, pyspiel.PlayerId.TERMINAL, n, n + 3):
                    with pytest.raises(pyspiel.SpielError, match="player"):
                        call(bad)
                for seat in range(n):
                    call(seat)
            default = ("observation_string", "observation_tensor", "information_state_string")
            for method in default:
                if kind == "decision":
                    player = state.current_player()
                    assert calls[method]() == calls[method](player)
                else:
                    with pytest.raises(fo.PlayerError, match=f"no player given at a {kind}"):
                        calls[method]()
            assert (str(state), [state.information_state_string(s) for s in range(n)]) == before
            observer = game.make_py_observer()
            observer.set_from(state, n - 1)
            tensor = observer.tensor.copy()
            with pytest.raises(ValueError, match="player"):
                observer.set_from(state, -1)
            assert np.array_equal(observer.tensor, tensor)
        if kind == "terminal":
            break
        if kind == "chance":
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert seen == {"chance", "decision", "terminal"}
