"""The playtest report on the designer's page (issue #33 items 3 and 7), in a real browser: the
kept bots' prediction beside every people's figure, and the figure far outside it flagged."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("playwright")

from fastapi.testclient import TestClient  # noqa: E402

from fieldcraft.server import create_app, store  # noqa: E402
from fieldcraft.server import playtest as P  # noqa: E402
from fieldcraft.sim.playtest_report import (  # noqa: E402
    bot_baseline,
    cache_dir,
    playtest_report,
    prediction_key,
)
from tests.server.helpers import CHROMIUM, ServerProcess, chromium_browser  # noqa: E402


def _play(db: str) -> str:
    """Four finished games of a short two-player playtest (the person's seat played by the
    stand-in bot), each answered; returns the designer's token."""
    app = create_app(db, allowed_hosts=["testserver"], bot_delay=0.0, away_grace=0.0)
    with TestClient(app) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        _, token = P.create(hub.engine, "page", "spy-tracker", [2], {"points_to_win": 1},
                            "random")
        for i in range(4):
            made = client.post("/api/playtests/page/tables",
                               json={"seats": ["human", "bot"]}).json()
            room = hub.rooms[made["id"]]
            deadline = time.monotonic() + 60
            while room.status != "finished":
                assert time.monotonic() < deadline
                time.sleep(0.01)
            res = client.post(f"/api/tables/{made['id']}/feedback", json={
                "token": made["token"], "answers": {"fun": 4, "clarity": 2, "close": 1 + i,
                                                    "length": "right",
                                                    "confusing": ["key:points_to_win"][:i % 2]}})
            assert res.status_code == 201, res.text
    return token


def test_the_designer_sees_the_bots_beside_people_and_the_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed")
    monkeypatch.setenv("FIELDCRAFT_CACHE", str(tmp_path / "cache"))  # the server inherits it
    db = f"sqlite:///{tmp_path / 'page.db'}"
    token = _play(db)
    engine = store.make_engine(db)
    found = P.require(engine, "page")
    kept: dict[str, Any] = bot_baseline(found, 6)
    # A constructed prediction: the bots' seat 1 wins 62% [61-63%], which no people's rate of
    # four games (0, 25, 50, 75 or 100%) falls inside, whoever the random seats let win.
    for seat in kept["seats"]:
        if seat["seat"] == 0:
            seat.update(rate=0.62, low=0.61, high=0.63)
    # A constructed second mix whose counts differ (one count cut by time, another Strong), as a
    # study over several counts gets: the page must name each count's, not one for all.
    kept["robustness"] = {"asked": 20, "games_per_count": 7, "played": {"2": 20, "3": 7},
                          "search": "ismcts(iterations=4000) at 2 players, rollout(rollouts=32) "
                                    "at 3 players",
                          "search_by_count": {"2": "ismcts(iterations=4000)",
                                              "3": "rollout(rollouts=32)"},
                          "seed": 1, "flips": [], "cut_by_time": True, "seconds": 300,
                          "base": "random"}
    (cache_dir() / f"{prediction_key(found)}.json").write_text(json.dumps(kept))
    expected = playtest_report(engine, "page")
    engine.dispose()
    assert expected["bots"]["cached"] and expected["seats"][0]["outside"]
    server = ServerProcess(db).start()
    try:
        with chromium_browser() as browser:
            page = browser.new_page()
            page.goto(f"{server.base}/p/page#designer={token}")
            page.click("#report-button")
            page.wait_for_selector("#designer-tables:not([hidden])")
            tables = page.locator("#designer-tables")
            assert "People's games pooled: 4" in tables.inner_text()
            seats = tables.locator("table").first.locator("tr")
            assert seats.count() == 3  # the head and two seats
            first = seats.nth(1).inner_text()
            assert "62%" in first and "outside the bots' interval" in first
            assert ("outside" in seats.nth(2).inner_text()) == expected["seats"][1]["outside"]
            assert page.locator("#designer-tables tr.outside").count() == expected["flags"]
            assert "Questionnaire: 4 answers" in tables.inner_text()
            mix = page.locator("#designer-tables p", has_text="second bot mix").inner_text()
            assert ("2 players: one ismcts(iterations=4000) among them, 20 games; "
                    "3 players: one rollout(rollouts=32) among them, 7 games") in mix
            assert "no conclusion flips" in mix
            assert not page.locator("#designer-report").is_visible()  # folded text
            page.click("#designer-tables summary")
            assert "Bots' prediction" in page.locator("#designer-report").inner_text()
            assert "Points needed to win" in tables.inner_text()  # a key in words, not its name
            # Each game's answers beside its replay link, for the designer only.
            games = page.locator("#finished-list li[data-table]")
            assert games.count() == 4
            beside = [games.nth(i).locator(".beside-replay").inner_text() for i in range(4)]
            assert all("fun 4, clarity 2" in b for b in beside)
            assert sorted(int(b.split("felt close ")[1][0]) for b in beside) == [1, 2, 3, 4]
            # The confusing rule in the designer's language, as the players picked it in theirs.
            public = browser.new_page()
            public.goto(f"{server.base}/p/page")
            public.wait_for_selector("#finished-list li[data-table]")
            assert public.locator(".beside-replay").count() == 0  # no token: no answers
            page.goto(f"{server.base}/p/page?lang=ja#designer={token}")
            page.click("#report-button")
            page.wait_for_selector("#designer-tables:not([hidden])")
            text = page.locator("#designer-tables").inner_text()
            assert "勝利に必要な得点" in text and "points_to_win" not in text
            assert ("2 人: ismcts(iterations=4000) を 1 体、20 ゲーム；"
                    "3 人: rollout(rollouts=32) を 1 体、7 ゲーム") in text
    finally:
        server.stop()
