"""Branch tables: "play on from here as seat S" from a step of a finished game's replay.

A branch starts from the original's position at that step resampled for S: what S knew is
kept, everything else re-dealt. The tests check that across many branches S's view is the
original's and the hidden rest is not (and that S's page is sent the same bytes in every one
of them, so nothing it is told depends on a card it could not know), that a branch plays to
its end, survives a restart and replays, that bad requests make nothing, and, in Chromium,
the button on the replay page and the notice on the new table."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from fieldcraft.core.api import State
from fieldcraft.server import create_app
from fieldcraft.server.room import Room
from tests.server.helpers import CHROMIUM, SeatSocket, ServerProcess, chromium_browser

BRANCHES = 30
"""Branches of each original in the knowledge test."""

GAMES = [("under-current", (3, 6), {}), ("spy-tracker", (2, 4), {}), ("undercover", (2, 5), {}),
         ("against-the-current", (2, 4), {})]
"""Each game with two player counts (the original games of the knowledge test)."""


PRIVATE = {"under-current", "spy-tracker"}
"""Games where seats hold secrets of their own (hands, roles); in the other two every secret
(Against the Current's event pile, the faces of Undercover's unflipped Agents) is hidden from all
seats alike, so only the state, not another seat's view, shows the re-deal."""


def finished_table(client: TestClient, game: str, players: int,
                   overrides: dict[str, Any] | None = None) -> Room:
    """A finished all-bot game (random bots, no delay)."""
    res = client.post("/api/tables", json={"game": game, "players": players,
                                           "seats": ["bot:random"] * players,
                                           "overrides": overrides or {}})
    assert res.status_code == 201, res.text
    room = client.app.state.hub.rooms[res.json()["id"]]
    deadline = time.monotonic() + 60
    while room.status != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.01)
    return room


def connect(client: TestClient, table_id: str, token: str | None) -> tuple[Any, SeatSocket]:
    ctx = client.websocket_connect(f"/ws/{table_id}")
    sock = SeatSocket(ctx.__enter__())
    sock.send({"type": "hello", **({"token": token} if token else {})})
    assert sock.recv()["type"] == "sync"
    return ctx, sock


def hidden(state: State) -> dict[str, Any]:
    """A state's fields without its action list (a resample rewrites or drops it)."""
    fields = dict(state.to_dict()["state"])
    fields.pop("actions", None)
    fields.pop("sampled", None)
    return fields


def redacted_sync(raw: str) -> str:
    """A ``sync`` without what differs between two tables by construction (id, join code,
    creation time): what is left is everything the page is told about the game."""
    doc = json.loads(raw)
    for key in ("id", "join_code", "created_at"):
        doc["table"][key] = None
    return json.dumps(doc, sort_keys=True)


def decision_step(room: Room, seat_of: int | None = None, at: float = 1 / 3
                  ) -> tuple[int, int]:
    """A step from ``at`` of the way into the game on where a seat is to move (not chance,
    not the end) and something is still hidden from it (late in Undercover every Agent may
    have been seen), and that seat: a branch there waits for its person, so its first sync
    is stable."""
    history = room.table.history()
    for step in range(int(len(history) * at), len(history)):
        state = room.table.state_at(step)
        player = state.current_player()
        if player >= 0 and (seat_of is None or player == seat_of) and any(
                hidden(state.resample(player, random.Random(i))) != hidden(state)
                for i in range(4)):
            return step, player
    raise AssertionError("no decision point found")


# -- the branch keeps what S knew and nothing else --------------------------------------------
@pytest.mark.no_limits
@pytest.mark.parametrize(("game", "players", "overrides"), GAMES, ids=[g for g, _, _ in GAMES])
def test_a_branch_keeps_the_seats_view_re_deals_the_rest_and_tells_it_nothing_more(
        client: TestClient, game: str, players: tuple[int, int],
        overrides: dict[str, Any]) -> None:
    """Two finished games of the game (two player counts, branched a third and a fifth of the
    way in: Undercover has no secret left in its second half), ``BRANCHES`` branches of
    each."""
    for count, where in zip(players, (1 / 3, 1 / 5), strict=True):
        original = finished_table(client, game, count, overrides)
        step, seat = decision_step(original, at=where)
        check_branches(client, original, step, seat)


