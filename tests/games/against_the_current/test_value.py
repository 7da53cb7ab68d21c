"""Against the Current's learned win-probability model (``value.py``), a leaf for the Strong
level's expectimax (issue #35).

The model is fitted by ``benchmarks/atc_value.py`` to heuristic self-play; here it must load,
give chances (each in [0, 1], summing to one), predict winners of games it was not fitted on
better than the race model it starts from, and plug into ``search_choose`` without changing
what the race-model search chooses.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from fieldcraft.agents import View, make_agent
from fieldcraft.core.api import CHANCE, TERMINAL, sample_chance
from fieldcraft.core.registry import load_game
from fieldcraft.games.against_the_current import bot, value
from fieldcraft.games.against_the_current.layout import ATTEMPT, TOKEN

HELD_OUT_SEED = 987_654  # the fit uses benchmarks/atc_value.py's seed 100 deals, not these


def _self_play(players: int, seed: int) -> tuple[list[Any], list[float]]:
    """A heuristic self-play game's leaf positions (copies) and its result."""
    game = load_game("against-the-current", players=players)
    rng = random.Random(seed)
    agents = [make_agent("heuristic", seed=rng.randrange(2**32)) for _ in range(players)]
    state = game.new_initial_state()
    kept = []
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return kept, state.returns()
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        if state.phase in (TOKEN, ATTEMPT):
            kept.append(state.clone())
        state.apply_action(agents[player].act(View(state, player)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_model_loads_and_gives_chances(players: int) -> None:
    assert len(value.weights(players)) == len(value.FEATURES)
    positions, result = _self_play(players, HELD_OUT_SEED + players)
    assert positions and sum(result) == pytest.approx(1.0)
    for state in positions[::5]:
        chances = value.learned_returns(state)
        assert len(chances) == players
        assert all(0.0 <= p <= 1.0 for p in chances)
        assert sum(chances) == pytest.approx(1.0)


def test_a_table_size_without_weights_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no weights for 7 players"):
        value.weights(7)


def test_it_predicts_held_out_winners_better_than_the_race_model() -> None:
    """Log loss (the mean of ``-log p`` of the winner) over every leaf position of 40 two-player
    self-play games the fit never saw: the learned model must beat the race model."""
    race_loss = learned_loss = 0.0
    count = 0
    for k in range(40):
        positions, result = _self_play(2, HELD_OUT_SEED + 10 + k)
        for state in positions:
            race, learned = state.heuristic_returns(), value.learned_returns(state)
            for s, y in enumerate(result):
                if y:
                    race_loss -= y * math.log(max(race[s], 1e-12))
                    learned_loss -= y * math.log(max(learned[s], 1e-12))
            count += 1
    assert count > 500
    assert learned_loss / count < race_loss / count


def test_search_choose_takes_the_learned_leaf_and_rejects_an_unknown_one() -> None:
    game = load_game("against-the-current", players=2)
    positions, _ = _self_play(2, HELD_OUT_SEED)
    tokens = [s for s in positions if s.phase == TOKEN][3:6]
    assert tokens
    for state in tokens:
        view = View(state, state.current_player())
        assert bot.search_choose(view, random.Random(1), turns=2, value="learned") \
            in state.legal_actions()
        # The default leaf is still the race model: the same choice as naming it.
        assert bot.search_choose(view, random.Random(2), turns=2) == bot.search_choose(
            view, random.Random(2), turns=2, value="race")
    with pytest.raises(ValueError, match="value must be one of"):
        bot.search_choose(View(tokens[0], tokens[0].current_player()), random.Random(1),
                          value="oracle")
    assert game.num_players == 2
