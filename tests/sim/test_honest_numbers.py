"""Honest numbers (issue #33 item 4): seat advantage against the mean seat win rate, headlines
adjusted for the many rates they pick from, and comparisons that say what they measured."""

from __future__ import annotations

import random

import pytest

from fieldcraft.sim.metrics import aggregate


def _team_rows(players: int, games: int, seed: int, winners_per_game: list[int]
               ) -> list[dict]:
    """Games at ``players`` players where a random set of seats wins, its size cycling through
    ``winners_per_game`` (several winners, as in a team game, or none). Seat 0 is favoured so
    that the seats are not all alike."""
    rng = random.Random(seed)
    rows = []
    for k in range(games):
        size = winners_per_game[k % len(winners_per_game)]
        seats = list(range(players))
        rng.shuffle(seats)
        if size and 0 not in seats[:size] and rng.random() < 0.5:
            seats.remove(0)
            seats.insert(0, 0)
        rows.append({"players": players, "labels": [None] * players,
                     "winners": sorted(seats[:size]), "length": 10,
                     "metrics": {"decisions": 10, "first_mover": k % players}})
    return rows


@pytest.mark.parametrize("players,sizes", [(4, [1, 2, 2]), (3, [0, 1, 1, 1]), (5, [2, 3])])
def test_seat_advantages_sum_to_zero_with_several_or_no_winners(players: int,
                                                                sizes: list[int]) -> None:
    # Several winners a game (or none): against 1/players every seat would read as ahead (or
    # behind). Against the mean seat win rate the advantages add up to zero, so some seat is
    # ahead and some behind.
    rows = _team_rows(players, 300, players, sizes)
    agg = aggregate(rows)[str(players)]
    advantages = [s["advantage"] for s in agg["seats"].values()]
    assert sum(advantages) == pytest.approx(0.0, abs=1e-12)
    assert min(advantages) < 0 < max(advantages)
    mean_rate = sum(len(r["winners"]) for r in rows) / (len(rows) * players)
    assert mean_rate != pytest.approx(1 / players)  # the case the old 1/players got wrong
    # The first mover (seat k % players here, so every seat in turn) is measured against the
    # same mean seat win rate, not 1/players.
    first = agg["first_mover"]
    assert first["even"] == pytest.approx(mean_rate)
    assert first["advantage"] == pytest.approx(first["value"] - mean_rate)


def test_one_winner_a_game_keeps_one_over_players() -> None:
    rows = _team_rows(4, 200, 1, [1])
    agg = aggregate(rows)["4"]
    for seat, s in agg["seats"].items():
        assert s["advantage"] == pytest.approx(s["value"] - 1 / 4), seat
    assert sum(s["advantage"] for s in agg["seats"].values()) == pytest.approx(0.0, abs=1e-12)
