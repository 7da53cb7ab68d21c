"""Every page fits the screen, from a phone to a wide screen (issue 34, item 1).

For every game, a seated table mid-game (the person's turn) and at its end, opened at 390x844
(a phone: touch, mobile viewport), 360x740 (the narrowest phone held to it), 768x1024 (a
tablet) and 1280x800: the page is no wider than the window (``scrollWidth`` at most the
viewport's width), every visible playable thing on the board and every choice button takes a
tap, nothing covers it (the element under its centre, once scrolled into view, is itself or
inside it), and on a phone the choices for the person's move are on screen without scrolling
past the board (the sticky action bar); no console error or CSP violation. The tables in
Japanese too at 360 px; the lobby, every rules page and every replay at every size in English
and Japanese. The positions are reached over the WebSocket (random
moves from a seed, the bots at once), so each check costs one page load.

``FIELDCRAFT_LAYOUT_SHOTS=<folder>`` keeps a viewport screenshot of each page at 390 px
(the README's phone pictures are of unseeded tables, without the seeded-table notice).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldcraft.core.registry import list_games
from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.test_browser_csp import RECORD_VIOLATIONS

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (apt-get install "
                                       "chromium)")
SHOTS = os.environ.get("FIELDCRAFT_LAYOUT_SHOTS")
SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
              "device_scale_factor": 1},
    "narrow": {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True,
               "device_scale_factor": 1},
    "tablet": {"viewport": {"width": 768, "height": 1024}, "has_touch": True},
    "wide": {"viewport": {"width": 1280, "height": 800}},
}
PHONES = ("phone", "narrow")
PLAYERS = {"under-current": 5, "spy-tracker": 4, "against-the-current": 4, "undercover": 4}
"""More seats than the fewest: the seat lists, score tables and boards at their widest."""
MID_MOVES = {"under-current": 3, "spy-tracker": 2, "against-the-current": 4, "undercover": 6}

# Every visible thing the person may tap (or those `only` names), and whether the element at its
# centre (once scrolled into view) is it or inside it; a covered one is named with what covers it.
COVERED = """
(only) => {
  const name = (n) => !n ? 'nothing' : n.tagName.toLowerCase() + (n.id ? '#' + n.id : '')
    + (typeof n.className === 'string' && n.className
      ? '.' + n.className.trim().split(/\\s+/).join('.') : '');
  const nodes = [...document.querySelectorAll(only || (
    '#board .playable, #choices button:not([disabled]), #choices summary, '
    + '#result a, #result button, .play-menu button'))];
  const bad = [];
  let seen = 0;
  for (const n of nodes) {
    const r0 = n.getBoundingClientRect();
    if (!r0.width || !r0.height || getComputedStyle(n).visibility === 'hidden') continue;
    if (n.closest('details:not([open])')) continue;
    seen += 1;
    n.scrollIntoView({block: 'center', inline: 'center'});
    const r = n.getBoundingClientRect();
    const x = Math.min(Math.max(r.left + r.width / 2, 1), innerWidth - 1);
    const y = Math.min(Math.max(r.top + r.height / 2, 1), innerHeight - 1);
    const hit = document.elementFromPoint(x, y);
    const what = n.dataset.action || n.dataset.actions || n.textContent.slice(0, 30);
    const ok = hit && (hit === n || n.contains(hit));
    if (!ok) bad.push(`${name(n)} [${what}] under ${name(hit)}`);
  }
  window.scrollTo(0, 0);
  return {seen, bad};
}
"""
# The page's width, and the first few elements reaching past the window (w: its width).
WIDTH = """
(w) => ({
  scroll: document.documentElement.scrollWidth, inner: w,
  wide: [...document.querySelectorAll('body *')]
    .filter(n => n.getBoundingClientRect().right > w + 1)
    .filter(n => !n.closest('.log, .chat-log, .ruleset-fields'))
    .slice(0, 6)
    .map(n => `${n.tagName.toLowerCase()}#${n.id}.${String(n.className).split(' ')[0]}`
      + `:${Math.round(n.getBoundingClientRect().right)}`),
})
"""
ON_SCREEN = """
() => [...document.querySelectorAll('#choices button.choice, #choices summary')].some(n => {
  const r = n.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
})
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("layout") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


