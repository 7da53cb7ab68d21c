"""The frame around the boards in a real Chromium: chat between a seat and a spectator, a game
played with the keyboard alone, the offline banner and a move lost with its socket, the end
screen in view at 1280x800 with a working rematch, and the template language of boards.js
rendering exactly what ``fieldcraft.core.text.Text`` renders."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fieldcraft.core.text import Text
from tests.server.helpers import CHROMIUM, ServerProcess, open_choice_folds

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (apt-get install "
                                       "chromium)")
CHOICE = "#choices button.choice:not([disabled])"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("frame") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0).start()
    yield srv
    srv.stop()


def seated_page(browser: Any, server: ServerProcess, body: dict[str, Any],
                lang: str = "en") -> tuple[Any, Any, dict[str, Any], list[str]]:
    """A table made over the API, opened in a page that holds its seat token."""
    made = httpx.post(f"{server.base}/api/tables", json=body).json()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server.base}/?lang={lang}")
    page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                  [made["id"], made["token"]])
    page.goto(f"{server.base}{made['url']}?lang={lang}")
    page.wait_for_function("() => document.body.dataset.connected === 'yes'")
    return context, page, made, errors


def play_to_the_end(page: Any) -> None:
    for _ in range(600):
        page.wait_for_function(f"() => document.querySelector('{CHOICE}') || "
                               "document.body.dataset.status === 'finished'")
        if page.evaluate("document.body.dataset.status") == "finished":
            return
        version = page.evaluate("document.body.dataset.version")
        open_choice_folds(page)
        page.locator(CHOICE).first.click()
        page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
    raise AssertionError("the game did not end")


# -- the lobby ------------------------------------------------------------------------------
def test_lobby_cards_bots_by_strength_and_a_refused_ruleset_value(browser: Any,
                                                                  server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.base + "/?lang=ja")
        assert page.locator(".game-card").count() >= 4
        page.click(".game-card[data-game='spy-tracker'] .pick-game")
        assert page.input_value("#game-select") == "spy-tracker"
        bots = page.locator("select[data-seat='1'] option[value^='bot:']")
        assert bots.all_text_contents()[:3] == [
            "ボット: かんたん", "ボット: ふつう", "ボット: つよい"]
        assert [bots.nth(i).get_attribute("title") for i in range(3)] == \
            ["random", "heuristic", "ismcts"]
        assert page.locator("select[data-seat='1']").get_attribute("aria-label") == "2 番席"
        page.click("#ruleset-editor summary")
        kinds = page.locator(".rule-input").evaluate_all(
            "els => Object.fromEntries(els.map(e => [e.dataset.key, e.dataset.kind]))")
        assert kinds["points_to_win"] == "int" and kinds["negative_counts"] == "bool"
        assert kinds["max_bid"] == "choice" and kinds["sources"] == "json"
        tables = httpx.get(server.base + "/healthz").json()["tables"]
        page.fill(".rule-input[data-key='points_to_win']", "0")
        page.click("#create-button")
        error = page.locator(".field-error[data-key='points_to_win']")
        page.wait_for_function("() => document.querySelector("
                               "\".field-error[data-key='points_to_win']\").textContent")
        assert "points_to_win" in (error.text_content() or "")
        assert page.url.rstrip("/").endswith("?lang=ja")  # still the lobby
        assert httpx.get(server.base + "/healthz").json()["tables"] == tables  # none made
        page.fill(".rule-input[data-key='points_to_win']", "2")
        page.uncheck(".rule-input[data-key='negative_counts']")
        page.click("#create-button")
        page.wait_for_url("**/t/*")
        table = page.url.rsplit("/", 1)[1]
        info = httpx.get(f"{server.base}/api/tables/{table}").json()
        assert info["overrides"] == {"points_to_win": 2, "negative_counts": False}
        # a game's rules page opens from its card, in the page's language, in the app's frame
        page.goto(server.base + "/?lang=ja")
        links = page.locator(".game-card .rules-link")
        if links.count():
            links.first.click()
            page.wait_for_selector("#rules-page h1")
            assert page.text_content("#nav-lobby") == "ロビー"
            assert page.locator("#rules-page script").count() == 0
        assert not errors, errors
    finally:
        context.close()


# -- chat --------------------------------------------------------------------------------------
def test_chat_between_a_seat_and_a_spectator_in_their_languages(browser: Any,
                                                                server: ServerProcess) -> None:
    ctx, page, made, errors = seated_page(browser, server, {
        "game": "spy-tracker", "players": 2, "seats": ["human", "bot:random"], "name": "Ann"})
    watcher_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        watcher = watcher_ctx.new_page()
        watcher.goto(f"{server.base}{made['url']}?lang=ja")
        watcher.wait_for_function("() => document.body.dataset.connected === 'yes'")
        # the page is connected before its first sync says who it is: wait for that
        watcher.wait_for_selector("#chat-readonly", state="visible")
        assert watcher.locator("#chat-form").is_hidden()
        page.fill("#chat-input", "<b>bold</b> & hi")
        page.click("#chat-send")
        page.click("button.chat-phrase[data-phrase='gg']")
        watcher.wait_for_function(
            "() => document.querySelectorAll('#chat-log .chat-line-item').length === 2")
        lines = watcher.locator("#chat-log .chat-text").all_text_contents()
        assert lines == ["<b>bold</b> & hi", "いい勝負でした"]  # text, and the phrase in ja
        assert watcher.locator("#chat-log b").count() == 0  # never markup
        assert page.input_value("#chat-input") == ""
        # the turn sound is off until ticked, and then remembered
        assert not page.is_checked("#sound-toggle")
        page.check("#sound-toggle")
        page.reload()
        page.wait_for_function("() => document.body.dataset.connected === 'yes'")
        assert page.is_checked("#sound-toggle")
        # too long is refused by the server, in the page's words
        page.evaluate("() => { const i = document.getElementById('chat-input'); "
                      "i.removeAttribute('maxlength'); i.value = 'x'.repeat(301); }")
        page.click("#chat-send")
        page.wait_for_function("() => document.getElementById('chat-error').textContent")
        assert "300" in page.text_content("#chat-error")
        assert not errors, errors
    finally:
        watcher_ctx.close()
        ctx.close()


# -- keyboard ------------------------------------------------------------------------------------
def test_a_few_moves_with_the_keyboard_alone(browser: Any, server: ServerProcess) -> None:
    ctx, page, _, errors = seated_page(browser, server, {
        "game": "spy-tracker", "players": 2, "seats": ["human", "bot:random"],
        "turn_seconds": 600})
    try:
        assert page.get_attribute("#turn-banner", "aria-live") == "polite"
        # the acting seat shows its clock counting down; a dot with a symbol says who is here
        page.wait_for_selector("#seats .seat.current .seat-clock")
        assert re.search(r"\d+ s left", page.text_content("#seats .seat.current .seat-clock"))
        assert page.text_content("#seats [data-seat='0'] .presence") == "●"
        assert page.text_content("#seats [data-seat='1'] .presence") == "⚙"
        moves = 0
        first = True
        while moves < 3:
            page.wait_for_function(f"() => document.querySelector('{CHOICE}') || "
                                   "document.body.dataset.status === 'finished'")
            if page.evaluate("document.body.dataset.status") == "finished":
                break
            version = page.evaluate("document.body.dataset.version")
            if first:  # from the top: the skip link comes before every choice
                page.evaluate("() => document.activeElement && document.activeElement.blur()")
                stops = []
                for _ in range(30):
                    page.keyboard.press("Tab")
                    stops.append(page.evaluate("document.activeElement.id || "
                                               "document.activeElement.className"))
                    if stops[-1] == "skip-to-choices":
                        break
                assert stops[-1] == "skip-to-choices", stops
                page.keyboard.press("Enter")
                first = False
            for _ in range(120):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.matches("
                                 "'#choices details.choice-fold:not([open]) > summary')"):
                    page.keyboard.press("Enter")  # a folded group (the bids) opens in place
                    continue
                if page.evaluate("document.activeElement.matches("
                                 f"'{CHOICE}, #board .playable')"):
                    break
            else:
                raise AssertionError("Tab never reached a choice")
            page.keyboard.press("Enter")
            page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
            # the focus stays with the choices, so the next Tab is a choice again
            assert page.evaluate("document.getElementById('choices-panel')"
                                 ".contains(document.activeElement)")
            moves += 1
        assert moves >= 2
        assert not errors, errors
    finally:
        ctx.close()


# -- connection lost -------------------------------------------------------------------------------
def test_offline_banner_and_a_move_lost_with_the_socket_is_asked_again(
        browser: Any, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    state = {"offline": False, "swallow": False}

    def route(ws: Any) -> None:
        if state["offline"]:
            ws.close()
            return
        upstream = ws.connect_to_server()

        def from_page(message: str) -> None:
            if state["swallow"] and json.loads(message).get("type") == "act":
                state["swallow"] = False
                state["offline"] = True
                ws.close()  # the move never reaches the server, and the socket drops
                return
            upstream.send(message)

        ws.on_message(from_page)
        upstream.on_message(lambda message: ws.send(message))

    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "spy-tracker", "players": 2, "seats": ["human", "bot:random"]}).json()
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.route_web_socket(re.compile(r".*/ws/.*"), route)
        page.goto(server.base + "/")
        page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                      [made["id"], made["token"]])
        page.goto(server.base + made["url"])
        page.wait_for_selector(CHOICE, state="attached")
        assert page.locator("#offline-banner").is_hidden()
        version = page.evaluate("document.body.dataset.version")
        state["swallow"] = True
        open_choice_folds(page)
        page.locator(CHOICE).first.click()
        page.wait_for_function("() => document.body.dataset.connected === 'no'")
        assert page.locator("#offline-banner").is_visible()
        assert page.locator("#choices button.choice:not([disabled])").count() == 0
        playable = page.locator("#board .playable")
        if playable.count():  # a board that plays by clicking says why nothing happened
            playable.first.click()
            assert page.locator("#move-notice").is_visible()
            assert page.get_attribute("#move-notice", "data-kind") == "offline"
        state["offline"] = False
        page.wait_for_function("() => document.body.dataset.connected === 'yes'",
                               timeout=30_000)
        page.wait_for_function("() => document.getElementById('move-notice').dataset.kind "
                               "=== 'not-sent'")
        assert page.locator("#move-notice").is_visible()
        assert page.text_content("#move-notice") == "Your move was not sent, please choose again."
        assert page.evaluate("document.body.dataset.version") == version
        assert page.locator("#offline-banner").is_hidden()
        page.wait_for_selector(CHOICE, state="attached")
        assert not errors, errors
    finally:
        context.close()


# -- the end screen and the rematch ----------------------------------------------------------------
def test_end_screen_is_in_view_and_rematch_opens_a_new_table(browser: Any,
                                                             server: ServerProcess) -> None:
    ctx, page, made, errors = seated_page(browser, server, {
        "game": "spy-tracker", "players": 3, "seats": ["human", "bot:random", "bot:heuristic"],
        "overrides": {"points_to_win": 1}})
    try:
        page.wait_for_selector(CHOICE, state="attached")
        assert page.title() == "▶ Your turn · Spy Tracker"
        play_to_the_end(page)
        page.wait_for_selector("#result:not([hidden]) [data-testid=final-scores]")
        time.sleep(0.3)  # the scroll into view
        box = page.locator("#result").bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
        assert page.locator("#rematch-button").is_visible()
        assert not page.title().startswith("▶")
        page.click("#rematch-button")
        page.wait_for_url(re.compile(r".*/t/(?!" + re.escape(made["id"]) + r")[^/]+$"))
        new_id = page.url.rsplit("/", 1)[1]
        page.wait_for_function("() => document.body.dataset.status === 'playing'")
        info = httpx.get(f"{server.base}/api/tables/{new_id}").json()
        assert [s["bot"] for s in info["seats"]] == [None, "random", "heuristic"]
        assert info["overrides"] == {"points_to_win": 1}
        assert "1" in page.text_content("#who-am-i")
        assert not errors, errors
    finally:
        ctx.close()


# -- the replay ------------------------------------------------------------------------------------
def finished_random_table(server: ServerProcess) -> dict[str, Any]:
    """A two-seat Spy Tracker table of random bots, played to its end."""
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "spy-tracker", "players": 2, "seats": ["bot:random", "bot:random"]}).json()
    deadline = time.monotonic() + 60
    while httpx.get(f"{server.base}/api/tables/{made['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return made


@contextlib.contextmanager
def replay_at_start(browser: Any, server: ServerProcess, made: dict[str, Any]
                    ) -> Iterator[tuple[Any, list[str]]]:
    """The table's replay page drawn at step 0, and the page errors seen on it."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{server.base}{made['url']}/replay")
        page.wait_for_function("() => document.body.dataset.step === '0'")
        yield page, errors
    finally:
        context.close()


