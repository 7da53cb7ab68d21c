"""Study metrics on hand-built evaluation series with known answers, and one small real study."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fieldcraft.core.registry import load_game
from fieldcraft.sim.metrics import (
    Tracer,
    aggregate,
    balance,
    bootstrap,
    decided_at,
    drama,
    game_metrics,
    kingmaking_moves,
    lead_change_rate,
    leader,
    win_chances,
)
from fieldcraft.sim.simulate import play_game

A = [0.8, 0.2]
B = [0.2, 0.8]
TIE = [0.5, 0.5]


def test_leader_never_changes() -> None:
    evals = [A] * 10
    assert lead_change_rate(evals) == 0.0
    assert drama(evals, [0]) == 0.0
    assert decided_at(evals, [0]) == 0.0  # the winner led from before the first decision


def test_leader_changes_every_step() -> None:
    evals = [A, B] * 5 + [[1.0, 0.0]]
    assert lead_change_rate(evals) == 1.0
    # behind by 0.6 on every other point (the five B points of ten), ahead on the rest
    assert drama(evals, [0]) == pytest.approx(0.3)
    # the winner is above 0.5 for good only at the very end
    assert decided_at(evals, [0]) == 1.0


def test_ties_are_no_leader() -> None:
    assert leader(TIE) is None
    assert lead_change_rate([A, TIE, A, TIE, A]) == 0.0
    assert lead_change_rate([A, TIE, B, B, B]) == pytest.approx(1 / 4)


def test_drama_of_a_comeback() -> None:
    # winner seat 1 trails by 0.6, then by 0.2, then leads: (0.6 + 0.2 + 0) / 3
    evals = [A, [0.6, 0.4], B, [0.0, 1.0]]
    assert drama(evals, [1]) == pytest.approx(0.8 / 3)
    assert drama(evals, []) is None  # no winner
    assert drama(evals, [0, 1]) is None  # everybody won


def test_decided_at_crosses_and_stays() -> None:
    # the winner (seat 0) is above 0.5 at points 1, then dips at 2, and stays above from 3 on
    evals = [TIE, A, B, A, A, [1.0, 0.0]]
    assert decided_at(evals, [0]) == pytest.approx(3 / 5)
    assert decided_at(evals, [0], threshold=0.9) == 1.0
    assert decided_at(evals, [0], threshold=0.1) == 0.0


def test_kingmaking() -> None:
    # seat 2 has 2% and hands the lead from seat 0 to seat 1; then seat 0 moves and retakes it
    # (not hopeless, so no kingmaking); then seat 2 moves without changing the leader.
    evals = [[0.6, 0.38, 0.02], [0.3, 0.68, 0.02], [0.6, 0.38, 0.02], [0.61, 0.37, 0.02]]
    assert kingmaking_moves(evals, [2, 0, 2]) == (1, 2)
    # a hopeless seat that takes the lead itself is a comeback, not kingmaking
    assert kingmaking_moves([[0.6, 0.38, 0.02], [0.3, 0.2, 0.5]], [2]) == (0, 1)
    # two players: never kingmaking
    assert kingmaking_moves([[0.97, 0.03], [0.4, 0.6]], [1]) == (0, 0)


def test_perceived_against_true() -> None:
    # the all-seeing evaluation never changes its mind; seat 1 believes it leads until the end
    true = [A] * 4 + [[1.0, 0.0]]
    seat1 = [B] * 4 + [[1.0, 0.0]]
    m = game_metrics(true, [0, 1, 0, 1], [0], 2, perceived=[seat1])
    assert m["lead_changes"] == 0.0 and m["perceived_lead_changes"] == pytest.approx(1 / 4)
    assert m["drama"] == 0.0 and m["perceived_drama"] == pytest.approx(0.6)
    assert m["decided_at"] == 0.0 and m["perceived_decided_at"] == 1.0
    assert m["winner_curve"][0] == 0.8 and m["winner_curve"][-1] == 1.0


def test_balance_and_intervals() -> None:
    rows = [{"players": 2, "labels": ["Red", "Blue"], "winners": [k % 4 != 0]}
            for k in range(200)]  # Blue (seat 1) wins 3 games in 4
    b = balance(rows)
    assert b is not None and b["value"] == pytest.approx(0.5)
    assert b["low"] < 0.5 < b["high"] and b["best"] == "Blue" and b["worst"] == "Red"
    even = [{"players": 2, "labels": ["Red", "Blue"], "winners": [k % 2]} for k in range(200)]
    assert balance(even)["value"] == 1.0
    m = bootstrap([1.0] * 10 + [3.0] * 10)
    assert m is not None and m["value"] == 2.0 and m["low"] < 2.0 < m["high"]
    assert bootstrap([None, None]) is None


def test_aggregate_first_mover_and_duration() -> None:
    rows = [{"players": 3, "labels": [None] * 3, "winners": [k % 3], "length": 20,
             "metrics": {"decisions": 10 + k % 2, "first_mover": 0, "kingmaking": k % 2,
                         "hopeless_moves": 2, "traced": True}}
            for k in range(30)]
    agg = aggregate(rows)["3"]
    assert agg["first_mover"]["value"] == pytest.approx(1 / 3)
    assert agg["seats"]["1"]["advantage"] == pytest.approx(0.0)
    assert agg["duration"]["mean"]["value"] == pytest.approx(10.5)
    assert agg["duration"]["p95"]["value"] == pytest.approx(11.0)
    assert agg["kingmaking"]["games"]["value"] == pytest.approx(0.5)
    assert agg["kingmaking"]["of_hopeless_moves"]["value"] == pytest.approx(15 / 60)


def test_win_chances_normalise() -> None:
    game = load_game("against-the-current", players=3)  # one winner: chances add up to 1
    assert win_chances([0.6, 0.3, 0.3], game) == pytest.approx([0.5, 0.25, 0.25])
    assert win_chances([1.5, -0.5, 0.0], game) == [1.0, 0.0, 0.0]  # clipped to the range
    assert win_chances(None, game) is None
    general = load_game("undercover", players=2)  # general-sum: not made to add up to 1
    assert win_chances([0.2, 0.4], general) == [0.2, 0.4]


def test_tracer_does_not_change_the_game() -> None:
    game = load_game("spy-tracker", players=3)
    plain = play_game(game, ["heuristic"] * 3, 7, trusted=True)
    tracer = Tracer(game, samples=2, seed=7)
    traced = play_game(game, ["heuristic"] * 3, 7, trusted=True, watch=tracer)
    assert traced.history() == plain.history()
    decisions = len(tracer.movers)
    assert len(tracer.evals) == decisions + 1 and tracer.evals[-1] == [
        float(s in traced.winners()) for s in range(3)]
    assert all(len(series) == decisions + 1 for series in tracer.perceived)
    m = tracer.metrics(traced.winners())
    assert m["decisions"] == decisions and 0 <= m["lead_changes"] <= 1
    assert m["perceived_drama"] is not None


def test_small_real_study(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from fieldcraft.sim.metrics import MetricsOptions
    from fieldcraft.sim.study import load_results, run_study

    run_study("against-the-current", [2, 3], ["heuristic"], 12, 5, {}, 1, tmp_path,
              metrics=MetricsOptions(samples=1, every=3))
    meta = json.loads((tmp_path / "study.json").read_text())
    assert meta["metrics_options"] == {"samples": 1, "every": 3}
    for p in ("2", "3"):
        m = meta["metrics"][p]
        assert m["games"] == m["traced"] == 12 and m["perceived_games"] == 4
        assert 0 <= m["balance"]["low"] <= m["balance"]["value"] <= 1
        assert m["lead_changes"]["low"] <= m["lead_changes"]["value"] <= \
            m["lead_changes"]["high"]
        assert m["duration"]["p95"]["value"] >= m["duration"]["mean"]["value"]
    assert meta["metrics"]["2"]["kingmaking"] is None and meta["metrics"]["3"]["kingmaking"]
    rows, _ = load_results(tmp_path)
    assert all(r["metrics"]["traced"] for r in rows)
    # the traced study plays the same games as an untraced one
    run_study("against-the-current", [2, 3], ["heuristic"], 12, 5, {}, 1, tmp_path / "plain",
              metrics=None)
    plain, plain_meta = load_results(tmp_path / "plain")
    assert [r["winners"] for r in plain] == [r["winners"] for r in rows]
    assert "metrics" not in plain_meta and all(r["metrics"] is None for r in plain)


def _rate(wins: int, games: int) -> dict[str, float]:
    from fieldcraft.sim.stats import wilson

    low, high = wilson(wins, games)
    return {"wins": wins, "games": games, "rate": wins / games, "low": low, "high": high}


def test_verdict_names_the_side_furthest_from_even() -> None:
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.metrics_report import verdict

    # Yellow well above an even share (1/players here: one winner, every side in every game)
    wins = {3: (610, 200, 190), 5: (460, 270, 270), 6: (520, 240, 240)}
    summary = {"labels": {(p, side): _rate(w, 1000) for p, ws in wins.items()
                          for side, w in zip(("Yellow", "Red", "Blue"), ws, strict=True)},
               "seats": {}}
    assert verdict(summary, None) == \
        "Yellow wins 61% at 3 players, 46–52% at 5–6: above an even share at every count."
    level = {"labels": {(2, "Red"): _rate(51, 100), (2, "Blue"): _rate(49, 100)}, "seats": {}}
    assert verdict(level, None).endswith("within the 95% interval of an even share.")


def test_side_colours_from_spec_names_and_spares() -> None:
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.metrics_report import side_colours

    animals = side_colours("against-the-current", ["Axolotl", "European Eel"])
    assert animals == {"Axolotl": "#e377c2", "European Eel": "#a8a81e"}  # the game's SPEC
    named = side_colours("under-current", ["Blue", "Red", "Yellow", "Green"])
    assert named == {"Blue": "tab:blue", "Red": "tab:red", "Yellow": "gold",
                     "Green": "tab:green"}
    spare = side_colours(None, ["seat 0", "seat 1", "Orange team"])
    assert spare["Orange team"] == "tab:orange"
    assert len({spare["seat 0"], spare["seat 1"], "#ff7f0e"}) == 3  # distinct, not orange


def test_report_has_verdict_metrics_and_charts(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.report import write_report
    from fieldcraft.sim.study import run_study

    run_study("spy-tracker", [3], ["heuristic"], 8, 1, {}, 1, tmp_path)
    html, md = write_report(tmp_path)
    text = md.read_text()
    assert text.split("\n")[2].startswith("**Seat ")  # the verdict right under the title
    assert "## Designer's metrics" in text and "| lead changes (true) |" in text
    assert "the lead changes after" in text.split("\n")[2]
    for png in ("tension.png", "winner_curve.png", "win_rate_by_seat.png"):
        assert (tmp_path / png).exists() and png in html.read_text()


def test_study_command_metrics_options(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.cli import main

    args = ["study", "spy-tracker", "--players", "3", "--agents", "heuristic", "--games", "6",
            "--workers", "1", "--robustness-games", "0"]
    assert main([*args, "--perceived-samples", "1", "--perceived-every", "2",
                 "--out", str(tmp_path / "a")]) == 0
    meta = json.loads((tmp_path / "a" / "study.json").read_text())
    assert meta["metrics_options"] == {"samples": 1, "every": 2}
    assert meta["metrics"]["3"]["perceived_games"] == 3
    assert main([*args, "--no-metrics", "--out", str(tmp_path / "b")]) == 0
    assert "metrics" not in json.loads((tmp_path / "b" / "study.json").read_text())
