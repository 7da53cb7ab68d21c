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
    # The winner-curve chart's dotted "even share" is the same mean, not 1/players.
    pytest.importorskip("matplotlib")
    from fieldcraft.sim import metrics_report

    assert metrics_report._mean_seat_rate(agg) == pytest.approx(mean_rate)


def test_one_winner_a_game_keeps_one_over_players() -> None:
    rows = _team_rows(4, 200, 1, [1])
    agg = aggregate(rows)["4"]
    for seat, s in agg["seats"].items():
        assert s["advantage"] == pytest.approx(s["value"] - 1 / 4), seat
    assert sum(s["advantage"] for s in agg["seats"].values()) == pytest.approx(0.0, abs=1e-12)


def _seat_summary(seat0_wins_at_3: int, games: int = 1000) -> dict:
    """A study without sides at 2, 3 and 4 players (9 seat rates, one winner a game): every
    seat wins its even share except seat 0 at 3 players, which wins ``seat0_wins_at_3``."""
    from fieldcraft.sim.stats import rate

    rest = (games - seat0_wins_at_3) // 2
    wins = {2: [games // 2] * 2, 3: [seat0_wins_at_3, rest, games - seat0_wins_at_3 - rest],
            4: [games // 4] * 4}
    return {"labels": {}, "seats": {(p, s): rate(w, games) for p, ws in wins.items()
                                    for s, w in enumerate(ws)}}


def test_headline_holds_back_a_rate_that_is_extreme_only_by_chance() -> None:
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.metrics_report import verdict

    nominal = _seat_summary(366)  # 36.6% of 1000 at 3 players against an even 33.3%
    # Significant on its own (p about 0.03: an even share lies outside its Wilson interval) ...
    assert nominal["seats"][(3, 0)]["low"] > 1 / 3
    # ... but it is the most extreme of 9 seat rates, and Holm needs p < 0.05 / 9.
    text = verdict(nominal, None)
    assert text.startswith("Seat 0 wins 37% at 3 players")
    assert "above an even share" not in text and "Holm" in text

    extreme = _seat_summary(450)  # far outside: still a headline after the adjustment
    assert "above an even share at 3 players" in verdict(extreme, None)


def test_the_adjustment_is_over_every_rate_and_named() -> None:
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.metrics_report import adjustment_note, even_share_tests
    from fieldcraft.sim.stats import score_p

    nominal = _seat_summary(366)
    p = score_p(366, 1000, 1 / 3)
    assert 0.01 < p < 0.05
    adjusted = even_share_tests(nominal["seats"])
    assert len(adjusted) == 9 and adjusted[(3, 0)] == pytest.approx(min(1.0, 9 * p))
    assert all(q >= 0.05 for q in adjusted.values())
    note = adjustment_note(nominal)
    assert "9" in note and "Holm" in note and "seats" in note


def test_holm_and_the_score_test() -> None:
    from fieldcraft.sim.stats import holm, p_from_interval, score_p, wilson

    # Holm (1979): sorted p times m, m-1, ..., kept monotone, capped at 1, in the given order.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # 0.9 alone would be 0.9: monotone
    # The score test is the one Wilson's interval inverts: they agree at the 5% line.
    for wins, n, p0 in [(60, 100, 0.5), (40, 100, 0.5), (30, 100, 0.25), (366, 1000, 1 / 3)]:
        low, high = wilson(wins, n)
        assert (score_p(wins, n, p0) < 0.05) == (not low <= p0 <= high)
    assert p_from_interval(0.1, 0.0, 0.2) == pytest.approx(0.05, abs=1e-3)
    assert p_from_interval(-0.1, -0.3, 0.1) > 0.05


def test_wilson_contains_the_rate_at_0_and_1() -> None:
    from fieldcraft.sim.stats import wilson

    for n in range(1, 200):
        for wins in (0, n):
            low, high = wilson(wins, n)
            assert 0.0 <= low <= wins / n <= high <= 1.0, (wins, n)


def test_seat_advantage_marks_only_seats_off_the_mean_after_holm() -> None:
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.metrics_report import sections
    from fieldcraft.sim.stats import score_p

    # One winner a game at 4 players: seat 0 wins 160 of 400, seats 1-3 80 each (each of those
    # nominally below the mean, p about 0.02, but not once 4 seats are adjusted together).
    winners = [0] * 160 + [1] * 80 + [2] * 80 + [3] * 80
    rows = [{"players": 4, "labels": [None] * 4, "winners": [w], "length": 10,
             "metrics": {"decisions": 10}} for w in winners]
    assert 0.01 < score_p(80, 400, 0.25) < 0.05
    lines = dict(sections(aggregate(rows), None))["Seat advantage (win rate − mean seat win rate)"]
    assert lines[0] == ("- 4 players: seat 0 +15.0 pts*, seat 1 -5.0 pts, seat 2 -5.0 pts, "
                        "seat 3 -5.0 pts")
    assert "Holm" in lines[-1] and "4 seats" in lines[-1]
