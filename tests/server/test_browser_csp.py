"""Every page works in Chromium under the server's Content-Security-Policy (issue 19, finding
8): no inline script or style is blocked, no console error, for the lobby, a table of every
game (seated, mid-game, and as a spectator), the replay of a finished game of every game, and
the missing-table page, in English and in Japanese (issue 34; test_layout.py holds the pages at
three screen sizes to the same). A page that needed an inline script or style attribute would
show it here as a ``securitypolicyviolation`` event and a console error."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldcraft.core.registry import game_spec, list_games
from fieldcraft.server.guard import CSP
from tests.server.helpers import ServerProcess
from tests.server.test_browser import CHROMIUM, create_in_lobby, take_turn

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (apt-get install "
                                       "chromium)")
SHOTS = os.environ.get("FIELDCRAFT_CSP_SHOTS")  # a folder: keep a screenshot of each page

# Runs before any page script (Playwright injects it outside the page's CSP): records every
# violation the page reports.
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
    `${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`
    + (e.sample ? ` (${e.sample})` : '')));
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("csp") / "web.db"
    # every game's table and replay in two languages: more tables than a client may create a
    # minute (the limits have their own tests)
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, args=["--no-limits"]).start()
    yield srv
    srv.stop()


class Watched:
    """A page whose console errors, uncaught exceptions and CSP violations are all kept."""

    def __init__(self, browser: Any):
        self.context = browser.new_context(viewport={"width": 1300, "height": 950})
        self.context.add_init_script(RECORD_VIOLATIONS)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.problems: list[str] = []
        self.expect_404 = False  # the missing-table page is a 404 on purpose
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.problems.append(f"pageerror: {exc}"))

    def _console(self, message: Any) -> None:
        if message.type not in ("error", "warning"):
            return
        if self.expect_404 and "status of 404" in message.text:  # Chromium reports it
            return
        self.problems.append(f"console {message.type}: {message.text}")

    def check(self, where: str) -> None:
        violations = self.page.evaluate("window.__csp || []")
        problems = self.problems + [f"CSP violation: {v}" for v in violations]
        self.problems = []
        assert not problems, f"{where}: {len(problems)} problem(s): {sorted(set(problems))}"

    def shot(self, name: str) -> None:
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))

    def close(self) -> None:
        self.context.close()


def finished_table(base: str, game: str) -> str:
    """An all-bot table of ``game`` played to its end by the server's random bots."""
    players = game_spec(game).min_players
    made = httpx.post(f"{base}/api/tables", json={"game": game, "players": players,
                                                   "seats": ["bot"] * players}).json()
    assert "id" in made, f"{game}: the table was not created: {made}"
    deadline = time.monotonic() + 120
    while httpx.get(f"{base}/api/tables/{made['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline, f"{game}: the bots did not finish"
        time.sleep(0.2)
    return made["id"]


def test_pages_send_the_policy_they_are_tested_under(server: ServerProcess) -> None:
    res = httpx.get(server.base + "/")
    assert res.headers["content-security-policy"] == CSP
    assert res.headers["x-frame-options"] == "DENY"
    assert res.headers["x-content-type-options"] == "nosniff"
    assert res.headers["referrer-policy"] == "no-referrer"


def test_lobby_and_missing_page_have_no_csp_violations(browser: Any,
                                                       server: ServerProcess) -> None:
    w = Watched(browser)
    try:
        w.page.goto(server.base + "/")
        w.page.wait_for_selector("#game-select option", state="attached")
        w.page.select_option("#game-select", list_games()[-1])
        w.page.select_option("#lang-select", "ja")
        w.page.wait_for_function("() => document.documentElement.lang === 'ja'")
        w.shot("lobby")
        w.check("lobby")
        w.expect_404 = True
        w.page.goto(server.base + "/t/nothere")
        w.page.wait_for_selector("main .panel")
        w.check("missing page")
    finally:
        w.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("game", list_games())
def test_table_and_replay_of_every_game_have_no_csp_violations(
        browser: Any, server: ServerProcess, game: str, lang: str) -> None:
    w = Watched(browser)
    spectator = Watched(browser)
    try:
        players = game_spec(game).min_players
        table = create_in_lobby(w.page, server.base, game, players, lang=lang)
        w.page.wait_for_function("() => document.body.dataset.connected === 'yes'")
        w.page.wait_for_selector("#board > *")
        spectator.page.goto(f"{server.base}/t/{table}?lang={lang}")
        spectator.page.wait_for_function("() => document.body.dataset.connected === 'yes'")
        spectator.page.wait_for_selector("#board > *")
        rng = random.Random(19)
        for _ in range(4):  # a few turns: boards redraw, logs grow, choices change
            if not take_turn(w.page, rng):
                break
        w.shot(f"table-{game}-{lang}")
        w.check(f"{game} table ({lang})")
        spectator.check(f"{game} table, spectator ({lang})")

        replay = finished_table(server.base, game)
        w.page.goto(f"{server.base}/t/{replay}/replay?lang={lang}")
        w.page.wait_for_function("() => document.body.dataset.step !== undefined")
        w.page.click("#rp-last")
        w.page.select_option("#pov", "0")
        w.page.click("#rp-first")
        w.page.wait_for_function("() => document.body.dataset.step === '0'")
        w.page.click("#rp-next")
        w.page.wait_for_function("() => Number(document.body.dataset.step) > 0")
        w.shot(f"replay-{game}-{lang}")
        w.check(f"{game} replay ({lang})")
    finally:
        w.close()
        spectator.close()
