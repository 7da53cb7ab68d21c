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


def test_the_endings_chart_stays_readable_at_six_player_counts(tmp_path) -> None:
    """Under Current at 3-8 players has eight endings: one bar per ending and count side by
    side made a 3,636 x 360 px strip. One bar per count keeps the width a page shows."""
    import pytest

    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image
    import matplotlib.pyplot as plt

    from fieldcraft.sim.report import _endings_chart

    kinds = [f"{end}:{how}" for end in ("deck_out", "retire")
             for how in ("green_card", "green_declaration", "majority", "yellow_balance")]
    endings = {p: {k: 1 + (i + p) % 5 for i, k in enumerate(kinds)} for p in range(3, 9)}
    _endings_chart(plt, endings, tmp_path)
    height, width = matplotlib.image.imread(tmp_path / "endings.png").shape[:2]
    assert width <= 800 and height >= 300
    assert width / height < 2.5


def test_small_multiples_wrap_into_rows_a_page_can_show(tmp_path) -> None:
    """Win rates by seat and the unmask curves at 3-8 players: six panels in one row were
    2,155 and 1,728 px wide strips; they wrap into rows instead, every panel still drawn."""
    import pytest

    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image
    import matplotlib.pyplot as plt

    from fieldcraft.sim import metrics_report, unmask
    from fieldcraft.sim.stats import rate

    groups = {p: [(f"seat {s}", rate(s % 3 + 1, 20)) for s in range(p)] for p in range(3, 9)}
    colours = metrics_report.side_colours(None, [f"seat {s}" for s in range(8)])
    metrics_report.rate_chart(plt, tmp_path, "seats", "seats.png", groups, colours,
                              {p: 1 / p for p in groups})
    curve = {"curve": [(0, 1.0), (3, 0.5)], "last": 9}
    unmask.chart(plt, tmp_path, {(p, side): curve for p in range(3, 9)
                                 for side in ("Blue", "Red")}, {"Blue": "blue", "Red": "red"})
    for name in ("seats.png", "time_to_unmask.png"):
        height, width = matplotlib.image.imread(tmp_path / name).shape[:2]
        assert width <= 900 and height >= 500, (name, width, height)
    fig_axes = plt.subplots(1, 1)  # the charts closed their figures: none left open
    assert plt.get_fignums() == [fig_axes[0].number]
    plt.close("all")


def test_the_headline_says_how_often_nobody_wins() -> None:
    from fieldcraft.sim.metrics_report import verdict

    rows = _rows(3, 40, 10) + _rows(4, 40, 0) + _rows(5, 40, 2)
    text = verdict(summarize(rows), None)
    assert text.endswith(" Nobody wins 25% of games at 3 players, 5% at 5.")
    assert "Nobody" not in verdict(summarize(_rows(3, 40, 0)), None)
