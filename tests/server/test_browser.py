"""Browser tests: real Chromium (Debian's /usr/bin/chromium) driving the real server.

They skip only when /usr/bin/chromium is missing (CI installs it with apt).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import CHROMIUM, ServerProcess, open_choice_folds

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="/usr/bin/chromium is not installed (apt-get install "
                                       "chromium)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("browser") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.02).start()
    yield srv
    srv.stop()


def new_page(browser: Any) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": 1300, "height": 950})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


CHOICE = "#choices button.choice:not([disabled])"


def take_turn(page: Any, rng: random.Random, timeout: float = 20_000) -> bool:
    """Click one of the legal choices and wait for the table to move; False once it is over."""
    page.wait_for_function(
        f"() => document.querySelector('{CHOICE}') || document.body.dataset.status === 'finished'",
        timeout=timeout)
    if page.evaluate("document.body.dataset.status") == "finished":
        return False
    version = page.evaluate("document.body.dataset.version")
    open_choice_folds(page)
    buttons = page.locator(CHOICE)
    buttons.nth(rng.randrange(buttons.count())).click()
    page.wait_for_function(f"() => document.body.dataset.version !== '{version}'", timeout=timeout)
    return True


def take_turn_ready(page: Any, timeout: float = 20_000) -> bool:
    """Wait until the person may choose again; False if the game ended first."""
    page.wait_for_function(
        f"() => document.querySelector('{CHOICE}') || document.body.dataset.status === 'finished'",
        timeout=timeout)
    return page.evaluate("document.body.dataset.status") != "finished"


def create_in_lobby(page: Any, base: str, game: str, players: int,
                    seats: dict[int, str] | None = None, lang: str | None = None,
                    public: bool = False) -> str:
    page.goto(base + "/" + (f"?lang={lang}" if lang else ""))
    page.select_option("#game-select", game)
    page.select_option("#players-select", str(players))
    for seat in range(1, players):
        page.select_option(f"select[data-seat='{seat}']", (seats or {}).get(seat, "bot:random"))
    page.fill("#name-input", "Ann")
    if public:
        page.check("#public-table")
    page.click("#create-button")
    page.wait_for_url("**/t/*")
    return page.url.rsplit("/", 1)[1]


def test_person_plays_under_current_with_bots_to_the_end(browser: Any,
                                                         server: ServerProcess) -> None:
    context, page, errors = new_page(browser)
    try:
        rng = random.Random(1)
        # Random bots can end a game in a turn or two (a lucky RETIRE); such a table is set
        # aside and another one played, so the person really plays several turns.
        for _ in range(5):
            table = create_in_lobby(page, server.base, "under-current", 4)
            page.wait_for_selector("#my-role")
            role = page.text_content("#my-role")
            assert role and role.strip()
            assert page.locator("#my-hand .card").count() >= 1
            assert page.locator(".uc-seat").count() == 4
            turns = 0
            filtered = False
            while True:
                page.wait_for_function(
                    f"() => document.querySelector('{CHOICE}') || document.body.dataset.status === "
                    "'finished'")
                passes = page.locator("#choices button.choice[data-label^='pass ']")
                if not filtered and passes.count() > 0:
                    # clicking a card in the hand picks it and marks the seats it may go to;
                    # the card's passes (and only those) name it; a second click puts it back
                    card = page.locator("#my-hand .card").first.get_attribute("data-card")
                    page.locator("#my-hand .card").first.click()
                    labels = page.locator("#my-hand .card.selected").evaluate_all(
                        "els => els.flatMap(e => e.dataset.actions.split(',')).map(a => "
                        "document.querySelector(`#choices button.choice[data-action='${a}']`)"
                        ".dataset.label)")
                    assert labels and all(card in label for label in labels), (card, labels)
                    assert page.locator(".uc.picking .uc-seat.receiver").count() == len(labels)
                    page.locator("#my-hand .card.selected").click()
                    assert page.locator(".uc.picking").count() == 0
                    filtered = True
                if not take_turn(page, rng):
                    break
                turns += 1
                assert turns < 400
            if turns >= 3 and filtered:
                break
        assert turns >= 3 and filtered
        page.wait_for_selector("#result:not([hidden])")
        assert page.locator("[data-testid=final-scores] tbody tr").count() == 4
        assert page.locator("#reveal .final-role").count() == 4
        assert page.locator(".log-line").count() > 10
        info = httpx.get(f"{server.base}/api/tables/{table}").json()
        assert info["status"] == "finished"
        # the replay opens from the result and steps from a chosen seat's point of view
        page.click("#replay-link")
        page.wait_for_selector("#rp-step")
        page.wait_for_function("() => document.body.dataset.step !== undefined")
        page.select_option("#pov", "2")
        page.click("#rp-first")
        page.wait_for_function("() => document.body.dataset.step === '0'")
        page.click("#rp-next")
        page.wait_for_function("() => Number(document.body.dataset.step) > 0")
        assert page.locator("#board .board-under-current").count() == 1
        assert not errors, errors
    finally:
        context.close()


def hand_cards(page: Any) -> list[str]:
    return page.locator("#my-hand .st-card").evaluate_all("els => els.map(e => e.dataset.card)")


def board_text_without_reveal(page: Any) -> str:
    return page.evaluate("""() => {
        const copy = document.getElementById('board').cloneNode(true);
        copy.querySelectorAll('#last-reveal, details.raw').forEach(n => n.remove());
        return copy.textContent;
    }""")


def test_two_browsers_play_spy_tracker_each_seeing_only_its_hand(
        browser: Any, server: ServerProcess) -> None:
    ctx_a, page_a, errors_a = new_page(browser)
    ctx_b, page_b, errors_b = new_page(browser)
    try:
        table = create_in_lobby(page_a, server.base, "spy-tracker", 2, seats={1: "human"})
        link = page_a.input_value("#share-link")
        assert link.endswith(f"/t/{table}")
        page_a.wait_for_function("() => document.body.dataset.status === 'waiting'")
        page_b.goto(link)
        page_b.fill("#join-name", "Bea")
        page_b.click("button.take-seat[data-seat='1']")
        page_b.wait_for_function(
            "() => document.querySelector('#who-am-i').textContent.includes('seat 2')")
        page_b.wait_for_function("() => document.body.dataset.status === 'playing'")
        page_a.wait_for_function("() => document.body.dataset.status === 'playing'")
        rng = random.Random(7)
        checks = 0
        moves = 0
        deadline = time.monotonic() + 240
        while True:
            assert time.monotonic() < deadline, "game took too long"
            finished = [p.evaluate("document.body.dataset.status") == "finished"
                        for p in (page_a, page_b)]
            if all(finished):
                break
            # compare the two views when both show the same version
            va = page_a.evaluate("document.body.dataset.version")
            vb = page_b.evaluate("document.body.dataset.version")
            if va == vb:
                a, b = hand_cards(page_a), hand_cards(page_b)
                if a and b:
                    assert not set(a) & set(b)
                    text_a, text_b = board_text_without_reveal(page_a), \
                        board_text_without_reveal(page_b)
                    assert not any(card in text_a for card in b)
                    assert not any(card in text_b for card in a)
                    checks += 1
            mover = None
            for page in (page_a, page_b):
                if page.locator(CHOICE).count():
                    mover = page
            if mover is None:
                time.sleep(0.05)
                continue
            if take_turn(mover, rng):
                moves += 1
        assert moves >= 5 and checks >= 3
        for page in (page_a, page_b):
            page.wait_for_selector("#result:not([hidden])")
        winners = httpx.get(f"{server.base}/api/tables/{table}").json()["result"]["winners"]
        assert len(winners) == 1
        for page in (page_a, page_b):
            winner = page.locator("[data-testid=final-scores] tr[data-winner=yes]")
            assert winner.count() == 1 and winner.get_attribute("data-seat") == str(winners[0])
        assert not errors_a and not errors_b, errors_a + errors_b
    finally:
        ctx_a.close()
        ctx_b.close()


def test_japanese_page_shows_japanese(browser: Any, server: ServerProcess) -> None:
    context, page, errors = new_page(browser)
    try:
        page.goto(server.base + "/?lang=ja")
        assert page.text_content("#nav-lobby") == "ロビー"
        assert page.text_content("#create-button") == "テーブルを作る"
        assert page.evaluate("document.documentElement.lang") == "ja"
        create_in_lobby(page, server.base, "under-current", 3)
        page.wait_for_selector("#my-role")
        page.wait_for_function(
            "() => document.querySelector('#turn-banner').textContent.length > 0")
        body = page.text_content("body") or ""
        assert "中央ファイル列" in body
        assert "あなたの役職カード" in body
        assert "Central File Row" not in body
        # the choice sticks (cookie) and the select switches languages
        page.goto(server.base + "/")
        assert page.text_content("#nav-lobby") == "ロビー"
        page.select_option("#lang-select", "zh-Hant")
        page.wait_for_function("() => document.documentElement.lang === 'zh-Hant'")
        assert page.text_content("#nav-lobby") == "大廳"
        assert not errors, errors
    finally:
        context.close()


def test_restart_mid_game_resumes_in_the_page(browser: Any, tmp_path: Path) -> None:
    srv = ServerProcess(f"sqlite:///{tmp_path / 'restart.db'}", bot_delay=0.02).start()
    context, page, errors = new_page(browser)
    try:
        rng = random.Random(3)
        # Random bots can end a game in a turn or two (a lucky RETIRE); such a table is set
        # aside and another one played, so the restart really comes mid-game.
        for _ in range(5):
            create_in_lobby(page, srv.base, "under-current", 3)
            if all(take_turn(page, rng) for _ in range(3)) and take_turn_ready(page):
                break
        else:
            raise AssertionError("five tables in a row ended within three turns")
        version = page.evaluate("document.body.dataset.version")
        hand = page.locator("#my-hand .card").evaluate_all(
            "els => els.map(e => e.dataset.card)")
        srv.kill9()
        page.wait_for_function("() => document.body.dataset.connected === 'no'")
        srv = ServerProcess(srv.db_url, port=srv.port, bot_delay=0.02).start()
        page.wait_for_function("() => document.body.dataset.connected === 'yes'", timeout=30_000)
        page.wait_for_selector(CHOICE, state="attached")
        assert page.evaluate("document.body.dataset.version") == version
        again = page.locator("#my-hand .card").evaluate_all(
            "els => els.map(e => e.dataset.card)")
        assert again == hand
        assert take_turn(page, rng)  # and the game goes on
        assert int(page.evaluate("document.body.dataset.version")) > int(version)
        assert not errors, errors
    finally:
        context.close()
        srv.stop()


def test_a_copied_game_folder_plays_in_the_browser_with_its_board(
        browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fifth game of ``tests/test_fifth_game.py`` (Spy Tracker's folder copied under a new
    id, nothing else edited) in a real server and a real browser: the lobby offers it, the
    table draws its own board (not the generic one) in its own words, and a person plays it
    to the end against its heuristic bot."""
    from tests.test_fifth_game import NEW_ID, copy_game

    monkeypatch.setenv("FIELDCRAFT_GAMES_PATH", str(copy_game(tmp_path)))
    srv = ServerProcess(f"sqlite:///{tmp_path / 'fifth.db'}", bot_delay=0.0).start()
    context, page, errors = new_page(browser)
    try:
        create_in_lobby(page, srv.base, NEW_ID, 2, seats={1: "bot:heuristic"})
        assert page.text_content("#game-title") == "Double Agents"
        page.wait_for_selector(f".board-{NEW_ID} .st-seats")  # its board, from its folder
        assert page.locator(".board-generic").count() == 0
        assert "Cards in play" in (page.text_content("#board") or "")
        rng = random.Random(5)
        moves = 0
        while take_turn(page, rng):
            moves += 1
            assert moves < 500
        assert moves > 0
        page.wait_for_selector("#result")
        assert not errors, errors
    finally:
        context.close()
        srv.stop()


