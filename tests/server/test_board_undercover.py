"""Undercover's board in chromium: a person plays one whole game by clicking board things only.

Each of the person's moves is a click on a ``.playable`` element of the board (a pile, a placed
Agent, the held Agent's face or back, a cell), never a fallback button. In Japanese no log line
or choice label may hold an English word. At the end the final-scores panel must show the
engine's own figures, computed again here by replaying the table's stored actions. With
``FIELDCRAFT_SHOTS=<folder>`` the English run saves ``undercover-board.png`` (mid-game) and
``undercover-end.png`` there.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldcraft.core.registry import load_game
from fieldcraft.server import store
from tests.server.helpers import CHROMIUM, ENGLISH, ServerProcess

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (apt-get install "
                                       "chromium)")

GAME = "undercover"
OVERRIDES = {"track_length": 5, "tokens_to_end": 3}
"""Two players, a short track and three tokens to end: a whole game in a dozen of the person's
moves (the default game takes about sixty)."""
SHOT_OVERRIDES = {"tokens_to_end": 3}
"""For the screenshots: the full track, so the mid-game board has more on it (about 27 moves)."""
SHOT_AT = 16


PLAYABLE = "#board .playable"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("uv-board") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True).start()
    yield srv
    srv.stop()


def _wait_ready(page: Any) -> bool:
    """Until the person may click something on the board; False once the game is over."""
    page.wait_for_function(
        "() => document.body.dataset.status === 'finished' || "
        "(document.querySelector('#board .playable') && "
        "!document.querySelector('#choices button.choice[disabled]'))")
    return page.evaluate("document.body.dataset.status") != "finished"


def _no_english(page: Any) -> None:
    lines = page.locator(".log-line").all_text_contents()
    labels = page.locator(PLAYABLE).evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))")
    buttons = page.locator("#choices button.choice").all_text_contents()
    for text in lines + labels + buttons:
        assert not ENGLISH.search(text or ""), text


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_whole_game_by_clicking_the_board(browser: Any, server: ServerProcess, lang: str) -> None:
    shots = os.environ.get("FIELDCRAFT_SHOTS") if lang == "en" else None
    overrides = SHOT_OVERRIDES if shots else OVERRIDES
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": GAME, "players": 2, "seats": ["human", "bot:random"], "seat": 0, "name": "Ann",
        "overrides": overrides, "seed": 11 if lang == "en" else 12}).json()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(f"{server.base}/?lang={lang}")
        page.evaluate(f"localStorage.setItem('fc-token-{made['id']}', '{made['token']}')")
        page.goto(f"{server.base}/t/{made['id']}?lang={lang}")
        rng = random.Random(5)
        moves = 0
        shot = False
        while _wait_ready(page):
            if lang == "ja":
                _no_english(page)
            if shots and moves >= SHOT_AT and not shot and page.locator(".uv-spot").count():
                shot = True
                page.evaluate("document.querySelector('.board-panel').scrollIntoView()")
                page.screenshot(path=str(Path(shots) / f"{GAME}-board.png"))
            version = page.evaluate("document.body.dataset.version")
            things = page.locator(PLAYABLE)
            thing = things.nth(rng.randrange(things.count()))
            if moves == 0:  # keyboard play: a focused board thing plays on Enter
                thing.focus()
                page.keyboard.press("Enter")
            else:
                thing.click()
            menu = page.locator(".play-menu-item")
            if menu.count():
                menu.nth(rng.randrange(menu.count())).click()
            page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
            moves += 1
            assert moves < 200
        assert moves >= 4
        page.wait_for_selector("#result:not([hidden]) [data-testid=final-scores]")
        if lang == "ja":
            _no_english(page)
        # The panel's figures are the engine's: replay the stored actions.
        engine = store.make_engine(server.db_url)
        try:
            history = store.read_all_actions(engine, made["id"])
        finally:
            engine.dispose()
        state = load_game(GAME, players=2, **overrides).new_initial_state()
        for action in history:
            state.apply_action(action)
        summary = state.final_summary()
        assert summary is not None
        result = httpx.get(f"{server.base}/api/tables/{made['id']}/replay").json()["result"]
        assert sorted(result["winners"]) == state.winners()
        rows = page.locator("[data-testid=final-scores] tbody tr")
        assert rows.count() == 2
        for row in summary["rows"]:
            tr = page.locator(f"[data-testid=final-scores] tr[data-seat='{row['seat']}']")
            assert tr.get_attribute("data-winner") == ("yes" if row["winner"] else "no")
            for key in ("score", "tokens", "tiebreak"):
                cell = tr.locator(f"td[data-col='{key}']")
                assert cell.get_attribute("data-value") == str(row["values"][key]), key
                assert cell.text_content() == str(row["values"][key])
            assert tr.locator("td[data-col='colour']").get_attribute("data-value") == \
                row["values"]["colour"]
        reason = page.locator("[data-testid=final-scores] p.reason").text_content() or ""
        assert str(summary["reason"]["params"]["score"]) in reason
        if shots:
            page.locator("#result").scroll_into_view_if_needed()
            page.screenshot(path=str(Path(shots) / f"{GAME}-end.png"))
        if lang == "en":  # the replay draws the same board from any step, the setup included
            page.click("#replay-link")
            page.wait_for_url("**/replay")
            page.wait_for_selector("#board .uv")
            page.click("#rp-first")
            page.wait_for_function("() => document.body.dataset.step === '0'")
            for _ in range(3):
                page.click("#rp-next")
            page.wait_for_function("() => Number(document.body.dataset.step) >= 3")
            assert page.locator("#board .uv-track tr[data-lane]").count() == 6
        assert not errors, errors
    finally:
        context.close()
