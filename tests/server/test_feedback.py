"""The post-game questionnaire (issue #33 item 2): a seated person of a finished table that asks
answers once; everything else is refused with its own code and stores nothing. One browser test
checks that a finished table's page shows the form and that sending it stores the answers."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from fieldcraft.server import create_app
from tests.server.helpers import CHROMIUM, ServerProcess, chromium_browser

GOOD = {"fun": 4, "clarity": 2, "close": 5, "length": "long",
        "confusing": ["section:2", "key:min_bid"], "comment": "  the bidding lost me  "}


@pytest.fixture
def fast(tmp_path: Path) -> Iterator[TestClient]:
    """An app whose stand-in bot plays at once for a person who is not connected, so a table
    with a human seat finishes without anyone playing it."""
    app = create_app(f"sqlite:///{tmp_path / 'fb.db'}", allowed_hosts=["testserver"],
                     bot_delay=0.0, away_grace=0.0)
    with TestClient(app) as c:
        yield c


def make(client: TestClient, feedback: bool = True, seats: list[str] | None = None,
         finish: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"game": "spy-tracker", "players": 2,
                            "seats": seats or ["human", "bot"],
                            "overrides": {"points_to_win": 1}}
    if feedback:
        body["feedback"] = True
    res = client.post("/api/tables", json=body)
    assert res.status_code == 201, res.text
    made = res.json()
    if finish:
        room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
        deadline = time.monotonic() + 60
        while room.status != "finished":
            assert time.monotonic() < deadline, "the game did not finish"
            time.sleep(0.01)
    return made  # type: ignore[no-any-return]


def stored(client: TestClient) -> list[tuple[Any, ...]]:
    engine = client.app.state.hub.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text(
            "SELECT table_id, seat, answers FROM feedback ORDER BY table_id, seat"))]


def refused(res: Any, status: int, code: str) -> None:
    assert res.status_code == status, res.text
    assert res.json()["error"]["code"] == code, res.text


def test_a_seated_person_answers_once_and_the_answers_are_stored(fast: TestClient) -> None:
    made = make(fast)
    url = f"/api/tables/{made['id']}/feedback"
    form = fast.get(url + "?lang=ja").json()
    assert form["on"] and form["finished"] and form["answers"] == 0
    ids = [c["id"] for c in form["questions"]["confusing"]]
    assert "section:1" in ids and "key:min_bid" in ids
    assert form["questions"]["confusing"][0]["label"] == "カード"  # the Japanese rules page
    res = fast.post(url, json={"token": made["token"], "answers": GOOD, "lang": "ja"})
    assert res.status_code == 201, res.text
    assert res.json()["seat"] == 0
    rows = stored(fast)
    assert len(rows) == 1 and rows[0][:2] == (made["id"], 0)
    assert json.loads(rows[0][2]) == {**GOOD, "comment": "the bidding lost me"}
    assert fast.get(url).json()["answers"] == 1
    refused(fast.post(url, json={"token": made["token"], "answers": {**GOOD, "fun": 1}}),
            409, "feedback.already_answered")
    assert json.loads(stored(fast)[0][2])["fun"] == 4  # the first answer is kept


def test_the_optional_answers_may_be_left_out(fast: TestClient) -> None:
    made = make(fast)
    res = fast.post(f"/api/tables/{made['id']}/feedback", json={
        "token": made["token"], "lang": ["not", "a", "language"],
        "answers": {"fun": 1, "clarity": 5, "close": 3, "length": "short"}})
    assert res.status_code == 201, res.text
    with fast.app.state.hub.engine.connect() as conn:  # type: ignore[attr-defined]
        assert conn.execute(sa.text("SELECT lang FROM feedback")).scalar() == "en"
    assert res.json()["answers"]["confusing"] == [] and res.json()["answers"]["comment"] == ""


def test_who_and_when_are_refused(fast: TestClient) -> None:
    made = make(fast)
    other = make(fast)
    url = f"/api/tables/{made['id']}/feedback"
    refused(fast.post(url, json={"answers": GOOD}), 403, "auth.spectator")
    refused(fast.post(url, json={"token": "", "answers": GOOD}), 403, "auth.spectator")
    refused(fast.post(url, json={"token": other["token"], "answers": GOOD}), 403,
            "auth.bad_token")
    refused(fast.post(url, json={"token": 5, "answers": GOOD}), 403, "auth.bad_token")
    off = make(fast, feedback=False)
    refused(fast.post(f"/api/tables/{off['id']}/feedback",
                      json={"token": off["token"], "answers": GOOD}), 409, "feedback.off")
    assert fast.get(f"/api/tables/{off['id']}/feedback").json()["on"] is False
    refused(fast.post("/api/tables/nope/feedback", json={"token": made["token"],
                                                         "answers": GOOD}),
            404, "table.no_such_table")
    refused(fast.post(url, json={"token": made["token"], "answers": GOOD, "extra": 1}),
            400, "request.bad_request")
    assert stored(fast) == []


def test_an_unfinished_table_is_refused(client: TestClient) -> None:
    made = make(client, seats=["human", "human"], finish=False)
    refused(client.post(f"/api/tables/{made['id']}/feedback",
                        json={"token": made["token"], "answers": GOOD}),
            409, "table.not_finished")
    assert client.get(f"/api/tables/{made['id']}/feedback").json()["finished"] is False
    assert stored(client) == []


@pytest.mark.parametrize("change", [
    {"fun": 0}, {"fun": 6}, {"fun": 3.5}, {"fun": True}, {"fun": "5"}, {"clarity": None},
    {"close": -1}, {"length": "medium"}, {"length": 2}, {"confusing": "section:1"},
    {"confusing": ["section:99"]}, {"confusing": ["key:nope"]}, {"confusing": [1]},
    {"confusing": ["section:1", "section:2", "section:3", "section:4", "section:5",
                   "key:min_bid"]},
    {"comment": "x" * 501}, {"comment": 7}, {"comment": "a\x00b"},
    {"comment": "right\u202eleft"}, {"mood": 3},
])
def test_a_bad_answer_is_refused_and_stores_nothing(fast: TestClient,
                                                    change: dict[str, Any]) -> None:
    made = make(fast)
    answers = {**GOOD, **change}
    if change.get("clarity", 0) is None:
        del answers["clarity"]
    res = fast.post(f"/api/tables/{made['id']}/feedback",
                    json={"token": made["token"], "answers": answers})
    refused(res, 400, "feedback.bad_answer")
    assert stored(fast) == []
    # and the seat can still answer properly afterwards
    ok = fast.post(f"/api/tables/{made['id']}/feedback",
                   json={"token": made["token"], "answers": GOOD})
    assert ok.status_code == 201, ok.text


def test_answers_that_are_not_an_object_are_refused(fast: TestClient) -> None:
    made = make(fast)
    for answers in (None, [], "good", 5):
        refused(fast.post(f"/api/tables/{made['id']}/feedback",
                          json={"token": made["token"], "answers": answers}),
                400, "feedback.bad_answer")
    assert stored(fast) == []


def test_a_comment_may_hold_line_breaks_and_500_characters(fast: TestClient) -> None:
    made = make(fast)
    text = ("line one\nline two " + "z" * 500)[:500]
    res = fast.post(f"/api/tables/{made['id']}/feedback",
                    json={"token": made["token"], "answers": {**GOOD, "comment": text}})
    assert res.status_code == 201, res.text
    assert json.loads(stored(fast)[0][2])["comment"] == text


# -- in the browser ---------------------------------------------------------------------------
def test_the_finished_table_page_asks_and_stores_the_answers(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed")
    db = f"sqlite:///{tmp_path / 'b.db'}"
    # the game is played out first by an app whose stand-in bot plays for the absent person;
    # the real server then loads the finished table from the database, as after a restart
    app = create_app(db, allowed_hosts=["testserver"], bot_delay=0.0, away_grace=0.0)
    with TestClient(app) as c:
        made = make(c)
    server = ServerProcess(db).start()
    try:
        import httpx

        with chromium_browser() as browser:
            page = browser.new_page()
            page.goto(server.base + "/")
            page.evaluate("([id, token, host]) => { localStorage.setItem('fc-token-' + id, "
                          "token); localStorage.setItem('fc-host-' + id, host); }",
                          [made["id"], made["token"], made["host_token"]])
            page.goto(server.base + made["url"] + "?lang=en")
            page.wait_for_selector("#feedback-form", timeout=20000)
            page.screenshot(path=str(tmp_path / "feedback.png"), full_page=True)
            page.click("#fb-fun-4")
            page.click("#fb-clarity-3")
            page.click("#fb-length-right")
            page.click("#fb-close-5")
            page.check("#fb-c-section_2")
            page.fill("#fb-comment", "fine")
            page.click("#feedback-send")
            page.wait_for_selector("#feedback-thanks")
            form = httpx.get(f"{server.base}/api/tables/{made['id']}/feedback").json()
            assert form["answers"] == 1
            page.reload()
            page.wait_for_selector("#feedback-thanks")  # asked once
            page.close()
        engine = sa.create_engine(server.db_url)
        with engine.connect() as conn:
            row = conn.execute(sa.text("SELECT seat, answers, lang FROM feedback")).one()
        engine.dispose()
        assert row[0] == 0 and row[2] == "en"
        assert json.loads(row[1]) == {"fun": 4, "clarity": 3, "close": 5, "length": "right",
                                      "confusing": ["section:2"], "comment": "fine"}
    finally:
        server.stop()


def test_the_confusing_rule_picker_words_every_key_in_the_readers_language() -> None:
    """A person asked which rule confused them reads words, not ``points_to_win``: every
    changeable key of every game has its own label in each language, and the form uses it."""
    from fieldcraft.core.registry import default_ruleset, list_games
    from fieldcraft.core.ruleset import FIXED_KEYS
    from fieldcraft.server import i18n
    from fieldcraft.server.feedback import rule_choices

    for lang in i18n.LANGUAGES:
        own = i18n._load_frame(lang)
        for game in list_games():
            keys = [k for k in default_ruleset(game) if k not in FIXED_KEYS]
            words = {c["id"]: c["label"] for c in rule_choices(game, lang)}
            for key in keys:
                assert f"feedback.rule.{key}" in own, (lang, game, key)
                assert words[f"key:{key}"] == own[f"feedback.rule.{key}"] != key
    assert {c["id"]: c["label"] for c in rule_choices("spy-tracker", "ja")}[
        "key:points_to_win"] == "勝利に必要な得点"
    english = {c["id"]: c["label"] for c in rule_choices("spy-tracker", "en")}
    assert english["key:points_to_win"] == "Points needed to win"
