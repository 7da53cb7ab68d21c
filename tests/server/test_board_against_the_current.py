"""Against the Current's board in chromium, and its game text.

The browser test plays one whole game at a table of the person (seat 0) and a random bot, every
one of the person's moves made by clicking a thing on the board (a token, the landed space, a
die face, the event card, a player, a marker, a tributary, an animal card), never a fallback
button; in Japanese no log line or choice label may hold an English word; the final-scores panel
must show the engine's own figures. ``FIELDCRAFT_SHOTS=<folder>`` also saves the board mid-game
and the end screen there (in English).

The unit tests pin the events of a few scripted positions: what the log says, in which order,
and that the summary's numbers and reason are right in English and Japanese.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fieldcraft.core.registry import game_spec, load_game
from fieldcraft.core.text import Text, game_messages
from fieldcraft.games.against_the_current.layout import (
    A_DEAL,
    A_FIRST,
    A_MOVE,
    A_NO_ABILITY,
    A_PICK,
    A_ROLL,
    A_SHUFFLE,
    ANIMALS,
    EVENTS,
    TERRAINS,
)
from tests.server.helpers import ENGLISH, ServerProcess

GAME = "against-the-current"
PLAYERS = 2


NAMES = {"en": "Ann", "ja": "花子"}


# -- the events of scripted positions -----------------------------------------------------------
def messages(lang: str) -> dict[str, str]:
    return game_messages(game_spec(GAME), lang)


def text(lang: str, viewer: int | None) -> Text:
    return Text(messages(lang), viewer, lambda s: ["Ana", "Bo", "Cy", "Di"][s], strict=True)


def fixed_game(**overrides: Any) -> Any:
    """A 2-player game whose wheel is dealt in TERRAINS order per count (Open Water on spaces
    1-3, Pollution 4-5, Fishing Nets 6-7, Water Plants 8-9, Rapids 10-11, Dam 12-13, Turbine
    14-15), markers on the Open Water cards of spaces 1 and 2 (so those resolve as Pollution and
    Fishing Nets), the events in box order, seat 0 the Axolotl, seat 1 the Eel, seat 0 first.
    Returns (game, state, every event told to seat 0 so far)."""
    game = load_game(GAME, players=2, **overrides)
    state = game.new_initial_state()
    told: list[Any] = []

    def play(action: int) -> None:
        told.append(state.log_event(action, 0))
        state.apply_action(action)

    for t, count in enumerate(game.terrain_counts):
        for _ in range(count):
            play(A_DEAL + t)
    for m in range(len(game.marker_terrain)):
        play(game.a_marker + m * game.cards + m)
    for e, count in enumerate(game.deck_counts):
        for _ in range(count):
            play(A_SHUFFLE + e)
    play(A_PICK + ANIMALS.index("Axolotl"))
    play(A_PICK + ANIMALS.index("European Eel"))
    play(A_FIRST + 0)
    return game, state, told, play


def test_setup_is_one_line_naming_where_the_markers_lie() -> None:
    _, state, told, _ = fixed_game()
    lines = [e for e in told if e is not None]
    assert [e["key"] for e in lines] == ["setup", "pick", "pick", "first"]
    setup = lines[0]
    assert setup["params"] == {"cards": 15, "deck": 12, "marker": "Pollution", "space": 1,
                               "marker2": "Fishing Nets", "space2": 2}
    assert text("en", 0).event(setup) == (
        "The river is set: 15 terrain cards on the wheel at Current 1, the Pollution marker on "
        "space 1, the Fishing Nets marker on space 2, and 12 event cards shuffled face down.")
    assert "汚染マーカーを1番マスに" in text("ja", 0).event(setup)
    assert text("en", 0).event(lines[1]) == "You pick the Axolotl."
    assert text("en", 1).event(lines[1]) == "Ana picks the Axolotl."


def test_the_roll_is_told_first_then_from_to_terrain_and_where_the_token_ends() -> None:
    _, state, told, play = fixed_game()
    play(A_MOVE + 0)  # token A
    assert told[-1] is None  # the token choice is told with its roll
    play(A_ROLL + 3)  # a 4: space 4 is Pollution, which the Axolotl may ignore (Regeneration)
    e = told[-1]
    assert e["key"] == "move_open" and e["params"]["to"] == 4
    assert text("en", 1).event(e) == "Ana rolls 4: token A goes from Start to space 4 (Pollution)."
    play(A_NO_ABILITY)
    e = told[-1]
    assert e["key"] == "land_decline"
    assert e["params"]["effect"] == "back2" and e["params"]["end"] == 2
    assert text("en", 0).event(e) == ("You use no ability on Pollution (space 4): back 2; "
                                      "token A ends on space 2.")
    assert text("ja", 0).event(e) == ("あなたは能力を使わない。4番マスの汚染：2マス後退、"
                                      "コマAは2番マスで止まった。")


def test_the_wheel_turning_is_told_at_the_end_of_the_round() -> None:
    _, state, told, play = fixed_game()
    play(A_MOVE + 1)
    play(A_ROLL + 2)  # 3: Open Water, no effect; the Eel's turn follows
    e = told[-1]
    assert e["key"] == "move" and e["params"]["wheel"] == "none"
    assert text("en", 1).event(e) == (
        "Ana rolls 3: token B goes from Start to space 3, Open Water: no effect; it ends on "
        "space 3.")
    play(A_MOVE + 0)
    play(A_ROLL + 4)  # the Eel rolls 5: Pollution, back 1; the round ends
    e = told[-1]
    assert e["params"]["wheel"] == "c2" and e["params"]["effect"] == "back1"
    assert text("en", 0).event(e).endswith("it ends on space 4. The wheel turns: Current 2.")
    assert text("ja", 0).event(e).endswith("ホイールが回り、カレント2になった。")
    assert state.current_number() == 2


def test_every_reader_is_told_the_same_public_events_and_no_card_of_the_pile() -> None:
    game = load_game(GAME, players=3)
    state = game.new_initial_state()
    rng = random.Random(4)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            action = rng.choices(actions, probs)[0]
        else:
            action = rng.choice(state.legal_actions())
        events = [state.log_event(action, s) for s in (None, 0, 1, 2)]
        if state.phase == 2:  # SHUFFLE: no event names a card of the face-down pile
            assert all(e is None or not set(EVENTS) & set(map(str, e["params"].values()))
                       for e in events)
        # the same event for every reader but where the reader's own token is the target
        keys = {e["key"].removesuffix("_yours") for e in events if e}
        assert len(keys) <= 1
        state.apply_action(action)


def random_game(seed: int, players: int = 2) -> Any:
    state = load_game(GAME, players=players).new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_summary_numbers_and_reason_in_english_and_japanese() -> None:
    state = random_game(11)
    summary = state.final_summary()
    outcome = state.outcome()
    assert [c["key"] for c in summary["columns"]] == [
        "animal", "token_a", "token_b", "token_c", "score", "finish"]
    for s, row in enumerate(summary["rows"]):
        v = row["values"]
        assert v["score"] == outcome["scores"][s] == v["token_a"] + v["token_b"] + v["token_c"]
        assert sorted([v["token_a"], v["token_b"], v["token_c"]]) == sorted(
            outcome["tributaries"][s])
        assert v["finish"] == outcome["finish_order"].index(s) + 1
        assert v["animal"] == outcome["animals"][s]
        assert row["winner"] == (s in outcome["winners"])
    reason = summary["reason"]
    w = outcome["winners"][0]
    en = text("en", None).render("end", reason["key"], reason["params"])
    ja = text("ja", None).render("end", reason["key"], reason["params"])
    assert str(outcome["scores"][w]) in en and str(outcome["scores"][w]) in ja
    if reason["key"] == "win":
        parts = " + ".join(str(summary["rows"][w]["values"][k])
                           for k in ("token_a", "token_b", "token_c"))
        assert en == (f"{['Ana', 'Bo'][w]} wins with {outcome['scores'][w]} points ({parts}) "
                      f"as the {outcome['animals'][w]}.")
        assert text("en", w).render("end", "win", reason["params"]).startswith("You win with")
        animal = messages("ja")[f"animal.{outcome['animals'][w]}"]
        assert ja == f"{animal}の{['Ana', 'Bo'][w]}が{outcome['scores'][w]}点（{parts}）で勝利。"
    assert not ENGLISH.search(ja.replace("Ana", "").replace("Bo", ""))


def test_a_tie_is_told_with_its_tie_break() -> None:
    state = random_game(3)  # a 2-player game that ends 19 to 19
    scores = state.scores()
    assert scores[0] == scores[1]
    summary = state.final_summary()
    reason = summary["reason"]
    first = state.outcome()["finish_order"][0]
    assert reason == {"key": "tie", "params": {"seat": first, "tied": [0, 1], "score": scores[0]}}
    assert [r["winner"] for r in summary["rows"]] == [first == 0, first == 1]
    assert summary["rows"][first]["values"]["finish"] == 1
    assert text("en", None).render("end", "tie", reason["params"]) == (
        f"Ana, Bo tie on {scores[0]} points; {['Ana', 'Bo'][first]} wins, having brought the "
        "third token home first.")
    assert text("ja", None).render("end", "tie", reason["params"]) == (
        f"Ana、Boが{scores[0]}点で並び、3匹目が先に到着した{['Ana', 'Bo'][first]}の勝ち。")


def test_the_space_and_terrain_names_cover_the_default_river() -> None:
    for lang in ("en", "ja", "zh-Hant"):
        m = messages(lang)
        for sp in range(0, 16):
            assert f"space.{sp}" in m
        assert "space.sanctuary" in m
        for t in TERRAINS:
            assert f"terrain.{t}" in m and "short.pass" in m


def test_render_draws_the_terminal_in_each_language() -> None:
    from fieldcraft.games.against_the_current.render import render

    _, state, _, play = fixed_game()
    play(A_MOVE + 0)
    play(A_ROLL + 2)
    obs = state.observation(0)
    en = render(obs, text("en", 0))
    ja = render(obs, text("ja", 0))
    assert "Current 1" in en and "Open Water" in en and "River Sanctuary" in en
    assert "カレント" in ja and "開けた水域" in ja and "Open Water" not in ja
    assert render(obs) == render(obs, None)  # English by default


# -- the whole game in chromium ------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Path]]:
    db = tmp_path_factory.mktemp("atc-board") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0).start()
    yield srv, db
    srv.stop()


PLAYABLE = "#board .playable"
READY = ("() => document.querySelector('#board .playable') || document.body.dataset.status === "
         "'finished' || document.querySelector('#choices button.choice:not([disabled])')")


def labels_on_page(page: Any) -> list[str]:
    """Every choice label the person sees: the board's playables and the fallback buttons."""
    return page.evaluate(
        "() => [...document.querySelectorAll('#board .playable')].map(e => e.getAttribute("
        "'aria-label')).concat([...document.querySelectorAll('#choices button.choice, "
        ".play-menu-item')].map(e => e.textContent))")


