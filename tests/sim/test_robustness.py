"""Conclusions that must not hang on an arbitrary choice (issue #33 items 4 and 6): the bot mix
a study was played with (a second mix re-plays a sample and flags what flips) and the resample
count of the perceived metrics (its default is where the estimate has settled)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fieldcraft.core.registry import load_game
from fieldcraft.sim import robustness as R
from fieldcraft.sim.metrics import (
    DEFAULT_METRICS,
    SETTLING_KEYS,
    STABLE_SHARE,
    _settled,
    resample_sweep,
    stable_count,
)
from fieldcraft.sim.stats import rate
from fieldcraft.sim.study import study_seed


def _summary(rates: dict[str, tuple[int, int]], players: int = 2) -> dict[str, Any]:
    """A study summary with these side rates (wins, games) at one player count."""
    return {"labels": {(players, side): rate(w, n) for side, (w, n) in rates.items()},
            "seats": {}}


def test_a_reversed_conclusion_is_flagged() -> None:
    first = _summary({"red": (140, 200), "blue": (60, 200)})
    second = _summary({"red": (60, 200), "blue": (140, 200)})
    flips = R.compare(first, second)
    assert [(f["side"], f["kind"]) for f in flips] == [("blue", "reversed"), ("red", "reversed")]
    assert flips[1]["first"]["conclusion"] == "above" and flips[1]["second"]["conclusion"] \
        == "below"
    assert "reverses" in "\n".join(R.section({"games_per_count": 200, "seed": 1,
                                              "search": "s", "base": "b", "flips": flips}))


def test_a_conclusion_that_holds_is_not_flagged() -> None:
    first = _summary({"red": (140, 200), "blue": (60, 200)})
    second = _summary({"red": (30, 40), "blue": (10, 40)})  # fewer games, same clear story
    assert R.compare(first, second) == []
    even = _summary({"red": (101, 200), "blue": (99, 200)})
    assert R.compare(even, _summary({"red": (19, 40), "blue": (21, 40)})) == []
    assert "No conclusion flips" in "\n".join(R.section(
        {"games_per_count": 40, "seed": 1, "search": "s", "base": "b", "flips": []}))


def test_sign_and_significance_flips_are_told_apart() -> None:
    clear = _summary({"red": (140, 200), "blue": (60, 200)})
    leaning_other_way = _summary({"red": (18, 40), "blue": (22, 40)})
    same_way_unclear = _summary({"red": (22, 40), "blue": (18, 40)})
    assert {f["kind"] for f in R.compare(clear, leaning_other_way)} == {"sign"}
    weak = R.compare(clear, same_way_unclear)
    assert {f["kind"] for f in weak} == {"significance"}
    assert not any(f["differs"] for f in weak)  # 55% of 40 is not shown to differ from 70%
    assert "2 of them only lose significance" in R.flip_note({"flips": weak})
    assert all(f["differs"] for f in R.compare(clear, _summary({"red": (60, 200),
                                                                 "blue": (140, 200)})))
    assert R.flip_note({"flips": []}) == ""
    # the direction of the comparison does not matter
    assert {f["kind"] for f in R.compare(leaning_other_way, clear)} == {"sign"}


def test_the_second_mix_seats_one_search_bot_everywhere() -> None:
    mix = R.second_mix("heuristic", "ismcts(iterations=10)", 3)
    assert mix == ["ismcts(iterations=10)", "heuristic", "heuristic"]
    assert R.search_bot("spy-tracker") == "ismcts(iterations=4000)"


def test_the_search_bot_is_the_strong_the_web_seats_at_that_count() -> None:
    """Undercover's Strong changes spec from 3 players up (levels.BY_COUNT): the second mix
    at 3 to 6 players must use that spec, at 2 the base row's."""
    from fieldcraft.agents.levels import BY_COUNT, LEVEL_TABLE

    big = BY_COUNT["undercover"][3]["strong"]
    assert big != LEVEL_TABLE["undercover"]["strong"]
    assert [R.search_bot("undercover", p) for p in (2, 3, 4, 5, 6)] == \
        [LEVEL_TABLE["undercover"]["strong"]] + [big] * 4
    assert R.search_bot("under-current", 6) == BY_COUNT["under-current"][6]["strong"]
    assert R.search_bot("spy-tracker", 4) == LEVEL_TABLE["spy-tracker"]["strong"]


