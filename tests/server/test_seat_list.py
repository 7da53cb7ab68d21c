"""The seat list and a player's one name (issue 34, items 5 and 6).

One name for a seat on the whole table page: the seat list, the log, the chat, the turn banner
and the result table all write a bot as "Bot 2 (Easy)" and the person as "Ann (you)" (the name,
with "(you)" after it), never "Seat 2 · bot · Easy" or a bare "you". Each name stays on one line
at 390 px. Under each name the seat list shows what the reader's own view holds of that seat:
Under Current's role only where the view names it (the person's own card; nothing of the others'
to a spectator), Undercover's colour and points as the board shows them. At 390x844 (touch) and
1280x800, with no console error or CSP violation.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.table_pages import open_table, random_move, table_page, wait_for_turn

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not "
                                "installed (apt-get install chromium)")
SIZES = ["phone", "wide"]
NAMES = {0: "Ann (you)", 1: "Bot 2 (Easy)", 2: "Bot 3 (Normal)"}
FSI_PDI = str.maketrans("", "", "\u2068\u2069")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("seat-list") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


def texts(page: Any, selector: str) -> list[str]:
    return [t.translate(FSI_PDI) for t in page.locator(selector).all_text_contents()]


@pytest.mark.parametrize("size", SIZES)
def test_one_name_everywhere(browser: Any, server: ServerProcess, size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        open_table(tp, server, {"game": "spy-tracker", "players": 3, "seed": 4, "name": "Ann",
                                "seats": ["human", "bot:random", "bot:heuristic"]})
        page.wait_for_selector("#seats .seat-label")
        assert texts(page, "#seats .seat-label") == [NAMES[0], NAMES[1], NAMES[2]]
        # one line each, even on a phone
        for label in page.locator("#seats .seat-line").all():
            box = label.bounding_box()
            assert box is not None and box["height"] < 32, box
        # a turn of the bots: the log names them as the seat list does
        rng = random.Random(2)
        for _ in range(3):
            if not wait_for_turn(tp):
                break
            random_move(tp, rng)
        log = " ".join(texts(page, "#log .log-line"))
        assert "Bot 2 (Easy)" in log or "Bot 3 (Normal)" in log, log
        assert "Seat " not in log and " bot " not in log, log
        banner = (page.text_content("#turn-banner") or "").translate(FSI_PDI)
        assert banner.startswith("Your turn") or any(n in banner for n in NAMES.values()), banner
        # the chat
        tp.press(page.locator("#chat-phrases .chat-phrase").first)
        page.wait_for_selector("#chat-log .chat-who")
        assert texts(page, "#chat-log .chat-who") == [NAMES[0]]
        # the result table after a concession (the stand-in plays on at once)
        tp.press(page.locator("#concede-button"))
        tp.press(page.locator("#concede-yes"))
        page.wait_for_selector("#result:not([hidden]) [data-testid=final-scores]", timeout=30_000)
        rows = {int(r.get_attribute("data-seat") or -1): (r.text_content() or "")
                for r in page.locator("[data-testid=final-scores] tbody tr").all()}
        for seat, name in NAMES.items():
            who = page.locator(f"[data-testid=final-scores] tr[data-seat='{seat}'] td.who")
            assert (who.text_content() or "").translate(FSI_PDI) == name, rows
        assert texts(page, "#seats .seat-label") == [NAMES[0], NAMES[1], NAMES[2]]
        tp.check_clean()


def seat_facts(page: Any, seat: int) -> str:
    node = page.locator(f"#seats .seat-facts[data-seat='{seat}']")
    return (node.text_content() or "") if node.count() else ""


@pytest.mark.parametrize("size", SIZES)
def test_under_current_roles_only_as_the_view_has_them(browser: Any, server: ServerProcess,
                                                       size: str) -> None:
    body = {"game": "under-current", "players": 4, "seed": 7, "name": "Ann",
            "seats": ["human", "bot:random", "bot:random", "bot:random"]}
    with table_page(browser, size) as tp:
        page = tp.page
        made = open_table(tp, server, body)
        page.wait_for_selector("#my-role")
        role = (page.text_content("#my-role") or "").strip()
        assert role and role.split()[-1] in seat_facts(page, 0), (role, seat_facts(page, 0))
        for seat in (1, 2, 3):
            # the board names a seat's role ("Role: …") only when the view holds exactly one
            sure = page.locator(f".uc-seat[data-seat='{seat}'] .seat-role:not(.candidates)")
            known = (sure.locator(".role").text_content() or "").strip() if sure.count() else ""
            facts = seat_facts(page, seat)
            if known:
                assert known in facts, (seat, known, facts)
            else:
                assert "Chief" not in facts and "Agent" not in facts, (seat, facts)
        # a spectator's view holds nobody's role: the seat list shows none
        with table_page(browser, size) as watcher:
            watcher.page.goto(f"{server.base}/t/{made['id']}")
            watcher.page.wait_for_selector("#seats .seat-label")
            watcher.page.wait_for_selector("#board .uc")
            assert watcher.page.locator("#seats .uc-seat-role").count() == 0
            watcher.check_clean()
        tp.check_clean()


@pytest.mark.parametrize("size", SIZES)
def test_undercover_colour_and_points(browser: Any, server: ServerProcess, size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        open_table(tp, server, {"game": "undercover", "players": 3, "seed": 3, "name": "Ann",
                                "seats": ["human", "bot:random", "bot:random"]})
        rng = random.Random(5)
        for _ in range(6):
            if not wait_for_turn(tp):
                break
            random_move(tp, rng)
        page.wait_for_selector("#board .uv-seat")
        for seat in range(3):
            board_seat = page.locator(f".uv-seat[data-seat='{seat}']")
            colour = board_seat.locator(".uv-seat-head .uv-chip-name").text_content()
            points = board_seat.locator(".uv-points").get_attribute("data-points")
            facts = page.locator(f"#seats .seat-facts[data-seat='{seat}']")
            assert colour and colour in (facts.text_content() or ""), seat
            assert facts.locator(".seat-score").get_attribute("data-score") == points
        tp.check_clean()
