"""The batched self-play env: shapes and dtypes, masks that are the legal actions, same-step
autoreset with the returns of every seat, seeded replay, refused illegal batches, for every
game; and the Gymnasium wrapper over it."""

from __future__ import annotations

import numpy as np
import pytest

from fieldcraft.core.api import State
from fieldcraft.core.errors import IllegalActionError
from fieldcraft.core.registry import list_games, load_game

pytest.importorskip("gymnasium")
from fieldcraft.adapters.vector import GymVectorEnv, VectorEnv  # noqa: E402

N = 4


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``."""
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def play_until_an_end(env: VectorEnv, rng: np.random.Generator, limit: int = 20_000
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
    """Step random legal actions until some env's game ends; the step that ended it."""
    _, mask, _ = env.reset()
    for _ in range(limit):
        out = env.step(random_actions(mask, rng))
        _, mask, _, terminated, info = out
        if terminated.any() or info["truncated"].any():
            return out
    raise AssertionError(f"no game ended within {limit} steps")


@pytest.mark.parametrize("name", list_games())
def test_reset_and_step_give_the_documented_shapes_and_dtypes(name: str) -> None:
    env = VectorEnv(name, N, seed=3)
    game = env.game
    obs, mask, info = env.reset()
    size, actions = game.observer.tensor_size(), game.num_distinct_actions()
    assert obs.shape == (N, size) and obs.dtype == np.float32
    assert mask.shape == (N, actions) and mask.dtype == np.int8
    assert info["seat"].shape == (N,)
    obs, mask, rewards, terminated, info = env.step(random_actions(mask, np.random.default_rng(0)))
    assert obs.shape == (N, size) and obs.dtype == np.float32
    assert mask.shape == (N, actions)
    assert rewards.shape == (N, game.num_players) and rewards.dtype == np.float32
    assert terminated.shape == (N,) and terminated.dtype == bool
    assert info["truncated"].shape == (N,) and info["truncated"].dtype == bool


@pytest.mark.parametrize("name", list_games())
def test_each_row_is_the_acting_seats_tensor_and_legal_actions(name: str) -> None:
    env = VectorEnv(name, N, seed=5)
    rng = np.random.default_rng(1)
    obs, mask, info = env.reset()
    for _ in range(30):
        for i, state in enumerate(env.states):
            seat = state.current_player()
            assert info["seat"][i] == seat >= 0
            assert np.flatnonzero(mask[i]).tolist() == state.legal_actions()
            expected = np.asarray(env.game.observer.tensor(state, seat), np.float32)
            assert np.array_equal(obs[i], expected)
        obs, mask, _, _, info = env.step(random_actions(mask, rng))


@pytest.mark.parametrize("name", list_games())
def test_a_finished_game_reports_all_returns_and_is_replaced_by_a_fresh_one(name: str) -> None:
    env = VectorEnv(name, N, seed=7)
    obs, mask, rewards, terminated, info = play_until_an_end(env, np.random.default_rng(2))
    assert len(env.finished) == int(terminated.sum() + info["truncated"].sum()) >= 1
    for i, final, _seat in env.finished:
        fresh = env.states[i]
        assert final is not fresh and final.is_terminal() == bool(terminated[i])
        if terminated[i]:
            assert rewards[i].tolist() == pytest.approx(final.returns())
            assert np.array_equal(info["final_returns"][i], rewards[i])
        # the new game: nothing but chance has happened, and its seat is at a decision
        assert _only_chance(fresh) and not fresh.is_terminal()
        assert np.flatnonzero(mask[i]).tolist() == fresh.legal_actions()
    unfinished = ~(terminated | info["truncated"])
    assert not rewards[unfinished].any()


def _only_chance(state: State) -> bool:
    """Whether every action in the state's history was drawn by chance (replayed, each from the
    position before it)."""
    replay = state.game.new_initial_state()
    for action in state.history():
        if not replay.is_chance_node():
            return False
        replay.apply_action(action)
    return True


def test_the_step_after_an_end_clears_the_rewards_of_that_env() -> None:
    env = VectorEnv("spy-tracker", N, players=2, seed=11)
    rng = np.random.default_rng(4)
    _, mask, rewards, terminated, _ = play_until_an_end(env, rng)
    ended = np.flatnonzero(terminated)
    _, _, rewards, terminated, _ = env.step(random_actions(mask, rng))
    assert not rewards[ended[~terminated[ended]]].any()


@pytest.mark.parametrize("name", list_games())
def test_the_same_seed_replays_the_same_trajectory(name: str) -> None:
    def trajectory(seed: int) -> list[list[int]]:
        env = VectorEnv(name, N, seed=seed)
        rng = np.random.default_rng(9)
        _, mask, _ = env.reset()
        for _ in range(25):
            _, mask, _, _, _ = env.step(random_actions(mask, rng))
        return [state.history() for state in env.states]

    assert trajectory(1) == trajectory(1)
    assert trajectory(1) != trajectory(2)


