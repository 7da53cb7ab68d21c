"""Many games of one fieldcraft game stepped together, for self-play learning (extra
``pettingzoo``, which brings Gymnasium; the core :class:`VectorEnv` needs only numpy)::

    from fieldcraft.adapters.vector import VectorEnv
    env = VectorEnv("spy-tracker", num_envs=64, players=3, seed=0)
    obs, mask, info = env.reset()              # obs float32 [N, obs_size], mask int8 [N, A]
    while training:
        actions = policy(obs, mask)            # one action per env, for info["seat"]
        obs, mask, rewards, terminated, info = env.step(actions)

Self-play convention: the caller plays every seat of every game. Each row of ``obs`` is the
observation tensor of the seat to move in that env (``info["seat"]``), and ``mask`` its legal
actions (1 legal, 0 not). Chance never reaches the caller: deals and dice are drawn inside with
one seeded ``random.Random`` per env, so a seed replays every env's trajectory exactly. A finished
game is reset at once, in the same ``step`` (Gymnasium's same-step autoreset): ``terminated[i]``
is set, ``rewards[i]`` is the game's return vector for **all** seats (row ``[P]``, one entry per
seat, also in ``info["final_returns"]``), and ``obs[i]`` is already the first decision of the
next game. Before the end ``rewards`` is 0, as the games' returns are given only at the end; so
a learner credits ``rewards[i, s]`` to the decisions seat ``s`` made in that game, which it must
remember itself (``info["seat"]`` says who made each). A game that could go on for ever (a
ruleset whose ``max_game_length`` is ``None``) is cut after its spec's ``length_cap`` decisions:
``info["truncated"][i]`` is set, rewards 0, and it is reset the same way.

An illegal action for any env raises :class:`~fieldcraft.core.errors.IllegalActionError`
naming the env and seat, before any env moves: the whole batch is refused and nothing changes.

Speed: the observation and mask buffers are allocated once and written in place (each row by
the game's ``Observer.write_tensor`` where it has one, straight from the state with no list in
between; the masks marked from the legal-action lists); the loops over the envs (apply and play
chance, write the rows, check the actions) are ``fieldcraft.core.fast`` functions, one call a
batch, compiled with it. The returned arrays are those buffers, overwritten by the next call,
so copy what you keep.

:class:`GymVectorEnv` wraps it as a ``gymnasium.vector.VectorEnv`` for code that takes one.
"""

from __future__ import annotations

import random
from array import array
from typing import Any

import numpy as np

from fieldcraft.core import fast
from fieldcraft.core.api import CHANCE, TERMINAL, Game, State
from fieldcraft.core.errors import IllegalActionError
from fieldcraft.core.registry import game_spec, load_game

try:  # the Gymnasium wrapper only: the core env needs numpy alone
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ImportError:  # pragma: no cover - without the pettingzoo extra
    gymnasium = None  # type: ignore[assignment]

REDEALS = 1000
"""How many deals a reset tries for a game in which somebody decides before giving up (chance
alone ending a game is not something any current game does; the bound keeps a bug finite)."""


