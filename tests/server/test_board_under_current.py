"""Under Current's board in chromium: a person plays one whole game by clicking board things only.

Seat 0 is the person, the others ``bot:random``. Every move is made by clicking a ``.playable``
element of the board (a hand card, the passed card, a seat, a reserve slot, a row slot), picked
at random with a seeded generator; where one element carries several choices its ``.play-menu``
opens and an item is clicked; a hand card to pass is picked, then a marked seat is clicked.
The fallback buttons are never touched, but the test checks that
every legal choice is on some board element. In Japanese no log line and no choice label may
hold an English word. At the end the final-scores panel must show the engine's figures: the
table's actions are read from the server's database and replayed here.

With ``FIELDCRAFT_SHOTS=<folder>`` the English run saves ``under-current-board.png`` (mid-game)
and ``under-current-end.png`` there (``docs/img`` holds the committed ones).
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

pytestmark = [pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not "
                                 "installed (apt-get install chromium)"),
              pytest.mark.no_limits]

GAME = "under-current"
PLAYERS = 3


SHOT_AT = 6  # from this move of the person on, the first passed card is pictured


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("uc-board") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True).start()
    yield srv
    srv.stop()


def open_table(page: Any, base: str, lang: str, seed: int) -> str:
    """A seeded table made through the HTTP API, opened in the page as the person at seat 0."""
    made = httpx.post(f"{base}/api/tables", json={
        "game": GAME, "players": PLAYERS, "seed": seed, "name": "Ann",
        "seats": ["human"] + ["bot:random"] * (PLAYERS - 1)}).json()
    page.goto(f"{base}/?lang={lang}")
    page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                  [made["id"], made["token"]])
    page.goto(f"{base}/t/{made['id']}?lang={lang}")
    return made["id"]


def board_actions(page: Any) -> set[int]:
    return set(page.locator("#board .playable").evaluate_all(
        "els => els.flatMap(e => e.dataset.actions.split(',').map(Number))"))


def fallback_actions(page: Any) -> set[int]:
    return set(page.evaluate("""() => [
        ...[...document.querySelectorAll('#choices button.choice[data-action]')]
            .map(b => Number(b.dataset.action))]"""))


def assert_no_english(page: Any) -> None:
    texts = page.evaluate("""() => [
        ...[...document.querySelectorAll('.log-line')].map(e => e.textContent),
        ...[...document.querySelectorAll('#board .playable')]
            .map(e => e.getAttribute('aria-label')),
        ...[...document.querySelectorAll('#choices button.choice, #choices summary')]
            .map(e => e.textContent)]""")
    english = [text for text in texts if ENGLISH.search(text or "")]
    assert not english, english


def shoot(page: Any, path: Path) -> None:
    """The viewport from the turn banner down (the board as a player sees it)."""
    page.evaluate("() => document.getElementById('turn-banner').scrollIntoView()")
    page.screenshot(path=str(path))


def play_one_move(page: Any, rng: random.Random, lang: str, shot: Path | None = None) -> None:
    """Click a random playable board element (and a random item of its menu, if it opens);
    with ``shot``, the passed card is clicked and the picture taken with its menu open."""
    version = page.evaluate("document.body.dataset.version")
    assert board_actions(page) == fallback_actions(page), "a choice is not on the board"
    if lang == "ja":
        assert_no_english(page)
    things = page.locator("#board .uc-pending .playable" if shot else "#board .playable")
    thing = things.nth(rng.randrange(things.count()))
    thing.scroll_into_view_if_needed()
    thing.click()
    menu = page.locator(".play-menu .play-menu-item")
    receivers = page.locator("#board .uc.picking .uc-seat.receiver")  # a hand card picked to pass
    if shot:
        shoot(page, shot)
    if menu.count():
        menu.nth(rng.randrange(menu.count())).click()
    elif receivers.count():
        receivers.nth(rng.randrange(receivers.count())).click()
    page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_whole_game_is_played_on_the_board(browser: Any, server: ServerProcess,
                                             lang: str) -> None:
    # English pictures for docs/img; FIELDCRAFT_SHOTS_JA pictures the Japanese game to look at
    shots = os.environ.get("FIELDCRAFT_SHOTS" if lang == "en" else "FIELDCRAFT_SHOTS_JA")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        suffix = "" if lang == "en" else "-" + lang
        rng = random.Random(11)
        table = open_table(page, server.base, lang, seed=5 if lang == "en" else 8)
        page.wait_for_selector("#my-role")
        moves = 0
        shot_taken = False
        while True:
            page.wait_for_function(
                "() => (document.querySelector('#board .playable') && "
                "document.querySelector('#choices button.choice:not([disabled])')) || "
                "document.body.dataset.status === 'finished'")
            if page.evaluate("document.body.dataset.status") == "finished":
                break
            shot = None
            if shots and not shot_taken and moves >= SHOT_AT and \
                    page.locator("#board .uc-pending .playable").count():
                shot, shot_taken = Path(shots) / f"{GAME}-board{suffix}.png", True
            play_one_move(page, rng, lang, shot)
            moves += 1
            assert moves < 300
        assert moves >= 3
        page.wait_for_selector("#result:not([hidden]) [data-testid=final-scores]")
        if lang == "ja":
            assert_no_english(page)
            reason = page.text_content("[data-testid=final-scores] p.reason") or ""
            assert reason and not ENGLISH.search(reason), reason

        # the panel against the engine: the table's actions replayed here
        result = httpx.get(f"{server.base}/api/tables/{table}").json()["result"]
        actions = store.read_all_actions(store.make_engine(server.db_url), table)
        state = load_game(GAME, PLAYERS).new_initial_state()
        for action in actions:
            state.apply_action(action)
        summary = state.final_summary()
        assert summary is not None and state.winners() == result["winners"]
        rows = page.locator("[data-testid=final-scores] tbody tr")
        assert rows.count() == PLAYERS
        for row in summary["rows"]:
            tr = page.locator(f"[data-testid=final-scores] tr[data-seat='{row['seat']}']")
            assert tr.get_attribute("data-winner") == ("yes" if row["seat"] in
                                                       result["winners"] else "no")
            for key, value in row["values"].items():
                cell = tr.locator(f"td[data-col='{key}']")
                assert cell.get_attribute("data-value") == str(value), (key, value)
        assert page.locator("#reveal .final-role").count() == PLAYERS
        if shots:
            page.locator("#result").scroll_into_view_if_needed()
            page.screenshot(path=str(Path(shots) / f"{GAME}-end{suffix}.png"))
            assert shot_taken, "no mid-game picture: the person was never passed a card"
        if lang == "en":  # the replay draws the board from a spectator's and a seat's view
            page.click("#replay-link")
            page.wait_for_url("**/replay*")  # then the replay page's body, not the table's
            page.wait_for_function(
                "() => document.body && document.body.dataset.step !== undefined")
            for pov in ("", "1"):
                page.select_option("#pov", pov)
                page.click("#rp-first")
                page.wait_for_function("() => document.body.dataset.step === '0'")
                for _ in range(12):
                    step = page.evaluate("document.body.dataset.step")
                    page.click("#rp-next")
                    page.wait_for_function(f"() => document.body.dataset.step !== '{step}'")
                    assert page.locator("#board .uc").count() == 1
                    assert page.locator("#board .playable").count() == 0
        assert not errors, errors
    finally:
        context.close()
