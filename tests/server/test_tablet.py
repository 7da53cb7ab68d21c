"""The table on a tablet, 768x1024 held upright with touch (issue 34, item 1).

``test_layout.py`` holds every size to the width and to "nothing covers a playable" by looking
at the element under each one's centre. Here the tablet gets what only the phones got there:
Playwright's own tap check on every visible playable and choice (it scrolls, waits for the
element to be stable and refuses a tap another element would receive), and, mid-game, the
choices for the person's move on screen with the board without scrolling past it; the board
takes most of the width (a tablet is not a stretched phone with a narrow column). Every game,
mid-game and at the end, from unseeded tables (what a person sees: no seeded-table notice).

``FIELDCRAFT_LAYOUT_SHOTS=docs/img`` keeps a viewport screenshot of each at the three sizes:
``<game>-phone[-end].png`` (390x844), ``<game>-tablet[-end].png`` (768x1024) and
``<game>-board.png`` / ``<game>-end.png`` (1280x800), the names the README links; each kept in
256 colours (a third of the bytes).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fieldcraft.core.registry import list_games
from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.test_layout import (
    COVERED,
    MID_MOVES,
    ON_SCREEN,
    SHOTS,
    check_width,
    drive,
    no_problems,
    open_page,
)

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (apt-get install "
                                       "chromium)")
SHOT_NAMES = {("phone", "mid"): "{game}-phone", ("phone", "end"): "{game}-phone-end",
              ("tablet", "mid"): "{game}-tablet", ("tablet", "end"): "{game}-tablet-end",
              ("wide", "mid"): "{game}-board", ("wide", "end"): "{game}-end"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("tablet") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, args=["--no-limits"]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def tables(server: ServerProcess) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for i, game in enumerate(list_games()):
        out[(game, "mid")] = mid_game(server, game, 300 + i)
        out[(game, "end")] = drive(server, game, None, 400 + i, seeded=False)
    return out


def mid_game(server: ServerProcess, game: str, seed: int) -> dict[str, Any]:
    """A table left at the person's turn mid-game. The deals are not seeded, and a random deal
    can end before the person's moves are made (an Under Current game did, and the page then
    had no choices to wait for): such a table is set aside and another dealt."""
    import httpx

    for attempt in range(5):
        made = drive(server, game, MID_MOVES[game], seed + 1000 * attempt, seeded=False)
        if httpx.get(f"{server.base}/api/tables/{made['id']}").json()["status"] != "finished":
            return made
    raise AssertionError(f"{game}: five random deals all ended before mid-game")


def opened(browser: Any, server: ServerProcess, made: dict[str, Any], size: str,
           phase: str) -> tuple[Any, Any, list[str]]:
    """The person's table at ``size``, drawn: at their turn mid-game, or the final scores."""
    context, page, errors = open_page(browser, server, size, made["url"],
                                      (made["id"], made["token"]))
    page.wait_for_function("() => document.body.dataset.connected === 'yes'")
    page.wait_for_selector("#board > *")
    if phase == "mid":
        page.wait_for_selector("#choices button.choice:not([disabled])", state="attached")
    else:
        page.wait_for_selector("[data-testid='final-scores']")
    return context, page, errors


@pytest.mark.parametrize("phase", ["mid", "end"])
@pytest.mark.parametrize("game", list_games())
def test_on_a_tablet_every_playable_takes_a_tap(
        browser: Any, server: ServerProcess, tables: dict[tuple[str, str], dict[str, Any]],
        game: str, phase: str) -> None:
    context, page, errors = opened(browser, server, tables[(game, phase)], "tablet", phase)
    where = f"{game} {phase} at 768x1024"
    try:
        check_width(page, where)
        board = page.evaluate("(() => { const r = document.getElementById('board')"
                              ".getBoundingClientRect(); return r.width; })()")
        assert board >= 0.6 * 768, f"{where}: the board is {board} px wide"
        if phase == "mid":
            # the choices are on screen at the top of the page or with the board half scrolled
            shown = []
            for y in (0, 0.5):
                page.evaluate("(f) => { const b = document.getElementById('board'); "
                              "window.scrollTo(0, f ? b.offsetTop + b.offsetHeight * f : 0); }", y)
                page.wait_for_timeout(50)
                shown.append(page.evaluate(ON_SCREEN))
            assert any(shown), f"{where}: no choice on screen near the board"
        taps = page.locator("#board .playable, #choices button.choice:not([disabled]), "
                            "#result a, #result button")
        tapped = 0
        for i in range(taps.count()):
            if taps.nth(i).is_visible():
                taps.nth(i).tap(trial=True, timeout=5_000)
                tapped += 1
        covered = page.evaluate(COVERED)
        assert tapped > 0 and covered["seen"] > 0, f"{where}: nothing to tap"
        assert not covered["bad"], f"{where}: covered: {covered['bad']}"
        check_width(page, where + " (after the taps)")
        no_problems(page, errors, where)
    finally:
        context.close()


def small(path: Path) -> None:
    """256 colours, no dithering: a third of the bytes and the same picture for flat UI."""
    from PIL import Image

    with Image.open(path) as image:
        flat = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                             dither=Image.Dither.NONE)
    flat.save(path, optimize=True)


@pytest.mark.skipif(not SHOTS, reason="FIELDCRAFT_LAYOUT_SHOTS names no folder for the pictures")
@pytest.mark.parametrize("size", ["phone", "tablet", "wide"])
@pytest.mark.parametrize("phase", ["mid", "end"])
@pytest.mark.parametrize("game", list_games())
def test_screenshots_at_three_sizes(
        browser: Any, server: ServerProcess, tables: dict[tuple[str, str], dict[str, Any]],
        game: str, phase: str, size: str) -> None:
    """The README's pictures, each of a page that fits its width and had no error."""
    assert SHOTS is not None
    context, page, errors = opened(browser, server, tables[(game, phase)], size, phase)
    try:
        if phase == "end":
            page.locator("[data-testid='final-scores']").scroll_into_view_if_needed()
        page.wait_for_timeout(300)  # fonts and the last move's highlight settle
        check_width(page, f"{game} {phase} at {size}")
        path = Path(SHOTS) / (SHOT_NAMES[(size, phase)].format(game=game) + ".png")
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path))
        small(path)
        assert path.stat().st_size > 10_000, f"{path} looks blank"
        no_problems(page, errors, f"{game} {phase} at {size}")
    finally:
        context.close()
