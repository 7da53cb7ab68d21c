"""Conceding (issue #34 item 5): a seated person gives up, the table's stand-in bot plays
their seat for the rest of the game (so team and many-player games go on), everyone is told
and the seat list marks the seat; anyone else asking, or asking at the wrong moment, gets a
clear error and changes nothing."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from fieldcraft.server import store
from tests.server.helpers import ROOT, SeatSocket, create_table

pytestmark = pytest.mark.seeded_tables


def wait_for(pred: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def three_seats(client: TestClient) -> tuple[str, str, str, Any]:
    """Spy Tracker for three: two people (seats 0 and 1) and a bot."""
    made = create_table(client, game="spy-tracker", players=3, seats=["human", "human", "bot"],
                        seed=11)
    other = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bo"}).json()
    room = client.app.state.hub.rooms[made["id"]]  # type: ignore[attr-defined]
    return made["id"], made["token"], other["token"], room


def snapshot(room: Any) -> tuple[Any, ...]:
    return room.version, room.status, room.seats.public(), room.state.to_json()


def error_of(sock: SeatSocket, doc: dict[str, Any]) -> str:
    sock.send(doc)
    return str(sock.until(lambda m: m["type"] == "error")["code"])


def test_a_conceding_seat_is_played_by_a_bot_and_everyone_is_told(client: TestClient) -> None:
    tid, t0, t1, room = three_seats(client)
    with client.websocket_connect(f"/ws/{tid}") as w0, \
            client.websocket_connect(f"/ws/{tid}") as w1, \
            client.websocket_connect(f"/ws/{tid}") as w2:
        me, her, watcher = SeatSocket(w0), SeatSocket(w1), SeatSocket(w2)
        me.hello(t0)
        her.hello(t1)
        watcher.hello()
        me.send({"type": "concede", "token": t0, "id": 1})
        for sock in (me, her, watcher):
            told = sock.until(lambda m: m["type"] == "conceded")
            assert told["seat"] == 0 and told["name"] == "Host"
            seen = sock.until(lambda m: m["type"] == "presence")
            assert seen["seats"][0]["conceded"] is True and seen["seats"][0]["kind"] == "human"
            assert seen["seats"][1]["conceded"] is False
        # the game goes on: seat 0's turns are played by the stand-in, seat 1 still plays
        start = room.version
        for _ in range(3):
            view = her.my_turn()
            if view["terminal"]:
                break
            her.send({"type": "act", "token": t1, "version": her.version,
                      "action": view["choices"][0]["action"]})
            her.until(lambda m: m["type"] == "ack")
            her.view = None
        actions = store.read_all_actions(room.hub.engine, tid)
        assert len(actions) > start
        movers = room.table.movers
        assert 0 in movers[start:], "a bot played the conceded seat's turn"
        me.send({"type": "sync", "token": t0})
        assert me.until(lambda m: m["type"] == "sync")["view"]["choices"] == []
        # acting or conceding again is refused and changes nothing (while the table waits
        # for seat 1, so nothing else moves it)
        assert not her.my_turn()["terminal"]
        before = snapshot(room)
        assert error_of(me, {"type": "concede", "token": t0}) == "move.conceded"
        assert error_of(me, {"type": "act", "token": t0, "version": room.version,
                             "action": 0}) == "move.conceded"
        assert snapshot(room) == before
    stored = store.read_table(room.hub.engine, tid)
    assert stored is not None and stored.settings["conceded"] == [0]


def test_refusals_change_nothing(client: TestClient) -> None:
    tid, t0, t1, room = three_seats(client)
    with client.websocket_connect(f"/ws/{tid}") as w0, \
            client.websocket_connect(f"/ws/{tid}") as w2:
        me, watcher = SeatSocket(w0), SeatSocket(w2)
        me.hello(t0)
        watcher.hello()
        before = snapshot(room)
        assert error_of(watcher, {"type": "concede", "token": t0}) == "auth.spectator"
        assert error_of(me, {"type": "concede", "token": t1}) == "auth.bad_token"
        assert error_of(me, {"type": "concede", "token": "not-a-token"}) == "auth.bad_token"
        assert error_of(me, {"type": "concede"}) == "request.bad_message"
        assert error_of(me, {"type": "concede", "token": t0, "why": "x"}) == \
            "request.bad_message"
        assert snapshot(room) == before


def test_a_waiting_or_finished_table_cannot_be_conceded(client: TestClient) -> None:
    waiting = create_table(client, game="spy-tracker", players=2, seats=["human", "human"])
    with client.websocket_connect(f"/ws/{waiting['id']}") as ws:
        me = SeatSocket(ws)
        me.hello(waiting["token"])
        assert error_of(me, {"type": "concede", "token": waiting["token"]}) == \
            "table.not_started"
    # seat 1 concedes, seat 0 left: the stand-in plays both to the end
    made = create_table(client, game="spy-tracker", players=2, seats=["human", "human"], seed=3)
    other = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bo"}).json()
    hub = client.app.state.hub  # type: ignore[attr-defined]
    hub.away_grace = 0.05
    room = hub.rooms[made["id"]]
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        her = SeatSocket(ws)
        her.hello(other["token"])
        her.send({"type": "concede", "token": other["token"]})
        her.until(lambda m: m["type"] == "conceded")
        wait_for(lambda: room.status == "finished")
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        me = SeatSocket(ws)
        me.hello(made["token"])
        before = snapshot(room)
        assert error_of(me, {"type": "concede", "token": made["token"]}) == "table.game_over"
        assert snapshot(room) == before
        assert room.seats[1].conceded and not room.seats[0].conceded


def test_a_concession_survives_a_restart(client: TestClient) -> None:
    tid, t0, _, room = three_seats(client)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        me = SeatSocket(ws)
        me.hello(t0)
        me.send({"type": "concede", "token": t0})
        me.until(lambda m: m["type"] == "conceded")
    hub = client.app.state.hub  # type: ignore[attr-defined]
    row = store.read_table(hub.engine, tid)
    assert row is not None
    from fieldcraft.server.restore import room_from_row

    again = room_from_row(hub, row)
    assert again.seats[0].conceded and again.seats.public()[0]["conceded"] is True
    assert "conceded" not in again.settings  # a rematch, which copies these, starts afresh


def test_the_pages_say_it_in_every_language() -> None:
    for lang in ("en", "ja", "zh-Hant"):
        words = json.loads((ROOT / "fieldcraft" / "server" / "locales" / f"{lang}.json")
                           .read_text(encoding="utf-8"))
        for key in ("table.concede", "table.concede_confirm", "table.conceded_event",
                    "table.conceded_mark", "table.bank", "lobby.clock_bank"):
            assert words.get(key), (lang, key)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_page_counts_the_banks_down_and_concedes_after_a_confirm(browser: Any,
                                                                     tmp_path: Any,
                                                                     lang: str) -> None:
    """The lobby's time bank, the running bank counting down on the page, and Concede: its
    first click only asks, Keep playing takes it back, Yes concedes and the seat is marked. In
    English and Japanese, with no console error or CSP violation (issue 34, item 9)."""
    from tests.server.helpers import ServerProcess
    from tests.server.test_browser_csp import RECORD_VIOLATIONS

    srv = ServerProcess(f"sqlite:///{tmp_path / 'web.db'}", bot_delay=0.05).start()
    try:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        context.add_init_script(RECORD_VIOLATIONS)
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{srv.base}/?lang={lang}")
        page.select_option("#game-select", "spy-tracker")
        page.select_option("#players-select", "3")
        for seat in (1, 2):
            page.select_option(f"select[data-seat='{seat}']", "bot:random")
        page.select_option("#clock-kind", "bank")
        page.fill("#bank-input", "2")
        page.fill("#increment-input", "7")
        page.fill("#name-input", "Ann")
        page.click("#create-button")
        page.wait_for_url("**/t/*")
        table_id = page.url.rsplit("/", 1)[1]
        info = httpx.get(f"{srv.base}/api/tables/{table_id}").json()
        assert info["clock"] == {"bank": 120, "increment": 7}
        mine = "#seats .seat-bank[data-seat='0']"
        page.wait_for_selector(mine + ".running")
        first = int(page.get_attribute(mine, "data-left") or 0)
        assert 100 < first <= 120
        page.wait_for_function(  # counted down by the page, between the server's updates
            f"() => Number(document.querySelector(\"{mine}\").dataset.left) < {first}")
        assert page.locator("#seats .seat-bank").count() == 1  # bots have no bank to show
        page.click("#concede-button")
        assert page.locator("#concede-question").is_visible()
        page.click("#concede-cancel")
        assert page.locator("#concede-question").count() == 0
        assert page.locator("#seats .mark.conceded").count() == 0
        page.click("#concede-button")
        page.click("#concede-yes")
        page.wait_for_selector("#seats li[data-seat='0'] .mark.conceded")
        page.wait_for_selector("#log .log-line.conceded")
        page.wait_for_selector("#conceded-you")
        assert page.locator("#choices-panel").is_hidden()
        assert errors == [] and page.evaluate("window.__csp || []") == []
        context.close()
    finally:
        srv.stop()