def check_branches(client: TestClient, original: Room, step: int, seat: int) -> None:
    game, players = original.game_name, original.players
    real = original.table.state_at(step)
    hub = client.app.state.hub
    syncs: set[str] = set()
    answers: set[str] = set()
    re_dealt = views_re_dealt = 0
    for _ in range(BRANCHES):
        res = client.post(f"/api/tables/{original.id}/branch",
                          json={"step": step, "seat": seat, "bot": "random"})
        assert res.status_code == 201, res.text
        made = res.json()
        branch = hub.rooms[made["id"]]
        start = branch.table.start
        assert start is not None and branch.table.version == 0
        # what S knew is exactly what S knows in the branch...
        assert start.observation(seat) == real.observation(seat)
        # ...and the rest was dealt again (the stored start is that re-deal, not the real one)
        re_dealt += hidden(start) != hidden(real)
        views_re_dealt += any(start.observation(o) != real.observation(o)
                              for o in range(players) if o != seat)
        with hub.engine.connect() as conn:
            text = conn.execute(sa.text("SELECT start_state FROM game_tables WHERE id = :i"),
                                {"i": made["id"]}).scalar()
        assert hidden(branch.table.game.state_from_json(text)) == hidden(start)
        # S's page: the same bytes in every branch, whatever was dealt to the others
        ctx, sock = connect(client, made["id"], made["token"])
        try:
            assert sock.version == 0 and sock.view is not None
            assert sock.view["observation"] == real.observation(seat)
            assert sock.view["choices"], "S is to move at this step"
            syncs.add(redacted_sync(sock.raw[0]))
        finally:
            ctx.__exit__(None, None, None)
        info = dict(made["table"])
        for key in ("id", "join_code", "created_at"):
            info[key] = None
        answers.add(json.dumps(info, sort_keys=True))
        assert info["branch_of"] == original.id and info["branch_step"] == step
        assert info["branch_seat"] == seat and info["public"] is False
        assert not info["seeded"]
    assert re_dealt >= BRANCHES // 3, (game, players, re_dealt)
    if game in PRIVATE:  # another seat's own view (its hand, its role) was re-dealt too
        assert views_re_dealt >= BRANCHES // 3, (game, players, views_re_dealt)
    assert len(syncs) == 1, f"{game}: S's first sync differs between re-deals"
    assert len(answers) == 1


# -- a branch plays, survives a restart and replays -------------------------------------------
def play_seat(sock: SeatSocket, token: str, moves: int | None = None) -> None:
    """Play the first choice at each of this seat's turns: ``moves`` of them, or to the end."""
    played = 0
    while moves is None or played < moves:
        view = sock.my_turn(timeout=20)
        if view["terminal"]:
            return
        sock.send({"type": "act", "token": token, "version": sock.version,
                   "action": view["choices"][0]["action"]})
        answer = sock.until(lambda m: m["type"] in ("ack", "error"))
        assert answer["type"] == "ack", answer
        played += 1
        sock.until_version(answer["version"])


