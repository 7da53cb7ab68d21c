"""Every fieldcraft game as a PettingZoo AEC environment (extra ``pettingzoo``)::

    from fieldcraft.adapters.pettingzoo import env
    e = env("spy-tracker", players=2, no_repeat_bids=True)   # ruleset overrides as keywords
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            action = None
        else:
            action = e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``seat_0`` ... ``seat_{P-1}``. Each observation is a ``Dict`` of ``observation``, a
float32 ``Box`` holding the game's observation tensor (its planes are documented in the game's
``view.py``; ``env.unwrapped.planes`` names them), and ``action_mask``, an int8 ``Box`` over the
game's ``num_distinct_actions`` with 1 for each legal action of the seat to move (all 0 for the
others). ``state()`` is the global state for centralised training: every seat's observation
tensor, in seat order (``state_space``). Chance (deals, dice, shuffles) is sampled inside from
the seed given to ``reset``, so a seed replays a game exactly. Rewards are the game's returns,
given once at the end. A game whose rules allow endless play is truncated (``truncations`` all
true, rewards 0) after its spec's ``length_cap`` decisions. An illegal action raises
``fieldcraft.core.errors.IllegalActionError`` and changes nothing. ``render_mode="ansi"`` makes
``render()`` return the game as text; ``"human"`` prints that text, after every step too.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from fieldcraft.adapters.gym import observation_bounds
from fieldcraft.core.api import State, sample_chance
from fieldcraft.core.registry import game_spec, load_game


class FieldcraftAEC(AECEnv):
    """One fieldcraft game at one player count and ruleset as an AEC environment."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, render_mode: str | None = None,
                 **overrides: Any):
        super().__init__()
        self.fc = load_game(game, players, **overrides)
        spec = game_spec(game)
        self.metadata = {**self.metadata, "name": f"fieldcraft_{game.replace('-', '_')}_v0"}
        n = self.fc.num_players
        info = self.fc.info()
        self.cap = spec.length_cap if info.max_game_length is None else None
        observer = self.fc.observer
        self.planes = observer.planes()
        self._tensor = observer.tensor
        self._actions = info.num_distinct_actions
        self.possible_agents = [f"seat_{s}" for s in range(n)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        # the same finite bounds as the Gymnasium env's (derived from the rules: gym.py)
        low, high = observation_bounds(self.fc)
        obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, (observer.tensor_size(),), np.float32),
            "action_mask": spaces.Box(0, 1, (self._actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.state_space = spaces.Box(np.tile(low, n), np.tile(high, n),
                                      (n * observer.tensor_size(),), np.float32)
        self.action_spaces = {a: spaces.Discrete(self._actions) for a in self.possible_agents}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.game_state: State | None = None
        """The fieldcraft game being played (not ``state``: that is ``AECEnv.state()``)."""
        self._rng = random.Random()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._rng = random.Random(seed)
        self.game_state = self.fc.new_initial_state()
        self._decisions = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._advance()

    def _advance(self) -> None:
        """Play chance until a seat decides or the game ends, then point at the seat."""
        state = self.game_state
        assert state is not None
        rng = self._rng
        while state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        if state.is_terminal():
            returns = state.returns()
            for agent, value in zip(self.possible_agents, returns, strict=True):
                self.rewards[agent] = float(value)
                self.terminations[agent] = True
        elif self.cap is not None and self._decisions >= self.cap:
            for agent in self.agents:
                self.truncations[agent] = True
        else:
            self.agent_selection = self.possible_agents[state.current_player()]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        assert state is not None
        state.apply_action(int(action) if isinstance(action, np.integer) else action)
        self._decisions += 1
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.game_state
        assert state is not None
        seat = self._seat[agent]
        mask = np.zeros(self._actions, np.int8)
        if not state.is_terminal() and state.current_player() == seat:
            mask[state.legal_actions()] = 1
        return {"observation": np.array(self._tensor(state, seat), np.float32),
                "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state for centralised training (QMIX and the like): every seat's
        observation tensor, seat by seat, in ``state_space``. That is everything any seat knows
        (all hands, say) but not what no seat has seen (the order of the deck), so a critic
        trained on it learns nothing it could not be told."""
        state = self.game_state
        if state is None:
            raise RuntimeError("call reset() before state()")
        return np.concatenate([np.array(self._tensor(state, seat), np.float32)
                               for seat in range(len(self.possible_agents))])

    def render(self) -> str | None:
        """``ansi``: the game as text (its JSON). ``human``: that text printed, returning
        ``None`` as Gymnasium's human mode does (and printed after every step too, as
        PettingZoo's classic games show each move); the games have no picture to draw."""
        if self.render_mode is None or self.game_state is None:
            return None
        text = str(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(game: str, players: int | None = None, render_mode: str | None = None,
            **overrides: Any) -> FieldcraftAEC:
    """The environment without PettingZoo's order-checking wrapper (a little faster)."""
    return FieldcraftAEC(game, players, render_mode, **overrides)


def env(game: str, players: int | None = None, render_mode: str | None = None,
        **overrides: Any) -> AECEnv:
    """The environment as PettingZoo's own classic games come: wrapped to enforce call order
    and to refuse actions outside the space."""
    return wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(raw_env(game, players, render_mode, **overrides)))
