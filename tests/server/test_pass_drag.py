"""Under Current: a card is passed by dragging it onto a player, with a finger or a mouse (issue
34, item 6: "tap the card then the player (or dragging)").

On a phone (390x844, touch) the drag is real touch input (Chrome DevTools' Input.dispatchTouchEvent,
which the page sees as Pointer Events of type "touch"); at 1280x800 it is the mouse. Dropped on a
seat that may receive the card, the pass is sent and the log says the card went to that seat;
dropped anywhere else, nothing is sent (the table's version stays), the card is back in the hand
where it was and no longer picked.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.table_pages import TablePage, open_table, table_page
from tests.server.test_pass_tap import pass_targets, until_my_pass

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not "
                                "installed (apt-get install chromium)")

TABLE = {"game": "under-current", "players": 4, "seed": 7, "name": "Ann",
         "seats": ["human", "bot:random", "bot:random", "bot:random"]}
# The centre of the first element `selector` names, in the viewport (after the hand is scrolled
# to the top of the screen, so the seats below it are in view too).
CENTRE = """(selector) => {
  const r = document.querySelector(selector).getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}"""
# A seat among `seats` whose centre is on screen and not covered (the element there is inside it).
REACHABLE = """(seats) => {
  for (const s of seats) {
    const n = document.querySelector(`#board .uc-seat[data-seat="${s}"]`);
    const r = n.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (y > 0 && y < innerHeight && n.contains(document.elementFromPoint(x, y))) return s;
  }
  return null;
}"""


HOLD_MS = 350  # longer than the board's hold before a finger's drag (200 ms)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("pass-drag") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


def at_my_pass(tp: TablePage, server: ServerProcess) -> tuple[str, set[int]]:
    """The person's table at their pass, the hand at the top of the screen: the first passable
    card and the seats it may go to (read from the server's labels, not the board)."""
    open_table(tp, server, TABLE)
    tp.page.wait_for_selector("#my-role")
    until_my_pass(tp, random.Random(1))
    card = tp.page.locator("#board .hand .card.passable").first
    name = card.get_attribute("data-card") or ""
    actions = {int(a) for a in (card.get_attribute("data-actions") or "").split(",")}
    targets = pass_targets(tp.page)
    tp.page.evaluate("() => document.querySelector('#board .hand').scrollIntoView()")
    return name, {targets[a] for a in actions}


def drag(tp: TablePage, start: list[float], target: str, steps: int = 8) -> None:
    """Press at `start` (a finger holds it a moment), move a little (the card is then picked,
    and the seats that may receive it are marked, which may shift them), then to the centre of
    `target` as it is now, in steps, and let go: a finger (real touch input) on a phone, else
    the mouse."""
    page = tp.page
    cdp = tp.context.new_cdp_session(page) if tp.touch else None

    def touch(kind: str, points: list[tuple[float, float]]) -> None:
        assert cdp is not None
        cdp.send("Input.dispatchTouchEvent",
                 {"type": kind, "touchPoints": [{"x": x, "y": y} for x, y in points]})

    def move(x: float, y: float) -> None:
        if cdp:
            touch("touchMove", [(x, y)])
        else:
            page.mouse.move(x, y)

    if cdp:
        touch("touchStart", [(start[0], start[1])])
        page.wait_for_timeout(HOLD_MS)  # a finger holds the card still first, then drags
    else:
        page.mouse.move(*start)
        page.mouse.down()
    for i in (1, 2):
        move(start[0] + 6 * i, start[1] + 6 * i)
    here = (start[0] + 12, start[1] + 12)
    end = page.evaluate(CENTRE, target)
    for i in range(1, steps + 1):
        move(here[0] + (end[0] - here[0]) * i / steps, here[1] + (end[1] - here[1]) * i / steps)
    if cdp:
        touch("touchEnd", [])
        cdp.detach()
    else:
        page.mouse.up()


@pytest.mark.parametrize("size", ["phone", "wide"])
def test_drag_the_card_onto_a_player_passes_it(browser: Any, server: ServerProcess,
                                               size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        name, seats = at_my_pass(tp, server)
        seat = page.evaluate(REACHABLE, sorted(seats))
        assert seat is not None, f"no seat of {sorted(seats)} on screen below the hand"
        card = f"#board .hand .card.passable[data-card='{name}']"
        version = page.evaluate("document.body.dataset.version")
        drag(tp, page.evaluate(CENTRE, card), f"#board .uc-seat[data-seat='{seat}']")
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        page.wait_for_function("() => [...document.querySelectorAll('#log .log-line')]"
                               ".some(l => l.dataset.key === 'pass')")
        line = page.locator("#log .log-line[data-key='pass']").last.text_content() or ""
        label = page.locator(f"#seats li[data-seat='{seat}'] .seat-label").text_content() or ""
        assert label and label in line, (label, line)
        assert page.locator(f"#board .hand .card[data-card='{name}']").count() == 0
        tp.check_clean()


@pytest.mark.parametrize("size", ["phone", "wide"])
def test_a_drop_elsewhere_changes_nothing(browser: Any, server: ServerProcess,
                                         size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        name, _ = at_my_pass(tp, server)
        card = f"#board .hand .card.passable[data-card='{name}']"
        before = page.evaluate(CENTRE, card)
        version = page.evaluate("document.body.dataset.version")
        passes = page.locator("#log .log-line[data-key='pass']").count()
        # dropped on the hand's own heading: no seat there
        drag(tp, before, "#my-hand .my-cards h4")
        page.wait_for_timeout(400)
        assert page.evaluate("document.body.dataset.version") == version
        assert page.locator("#log .log-line[data-key='pass']").count() == passes
        assert page.locator("#board .uc.picking").count() == 0
        assert page.get_attribute(card, "aria-pressed") == "false"
        assert page.evaluate(CENTRE, card) == before
        assert "dragging" not in (page.get_attribute(card, "class") or "")
        # and the card still passes by a tap, then a seat
        tp.press(page.locator(card))
        assert page.locator("#board .uc.picking .uc-seat.receiver").count() > 0
        tp.check_clean()


def test_a_swipe_that_starts_on_a_card_scrolls_the_page(browser: Any,
                                                       server: ServerProcess) -> None:
    """On a phone a finger that moves at once is scrolling, wherever it lands: the page
    scrolls, and the card is neither picked nor dragged nor passed."""
    with table_page(browser, "phone") as tp:
        page = tp.page
        name, _ = at_my_pass(tp, server)
        card = f"#board .hand .card.passable[data-card='{name}']"
        page.evaluate("() => window.scrollBy(0, -120)")  # room to scroll both ways
        version = page.evaluate("document.body.dataset.version")
        before = page.evaluate("window.scrollY")
        x, y = page.evaluate(CENTRE, card)
        cdp = tp.context.new_cdp_session(page)
        points = [(x, y - 12 * i) for i in range(0, 16)]  # the finger goes up: the page down
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart",
                                              "touchPoints": [{"x": x, "y": y}]})
        for px, py in points[1:]:
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                                  "touchPoints": [{"x": px, "y": py}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        cdp.detach()
        page.wait_for_timeout(400)
        assert page.evaluate("window.scrollY") > before + 60, "the page did not scroll"
        assert page.locator("#board .uc.picking").count() == 0
        assert "dragging" not in (page.get_attribute(card, "class") or "")
        assert page.evaluate("document.body.dataset.version") == version
        tp.check_clean()
