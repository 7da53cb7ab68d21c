"""The playtest report beside the bots (issue #33 item 3): people's figures flagged where they
fall outside the bots' interval, the bots' prediction kept for the same effective ruleset,
"did it feel close?" against the measured drama of the same games, and the CSV and Parquet
export read back."""

from __future__ import annotations

import csv
import json
import math
import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from fastapi.testclient import TestClient  # noqa: E402

from fieldcraft.cli import main  # noqa: E402
from fieldcraft.server import create_app, store  # noqa: E402
from fieldcraft.server import playtest as P  # noqa: E402
from fieldcraft.server.feedback import Answer  # noqa: E402
from fieldcraft.sim.playtest_report import (  # noqa: E402
    closeness,
    compare_with_bots,
    playtest_report,
)
from fieldcraft.sim.stats import rate  # noqa: E402

CLOSE = [5, 1, 4, 2, 3, 5]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIELDCRAFT_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Six finished two-player games of a short Spy Tracker, each answered by its person."""
    db = f"sqlite:///{tmp_path_factory.mktemp('lab') / 'lab.db'}"
    app = create_app(db, allowed_hosts=["testserver"], bot_delay=0.0, away_grace=0.0)
    with TestClient(app) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        P.create(hub.engine, "lab", "spy-tracker", [2], {"points_to_win": 1}, "random")
        made = []
        for i in range(len(CLOSE)):
            seats = ["human", "bot"] if i % 2 == 0 else ["bot", "human"]
            res = client.post("/api/playtests/lab/tables", json={"seats": seats})
            assert res.status_code == 201, res.text
            made.append(res.json())
        for m, close in zip(made, CLOSE, strict=True):
            room = hub.rooms[m["id"]]
            deadline = time.monotonic() + 60
            while room.status != "finished":
                assert time.monotonic() < deadline
                time.sleep(0.01)
            answers = {"fun": 4, "clarity": 3, "close": close, "length": "right",
                       "confusing": ["section:3"], "comment": f"game {close}"}
            res = client.post(f"/api/tables/{m['id']}/feedback",
                              json={"token": m["token"], "answers": answers})
            assert res.status_code == 201, res.text
    return db


def _report(db: str, **kw: Any) -> dict[str, Any]:
    engine = store.make_engine(db)
    try:
        return playtest_report(engine, "lab", **kw)
    finally:
        engine.dispose()


def test_a_people_figure_far_outside_the_bots_is_flagged_one_inside_is_not() -> None:
    report = {"seats": [{"players": 2, "seat": 0, **rate(19, 20)},
                        {"players": 2, "seat": 1, **rate(9, 20)}],
              "sides": [], "endings": {2: {"caught": 20}}, "_games": {2: 20},
              "metrics": {"2": {"drama": {"value": 0.30, "low": 0.25, "high": 0.35, "n": 20}}}}
    bots = {"seats": [{"players": 2, "seat": 0, **rate(100, 200)},
                      {"players": 2, "seat": 1, **rate(100, 200)}],
            "sides": [], "endings": {"2": {"caught": 100, "points": 100}}, "games": {"2": 200},
            "metrics": {"2": {"drama": {"value": 0.10, "low": 0.08, "high": 0.12, "n": 200}}}}
    compare_with_bots(report, bots)
    far, near = report["seats"]
    assert far["outside"] and far["apart"] and far["bots"]["rate"] == 0.5
    assert not near["outside"] and not near["apart"]
    assert report["metrics"]["2"]["drama"]["outside"]
    caught = report["ending_shares"][0]
    assert caught["ending"] == "caught" and caught["outside"]  # 100% of people's, 50% of bots'
    assert report["flags"] == 3


def test_closeness_pairs_each_game_once() -> None:
    rows = [{"table": f"t{i}", "metrics": {"drama": d}} for i, d in
            enumerate([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])]
    rows.append({"table": "conceded", "metrics": None})
    stamp = datetime(2026, 1, 1)
    felt = {"t0": [1, 2], "t1": [2], "t2": [2], "t3": [4], "t4": [4], "t5": [5, 5],
            "conceded": [5]}
    answers = [Answer(t, s, {"close": c}, "en", stamp) for t, cs in felt.items()
               for s, c in enumerate(cs)]
    got = closeness(rows, answers)
    assert got["games"] == 6 and got["answers"] == 8  # the conceded game has no drama
    xs = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    ys = [1.5, 2, 2, 4, 4, 5]
    r = statistics.correlation(xs, ys)
    assert got["pearson"]["r"] == pytest.approx(r)
    half = 1.959963984540054 / math.sqrt(6 - 3)
    assert got["pearson"]["low"] == pytest.approx(math.tanh(math.atanh(r) - half))
    assert got["pearson"]["low"] < r < got["pearson"]["high"]
    assert [t["n"] for t in got["terciles"]] == [2, 2, 2]
    assert [t["mean"] for t in got["terciles"]] == [1.75, 3.0, 4.5]
    assert closeness(rows[:3], answers)["pearson"] is None  # under four games


def test_closeness_and_metrics_of_real_games(played: str) -> None:
    report = _report(played, bot_games=0)
    assert report["human_games"] == 6 and report["closeness"]["answers"] == 6
    games = {g["table"]: g for g in report["games"]}
    pairs = [(g["drama"], g["close_mean"]) for g in games.values() if g["drama"] is not None]
    assert report["closeness"]["games"] == len(pairs)
    assert sorted(g["close_mean"] for g in games.values()) == sorted(CLOSE)
    assert all(0 <= d <= 1 for d, _ in pairs)
    if report["closeness"]["pearson"]:
        assert report["closeness"]["pearson"]["r"] == pytest.approx(
            statistics.correlation(*zip(*pairs, strict=True)))
    drama = report["metrics"]["2"]["drama"]
    assert drama["n"] == len(pairs)
    assert drama["value"] == pytest.approx(statistics.fmean(d for d, _ in pairs))
    assert "Felt close (1-5) against measured drama" in report["text"]
    engine = store.make_engine(played)
    rounds = []
    for table in {g["table"] for g in report["games"]}:
        row = store.read_table(engine, table)
        assert row is not None and row.result is not None
        rounds.append(row.result["outcome"]["rounds"])
    engine.dispose()
    length = report["length"]["2"]
    assert length["unit"] == "rounds" and length["median"] == statistics.median(rounds)
    assert length["mean"]["value"] == pytest.approx(statistics.fmean(rounds))


def test_the_bots_prediction_is_kept_for_the_same_ruleset(played: str) -> None:
    assert _report(played)["bots"]["run"] is False  # nothing kept yet: the study is named
    ran = _report(played, bot_games=8)["bots"]
    assert ran["run"] and "cached" not in ran
    again = _report(played)  # the page's and the CLI's default
    assert again["bots"]["cached"] and again["bots"]["seats"] == ran["seats"]
    assert all("bots" in s and "outside" in s for s in again["seats"])
    assert again["flags"] == sum(s["outside"] for s in again["seats"] + again["sides"]
                                 + again["ending_shares"]) + sum(
        bool(v and v["outside"]) for m in again["metrics"].values() for v in m.values()) + sum(
        n["mean"]["outside"] for n in again["length"].values())
    assert "cached" in again["text"]
    assert again["length"]["2"]["bots"]["median"] == ran["length"]["2"]["median"]
    assert "outside" in again["length"]["2"]["mean"]
    assert _report(played, bot_games=0)["bots"]["run"] is False  # 0: never


def test_the_prediction_flags_what_a_second_bot_mix_flips(played: str) -> None:
    bots = _report(played, bot_games=8, robustness_games=4,
                   search="ismcts(iterations=10)")["bots"]
    rob = bots["robustness"]
    assert rob["games_per_count"] == 4 and rob["mix"] == {"2": ["ismcts(iterations=10)",
                                                               "random"]}
    assert {(c["players"], c["side"]) for c in rob["conclusions"]} <= {
        (s["players"], s["side"]) for s in bots["sides"]} | {
        (s["players"], f"seat {s['seat']}") for s in bots["seats"]}


def test_export_writes_games_and_answers_that_read_back(
        played: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "export"
    assert main(["playtest", "report", "lab", "--db", played, "--bot-games", "0",
                 "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    with open(out / "games.csv", encoding="utf-8") as fh:
        games = list(csv.DictReader(fh))
    assert [g["table"] for g in games] == [g["table"] for g in report["games"]]
    assert len(games) == report["human_games"] == 6
    assert [float(g["close_mean"]) for g in games] == [g["close_mean"] for g in report["games"]]
    table = pq.read_table(out / "games.parquet")
    assert table.num_rows == 6 and table.schema.field("drama").type == pa.float64()
    assert table.column("drama").to_pylist() == [g["drama"] for g in report["games"]]
    with open(out / "answers.csv", encoding="utf-8") as fh:
        answers = list(csv.DictReader(fh))
    assert len(answers) == report["feedback"]["count"] == 6
    assert sorted(int(a["close"]) for a in answers) == sorted(CLOSE)
    parquet = pq.read_table(out / "answers.parquet").to_pylist()
    assert [a["comment"] for a in parquet] == [a["comment"] for a in answers]
    assert {a["confusing"] for a in parquet} == {"section:3"}
    by_table = {g["table"]: g["drama"] for g in report["games"]}
    assert all(a["game_drama"] == by_table[a["table"]] for a in parquet)


def test_the_command_says_it_is_playing_the_prediction_before_it_does(
        played: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A prediction with a search bot's mix takes minutes and prints nothing until it is done;
    the command says what it is playing first (stderr, so --json stays clean)."""
    assert main(["playtest", "report", "lab", "--db", played, "--bot-games", "2",
                 "--robustness-games", "1", "--robustness-bot", "ismcts(iterations=10)",
                 "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["bots"]["run"] is True
    assert "playing the bots' prediction: 2 games per player count" in err
    assert "then up to 1 with one ismcts(iterations=10) among them (the slow part, 300 s " \
        "at most)" in " ".join(err.split())
    assert main(["playtest", "report", "lab", "--db", played, "--bot-games", "0"]) == 0
    assert "playing" not in capsys.readouterr().err
