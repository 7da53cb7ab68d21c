"""The rollout agent (fieldcraft/agents/rollout.py): heuristic playouts with common random
numbers. A toy race gives positions whose right answer is known; the real games check that
the agent answers legally and that its pairing holds where dice and hidden cards are real.

No win rates and no timings here: strength is measured by ``benchmarks/levels.py``
(docs/bots.md); the time budget is tested with a fake clock.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from fieldcraft.agents import View, make_agent
from fieldcraft.agents import rollout as ro
from fieldcraft.agents.rollout import RolloutAgent, halve, pick, play_round, playout
from fieldcraft.core.api import CHANCE, TERMINAL, FieldcraftError, sample_chance
from fieldcraft.core.registry import game_spec, list_games, load_game


class _Spec:
    def __init__(self, bot: Any):
        self.bot = bot

    def optional(self, name: str) -> Any:
        return self.bot if name == "bot" else None


class _Game:
    num_players = 2
    name = "toy-race"

    def __init__(self, bot: Any):
        self.spec = _Spec(bot)


class Race:
    """Two seats add 1..``step`` in turn to a shared total; whoever makes it exactly ``goal``
    wins (a step past the goal is not allowed). Nothing is hidden and nothing is random."""

    def __init__(self, game: _Game, total: int = 0, player: int = 0, goal: int = 10,
                 step: int = 2):
        self.game, self.total, self.player, self.goal, self.step = game, total, player, goal, step
        self.winner = -1

    def current_player(self) -> int:
        return TERMINAL if self.winner >= 0 else self.player

    def legal_actions(self) -> list[int]:
        return [a for a in range(1, self.step + 1) if self.total + a <= self.goal]

    def _apply(self, action: int) -> None:
        self.total += action
        if self.total == self.goal:
            self.winner = self.player
        self.player = 1 - self.player

    def returns(self) -> list[float]:
        return [1.0 if s == self.winner else 0.0 for s in range(2)]

    def clone(self) -> Race:
        twin = Race(self.game, self.total, self.player, self.goal, self.step)
        twin.winner = self.winner
        return twin

    def resample(self, seat: int, rng: random.Random) -> Race:
        return self.clone()

    def resampler(self, seat: int) -> Any:
        return lambda rng: self.clone()

    def search_actions(self) -> list[int]:
        return self.legal_actions()

    def heuristic_returns(self) -> list[float] | None:
        return None


def _timid(view: Any, rng: random.Random) -> int:
    """A bad Normal bot: always the smallest step."""
    return min(view.legal_actions())


def test_a_forced_win_the_heuristic_misses_is_found() -> None:
    state = Race(_Game(_timid), total=8)  # +2 wins now; +1 hands the win to the other seat
    assert _timid(View(state, 0), random.Random(0)) == 1  # what Normal would play
    agent = RolloutAgent(rollouts=4, seed=0)
    assert agent.act(View(state, 0)) == 2
    assert agent.last["own"] == 1 and agent.last["choice"] == 2
    assert [row for row in agent.last["values"]] == [[0.0, 1.0]] * 4


def test_a_single_legal_action_is_returned_without_search(monkeypatch: Any) -> None:
    def no_search(*args: Any) -> Any:
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(ro, "play_round", no_search)
    state = Race(_Game(_timid), total=9)  # only +1 is legal
    agent = RolloutAgent(rollouts=4, seed=0)
    assert agent.act(View(state, 0)) == 1
    assert agent.searched_moves == 0 and agent.last == {}


def test_top_keeps_the_heuristic_choice_and_cuts_the_rest() -> None:
    state = Race(_Game(_timid), total=0, step=4)
    agent = RolloutAgent(rollouts=2, top=2, seed=1)
    assert agent.act(View(state, 0)) in state.legal_actions()
    assert len(agent.last["candidates"]) == 2 and 1 in agent.last["candidates"]


def test_pick_leaves_the_heuristic_only_for_a_clear_paired_lead() -> None:
    # Candidate 1 leads candidate 0 (the heuristic's) in one round of three and is even in the
    # others: a lead of 1/3 with a standard error of 1/3, so z=1 keeps the heuristic's move.
    values = [[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    assert pick([5, 7], values, own=5, z=1.0) == 5
    assert pick([5, 7], values, own=5, z=0.0) == 7
    steady = [[0.0, 1.0]] * 3  # the same lead every round: no doubt left
    assert pick([5, 7], steady, own=5, z=3.0) == 7
    behind = [[1.0, 0.0]] * 3
    assert pick([5, 7], behind, own=5, z=0.0) == 5
    assert pick([5, 7], [], own=7, z=1.0) == 7


def test_halve_keeps_the_better_half_and_the_heuristic_choice() -> None:
    # Means by column: 0.5, 1.0, 0.0, 0.75, 0.25; the heuristic's move (14) is the worst.
    values = [[1.0, 1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.5, 0.5]]
    kept, cut = halve([10, 11, 12, 13, 14], values, own=12)
    assert kept == [10, 11, 12, 13]  # the best three of five, and own (worst) kept too
    assert cut == [[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.5]]  # the same columns, in order
    kept, cut = halve([10, 11, 12, 13, 14], values, own=11)
    assert kept == [10, 11, 13] and cut == [[1.0, 1.0, 1.0], [0.0, 1.0, 0.5]]
    assert halve([1, 2], [[0.0, 1.0]], own=1) == ([1, 2], [[0.0, 1.0]])  # nothing to gain
    assert halve([1, 2, 3], [], own=1) == ([1, 2, 3], [])


def test_halving_spends_the_later_rounds_on_the_contenders(monkeypatch: Any) -> None:
    # From 6 to 10 with steps of 1-4, the timid Normal bot's +1 loses, +4 wins at once, and
    # +2 wins too (the timid opponent steps to 9); +3 loses. Rounds 1-2 play all four; the cut
    # after 2 rounds keeps +2 and +4 (the better half) and +1 (the heuristic's own), and the
    # cut after 4 leaves those three (the better half of three and own).
    widths: list[int] = []
    real = ro.play_round

    def spy(world: Any, candidates: list[int], *args: Any) -> list[float]:
        widths.append(len(candidates))
        return real(world, candidates, *args)

    monkeypatch.setattr(ro, "play_round", spy)
    state = Race(_Game(_timid), total=6, step=4)
    agent = RolloutAgent(rollouts=8, halve=2, seed=0)
    assert agent.act(View(state, 0)) in (2, 4)
    assert widths == [4, 4, 3, 3, 3, 3, 3, 3]
    assert agent.last["candidates"] == [1, 2, 3, 4] and agent.last["searched"] == [1, 2, 4]
    assert agent.last["values"] == [[0.0, 1.0, 1.0]] * 8
    widths.clear()
    RolloutAgent(rollouts=8, seed=0).act(View(state, 0))
    assert widths == [4] * 8  # no halving by default


def test_the_time_budget_stops_between_rounds_and_never_before_the_first() -> None:
    state = Race(_Game(_timid), total=0)
    ticks = iter(range(10_000))

    def clock() -> float:
        return next(ticks) * 0.125  # exact in binary: the count below is not a rounding

    agent = RolloutAgent(time=1.0, seed=0)
    agent.clock = clock
    agent.act(View(state, 0))
    # act reads the clock at 0, the rounds begin at 0.125; after k rounds it is
    # 0.125 (k + 1) and a round takes 0.125, so a k + 1-th round would end past 1.0 at k = 7.
    assert len(agent.last["values"]) == 7
    short = RolloutAgent(time=1e-9, seed=0)
    short.act(View(state, 0))
    assert len(short.last["values"]) == 1  # a decision rests on one round at least


def test_bad_options_are_refused_with_a_clear_error() -> None:
    for spec in ("rollout(rollouts=0)", "rollout(time=0)", "rollout(top=1)",
                 "rollout(depth=0)", "rollout(z=-1)", "rollout(rollouts=2.5)",
                 "rollout(turns=3)", "rollout(halve=-1)", "rollout(time=1, halve=1)",
                 "rollout(rollouts=8, halve=0.5)"):
        with pytest.raises(FieldcraftError):
            make_agent(spec, seed=0)
    spec = "rollout(rollouts=3, top=2, depth=5, z=0.5)"
    agent: Any = make_agent(spec, seed=0)
    assert isinstance(agent, RolloutAgent) and agent.name == spec
    assert (agent.rollouts, agent.top, agent.depth, agent.z, agent.time) == (3, 2, 5, 0.5, None)
    assert RolloutAgent(time=0.5).rollouts is None  # time alone: no round cap


def _decision(game_id: str, players: int, seed: int, skip: int) -> Any:
    """A state at the ``skip``-th decision with a real choice of a random game."""
    game = load_game(game_id, players=players)
    rng = random.Random(seed)
    state = game.new_initial_state()
    seen = 0
    while state.current_player() != TERMINAL:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            if seen == skip:
                return state
            seen += 1
        state.apply_action(rng.choice(legal))
    raise AssertionError(f"{game_id}: the game ended before decision {skip}")


@pytest.mark.parametrize("game_id", sorted(list_games()))
def test_a_legal_and_repeatable_choice_in_every_game(game_id: str) -> None:
    players = max(2, game_spec(game_id).min_players)
    state = _decision(game_id, players, seed=5, skip=4)
    seat = state.current_player()
    before = state.to_json()
    first = RolloutAgent(rollouts=2, depth=4, seed=9)
    second = RolloutAgent(rollouts=2, depth=4, seed=9)
    action = first.act(View(state, seat))
    assert action in state.legal_actions()
    assert second.act(View(state, seat)) == action
    assert second.last["values"] == first.last["values"]
    assert state.to_json() == before  # the search played on copies only


def test_common_random_numbers_pair_every_candidate_of_a_round(monkeypatch: Any) -> None:
    """Against the Current has dice, events and tie-breaks: one action played twice from the
    same world with the same seed must end alike, every candidate of a round must get the
    round's world and seed, and the next round another."""
    state = _decision("against-the-current", 2, seed=3, skip=6)
    seat = state.current_player()
    world = View(state, seat).resample(random.Random(1))
    action = state.legal_actions()[0]
    policy = ro.rollout_policy(state.game)
    for seed in range(6):
        twice = play_round(world, [action, action], seat, seed, policy)
        assert twice[0] == twice[1]
    first, second = world.clone(), world.clone()
    first._apply(action)
    second._apply(action)
    assert playout(first, seat, 4, policy) == playout(second, seat, 4, policy)
    assert first.history() == second.history()  # the same dice, events and choices

    calls: list[tuple[int, str]] = []
    real = ro.playout

    def spy(game_state: Any, who: int, seed: int, pol: Any, depth: Any = None) -> float:
        calls.append((seed, game_state.to_json()))
        return real(game_state, who, seed, pol, depth)

    monkeypatch.setattr(ro, "playout", spy)
    agent = RolloutAgent(rollouts=3, depth=6, seed=2)
    agent.act(View(state, seat))
    width = len(agent.last["candidates"])
    assert width >= 2 and len(calls) == 3 * width
    rounds = [calls[i:i + width] for i in range(0, len(calls), width)]
    for group in rounds:
        assert len({seed for seed, _ in group}) == 1  # one seed for the whole round
    assert len({group[0][0] for group in rounds}) == 3  # a fresh one each round
