"""The deduction report on the web: the API (finished tables only, computed once per table and
seat, 202 while a long one is computed, the export that ``report-game`` reads) and the replay
page's panel in a real Chromium, per seat, in English and Japanese, absent for a game that is
not over."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from fieldcraft.core.deduction import deduction_report, read_replay
from fieldcraft.server.routes import deduction as route
from tests.server.helpers import CHROMIUM, ServerProcess, chromium_browser, create_table

FINISHED = "() => document.getElementById('deduce-panel') && " \
           "document.getElementById('deduce-panel').dataset.ready === 'yes'"


def wait_finished(base: Any, table: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while base.get(f"/api/tables/{table}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.05)


# -- the API --------------------------------------------------------------------------------------
def test_the_report_is_for_finished_tables_once_per_seat_and_matches_the_export(
        client: TestClient) -> None:
    waiting = create_table(client, game="under-current", players=4,
                           seats=["human", "bot", "bot", "bot"])["id"]
    for path in ("deduction?seat=0", "export"):
        res = client.get(f"/api/tables/{waiting}/{path}")
        assert res.status_code == 409 and res.json()["error"]["code"] == "table.not_finished"
    tid = create_table(client, game="under-current", players=4, seats=["bot:random"] * 4)["id"]
    wait_finished(client, tid)
    for bad in ("4", "-1", "x", "1.0", "٣"):
        res = client.get(f"/api/tables/{tid}/deduction?seat={bad}")
        assert res.status_code == 400 and res.json()["error"]["code"] == "request.bad_seat"
    res = client.get(f"/api/tables/{tid}/deduction?seat=2")
    assert res.status_code == 200
    doc = res.json()
    assert doc["status"] == "ready" and [s["seat"] for s in doc["seats"]] == [2]
    cache = client.app.state.deduction_reports
    future = cache[(tid, 2)]
    assert client.get(f"/api/tables/{tid}/deduction?seat=2").json() == doc
    assert cache[(tid, 2)] is future  # computed once, not per request
    export = client.get(f"/api/tables/{tid}/export").json()
    room = client.app.state.hub.rooms[tid]
    assert export["actions"] == room.table.state.history() and export["players"] == 4
    game, actions = read_replay(export)  # what report-game reads gives the same report
    doc.pop("status"), doc.pop("table")
    assert deduction_report(game, actions, seat=2, samples=route.SAMPLES) == doc
    assert client.get("/api/tables/nope/deduction").status_code == 404


def test_a_slow_report_answers_202_until_it_is_ready(client: TestClient,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    tid = create_table(client, game="spy-tracker", players=2, seats=["bot:random"] * 2)["id"]
    wait_finished(client, tid)

    def slow(*args: Any) -> dict[str, Any]:
        time.sleep(0.4)
        return deduction_report(*args)

    monkeypatch.setattr(route, "deduction_report", slow)
    monkeypatch.setattr(route, "WAIT_SECONDS", 0.05)
    first = client.get(f"/api/tables/{tid}/deduction?seat=0")
    assert first.status_code == 202 and first.json() == {"status": "computing"}
    deadline = time.monotonic() + 10
    while (res := client.get(f"/api/tables/{tid}/deduction?seat=0")).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert res.status_code == 200 and res.json()["seats"][0]["seat"] == 0


# -- the replay page ------------------------------------------------------------------------------
pytestmark_browser = pytest.mark.skipif(not CHROMIUM.exists(),
                                        reason="/usr/bin/chromium is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("deduce") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0).start()
    yield srv
    srv.stop()


@pytestmark_browser
def test_the_replay_shows_each_seats_timeline_only_for_a_finished_game(
        server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base) as http:
        done = http.post("/api/tables", json={"game": "under-current", "players": 4,
                                              "seats": ["bot:random"] * 4}).json()
        waiting = http.post("/api/tables", json={"game": "under-current", "players": 4,
                                                 "seats": ["human", "bot", "bot", "bot"]}).json()
        wait_finished(http, done["id"])
        report = http.get(f"/api/tables/{done['id']}/deduction?seat=1").json()
    with chromium_browser() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.set_default_timeout(20_000)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{server.base}{waiting['url']}/replay?lang=en")
            assert page.locator("#deduce-panel").count() == 0  # not over: nothing to deduce

            page.goto(f"{server.base}{done['url']}/replay?lang=en")
            page.wait_for_function("() => document.getElementById('deduce-panel') && "
                                   "document.getElementById('deduce-panel').dataset.ready "
                                   "=== 'spectator'")
            page.select_option("#pov", "1")
            page.wait_for_function(FINISHED + " && document.getElementById('deduce-panel')"
                                   ".dataset.seat === '1'")
            assert "Seat 2's view" in page.locator(".deduce-who").inner_text()
            assert page.locator("#deduce-panel svg path.deduce-line").count() == 1
            page.click("#rp-last")
            page.wait_for_function("() => document.getElementById('deduce-panel').dataset.step "
                                   "=== document.getElementById('rp-slider').max")
            facts = page.locator("#deduce-facts li")
            sure = [s for s in report["seats"][0]["secrets"].values() if s["certain_from"]]
            assert facts.count() == len(sure) > 0
            assert page.locator("#deduce-facts li.later").count() == 0  # all reached by the end
            # the three other seats' roles, certain at the end, each a line
            rows = page.locator("#deduce-now li.deduce-secret.certain")
            assert rows.count() == 3
            first_fact = facts.first.inner_text()
            page.select_option("#pov", "2")
            page.wait_for_function(FINISHED + " && document.getElementById('deduce-panel')"
                                   ".dataset.seat === '2'")
            assert "Seat 3's view" in page.locator(".deduce-who").inner_text()
            assert page.locator("#deduce-now li[data-key='role.2']").count() == 0  # not its own
            assert page.locator("#deduce-now li[data-key='role.1']").count() == 1
            page.click("#rp-first")
            page.wait_for_function("() => document.getElementById('deduce-panel').dataset.step "
                                   "=== '0'")
            assert "Nothing hidden" in page.locator("#deduce-now").inner_text()
            assert first_fact and not errors, errors

            page.goto(f"{server.base}{done['url']}/replay?lang=ja")
            page.select_option("#pov", "0")
            page.wait_for_function(FINISHED)
            page.click("#rp-last")
            page.wait_for_function("() => document.getElementById('deduce-panel').dataset.step "
                                   "=== document.getElementById('rp-slider').max")
            text = page.locator("#deduce-panel").inner_text()
            assert "この席が推理できたこと" in text and "1 番席の視点" in text
            assert not re.search(r"[A-Za-z]{2,}", text), text  # no English in Japanese
            assert not errors, errors
        finally:
            context.close()
    json.dumps(report)
