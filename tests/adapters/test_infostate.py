"""The perfect-recall information-state tensor (``fieldcraft.adapters.infostate``), checked the
way the issue asks: over random play, histories a seat cannot tell apart (equal information-state
strings) give equal tensors, and histories it can tell apart give different ones, for every game
at its smallest and largest player count and for each named variant at its smallest count; and
OpenSpiel's Deep CFR and NFSP learning from it, at each game's smallest count."""

from __future__ import annotations

import hashlib
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fieldcraft.core.registry import game_spec, list_games, variants

pyspiel = pytest.importorskip("pyspiel")
import fieldcraft.adapters.openspiel as fo  # noqa: E402

PERFECT_RECALL = pyspiel.IIGObservationType(perfect_recall=True)


def _configs() -> list[tuple[str, int, str]]:
    out = []
    for name in list_games():
        spec = game_spec(name)
        out += [(name, spec.min_players, ""), (name, spec.max_players, "")]
        out += [(name, spec.min_players, variant) for variant in variants(name)]
    return out


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class RecallCheck:
    """Records each (information-state string, tensor) met and fails on the first pair that
    breaks perfect recall either way. Strings and tensors are compared by digest, so memory
    stays small over many states."""

    def __init__(self, game: pyspiel.Game):
        self.game = game
        self.observer = game.make_py_observer(PERFECT_RECALL)
        self.tensor_of: dict[bytes, bytes] = {}
        self.string_of: dict[bytes, str] = {}
        self.equal_pairs = 0
        self.states = 0

    def tensor(self, state: fo.FieldcraftState, seat: int) -> np.ndarray:
        self.observer.set_from(state, seat)
        return self.observer.tensor

    def record(self, state: fo.FieldcraftState, seat: int) -> None:
        text = state.information_state_string(seat)
        key, value = _digest(text.encode()), _digest(self.tensor(state, seat).tobytes())
        self.states += 1
        known = self.tensor_of.get(key)
        if known is not None:
            self.equal_pairs += 1
            assert known == value, f"seat {seat}: equal information states, different tensors"
        self.tensor_of[key] = value
        other = self.string_of.setdefault(value, text)
        assert other == text, (f"seat {seat}: different information states, same tensor:\n"
                               f"{other[-300:]}\n---\n{text[-300:]}")

    def resampled(self, state: fo.FieldcraftState, seat: int, rng: random.Random) -> None:
        """A re-deal of what ``seat`` cannot see: its information state is kept, so its
        tensor must be too."""
        sample = state.resample_from_infostate(seat, lambda: rng.random())
        assert sample.information_state_string(seat) == state.information_state_string(seat)
        expected = self.tensor(state, seat).copy()
        assert np.array_equal(self.tensor(sample, seat), expected), \
            f"seat {seat}: a resample kept the information state but changed the tensor"
        self.equal_pairs += 1


def _random_play(check: RecallCheck, seed: int, resamples: int) -> None:
    rng = random.Random(seed)
    state = check.game.new_initial_state()
    players = check.game.num_players()
    decisions = 0
    while True:
        for seat in range(players):
            check.record(state, seat)
        if state.is_terminal():
            return
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        if decisions % 7 == 0 and resamples:
            check.resampled(state, state.current_player(), rng)
            resamples -= 1
        state.apply_action(rng.choice(state.legal_actions()))
        decisions += 1


@pytest.mark.parametrize(("name", "players", "variant"), _configs())
def test_tensor_is_a_function_of_the_information_state_and_loses_none_of_it(
        name: str, players: int, variant: str) -> None:
    game = pyspiel.load_game(fo.short_name(name), {"players": players, "variant": variant})
    check = RecallCheck(game)
    for seed in range(3):
        _random_play(check, seed, resamples=6)
    assert check.equal_pairs >= 10, "too few indistinguishable pairs were met to test (a)"
    assert len(check.string_of) > 20


@pytest.mark.parametrize(("name", "players", "variant"), _configs())
def test_declared_size_and_named_pieces(name: str, players: int, variant: str) -> None:
    game = pyspiel.load_game(fo.short_name(name), {"players": players, "variant": variant})
    assert game.get_type().provides_information_state_tensor
    size = game.information_state_tensor_size()
    observer = game.make_py_observer(PERFECT_RECALL)
    layout = game.setup.infostate_layout()
    assert size == layout.size == observer.tensor.size > game.observation_tensor_size()
    assert sum(view.size for view in observer.dict.values()) == size
    rng = random.Random(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    for seat in range(players):
        tensor = np.asarray(state.information_state_tensor(seat), np.float32)
        assert tensor.size == size
        observer.set_from(state, seat)
        assert np.array_equal(observer.tensor, tensor)
        # the pieces are what they say: the observation planes, then the lines themselves
        obs = np.asarray(state.observation_tensor(seat), np.float32)
        assert np.array_equal(tensor[:obs.size], obs)
        lines = state.information_state_string(seat).split("\n")[:-1]
        assert layout.unpack(tensor) == lines
        assert observer.dict["history_seen"].sum() == len(lines) > 0


def test_a_line_longer_than_declared_is_refused_not_cut() -> None:
    game = pyspiel.load_game("fieldcraft_spy_tracker", {"players": 2})
    layout = game.setup.infostate_layout()
    with pytest.raises(ValueError, match="longer than the declared"):
        layout.pack(["x" * (layout.width + 1)])


RUN = Path(__file__).with_name("openspiel_run.py")


def _deep_configs() -> list[tuple[str, int, str]]:
    return [(name, players, variant) for name, players, variant in _configs()
            if players == game_spec(name).min_players]


@pytest.mark.parametrize(("name", "players", "variant"), _deep_configs())
def test_deep_cfr_and_nfsp_learn_from_the_tensor(name: str, players: int, variant: str) -> None:
    """OpenSpiel's Deep CFR and NFSP (its JAX learners, extra ``deep``) run on the tensor and
    report finite losses and a policy; in a subprocess, see ``openspiel_run.py``."""
    pytest.importorskip("flax.nnx")
    pytest.importorskip("optax")
    done = subprocess.run([sys.executable, str(RUN), "deep", name, str(players), variant],
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    cfr = result["deep_cfr"]
    for losses in cfr["advantage_losses"].values():
        assert any(x is not None and math.isfinite(x) for x in losses)
    assert cfr["policy_loss"] is not None and math.isfinite(cfr["policy_loss"])
    policy = {int(a): p for a, p in cfr["policy"].items() if p > 0}
    assert set(policy) <= set(cfr["legal"]) and policy
    assert sum(policy.values()) == pytest.approx(1.0, abs=1e-4)
    if variant == "tiny":
        assert math.isfinite(cfr["nash_conv"]) and cfr["nash_conv"] >= -1e-9
    nfsp = result["nfsp"]
    assert nfsp["size"] == result["tensor"]
    assert all(x is not None and math.isfinite(x) for pair in nfsp["losses"] for x in pair)


def test_every_state_of_the_tiny_variant() -> None:
    """Exhaustively on Spy Tracker's tiny variant: over every state of the game and both seats,
    the information-state string and the tensor partition the states the same way (every deal
    of the other seat's card included)."""
    from open_spiel.python.algorithms import get_all_states

    game = pyspiel.load_game("fieldcraft_spy_tracker", {"players": 2, "variant": "tiny"})
    states = get_all_states.get_all_states(game, include_terminals=True,
                                           include_chance_states=True)
    check = RecallCheck(game)
    for state in states.values():
        for seat in range(2):
            check.record(state, seat)
    # a seat cannot see the other's card, so many of its information states hold several states
    assert check.equal_pairs > len(states) // 2