def test_reset_with_a_seed_replays_as_the_constructor_seed_does() -> None:
    a = VectorEnv("under-current", N, seed=0)
    b = VectorEnv("under-current", N, seed=42)
    assert np.array_equal(a.reset(seed=42)[0], b.reset()[0])
    assert [s.history() for s in a.states] == [s.history() for s in b.states]


def test_envs_of_one_batch_are_dealt_differently() -> None:
    env = VectorEnv("spy-tracker", 8, seed=0)
    env.reset()
    assert len({tuple(state.history()) for state in env.states}) > 1


@pytest.mark.parametrize("name", list_games())
def test_an_illegal_action_names_the_env_and_changes_nothing(name: str) -> None:
    env = VectorEnv(name, N, seed=13)
    obs, mask, _ = env.reset()
    actions = random_actions(mask, np.random.default_rng(0))
    illegal = np.flatnonzero(mask[2] == 0)
    assert illegal.size, "every action legal: nothing to refuse"
    actions[2] = illegal[0]
    before = [state.to_json() for state in env.states]
    obs_before, mask_before = obs.copy(), mask.copy()
    with pytest.raises(IllegalActionError, match=r"^env 2, seat \d"):
        env.step(actions)
    assert [state.to_json() for state in env.states] == before
    assert np.array_equal(obs, obs_before) and np.array_equal(mask, mask_before)
    with pytest.raises(ValueError, match="one per env"):
        env.step(actions[:-1])
    with pytest.raises(ValueError, match="one per env"):
        env.step(actions.astype(float))


def test_actions_are_checked_against_the_games_not_the_mask_handed_out() -> None:
    """The returned mask is the caller's to change: marking an illegal action legal in it, or
    clearing it, changes nothing the env accepts; out-of-range actions are refused too."""
    env = VectorEnv("spy-tracker", N, seed=5)
    _, mask, _ = env.reset()
    actions = random_actions(mask, np.random.default_rng(1))
    illegal = int(np.flatnonzero(mask[1] == 0)[0])
    mask[1, illegal] = 1
    bad = actions.copy()
    bad[1] = illegal
    with pytest.raises(IllegalActionError, match=r"^env 1, "):
        env.step(bad)
    for outside in (-1, env.num_actions, 10**9):
        bad[1] = outside
        with pytest.raises(IllegalActionError, match=r"^env 1, "):
            env.step(bad)
    mask[:] = 0
    env.step(actions)  # legal in every game, whatever the caller did to its copy



def test_an_action_beyond_any_c_integer_is_refused_after_earlier_illegal_ones() -> None:
    """The batch check runs in C on the compiled build, where 2**64 - 1 does not fit: it is
    refused like any illegal action, and the first bad env is still the one named."""
    env = VectorEnv("spy-tracker", N, seed=5)
    obs, mask, _ = env.reset()
    actions = random_actions(mask, np.random.default_rng(2)).astype(np.uint64)
    before = [state.to_json() for state in env.states]
    huge = actions.copy()
    huge[3] = 2**64 - 1
    with pytest.raises(IllegalActionError, match=r"^env 3, "):
        env.step(huge)
    huge[1] = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(IllegalActionError, match=r"^env 1, "):
        env.step(huge)
    assert [state.to_json() for state in env.states] == before
    env.step(actions)  # unsigned actions that fit are taken


def test_a_game_reaching_the_cap_is_truncated_with_no_reward_and_replaced() -> None:
    """An env whose game makes ``cap`` decisions without ending is cut: truncated, not
    terminated, rewards 0, a fresh game in its row, and its count starts again."""
    env = VectorEnv("spy-tracker", N, players=2, seed=3)
    env.cap = 3
    rng = np.random.default_rng(6)
    _, mask, _ = env.reset()
    for step in range(1, 7):
        _, mask, rewards, terminated, info = env.step(random_actions(mask, rng))
        assert not terminated.any(), "a game ended within 6 decisions"
        assert info["truncated"].tolist() == [step % 3 == 0] * N
        assert not rewards.any()
        if step % 3 == 0:
            assert sorted(i for i, _, _ in env.finished) == list(range(N))
            assert all(len(state.history()) < len(old.history())
                       for (_, old, _), state in zip(env.finished, env.states, strict=True))

def test_write_tensor_at_an_offset_is_the_tensor_and_leaves_the_rest_alone() -> None:
    """Spy Tracker's buffer writer, at every seat of random positions, written between two
    sentinel-filled stretches of a larger buffer: exactly ``tensor`` there, nothing beside
    (it must clear what an earlier tensor left in its range), and refused if it would not fit."""
    from array import array

    game = load_game("spy-tracker", players=4)
    observer = game.observer
    size = observer.tensor_size()
    rng = np.random.default_rng(2)
    import random

    chance = random.Random(2)
    state = game.new_initial_state()
    buffer = array("d", [7.0] * (3 * size))
    checked = 0
    while not state.is_terminal() and checked < 200:
        for seat in range(game.num_players):
            observer.write_tensor(state, seat, buffer, size)
            assert buffer[size:2 * size].tolist() == observer.tensor(state, seat)
            assert set(buffer[:size]) == {7.0} and set(buffer[2 * size:]) == {7.0}
            checked += 1
        if state.is_chance_node():
            state.play_chance(chance)
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert checked > 20
    with pytest.raises(IndexError):
        observer.write_tensor(state, 0, buffer, 2 * size + 1)


