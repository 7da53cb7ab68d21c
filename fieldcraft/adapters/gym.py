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
overrides), ``normalize`` (below). The observation is the game's observation tensor (float32
``Box``; planes in the game's ``view.py``) with finite bounds per entry
(:func:`observation_bounds`, derived from the rules; with ``normalize=True`` every entry is
scaled by them into [0, 1]), the action space ``Discrete(num_distinct_actions)``, and
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
from fieldcraft.core.api import Game, State, sample_chance
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
                 render_mode: str | None = None, normalize: bool = False):
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
        low, high = observation_bounds(self.fc)
        self.normalize = normalize
        if normalize:
            if not (np.isfinite(low).all() and np.isfinite(high).all()):
                raise ValueError(f"{game}: some observation entries have no known bound, so "
                                 "normalize=True cannot scale them")
            span = high - low
            self._low = low
            self._scale = np.divide(1.0, span, out=np.zeros_like(span), where=span > 0)
            low, high = np.zeros_like(low), np.ones_like(high)
        self.observation_space = spaces.Box(low, high, (observer.tensor_size(),), np.float32)
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
        obs = np.array(self._tensor(self.state, self.seat), np.float32)
        if self.normalize:
            obs -= self._low
            obs *= self._scale
            np.clip(obs, 0.0, 1.0, out=obs)  # float32 rounding only: the bounds are the rules'
        return obs

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat}

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        return str(self.state)


class _Bounds:
    """Per-entry ``low``/``high`` of one game's tensor, set plane by plane by name (a plane a
    game does not have at this ruleset is skipped: Undercover's Jokers, Classified's track)."""

    def __init__(self, game: Game, default: tuple[float, float]):
        self.offsets: dict[str, tuple[int, tuple[int, ...]]] = {}
        at = 0
        for plane in game.observer.planes():
            self.offsets[plane.name] = (at, plane.shape)
            at += plane.size
        self.low = np.full(at, default[0], np.float64)
        self.high = np.full(at, default[1], np.float64)

    def set(self, plane: str, high: float, low: float = 0.0, column: int | None = None) -> None:
        """Bound a whole plane, or one column of its last axis (a field of every row)."""
        if plane not in self.offsets:
            return
        at, shape = self.offsets[plane]
        size = int(np.prod(shape))
        if column is None:
            index = slice(at, at + size)
        else:
            index = slice(at + column, at + size, shape[-1])
        self.low[index] = low
        self.high[index] = high

    def set_entry(self, plane: str, entry: int, high: float, low: float = 0.0) -> None:
        at = self.offsets[plane][0] + entry
        self.low[at] = low
        self.high[at] = high


def _decisions(game: Game) -> int:
    """The most decisions a game can take: ``max_game_length``, or for a ruleset that allows
    endless play the spec's ``length_cap``, after which these adapters end the game (Gymnasium
    truncates, :class:`~fieldcraft.adapters.vector.VectorEnv` resets); counters that grow with
    the game's length are bounded through it."""
    length = game.info().max_game_length
    if length is None:
        length = game_spec(game.name).length_cap
    if length is None:
        raise ValueError(f"{game.name}: no max_game_length and no length_cap")
    return length


def _spy_tracker_bounds(b: _Bounds, g: Any) -> None:
    """Sources only fall; a hand is one card per Source; points stop at ``points_to_win``
    (overshot by at most a spot's points); every round holds a challenge, a decision, so the
    round number is at most the game's decisions + 1; a true count adds +1 or -1 per card in
    play."""
    p = g.num_players
    hand = g.start_sources * g.cards_per_source
    deal = p * hand
    rounds = _decisions(g) + 1
    per_round = (9 * (g.max_count - g.min_bid + 1) if g.no_repeat_bids else _decisions(g))
    b.set("round", rounds)
    b.set("sources", g.start_sources)
    b.set("points", g.points_to_win - 1 + max(g.spot_points, 1))
    b.set("hand_sizes", hand)
    b.set("cards_in_play", deal)
    b.set_entry("bid", p, g.max_count)
    b.set("bids", per_round, column=p + 1)
    b.set("hand", hand)
    b.set_entry("reveal", 1, rounds)
    b.set_entry("reveal", 3, g.max_count)
    b.set_entry("reveal", 4, deal, -deal)
    at, shape = b.offsets["reveal"]
    opened = at + shape[0] - p * g.num_cards
    b.low[opened:at + shape[0]] = 0.0
    b.high[opened:at + shape[0]] = hand