def test_only_a_public_table_is_listed_and_a_private_one_is_found_by_its_code(
        browser: Any, server: ServerProcess) -> None:
    context, page, errors = new_page(browser)
    try:
        private = create_in_lobby(page, server.base, "spy-tracker", 2, seats={1: "human"})
        page.wait_for_function("() => document.body.dataset.status === 'waiting'")
        assert page.get_attribute("#visibility", "data-public") == "no"
        code = page.text_content("#join-code-show") or ""
        assert len(code) == 19 and code.count("-") == 3
        assert code.replace("-", "") not in private
        public = create_in_lobby(page, server.base, "spy-tracker", 2, seats={1: "human"},
                                 public=True)
        assert page.get_attribute("#visibility", "data-public") == "yes"
        # this browser's own "My games" lists both (kept in this browser only, issue 34): the
        # lobby is checked as any other browser sees it
        page.evaluate("localStorage.removeItem('fc-my-games')")
        page.goto(server.base + "/")
        page.wait_for_selector(f"#table-list [data-table='{public}']")
        assert page.locator(f"[data-table='{private}']").count() == 0
        assert private not in (page.content() or "")
        # a friend types the code (lower case, no dashes) into the lobby
        page.fill("#join-code", code.lower().replace("-", ""))
        page.click("#join-button")
        page.wait_for_url(f"**/t/{private}")
        page.goto(server.base + "/")
        page.fill("#join-code", "0000-0000-0000-0000")
        page.click("#join-button")
        page.wait_for_function(
            "() => document.querySelector('#join-error').textContent.length > 0")
        assert page.text_content("#join-error") == "No table has that join code."
        assert not errors, errors
    finally:
        context.close()