class VectorEnv:
    """``num_envs`` games of one game and ruleset, each waiting for its seat to move.

    ``game`` is a game id (with ``players`` and ``variant`` as :func:`load_game` takes them) or
    a :class:`Game` already made (then ``players`` and ``variant`` must be ``None``).
    """

    def __init__(self, game: str | Game, num_envs: int, players: int | None = None,
                 seed: int = 0, variant: str | None = None, **overrides: Any):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if isinstance(game, Game):
            if players is not None or variant is not None or overrides:
                raise ValueError("pass players, variant and overrides to load_game, not with "
                                 "a Game")
            self.game = game
        else:
            self.game = load_game(game, players, variant, **overrides)
        info = self.game.info()
        self.num_envs = num_envs
        self.num_players = self.game.num_players
        self.num_actions = info.num_distinct_actions
        observer = self.game.observer
        self._tensor = observer.tensor
        self.obs_size = observer.tensor_size()
        self.cap: int | None = (game_spec(self.game.name).length_cap
                                if info.max_game_length is None else None)
        n, p = num_envs, self.num_players
        self._obs = np.zeros((n, self.obs_size), np.float32)
        self._flat = array("d", bytes(8 * n * self.obs_size))
        """Every env's tensor, rows end to end, as the games write them (doubles, so that
        a game whose tensor holds fractions loses nothing before the one cast to float32)."""
        self._wide = np.frombuffer(self._flat, np.float64).reshape(n, self.obs_size)
        self._write = getattr(observer, "write_tensor", None)
        """The game's own writer into a buffer (``write_tensor``), or None: then each tensor
        comes as a list and :func:`fieldcraft.core.fast.put_doubles` copies it in."""
        self._flags = array("b", bytes(n * self.num_actions))
        """Every env's legal actions (1 legal), rows end to end: what ``step`` checks actions
        against (the masks handed out are a copy, which a caller may change freely)."""
        self._legal = np.frombuffer(self._flags, np.int8).reshape(n, self.num_actions)
        self._mask = np.zeros((n, self.num_actions), np.int8)
        self._rewards = np.zeros((n, p), np.float32)
        self._terminated = np.zeros(n, bool)
        self._truncated = np.zeros(n, bool)
        self._seat = np.zeros(n, np.int64)
        self._rows = np.arange(n)
        self.states: list[State] = []
        """The games being played, one per env (read them; stepping them directly would put
        the buffers out of step with the games)."""
        self._rngs: list[random.Random] = []
        self._decisions = [0] * n
        self._seats = [0] * n
        self.finished: list[tuple[int, State, int]] = []
        """The games the last ``step`` finished: (env, final state, the seat that moved last)."""
        self._seed = seed

    # -- the API ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Start a new game in every env; ``seed`` (default: the one given at construction)
        seeds one independent generator per env, drawn from a ``numpy`` ``SeedSequence`` so
        that envs and seeds do not overlap."""
        if seed is not None:
            self._seed = seed
        children = np.random.SeedSequence(self._seed).spawn(self.num_envs)
        self._rngs = [random.Random(int.from_bytes(c.generate_state(4).tobytes(), "little"))
                      for c in children]
        self.states = [self._new_game(i) for i in range(self.num_envs)]
        self._decisions = [0] * self.num_envs
        self.finished = []
        self._write_all()
        return self._obs, self._mask, {"seat": self._seat}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Apply one action per env (for the seat ``info["seat"]`` named), play chance, reset
        finished games; see the module docstring for what comes back."""
        states = self.states
        if not states:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} integers, one per env; got "
                             f"shape {acts.shape} of {acts.dtype}")
        acts_list: list[int] = acts.tolist()
        self._check(acts, acts_list)
        rewards, terminated, truncated = self._rewards, self._terminated, self._truncated
        if self.finished:  # only rows that were set last time need clearing
            rewards.fill(0.0)
            terminated.fill(False)
            truncated.fill(False)
        self.finished = []
        decisions = self._decisions
        for i in fast.advance(states, acts_list, self._rngs, decisions, self.cap or 0, CHANCE,
                              TERMINAL):
            state = states[i]
            if state.current_player() == TERMINAL:
                rewards[i] = state.returns()
                terminated[i] = True
            else:  # made its cap of decisions
                truncated[i] = True
            self.finished.append((i, state, self._seats[i]))
            states[i] = self._new_game(i)
            decisions[i] = 0
        self._write_all()
        info: dict[str, Any] = {"seat": self._seat, "truncated": truncated}
        if self.finished:
            info["final_returns"] = rewards
        return self._obs, self._mask, rewards, terminated, info

    def legal_actions(self, env: int) -> list[int]:
        """The legal actions of the seat to move in ``env`` (what its mask row marks)."""
        return self.states[env].legal_actions()

    # -- inside -------------------------------------------------------------------------------
    def _check(self, acts: np.ndarray, acts_list: list[int]) -> None:
        """Refuse the batch if any action is not legal in its env, before anything moves: one
        pass over the legal flags for the whole batch (they hold exactly each game's
        ``legal_actions``), the game's own message for the first bad one."""
        try:
            bad = fast.first_illegal(self._flags, self.num_actions, acts_list)
        except OverflowError:  # an action beyond a C integer (the compiled loop's): numpy's
            inside = (acts >= 0) & (acts < self.num_actions)
            ok = inside.copy()
            ok[inside] = self._legal[self._rows[inside], acts[inside]] == 1
            bad = int(np.flatnonzero(~ok)[0])
        if bad >= 0:
            action = acts_list[bad]
            raise IllegalActionError(f"env {bad}, seat {self._seats[bad]}: "
                                     f"{self.states[bad]._illegal_message(action)}")

    def _new_game(self, i: int) -> State:
        """A fresh game in env ``i``, chance played up to its first decision."""
        rng = self._rngs[i]
        for _ in range(REDEALS):
            state = self.game.new_initial_state()
            while state.current_player() == CHANCE:
                state.play_chance(rng)
            if state.current_player() != TERMINAL:
                return state
        raise RuntimeError(f"{REDEALS} deals in a row of {self.game!r} ended with no decision")

    def _write_all(self) -> None:
        """Every env's observation row, seat and legal flags, from the games as they stand
        (each is at a decision): the tensors straight into one buffer of doubles (the game's
        ``write_tensor`` where it has one, else its list copied in), cast to float32 in one
        numpy call; the flags marked in C from each legal-action list."""
        fast.write_rows(self.states, self._seats, self._write, self._tensor, self._flat,
                        self.obs_size, self._flags, self.num_actions)
        np.copyto(self._obs, self._wide, casting="same_kind")
        np.copyto(self._mask, self._legal)
        self._seat[:] = self._seats


