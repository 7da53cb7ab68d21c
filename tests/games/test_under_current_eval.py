"""Under Current's per-seat evaluation (``UnderCurrentSearch.heuristic_returns``).

It estimates each seat's win chance from the true state, for the designer's metrics; search
never reads it (the game's ``rollout_depth`` is ``None``), so the golden replays are unchanged.
"""

from __future__ import annotations

import pytest

from fieldcraft import load_game
from fieldcraft.core import TERMINAL
from fieldcraft.sim.simulate import play_game
from tests.games.test_under_current import put_in_row, setup

ROLES_4 = ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent", "Blue Informer"]
HANDS_4 = [["Blue/SCAN", "Red/SCAN"], ["Blue/SPY", "Red/SPY"], ["Blue/SWAP", "Red/SWAP"],
           ["Blue/PEEK", "Red/PEEK"]]


def traced(players: int, agent: str, seed: int) -> tuple[list[list[float]], list[float]]:
    """The evaluation at every decision of one game, and the game's returns; checks that the
    end gives the true returns and every value lies in [0, 1]."""
    series: list[list[float]] = []
    final: list[float] = []

    def watch(state, player: int) -> None:
        estimate = state.heuristic_returns()
        assert len(estimate) == players and all(0.0 <= x <= 1.0 for x in estimate)
        assert state.heuristic_returns() == estimate  # deterministic
        if player == TERMINAL:
            assert estimate == state.returns()
            final.extend(estimate)
        else:
            series.append(estimate)

    game = load_game("under-current", players=players)
    end = play_game(game, [agent] * players, seed, trusted=True, watch=watch)
    assert final == end.returns()
    return series, final


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8])
@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_in_range_and_true_returns_at_the_end(players: int, agent: str) -> None:
    for seed in range(4):
        traced(players, agent, seed)


def test_does_not_change_the_state() -> None:
    game = load_game("under-current", players=5)
    state = game.new_initial_state()
    before = state.heuristic_returns()
    assert len(set(before)) == 1  # roles not dealt yet: every seat alike
    state = setup(5, ["Blue Chief", "Red Chief", "Yellow Agent", "Blue Informer",
                      "Red Informer", "Green Agent"], [[], [], [], [], []])
    copy = state.clone()
    state.heuristic_returns()
    assert state.to_json() == copy.to_json()


def late(state, turns: int) -> None:
    """Spend draw-pile cards as if ``turns`` turns had used them (a shortcut to late game)."""
    for _ in range(turns):
        state.discard.append(state.deck.pop())
        state.turn += 1
    state.check_invariants()


def test_clear_blue_majority_favours_the_blue_seats() -> None:
    state = setup(4, ROLES_4, HANDS_4)
    start = state.heuristic_returns()
    put_in_row(state, ["Blue/DROP", "Blue/FETCH", "Blue/BURN", "Blue/RETIRE", "Red/DROP"])
    late(state, 10)
    est = state.heuristic_returns()
    blue = est[0]  # Blue Chief
    assert blue > max(est[1:])
    assert blue > start[0] and est[1] < start[1] and est[2] < start[2] and est[3] < start[3]


def test_green_card_in_a_late_row_favours_green_and_balance_favours_yellow() -> None:
    state = setup(4, ROLES_4, HANDS_4)
    put_in_row(state, ["Green/SCAN", "Blue/DROP", "Blue/FETCH"])
    late(state, 12)
    est = state.heuristic_returns()
    assert est[3] > max(est[:3])  # Green Agent
    level = setup(4, ROLES_4, HANDS_4)
    put_in_row(level, ["Blue/DROP", "Blue/FETCH", "Red/DROP", "Red/FETCH", "Yellow/FLIP"])
    late(level, 8)
    est = level.heuristic_returns()
    assert est[2] > max(est[0], est[1], est[3])  # Yellow Agent
    # the further the game, the surer: fewer turns left, higher Yellow
    later = level.clone()
    late(later, 3)
    assert later.heuristic_returns()[2] > est[2]


def test_green_declaration_phase_reads_the_names_already_given() -> None:
    # 5 players, no Green card in the row: the Green seat declares at the end
    roles = ["Blue Chief", "Red Chief", "Green Agent", "Blue Informer", "Red Informer",
             "Yellow Agent"]
    state = setup(5, roles, [[], [], [], [], []])
    put_in_row(state, ["Blue/DROP", "Blue/FETCH", "Blue/BURN", "Red/DROP"])
    state._score("deck_out")
    assert state.phase_name == "declare_red"
    unsure = state.heuristic_returns()[2]
    wrong = state.clone()
    wrong.apply_action(wrong.game.A_NAME_RED + 0)  # seat 0 is no Red Informer
    assert wrong.heuristic_returns()[2] == 0.0
    right = state.clone()
    right.apply_action(right.game.A_NAME_RED + 4)  # seat 4 is the Red Informer
    assert right.heuristic_returns()[2] > unsure
    right.apply_action(right.game.A_NAME_BLUE + 3)  # seat 3 the Blue Informer
    assert right.is_terminal() and right.heuristic_returns() == right.returns()
    assert right.returns()[2] == 1.0


def _brier(players: int, agent: str, seeds: range) -> tuple[list[float], list[float]]:
    """Brier score of the evaluation and of each seat's base rate, early and late half."""
    games = [traced(players, agent, seed) for seed in seeds]
    base = [sum(y[s] for _, y in games) / len(games) for s in range(players)]
    ours, prior, count = [0.0, 0.0], [0.0, 0.0], [0, 0]
    for series, y in games:
        for k, est in enumerate(series):
            half = 2 * k // len(series)
            ours[half] += sum((est[s] - y[s]) ** 2 for s in range(players))
            prior[half] += sum((base[s] - y[s]) ** 2 for s in range(players))
            count[half] += players
    return [o / c for o, c in zip(ours, count, strict=True)], \
        [p / c for p, c in zip(prior, count, strict=True)]


@pytest.mark.parametrize("players", [4, 6])
@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_brier_beats_the_base_rate_and_improves(players: int, agent: str) -> None:
    ours, prior = _brier(players, agent, range(1000, 1080))
    assert ours[0] < prior[0] and ours[1] < prior[1]
    assert ours[1] < ours[0]  # the estimate sharpens as the game goes on


def test_search_never_reads_it() -> None:
    """ISMCTS consults ``heuristic_returns`` only when rollouts are cut short."""
    assert load_game("under-current", players=4).spec.search.rollout_depth is None