def no_english(lang: str, what: list[str], name: str) -> None:
    if lang == "en":
        return
    bad = [w for w in what if ENGLISH.search(w)]
    assert not bad, f"English in {lang} {name}: {bad[:5]}"


def replayed_summary(db: Path, table: str) -> dict[str, Any]:
    """The finished game replayed in the engine from the table's stored actions."""
    con = sqlite3.connect(db)
    try:
        row = con.execute("select players, overrides from game_tables where id = ?",
                          (table,)).fetchone()
        actions = [a for (a,) in con.execute(
            "select action from actions where table_id = ? order by seq", (table,))]
    finally:
        con.close()
    state = load_game(GAME, players=row[0], **json.loads(row[1])).new_initial_state()
    for a in actions:
        state.apply_action(a)
    assert state.is_terminal()
    return state.final_summary()


@pytest.mark.no_limits
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_whole_game_is_played_by_clicking_the_board(browser: Any, server: Any,
                                                       lang: str) -> None:
    srv, db = server
    shots = os.environ.get("FIELDCRAFT_SHOTS") if lang == "en" else None
    res = httpx.post(f"{srv.base}/api/tables", json={
        "game": GAME, "players": PLAYERS, "seats": ["human", "bot:random"],
        "name": NAMES[lang]})
    assert res.status_code == 201, res.text
    created = res.json()
    table = created["id"]
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto(f"{srv.base}/?lang={lang}")
        page.evaluate("([t, tok]) => localStorage.setItem('fc-token-' + t, tok)",
                      [table, created["token"]])
        page.goto(f"{srv.base}/t/{table}")
        rng = random.Random(7)
        clicks = 0
        shot_taken = False
        while True:
            page.wait_for_function(READY)
            if page.evaluate("document.body.dataset.status") == "finished":
                break
            things = page.locator(PLAYABLE)
            assert things.count() > 0, "a choice of the person's is not on the board: " + str(
                page.evaluate("() => [...document.querySelectorAll('#choices button.choice')]"
                              ".map(b => b.dataset.label)"))
            no_english(lang, labels_on_page(page), "choice labels")
            # a die not yet rolled shows no pip-like mark beside "rolled 6" (a dot read as 1)
            assert page.evaluate("() => [...document.querySelectorAll('.atc-die.idle')]"
                                 ".every(d => !/[·•1-6]/.test(d.textContent))")
            if shots and not shot_taken and clicks >= 10 and (clicks >= 30 or page.evaluate(
                    "() => { const l = [...document.querySelectorAll('#choices button.choice')]"
                    ".map(b => b.textContent); return new Set(l).size === l.length && "
                    "!!document.querySelector('.atc-die[data-roll]:not([data-roll=\"\"])'); }")):
                page.evaluate("() => window.scrollTo(0, document.querySelector('#board')"
                              ".getBoundingClientRect().top + window.scrollY - 8)")
                page.screenshot(path=str(Path(shots) / f"{GAME}-board.png"))
                shot_taken = True
            version = page.evaluate("document.body.dataset.version")
            thing = things.nth(rng.randrange(things.count()))
            several = "," in (thing.get_attribute("data-actions") or "")
            if clicks == 0:  # the first move by keyboard: a board thing is focusable by name
                assert thing.get_attribute("aria-label")
                thing.focus()
                page.keyboard.press("Enter")
            else:
                thing.click()
            if several:
                items = page.locator(".play-menu .play-menu-item")
                items.first.wait_for()
                no_english(lang, labels_on_page(page), "menu labels")
                items.nth(rng.randrange(items.count())).click()
            page.wait_for_function(
                f"() => document.body.dataset.version !== '{version}' || "
                "document.body.dataset.status === 'finished'")
            clicks += 1
            assert clicks < 400
        page.wait_for_selector("#result:not([hidden]) [data-testid=final-scores]")
        assert clicks >= 5
        logs = page.locator(".log-line").all_text_contents()
        assert len(logs) > 10
        no_english(lang, logs, "log lines")
        result = httpx.get(f"{srv.base}/api/tables/{table}").json()["result"]
        summary = replayed_summary(db, table)
        assert summary == result["summary"]
        rows = page.locator("[data-testid=final-scores] tbody tr")
        assert rows.count() == PLAYERS
        for row in summary["rows"]:
            tr = page.locator(f"[data-testid=final-scores] tr[data-seat='{row['seat']}']")
            assert tr.get_attribute("data-winner") == (
                "yes" if row["seat"] in result["winners"] else "no")
            for key, value in row["values"].items():
                cell = tr.locator(f"td[data-col='{key}']")
                assert cell.get_attribute("data-value") == str(value), (key, value)
        reason = page.text_content("[data-testid=final-scores] p.reason") or ""
        assert str(summary["rows"][result["winners"][0]]["values"]["score"]) in reason
        no_english(lang, [reason], "the reason")
        if shots:
            page.locator("#result").scroll_into_view_if_needed()
            page.screenshot(path=str(Path(shots) / f"{GAME}-end.png"))
        if lang == "en":  # the replay draws the board with no choices, from before the deal
            page.click("#replay-link")
            page.wait_for_selector("#board .atc-wheel")
            page.click("#rp-first")
            page.wait_for_function("() => document.body.dataset.step === '0'")
            assert page.locator("#board .atc-space.back").count() == 15
            assert page.locator("#board .playable").count() == 0
        assert not errors, errors
    finally:
        context.close()


