"""Run in a subprocess by ``test_openspiel.py``: OpenSpiel's own checks on one fieldcraft game.

It ends through ``exit_cleanly`` (OpenSpiel 2.0.2 can abort while the interpreter shuts down once
a Python game is registered), printing one JSON line of what it measured.
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import fieldcraft.adapters.openspiel as fo
from fieldcraft.core.conformance import configurations
from fieldcraft.core.registry import game_spec


def play(game: pyspiel.Game, bots: list, rng: random.Random) -> tuple[list[float], int]:
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        state.apply_action(bots[state.current_player()].step(state))
        moves += 1
    return state.returns(), moves


def main(name: str, sims: int) -> dict:
    spec = game_spec(name)
    out: dict = {"sims": [], "resample": 0}
    players = (spec.min_players, spec.max_players)
    for count, overrides in configurations(name):
        if count not in players:
            continue
        game = pyspiel.load_game(fo.short_name(name),
                                 {"players": count, "rules": json.dumps(overrides)})
        pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
        out["sims"].append(str(game))
    # a resample keeps the seat's information state, observation and tensor
    game = pyspiel.load_game(fo.short_name(name), {"players": spec.min_players})
    rng = random.Random(0)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        seat = state.current_player()
        sample = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0., 1.))
        assert sample.information_state_string(seat) == state.information_state_string(seat)
        assert sample.observation_string(seat) == state.observation_string(seat)
        assert sample.observation_tensor(seat) == state.observation_tensor(seat)
        assert sample.legal_actions() == state.legal_actions()
        out["resample"] += 1
        state.apply_action(rng.choice(state.legal_actions()))
    # a serialized mid-game state comes back equal
    state = game.new_initial_state()
    for _ in range(25):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[-1])
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(again) == str(state) and again.history() == state.history()
    # OpenSpiel's Python search bots play whole games
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    n = spec.min_players
    isbots = [ismcts.ISMCTSBot(game, evaluator, 2.0, 10, random_state=np.random.RandomState(s))
              for s in range(n)]
    out["ismcts"] = play(game, isbots, rng)
    mbots = [mcts.MCTSBot(game, 2.0, 6, evaluator, random_state=np.random.RandomState(s),
                          solve=False) for s in range(n)]
    out["mcts"] = play(game, mbots, rng)
    return out


if __name__ == "__main__":
    result = main(sys.argv[1], int(sys.argv[2]))
    print(json.dumps(result))
    fo.exit_cleanly(0)