def test_a_branch_plays_to_the_end_survives_a_restart_and_replays(db_url: str) -> None:
    overrides = {"points_to_win": 2}
    with TestClient(create_app(db_url, allowed_hosts=["testserver"],
                               bot_delay=0.0, away_grace=30.0)) as client:
        original = finished_table(client, "spy-tracker", 2, overrides)
        step, seat = decision_step(original, seat_of=1)
        real = original.table.state_at(step)
        made = client.post(f"/api/tables/{original.id}/branch",
                           json={"step": step, "seat": seat, "bot": "heuristic",
                                 "name": "Bea"}).json()
        tid, token = made["id"], made["token"]
        ctx, sock = connect(client, tid, token)
        play_seat(sock, token, moves=1)
        ctx.__exit__(None, None, None)
        room = client.app.state.hub.rooms[tid]
        while room.state.current_player() != seat and not room.state.is_terminal():
            time.sleep(0.01)  # the bot answers
        before, version = room.state.to_json(), room.version
        start = room.table.start.to_json()
        assert room.seats[seat].name == "Bea" and room.seats[1 - seat].bot == "heuristic"
        assert version >= 1
    # a restart: the branch is resumed from its start position and its moves
    with TestClient(create_app(db_url, allowed_hosts=["testserver"],
                               bot_delay=0.0, away_grace=30.0)) as client:
        hub = client.app.state.hub
        room = hub.rooms[tid]
        assert room.status == "playing" and room.version == version
        assert room.state.to_json() == before and room.table.start.to_json() == start
        assert room.table_info()["branch_of"] == original.id
        ctx, sock = connect(client, tid, token)
        assert sock.view["observation"] == room.state.observation(seat)
        play_seat(sock, token)
        ctx.__exit__(None, None, None)
        assert room.status == "finished" and room.state.is_terminal()
        total = room.version
        # its replay counts from the branch's start: step 0 is S's view of the moment
        zero = client.get(f"/api/tables/{tid}/replay?seat={seat}&step=0").json()
        assert zero["steps"] == total and zero["log"] == []
        assert zero["observation"] == real.observation(seat)
        end = client.get(f"/api/tables/{tid}/replay?seat={seat}&step={total}").json()
        assert end["observation"] == room.state.observation(seat)
        assert len(end["log"]) > 0 and end["result"]["winners"] == room.state.winners()
        spectator = client.get(f"/api/tables/{tid}/replay?step=3").json()
        assert spectator["observation"] == room.table.state_at(3).observation(None)
        # the same after it is loaded again from the database (finished: on demand)
        del hub.rooms[tid]
        again = client.get(f"/api/tables/{tid}/replay?seat={seat}&step=0").json()
        assert again["observation"] == zero["observation"] and again["steps"] == total
        # a branch of the branch starts from the branch's own position
        twice = client.post(f"/api/tables/{tid}/branch", json={"step": 1, "seat": 1 - seat})
        assert twice.status_code == 201, twice.text
        second = hub.rooms[twice.json()["id"]]
        assert second.branch_of == tid and second.table.start.observation(1 - seat) == \
            room.table.state_at(1).observation(1 - seat)
        page = client.get(f"/t/{tid}")
        assert 'id="branch-notice"' in page.text
        assert f'href="/t/{original.id}/replay?step={step}&amp;seat={seat}"' in page.text
        assert 'id="branch-notice"' not in client.get(f"/t/{original.id}").text


# -- bad requests ------------------------------------------------------------------------------
def count_tables(client: TestClient) -> int:
    with client.app.state.hub.engine.connect() as conn:
        return conn.execute(sa.text("SELECT COUNT(*) FROM game_tables")).scalar()


def test_bad_branch_requests_get_a_clear_error_and_make_no_table(client: TestClient) -> None:
    original = finished_table(client, "spy-tracker", 2, {"points_to_win": 1})
    steps = original.version
    playing = client.post("/api/tables", json={"game": "spy-tracker", "players": 2,
                                               "seats": ["human", "bot"]}).json()
    hub = client.app.state.hub
    rooms, tables = set(hub.rooms), count_tables(client)
    cases: list[tuple[str, Any, int, str]] = [
        (playing["id"], {"step": 0, "seat": 0}, 409, "table.not_finished"),
        ("no-such-table", {"step": 0, "seat": 0}, 404, "table.no_such_table"),
        (original.id, {"step": -1, "seat": 0}, 400, "request.bad_step"),
        (original.id, {"step": steps + 1, "seat": 0}, 400, "request.bad_step"),
        (original.id, {"step": steps, "seat": 0}, 400, "request.bad_step"),  # the end
        (original.id, {"step": 1, "seat": 2}, 400, "request.bad_seat"),
        (original.id, {"step": 1, "seat": -1}, 400, "request.bad_seat"),
        (original.id, {"step": 1, "seat": 0, "bot": "nobody"}, 400, "request.unknown_bot"),
        (original.id, {"step": "1", "seat": 0}, 400, "request.bad_request"),
        (original.id, {"step": 1, "seat": True}, 400, "request.bad_request"),
        (original.id, {"seat": 0}, 400, "request.bad_request"),
        (original.id, {"step": 1, "seat": 0, "seed": 4}, 400, "request.bad_request"),
        (original.id, {"step": 1, "seat": 0, "name": "x" * 500}, 400, "request.bad_request"),
        (original.id, "[1]", 400, "request.bad_json"),
    ]
    for table_id, body, status, code in cases:
        if isinstance(body, str):
            res = client.post(f"/api/tables/{table_id}/branch", content=body,
                              headers={"content-type": "application/json"})
        else:
            res = client.post(f"/api/tables/{table_id}/branch", json=body)
        assert res.status_code == status, (body, res.text)
        error = res.json()["error"]
        assert error["code"] == code, (body, error)
        assert error["message"]
    assert "0-" in client.post(f"/api/tables/{original.id}/branch",
                               json={"step": steps + 5, "seat": 0}).json()["error"]["message"]
    assert set(hub.rooms) == rooms and count_tables(client) == tables


