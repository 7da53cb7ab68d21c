"""Balance studies: a study's parquet, its report and a comparison of two studies agree."""

from __future__ import annotations

import json
import re
import socket
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from fieldcraft.core.api import FieldcraftError, RulesetError  # noqa: E402
from fieldcraft.core.registry import default_ruleset  # noqa: E402
from fieldcraft.sim.compare import compare, write_comparison  # noqa: E402
from fieldcraft.sim.report import write_report  # noqa: E402
from fieldcraft.sim.stats import newcombe, welch  # noqa: E402
from fieldcraft.sim.stats import rate as _rate  # noqa: E402
from fieldcraft.sim.study import (  # noqa: E402
    RESULTS,
    STUDY,
    _check_reachable,
    load_results,
    ruleset_hash,
    run_study,
)

STUDIES = [
    ("against-the-current", [2, 3]),
    ("spy-tracker", [2]),
    ("under-current", [3, 5]),
    ("undercover", [2]),
]


def _md_rows(md: str, heading: str) -> list[list[str]]:
    """Body rows of the Markdown table under ``## heading``."""
    section = md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")][2:]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]


@pytest.mark.parametrize("game,players", STUDIES, ids=[g for g, _ in STUDIES])
def test_study_end_to_end(tmp_path: Path, game: str, players: list[int]) -> None:
    progress: list[tuple[int, int]] = []
    path = run_study(game, players, ["random", "heuristic"], 20, 3, {}, 1, tmp_path,
                     progress=lambda done, total: progress.append((done, total)))
    assert path == tmp_path / RESULTS and path.exists()
    assert progress[-1] == (20 * len(players), 20 * len(players))
    rows, meta = load_results(tmp_path)
    assert [r["players"] for r in rows] == [p for p in players for _ in range(20)]
    assert [r["index"] for r in rows] == list(range(20)) * len(players)
    assert meta["games_played"] == 20 * len(players) and not meta["interrupted"]
    for r in rows:
        p = r["players"]
        assert len(r["agents"]) == len(r["labels"]) == p
        # seat rotation: seat i of game k plays agents[(i + k) % 2]
        assert r["agents"] == [["random", "heuristic"][(i + r["index"]) % 2] for i in range(p)]
        assert all(0 <= s < p for s in r["winners"])
        assert set(r["winning_labels"]) == {r["labels"][s] for s in r["winners"]} - {None}
        assert r["length"] > 0
        expected = ruleset_hash(
            __import__("json").loads((tmp_path / "ruleset.json").read_text())[str(p)])
        assert r["ruleset_hash"] == expected
    if game == "under-current":
        assert all(r["ending"] in ("retire", "deck_out") for r in rows)
        assert all(r["decided_by"] for r in rows if r["winners"])
    if game in ("against-the-current", "undercover"):
        assert all(r["scores"] is not None and len(r["scores"]) == r["players"] for r in rows)

    html, md = write_report(tmp_path)
    text = md.read_text()
    page = html.read_text()
    assert "<img" in page and "win_rate_by_seat.png" in page
    for png in re.findall(r"src='([^']+\.png)'", page):
        assert (tmp_path / png).stat().st_size > 1000
    # Seat table: wins and games per (players, seat) equal the counts from the parquet.
    seat_rows = _md_rows(text, "Win rate by seat")
    assert len(seat_rows) == sum(players)
    for seat, p, wins, n, *_ in seat_rows:
        got = [r for r in rows if r["players"] == int(p)]
        assert int(n) == len(got) == 20
        assert int(wins) == sum(int(seat) in r["winners"] for r in got)
    labelled = any(label for r in rows for label in r["labels"])
    assert ("## Win rate by side" in text) == labelled
    if labelled:
        for label, p, wins, n, *_ in _md_rows(text, "Win rate by side"):
            got = [r for r in rows if r["players"] == int(p) and label in r["labels"]]
            assert int(n) == len(got)
            assert int(wins) == sum(label in r["winning_labels"] for r in got)
    assert f"- game: {game}" in text and "- seed: 3" in text
    assert '"min_players"' in text  # the full ruleset is in the header


def test_same_seed_same_results_for_any_worker_count(tmp_path: Path) -> None:
    run_study("under-current", [3, 4], "random", 30, 11, {}, 1, tmp_path / "one")
    run_study("under-current", [3, 4], "random", 30, 11, {}, 2, tmp_path / "two")
    run_study("under-current", [3, 4], "random", 30, 12, {}, 2, tmp_path / "other")
    one, _ = load_results(tmp_path / "one")
    two, _ = load_results(tmp_path / "two")
    other, _ = load_results(tmp_path / "other")
    assert one == two
    assert len(one) == 60
    assert [r["seed"] for r in one] != [r["seed"] for r in other]
    assert [r["length"] for r in one] != [r["length"] for r in other]


def test_ctrl_c_keeps_the_finished_games(tmp_path: Path) -> None:
    run_study("spy-tracker", [2, 3], "random", 300, 5, {}, 1, tmp_path / "full")
    full = {(r["players"], r["index"]): r for r in load_results(tmp_path / "full")[0]}

    def ctrl_c(done: int, total: int) -> None:
        if done:  # Ctrl-C as the first chunk comes back
            raise KeyboardInterrupt

    for workers in (1, 2):
        out = tmp_path / f"cut{workers}"
        run_study("spy-tracker", [2, 3], "random", 300, 5, {}, workers, out, progress=ctrl_c)
        rows, meta = load_results(out)
        assert meta["interrupted"] and meta["backend"] == "local"
        assert json.loads((out / STUDY).read_text())["interrupted"]
        assert 0 < meta["games_played"] == len(rows) < 600
        assert len({(r["players"], r["index"]) for r in rows}) == len(rows)
        assert all(full[(r["players"], r["index"])] == r for r in rows)