def test_replay_starts_at_zero_plays_steps_and_reads_events(browser: Any,
                                                            server: ServerProcess) -> None:
    with replay_at_start(browser, server, finished_random_table(server)) as (page, errors):
        options = page.locator("#pov option").all_text_contents()
        assert options[1].startswith("Seat 1") and options[2].startswith("Seat 2")
        page.select_option("#rp-speed", "4")
        page.click("#rp-play")
        page.wait_for_function("() => Number(document.body.dataset.step) >= 2")
        page.click("#rp-play")  # pause
        page.wait_for_function("() => document.body.dataset.playing === 'no'")
        time.sleep(0.6)
        paused = page.evaluate("document.body.dataset.step")
        time.sleep(0.6)
        assert page.evaluate("document.body.dataset.step") == paused
        # one pair of step buttons (issue 34): to the next and back to the previous step at
        # which this point of view saw something
        assert page.locator("#rp-forward, #rp-back").count() == 0
        page.click("#rp-next")
        page.wait_for_function(f"() => Number(document.body.dataset.step) > {int(paused)}")
        page.click("#rp-prev")
        page.wait_for_function(f"() => document.body.dataset.step === '{paused}'")
        page.select_option("#pov", "0")
        page.click("#rp-last")
        page.wait_for_function("() => document.body.dataset.step === "
                               "document.getElementById('rp-slider').max")
        lines = page.locator("#log .log-line")
        assert lines.count() > 0 and lines.first.get_attribute("data-key")
        assert not errors, errors


