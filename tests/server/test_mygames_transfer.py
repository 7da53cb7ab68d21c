"""My games on another device (issue 34, item 4), in chromium.

The lobby makes a personal link whose URL fragment carries this browser's list and its seat and
host tokens; another browser that opens it lists the same games and plays the same seats. The
tokens never reach the server in a request line (a fragment is not sent: the browser's record of
its requests holds none of them), and the lobby drops the fragment from the address bar once
read. A damaged link adds nothing and breaks nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.test_layout import drive
from tests.server.test_my_games import PHONE, mine, no_problems, watched

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    srv = ServerProcess(f"sqlite:///{tmp_path / 'web.db'}", bot_delay=0.0,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


def server_output(srv: ServerProcess) -> str:
    """Everything the server printed (its access log included), once it has stopped."""
    assert srv.proc is not None and srv.proc.stdout is not None
    srv.proc.terminate()
    srv.proc.wait(timeout=10)
    return srv.proc.stdout.read().decode(errors="replace")


def hold(page: Any, base: str, made: dict[str, Any]) -> None:
    """This browser holds ``made``'s seat token (as after creating it) and opens its page,
    which puts it in My games."""
    page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                  [made["id"], made["token"]])
    page.goto(f"{base}{made['url']}")
    page.wait_for_selector("#board > *")


def test_a_personal_link_carries_my_games_and_seats_to_another_browser(
        browser: Any, server: ServerProcess) -> None:
    finished = drive(server, "spy-tracker", None, 7, seeded=False)
    playing = httpx.post(f"{server.base}/api/tables", json={
        "game": "against-the-current", "players": 2, "seats": ["bot:random", "human"],
        "seat": 1, "name": "Ann", "away_bot": False}).json()
    laptop, page, errors = watched(browser, viewport={"width": 1280, "height": 800})
    phone, other, other_errors = watched(browser, **PHONE)
    requests: list[str] = []
    other.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(f"{server.base}/?lang=en")
        hold(page, server.base, finished)
        hold(page, server.base, playing)
        page.goto(f"{server.base}/?lang=en")
        assert mine(page) == {finished["id"]: "finished", playing["id"]: "playing"}
        page.click("#my-games-transfer summary")
        page.wait_for_function("() => document.getElementById('my-games-link').value")
        link = page.input_value("#my-games-link")
        address, _, fragment = link.partition("#")
        assert address == f"{server.base}/" and fragment.startswith("my-games=")
        assert playing["token"] not in link  # encoded, but carried: decoded below

        other.goto(f"{server.base}/?lang=en")
        other.wait_for_selector("#my-games li.empty")
        other.goto(link)
        other.wait_for_selector("#my-games-received:not([hidden])")
        assert "Added 2 of the 2 games" in other.text_content("#my-games-received")
        assert other.evaluate("window.location.hash") == ""  # the tokens left the address bar
        assert mine(other) == {finished["id"]: "finished", playing["id"]: "playing"}
        # the same order as on the laptop: newest first
        order = [n.get_attribute("data-mine") for n in page.locator("#my-games li.my-game").all()]
        assert [n.get_attribute("data-mine")
                for n in other.locator("#my-games li.my-game").all()] == order
        assert other.evaluate(f"localStorage.getItem('fc-token-{playing['id']}')") \
            == playing["token"]
        # on the phone the link box fits too, and carries the same list on
        other.click("#my-games-transfer summary")
        other.wait_for_function("() => document.getElementById('my-games-link').value")
        assert other.input_value("#my-games-link").startswith(f"{server.base}/#my-games=")
        assert other.evaluate("document.documentElement.scrollWidth") <= 390

        # the tables open with their seats: the playing one as seat 2, Ann, with its choices
        other.locator(f"#my-games li[data-mine='{playing['id']}'] a.my-game-table").click()
        other.wait_for_selector("#board > *")
        other.wait_for_function("() => document.body.dataset.connected === 'yes'")
        who = other.text_content("#who-am-i")
        assert "You are at seat 2" in who and "Ann" in who, who
        other.go_back()
        other.locator(f"#my-games li[data-mine='{finished['id']}'] a.my-game-table").click()
        other.wait_for_selector("[data-testid='final-scores']")
        assert "You are at seat 1" in other.text_content("#who-am-i")

        # opened again, the link adds nothing twice
        other.goto(link)
        other.wait_for_selector("#my-games-received:not([hidden])")
        assert "Added 0 of the 2 games" in other.text_content("#my-games-received")
        assert len(mine(other)) == 2
        no_problems(page, errors, "the laptop's lobby")
        no_problems(other, other_errors, "the phone's lobby")
    finally:
        laptop.close()
        phone.close()
    # no request the phone made carried the list or a token (the server prints no access log,
    # so the browser's own record of its requests is the witness)
    assert requests and not any("my-games=" in url for url in requests), requests
    log = server_output(server)
    for token in (finished["token"], playing["token"]):
        assert not any(token in url for url in requests)
        assert token not in log


@pytest.mark.parametrize("fragment", [
    "my-games=", "my-games=%%%", "my-games=bnVsbA",  # "null"
    # [{"i": "../api", "g": "x"}, {"i": "ok", "g": "<b>"}, 1]
    "my-games=W3siaSI6ICIuLi9hcGkiLCAiZyI6ICJ4In0sIHsiaSI6ICJvayIsICJnIjogIjxiPiJ9LCAxXQ"])
def test_a_damaged_link_adds_nothing(browser: Any, server: ServerProcess,
                                     fragment: str) -> None:
    context, page, errors = watched(browser, viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{server.base}/?lang=ja#{fragment}")
        page.wait_for_selector("#my-games-received:not([hidden])")
        assert page.text_content("#my-games-received") \
            == "このブラウザで読めるゲームはリンクにありませんでした。"
        page.wait_for_selector("#my-games li.empty")
        assert page.evaluate("localStorage.getItem('fc-my-games') || '[]'") == "[]"
        assert page.evaluate("window.location.hash") == ""
        no_problems(page, errors, f"damaged link {fragment!r}")
    finally:
        context.close()