def test_ray_without_the_extra_is_a_clear_error(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets when not installed
    needs = re.escape("needs the ray extra (pip install -e '.[ray]')")
    with pytest.raises(FieldcraftError, match=needs):
        run_study("spy-tracker", [2], "random", 4, 0, {}, None, tmp_path / "r", ray_address="auto")
    assert not (tmp_path / "r").exists()


def test_unreachable_ray_address_fails_at_once() -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FieldcraftError, match=f"no Ray cluster answers at '127.0.0.1:{port}'"):
        _check_reachable(f"127.0.0.1:{port}")
    with pytest.raises(FieldcraftError, match="no Ray cluster answers"):
        _check_reachable(f"ray://127.0.0.1:{port}")
    _check_reachable("auto-ish")  # not host:port: left for Ray to judge, no error here


def test_unknown_override_fails_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="unknown ruleset key 'tributarys'"):
        run_study("against-the-current", [2, 3], "random", 10, 0, {"tributarys": [1]}, 1,
                  tmp_path)
    assert not (tmp_path / RESULTS).exists()
    # a key that is valid but fails at only one player count names that count
    with pytest.raises(RulesetError, match="at 4 players"):
        run_study("against-the-current", [2, 4], "random", 10, 0,
                  {"tributaries": [1, 2, 3, 4, 5, 6, 7, 8]}, 1, tmp_path)
    assert not (tmp_path / RESULTS).exists()


def test_interval_helpers() -> None:
    d, low, high = newcombe(_rate(50, 100), _rate(70, 100))
    assert d == pytest.approx(0.2) and 0.06 < low < 0.08 and 0.31 < high < 0.34
    d, low, high = welch([1.0, 2.0, 3.0, 4.0] * 10, [2.0, 3.0, 4.0, 5.0] * 10)
    assert d == pytest.approx(1.0) and 0.4 < low < 0.6 and 1.4 < high < 1.6


def test_compare_flags_a_real_difference_and_not_noise(tmp_path: Path) -> None:
    # Without Green's cards (random bots, 4 players) Green nearly never wins and Blue wins far
    # more (measured: Green ~169 -> ~0 of 300, Blue ~18 -> ~71). Reversing Against the
    # Current's tributaries, the example, moves nothing measurable with random bots.
    cards = [c for c in default_ruleset("under-current")["cards"] if c["colour"] != "Green"]
    run_study("under-current", [4], "random", 300, 1, {}, 2, tmp_path / "a")
    run_study("under-current", [4], "random", 300, 2, {}, 2, tmp_path / "a2")
    run_study("under-current", [4], "random", 300, 1, {"cards": cards}, 2, tmp_path / "b")

    changed = {(m["metric"], m["players"]): m for m in compare(tmp_path / "a", tmp_path / "b")
               ["metrics"]}
    green = changed[("win rate Green", 4)]
    assert green["verdict"] == "significant" and green["high"] < -0.3
    assert changed[("win rate Blue", 4)]["verdict"] == "significant"
    assert changed[("win rate Blue", 4)]["low"] > 0

    same = compare(tmp_path / "a", tmp_path / "a2")["metrics"]
    assert {m["metric"] for m in same} >= {"win rate Green", "win rate seat 0", "mean length"}
    flagged = [m for m in same if m["verdict"] == "significant"]
    assert not flagged, flagged
    for m in same:
        assert m["low"] <= m["diff"] <= m["high"]

    md, png = write_comparison(tmp_path / "a", tmp_path / "b", tmp_path / "cmp")
    text = md.read_text()
    assert png.stat().st_size > 1000
    assert re.search(r"\| win rate Green \| 4 \|.*\*\*significant\*\*", text)
    assert (tmp_path / "cmp" / "comparison.json").exists()


def test_compare_refuses_different_games(tmp_path: Path) -> None:
    run_study("spy-tracker", [2], "random", 4, 0, {}, 1, tmp_path / "a")
    run_study("undercover", [2], "random", 4, 0, {}, 1, tmp_path / "b")
    with pytest.raises(ValueError, match="cannot compare"):
        compare(tmp_path / "a", tmp_path / "b")


def test_length_is_also_counted_in_rounds_or_turns(tmp_path: Path) -> None:
    # Spy Tracker's outcome counts rounds, Under Current's turns: the rows keep them, the report
    # shows them beside the actions and the headline says how many; an older results file
    # without the columns loads with None.
    import pyarrow.parquet as pq

    from fieldcraft.core.registry import load_game
    from fieldcraft.sim.simulate import play_game

    for game, unit in (("spy-tracker", "rounds"), ("under-current", "turns")):
        out = tmp_path / game
        run_study(game, [3], "random", 6, 4, {}, 1, out)
        rows, _ = load_results(out)
        other = {"rounds": "turns", "turns": "rounds"}[unit]
        for r in rows[:3]:
            state = play_game(load_game(game, players=3), r["agents"], r["seed"], trusted=True)
            assert r[unit] == state.outcome()[unit] and r[other] is None
        _, md = write_report(out)
        text = md.read_text()
        table = _md_rows(text, "Game length at the table")
        assert [(c[0], int(c[2])) for c in table] == [(unit, 6)]
        mean = sum(r[unit] for r in rows) / len(rows)
        assert float(table[0][3]) == pytest.approx(mean, abs=0.05)
        assert f"({mean:.1f} {unit})" in text.split("\n")[2]
    old = tmp_path / "old"
    old.mkdir()
    table = pq.read_table(tmp_path / "spy-tracker" / RESULTS)
    pq.write_table(table.drop_columns(["rounds", "turns"]), old / RESULTS)
    rows, _ = load_results(old)
    assert all(r["rounds"] is None and r["turns"] is None for r in rows)