def _against_the_current_bounds(b: _Bounds, g: Any) -> None:
    """A Current Shift adds one wheel step and is drawn at most once a turn, a seat's turn once
    a round, and the steps are spent when the round ends; three tokens claim a tributary each;
    the event counts are the deck's."""
    b.set("extra_wheel_steps", g.num_players)
    values = g.tributaries
    b.set("score", 3 * max(max(values), 0), 3 * min(min(values), 0))
    b.set("deck_size", g.deck_size)
    at = b.offsets["unseen_events"][0]
    b.high[at:at + len(g.deck_counts)] = g.deck_counts


def _under_current_bounds(b: _Bounds, g: Any) -> None:
    """Turns: a turn that is not skipped holds a pass and the receiver's answer (2 decisions),
    and at most ``N`` turns in a row are skipped (every seat with an empty hand: then the pile
    is empty and the last round ends the game within ``N`` turns), so at most
    ``N * (decisions // 2 + 1)`` turns. Hands never pass the hand size; every card is drawn,
    used or removed once."""
    n, c = g.num_players, g.num_cards
    b.set("players", n, n)
    b.set("turn", n * (_decisions(g) // 2 + 1))
    b.set("deck_count", c)
    b.set("final_turns_left", n)
    b.set("hand_sizes", g.hand_size)
    b.set("discard_order", c)
    b.set("removed", c)


def _undercover_bounds(b: _Bounds, g: Any) -> None:
    """Coordinates are on the board; every turn holds a decision (activating a tile), so turns
    are at most the game's decisions; piles hold Agents only; a score is one token or column
    value per lane, the Opposite Side's lane counted ``opposite_multiplier`` times; the ruleset
    constants are themselves."""
    n = g.num_players
    turns = _decisions(g)
    x, y = g.width - 1, g.height - 1
    b.set_entry("clock", 0, turns)
    b.set_entry("clock", 1, turns // n + 1)
    agents, width = b.offsets["agents"][1]
    x_col = g.num_piles + 3  # after on the board, held, top of each pile, hidden
    b.set("agents", x, column=x_col)
    b.set("agents", y, column=x_col + 1)
    b.set("jokers", x, column=3)
    b.set("jokers", y, column=4)
    b.set("piles", agents)
    b.set_entry("hand", 1, x)
    b.set_entry("hand", 2, y)
    b.set("staffers", g.track_len)
    constants = [int(g.classified), n, g.width, g.height, g.track_len,
                 0 if g.classified else g.tokens_to_end, g.black_line, int(g.blocked_last)]
    for i, value in enumerate(constants):
        b.set_entry("rules", i, max(value, 0), min(value, 0))
    values = g.column_values if g.classified else [0, g.max_token_value]
    b.set("column_values", max(max(values), 0), min(min(values), 0))
    b.set("hq", x, column=1)
    b.set("hq", y, column=2)
    b.set("tokens", g.max_token_value, column=1)
    b.set("taken", g.max_token_value)
    lanes = 5 + g.multiplier  # six lanes, the Opposite Side's counted x multiplier
    b.set("scores", lanes * max(max(values), 0), lanes * min(min(values), 0))


_BOUNDS = {
    "spy-tracker": _spy_tracker_bounds,
    "against-the-current": _against_the_current_bounds,
    "under-current": _under_current_bounds,
    "undercover": _undercover_bounds,
}
"""Per game: the bounds of its planes that are not 0/1 (one-hots and flags), from its rules.
The games declare shapes but no ranges for their planes, so the ranges live here, beside the
adapter that needs them; a test plays every game's test variants and checks each observation
against them."""


def observation_bounds(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)``, float32 arrays of ``tensor_size()``: a range every entry of the game's
    observation tensor stays in, for any seat and any legal play (up to ``length_cap`` decisions
    for a ruleset that allows endless play). Entries not named by the game's bounds are 0/1
    (one-hots and flags). A game with no bounds declared here gets ``(-inf, inf)`` throughout,
    which is honest, not useful."""
    derive = _BOUNDS.get(game.name)
    if derive is None:
        b = _Bounds(game, (-np.inf, np.inf))
    else:
        b = _Bounds(game, (0.0, 1.0))
        derive(b, game)
    return b.low.astype(np.float32), b.high.astype(np.float32)


def env_id(game: str) -> str:
    """``spy-tracker`` -> ``fieldcraft/SpyTracker-v0`` (the title in CamelCase)."""
    title = game_spec(game).title
    return "fieldcraft/" + "".join(w[:1].upper() + w[1:] for w in title.split()) + "-v0"


for _game in list_games():
    if env_id(_game) not in gymnasium.registry:
        gymnasium.register(id=env_id(_game), entry_point=FieldcraftEnv, kwargs={"game": _game})
