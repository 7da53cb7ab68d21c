""""What would the bot have done" (fieldcraft/server/analysis.py, routes/analysis.py): the
analysis reads only what the seat to move knew, names the move played among its options, is
cached per step, runs in a worker while the server keeps answering, refuses bad input clearly
and changes nothing; and the replay page's panel in a real chromium, English and Japanese.

Budgets are 200 iterations (a few hundredths of a second a step), so each test is about as
long as starting the worker process."""

from __future__ import annotations

import asyncio
import os
import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from fieldcraft.agents import View
from fieldcraft.agents.ismcts import ISMCTSAgent
from fieldcraft.agents.levels import WEB_TIME_CAP, level_spec
from fieldcraft.core.api import random_playout
from fieldcraft.core.registry import load_game
from fieldcraft.server import create_app
from fieldcraft.server.analysis import (
    Analyser,
    analyse,
    analysis_seed,
    analysis_spec,
    nothing_to_decide,
    search,
)
from fieldcraft.server.app import FastAPI
from tests.server.helpers import ServerProcess, create_table

ITERATIONS = 200
GAMES = [("under-current", 4), ("spy-tracker", 2), ("against-the-current", 3), ("undercover", 3)]


def slow_search(root: Any, seat: int, spec: str, seed: int,
                cap: float | None = None) -> dict[str, Any]:
    """The worker's job made slow on purpose (run in the worker process: importable by name),
    so a test can look at the server while a search is surely still running."""
    time.sleep(4.0)
    return search(root, seat, spec, seed, cap)


def dying_search(root: Any, seat: int, spec: str, seed: int,
                 cap: float | None = None) -> dict[str, Any]:
    """A worker that dies mid-search (killed, out of memory)."""
    os._exit(1)


def make_app(db_url: str, **analyser: Any) -> FastAPI:
    app = create_app(db_url, allowed_hosts=["testserver"],
                     bot_delay=0.0, away_grace=30.0, allow_seeded_tables=True,
                     analysis_iterations=ITERATIONS)
    if analyser:
        app.state.analyser = Analyser(ITERATIONS, **analyser)
    return app


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(db_url)) as c:
        yield c