def test_quick_clicks_on_next_and_previous_each_move_one_mark(browser: Any,
                                                               server: ServerProcess) -> None:
    """Each click on "next" goes one mark on from where the clicks before it went, even when
    they come faster than the server answers (a slow network, a busy server): here all three
    land before the first answer."""
    made = finished_random_table(server)
    marks = [m for m in httpx.get(f"{server.base}/api/tables/{made['id']}/replay").json()["marks"]
             if m > 0]  # where "next" goes from the start, one after another
    assert len(marks) >= 3
    with replay_at_start(browser, server, made) as (page, errors):
        page.evaluate("for (let i = 0; i < 3; i++) document.getElementById('rp-next').click()")
        page.wait_for_function(f"() => document.body.dataset.step === '{marks[2]}'")
        page.evaluate("for (let i = 0; i < 2; i++) document.getElementById('rp-prev').click()")
        page.wait_for_function(f"() => document.body.dataset.step === '{marks[0]}'")
        assert not errors, errors


def play_over_sockets(server: ServerProcess, table: str, tokens: dict[int, str]) -> None:
    """Play a table of people to its end from Python, each seat its first choice."""
    from websockets.sync.client import connect

    with contextlib.ExitStack() as stack:
        socks = {}
        for seat, token in tokens.items():
            ws = stack.enter_context(connect(f"{server.ws_base}/ws/{table}", open_timeout=10))
            ws.send(json.dumps({"type": "hello", "token": token}))
            socks[seat] = ws
        views: dict[int, Any] = {}
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline
            for seat, ws in socks.items():
                while True:
                    try:
                        doc = json.loads(ws.recv(timeout=0.02))
                    except TimeoutError:
                        break
                    if doc["type"] in ("sync", "update"):
                        views[seat] = doc["view"]
            if any(v["terminal"] for v in views.values()):
                return
            for seat, view in views.items():
                if view["choices"]:
                    socks[seat].send(json.dumps({"type": "act", "token": tokens[seat],
                                                 "version": view["version"],
                                                 "action": view["choices"][0]["action"]}))
                    view["choices"] = []


