"""Under Current: a card is passed by tapping it, then the player (issue 34, items 3 and 6).

At 390x844 (touch, ``tap()``) and 1280x800 (mouse): on the person's pass, a tap on a hand card
picks it (pressed, and no menu opens over the seats); exactly the seats that may receive it are
marked; a second tap on the card puts it back; a tap on a marked seat sends that pass, and the
log then says the card went to that seat. The choices panel keeps every pass as a button all
along (the keyboard and screen-reader path), and one of those buttons still passes a card.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.table_pages import TablePage, open_table, random_move, table_page, wait_for_turn

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not "
                                "installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("pass-tap") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


def until_my_pass(tp: TablePage, rng: random.Random) -> None:
    """Random board moves until the person holds a card to pass."""
    for _ in range(40):
        assert wait_for_turn(tp), "the game ended before the person passed"
        if tp.page.locator("#board .hand .card.passable").count():
            return
        random_move(tp, rng)
    raise AssertionError("the person was never to pass a card")


def pass_targets(page: Any) -> dict[int, int]:
    """Every pass in the choices panel: {action: the seat it goes to}, read from the notation
    label the server sent ("pass Blue/SWAP to seat 2"), not from the board."""
    out = {}
    for b in page.locator("#choices button.choice[data-kind='pass']").all():
        m = re.search(r"to seat (\d+)$", b.get_attribute("data-label") or "")
        assert m, b.get_attribute("data-label")
        out[int(b.get_attribute("data-action") or -1)] = int(m.group(1))
    return out


@pytest.mark.parametrize(("size", "lang"), [("phone", "en"), ("wide", "en"), ("phone", "ja")])
def test_tap_the_card_then_the_player(browser: Any, server: ServerProcess, size: str,
                                      lang: str) -> None:
    """In Japanese too (issue 34 item 9): the page's own words change, the taps do not, and a
    console error or CSP violation fails it in either language."""
    with table_page(browser, size) as tp:
        page = tp.page
        open_table(tp, server, {"game": "under-current", "players": 4, "seed": 7, "name": "Ann",
                                "seats": ["human", "bot:random", "bot:random", "bot:random"]},
                   lang=lang)
        page.wait_for_selector("#my-role")
        until_my_pass(tp, random.Random(1))
        card = page.locator("#board .hand .card.passable").first
        name = card.get_attribute("data-card") or ""
        actions = {int(a) for a in (card.get_attribute("data-actions") or "").split(",")}
        targets = pass_targets(page)
        assert actions and actions <= set(targets)  # each of the card's passes is a button too
        expected = {targets[a] for a in actions}
        assert page.locator("#board .uc.picking").count() == 0

        tp.press(card)
        assert page.locator(".play-menu").count() == 0, "a menu opened over the seats"
        card = page.locator(f"#board .hand .card.passable[data-card='{name}']")
        assert card.get_attribute("aria-pressed") == "true"
        assert "selected" in (card.get_attribute("class") or "")
        marked = page.locator("#board .uc.picking .uc-seat.receiver")
        # exactly the seats one of this card's passes goes to
        assert {int(n.get_attribute("data-seat") or -1) for n in marked.all()} == expected
        for node in marked.all():
            assert node.is_visible()

        # a second tap puts it back; a third picks it again
        tp.press(card)
        assert page.locator("#board .uc.picking").count() == 0
        assert card.get_attribute("aria-pressed") == "false"
        tp.press(card)
        assert page.locator("#board .uc.picking").count() == 1

        target = marked.last
        seat = int(target.get_attribute("data-seat") or -1)
        version = page.evaluate("document.body.dataset.version")
        tp.press(target)
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        page.wait_for_function("() => [...document.querySelectorAll('#log .log-line')]"
                               ".some(l => l.dataset.key === 'pass')")
        line = page.locator("#log .log-line[data-key='pass']").last.text_content() or ""
        label = page.locator(f"#seats li[data-seat='{seat}'] .seat-label").text_content() or ""
        assert label and label in line, (label, line)
        tp.check_clean()


@pytest.mark.parametrize("size", ["phone", "wide"])
def test_the_choice_list_still_passes(browser: Any, server: ServerProcess, size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        open_table(tp, server, {"game": "under-current", "players": 4, "seed": 7, "name": "Ann",
                                "seats": ["human", "bot:random", "bot:random", "bot:random"]})
        page.wait_for_selector("#my-role")
        until_my_pass(tp, random.Random(1))
        button = page.locator("#choices button.choice[data-kind='pass']").first
        version = page.evaluate("document.body.dataset.version")
        tp.press(button)
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        page.wait_for_function("() => [...document.querySelectorAll('#log .log-line')]"
                               ".some(l => l.dataset.key === 'pass')")
        tp.check_clean()