def drive(server: ServerProcess, game: str, moves: int | None, seed: int,
          seeded: bool = True) -> dict[str, Any]:
    """A table of ``game``: the person at seat 0 (the rest random bots) plays ``moves`` random
    moves over the WebSocket (None: to the end) and is left at their turn (or the end). The
    person's moves follow ``seed``, and so does the deal unless ``seeded`` is off."""
    from websockets.sync.client import connect

    players = PLAYERS[game]
    body = {"game": game, "players": players, "seats": ["human"] + ["bot:random"] * (players - 1),
            "seat": 0, "name": "Ann", "away_bot": False}
    if seeded:
        body["seed"] = seed
    made = httpx.post(f"{server.base}/api/tables", json=body).json()
    rng = random.Random(seed)
    done = 0
    view: dict[str, Any] | None = None
    version = 0
    with connect(f"{server.ws_base}/ws/{made['id']}", origin=server.base) as ws:
        ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        for _ in range(5000):
            msg = json.loads(ws.recv(timeout=30))
            if msg["type"] in ("sync", "update"):
                view, version = msg["view"], msg["version"]
            if view is None:
                continue
            if view["terminal"] or view["status"] == "finished":
                break
            if view["choices"] and (moves is None or done < moves):
                choice = rng.choice(view["choices"])
                ws.send(json.dumps({"type": "act", "token": made["token"], "version": version,
                                    "action": choice["action"], "id": done}))
                done += 1
                view = None
            elif view["choices"]:
                break
    return made


@pytest.fixture(scope="module")
def tables(server: ServerProcess) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for i, game in enumerate(list_games()):
        out[(game, "mid")] = drive(server, game, MID_MOVES[game], 100 + i)
        out[(game, "end")] = drive(server, game, None, 200 + i)
    return out


def open_page(browser: Any, server: ServerProcess, size: str, url: str,
              token: tuple[str, str] | None = None, lang: str = "en") -> tuple[Any, Any, list[str]]:
    context = browser.new_context(**SIZES[size])
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    if token:
        page.goto(f"{server.base}/?lang={lang}")
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)", list(token))
    page.goto(f"{server.base}{url}{'&' if '?' in url else '?'}lang={lang}")
    return context, page, errors


def no_problems(page: Any, errors: list[str], where: str) -> None:
    """No console error, uncaught exception or CSP violation on the page so far."""
    violations = page.evaluate("window.__csp || []")
    assert not errors and not violations, f"{where}: {errors} {violations}"


def check_width(page: Any, where: str) -> dict[str, Any]:
    page.wait_for_timeout(50)
    # not innerWidth: a mobile viewport widens itself to fit a page that is too wide
    width = page.evaluate(WIDTH, page.viewport_size["width"])
    assert width["scroll"] <= width["inner"], f"{where}: {width}"
    return width


def shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


