"""My games in the lobby (issue 34, item 6), in chromium.

A browser remembers the tables it created or took a seat at (when their page opens); the lobby
lists them under "My games" with their state asked of the table API, a link to the table and,
for a finished one, to its replay, and a "Forget" button. The list lives in that browser only:
another browser sees none of it, and the server lists no private table. A damaged list in
storage is ignored, not fatal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.test_browser_csp import RECORD_VIOLATIONS
from tests.server.test_layout import drive

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed")
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
         "device_scale_factor": 1}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("mine") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, args=["--no-limits"]).start()
    yield srv
    srv.stop()


def watched(browser: Any, **size: Any) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(**size)
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return context, page, errors


def no_problems(page: Any, errors: list[str], where: str) -> None:
    violations = page.evaluate("window.__csp || []")
    assert not errors and not violations, f"{where}: {errors} {violations}"


def mine(page: Any) -> dict[str, str]:
    """The lobby's My games, once every state is in: table id -> state."""
    page.wait_for_function("() => !document.querySelector('#my-games [data-status=loading]')")
    return {n.get_attribute("data-mine"): n.get_attribute("data-status")
            for n in page.locator("#my-games li.my-game").all()}


def test_my_games_lists_the_tables_of_this_browser(browser: Any, server: ServerProcess
                                                   ) -> None:
    finished = drive(server, "spy-tracker", None, 5, seeded=False)  # private, played to the end
    context, page, errors = watched(browser, **PHONE)
    other, other_page, other_errors = watched(browser, viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{server.base}/?lang=en")
        page.wait_for_selector("#my-games li.empty")
        assert page.locator("#my-games").text_content().startswith("None yet")
        # a table made in the lobby (private: the box is not ticked), its page opened
        page.select_option("#game-select", "under-current")
        page.click("#create-button")
        page.wait_for_url("**/t/**")
        page.wait_for_selector("#board > *")
        created = page.evaluate("document.getElementById('table-page').dataset.table")
        # the finished game: this browser held its seat (the token, as after playing it)
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                      [finished["id"], finished["token"]])
        page.goto(f"{server.base}{finished['url']}")
        page.wait_for_selector("[data-testid='final-scores']")
        # a table only watched is not one of mine
        watched_only = httpx.post(f"{server.base}/api/tables", json={
            "game": "undercover", "players": 2, "seats": ["human", "bot:random"],
            "seat": 0}).json()
        page.goto(f"{server.base}{watched_only['url']}")
        page.wait_for_selector("#board > *")

        page.goto(f"{server.base}/?lang=en")
        states = mine(page)
        assert states == {finished["id"]: "finished", created: "playing"}, states
        # newest first, each with the game's name, its seat and when
        rows = page.locator("#my-games li.my-game")
        assert rows.nth(0).get_attribute("data-mine") == finished["id"]
        assert "Spy Tracker" in rows.nth(0).text_content()
        assert "Seat 1" in rows.nth(0).text_content()
        assert rows.nth(0).locator("time").count() == 1
        assert rows.nth(1).locator(".my-game-replay").count() == 0  # still playing
        # the links work: the replay of the finished one, the table of the other
        rows.nth(0).locator(".my-game-replay").click()
        page.wait_for_selector("#replay-page")
        assert page.evaluate("document.getElementById('replay-page').dataset.table") \
            == finished["id"]
        page.go_back()
        page.locator(f"#my-games li[data-mine='{created}'] a.my-game-table").click()
        page.wait_for_selector("#board > *")
        assert page.evaluate("document.getElementById('table-page').dataset.table") == created
        page.go_back()

        # private stays private: the server lists neither table, another browser has no list
        listed = httpx.get(f"{server.base}/api/tables").text
        assert created not in listed and finished["id"] not in listed
        other_page.goto(f"{server.base}/?lang=en")
        other_page.wait_for_selector("#my-games li.empty")
        assert other_page.locator("#my-games li.my-game").count() == 0
        assert created not in other_page.content() and finished["id"] not in other_page.content()

        # forget: gone from the list, and stays gone after a reload; the seat is kept
        page.locator(f"#my-games li[data-mine='{created}'] button.forget").click()
        assert set(mine(page)) == {finished["id"]}
        page.reload()
        assert set(mine(page)) == {finished["id"]}
        assert page.evaluate(f"localStorage.getItem('fc-token-{created}')")
        no_problems(page, errors, "my games")
        no_problems(other_page, other_errors, "another browser's lobby")
    finally:
        context.close()
        other.close()


def test_my_games_in_japanese_and_a_table_no_longer_there(browser: Any, server: ServerProcess
                                                          ) -> None:
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "against-the-current", "players": 2, "seats": ["human", "bot:random"],
        "seat": 0}).json()
    context, page, errors = watched(browser, **PHONE)
    try:
        page.goto(f"{server.base}/?lang=ja")
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                      [made["id"], made["token"]])
        page.goto(f"{server.base}{made['url']}")
        page.wait_for_selector("#board > *")
        # a table this server does not have (another server's, or removed)
        page.evaluate("""() => {
          const items = JSON.parse(localStorage.getItem('fc-my-games'));
          items.push({id: 'gone-table', game: 'spy-tracker', at: '2026-01-02T03:04:05Z',
                      seat: 1});
          localStorage.setItem('fc-my-games', JSON.stringify(items));
        }""")
        page.goto(f"{server.base}/")
        assert mine(page) == {made["id"]: "playing", "gone-table": "gone"}
        assert page.locator("#my-games-heading").text_content() == "自分のゲーム"
        text = page.locator("#my-games").text_content()
        assert "プレイ中" in text and "このサーバーにはもうありません" in text
        assert page.locator("#my-games button.forget").first.text_content() == "一覧から消す"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        # Chromium reports the gone table's 404 in the console: that one is expected
        errors[:] = [e for e in errors if "status of 404" not in e]
        no_problems(page, errors, "my games in Japanese")
    finally:
        context.close()


@pytest.mark.parametrize("stored", [
    "not json", '{"id": 1}', "null",
    '[1, null, {"id": "<b>x</b>", "game": "spy-tracker"}, {"id": "../api", "game": "x"}, '
    '{"game": "spy-tracker"}]'])
def test_a_damaged_list_is_ignored(browser: Any, server: ServerProcess, stored: str) -> None:
    """Whatever is in storage, the lobby shows the empty list (nothing unsafe, no error) and the
    next table opened starts a good list again."""
    context, page, errors = watched(browser, viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{server.base}/?lang=en")
        page.evaluate("(v) => localStorage.setItem('fc-my-games', v)", stored)
        page.reload()
        page.wait_for_selector("#my-games li.empty")
        assert page.locator("#my-games li.my-game").count() == 0
        made = httpx.post(f"{server.base}/api/tables", json={
            "game": "spy-tracker", "players": 2, "seats": ["human", "bot:random"],
            "seat": 0}).json()
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                      [made["id"], made["token"]])
        page.goto(f"{server.base}{made['url']}")
        page.wait_for_selector("#board > *")
        page.goto(f"{server.base}/")
        assert mine(page) == {made["id"]: "playing"}
        no_problems(page, errors, f"damaged list {stored!r}")
    finally:
        context.close()
