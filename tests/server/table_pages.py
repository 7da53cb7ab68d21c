"""Shared pieces of the table-page browser tests of issue 34's boards (motion, seat list, passing
by two taps, Undercover's grid): the two sizes each runs at, a seeded table opened as the person
at seat 0, a page that records console errors and CSP violations, and a random board move."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from tests.server.helpers import ServerProcess
from tests.server.test_browser_csp import RECORD_VIOLATIONS

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
              "device_scale_factor": 1},
    "wide": {"viewport": {"width": 1280, "height": 800}},
}


class TablePage:
    """A page with its problems (console errors, page errors, CSP violations) collected."""

    def __init__(self, browser: Any, size: str, **context: Any):
        self.context = browser.new_context(**SIZES[size], **context)
        self.context.add_init_script(RECORD_VIOLATIONS)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.touch = size == "phone"
        self.problems: list[str] = []
        self.page.on("console",
                     lambda m: self.problems.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.problems.append(f"pageerror: {exc}"))

    def press(self, locator: Any) -> None:
        """A tap on a phone, a click elsewhere. The board may be drawn anew while the press
        waits for the thing to stand still (a late update, a move's animation ending): the
        thing found is then no longer in the page, and the press looks for it again (the
        locator finds the new one), at most twice; nothing was pressed before that error."""
        from playwright.sync_api import Error

        for attempt in range(3):
            try:
                locator.scroll_into_view_if_needed()
                if self.touch:
                    locator.tap()
                else:
                    locator.click()
                return
            except Error as exc:
                if "not attached" not in str(exc) or attempt == 2:
                    raise

    def check_clean(self) -> None:
        violations = self.page.evaluate("window.__csp || []")
        assert not self.problems and not violations, (self.problems, violations)


@contextmanager
def table_page(browser: Any, size: str, **context: Any) -> Iterator[TablePage]:
    tp = TablePage(browser, size, **context)
    try:
        yield tp
    finally:
        tp.context.close()


def open_table(tp: TablePage, server: ServerProcess, body: dict[str, Any],
               lang: str = "en") -> dict[str, Any]:
    """A table made through the HTTP API (``body``), opened in the page as its seat 0."""
    made = httpx.post(f"{server.base}/api/tables", json=body)
    assert made.status_code == 201, made.text
    doc = made.json()
    tp.page.goto(f"{server.base}/?lang={lang}")
    tp.page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                     [doc["id"], doc["token"]])
    tp.page.goto(f"{server.base}/t/{doc['id']}?lang={lang}")
    tp.page.wait_for_function("() => document.body.dataset.version !== undefined")
    return doc


def wait_for_turn(tp: TablePage) -> bool:
    """Until the person may move on the board (True) or the game is over (False)."""
    tp.page.wait_for_function(
        "() => (document.querySelector('#board .playable') && "
        "document.querySelector('#choices button.choice:not([disabled])')) || "
        "document.body.dataset.status === 'finished'")
    return tp.page.evaluate("document.body.dataset.status") != "finished"


def random_move(tp: TablePage, rng: random.Random) -> None:
    """One move on the board: a random playable thing, then a random item of its menu or (Under
    Current's pass) a random marked seat; waits until the table's version moves on."""
    page = tp.page
    version = page.evaluate("document.body.dataset.version")
    things = page.locator("#board .playable")
    tp.press(things.nth(rng.randrange(things.count())))
    menu = page.locator(".play-menu .play-menu-item")
    receivers = page.locator("#board .uc.picking .uc-seat.receiver")
    if menu.count():
        tp.press(menu.nth(rng.randrange(menu.count())))
    elif receivers.count():
        tp.press(receivers.nth(rng.randrange(receivers.count())))
    page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
