"""Skill trace: ISMCTS at doubling budgets against the heuristic bot, paired across budgets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from fieldcraft.cli import main  # noqa: E402
from fieldcraft.sim.report import write_report  # noqa: E402
from fieldcraft.sim.skill import (  # noqa: E402
    add_to_study,
    chart_note,
    doubling,
    focus_seat,
    focus_wins,
    run_skill_trace,
    searcher_spec,
    section,
    trace_summary,
    verdict,
)
from fieldcraft.sim.study import load_results, seat_specs  # noqa: E402


def test_focus_seat_is_where_the_rotation_puts_the_searcher() -> None:
    for p in (2, 3, 5):
        agents = ["S"] + ["h"] * (p - 1)
        for k in range(12):
            specs = seat_specs(agents, p, k)
            assert specs[focus_seat(p, k)] == "S" and specs.count("S") == 1
    assert searcher_spec(100) == "ismcts(iterations=100)"
    assert searcher_spec(0.05, "time") == "ismcts(time=0.05)"
    assert doubling(25, 4) == [25, 50, 100, 200]
    with pytest.raises(ValueError, match="unit"):
        searcher_spec(1, "moves")


def test_plateau_on_a_hand_built_trace() -> None:
    # 400 paired games: the baseline wins the first 120, budgets 25/50/100/200 the first
    # 200/280/288/286 (each budget wins every game a smaller one won, plus some): a climb that
    # flattens at 100, so 100 is the smallest budget not significantly below the best (100).
    n = 400
    firsts = [120, 200, 280, 288, 286]
    wins = [{k: k < f for k in range(n)} for f in firsts]
    points = [{"budget": b, "rate": f / n} for b, f in zip([None, 25, 50, 100, 200], firsts,
                                                          strict=True)]
    got = trace_summary(points, wins)
    assert got["best"] == 100
    assert got["stops_paying"] == 100
    assert got["skill_gap"]["diff"] == pytest.approx(168 / n)
    assert got["skill_gap"]["low"] > 0.35
    assert points[2]["step"]["low"] > 0.15  # 25 -> 50: a clear gain
    assert points[4]["step"]["low"] < 0 < points[4]["step"]["high"]  # 100 -> 200: none
    flat = [{k: k < 120 for k in range(n)} for _ in firsts]
    flat_points = [{"budget": b, "rate": 0.3} for b in [None, 25, 50, 100, 200]]
    assert trace_summary(flat_points, flat)["stops_paying"] == 25  # a game of pure luck
    assert not got["still_rising"]
    rising = trace_summary(points[:4], wins[:4])  # up to 100: the best is the largest
    assert rising["still_rising"] and rising["best"] == rising["stops_paying"] == 100


def test_skill_trace_end_to_end(tmp_path: Path) -> None:
    trace = run_skill_trace("spy-tracker", [2], 5, {}, 1, tmp_path, budgets=[8, 4], games=6)
    assert trace["budgets"] == [4, 8] and trace["unit"] == "iterations"
    points = trace["players"]["2"]["points"]
    assert [p["label"] for p in points] == ["heuristic", "ismcts(iterations=4)",
                                            "ismcts(iterations=8)"]
    for point, folder in zip(points, ["2p-heuristic", "2p-iterations-4", "2p-iterations-8"],
                             strict=True):
        rows, _ = load_results(tmp_path / "skill" / folder)
        assert [r["seed"] for r in rows] == [r["seed"] for r in
                                             load_results(tmp_path / "skill" / "2p-heuristic")[0]]
        for r in rows:
            assert r["agents"][focus_seat(2, r["index"])] == point["agent"]
        if point["budget"] is None:  # the baseline: the share of seats that won
            assert point["wins"] == sum(len(r["winners"]) for r in rows)
            assert point["rate"] == pytest.approx(point["wins"] / 12)
        else:
            assert point["wins"] == sum(focus_wins(rows).values())
        assert point["games"] == 6 and point["low"] <= point["rate"] <= point["high"]
    assert "gain" in points[1] and "gain" not in points[0]
    assert trace["players"]["2"]["stops_paying"] in (4, 8)
    # Into a study's folder and report.
    from fieldcraft.sim.study import run_study

    run_study("spy-tracker", [2], "heuristic", 4, 5, {}, 1, tmp_path)
    add_to_study(tmp_path, trace)
    _, md = write_report(tmp_path)
    text = md.read_text()
    assert "## Skill trace" in text and "| 2 | 8 iterations | 6 |" in text
    assert (tmp_path / "skill_trace.png").stat().st_size > 1000
    assert "skill_trace.png" in (tmp_path / "report.html").read_text()


def test_study_skill_trace_cli(tmp_path: Path, capsys) -> None:
    out = tmp_path / "s"
    assert main(["study", "spy-tracker", "--players", "2", "--agents", "heuristic", "--games",
                 "4", "--workers", "1", "--skill-trace", "--skill-games", "4",
                 "--skill-budgets", "4,8", "--robustness-games", "0", "--out", str(out)]) == 0
    meta = json.loads((out / "study.json").read_text())
    assert [p["games"] for p in meta["skill_trace"]["players"]["2"]["points"]] == [4, 4, 4]
    assert "Skill trace" in (out / "report.md").read_text()
    assert main(["study", "spy-tracker", "--players", "2", "--games", "4", "--skill-trace",
                 "--skill-budgets", "4,x", "--out", str(tmp_path / "bad")]) == 2
    assert "--skill-budgets expects positive numbers" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()  # refused before any game
    cpu = tmp_path / "cpu"
    assert main(["study", "spy-tracker", "--players", "2", "--agents", "heuristic", "--games",
                 "2", "--workers", "1", "--skill-trace", "--skill-games", "2", "--skill-unit",
                 "cpu", "--skill-budgets", "0.01", "--robustness-games", "0",
                 "--out", str(cpu)]) == 0
    trace = json.loads((cpu / "study.json").read_text())["skill_trace"]
    assert trace["unit"] == "cpu"
    assert trace["players"]["2"]["points"][1]["agent"] == "ismcts(time=0.01,clock=cpu)"
    assert "CPU seconds a move" in (cpu / "report.md").read_text()


def test_ctrl_c_stops_the_trace_and_keeps_what_finished(tmp_path: Path) -> None:
    def ctrl_c(label: str, done: int, total: int) -> None:
        if "iterations=4" in label and done:  # as the first searcher games come back
            raise KeyboardInterrupt

    trace = run_skill_trace("spy-tracker", [2, 3], 5, {}, 1, tmp_path, budgets=[4, 8], games=6,
                            progress=ctrl_c)
    assert trace["interrupted"] and list(trace["players"]) == ["2"]
    points = trace["players"]["2"]["points"]
    assert [p["label"] for p in points] == ["heuristic", "ismcts(iterations=4)"]
    assert points[0]["games"] == 6 and 0 < points[1]["games"] < 6
    assert not (tmp_path / "skill" / "2p-iterations-8").exists()
    assert "- **interrupted**: the trace stops where Ctrl-C came" in section(trace)


def _hand_trace(n: int, firsts: list[int], budgets: list[float]) -> dict[str, Any]:
    """A trace built from nested results: budget ``i`` wins the first ``firsts[i]`` games (so
    each wins every game a smaller one won); the baseline wins half the seats of every game."""
    from fieldcraft.sim.skill import _baseline_point, _point

    wins: list[dict[int, Any]] = [{k: 0.5 for k in range(n)}]
    points = [_baseline_point(wins[0], 2, 1.0)]
    for b, f in zip(budgets, firsts, strict=True):
        won = {k: k < f for k in range(n)}
        wins.append(won)
        points.append(_point(searcher_spec(b), b, searcher_spec(b), won, 1.0))
    summary = trace_summary(points, wins)
    return {"game": "hand-built", "unit": "iterations", "budgets": budgets, "games": n,
            "opponent": "heuristic", "players": {"2": {"points": points, **summary}}}


def test_the_chart_and_the_text_give_one_verdict() -> None:
    """Against the Current's case: the largest budget has the highest rate but is not
    significantly better than a quarter of it. The chart once said "still rising" there while
    the text said it stopped paying; both now say where it stops."""
    trace = _hand_trace(40, [14, 20, 21], [250, 1000, 4000])
    t = trace["players"]["2"]
    assert t["best"] == 4000 and t["stops_paying"] == 1000
    assert verdict(t)["kind"] == "stops_paying" and not t["still_rising"]
    assert chart_note(t) == ("stops paying", 1000)
    text = "\n".join(section(trace))
    assert "search stops paying at 1000 iterations" in text and "still rising" not in text
    assert "the largest budget's rate is the highest" in text
    # A real climb: each budget significantly above the one before, at 400 games.
    rising = _hand_trace(400, [100, 200, 300], [250, 1000, 4000])["players"]["2"]
    assert rising["still_rising"] and chart_note(rising) == ("still rising", 4000)
    assert "still rising" in "\n".join(section(_hand_trace(400, [100, 200, 300],
                                                           [250, 1000, 4000])))


def test_the_step_column_says_which_budget_it_compares_with() -> None:
    """The gain between budgets is over the previous budget tried (the budgets need not
    double), named in each row; the first budget has none."""
    trace = _hand_trace(40, [14, 20, 21], [250, 1000, 4000])
    points = trace["players"]["2"]["points"]
    assert points[1]["step"] is None
    assert points[2]["step"]["over"] == 250 and points[3]["step"]["over"] == 1000
    assert points[3]["step"]["diff"] == pytest.approx(1 / 40)
    lines = section(trace)
    assert any("gain over the previous budget" in line for line in lines)
    assert not any("half the budget" in line for line in lines)
    row = next(line for line in lines if line.startswith("| 2 | 4000 iterations"))
    assert "over 1000 iterations" in row


def test_progress_covers_the_whole_trace_from_the_first_game(tmp_path: Path) -> None:
    """A long trace says how far it is: the whole trace's games are counted from 0 to the
    total (every count, the baseline and every budget), never going back."""
    seen: list[tuple[int, int]] = []
    run_skill_trace("spy-tracker", [2], 5, {}, 1, tmp_path, budgets=[4, 8], games=3,
                    overall=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 9) and seen[-1] == (9, 9)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_skill_command_by_seconds_a_move(tmp_path: Path, capsys) -> None:
    """``fieldcraft skill --seconds``: the searcher thinks a time per move; the trace goes to
    its folder and, with ``--study``, into a study's report."""
    out = tmp_path / "t"
    assert main(["skill", "spy-tracker", "--players", "2", "--seconds", "0.02,0.01",
                 "--games", "2", "--workers", "1", "--out", str(out), "--json"]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["unit"] == "time" and trace["budgets"] == [0.01, 0.02]
    agents = [p["agent"] for p in trace["players"]["2"]["points"]]
    assert agents == ["heuristic", "ismcts(time=0.01)", "ismcts(time=0.02)"]
    assert "| 2 | 0.02 s | 2 |" in (out / "skill_trace.md").read_text()
    assert (out / "skill_trace.png").exists()
    from fieldcraft.sim.study import run_study

    study = tmp_path / "s"
    run_study("spy-tracker", [2], "heuristic", 2, 5, {}, 1, study)
    write_report(study)
    assert main(["skill", "spy-tracker", "--seconds", "0.01", "--games", "1", "--workers",
                 "1", "--study", str(study)]) == 0
    assert "0.01 s" in (study / "report.md").read_text()
    assert main(["skill", "spy-tracker", "--seconds", "0.1,x", "--out", str(out)]) == 2
    assert "--seconds expects positive numbers" in capsys.readouterr().err


def test_skill_command_by_cpu_seconds_a_move(tmp_path: Path, capsys) -> None:
    """``--clock cpu``: the searcher's budget is CPU seconds (a shared machine's load does
    not shrink it), and the trace, its table and its chart say so."""
    out = tmp_path / "c"
    assert main(["skill", "spy-tracker", "--seconds", "0.01", "--clock", "cpu", "--games", "2",
                 "--workers", "1", "--out", str(out), "--json"]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["unit"] == "cpu" and trace["budgets"] == [0.01]
    agents = [p["agent"] for p in trace["players"]["2"]["points"]]
    assert agents == ["heuristic", "ismcts(time=0.01,clock=cpu)"]
    text = (out / "skill_trace.md").read_text()
    assert "| 2 | 0.01 s CPU | 2 |" in text and "CPU seconds a move" in text
    assert (out / "skill" / "2p-cpu-0.01").is_dir()
    assert main(["skill", "spy-tracker", "--clock", "cpu", "--out", str(tmp_path / "x")]) == 2
    assert "--clock cpu times --seconds budgets" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_constant_baseline_gives_a_real_interval_even_when_every_game_agrees() -> None:
    """Three-player games with one winner each: the baseline is 1/3 in every game. A searcher
    that lost all four games once got the interval "-33.3 (-33.3 – -33.3)", a certainty
    four games cannot give; it is the Wilson interval of 0 of 4, less 1/3."""
    from fieldcraft.sim.skill import _gain_over_baseline
    from fieldcraft.sim.stats import wilson

    gain = _gain_over_baseline({k: 1 / 3 for k in range(4)}, {k: False for k in range(4)})
    assert gain["diff"] == pytest.approx(-1 / 3)
    assert gain["low"] == pytest.approx(-1 / 3) and gain["high"] == pytest.approx(
        wilson(0, 4)[1] - 1 / 3)
    assert gain["high"] > 0.1


def test_the_legend_leaves_the_verdict_label_and_the_points_readable() -> None:
    """When search stops paying at the smallest budget, its label sits top left, where the
    legend once covered it; the legend now sits below the plot, inside the saved figure."""
    from fieldcraft.sim.skill import figure

    trace = _hand_trace(6, [3, 5, 2], [10, 20, 40])
    assert chart_note(trace["players"]["2"]) == ("stops paying", 10)
    fig, _ = figure(trace)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent(renderer)
    labels = [t for t in ax.texts if t.get_text() == "stops paying"]
    assert labels
    axes = ax.get_window_extent(renderer)
    for label in labels:
        assert not legend.overlaps(label.get_window_extent(renderer))
        # over the smallest budget the label starts there, not half past the plot's left edge
        assert label.get_window_extent(renderer).x0 >= axes.x0
    assert not legend.overlaps(axes)
    whole = fig.bbox
    assert whole.x0 <= legend.x0 and legend.x1 <= whole.x1 and whole.y0 <= legend.y0
