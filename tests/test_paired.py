"""Paired rule tests: the same deals and seats under both rulesets give narrower intervals."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from fieldcraft.cli import main  # noqa: E402
from fieldcraft.sim.compare import compare, write_comparison  # noqa: E402
from fieldcraft.sim.paired import (  # noqa: E402
    markdown_lines,
    pair_rows,
    paired_metrics,
    pairing_problem,
    summary,
)
from fieldcraft.sim.stats import newcombe, newcombe_paired, paired_t  # noqa: E402
from fieldcraft.sim.stats import rate as _rate  # noqa: E402
from fieldcraft.sim.study import load_results, run_study  # noqa: E402


def _row(index: int, winner: int, length: int, seed: int = 0) -> dict:
    return {"players": 2, "index": index, "seed": seed + index, "agents": ["x", "y"],
            "labels": ["L", "R"], "winners": [winner], "winning_labels": [["L", "R"][winner]],
            "length": length}


def test_newcombe_paired_matches_the_published_value() -> None:
    # Cavo et al. (2012), in Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency
    # Tables" ch. 8 (R package contingencytables): Newcombe square-and-add, 59/6/16/80, gives
    # p1 - p2 = -0.0621 (-0.1186 to -0.0046); here the difference is B - A, so signs flip.
    d, low, high = newcombe_paired(59, 6, 16, 80)
    assert (d, low, high) == pytest.approx((0.0621, 0.0046, 0.1186), abs=1e-4)


def test_uncorrelated_table_is_the_unpaired_interval() -> None:
    # ad == bc: no correlation, so pairing must change nothing.
    assert newcombe_paired(25, 25, 25, 25) == pytest.approx(newcombe(_rate(50, 100),
                                                                      _rate(50, 100)))
    assert newcombe_paired(10, 30, 10, 30) == pytest.approx(newcombe(_rate(40, 80),
                                                                      _rate(20, 80)))


def test_paired_interval_covers_the_truth_and_is_narrower() -> None:
    # Hand-built pairs: a shared "deal" u decides both games unless the rule change (B) flips a
    # game, which it does 10% of the time A loses: true difference +0.05 at p_A = 0.5.
    rng = random.Random(7)
    covered = narrower = 0
    reps, n = 300, 200
    for _ in range(reps):
        table = [0, 0, 0, 0]  # both, only A, only B, neither
        for _ in range(n):
            a = rng.random() < 0.5
            b = a or rng.random() < 0.1
            table[0 if a and b else 1 if a else 2 if b else 3] += 1
        d, low, high = newcombe_paired(*table)
        _, ulow, uhigh = newcombe(_rate(table[0] + table[1], n), _rate(table[0] + table[2], n))
        covered += low <= 0.05 <= high
        narrower += (high - low) < 0.5 * (uhigh - ulow)
    assert 0.92 <= covered / reps <= 0.995
    assert narrower == reps


def test_paired_metrics_on_hand_built_studies() -> None:
    # B flips the winner of game 0 only and lengthens every game by exactly 2.
    rows_a = [_row(k, k % 2, 10 + k) for k in range(40)]
    rows_b = [_row(k, (k + (k == 0)) % 2, 12 + k) for k in range(40)]
    assert pairing_problem(rows_a, rows_b) is None
    metrics = {(m["metric"], m["players"]): m for m in paired_metrics(rows_a, rows_b)}
    seat0 = metrics[("win rate seat 0", 2)]
    assert seat0["pairs"] == 40 and seat0["diff"] == pytest.approx(-1 / 40)
    assert seat0["low"] <= seat0["diff"] <= seat0["high"] and seat0["width_ratio"] < 0.5
    assert metrics[("win rate L", 2)]["diff"] == pytest.approx(-1 / 40)
    length = metrics[("mean length", 2)]
    assert length["diff"] == pytest.approx(2.0) and length["low"] == length["high"] == 2.0
    assert length["unpaired_low"] < 0 < length["unpaired_high"]  # 10..49 spread hides it
    assert summary(list(metrics.values()))["win_rate_width_ratio"] < 0.5
    # t(4) = 2.776, standard error 0.7071: half-width 1.963
    assert paired_t([1.0, 2.0, 3.0, 4.0, 5.0]) == pytest.approx((3.0, 1.037, 4.963), abs=0.02)
    other_seed = [_row(k, k % 2, 10 + k, seed=1000) for k in range(40)]
    assert "different seeds" in pairing_problem(rows_a, other_seed)
    assert "no game" in pairing_problem(rows_a, [{**r, "players": 3} for r in rows_b])


def test_paired_is_narrower_on_a_real_rule_change(tmp_path: Path) -> None:
    # Under Current at 5 players, heuristic bots: without Green's declaration Green wins less
    # (measured 26% -> 20% over 300 pairs). Same seed: the deals and seats match game by game.
    run_study("under-current", [5], "heuristic", 200, 3, {}, 1, tmp_path / "a")
    run_study("under-current", [5], "heuristic", 200, 3, {"green_declaration": False}, 1,
              tmp_path / "b")
    run_study("under-current", [5], "heuristic", 200, 4, {"green_declaration": False}, 1,
              tmp_path / "b4")
    result = compare(tmp_path / "a", tmp_path / "b")
    assert result["paired"]
    rates = [m for m in result["metrics"] if m["metric"] != "mean length"]
    assert len(rates) == 9  # four factions and five seats
    for m in result["metrics"]:
        assert m["low"] <= m["diff"] <= m["high"]
        assert m["high"] - m["low"] < m["unpaired_high"] - m["unpaired_low"]
    assert result["pairing"]["win_rate_width_ratio"] < 0.6
    assert result["pairing"]["win_rate_games_factor"] > 2.5
    # The same data unpaired: compare's independent intervals, exactly the "unpaired" column.
    rows_a, _ = load_results(tmp_path / "a")
    rows_b, _ = load_results(tmp_path / "b")
    unpaired = {(m["metric"], m["players"]): m
                for m in compare(tmp_path / "a", tmp_path / "b", paired=False)["metrics"]}
    for m in paired_metrics(rows_a, rows_b):
        u = unpaired[(m["metric"], m["players"])]
        assert (u["low"], u["high"]) == pytest.approx((m["unpaired_low"], m["unpaired_high"]))
    # Another seed cannot pair: auto falls back to unpaired and says why; --paired refuses.
    other = compare(tmp_path / "a", tmp_path / "b4")
    assert not other["paired"] and "different seeds" in other["pairing_problem"]
    with pytest.raises(ValueError, match="cannot pair"):
        compare(tmp_path / "a", tmp_path / "b4", paired=True)
    md, png = write_comparison(tmp_path / "a", tmp_path / "b", tmp_path / "cmp")
    text = md.read_text()
    assert "**paired**" in text and "unpaired 95% CI" in text and png.stat().st_size > 1000


def test_compare_run_plays_both_rulesets_paired(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["compare", str(a), str(b), "--run", "under-current", "--players", "4",
                 "--agents", "heuristic", "--games", "30", "--seed", "2", "--workers", "1",
                 "--set-b", "green_declaration=false", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["paired"] and result["b"]["overrides"] == {"green_declaration": False}
    assert result["a"]["overrides"] == {} and result["a"]["seed"] == result["b"]["seed"] == 2
    assert (a / "report.html").exists() and (b / "comparison.md").exists()
    assert main(["compare", str(a), str(b), "--run", "under-current", "--games", "3"]) == 2
    assert "--run needs --players" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--run", "under-current", "--players", "4",
                 "--games", "3", "--set-b", "nope=1"]) == 2
    assert "unknown ruleset key 'nope'" in capsys.readouterr().err


def _strict(text: str) -> object:
    """Parse JSON as jq and browsers do: ``Infinity`` and ``NaN`` are errors."""
    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_compare_json_is_strict_when_nothing_changes(tmp_path: Path, capsys) -> None:
    # Two studies of the same rules from one seed: every pair is identical, so the paired
    # length interval has width 0 and "as precise as unpaired studies of N× the games" has no
    # finite N. It must come out as null with a flag, not as Infinity.
    for side in ("a", "b"):
        run_study("spy-tracker", [2], "random", 12, 5, {}, 1, tmp_path / side)
    result = compare(tmp_path / "a", tmp_path / "b")
    assert result["paired"]
    json.dumps(result, allow_nan=False)  # raises on inf or nan anywhere
    assert result["pairing"]["length_width_ratio"] == 0.0
    assert result["pairing"]["length_games_factor"] is None
    assert result["pairing"]["length_games_factor_unbounded"] is True
    write_comparison(tmp_path / "a", tmp_path / "b", tmp_path / "cmp")
    _strict((tmp_path / "cmp" / "comparison.json").read_text())
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json",
                 "--out", str(tmp_path / "cli")]) == 0
    assert _strict(capsys.readouterr().out)["pairing"]["length_games_factor"] is None


def test_identical_pairs_are_counted_and_warned_about(tmp_path: Path) -> None:
    from fieldcraft.sim.paired import identical_pairs

    # 39 of 40 pairs the same: the paired interval is narrow because the rule hardly ever
    # comes into play, which must not be sold as "as precise as N× the games".
    rows_a = [_row(k, k % 2, 10 + k) for k in range(40)]
    rows_b = [_row(k, (k + (k == 0)) % 2, 10 + k) for k in range(40)]
    pairs = pair_rows(rows_a, rows_b)
    got = summary(paired_metrics(rows_a, rows_b), pairs)
    assert identical_pairs(pairs) == 39
    assert got["identical_pairs"] == 39 and got["pairs"] == 40
    assert got["identical_share"] == pytest.approx(39 / 40) and got["identical_warning"]
    lines = "\n".join(markdown_lines({"pairing": got, "metrics": paired_metrics(rows_a, rows_b)}))
    assert "39 of 40" in lines and "**warning**" in lines
    assert "as precise as unpaired studies" not in lines
    # Half the games changed: no warning, and the precision claim stands.
    rows_c = [_row(k, (k + (k % 2 == 0)) % 2, 10 + k + k % 2) for k in range(40)]
    other = summary(paired_metrics(rows_a, rows_c), pair_rows(rows_a, rows_c))
    assert other["identical_pairs"] == identical_pairs(pair_rows(rows_a, rows_c)) < 36
    assert not other["identical_warning"]
    assert "as precise as unpaired studies" in "\n".join(
        markdown_lines({"pairing": other, "metrics": paired_metrics(rows_a, rows_c)}))
    # A real study of the same rules twice: every pair identical, and the report says so.
    for side in ("a", "b"):
        run_study("spy-tracker", [2], "random", 10, 9, {}, 1, tmp_path / side)
    md, _ = write_comparison(tmp_path / "a", tmp_path / "b", tmp_path / "cmp")
    text = md.read_text()
    assert "identical pairs: 10 of 10" in text and "**warning**" in text
    assert "as precise as unpaired studies" not in text


def _traced(index: int, winner: int, drama: float, decisions: int, ending: str) -> dict:
    return {**_row(index, winner, 2 * decisions), "ending": ending, "decided_by": None,
            "metrics": {"decisions": decisions, "drama": drama, "decided_at": 0.5,
                        "lead_changes": 0.1 * (index % 3), "first_mover": index % 2,
                        "traced": True}}


def test_every_study_metric_is_compared_with_paired_intervals() -> None:
    from fieldcraft.sim.compare_metrics import study_metrics

    # B adds exactly 0.1 drama and 3 decisions to every game and turns 10 of the 40 "score"
    # endings into "timeout"s; lead changes and decided-at do not move.
    rows_a = [_traced(k, k % 2, 0.1 + 0.01 * k, 20 + k, "score") for k in range(40)]
    rows_b = [_traced(k, k % 2, 0.2 + 0.01 * k, 23 + k, "timeout" if k < 10 else "score")
              for k in range(40)]
    got = {m["metric"]: m for m in study_metrics(rows_a, rows_b, paired=True)}
    assert {"decisions per game", "drama", "decided at", "lead changes", "first mover wins",
            "no winner", "ending score", "ending timeout", "balance"} <= set(got)
    drama = got["drama"]
    assert drama["diff"] == pytest.approx(0.1) and drama["pairs"] == 40
    assert drama["low"] == pytest.approx(0.1) and drama["high"] == pytest.approx(0.1)
    assert drama["unpaired_low"] < 0.1 < drama["unpaired_high"]  # the spread hides it unpaired
    assert drama["verdict"] == "significant"
    assert got["decisions per game"]["diff"] == pytest.approx(3.0)
    assert got["decided at"]["diff"] == 0.0 and got["decided at"]["verdict"] != "significant"
    timeout = got["ending timeout"]
    assert timeout["a"] == 0.0 and timeout["b"] == pytest.approx(0.25)
    assert timeout["low"] <= 0.25 <= timeout["high"] and timeout["unit"] == "rate"
    assert got["balance"]["diff"] == pytest.approx(0.0) and got["balance"]["unit"] == "share"
    # Unpaired studies get the same metrics with independent intervals.
    loose = {m["metric"]: m for m in study_metrics(rows_a, rows_b, paired=False)}
    assert set(loose) == set(got)
    assert loose["drama"]["diff"] == pytest.approx(0.1) and "unpaired_low" not in loose["drama"]
    assert loose["drama"]["low"] < loose["drama"]["high"]


def test_compare_reports_study_metrics_and_adjusts_verdicts(tmp_path: Path) -> None:
    from fieldcraft.sim.compare import _adjusted

    run_study("spy-tracker", [3], "heuristic", 12, 2, {}, 1, tmp_path / "a")
    run_study("spy-tracker", [3], "heuristic", 12, 2, {}, 1, tmp_path / "b")
    result = compare(tmp_path / "a", tmp_path / "b")
    names = {m["metric"] for m in result["study_metrics"]}
    assert {"drama", "decided at", "balance", "decisions per game", "first mover wins"} <= names
    assert any(n.startswith("ending ") for n in names)
    assert result["adjustment"] == {"method": "holm", "alpha": 0.05, "comparisons":
                                    len(result["metrics"]) + len(result["study_metrics"])}
    md, _ = write_comparison(tmp_path / "a", tmp_path / "b", tmp_path / "cmp")
    text = md.read_text()
    assert "## Study metrics" in text and "| drama | 3 |" in text and "Holm" in text
    # One of 20 comparisons with p about 0.03 is not significant once adjusted; one far out is.
    fake = [{"metric": f"m{i}", "players": 2, "diff": 0.0, "low": -0.1, "high": 0.1}
            for i in range(18)]
    fake += [{"metric": "nominal", "players": 2, "diff": 0.1, "low": 0.009, "high": 0.19},
             {"metric": "clear", "players": 2, "diff": 0.3, "low": 0.2, "high": 0.4}]
    out = {m["metric"]: m for m in _adjusted({"metrics": fake, "study_metrics": []})["metrics"]}
    assert 0.02 < out["nominal"]["p"] < 0.05 and out["nominal"]["verdict"] == "not significant"
    assert out["clear"]["verdict"] == "significant"