@pytest.mark.parametrize(("size", "lang"), [(size, "en") for size in SIZES] + [("narrow", "ja")])
@pytest.mark.parametrize("phase", ["mid", "end"])
@pytest.mark.parametrize("game", list_games())
def test_the_table_fits_and_every_playable_takes_a_tap(
        browser: Any, server: ServerProcess, tables: dict[tuple[str, str], dict[str, Any]],
        game: str, phase: str, size: str, lang: str) -> None:
    made = tables[(game, phase)]
    context, page, errors = open_page(browser, server, size, made["url"],
                                      (made["id"], made["token"]), lang=lang)
    try:
        page.wait_for_function("() => document.body.dataset.connected === 'yes'")
        page.wait_for_selector("#board > *")
        if phase == "mid":
            page.wait_for_selector("#choices button.choice:not([disabled])", state="attached")
        else:
            page.wait_for_selector("[data-testid='final-scores']")
        where = f"{game} {phase} at {size} ({lang})"
        check_width(page, where)
        if size == "phone" and lang == "en":
            shot(page, f"{game}-{phase}-390")
        if phase == "mid" and size in PHONES:
            # the controls for this move are on screen at the top of the page and half way down
            # the board, without scrolling past it
            for y in (0, 0.5):
                page.evaluate("(f) => { const b = document.getElementById('board'); "
                              "window.scrollTo(0, f ? b.offsetTop + b.offsetHeight * f : 0); }", y)
                page.wait_for_timeout(50)
                assert page.evaluate(ON_SCREEN), f"{where}: no choice on screen at board offset {y}"
        if phase == "mid" and size in PHONES:
            # Playwright's own check that a tap would land on the thing (not on what covers it)
            playables = page.locator("#board .playable, #choices button.choice:not([disabled])")
            for i in range(min(playables.count(), 12)):
                if playables.nth(i).is_visible():
                    playables.nth(i).tap(trial=True, timeout=5_000)
        covered = page.evaluate(COVERED)
        assert covered["seen"] > 0, f"{where}: nothing to tap"
        assert not covered["bad"], f"{where}: covered: {covered['bad']}"
        check_width(page, where + " (after scrolling)")
        several = page.locator("#board .playable[data-actions*=',']")
        if phase == "mid" and several.count():
            # a thing with several choices opens a menu of them beside it: each takes a tap
            several.first.scroll_into_view_if_needed()
            several.first.click()
            page.wait_for_selector(".play-menu button")
            menu = page.evaluate(COVERED, ".play-menu button")
            assert menu["seen"] > 1, f"{where}: the menu {menu}"
            assert not menu["bad"], f"{where}: covered in the menu: {menu['bad']}"
            check_width(page, where + " (a menu open)")
        no_problems(page, errors, where)
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_lobby_rules_and_replay_fit(browser: Any, server: ServerProcess,
                                    tables: dict[tuple[str, str], dict[str, Any]],
                                    size: str) -> None:
    for lang in ("en", "ja"):
        pages = [("lobby", "/"), *((f"rules-{g}", f"/games/{g}/rules") for g in list_games()),
                 *((f"replay-{g}", f"/t/{tables[(g, 'end')]['id']}/replay") for g in list_games())]
        for name, url in pages:
            context, page, errors = open_page(browser, server, size, url, lang=lang)
            try:
                if name.startswith("replay"):
                    page.wait_for_function("() => document.body.dataset.step !== undefined")
                    page.click("#rp-last")
                    page.wait_for_function("() => document.body.dataset.step !== '0'")
                elif name == "lobby":
                    page.wait_for_selector(".game-card")
                check_width(page, f"{name} {lang} at {size}")
                if size == "phone" and lang == "en":
                    shot(page, f"{name}-390")
                no_problems(page, errors, f"{name} {lang} at {size}")
            finally:
                context.close()


def test_compact_header_developer_switch_and_replay_link(
        browser: Any, server: ServerProcess, tables: dict[tuple[str, str], dict[str, Any]]) -> None:
    """The invite block is open while a person's seat is free and folded at a table whose seats
    are all taken; the raw observation ("What you see") shows only with ``?dev=1``; the replay's
    title links to the table by name, not by its id."""
    made = tables[("spy-tracker", "mid")]
    context, page, errors = open_page(browser, server, "phone", made["url"],
                                      (made["id"], made["token"]))
    try:
        page.wait_for_selector("#board > *")
        assert page.evaluate("document.getElementById('invite').open") is False
        assert page.locator("#board details.raw").count() == 0
        assert page.locator("#dev-switch").is_hidden()
        page.goto(f"{server.base}{made['url']}?dev=1")
        page.wait_for_selector("#board details.raw")
        page.uncheck("#dev-toggle")
        page.wait_for_function("() => !document.querySelector('#board details.raw')")
        page.goto(f"{server.base}{made['url']}")
        page.wait_for_selector("#board > *")
        assert page.locator("#board details.raw").count() == 0
        # a table waiting for a friend: the invite is open
        waiting = httpx.post(f"{server.base}/api/tables", json={
            "game": "spy-tracker", "players": 2, "seats": ["human", "human"], "seat": 0,
            "name": "Ann"}).json()
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                      [waiting["id"], waiting["token"]])
        page.goto(f"{server.base}{waiting['url']}")
        page.wait_for_function("() => document.getElementById('invite').open")
        check_width(page, "a waiting table with its invite open at phone")
        end = tables[("spy-tracker", "end")]
        page.goto(f"{server.base}/t/{end['id']}/replay")
        link = page.locator("#table-link")
        assert link.text_content() == "The table" and end["id"] not in link.text_content()
        no_problems(page, errors, "header and developer switch")
    finally:
        context.close()