def finished_table(client: TestClient, game: str = "spy-tracker", players: int = 2,
                   seed: int = 4) -> str:
    made = create_table(client, game=game, players=players, seats=["bot"] * players, seed=seed)
    deadline = time.monotonic() + 30
    while client.get(f"/api/tables/{made['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.05)
    return made["id"]


def decision_steps(client: TestClient, table_id: str) -> tuple[list[int], list[int], int]:
    """(steps where a seat decides, steps where chance draws, the number of steps)."""
    room = client.app.state.hub.rooms[table_id]
    history = room.table.state.history()
    decide, chance = [], []
    for step in range(len(history)):
        nothing = nothing_to_decide(room.table.state_at(step))
        (chance if nothing == "chance" else decide).append(step)
    return decide, chance, len(history)


# -- the library: only what the seat to move knew ------------------------------------------------
@pytest.mark.parametrize(("game", "players"), GAMES)
def test_two_states_a_seat_cannot_tell_apart_get_the_same_analysis(game: str,
                                                                   players: int) -> None:
    """The twin is the acting seat's own resample of the position: every card it could not see
    re-dealt. The hidden cards differ (checked), the analysis is identical to the last digit."""
    g = load_game(game, players=players)
    rng = random.Random(3)
    checked = 0
    for run in range(6):
        final = g.new_initial_state()
        random_playout(final, random.Random(run))
        history = final.history()
        for step in range(4, len(history), max(1, len(history) // 5)):
            state = g.replay(history[:step])
            if nothing_to_decide(state) is not None:
                continue
            seat = state.current_player()
            twin = state.resample(seat, rng)
            hidden = {k: v for k, v in state.to_dict()["state"].items() if k != "actions"}
            other = {k: v for k, v in twin.to_dict()["state"].items() if k != "actions"}
            if hidden == other:  # nothing hidden from this seat here: no test of secrecy
                continue
            assert analyse(state, 11, ITERATIONS) == analyse(twin, 11, ITERATIONS)
            checked += 1
    assert checked >= 3, checked


class Peeking(View):
    """A cheating search's view: every determinisation is the true position itself."""

    def resampler(self) -> Any:
        return lambda rng: self._state.clone()


def peeking_search(state: Any) -> dict[str, Any]:
    seat = state.current_player()
    tree = ISMCTSAgent(iterations=ITERATIONS, seed=1).search(Peeking(state, seat))
    return dict(zip(tree.actions, tree.n, strict=True))


def test_the_twin_check_catches_a_search_that_peeks() -> None:
    """The test above has teeth: a search that plays out the true hidden cards judges a
    position and its acting seat's resample differently."""
    g = load_game("under-current", players=4)
    final = g.new_initial_state()
    random_playout(final, random.Random(2))
    history = final.history()
    differ = 0
    for step in range(8, len(history), 6):
        state = g.replay(history[:step])
        if nothing_to_decide(state) is None and len(state.legal_actions()) > 1:
            twin = state.resample(state.current_player(), random.Random(step))
            differ += peeking_search(state) != peeking_search(twin)
    assert differ >= 1


def test_analysis_reports_every_legal_option_and_the_bots_own_choice() -> None:
    g = load_game("against-the-current", players=2)
    final = g.new_initial_state()
    random_playout(final, random.Random(5))
    history = final.history()
    step = next(k for k in range(10, len(history))
                if nothing_to_decide(s := g.replay(history[:k])) is None
                and len(s.legal_actions()) > 1)
    state = g.replay(history[:step])
    doc = analyse(state, 2, ITERATIONS)
    assert sorted(o["action"] for o in doc["options"]) == state.legal_actions()
    assert doc["seat"] == state.current_player() and doc["iterations"] == ITERATIONS
    assert sum(o["visits"] for o in doc["options"]) == ITERATIONS
    best = max(doc["options"], key=lambda o: o["visits"])
    assert doc["choice"] == best["action"] and doc["win"] == best["win"]
    for o in doc["options"]:
        assert o["kind"] and isinstance(o["args"], dict)
        assert o["win"] is None or 0.0 <= o["win"] <= 1.0
    with pytest.raises(ValueError):
        analyse(final, 2, ITERATIONS)  # the game is over: nobody to decide


def decision_of(game: str, players: int, run: int = 5, skip: int = 10) -> Any:
    """A position of a random game where the seat to move has more than one choice."""
    g = load_game(game, players=players)
    final = g.new_initial_state()
    random_playout(final, random.Random(run))
    history = final.history()
    step = next(k for k in range(skip, len(history))
                if nothing_to_decide(s := g.replay(history[:k])) is None
                and len(s.legal_actions()) > 1)
    return g.replay(history[:step])


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_without_a_budget_the_analysis_is_the_games_strong_level(game: str, players: int) -> None:
    """The panel asks the bot a player meets as "Strong" (levels.py), per game, and a budget
    given to the server asks plain ISMCTS instead, as before levels existed."""
    state = decision_of(game, players)
    assert analysis_spec(state) == (level_spec(game, "strong", players), "strong")
    assert analysis_spec(state, 300) == ("ismcts(iterations=300)", None)


def test_against_the_currents_analysis_is_its_expectimax_and_says_so() -> None:
    """Against the Current's Strong is an expectimax (ISMCTS lost there to the heuristic):
    the answer is that search's move, named with its options, every legal option listed."""
    from fieldcraft.agents.expectimax import ExpectimaxAgent

    state = decision_of("against-the-current", 2, run=1, skip=12)
    doc = analyse(state, 7)
    kind = level_spec("against-the-current", "strong").partition("(")[0]
    assert doc["agent"]["level"] == "strong" and doc["agent"]["kind"] == kind
    assert doc["agent"]["spec"] == level_spec("against-the-current", "strong")
    assert sorted(o["action"] for o in doc["options"]) == state.legal_actions()
    assert doc["options"][0]["action"] == doc["choice"]  # the bot's move comes first
    # the same bot, given the same resample of the seat's view, plays the same move
    from fieldcraft.server.analysis import search_root

    root, seat, seed = search_root(state, 7)
    options = doc["agent"]["options"]
    assert ExpectimaxAgent(seed=seed, **options).act(View(root, seat)) == doc["choice"]
    twin = state.resample(seat, random.Random(9))
    assert analyse(twin, 7) == doc  # only what the seat knew


def test_a_strong_ismcts_analysis_is_capped_in_time_like_a_table() -> None:
    """Spy Tracker's Strong is an iteration budget: the answer names it and never searches
    more; a budget too large for the cap stops at the cap, as a bot at a table does."""
    from fieldcraft.agents import parse_agent_spec
    from fieldcraft.server.analysis import search_root

    state = decision_of("spy-tracker", 2)
    spec = level_spec("spy-tracker", "strong")
    kind, options = parse_agent_spec(spec)
    doc = analyse(state, 3)
    assert doc["agent"] == {"level": "strong", "kind": kind, "options": options, "spec": spec}
    if kind == "ismcts" and "iterations" in options:
        assert 0 < doc["iterations"] <= options["iterations"]
    root, seat, seed = search_root(state, 3)
    started = time.perf_counter()
    capped = search(root, seat, "ismcts(iterations=10000000)", seed, cap=0.2)
    assert time.perf_counter() - started < 0.2 + 2 * WEB_TIME_CAP
    assert 0 < capped["iterations"] < 10000000


# -- the endpoint ----------------------------------------------------------------------------------
def test_the_move_played_is_among_the_options_and_chance_steps_have_nothing_to_decide(
        client: TestClient) -> None:
    tid = finished_table(client, "under-current", 4)
    decide, chance, total = decision_steps(client, tid)
    history = client.app.state.hub.rooms[tid].table.state.history()
    for step in decide[::max(1, len(decide) // 4)]:
        doc = client.get(f"/api/tables/{tid}/analysis", params={"step": step}).json()
        assert doc["nothing"] is None and doc["step"] == step and doc["steps"] == total
        assert doc["played"] == history[step]
        actions = [o["action"] for o in doc["options"]]
        assert doc["played"] in actions and doc["choice"] in actions
    for step in (chance[0], total):
        doc = client.get(f"/api/tables/{tid}/analysis", params={"step": step}).json()
        assert doc["nothing"] == ("terminal" if step == total else "chance")
        assert doc["played"] is None and "options" not in doc


def test_a_second_request_for_a_step_is_answered_from_the_cache(client: TestClient) -> None:
    tid = finished_table(client)
    decide, _, _ = decision_steps(client, tid)
    analyser = client.app.state.analyser
    first = client.get(f"/api/tables/{tid}/analysis", params={"step": decide[1]}).json()
    assert analyser.computed == 1
    again = client.get(f"/api/tables/{tid}/analysis", params={"step": decide[1]}).json()
    assert again == first and analyser.computed == 1
    # the worker's answer is the library's, from the same resample of the acting seat's view
    state = client.app.state.hub.rooms[tid].table.state_at(decide[1])
    alone = analyse(state, analysis_seed(tid, decide[1]), ITERATIONS)
    assert {k: first[k] for k in alone} == alone
    client.get(f"/api/tables/{tid}/analysis", params={"step": decide[2]})
    assert analyser.computed == 2


def test_the_cache_keeps_the_latest_steps_only() -> None:
    """Bounded LRU: a step asked again moves to the front, the least recently asked goes."""
    final = load_game("spy-tracker", players=2).new_initial_state()
    random_playout(final, random.Random(1))  # a terminal state: answered without the worker
    analyser = Analyser(ITERATIONS, cache_size=2)

    async def ask(*steps: int) -> None:
        for step in steps:
            await analyser.analyse("t", step, lambda _: final)

    asyncio.run(ask(1, 2, 1, 3))
    assert analyser.cached("t", 2) is None
    assert analyser.cached("t", 1) == {"step": 1, "nothing": "terminal"}
    assert analyser.cached("t", 3) is not None and analyser.computed == 0


def test_the_server_answers_while_an_analysis_runs_and_refuses_more_than_its_queue(
        db_url: str) -> None:
    with TestClient(make_app(db_url, job=slow_search, queue_limit=1)) as client:
        tid = finished_table(client)
        decide, _, _ = decision_steps(client, tid)
        answers: dict[str, Any] = {}

        def ask() -> None:
            answers["slow"] = client.get(f"/api/tables/{tid}/analysis",
                                         params={"step": decide[0]})

        asking = threading.Thread(target=ask)
        asking.start()
        deadline = time.monotonic() + 10
        while client.app.state.analyser.computed == 0:  # the search has been handed over
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert client.get("/healthz").json()["ok"] is True
        assert client.get("/api/tables").status_code == 200
        busy = client.get(f"/api/tables/{tid}/analysis", params={"step": decide[1]})
        # Answered while the search still runs: the proof the server was not blocked by it
        # (a bound in seconds instead failed on a loaded CI machine, not on the server).
        assert "slow" not in answers, "the search finished before the server answered"
        assert busy.status_code == 429 and busy.json()["error"]["code"] == "limits.analysis_busy"
        assert int(busy.headers["Retry-After"]) >= 1
        asking.join(timeout=20)
        assert answers["slow"].status_code == 200 and answers["slow"].json()["options"]
        assert client.app.state.analyser.computed == 1  # the refused step was never searched


def test_a_worker_that_dies_is_a_clear_error_and_the_next_request_gets_a_new_one(
        db_url: str) -> None:
    with TestClient(make_app(db_url, job=dying_search)) as client:
        tid = finished_table(client)
        decide, _, _ = decision_steps(client, tid)
        res = client.get(f"/api/tables/{tid}/analysis", params={"step": decide[0]})
        assert res.status_code == 503
        assert res.json()["error"]["code"] == "server.analysis_failed"
        analyser = client.app.state.analyser
        assert analyser.cached(tid, decide[0]) is None  # a failure is not kept
        analyser.job = search
        res = client.get(f"/api/tables/{tid}/analysis", params={"step": decide[0]})
        assert res.status_code == 200 and res.json()["options"]


def test_bad_requests_are_refused_with_a_code_and_change_nothing(client: TestClient) -> None:
    tid = finished_table(client)
    total = client.get(f"/api/tables/{tid}").json()["version"]
    for params, status, code in (
            ({"step": -1}, 400, "request.bad_step"),
            ({"step": total + 1}, 400, "request.bad_step"),
            ({"step": "two"}, 400, "request.bad_request"),
            ({}, 400, "request.bad_request")):
        res = client.get(f"/api/tables/{tid}/analysis", params=params)
        assert res.status_code == status and res.json()["error"]["code"] == code, res.text
        assert res.json()["error"]["message"]
    res = client.get("/api/tables/nope/analysis", params={"step": 1})
    assert res.status_code == 404 and res.json()["error"]["code"] == "table.no_such_table"
    playing = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    res = client.get(f"/api/tables/{playing['id']}/analysis", params={"step": 0})
    assert res.status_code == 409 and res.json()["error"]["code"] == "table.not_finished"
    assert client.app.state.analyser.computed == 0
    assert client.app.state.analyser.cached(tid, 0) is None


# -- the replay page's panel in chromium -----------------------------------------------------------
SHOTS = os.environ.get("FIELDCRAFT_SHOTS")
ENGLISH = re.compile(r"[A-Za-z]{3,}")


def test_the_replay_panel_shows_the_bots_choice_and_marks_the_move_played(
        browser: Any, tmp_path: Path) -> None:
    """Under Current, four bots: at a decision with several options the panel names the bot's
    choice, draws a bar per option with its chance to win and marks the move played; in
    Japanese nothing in it is English; a chance step says there is nothing to decide."""
    srv = ServerProcess(f"sqlite:///{tmp_path / 'web.db'}",
                        args=["--analysis-iterations", str(ITERATIONS)]).start()
    try:
        base = srv.base
        made = httpx.post(f"{base}/api/tables", json={"game": "under-current", "players": 4,
                                                      "seats": ["bot"] * 4}).json()
        deadline = time.monotonic() + 60
        while httpx.get(f"{base}/api/tables/{made['id']}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots did not finish"
            time.sleep(0.1)
        tid = made["id"]
        total = httpx.get(f"{base}/api/tables/{tid}").json()["version"]
        step = chance = None
        for k in range(total):
            doc = httpx.get(f"{base}/api/tables/{tid}/replay", params={"step": k}).json()
            if doc["current_player"] is None:
                chance = k if chance is None else chance
            elif step is None and k > total // 3:
                answer = httpx.get(f"{base}/api/tables/{tid}/analysis", params={"step": k}).json()
                if len(answer["options"]) > 1:
                    step = k
            if step is not None and chance is not None:
                break
        assert step is not None and chance is not None
        for lang in ("en", "ja"):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("console", lambda m, seen=errors: seen.append(m.text)
                    if m.type == "error" else None)
            page.goto(f"{base}/t/{tid}/replay?lang={lang}")
            page.wait_for_function("() => document.body.dataset.step === '0'")
            goto = """() => { const s = document.getElementById('rp-slider');
                s.value = '{k}'; s.dispatchEvent(new Event('input')); }"""
            page.evaluate(goto.replace("{k}", str(step)))
            page.wait_for_function(f"() => document.body.dataset.step === '{step}'")
            assert page.locator("#analysis-body").get_attribute("data-state") == "idle"
            page.click("#analysis-ask")
            page.wait_for_function(f"() => document.body.dataset.analysisStep === '{step}'")
            rows = page.locator("#analysis-panel li.analysis-option")
            assert rows.count() > 1
            assert page.locator("#analysis-panel li[data-played=yes]").count() == 1
            assert page.locator("#analysis-panel li[data-choice=yes]").count() == 1
            choice = page.locator("#analysis-choice").get_attribute("data-action")
            best = page.locator("#analysis-panel li[data-choice=yes]").get_attribute("data-action")
            assert choice == best
            wins = [int(w) for w in rows.evaluate_all("rs => rs.map(r => r.dataset.win)") if w]
            assert wins and all(0 <= w <= 100 for w in wins)
            panel = page.locator("#analysis-panel").inner_text()
            if lang == "ja":
                assert not ENGLISH.findall(panel), ENGLISH.findall(panel)
            else:
                assert "The strong bot would play" in panel
            if SHOTS:
                Path(SHOTS).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(Path(SHOTS) / f"analysis-{lang}.png"), full_page=True)
            # a chance step, once "at every step" is ticked, answers by itself
            page.check("#analysis-auto")
            page.evaluate(goto.replace("{k}", str(chance)))
            page.wait_for_function(f"() => document.body.dataset.analysisStep === '{chance}'")
            assert page.locator("#analysis-body").get_attribute("data-state") == "nothing"
            assert not errors, errors
            page.close()
    finally:
        srv.stop()


def test_the_panel_names_the_strong_level_it_asked_in_three_languages(
        browser: Any, tmp_path: Path) -> None:
    """Against the Current with no budget given to the server: the panel asks the game's
    Strong level (an expectimax, not ISMCTS) and says so under its choice, in English,
    Japanese and Chinese; the bot's choice and the move played are both shown."""
    from fieldcraft.agents import parse_agent_spec

    kind, options = parse_agent_spec(level_spec("against-the-current", "strong"))
    srv = ServerProcess(f"sqlite:///{tmp_path / 'web.db'}").start()
    try:
        base = srv.base
        made = httpx.post(f"{base}/api/tables", json={"game": "against-the-current",
                                                      "players": 2,
                                                      "seats": ["bot"] * 2}).json()
        deadline = time.monotonic() + 90
        while httpx.get(f"{base}/api/tables/{made['id']}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots did not finish"
            time.sleep(0.1)
        tid = made["id"]
        total = httpx.get(f"{base}/api/tables/{tid}").json()["version"]
        step = None
        for k in range(total // 3, total):
            answer = httpx.get(f"{base}/api/tables/{tid}/analysis", params={"step": k},
                               timeout=30).json()
            if answer["nothing"] is None and len(answer["options"]) > 1 \
                    and answer["played"] != answer["choice"]:
                step = k
                break
        assert step is not None, "no decision where the bot and the game differ"
        assert answer["agent"]["kind"] == kind and answer["agent"]["level"] == "strong"
        for lang in ("en", "ja", "zh-Hant"):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("console", lambda m, seen=errors: seen.append(m.text)
                    if m.type == "error" else None)
            page.goto(f"{base}/t/{tid}/replay?lang={lang}")
            page.wait_for_function("() => document.body.dataset.step === '0'")
            page.evaluate(f"""() => {{ const s = document.getElementById('rp-slider');
                s.value = '{step}'; s.dispatchEvent(new Event('input')); }}""")
            page.wait_for_function(f"() => document.body.dataset.step === '{step}'")
            page.click("#analysis-ask")
            page.wait_for_function(f"() => document.body.dataset.analysisStep === '{step}'")
            agent = page.locator("#analysis-agent")
            assert agent.get_attribute("data-kind") == kind
            assert agent.get_attribute("data-level") == "strong"
            assert page.locator("#analysis-panel li[data-played=yes]").count() == 1
            assert page.locator("#analysis-panel li[data-choice=yes]").count() == 1
            text = agent.inner_text()
            if lang == "en" and kind == "expectimax":
                assert text == f"Strong: expectimax, {options['turns']} turns", text
            elif lang == "en":
                assert text.startswith("Strong: "), text
            else:
                assert not ENGLISH.findall(page.locator("#analysis-panel").inner_text())
            shots = Path(SHOTS) if SHOTS else tmp_path
            shots.mkdir(parents=True, exist_ok=True)
            page.locator("#analysis-panel").screenshot(
                path=str(shots / f"analysis-strong-{lang}.png"))
            assert not errors, errors
            page.close()
    finally:
        srv.stop()


def test_a_policy_search_shows_per_option_values_when_its_game_offers_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's bot may offer ``search_values`` beside ``search_choose`` (the value of each
    option for the seat to move); the answer then carries them as each option's chance to
    win. Without it (today's Against the Current) the options have none."""
    import sys

    from fieldcraft.agents.expectimax import search_policy

    state = decision_of("against-the-current", 2, run=1, skip=12)
    module = sys.modules[search_policy(state.game).__module__]
    plain = analyse(state, 7)
    if not hasattr(module, "search_values"):
        assert all(o["win"] is None for o in plain["options"]) and plain["win"] is None
    seen: list[int] = []

    def values(view: Any, rng: random.Random, **options: Any) -> dict[int, float]:
        seen.append(view.seat)
        return {a: 0.1 + 0.01 * i for i, a in enumerate(view.legal_actions())}

    monkeypatch.setattr(module, "search_values", values, raising=False)
    doc = analyse(state, 7)
    legal = state.legal_actions()
    assert seen == [state.current_player()]
    assert {o["action"]: o["win"] for o in doc["options"]} == {
        a: pytest.approx(0.1 + 0.01 * i) for i, a in enumerate(legal)}
    assert doc["choice"] == plain["choice"]  # the values are shown, the move is the bot's


@pytest.mark.parametrize(("game", "players"), [("under-current", 8), ("undercover", 6)])
def test_a_rollout_strong_analyses_and_is_named(game: str, players: int) -> None:
    """At Under Current's eight players and Undercover's five and six, Strong is heuristic
    rollouts (levels.BY_COUNT): the panel asks that bot, and the answer names its kind and
    budget for the page's wording."""
    state = decision_of(game, players, run=2, skip=12)
    spec = level_spec(game, "strong", players)
    assert spec.startswith("rollout(")
    assert analysis_spec(state) == (spec, "strong")
    doc = analyse(state, 3)
    assert doc["agent"]["kind"] == "rollout" and doc["agent"]["spec"] == spec
    assert doc["agent"]["options"]["rollouts"] > 0
    # the page says so when the search guesses hidden roles from the seats' choices
    assert doc["agent"]["options"].get("infer", 0) == (1 if game == "under-current" else 0)
    assert doc["choice"] in state.legal_actions()