def test_the_other_player_joins_the_rematch_from_their_page(browser: Any,
                                                            server: ServerProcess) -> None:
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "spy-tracker", "players": 2, "seats": ["human", "human"], "name": "Ann",
        "overrides": {"points_to_win": 1}}).json()
    table = made["id"]
    bea = httpx.post(f"{server.base}/api/tables/{table}/join", json={"name": "Bea"}).json()
    play_over_sockets(server, table, {0: made["token"], 1: bea["token"]})
    pages = []
    try:
        for token in (made["token"], bea["token"]):
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.set_default_timeout(20_000)
            page.goto(server.base + "/")
            page.evaluate("([id, token]) => localStorage.setItem('fc-token-' + id, token)",
                          [table, token])
            page.goto(f"{server.base}/t/{table}")
            page.wait_for_selector("#rematch-button")
            pages.append((context, page))
        (_, ann), (_, bea_page) = pages
        ann.click("#rematch-button")
        ann.wait_for_url(re.compile(r".*/t/(?!" + re.escape(table) + r")[^/]+$"))
        new_id = ann.url.rsplit("/", 1)[1]
        ann.wait_for_function("() => document.body.dataset.status === 'waiting'")
        bea_page.wait_for_selector("#rematch-join")  # told over the socket
        assert bea_page.locator("#rematch-button").count() == 0
        bea_page.click("#rematch-join")
        bea_page.wait_for_url(f"**/t/{new_id}")
        bea_page.wait_for_function("() => document.body.dataset.status === 'playing'")
        assert "2" in (bea_page.text_content("#who-am-i") or "")  # her old seat, from 1
        seats = httpx.get(f"{server.base}/api/tables/{new_id}").json()["seats"]
        assert [s["name"] for s in seats] == ["Ann", "Bea"]
    finally:
        for context, _ in pages:
            context.close()


