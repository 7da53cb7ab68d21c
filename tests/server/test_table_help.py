"""Rules and help at the table (issue 34, item 2) and the last move (item 5), in chromium.

Every game's table and replay has a "Rules" button that opens the game's rules page, in the
page's language, in a drawer (a sheet from the bottom on a phone) that closes with its button,
Escape or a tap beside it, and no page gets wider than a 390 px phone with it open. A board
thing whose words are only in ``title=""`` shows them in a popover on a touch screen: touched
and held, or tapped when it plays nothing. The board highlights, and a one-line caption above it
says, the last move only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fieldcraft.core.registry import game_spec, list_games
from fieldcraft.server import catalogue
from tests.server.helpers import CHROMIUM, ServerProcess
from tests.server.test_browser_csp import RECORD_VIOLATIONS
from tests.server.test_layout import PLAYERS, WIDTH, drive

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed")
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
         "device_scale_factor": 1}
WIDE = {"viewport": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("help") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, args=["--no-limits"]).start()
    yield srv
    srv.stop()


def seated(server: ServerProcess, game: str) -> dict[str, Any]:
    players = PLAYERS[game]
    res = httpx.post(f"{server.base}/api/tables", json={
        "game": game, "players": players, "seats": ["human"] + ["bot:random"] * (players - 1),
        "seat": 0, "name": "Ann", "away_bot": False})
    assert res.status_code == 201, res.text
    return res.json()


def open_page(browser: Any, server: ServerProcess, url: str, lang: str = "en",
              token: tuple[str, str] | None = None, size: dict[str, Any] = PHONE
              ) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(**size)
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    if token:
        page.goto(f"{server.base}/?lang={lang}")
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                      list(token))
    page.goto(f"{server.base}{url}{'&' if '?' in url else '?'}lang={lang}")
    return context, page, errors


def rules_heading(game: str, lang: str) -> str:
    source = catalogue.rules_page(game_spec(game), lang)
    assert source is not None
    return next(line[2:].strip() for line in source.splitlines() if line.startswith("# "))


def fits(page: Any, where: str) -> None:
    page.wait_for_timeout(50)
    width = page.evaluate(WIDTH, page.viewport_size["width"])
    assert width["scroll"] <= width["inner"], f"{where}: {width}"


def no_problems(page: Any, errors: list[str], where: str) -> None:
    violations = page.evaluate("window.__csp || []")
    assert not errors and not violations, f"{where}: {errors} {violations}"


def check_drawer(page: Any, game: str, lang: str, where: str) -> None:
    """The button opens the drawer with the rules in ``lang``; it closes with its button,
    then with Escape, then with a tap beside it."""
    drawer = page.locator("#rules-drawer")
    assert not drawer.is_visible()
    button = page.locator("#rules-button")
    assert button.is_visible(), where
    assert button.get_attribute("aria-expanded") == "false"
    button.click()
    page.wait_for_function("() => document.getElementById('rules-drawer').open")
    assert drawer.is_visible()
    assert button.get_attribute("aria-expanded") == "true"
    body = page.locator("#rules-drawer-body")
    assert body.get_attribute("lang") == lang
    assert page.locator("#rules-drawer-body h1").first.text_content().strip() \
        == rules_heading(game, lang), where
    assert len(body.text_content()) > 500
    # every word of the drawer is the page's language: its title and close button too
    expected_close = {"en": "Close", "ja": "閉じる"}[lang]
    assert page.locator("#rules-close").get_attribute("aria-label") == expected_close
    fits(page, where + " (rules open)")
    # the rules scroll inside the drawer, the page stays put
    assert page.evaluate("document.getElementById('rules-drawer-body').scrollHeight "
                         "> document.getElementById('rules-drawer-body').clientHeight")
    page.click("#rules-close")
    page.wait_for_function("() => !document.getElementById('rules-drawer').open")
    assert page.evaluate("document.activeElement.id") == "rules-button"
    assert button.get_attribute("aria-expanded") == "false"
    assert page.evaluate("document.body.dataset.rules") == "closed"
    button.click()
    page.wait_for_function("() => document.getElementById('rules-drawer').open")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('rules-drawer').open")
    button.click()
    page.wait_for_function("() => document.getElementById('rules-drawer').open")
    box = drawer.bounding_box()
    assert box is not None
    # beside the drawer: above the sheet on a phone, left of it on a wide screen
    x, y = (5, 5) if box["y"] > 20 else (box["x"] - 10, 200)
    assert x >= 0
    page.mouse.click(x, y)
    page.wait_for_function("() => !document.getElementById('rules-drawer').open")
    fits(page, where + " (rules closed)")


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("game", list_games())
def test_rules_drawer_at_every_table(browser: Any, server: ServerProcess, game: str,
                                     lang: str) -> None:
    made = seated(server, game)
    context, page, errors = open_page(browser, server, made["url"], lang,
                                      (made["id"], made["token"]))
    try:
        page.wait_for_selector("#board > *")
        assert page.locator("#rules-button").text_content() == {"en": "Rules", "ja": "ルール"}[lang]
        check_drawer(page, game, lang, f"{game} table ({lang}) at 390")
        no_problems(page, errors, f"{game} table ({lang})")
    finally:
        context.close()


def test_rules_drawer_on_a_wide_screen_and_in_chinese(browser: Any, server: ServerProcess
                                                      ) -> None:
    made = seated(server, "under-current")
    context, page, errors = open_page(browser, server, made["url"], "en",
                                      (made["id"], made["token"]), size=WIDE)
    try:
        page.wait_for_selector("#board > *")
        check_drawer(page, "under-current", "en", "under-current at 1280")
        # a drawer at the right-hand side, the whole height of the window
        page.click("#rules-button")
        box = page.locator("#rules-drawer").bounding_box()
        assert box["x"] > 500 and box["x"] + box["width"] <= 1281 and box["height"] >= 790
        page.keyboard.press("Escape")
        page.goto(f"{server.base}{made['url']}?lang=zh-Hant")
        page.wait_for_selector("#board > *")
        assert page.locator("#rules-button").text_content() == "規則"
        page.click("#rules-button")
        heading = page.locator("#rules-drawer-body h1").first.text_content().strip()
        assert heading == rules_heading("under-current", "zh-Hant")
        no_problems(page, errors, "wide and zh-Hant")
    finally:
        context.close()


def test_rules_drawer_on_the_replay(browser: Any, server: ServerProcess) -> None:
    made = drive(server, "spy-tracker", None, 7, seeded=False)
    for lang in ("en", "ja"):
        context, page, errors = open_page(browser, server, f"/t/{made['id']}/replay", lang)
        try:
            page.wait_for_function("() => document.body.dataset.step !== undefined")
            check_drawer(page, "spy-tracker", lang, f"replay ({lang}) at 390")
            # the replay says the last move up to its step too
            page.click("#rp-last")
            page.wait_for_function("() => document.body.dataset.step !== '0'")
            page.wait_for_selector("#last-move:not([hidden])")
            caption = page.locator("#last-move").text_content()
            assert caption.startswith({"en": "Last move: ", "ja": "直前の手："}[lang])
            assert caption.endswith(page.locator("#log .log-line").last.text_content())
            fits(page, f"replay ({lang}) at its last step")
            no_problems(page, errors, f"replay ({lang})")
        finally:
            context.close()


def test_a_missing_table_has_no_rules_button(browser: Any, server: ServerProcess) -> None:
    context, page, errors = open_page(browser, server, "/t/no-such-table")
    try:
        assert page.locator("#rules-button").count() == 0
        assert page.locator("#rules-drawer").count() == 0
    finally:
        context.close()


HOLD = """
([selector, ms]) => new Promise((done) => {
  const node = document.querySelector(selector);
  const r = node.getBoundingClientRect();
  const at = {bubbles: true, cancelable: true, pointerType: 'touch', isPrimary: true,
              clientX: r.left + r.width / 2, clientY: r.top + r.height / 2};
  node.dispatchEvent(new PointerEvent('pointerdown', at));
  setTimeout(() => {
    node.dispatchEvent(new PointerEvent('pointerup', at));
    const played = {clicked: false};
    node.addEventListener('click', () => { played.clicked = true; }, {once: true});
    node.dispatchEvent(new MouseEvent('click', at));
    const pop = document.getElementById('info-pop');
    done({text: pop ? pop.textContent : null, clicked: played.clicked});
  }, ms);
})
"""


def test_board_words_in_titles_show_on_touch(browser: Any, server: ServerProcess) -> None:
    """Under Current's cards carry their effect in their title: held on a touch screen, the
    text shows in a popover (and the hold plays nothing); a quick touch on a playable card
    does not; a tap on a thing that plays nothing (a seat's presence dot) shows its words."""
    made = seated(server, "under-current")
    context, page, errors = open_page(browser, server, made["url"], "en",
                                      (made["id"], made["token"]))
    try:
        page.wait_for_selector("#board [title]")
        page.evaluate("document.querySelectorAll('#board [title]').forEach((n, i) => "
                      "n.dataset.t = String(i))")
        title = page.locator("#board [title]").first.get_attribute("title")
        held = page.evaluate(HOLD, ["#board [data-t='0']", 600])
        assert held["text"] == title
        assert held["clicked"] is False  # the hold's click is swallowed
        fits(page, "a popover open")
        # the popover is inside the window
        box = page.locator("#info-pop").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        page.keyboard.press("Escape")
        assert page.locator("#info-pop").count() == 0
        quick = page.evaluate(HOLD, ["#board [data-t='0']", 50])
        active = page.evaluate("!!document.querySelector(\"#board [data-t='0']\")"
                               ".closest('.playable, button, a')")
        assert quick["clicked"] is True
        if active:
            assert quick["text"] is None
        # a real tap on the seat dot (it plays nothing) shows what it means
        page.tap("#seats .presence")
        page.wait_for_selector("#info-pop")
        assert page.locator("#info-pop").text_content() \
            == page.locator("#seats .presence").first.get_attribute("title")
        page.tap("#game-title")
        assert page.locator("#info-pop").count() == 0
        no_problems(page, errors, "title popover")
    finally:
        context.close()


def test_last_move_only(browser: Any, server: ServerProcess) -> None:
    """After some moves the caption says the last move in the page's language (the log's last
    line), and only boards' things of that move are highlighted."""
    made = drive(server, "under-current", 3, 11, seeded=False)
    for lang in ("en", "ja"):
        context, page, errors = open_page(browser, server, made["url"], lang,
                                          (made["id"], made["token"]))
        try:
            page.wait_for_selector("#log .log-line")
            page.wait_for_selector("#last-move:not([hidden])")
            caption = page.locator("#last-move").text_content()
            last_line = page.locator("#log .log-line").last.text_content()
            prefix = {"en": "Last move: ", "ja": "直前の手："}[lang]
            assert caption.startswith(prefix), caption
            assert caption.endswith(last_line), (caption, last_line)
            # one line: less than two lines of its text high
            height = page.evaluate("(() => { const n = document.getElementById('last-move'); "
                                   "return n.clientHeight / parseFloat(getComputedStyle(n)"
                                   ".fontSize); })()")
            assert height < 2.4, height
            # the caption's events are the log's last ones, and the board highlights the seats
            # they name and no other
            keys = page.locator("#last-move").get_attribute("data-keys").split(",")
            logged = [n.get_attribute("data-key") for n in page.locator("#log .log-line").all()]
            assert keys and logged[-len(keys):] == keys, (keys, logged)
            params = json.loads(page.locator("#last-move").get_attribute("data-params"))
            named = {p[k] for p in params for k in ("seat", "target", "named")
                     if isinstance(p.get(k), int)}
            lit = {int(n.get_attribute("data-seat"))
                   for n in page.locator("#board .uc-seat.recent").all()}
            assert lit == named & set(range(PLAYERS["under-current"])), (lit, params)
            fits(page, f"last move ({lang})")
            no_problems(page, errors, f"last move ({lang})")
        finally:
            context.close()
