"""Spy Tracker's board in a real chromium: a person plays one whole game by clicking the board
(the bid maker's counts and traits, CALL and SPOT on the standing bid, the seat to hand the turn
to), never the fallback buttons, in English and in Japanese; the end screen's figures are the
engine's. Also the game's events as each reader is told them (Python, no browser).

With ``FIELDCRAFT_SHOTS=<folder>`` the English run saves ``spy-tracker-board.png`` (mid-game)
and ``spy-tracker-end.png`` there (the docs' pictures are made that way).
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldcraft.core import load_game
from fieldcraft.server import store
from tests.server.helpers import CHROMIUM, ServerProcess, chromium_browser

GAME = "spy-tracker"
# Three players with two Sources each: a game of a few rounds, in which the person hands the
# turn to one of two seats by clicking it, and (once a seat is out) the board hands it on alone.
OVERRIDES = {"sources": {"2": 2, "3": 2, "4": 1}}
PLAYERS = 3
ENGLISH = re.compile(r"[A-Za-z]{3,}")
PLAYABLE = "#board .playable"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    with chromium_browser() as b:
        yield b


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("st-board") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0).start()
    yield srv
    srv.stop()


def english_in(texts: list[str]) -> list[str]:
    return [text for text in texts if ENGLISH.search(text)]


def check_no_english(page: Any) -> None:
    """No log line, no choice label (board things and fallback buttons) and no board word is
    English on a Japanese page (the raw observation panel is data, not text)."""
    found = english_in(page.locator(".log-line").all_text_contents())
    found += english_in(page.locator(PLAYABLE).evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label') || '')"))
    found += english_in(page.locator("#choices button").all_text_contents())
    found += english_in([page.evaluate("""() => {
        const copy = document.getElementById('board').cloneNode(true);
        copy.querySelectorAll('details.raw').forEach(n => n.remove());
        return copy.textContent;
    }""")])
    assert not found, found


def person_move(page: Any, rng: random.Random) -> None:
    """One move of the person, by clicking board things only: a seat panel to hand the turn to,
    CALL or SPOT, or a count and then a trait in the bid maker."""
    seats = page.locator("#st-seats .st-seat.playable")
    challenges = page.locator("#current-bid .st-challenge.playable")
    if seats.count():
        seats.nth(rng.randrange(seats.count())).click()
        return
    traits = page.locator("#bid-maker .st-trait.playable")
    if challenges.count() and (not traits.count() or rng.random() < 0.35):
        challenges.nth(rng.randrange(challenges.count())).click()
        return
    counts = page.locator("#bid-maker .st-count")
    if counts.count() > 1:
        # low counts mostly, so that bids stay believable and rounds do not run to the cap
        counts.nth(min(rng.randrange(counts.count()), rng.randrange(counts.count()))).click()
        assert page.locator("#bid-maker .st-count[aria-pressed=true]").count() == 1
    traits = page.locator("#bid-maker .st-trait.playable")
    assert traits.count(), "the bid maker offers no trait at the picked count"
    traits.nth(rng.randrange(traits.count())).click()


def play_game(browser: Any, server: ServerProcess, lang: str, shots: Path | None) -> None:
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": GAME, "players": PLAYERS, "seats": ["human"] + ["bot:random"] * (PLAYERS - 1),
        "overrides": OVERRIDES, "name": "Ann"}).json()
    table = made["id"]
    suffix = "" if lang == "en" else f"-{lang}"
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale=lang)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(f"{server.base}/?lang={lang}")
        page.evaluate(f"() => localStorage.setItem('fc-token-{table}', '{made['token']}')")
        page.goto(f"{server.base}/t/{table}?lang={lang}")
        rng = random.Random(11 if lang == "en" else 12)
        moves = autos = 0
        shot_taken = False
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, "the game took too long"
            page.wait_for_function(
                f"() => document.body.dataset.status === 'finished' || "
                f"(document.querySelector('{PLAYABLE}') && "
                "document.body.dataset.connected === 'yes') || "
                "document.getElementById('st-auto-next')")
            if page.evaluate("document.body.dataset.status") == "finished":
                break
            version = page.evaluate("document.body.dataset.version")
            if page.locator("#st-auto-next").count():
                # the only seat left to answer: the board plays "next" by itself
                autos += 1
                page.wait_for_function(
                    f"() => document.body.dataset.version !== '{version}'")
                continue
            if lang == "ja":
                check_no_english(page)
            if shots and not shot_taken and page.locator("#last-reveal").count() \
                    and page.locator("#bid-maker").count():
                page.evaluate("() => document.getElementById('turn-banner').scrollIntoView()")
                page.screenshot(path=str(shots / f"{GAME}-board{suffix}.png"))
                shot_taken = True
            person_move(page, rng)
            moves += 1
            page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
        page.wait_for_selector("[data-testid=final-scores]")
        if lang == "ja":
            check_no_english(page)
        assert moves >= 2
        result = httpx.get(f"{server.base}/api/tables/{table}").json()["result"]
        game = load_game(GAME, players=PLAYERS, **OVERRIDES)
        engine = store.make_engine(server.db_url)
        try:
            actions = store.read_all_actions(engine, table)
        finally:
            engine.dispose()
        state = game.replay(actions)
        assert state.is_terminal()
        summary = state.final_summary()
        assert result["summary"] == summary
        rows = page.locator("[data-testid=final-scores] tbody tr")
        assert rows.count() == PLAYERS
        for row in summary["rows"]:
            tr = page.locator(f"[data-testid=final-scores] tr[data-seat='{row['seat']}']")
            assert tr.get_attribute("data-winner") == ("yes" if row["seat"] in result["winners"]
                                                       else "no")
            for key, value in row["values"].items():
                cell = tr.locator(f"td[data-col='{key}']")
                assert cell.get_attribute("data-value") == str(value)
                assert cell.text_content() == str(value)
        reason = page.locator("[data-testid=final-scores] p.reason")
        assert reason.get_attribute("data-key") == summary["reason"]["key"]
        words = reason.text_content() or ""
        for name, value in summary["reason"]["params"].items():
            if name != "winner":
                assert str(value) in words, (name, value, words)
        if lang == "en":
            assert words.startswith("The game ends")
        # the end screen tells no stale "who opens" and still shows the last reveal
        assert page.locator("#last-reveal").count() == 1
        assert page.locator("#bid-maker, #current-bid").count() == 0
        if shots:
            page.locator("#last-reveal").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"{GAME}-end{suffix}.png"))
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_person_plays_a_whole_game_on_the_board(browser: Any, server: ServerProcess,
                                                  lang: str) -> None:
    shots = os.environ.get("FIELDCRAFT_SHOTS")
    # English only (the docs' pictures), unless FIELDCRAFT_SHOTS_ALL asks for every language
    every = bool(os.environ.get("FIELDCRAFT_SHOTS_ALL"))
    folder = Path(shots) if shots and (lang == "en" or every) else None
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
    play_game(browser, server, lang, folder)