# -- one template language in Python and JavaScript ------------------------------------------------
CATALOGUE = {
    "you": "you", "seat": "Seat {n}", "_sep": " / ",
    "card.3": "Three", "card.7": "Seven", "role.SPY": "Spy", "role.MOLE": "Mole",
    "log.pass": "{seat|seat} passes {card|card} to {to|seat}",
    "log.pass.you": "You pass {card|card} to {to|seat}",
    "log.slot": "{seat|seat} files into slot {i|+1} of {n}",
    "log.roles": "{seat|seat} could be {roles|role}; others: {who|seat}",
    "log.odd": "{seat|seat} then {missing} and {x|+1} and {card|card} and {none}",
    "choice.bid": "bid {n} × {card|card}",
    "choice.name": "Name someone", "choice.name+seat": "Name {seat|seat} as {role|role}",
    "choice.name+reserve": "Name reserve card {reserve|+1} as {role|role}",
    "log.named": "{seat|seat} names", "log.named+card": "{seat|seat} names {card|card}",
    "log.named+card.you": "You name {card|card}",
}
EVENTS = [
    {"key": "pass", "params": {"seat": 0, "card": 3, "to": 1}},
    {"key": "pass", "params": {"seat": 1, "card": 7, "to": 0}},
    {"key": "slot", "params": {"seat": 2, "i": 0, "n": 5}},
    {"key": "roles", "params": {"seat": 1, "roles": ["SPY", "MOLE", "NOBODY"], "who": [0, 2]}},
    {"key": "odd", "params": {"seat": "chance", "x": "a", "card": 99, "none": None}},
    {"key": "unknown_key", "params": {"seat": 0}},
    {"key": "named", "params": {"seat": 0, "card": 7}},  # the +param variant, in both voices
    {"key": "named", "params": {"seat": 1, "card": None}},
    {"key": "slot", "params": {"seat": 0, "i": 1, "n": [4, 5]}},  # a list shown as is
    {"key": "slot", "params": {"seat": 0, "i": 2, "n": True}},  # a boolean shown as is
]
CHOICES = [{"kind": "bid", "label": "bid 2 Three", "args": {"n": 2, "card": 3}},
           {"kind": "nothing_known", "label": "plain English", "args": {}},
           {"kind": "name", "label": "name", "args": {"seat": 1, "reserve": None, "role": "SPY"}},
           {"kind": "name", "label": "name", "args": {"seat": None, "reserve": 0,
                                                       "role": "MOLE"}},
           {"kind": "name", "label": "name", "args": {}}]


