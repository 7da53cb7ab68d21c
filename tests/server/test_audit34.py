"""Leftovers of issue 34 found in its audit: the lobby offers the four bot levels weakest first
in every language (a level ranks above an agent without one), the "You are at seat 1" line is
not shown beside the seat list that already marks "(you)", and a replay's "Last move" line names
Undercover's cells in the frame of the step it shows, not the step shown before it, and a
branch's replay shows the original's moves before the branch step. In chromium, with no console
error or CSP violation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.table_pages import open_table, table_page

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not "
                                "installed (apt-get install chromium)")
LEVELS = {"en": ["Easy", "Normal", "Strong", "Expert"],
          "ja": ["かんたん", "ふつう", "つよい", "エキスパート"],
          "zh-Hant": ["簡單", "普通", "困難", "專家"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("audit34") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


NOTE = {"en": "dice decide", "ja": "サイコロ", "zh-Hant": "骰子"}


@pytest.mark.parametrize("lang", list(LEVELS))
def test_lobby_bot_levels_in_order(browser: Any, server: ServerProcess, lang: str) -> None:
    """Weakest first, and only the levels that are a bot of their own in the game picked:
    Expert in Spy Tracker, where it searches four times as long, and not in Against the
    Current, where it would be Strong again; there a note says what the levels are worth."""
    with table_page(browser, "phone") as tp:
        page = tp.page
        page.goto(f"{server.base}/?lang={lang}")
        page.wait_for_selector("#seat-list select.seat-kind")

        def levels() -> list[str]:
            options = page.locator("#seat-list select.seat-kind").first.locator(
                "option[value^='bot:']")
            return [re.sub(r"^.*?[:：]\s*", "", o) for o in options.all_text_contents()]

        page.select_option("#game-select", "spy-tracker")
        assert levels() == LEVELS[lang], levels()
        assert page.locator("#bots-note").is_hidden()
        page.select_option("#players-select", "3")
        page.select_option("#seat-list select[data-seat='1']", "bot:expert")
        page.select_option("#game-select", "against-the-current")
        assert levels() == LEVELS[lang][:3], levels()
        assert page.locator("#bots-note").is_visible()
        assert NOTE[lang] in (page.text_content("#bots-note") or "").lower()
        seat = page.locator("#seat-list select[data-seat='1']")
        assert seat.input_value() == "bot:heuristic"  # a new game's seats start afresh
        page.select_option("#game-select", "spy-tracker")
        assert levels() == LEVELS[lang] and page.locator("#bots-note").is_hidden()
        # a level is ranked by strength, before any agent the web has no level for
        ranked = page.evaluate("sortBots(['zz-agent', 'expert', 'aa-agent', 'ismcts', 'random'])")
        assert ranked == ["random", "ismcts", "expert", "aa-agent", "zz-agent"], ranked
        tp.check_clean()


@pytest.mark.parametrize("size", ["phone", "wide"])
def test_seated_line_left_to_the_seat_list(browser: Any, server: ServerProcess,
                                           size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        doc = open_table(tp, server, {"game": "spy-tracker", "players": 2, "name": "Ann",
                                      "seats": ["human", "bot:random"]})
        page.wait_for_selector("#seats .seat-label")
        # still there for a screen reader, but taking no room on the page
        assert "Ann" in (page.text_content("#who-am-i") or "")
        box = page.locator("#who-am-i").bounding_box()
        assert box is not None and box["height"] <= 1 and box["width"] <= 1, box
        assert "(you)" in " ".join(page.locator("#seats .seat-label").all_text_contents())
        tp.check_clean()
    with table_page(browser, size) as tp:  # a spectator has no "(you)" in the list: shown
        tp.page.goto(f"{server.base}/t/{doc['id']}?lang=en")
        tp.page.wait_for_selector("#seats .seat-label")
        box = tp.page.locator("#who-am-i").bounding_box()
        assert box is not None and box["height"] > 10, box
        tp.check_clean()


def finished_undercover(server: ServerProcess) -> str:
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "undercover", "players": 3, "seed": 5,
        "seats": ["bot:random", "bot:random", "bot:random"]})
    assert made.status_code == 201, made.text
    table = made.json()["id"]
    for _ in range(300):
        if httpx.get(f"{server.base}/api/tables/{table}").json()["status"] == "finished":
            return table
        import time
        time.sleep(0.1)
    raise AssertionError("the bots' game did not finish")


def test_replay_caption_names_cells_of_its_own_step(browser: Any, server: ServerProcess) -> None:
    table = finished_undercover(server)
    with table_page(browser, "wide") as tp:
        page = tp.page
        page.goto(f"{server.base}/t/{table}/replay?lang=en")
        page.wait_for_function("() => document.body.dataset.step === '0'")
        total = int(page.get_attribute("#rp-slider", "max") or 0)
        assert total > 10
        # finding 9: each step control once, and the title names the game, not the table id
        labels = page.locator(".replay-controls button").all_text_contents()
        assert len(labels) == len(set(labels)) == 5, labels
        assert table not in (page.text_content("h1") or "")

        def caption(step: int, came_from: int) -> str:
            for target in (came_from, step):
                page.evaluate("""(n) => { const s = document.getElementById('rp-slider');
                    s.value = String(n); s.dispatchEvent(new Event('input')); }""", target)
                page.wait_for_function(f"() => document.body.dataset.step === '{target}'")
            return page.text_content("#last-move") or ""

        steps = range(1, total, max(1, total // 12))
        # the same step reads the same whether the replay came to it from the start or the end
        # (the end's grid is wider, so its frame names the cells differently)
        differ = [(s, a, b) for s in steps
                  if (a := caption(s, 0)) != (b := caption(s, total))]
        assert not differ, differ
        tp.check_clean()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_branchs_replay_shows_the_moves_before_it(browser: Any, server: ServerProcess,
                                                    lang: str) -> None:
    """A branch's own replay begins at the branch step; the moves before it are the original's,
    shown above its events (as on the branch's table) with a link to the original's replay."""
    original = finished_undercover(server)
    step = httpx.get(f"{server.base}/api/tables/{original}/replay").json()["steps"] // 2
    before = httpx.get(f"{server.base}/api/tables/{original}/replay",
                       params={"step": step, "seat": 0}).json()
    keys = [e["event"]["key"] for e in before["log"] if e["event"]]
    assert keys
    made = httpx.post(f"{server.base}/api/tables/{original}/branch",
                      json={"step": step, "seat": 0, "bot": "random", "name": "Ann"})
    assert made.status_code == 201, made.text
    doc = made.json()
    with table_page(browser, "phone") as tp:
        page = tp.page
        page.goto(f"{server.base}/?lang={lang}")
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                      [doc["id"], doc["token"]])
        page.goto(f"{server.base}/t/{doc['id']}?lang={lang}")
        tp.press(page.locator("#concede-button"))  # the stand-in bot plays the rest at once
        tp.press(page.locator("#concede-yes"))
        page.wait_for_function("() => document.body.dataset.status === 'finished'",
                               timeout=60_000)
        page.goto(f"{server.base}/t/{doc['id']}/replay?lang={lang}")
        page.wait_for_selector("#branch-prelude-log li")
        got = page.eval_on_selector_all("#branch-prelude-log li",
                                        "ls => ls.map(l => l.dataset.key)")
        assert got == keys
        link = page.get_attribute("#branch-link", "href") or ""
        assert link.startswith(f"/t/{original}/replay?step={step}"), link
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        tp.check_clean()
