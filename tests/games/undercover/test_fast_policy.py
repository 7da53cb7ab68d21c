"""Undercover's cheap playout policy (``bot.choose_fast``): the Normal bot's turn model without
its one-reply look, for the rollout agent's playouts at large tables.

What matters: it never pays for the reply look (the reason it exists), it still plays the
Normal bot's model (it finds the same scoring turn), and it is only the Normal bot where the
reply look would not run anyway (the first round). Normal itself is unchanged: the golden
replays and the heuristic's tests cover ``choose``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from fieldcraft.agents import View
from fieldcraft.core import load_game
from fieldcraft.core.api import CHANCE, TERMINAL
from fieldcraft.games.undercover import bot
from tests.agents.test_undercover_bot import blue_eight_state, taken
from tests.games.test_undercover import play


def _play(players: int, seed: int, policy: Any, variant: str | None = None) -> Any:
    """A whole game with every seat on ``policy``; the final state."""
    state = load_game("undercover", players=players, variant=variant).new_initial_state()
    rng = random.Random(seed)
    while state.current_player() != TERMINAL:
        player = state.current_player()
        if player == CHANCE:
            state.play_chance(rng)
            continue
        action = policy(View(state, player), rng)
        assert action in state.legal_actions()
        state.apply_action(action)
    return state


@pytest.mark.parametrize("players,variant", [(6, None), (3, "classified")])
def test_fast_policy_finishes_games_without_the_reply_look(monkeypatch: Any, players: int,
                                                           variant: str | None) -> None:
    calls = []
    real = bot._after_reply

    def counted(*args: Any) -> float:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(bot, "_after_reply", counted)
    _play(players, 1, bot.choose, variant)
    assert calls  # the Normal bot does look at the replies in such a game...
    calls.clear()
    state = _play(players, 1, bot.choose_fast, variant)
    assert state.is_terminal() and not calls  # ...the fast policy never does


def test_fast_policy_collects_the_eight_like_the_normal_bot() -> None:
    state = blue_eight_state()
    for _ in range(3):
        if state.current_player() != 0:
            break
        play(state, state.action_to_string(bot.choose_fast(View(state, 0), random.Random(0))))
    assert state.current_player() == 1
    assert taken(state, 0, "Blue") == 8


def test_fast_policy_is_the_normal_bot_before_the_reply_look_starts() -> None:
    """The reply look starts once the first round is nearly done; before it, the two share
    every decision for the same random numbers (the same model, the same tie-breaks)."""
    state = load_game("undercover", players=6).new_initial_state()
    rng = random.Random(4)
    compared = 0
    while state.current_player() != TERMINAL and state.turn < 5:
        player = state.current_player()
        if player == CHANCE:
            state.play_chance(rng)
            continue
        seed = rng.randrange(2**32)
        normal = bot.choose(View(state, player), random.Random(seed))
        assert bot.choose_fast(View(state, player), random.Random(seed)) == normal
        compared += len(state.legal_actions()) > 1
        state.apply_action(normal)
    assert compared >= 5