if gymnasium is not None:
    class GymVectorEnv(gymnasium.vector.VectorEnv):
        """:class:`VectorEnv` as a ``gymnasium.vector.VectorEnv`` (same-step autoreset).

        Single-agent view of self-play: the reward of env ``i`` is the return, at the end, of
        the seat that made the last move (0 before), as a two-player zero-sum learner playing
        both sides expects; ``infos["returns"]`` holds every seat's ([N, P]) and
        ``infos["seat"]`` who moves next. The action masks are ``infos["action_mask"]``; the
        finished games' last observations (for the seat that moved last) are
        ``infos["final_obs"]``, as Gymnasium's same-step mode puts them. An illegal action
        raises, as :class:`VectorEnv` does.
        """

        metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

        def __init__(self, game: str | Game, num_envs: int, players: int | None = None,
                     seed: int = 0, variant: str | None = None, **overrides: Any):
            self.env = VectorEnv(game, num_envs, players, seed, variant, **overrides)
            self.num_envs = num_envs
            from fieldcraft.adapters.gym import observation_bounds  # registers the gym ids

            low, high = observation_bounds(self.env.game)
            self.single_observation_space = spaces.Box(low, high, (self.env.obs_size,),
                                                       np.float32)
            self.single_action_space = spaces.Discrete(self.env.num_actions)
            self.observation_space = batch_space(self.single_observation_space, num_envs)
            self.action_space = batch_space(self.single_action_space, num_envs)

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
                  ) -> tuple[np.ndarray, dict[str, Any]]:
            obs, mask, info = self.env.reset(seed)
            return obs, {"action_mask": mask, "seat": info["seat"]}

        def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              dict[str, Any]]:
            env = self.env
            obs, mask, returns, terminated, info = env.step(actions)
            reward = np.zeros(self.num_envs, np.float32)
            infos: dict[str, Any] = {"action_mask": mask, "seat": info["seat"],
                                     "returns": returns}
            if env.finished:
                final = np.zeros_like(obs)
                done = np.zeros(self.num_envs, bool)
                for i, state, seat in env.finished:
                    reward[i] = returns[i, seat]
                    final[i] = env._tensor(state, seat)
                    done[i] = True
                infos["final_obs"] = final
                infos["_final_obs"] = done
            return obs, reward, terminated, info["truncated"], infos