def test_the_terrain_legend_follows_the_tables_ruleset(browser: Any, server: Any) -> None:
    """A table whose ruleset changes the terrain table shows that table, not the rulebook's
    (the board reads the table's overrides; the observation does not carry the ruleset)."""
    srv, _ = server
    table = json.loads((Path(__file__).parents[2] / "fieldcraft" / "games" /
                        "against_the_current" / "ruleset.json").read_text())["terrain_table"]
    changed = {animal: {**row, "Open Water": "+1"} for animal, row in table.items()}
    res = httpx.post(f"{srv.base}/api/tables", json={
        "game": GAME, "players": PLAYERS, "seats": ["human", "bot:random"],
        "overrides": {"terrain_table": changed}})
    assert res.status_code == 201, res.text
    made = res.json()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{srv.base}/")
        page.evaluate("([t, tok]) => localStorage.setItem('fc-token-' + t, tok)",
                      [made["id"], made["token"]])
        page.goto(f"{srv.base}/t/{made['id']}")
        page.wait_for_selector(".atc-legend tbody tr")
        first = page.locator(".atc-legend tbody tr").first.locator("td")
        assert first.count() >= 2
        assert all("fwd1" in (first.nth(i).get_attribute("class") or "")
                   for i in range(first.count()))
        second = page.locator(".atc-legend tbody tr").nth(1).locator("td")
        assert not any("fwd1" in (second.nth(i).get_attribute("class") or "")
                       for i in range(second.count()))  # Pollution as the rulebook has it
    finally:
        context.close()