def test_a_game_made_elsewhere_and_a_variant_are_taken() -> None:
    game = load_game("spy-tracker", 2)
    env = VectorEnv(game, 2)
    assert env.game is game and env.reset()[2]["seat"].shape == (2,)
    with pytest.raises(ValueError):
        VectorEnv(game, 2, players=2)
    with pytest.raises(ValueError):
        VectorEnv("spy-tracker", 0)


def test_step_before_reset_is_refused() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        VectorEnv("spy-tracker", 2).step(np.zeros(2, np.int64))


def test_the_gymnasium_wrapper_gives_the_last_movers_return_and_final_obs() -> None:
    env = GymVectorEnv("spy-tracker", N, players=2, seed=1)
    obs, infos = env.reset()
    assert env.observation_space.shape == (N, obs.shape[1])
    assert env.action_space.shape == (N,)
    rng = np.random.default_rng(5)
    for _ in range(5000):
        seats = infos["seat"].copy()
        obs, reward, terminated, truncated, infos = env.step(
            random_actions(infos["action_mask"], rng))
        assert reward.shape == (N,) and obs.shape == (N, env.env.obs_size)
        assert env.observation_space.contains(obs)
        if terminated.any():
            break
    else:
        raise AssertionError("no game ended")
    for i in np.flatnonzero(terminated):
        assert reward[i] == infos["returns"][i, seats[i]]
        assert infos["_final_obs"][i] and infos["final_obs"][i, seats[i]] == 1.0  # viewer
    assert not reward[~terminated].any()


# -- finite observation bounds of the Gymnasium env (issue #36 item 6) ------------------------

from gymnasium.utils.env_checker import check_env  # noqa: E402

from fieldcraft.adapters.gym import FieldcraftEnv, env_id, observation_bounds  # noqa: E402
from fieldcraft.core.registry import game_spec  # noqa: E402


def _configs() -> list[tuple[str, int, dict]]:
    """Every game at its fewest and most seats, under every variant its conformance suite
    runs (those change plane shapes and ranges: Classified Undercover, repeat bids...)."""
    out = []
    for name in list_games():
        spec = game_spec(name)
        for config in spec.test_configs:
            for players in (spec.min_players, spec.max_players):
                out.append((name, players, config))
    return out


@pytest.mark.parametrize(("name", "players", "config"), _configs())
def test_every_observation_of_random_self_play_lies_within_the_bounds(
        name: str, players: int, config: dict) -> None:
    game = load_game(name, players, **config)
    low, high = observation_bounds(game)
    assert np.isfinite(low).all() and np.isfinite(high).all() and (low <= high).all()
    env = VectorEnv(game, 8, seed=21)
    rng = np.random.default_rng(3)
    obs, mask, _ = env.reset()
    seen = [obs.copy()]
    for _ in range(250):
        obs, mask, _, _, _ = env.step(random_actions(mask, rng))
        seen.append(obs.copy())
        seen += [np.asarray(game.observer.tensor(final, seat), np.float32)[None]
                 for _, final, seat in env.finished]
    every = np.concatenate(seen)
    below, above = every < low, every > high
    assert not below.any() and not above.any(), _where(game, below | above, every, low, high)


def _where(game, bad: np.ndarray, every: np.ndarray, low: np.ndarray, high: np.ndarray) -> str:
    """The planes and values that broke their bounds, for the failure message."""
    names = [(plane.name, k) for plane in game.observer.planes() for k in range(plane.size)]
    columns = np.flatnonzero(bad.any(axis=0))
    return "; ".join(f"{names[c]}: {every[:, c].min()}..{every[:, c].max()} not in "
                     f"[{low[c]}, {high[c]}]" for c in columns[:10])


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list_games())
def test_the_normalized_env_passes_check_env_and_stays_in_the_unit_box(name: str) -> None:
    import gymnasium

    env = gymnasium.make(env_id(name), opponents="random", normalize=True).unwrapped
    check_env(env)
    space = env.observation_space
    assert (space.low == 0).all() and (space.high == 1).all()
    raw = FieldcraftEnv(name, opponents="random")
    assert np.isfinite(raw.observation_space.low).all()
    assert np.isfinite(raw.observation_space.high).all()
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        raw_obs, _ = raw.reset(seed=seed)
        done = False
        while not done:
            assert space.contains(obs) and raw.observation_space.contains(raw_obs)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            low, high = raw.observation_space.low, raw.observation_space.high
            span = np.where(high > low, high - low, 1.0)
            assert np.allclose(obs, (raw_obs - low) / span * (high > low), atol=1e-6)
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, _, terminated, truncated, info = env.step(action)
            raw_obs, *_ = raw.step(action)
            done = terminated or truncated
        assert space.contains(obs) and raw.observation_space.contains(raw_obs)