def test_branches_count_towards_the_creation_rate(client: TestClient) -> None:
    """A branch is a new table: a flood of them meets ``--max-tables-per-minute`` (a burst of
    10 a client, the original's creation included) and the refused one makes nothing."""
    original = finished_table(client, "spy-tracker", 2, {"points_to_win": 1})
    made = [client.post(f"/api/tables/{original.id}/branch", json={"step": 2, "seat": 0})
            for _ in range(9)]
    assert [r.status_code for r in made] == [201] * 9
    rooms = set(client.app.state.hub.rooms)
    refused = client.post(f"/api/tables/{original.id}/branch", json={"step": 2, "seat": 0})
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "limits.rate_limited"
    assert int(refused.headers["retry-after"]) >= 1
    assert set(client.app.state.hub.rooms) == rooms


# -- in the browser ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("branch") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0).start()
    yield srv
    srv.stop()


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed "
                    "(apt-get install chromium)")
def test_the_replay_button_opens_the_branch_as_that_seat(server: ServerProcess) -> None:
    made = httpx.post(f"{server.base}/api/tables", json={
        "game": "under-current", "players": 4, "seats": ["bot:random"] * 4}).json()
    deadline = time.monotonic() + 60
    while httpx.get(f"{server.base}/api/tables/{made['id']}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with chromium_browser() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            page = context.new_page()
            page.set_default_timeout(20_000)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{server.base}{made['url']}/replay?lang=ja")
            page.wait_for_function("() => document.body.dataset.step === '0'")
            # a spectator has no seat to play: the panel says to pick one
            assert page.locator("#branch-play").is_hidden()
            assert "視点" in page.locator("#branch-help").text_content()
            page.select_option("#pov", "2")
            # The seat's own step 0 must be drawn before the slider moves: a slower load of it
            # would set the slider back to 0 under a second input event, and the branch would
            # start from step 0 (it did, once, under load).
            page.wait_for_function("() => document.getElementById('branch-panel')"
                                   "?.dataset.seat === '2'")
            page.evaluate("""() => { const s = document.getElementById('rp-slider');
                s.value = '12'; s.dispatchEvent(new Event('input')); }""")
            page.wait_for_function("() => document.getElementById('branch-panel').dataset.step "
                                   "=== '12' && document.getElementById('branch-panel')"
                                   ".dataset.seat === '2'")
            assert page.locator("#branch-play").text_content() == "3 番席としてここから続ける"
            page.select_option("#branch-bot", "random")
            page.click("#branch-play")
            page.wait_for_url(f"{server.base}/t/*", timeout=20_000)
            page.wait_for_function("() => document.body.dataset.connected === 'yes'")
            notice = page.locator("#branch-notice").text_content()
            assert "12 手目" in notice and "3 番席" in notice
            # the seat line is drawn when the first view arrives, which may follow the socket
            page.wait_for_function("() => document.getElementById('who-am-i').textContent.trim()")
            assert "3 番" in page.text_content("#who-am-i")
            branch_id = page.url.rsplit("/", 1)[1]
            info = httpx.get(f"{server.base}/api/tables/{branch_id}").json()
            assert info["branch_of"] == made["id"] and info["branch_step"] == 12
            assert info["seats"][2]["kind"] == "human" and info["seats"][2]["claimed"]
            assert {s["bot"] for i, s in enumerate(info["seats"]) if i != 2} == {"random"}
            # the link back opens the original's replay at that step and seat
            page.click("#branch-link")
            page.wait_for_function("() => document.body.dataset.step === '12'")
            assert page.evaluate("document.getElementById('pov').value") == "2"
            assert not errors, errors
        finally:
            context.close()