def test_a_check_seats_each_counts_own_search_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``search`` the check asks :func:`search_bot` per count and seats its answer
    (a cheap stand-in here, one spec per count), naming each in the result."""
    monkeypatch.setattr(R, "search_bot", lambda game, players=None:
                        f"ismcts(iterations={5 * players})")
    result = R.check("spy-tracker", [2, 3], {"points_to_win": 1}, ["random"], [], 2,
                     workers=1)
    assert result["mix"] == {"2": ["ismcts(iterations=10)", "random"],
                             "3": ["ismcts(iterations=15)", "random", "random"]}
    assert result["search"] == "ismcts(iterations=10) at 2 players, ismcts(iterations=15) at " \
        "3 players"  # one string still, for the playtest page
    assert result["search_by_count"] == {"2": "ismcts(iterations=10)",
                                         "3": "ismcts(iterations=15)"}
    assert result["played"] == {"2": 2, "3": 2} and not result["cut_by_time"]
    text = "\n".join(R.section(result))
    assert "`ismcts(iterations=10)` at 2 players, `ismcts(iterations=15)` at 3 players" in text


def test_the_time_budget_keeps_the_first_games_of_every_count() -> None:
    """A spent budget still plays the first round (one game per count), starts nothing after
    it, and the games kept are each count's first: a seed and a count say which they were."""
    cheap = "ismcts(iterations=5)"
    rows = R.play_mix("spy-tracker", [2, 3], {"points_to_win": 1}, "random", cheap, 6,
                      seconds=0.0)
    assert [(r["players"], r["index"]) for r in rows] == [(2, 0), (3, 0)]
    full = R.play_mix("spy-tracker", [2, 3], {"points_to_win": 1}, "random", cheap, 3,
                      workers=2, seconds=None)
    assert [(r["players"], r["index"]) for r in full] == [(p, k) for p in (2, 3)
                                                          for k in range(3)]
    assert [r["agents"] for r in full if r["players"] == 2] == [
        [cheap, "random"], ["random", cheap], [cheap, "random"]]
    result = R.check("spy-tracker", [2, 3], {"points_to_win": 1}, ["random"], [], 6, cheap,
                     seconds=0.0)
    assert result["played"] == {"2": 1, "3": 1} and result["cut_by_time"]
    assert result["asked"] == 6 and result["games_per_count"] == 1  # the fewest a count got
    text = "\n".join(R.section(result))
    assert "1 at 2 players, 1 at 3 players (of 6 asked" in text and "0 s budget" in text


def test_a_study_report_says_what_the_second_mix_changed(tmp_path: Path) -> None:
    """A real study, then its check with a second mix (a cheap search bot): the stored
    result's conclusions are those of the sample's games, and the report prints them."""
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.report import summarize, write_report
    from fieldcraft.sim.study import load_results, run_study

    out = tmp_path / "study"
    run_study("spy-tracker", [2], "random", 30, 0, {"points_to_win": 1}, 1, out, metrics=None)
    _, md = write_report(out)
    assert "Not checked" in md.read_text(encoding="utf-8")
    result = R.add_to_study(out, 8, "ismcts(iterations=20)", workers=1)
    sample, _ = load_results(out / "robustness" / "2")
    assert len(sample) == 8 and {tuple(r["agents"]) for r in sample} == {
        ("ismcts(iterations=20)", "random"), ("random", "ismcts(iterations=20)")}
    rows, meta = load_results(out)
    assert meta["robustness"]["flips"] == R.compare(summarize(rows), summarize(sample))
    assert result["conclusions"] == [{"players": p, "side": s, **c} for (p, s), c in
                                     R.conclusions(summarize(sample)).items()]
    _, md = write_report(out)
    text = md.read_text(encoding="utf-8")
    assert "## Robustness: a second bot mix" in text and "ismcts(iterations=20)" in text
    assert json.loads((out / "study.json").read_text())["robustness"]["games_per_count"] == 8


def test_the_default_resample_count_has_settled() -> None:
    """Under Current at 5 players, where perceived drama changed sign with the resample count
    (+0.04 at 2, -0.02 at 8): doubling the default must move the perceived gaps that settle by
    less than a quarter of their interval's half-width on the same games. The old default of
    2 does not (drama moves by about its whole half-width), which this test also checks, so
    it fails on the old default."""
    game = load_game("under-current", players=5)
    seeds = [study_seed(0, 5, i) for i in range(20)]
    k = DEFAULT_METRICS.samples
    sweep = resample_sweep(game, ["heuristic"] * 5, seeds, sorted({2, 4, k, 2 * k}))
    assert stable_count({k: sweep[k], 2 * k: sweep[2 * k]}) == k
    assert all(_settled(sweep[k][key], sweep[2 * k][key], STABLE_SHARE)
               for key in SETTLING_KEYS)
    assert not _settled(sweep[2]["drama"], sweep[4]["drama"], STABLE_SHARE)
    assert sweep[2]["drama"]["value"] > 0 > sweep[k]["drama"]["value"]  # the sign it had