def test_boards_js_renders_game_text_exactly_as_python(browser: Any,
                                                       server: ServerProcess) -> None:
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "spy-tracker", "players": 2, "seats": ["human", "bot:random"]}).json()
    page_url = f"{server.base}{made['url']}"
    names = {1: "Bea"}
    context = browser.new_context()
    try:
        page = context.new_page()

        def swap_catalogue(route: Any) -> None:
            html = route.fetch().text()
            doc = json.dumps(CATALOGUE).replace("<", "\\u003c")
            html = re.sub(r'(<script id="game-i18n" type="application/json">).*?(</script>)',
                          lambda m: m.group(1) + doc + m.group(2), html, flags=re.S)
            route.fulfill(body=html, content_type="text/html; charset=utf-8")

        page.route(page_url, swap_catalogue)
        page.goto(page_url)
        page.wait_for_function("() => typeof Boards === 'object'")
        for viewer in (None, 0, 1, 2):
            text = Text(CATALOGUE, viewer, names.get)
            expected = {"events": [text.event(e) for e in EVENTS],  # type: ignore[arg-type]
                        "choices": [text.choice(c) for c in CHOICES],
                        "format": text.format("{a|seat} + {b|+1} = {c|card}",
                                              {"a": 1, "b": 4, "c": [3, 7]})}
            got = page.evaluate("""([viewer, names, events, choices]) => {
                const text = Boards.textFor({viewer, names: (s) => names[s] || null});
                return {events: events.map((e) => text.event(e)),
                        choices: choices.map((c) => text.choice(c)),
                        format: Boards.format("{a|seat} + {b|+1} = {c|card}",
                                              {a: 1, b: 4, c: [3, 7]},
                                              {viewer, names: (s) => names[s] || null})};
            }""", [viewer, {str(k): v for k, v in names.items()}, EVENTS, CHOICES])
            assert got == expected, viewer
        # the checks above could fail: the voices and names really differ by reader
        assert Text(CATALOGUE, 0, names.get).event(EVENTS[0]) == "You pass Three to Bea"  # type: ignore[arg-type]
        assert Text(CATALOGUE, 1, names.get).event(EVENTS[0]) == "Seat 1 passes Three to you"  # type: ignore[arg-type]
    finally:
        context.close()
