"""Undercover's grid in plain coordinates, with its legend open (issue 34, items 6 and 7).

The engine's board is 37 cells a side with the Headquarters in its middle, which the page used
to label "P–U / 17–21". Now the drawn grid reads A, B, C… and 1, 2, 3… from its top-left cell,
and the choices, the cells' names and the log say the same names: a place choice's label is the
name written on its cell, and the cell the log says a tile went to is the cell that tile is in.
The legend (◐, ⌂, the corner numbers) is shown, not folded away, and fits a phone's width. At
390x844 (touch) and 1280x800, with no console error or CSP violation.
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
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("uv-grid") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


def until_placing(tp: TablePage, rng: random.Random) -> None:
    """Random board moves until the person has a tile to place (cells to choose)."""
    for _ in range(40):
        assert wait_for_turn(tp)
        if tp.page.locator("#choices button.choice[data-kind='place']").count():
            return
        random_move(tp, rng)
    raise AssertionError("the person never had a tile to place")


def heads(page: Any, kind: str) -> list[str]:
    return [t.strip() for t in page.locator(f".uv-grid .uv-{kind}head").all_text_contents()]


@pytest.mark.parametrize("size", ["phone", "wide"])
def test_plain_coordinates_and_the_legend(browser: Any, server: ServerProcess, size: str) -> None:
    with table_page(browser, size) as tp:
        page = tp.page
        open_table(tp, server, {"game": "undercover", "players": 3, "seed": 3, "name": "Ann",
                                "seats": ["human", "bot:random", "bot:random"]})
        until_placing(tp, random.Random(5))
        columns, rows = heads(page, "col"), heads(page, "row")
        assert columns == list(LETTERS[:len(columns)]), columns
        assert rows == [str(n) for n in range(1, len(rows) + 1)], rows

        # a place choice's label names the cell its spot on the grid is marked with
        for button in page.locator("#choices button.choice[data-kind='place']").all():
            action = button.get_attribute("data-action")
            label = button.text_content() or ""
            spot = page.locator(f".uv-grid .uv-spot[data-actions='{action}']")
            name = (spot.locator(".uv-spot-name").text_content() or "").strip()
            assert re.fullmatch(r"[A-Z]+[0-9]+", name) and label.endswith(" " + name), (label, name)
            cell = spot.locator("xpath=..")
            x = columns.index(re.match(r"[A-Z]+", name).group(0))  # type: ignore[union-attr]
            first_x = int(page.locator(".uv-grid .uv-cell").first.get_attribute("data-x") or 0)
            assert int(cell.get_attribute("data-x") or -1) == first_x + x

        # place one: the log's cell is the cell the tile now lies in
        button = page.locator("#choices button.choice[data-kind='place']").first
        version = page.evaluate("document.body.dataset.version")
        tp.press(button)
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        line = page.locator("#log .log-line").filter(has_text="You place").last.text_content()
        said = re.search(r" at ([A-Z]+[0-9]+)", line or "")
        assert said, line
        titles = page.locator(".uv-grid .uv-tile").evaluate_all("ts => ts.map(t => t.title)")
        assert any(t.endswith(" at " + said.group(1)) or (" at " + said.group(1) + ",") in t
                   for t in titles), (said.group(1), titles)

        legend = page.locator("#uv-legend")
        assert legend.is_visible() and page.locator("details.uv-legend").count() == 0
        words = legend.text_content() or ""
        assert "◐" in words and "⌂" in words and legend.locator(".uv-file-legend").is_visible()
        box = legend.bounding_box()
        width = page.viewport_size["width"]  # type: ignore[index]
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        tp.check_clean()
