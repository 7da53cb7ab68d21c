"""The playtest report (issue #33 item 3): people's games of one playtest pooled, checked against
the same counts made by hand from the stored tables; the questionnaire's means, votes and
ranking; the bot baseline, off (named only) and on; and the command line."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from fieldcraft.cli import main  # noqa: E402
from fieldcraft.server import create_app, store  # noqa: E402
from fieldcraft.server import playtest as P  # noqa: E402
from fieldcraft.server.models import actions  # noqa: E402
from fieldcraft.sim.playtest_report import _mean, _percentile, playtest_report  # noqa: E402
from fieldcraft.sim.stats import rate, t95  # noqa: E402

ANSWERS = [
    {"fun": 5, "clarity": 2, "close": 4, "length": "right", "confusing": ["section:3"],
     "comment": "bids were hard"},
    {"fun": 3, "clarity": 3, "close": 2, "length": "long",
     "confusing": ["section:3", "key:min_bid"]},
    {"fun": 4, "clarity": 1, "close": 5, "length": "right"},
]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bot predictions are kept between reports: each test keeps its own (none to start)."""
    monkeypatch.setenv("FIELDCRAFT_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, list[dict[str, Any]]]:
    """A playtest with four finished games (two at 2 players, two at 3), the person at each
    played by the stand-in bot, and three of them answered."""
    db = f"sqlite:///{tmp_path_factory.mktemp('report') / 'r.db'}"
    app = create_app(db, allowed_hosts=["testserver"], bot_delay=0.0, away_grace=0.0)
    made: list[dict[str, Any]] = []
    with TestClient(app) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        _, token = P.create(hub.engine, "short-game", "spy-tracker", [2, 3],
                            {"points_to_win": 1}, "random")
        for seats in (["human", "bot"], ["bot", "human"], ["human", "bot", "bot"],
                      ["bot", "bot", "human"]):
            res = client.post("/api/playtests/short-game/tables", json={"seats": seats})
            assert res.status_code == 201, res.text
            made.append(res.json())
        for m in made:
            room = hub.rooms[m["id"]]
            deadline = time.monotonic() + 60
            while room.status != "finished":
                assert time.monotonic() < deadline
                time.sleep(0.01)
        for m, answers in zip(made, ANSWERS, strict=False):
            res = client.post(f"/api/tables/{m['id']}/feedback",
                              json={"token": m["token"], "answers": answers})
            assert res.status_code == 201, res.text
    return db, token, made


def test_the_games_are_pooled_as_stored(played: tuple[str, str, list[dict[str, Any]]]) -> None:
    db, _, made = played
    engine = store.make_engine(db)
    report = playtest_report(engine, "short-game")
    assert report["human_games"] == 4 and report["players"] == {2: 2, 3: 2}
    assert report["tables"]["made"] == 4 and report["tables"]["finished"] == 4
    winners: dict[str, list[int]] = {}
    for m in made:  # each game's winners, read back from its stored row
        row = store.read_table(engine, m["id"])
        assert row is not None and row.result is not None
        winners[m["id"]] = row.result["winners"]
    for players in (2, 3):
        games = [m for m in made if m["table"]["players"] == players]
        for seat in range(players):
            wins = sum(seat in winners[m["id"]] for m in games)
            got = next(s for s in report["seats"] if s["players"] == players
                       and s["seat"] == seat)
            assert got == {"players": players, "seat": seat, **rate(wins, len(games))}
    people = next(a for a in report["people_and_bots"] if a["who"] == "person")
    person_wins = sum(seat in winners[m["id"]] for m in made
                      for seat, s in enumerate(m["table"]["seats"]) if s["kind"] == "human")
    assert people["games"] == 4 and people["wins"] == person_wins
    with engine.connect() as conn:
        spans = [(last - first).total_seconds() / 60 for _, first, last in conn.execute(
            sa.select(actions.c.table_id, sa.func.min(actions.c.created_at),
                      sa.func.max(actions.c.created_at)).group_by(actions.c.table_id))]
    assert report["minutes"]["games"] == len(spans) == 4
    assert report["minutes"]["median"] == pytest.approx(statistics.median(spans))
    assert report["minutes"]["p90"] == pytest.approx(max(spans))  # nearest rank of 4
    assert sum(sum(c.values()) for c in report["endings"].values()) == 4
    engine.dispose()


def test_the_questionnaire_is_pooled(played: tuple[str, str, list[dict[str, Any]]]) -> None:
    db, _, _ = played
    engine = store.make_engine(db)
    fb = playtest_report(engine, "short-game")["feedback"]
    engine.dispose()
    assert fb["count"] == 3
    fun = fb["scales"]["fun"]
    half = t95(2) * statistics.stdev([5, 3, 4]) / 3 ** 0.5
    assert fun["mean"] == 4 and fun["low"] == pytest.approx(max(1, 4 - half))
    assert fb["length"]["right"] == rate(2, 3) and fb["length"]["short"] == rate(0, 3)
    assert [(c["id"], c["wins"]) for c in fb["confusing"]] == [("section:3", 2),
                                                                ("key:min_bid", 1)]
    assert fb["confusing"][0]["label"] == "A round"
    assert [c["text"] for c in fb["comments"]] == ["bids were hard"]


def test_the_bots_are_named_unless_asked_for(
        played: tuple[str, str, list[dict[str, Any]]]) -> None:
    db, _, _ = played
    engine = store.make_engine(db)
    stub = playtest_report(engine, "short-game")["bots"]
    assert stub["run"] is False
    assert stub["study"].startswith("fieldcraft study spy-tracker --players 2-3 --agents random")
    assert "--set points_to_win=1" in stub["study"]
    ran = playtest_report(engine, "short-game", bot_games=6)["bots"]
    engine.dispose()
    assert ran["run"] is True and ran["games_per_count"] == 6
    assert {(s["players"], s["games"]) for s in ran["seats"]} == {(2, 6), (3, 6)}


def test_small_pieces() -> None:
    assert _mean([]) == {"n": 0, "mean": None, "low": None, "high": None}
    assert _mean([4])["low"] is None and _mean([4])["mean"] == 4
    assert _mean([5, 5, 5]) == {"n": 3, "mean": 5, "low": 5.0, "high": 5.0}
    assert _percentile([1.0, 2.0, 3.0, 4.0, 10.0], 0.9) == 10.0
    assert _percentile([3.0], 0.9) == 3.0


def test_the_command_line(played: tuple[str, str, list[dict[str, Any]]],
                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db, _, _ = played
    assert main(["playtest", "report", "short-game", "--db", db, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["human_games"] == 4 and doc["feedback"]["count"] == 3
    assert {"minutes", "seats", "bots"} <= set(doc)
    assert main(["playtest", "report", "short-game", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "human games pooled: 4" in text and "Questionnaire: 3 answers" in text
    assert main(["playtest", "report", "nope", "--db", db]) == 2
    assert "no playtest" in capsys.readouterr().err
    fresh = f"sqlite:///{tmp_path / 'new.db'}"
    assert main(["playtest", "create", "spy-tracker", "--name", "one", "--players", "3-4",
                 "--set", "points_to_win=2", "--db", fresh, "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert (made["min_players"], made["max_players"]) == (3, 4)
    assert made["designer_url"].endswith("/p/one#designer=" + made["designer_token"])
    assert made["changes"] == [{"key": "points_to_win", "default": 3, "value": 2}]
    assert main(["playtest", "create", "spy-tracker", "--name", "two", "--players", "2",
                 "--db", fresh]) == 0
    text = capsys.readouterr().out
    assert "/p/two" in text and "#designer=" in text
    assert main(["playtest", "create", "spy-tracker", "--name", "two", "--db", fresh]) == 2
    assert "already" in capsys.readouterr().err
    assert main(["playtest", "close", "two", "--db", fresh]) == 0
    assert "closed" in capsys.readouterr().out
    engine = store.make_engine(fresh)
    assert not P.require(engine, "two").open
    engine.dispose()
