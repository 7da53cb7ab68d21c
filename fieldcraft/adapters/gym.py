"""Every fieldcraft game as a single-agent Gymnasium environment: one seat learns, the other
seats are fieldcraft agents (extra ``pettingzoo``, which brings Gymnasium)::

    import gymnasium as gym
    import fieldcraft.adapters.gym  # noqa: F401  (registers fieldcraft/<Game>-v0)
    env = gym.make("fieldcraft/SpyTracker-v0", players=2, opponents="heuristic")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

Ids: ``fieldcraft/UnderCurrent-v0``, ``fieldcraft/SpyTracker-v0``,
``fieldcraft/AgainstTheCurrent-v0``, ``fieldcraft/Undercover-v0`` (the title in CamelCase).
Keywords:
``players``, ``seat`` (the learner's seat; ``None`` draws one at each reset), ``opponents`` (an
agent spec for every other seat, such as ``"random"``, ``"heuristic"`` or
``"ismcts(iterations=200)"``, or a list with one per other seat), ``rules`` (a dict of ruleset
overrides). The observation is the game's observation tensor (float32 ``Box``; planes in the
game's ``view.py``), the action space ``Discrete(num_distinct_actions)``, and
:meth:`FieldcraftEnv.action_masks` gives the legal actions as sb3-contrib's ``MaskablePPO``
expects (also in ``info["action_mask"]``). The reward is the learner's return at the end (0
before). Chance and the opponents' choices are drawn from the seed given to ``reset``.
``action_space.sample()`` draws a legal action. An illegal action changes nothing and, as
PettingZoo's ``TerminateIllegalWrapper`` does for its classic games, ends the episode with
``illegal_reward`` (default -1) and the reason in ``info["illegal_action"]``; with
``illegal="raise"`` it raises ``IllegalActionError`` instead. An action outside the space raises
``ValueError``. ``reset`` always returns a game in which the learner has a decision: a deal
that ends before the learner's first turn (chance and the opponents can finish Under Current
that fast) is dropped and the next one drawn from the same seed.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from fieldcraft.agents import View, make_agent
from fieldcraft.core.api import State, sample_chance
from fieldcraft.core.errors import IllegalActionError
from fieldcraft.core.registry import game_spec, list_games, load_game

REDEALS = 1000
"""How many deals ``reset`` tries for one in which the learner has a decision before it gives
up (a game would have to end before the learner's turn nearly always to get there)."""


class LegalDiscrete(spaces.Discrete):
    """``Discrete`` whose ``sample()`` draws a legal action of the seat to move (the env's
    mask) unless given a mask, so code that samples the space blindly, as Gymnasium's own
    checker does, plays legal moves; an illegal action passed to ``step`` still raises."""

    def __init__(self, n: int, masks: Any):
        super().__init__(n)
        self._masks = masks

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._masks()
            if legal.any():
                mask = legal
        return super().sample(mask=mask, probability=probability)


class FieldcraftEnv(gymnasium.Env):
    """One seat of a fieldcraft game against fieldcraft agents."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str, players: int | None = None, seat: int | None = 0,
                 opponents: str | list[str] = "heuristic", rules: dict[str, Any] | None = None,
                 illegal: str = "lose", illegal_reward: float = -1.0,
                 render_mode: str | None = None):
        if illegal not in ("lose", "raise"):
            raise ValueError(f'illegal must be "lose" or "raise", got {illegal!r}')
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.fc = load_game(game, players, **(rules or {}))
        n = self.fc.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0-{n - 1} (or None for a random seat), got {seat}")
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"opponents needs {n - 1} agent specs, got {len(specs)}")
        for spec in specs:
            make_agent(spec)  # a bad spec fails here, with the agent's own message
        self.opponent_specs = specs
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        info = self.fc.info()
        self.cap = game_spec(game).length_cap if info.max_game_length is None else None
        observer = self.fc.observer
        self._tensor = observer.tensor
        self.observation_space = spaces.Box(-np.inf, np.inf, (observer.tensor_size(),),
                                            np.float32)
        self.action_space = LegalDiscrete(info.num_distinct_actions, self.action_masks)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.state: State | None = None
        self._rng = random.Random()
        self._opponents: dict[int, Any] = {}
        self._forfeit = False

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game in which the learner has a decision. Chance and the other seats can end
        a game before the learner's first turn (Under Current at 5 and 8 seats, now and then);
        an episode with nothing to decide teaches nothing and its first ``step`` could only
        fail, so such a deal is dropped and the next one drawn from the same generator: the
        seed still replays the episode, and a seed whose first deal was live is unchanged."""
        super().reset(seed=seed)
        self._rng = random.Random(int(self.np_random.integers(2**63)))
        for _ in range(REDEALS):
            self._deal()
            state = self.state
            assert state is not None
            if (not state.is_terminal() and not self._capped()
                    and state.current_player() == self.seat):
                return self._obs(), self._info()
        raise RuntimeError(f"{REDEALS} deals in a row ended before seat {self.seat} had a "
                           "decision: the opponents never let the learner play")

    def _deal(self) -> None:
        """A new game, seat (if drawn) and opponents from ``_rng``, played until the learner
        decides or the game ends."""
        n = self.fc.num_players
        if self.fixed_seat is None:
            self.seat = self._rng.randrange(n)
        others = [s for s in range(n) if s != self.seat]
        self._opponents = {s: make_agent(spec, seed=self._rng.randrange(2**32))
                           for s, spec in zip(others, self.opponent_specs, strict=True)}
        self.state = self.fc.new_initial_state()
        self._decisions = 0
        self._forfeit = False
        self._play_others()

    def _play_others(self) -> None:
        """Chance and the other seats act until the learner decides or the game ends."""
        state = self.state
        assert state is not None
        rng = self._rng
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            seat = state.current_player()
            if seat == self.seat or self._capped():
                return
            state.apply_action(self._opponents[seat].act(View(state, seat)))
            self._decisions += 1

    def _capped(self) -> bool:
        return self.cap is not None and self._decisions >= self.cap

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before step()")
        if state.is_terminal() or self._capped() or self._forfeit:
            raise RuntimeError("the game is over: call reset()")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space}")
        try:
            state.apply_action(int(action))
        except IllegalActionError as exc:
            if self.illegal == "raise":
                raise
            self._forfeit = True  # the game stands as it was; the learner loses it
            info = self._info()
            info["illegal_action"] = str(exc)
            return self._obs(), self.illegal_reward, True, False, info
        self._decisions += 1
        self._play_others()
        terminated = state.is_terminal()
        reward = float(state.returns()[self.seat]) if terminated else 0.0
        truncated = not terminated and self._capped()
        return self._obs(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """1 for each legal action of the learner (all 0 once the game is over)."""
        mask = np.zeros(self.action_space.n, np.int8)
        state = self.state
        if state is not None and not state.is_terminal() and state.current_player() == self.seat:
            mask[state.legal_actions()] = 1
        return mask

    def _obs(self) -> np.ndarray:
        assert self.state is not None
        return np.array(self._tensor(self.state, self.seat), np.float32)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat}

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        return str(self.state)


def env_id(game: str) -> str:
    """``spy-tracker`` -> ``fieldcraft/SpyTracker-v0`` (the title in CamelCase)."""
    title = game_spec(game).title
    return "fieldcraft/" + "".join(w[:1].upper() + w[1:] for w in title.split()) + "-v0"


for _game in list_games():
    if env_id(_game) not in gymnasium.registry:
        gymnasium.register(id=env_id(_game), entry_point=FieldcraftEnv, kwargs={"game": _game})
