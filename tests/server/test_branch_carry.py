"""A branch carries the game it came from (issue 34, item 10), and offers the server's bots.

A table branched from a replay used to open on an empty log with its person called "Player".
Now the person keeps the original seat's name unless they give their own, the table page shows
the original's log up to the branch step as that seat saw it (with the original seats' names),
and the replay's panel offers the bots of ``agents/levels.py`` as the server lists them (#35:
``branch.js`` had its own copy of the names).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldcraft.agents.levels import WEB_BOTS
from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.test_layout import drive
from tests.server.test_my_games import no_problems, watched


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db: Path = tmp_path_factory.mktemp("carry") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, args=["--no-limits"]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def original(server: ServerProcess) -> dict[str, Any]:
    """A finished Spy Tracker game: Ann at seat 0, random bots at the others."""
    made = drive(server, "spy-tracker", None, 11, seeded=False)
    assert httpx.get(f"{server.base}/api/tables/{made['id']}").json()["status"] == "finished"
    return made


def branch(server: ServerProcess, table_id: str, **body: Any) -> dict[str, Any]:
    res = httpx.post(f"{server.base}/api/tables/{table_id}/branch", json=body)
    assert res.status_code == 201, res.text
    return res.json()


def test_the_branch_seat_keeps_the_original_name_unless_given_one(
        server: ServerProcess, original: dict[str, Any]) -> None:
    as_ann = branch(server, original["id"], step=4, seat=0)
    assert as_ann["table"]["seats"][0]["name"] == "Ann"
    named = branch(server, original["id"], step=4, seat=0, name="Bea")
    assert named["table"]["seats"][0]["name"] == "Bea"
    # a bot's seat had no person: the plain default
    as_bot = branch(server, original["id"], step=4, seat=1)
    assert as_bot["table"]["seats"][1]["name"] == "Player"


def test_the_bots_offered_are_the_levels(server: ServerProcess,
                                         original: dict[str, Any]) -> None:
    options = httpx.get(f"{server.base}/api/tables/{original['id']}/branch").json()
    assert options == {"bots": list(WEB_BOTS), "default": "heuristic"}
    # the game's own levels: Against the Current has no Expert apart from Strong
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "against-the-current", "players": 2, "seats": ["human", "bot:random"]})
    assert made.status_code == 201, made.text
    options = httpx.get(f"{server.base}/api/tables/{made.json()['id']}/branch").json()
    assert options == {"bots": ["random", "heuristic", "ismcts"], "default": "heuristic"}
    missing = httpx.get(f"{server.base}/api/tables/no-such-table/branch")
    assert missing.status_code == 404


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed")
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_branch_opens_on_the_original_log_and_names(
        browser: Any, server: ServerProcess, original: dict[str, Any], lang: str) -> None:
    steps = httpx.get(f"{server.base}/api/tables/{original['id']}/replay").json()["steps"]
    step = steps // 2  # past the deal (one silent step a card), well before the end
    before = httpx.get(f"{server.base}/api/tables/{original['id']}/replay",
                       params={"step": step, "seat": 0}).json()
    events = [e for e in before["log"] if e["event"]]
    assert events
    context, page, errors = watched(browser, viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{server.base}{original['url']}/replay?lang={lang}&step={step}&seat=0")
        page.wait_for_function(f"() => document.body.dataset.step === '{step}'")
        page.wait_for_selector("#branch-play:visible")
        offered = page.eval_on_selector_all("#branch-bot option", "os => os.map(o => o.value)")
        assert offered == list(WEB_BOTS)
        page.click("#branch-play")
        page.wait_for_url(f"{server.base}/t/*", timeout=20_000)
        page.wait_for_function("() => document.body.dataset.connected === 'yes'")
        # the seat line is drawn when the first view arrives, which may follow the socket
        page.wait_for_function("() => document.getElementById('who-am-i').textContent.trim()")
        assert "Ann" in page.text_content("#who-am-i")
        page.wait_for_selector("#branch-prelude li")
        lines = page.locator("#branch-prelude-log li")
        assert lines.count() == len(events)
        assert [lines.nth(i).get_attribute("data-key") for i in range(lines.count())] \
            == [e["event"]["key"] for e in events]
        # read by the seat's person: the original seats by their names, Ann's own moves as hers
        text = page.text_content("#branch-prelude-log")
        bot = "Bot 2" if lang == "en" else "ボット"
        assert bot in text, text
        summary = page.text_content("#branch-prelude summary")
        assert str(step) in summary and str(len(events)) in summary
        # the branch's own log is still its own, below
        assert page.locator("#log").count() == 1
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1280
        no_problems(page, errors, f"branch page ({lang})")
    finally:
        context.close()
