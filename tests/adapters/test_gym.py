"""fieldcraft games as single-seat Gymnasium environments: Gymnasium's own check_env on every
game, masks as MaskablePPO reads them, opponents by spec, and illegal moves."""

from __future__ import annotations

import numpy as np
import pytest

from fieldcraft.core.errors import IllegalActionError
from fieldcraft.core.registry import list_games

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from fieldcraft.adapters.gym import FieldcraftEnv, env_id  # noqa: E402


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list_games())
def test_gymnasium_check_env_passes(name: str) -> None:
    e = gymnasium.make(env_id(name), opponents="heuristic")
    check_env(e.unwrapped)


def test_ids_are_registered_for_every_game() -> None:
    assert env_id("spy-tracker") == "fieldcraft/SpyTracker-v0"
    assert env_id("against-the-current") == "fieldcraft/AgainstTheCurrent-v0"
    for name in list_games():
        assert env_id(name) in gymnasium.registry


def test_an_episode_against_random_seats_ends_with_the_seats_return() -> None:
    e = FieldcraftEnv("spy-tracker", players=3, seat=1, opponents="random")
    obs, info = e.reset(seed=2)
    assert e.state.current_player() == 1
    done = False
    while not done:
        mask = e.action_masks()
        assert mask.sum() == len(e.state.legal_actions())
        assert np.array_equal(info["action_mask"], mask)
        obs, reward, terminated, truncated, info = e.step(int(np.flatnonzero(mask)[0]))
        done = terminated or truncated
    assert e.state.is_terminal() and reward == e.state.returns()[1]


def test_an_illegal_action_forfeits_or_raises_and_changes_nothing() -> None:
    e = FieldcraftEnv("spy-tracker", players=2, opponents="random")
    e.reset(seed=0)
    illegal = int(np.flatnonzero(e.action_masks() == 0)[0])
    before = e.state.to_json()
    _, reward, terminated, _, info = e.step(illegal)
    assert terminated and reward == -1.0 and "not legal" in info["illegal_action"]
    assert e.state.to_json() == before
    strict = FieldcraftEnv("spy-tracker", players=2, opponents="random", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    with pytest.raises(ValueError, match="not in"):
        strict.step(10**6)


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="opponents needs 2"):
        FieldcraftEnv("spy-tracker", players=3, opponents=["random"])
    with pytest.raises(Exception, match="unknown agent"):
        FieldcraftEnv("spy-tracker", players=2, opponents="grandmaster")
    with pytest.raises(ValueError, match="seat must be"):
        FieldcraftEnv("spy-tracker", players=2, seat=5)


@pytest.mark.parametrize(("players", "seeds"), [(5, [36, 233]), (8, [10, 84, 135, 235])])
def test_reset_never_returns_a_finished_game(players: int, seeds: list[int]) -> None:
    """Under Current can end before a drawn seat's first turn (random opponents, ``seat=None``:
    these seeds did so on the first deal, and ``reset`` used to hand back the finished game,
    with an all-zero mask, whose first ``step`` raised "the game is over"). Every reset must
    give the learner a decision; the re-deal is drawn from the same seed, so it replays."""
    e = FieldcraftEnv("under-current", players=players, seat=None, opponents="random")
    for seed in [*seeds, *range(300, 340)]:
        obs, info = e.reset(seed=seed)
        assert not e.state.is_terminal() and e.state.current_player() == e.seat, seed
        assert info["action_mask"].any() and e.observation_space.contains(obs)
        again, _ = e.reset(seed=seed)
        assert np.array_equal(obs, again)
        e.step(int(np.flatnonzero(info["action_mask"])[0]))  # raised before the fix