def test_stable_count_reads_the_sweep() -> None:
    def gap(value: float, half: float) -> dict[str, float]:
        return {"value": value, "low": value - half, "high": value + half, "n": 10}

    sweep = {2: {"drama": gap(0.05, 0.02), "decided_at": gap(0.1, 0.05)},
             4: {"drama": gap(0.01, 0.02), "decided_at": gap(0.1, 0.05)},
             8: {"drama": gap(0.005, 0.02), "decided_at": gap(0.1, 0.05)},
             16: {"drama": gap(0.004, 0.02), "decided_at": gap(0.1, 0.05)}}
    assert stable_count(sweep) == 4  # 2->4 moves 0.04 (> 0.005); 4->8 moves 0.005
    assert stable_count(sweep, share=0.1) == 8
    flat = {k: {"drama": gap(0.0, 0.0), "decided_at": gap(0.0, 0.0)} for k in (1, 2)}
    assert stable_count(flat) == 1  # a perfect-information game: nothing to settle


def test_each_perceived_metric_has_its_caveat_in_the_report() -> None:
    from fieldcraft.sim.metrics_report import perceived_caveats, sections

    few, enough = perceived_caveats(2), perceived_caveats(DEFAULT_METRICS.samples)
    assert set(few) == set(enough) == {"lead_changes", "drama", "decided_at"}
    assert "reads high" in few["drama"] and "reads high" not in enough["drama"]
    entry = {"balance": None, "first_mover": None, "seats": {}, "traced": 1,
             "perceived_games": 1, "games": 1, "kingmaking": None,
             "duration": {"mean": None, "sd": None, "p95": None},
             **{f"{p}{k}": None for p in ("", "perceived_", "gap_")
                for k in ("lead_changes", "drama", "decided_at")}}
    lines = "\n".join(sections({"2": entry}, {"samples": 2, "every": 4})[0][1])
    assert all(f"caveat, perceived {k.replace('_', ' ')}" in lines for k in few)


def test_a_default_study_checks_a_sample_with_a_second_mix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without any robustness option a study re-plays a sample with the second mix and its
    report says how many games (the search bot is a cheap stand-in, the rest the defaults);
    ``--robustness-games 0`` switches it off and the report says that, not "Not checked"."""
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.cli import main
    from fieldcraft.cli.study import ROBUSTNESS_GAMES, ROBUSTNESS_SECONDS

    monkeypatch.setattr(R, "search_bot", lambda game, players=None: "ismcts(iterations=10)")
    base = ["study", "spy-tracker", "--players", "2", "--games", "12", "--workers", "1",
            "--set", "points_to_win=1", "--no-metrics"]
    out = tmp_path / "default"
    assert main([*base, "--out", str(out)]) == 0
    stored = json.loads((out / "study.json").read_text())["robustness"]
    assert stored["games_per_count"] == ROBUSTNESS_GAMES > 0
    assert stored["seconds"] == ROBUSTNESS_SECONDS > 0
    assert stored["played"] == {"2": ROBUSTNESS_GAMES}  # 20 cheap games fit the budget
    report = (out / "report.md").read_text()
    assert f"re-played {ROBUSTNESS_GAMES} games per player count" in report
    assert "Not checked" not in report
    off = tmp_path / "off"
    assert main([*base, "--robustness-games", "0", "--out", str(off)]) == 0
    assert json.loads((off / "study.json").read_text())["robustness"] == {"off": True}
    assert not (off / "robustness").exists()
    text = (off / "report.md").read_text()
    assert "Switched off (`--robustness-games 0`)" in text and "Not checked" not in text


def test_a_bad_robustness_option_stops_the_study_before_it_plays(tmp_path: Path,
                                                                 capsys) -> None:
    from fieldcraft.cli import main

    out = tmp_path / "bad"
    assert main(["study", "spy-tracker", "--players", "2", "--games", "2",
                 "--robustness-seconds", "-1", "--out", str(out)]) == 2
    assert "--robustness-games and --robustness-seconds must be >= 0" in capsys.readouterr().err
    assert not out.exists()


def test_the_study_command_runs_the_second_mix(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.cli import main

    out = tmp_path / "cli"
    assert main(["study", "spy-tracker", "--players", "2", "--games", "12", "--workers", "1",
                 "--set", "points_to_win=1", "--no-metrics", "--robustness-games", "4",
                 "--robustness-bot", "ismcts(iterations=10)", "--out", str(out)]) == 0
    stored = json.loads((out / "study.json").read_text())["robustness"]
    assert stored["games_per_count"] == 4 and stored["search"] == "ismcts(iterations=10)"
    assert "one `ismcts(iterations=10)` among `random` bots" in (out / "report.md").read_text()


def test_ctrl_c_in_the_check_keeps_the_study_and_says_it_was_not_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.cli import main

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(R, "add_to_study", interrupted)
    out = tmp_path / "stopped"
    assert main(["study", "spy-tracker", "--players", "2", "--games", "6", "--workers", "1",
                 "--no-metrics", "--out", str(out)]) == 130
    meta = json.loads((out / "study.json").read_text())
    assert meta["games_played"] == 6 and "robustness" not in meta
    assert "Not checked" in (out / "report.md").read_text()
