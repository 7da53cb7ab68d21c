"""Run in a subprocess by ``test_openspiel.py``: OpenSpiel's own checks on one fieldcraft game;
with ``deep`` first (``test_infostate.py``), Deep CFR and NFSP (OpenSpiel's JAX learners, extra
``deep``) on one game, count and variant, learning from the information-state tensor.

It ends through ``exit_cleanly`` (OpenSpiel 2.0.2 can abort while the interpreter shuts down once
a Python game is registered), printing one JSON line of what it measured.
"""

from __future__ import annotations

import json
import random
import sys
import time

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


def _decision_state(game: pyspiel.Game, rng: random.Random) -> pyspiel.State:
    state = game.new_initial_state()
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(actions, probs)[0])
    return state


def _rollout(state: pyspiel.State, player: int) -> float:
    """``player``'s return after uniform random play to the end (chance by its odds)."""
    state = state.clone()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(np.random.choice(actions, p=probs)))
        else:
            state.apply_action(int(np.random.choice(state.legal_actions())))
    return state.returns()[player]


def deep_cfr_run(game: pyspiel.Game, exact: bool) -> dict:
    """Two Deep CFR iterations with tiny networks. On a game whose traversals are exact to
    the end (``exact``: the tiny variant) OpenSpiel's solver runs as it is. On a full game one
    external-sampling traversal (every action of the traverser at every one of its decisions,
    to the end) would never finish, so the traversal is cut after the traverser's first
    decision: every branch of that decision is valued by a uniform random rollout. Everything
    before the cut (the memories, the networks' training, the policy) is the solver's own."""
    from open_spiel.python.jax import deep_cfr

    class Shallow(deep_cfr.DeepCFRSolver):
        depth = 0
        limit = 1_000_000 if exact else 1

        def _traverse_game_tree(self, state, player: int):  # noqa: ANN202 (OpenSpiel's)
            if state.is_terminal():
                return state.returns()[player]
            if self.depth >= self.limit:
                return _rollout(state, player)
            if state.is_chance_node() or state.current_player() != player:
                return super()._traverse_game_tree(state, player)
            self.depth += 1
            try:
                return super()._traverse_game_tree(state, player)
            finally:
                self.depth -= 1

    np.random.seed(0)
    solver = Shallow(game, policy_network_layers=(8,), advantage_network_layers=(8,),
                     num_iterations=2, num_traversals=2, learning_rate=1e-3,
                     batch_size_advantage=None, batch_size_strategy=None, memory_capacity=64,
                     policy_network_train_steps=4, advantage_network_train_steps=4, seed=0)
    _, advantage_losses, policy_loss = solver.solve()
    state = _decision_state(game, random.Random(1))
    probs = solver.action_probabilities(state)
    out = {"advantage_losses": {str(p): [None if x is None else float(x) for x in losses]
                                for p, losses in advantage_losses.items()},
           "policy_loss": None if policy_loss is None else float(policy_loss),
           "policy": {str(a): float(p) for a, p in probs.items() if p > 0},
           "legal": state.legal_actions()}
    if exact:
        from open_spiel.python import policy
        from open_spiel.python.algorithms import exploitability
        average = policy.tabular_policy_from_callable(game, solver.action_probabilities)
        out["nash_conv"] = float(exploitability.nash_conv(game, average))
    return out


def nfsp_run(game: pyspiel.Game, max_episodes: int) -> dict:
    """A few NFSP episodes of self-play with tiny networks and buffers small enough that both
    of its networks (best response and average policy) take learning steps. Every episode is
    a best-response one (``anticipatory_param=1``): OpenSpiel 2.0.2's JAX NFSP fills its
    average-policy reservoir only in those, and over a few episodes with the usual 0.1 it can
    reach a learning step with the reservoir still unmade (``TypeError`` on its length). It
    plays whole episodes until every seat's two networks have reported a loss."""
    from open_spiel.python import rl_environment
    from open_spiel.python.jax import nfsp

    class ArrayEnvironment(rl_environment.Environment):
        """Information states as float32 arrays: the learners ``jnp.asarray`` each one several
        times a step, which for a list of tens of thousands of floats costs about 100 ms
        (docs/research.md); for an array, next to nothing."""

        def get_time_step(self):  # noqa: ANN202 (OpenSpiel's)
            step = super().get_time_step()
            step.observations["info_state"] = [
                np.asarray(x, np.float32) for x in step.observations["info_state"]]
            return step

    env = ArrayEnvironment(game, seed=0)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [nfsp.NFSP(p, state_representation_size=size, num_actions=actions,
                        hidden_layers_sizes=[8], reservoir_buffer_capacity=64,
                        anticipatory_param=1.0, batch_size=8, min_buffer_size_to_learn=8,
                        learn_every=8, replay_buffer_capacity=64, allow_checkpointing=False,
                        seed=p)
              for p in range(game.num_players())]
    steps = episodes = 0
    losses: list[list[float | None]] = [[None, None]]
    while episodes < max_episodes and any(x is None for pair in losses for x in pair):
        time_step = env.reset()
        while not time_step.last():
            agent = agents[time_step.observations["current_player"]]
            time_step = env.step([agent.step(time_step).action])
            steps += 1
        for agent in agents:
            agent.step(time_step)
        episodes += 1
        losses = [[None if x is None else float(x) for x in agent.loss] for agent in agents]
    return {"size": size, "episodes": episodes, "steps": steps, "losses": losses}


def deep(name: str, players: int, variant: str) -> dict:
    game = pyspiel.load_game(fo.short_name(name), {"players": players, "variant": variant})
    start = time.perf_counter()
    cfr = deep_cfr_run(game, exact=variant == "tiny")
    middle = time.perf_counter()
    learner = nfsp_run(game, max_episodes=100)
    return {"game": str(game), "tensor": game.information_state_tensor_size(),
            "deep_cfr": cfr, "nfsp": learner,
            "seconds": [round(middle - start, 1), round(time.perf_counter() - middle, 1)]}


if __name__ == "__main__":
    sys.setrecursionlimit(50_000)  # Deep CFR recurses once per move of a whole game
    if sys.argv[1] == "deep":
        result = deep(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
    else:
        result = main(sys.argv[1], int(sys.argv[2]))
    print(json.dumps(result))
    fo.exit_cleanly(0)
