"""Spy Tracker's choices are one kind of control (issue 34, finding 8).

The fallback list used to turn Spy Tracker's hundred-odd opening bids into a drop-down with a
"Choose" button beside the other choices' buttons. Now the board's bid maker is the way to bid,
and the whole list stays, as buttons, folded under one "Bid… (all N)" summary a keyboard
reaches with one Tab. At 390x844 (touch) and 1280x800: no ``select`` anywhere on the table,
every visible control for the move is a button (or the fold's summary), the fold holds every
bid, a bid made on the bid maker lands, and so does one picked from the opened fold.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.table_pages import open_table, table_page, wait_for_turn

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (apt-get install "
                                       "chromium)")

# Four players, the deal fixed: the person (seat 0) opens the round, so the opening bids (every
# count times nine traits) are the whole list, far over the 14 the list shows unfolded.
TABLE = {"game": "spy-tracker", "players": 4, "seats": ["human"] + ["bot:random"] * 3,
         "seat": 0, "name": "Ann", "seed": 11}

# Every control in the choices panel that is on the page (drawn, not inside a closed fold),
# by tag name.
VISIBLE_CONTROLS = """
() => [...document.querySelectorAll(
    '#choices button, #choices select, #choices input, #choices summary')]
  .filter(n => n.getBoundingClientRect().height > 0
    && !n.closest('details:not([open]) > :not(summary)'))
  .map(n => n.tagName.toLowerCase())
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("choice-controls") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True).start()
    yield srv
    srv.stop()


@pytest.mark.parametrize("size", ["phone", "wide"])
def test_spy_tracker_choices_are_buttons_only_and_both_ways_to_bid_land(
        browser: Any, server: ServerProcess, size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        open_table(tp, server, TABLE)
        assert wait_for_turn(tp)
        page.wait_for_selector("#bid-maker")
        # no drop-down anywhere on the table, and the visible controls are of one kind
        assert page.locator("#table-page select").count() == 0
        controls = page.evaluate(VISIBLE_CONTROLS)
        assert controls and set(controls) <= {"button", "summary"}, controls
        # the bids are folded: one summary names them and their number, and holds them all
        fold = page.locator("#choices details.choice-fold[data-group='bid']")
        assert fold.count() == 1 and not fold.evaluate("d => d.open")
        inside = fold.locator("button.choice[data-kind='bid']")
        n = inside.count()
        assert n > 14
        assert page.locator("#choices button.choice").count() == n  # the opening bids only
        assert fold.locator("summary").text_content() == f"Bid… (all {n})"
        assert not inside.first.is_visible()
        # the bid maker: a count, then a trait; the move lands
        version = page.evaluate("document.body.dataset.version")
        tp.press(page.locator("#bid-maker button.st-count[data-count='2']"))
        tp.press(page.locator("#bid-maker button.st-trait[data-trait='London']"))
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        page.wait_for_function("() => [...document.querySelectorAll('.log-line')]"
                               ".some(l => l.textContent === 'You open with 2 × London.')")
        # the next turn of the person: the fold opened by a tap or a click shows its bids (or
        # raises) as buttons, and one of them lands
        if not wait_for_turn(tp):
            pytest.skip("the game ended before the person's second turn")
        assert page.locator("#table-page select").count() == 0
        controls = page.evaluate(VISIBLE_CONTROLS)
        assert controls and set(controls) <= {"button", "summary"}, controls
        summary = page.locator("#choices details.choice-fold > summary")
        if summary.count():
            tp.press(summary.first)
            page.wait_for_function(
                "() => document.querySelector('#choices details.choice-fold').open")
        pick = page.locator("#choices button.choice:not([disabled])").last
        assert pick.is_visible()
        version = page.evaluate("document.body.dataset.version")
        lines = page.locator(".log-line").count()
        tp.press(pick)
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        assert page.locator(".log-line").count() > lines
        assert page.text_content("#action-error") == ""
        tp.check_clean()


# The tops of this seat's panel, the bid maker and the other seats' panels, in page pixels.
TOPS = """
() => {
  const top = (n) => n.getBoundingClientRect().top + scrollY;
  return {me: top(document.querySelector('#board .st-seat.me')),
          maker: top(document.querySelector('#bid-maker')),
          others: [...document.querySelectorAll('#board .st-seat:not(.me)')].map(top)};
}
"""


@pytest.mark.parametrize("size", ["phone", "wide"])
def test_the_bid_maker_follows_the_hand_on_a_phone(browser: Any, server: ServerProcess,
                                                   size: str) -> None:
    """A phone stacks the seats, so the board puts the bid maker right under this seat's hand
    and the other seats after it; a wide screen keeps the seats in one row above it."""
    with table_page(browser, size) as tp:
        page = tp.page
        open_table(tp, server, TABLE)
        assert wait_for_turn(tp)
        page.wait_for_selector("#bid-maker")
        tops = page.evaluate(TOPS)
        assert len(tops["others"]) == 3
        assert tops["me"] < tops["maker"]
        if size == "phone":
            assert all(tops["maker"] < t for t in tops["others"]), tops
        else:
            assert all(t < tops["maker"] for t in tops["others"]), tops
        tp.check_clean()