def test_a_seeded_table_shows_its_notice_on_the_table_and_replay_pages(
        browser: Any, tmp_path: Path) -> None:
    srv = ServerProcess(f"sqlite:///{tmp_path / 'seeded.db'}", bot_delay=0.0,
                        allow_seeded_tables=True).start()
    context, page, errors = new_page(browser)
    try:
        made = httpx.post(f"{srv.base}/api/tables", json={
            "game": "spy-tracker", "players": 2, "seats": ["bot", "bot"], "seed": 3}).json()
        table = made["id"]
        deadline = time.monotonic() + 60
        while httpx.get(f"{srv.base}/api/tables/{table}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        for lang, words in (("en", "Seeded table"), ("ja", "シード固定のテーブル")):
            for path in (f"/t/{table}", f"/t/{table}/replay"):
                page.goto(f"{srv.base}{path}?lang={lang}")
                notice = page.locator("#seeded-notice")
                notice.wait_for(state="visible")  # shown by the page's script once it syncs
                assert notice.is_visible(), (lang, path)
                assert words in (notice.text_content() or "")
        plain = httpx.post(f"{srv.base}/api/tables", json={
            "game": "spy-tracker", "players": 2, "seats": ["human", "bot"]}).json()
        page.goto(srv.base + plain["url"])
        page.wait_for_selector("#board")
        assert page.locator("#seeded-notice").count() == 0
        assert not errors, errors
    finally:
        context.close()
        srv.stop()
