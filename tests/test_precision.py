"""``study --until-ci``: batches until every headline interval is narrow enough, then stop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from fieldcraft.cli import main  # noqa: E402
from fieldcraft.sim.precision import half_width, headline_widths, planner  # noqa: E402
from fieldcraft.sim.study import load_results, run_study  # noqa: E402


def _rows(n: int, wins: int) -> list[dict]:
    return [{"players": 2, "index": k, "labels": [None, None], "winning_labels": [],
             "winners": [0] if k < wins else [1]} for k in range(n)]


def test_half_width_and_the_planner_on_known_counts() -> None:
    # 50 of 100: Wilson 95% is 40.4% - 59.6%, half-width 0.096.
    assert half_width(50, 100) == pytest.approx(0.0962, abs=5e-4)
    assert half_width(0, 0) == 1.0
    widths = headline_widths(_rows(100, 50))
    assert set(widths[2]) == {"seat 0", "seat 1"}
    more = planner(0.05, 10_000, [2])
    # 1/sqrt(n): (0.0962 / 0.05)^2 * 100 * 1.05 = 389 games in all, so 289 more.
    assert 280 <= more(_rows(100, 50), {2: 100})[2] <= 295
    assert planner(0.01, 10_000, [2])(_rows(100, 50), {2: 100})[2] == 300  # at most 4x
    assert planner(0.01, 150, [2])(_rows(100, 50), {2: 100})[2] == 50  # the cap
    assert planner(0.1, 10_000, [2])(_rows(100, 50), {2: 100})[2] == 0  # narrow enough
    with pytest.raises(ValueError, match="half-width"):
        planner(0.6, 100, [2])


def test_until_ci_stops_once_every_interval_is_narrow_enough(tmp_path: Path) -> None:
    run_study("spy-tracker", [2, 3], "random", 20, 4, {}, 1, tmp_path / "u", until_ci=0.06)
    rows, meta = load_results(tmp_path / "u")
    info = meta["until_ci"]
    assert info["reached"] and info["half_width"] == 0.06 and info["batches"] >= 2
    assert info["schedule"][0] == {"2": 20, "3": 20}
    for p in (2, 3):
        got = [r for r in rows if r["players"] == p]
        assert len(got) == info["games"][str(p)] == info["schedule"][-1][str(p)]
        assert [r["index"] for r in got] == list(range(len(got)))
        assert max(headline_widths(got)[p].values()) <= 0.06
        # It stopped at the first batch that was narrow enough: the one before was not.
        before = [r for r in got if r["index"] < info["schedule"][-2][str(p)]]
        assert info["schedule"][-2][str(p)] == len(got) or \
            max(headline_widths(before)[p].values()) > 0.06
    # Game k is the same game whichever batch played it: a fixed study of the same size at 2
    # players gives the same rows.
    n2 = info["games"]["2"]
    run_study("spy-tracker", [2], "random", n2, 4, {}, 2, tmp_path / "fixed")
    fixed, _ = load_results(tmp_path / "fixed")
    assert [r for r in rows if r["players"] == 2] == fixed


def test_until_ci_respects_the_cap_and_the_cli_says_what_it_took(tmp_path: Path,
                                                                  capsys) -> None:
    out = tmp_path / "cap"
    assert main(["study", "spy-tracker", "--players", "2", "--games", "10", "--seed", "1",
                 "--workers", "1", "--until-ci", "0.01", "--max-games", "45",
                 "--robustness-games", "0", "--out", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())  # Rich wraps long lines
    assert "not reached (cap 45 games per count)" in text and "45 games at 2p" in text
    meta = json.loads((out / "study.json").read_text())
    assert meta["until_ci"]["games"] == {"2": 45} and not meta["until_ci"]["reached"]
    assert meta["games_played"] == 45
    assert "within ±1.0 points: not reached" in (out / "report.md").read_text()
    assert main(["study", "spy-tracker", "--players", "2", "--games", "10", "--until-ci", "2",
                 "--out", str(tmp_path / "bad")]) == 2
    assert "half-width between 0 and 0.5" in capsys.readouterr().err
