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
from fieldcraft.sim.paired import paired_metrics, pairing_problem, summary  # noqa: E402
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
