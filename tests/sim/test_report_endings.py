"""The share of games nobody won is shown where a designer reads endings and seat rates, not
only in the length table (issue #33, finding 7)."""

from __future__ import annotations

from fieldcraft.sim.report import _sections, summarize


def _rows(players: int, games: int, no_winner: int) -> list[dict]:
    """``games`` games, the first ``no_winner`` of them won by nobody, the rest by seat k % p."""
    rows = []
    for k in range(games):
        rows.append({"players": players, "labels": [None] * players, "winning_labels": [],
                     "agents": ["random"] * players, "length": 10 + k,
                     "winners": [] if k < no_winner else [k % players],
                     "ending": "deck_out", "decided_by": "majority"})
    return rows


def _section(rows: list[dict], heading: str) -> str:
    found = dict(_sections(summarize(rows), {"game": "under-current"}, {}))
    return "\n".join(found[heading])


def test_endings_table_gives_the_no_winner_share_with_its_interval() -> None:
    text = _section(_rows(3, 40, 10) + _rows(4, 40, 0), "How games end")
    row = next(line for line in text.splitlines() if "no winner" in line)
    assert "| 3 | 10 | 25.0% (" in row
    # Endings are shares of their count's games too, and a count where everyone won has no row.
    assert "| deck_out:majority | 3 | 40 | 100.0% |" in text
    assert not any("no winner" in line and "| 4 |" in line for line in text.splitlines())


def test_seat_table_says_why_its_rates_fall_short_of_one_over_players() -> None:
    text = _section(_rows(3, 40, 10), "Win rate by seat")
    assert "No winner: 3 players 10 of 40 (25.0%" in text
    assert "mean seat win rate" in text
    assert "No winner" not in _section(_rows(3, 40, 0), "Win rate by seat")
