"""Secrecy: many seeded games through the server, every message to every seat audited.

People at the table are played by random clients over the WebSocket, the other seats by the
server's bots, and a spectator watches. Afterwards the test rebuilds the game itself from the
action list and checks each message a connection received, field by field:

- the view is exactly ``observation(seat)`` at that version, the choices are the legal actions
  (with their names, kinds and args) only when it is that seat's turn, the result appears only
  at the end, and nothing else (no token, no seed, no other seat's view) is in the message;
- the log lines are exactly ``describe_action(action, seat)`` for the versions covered, with
  none missing and none extra;
- and, as a literal check, no card name the seat has never been allowed to see (in any of its
  observations or log lines so far) appears anywhere in the message text.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fieldcraft.core.api import TERMINAL, State
from fieldcraft.core.registry import load_game
from fieldcraft.server import create_app
from fieldcraft.server.limits import LimitSettings
from tests.server.helpers import SeatSocket, create_table

pytestmark = pytest.mark.seeded_tables  # seeded games, so a failure can be replayed

SYNC_KEYS = {"type", "since", "version", "events", "view", "table", "you", "chat"}
UPDATE_KEYS = {"type", "since", "version", "events", "view"}
PRESENCE_KEYS = {"type", "version", "seats", "deadline_in", "banks", "status"}
VIEW_KEYS = {"version", "status", "current_player", "terminal", "observation", "choices",
             "seats", "deadline_in", "banks", "result"}
SEAT_KEYS = {"seat", "kind", "bot", "name", "claimed", "connected", "away", "conceded"}
TABLE_KEYS = {"id", "game", "players", "overrides", "turn_seconds", "clock", "away_bot", "status",
              "version", "seats", "created_at", "seeded", "public", "join_code",
              "branch_of", "branch_step", "branch_seat"}

# (game, players, seats played by people, seed)
CONFIGS: list[tuple[str, int, tuple[int, ...], int]] = []
for _n in range(3, 9):
    CONFIGS.append(("under-current", _n, (0, 2), 100 + _n))
    CONFIGS.append(("under-current", _n, tuple(range(_n)), 200 + _n))
for _n in range(2, 5):
    CONFIGS.append(("spy-tracker", _n, (0,), 300 + _n))
    CONFIGS.append(("spy-tracker", _n, tuple(range(_n)), 400 + _n))
    CONFIGS.append(("spy-tracker", _n, (1,), 500 + _n))
CONFIGS.append(("against-the-current", 3, (0, 1), 600))
CONFIGS.append(("undercover", 3, (0, 2), 700))


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    """conftest's client (seeded tables allowed) without the per-socket message limit: these
    seats answer at machine speed, far faster than a person (the limit has its own tests in
    test_limits.py)."""
    app = create_app(db_url, allowed_hosts=["testserver"],
                     bot_delay=0.0, away_grace=30.0, allow_seeded_tables=True,
                     limits=replace(LimitSettings(), messages_per_second=0))
    with TestClient(app) as c:
        yield c


def plain(doc: Any) -> Any:
    """What a value looks like after a JSON round trip (tuples become lists, keys strings)."""
    return json.loads(json.dumps(doc))


def name_pattern(name: str) -> re.Pattern[str]:
    # "Blue/SPY" must not match inside "Blue/SPY(6+)", nor "Mercenary 1" inside a longer name
    return re.compile(r"(?<![\w/])" + re.escape(name) + r"(?![\w/(])")


def play_through_server(client: TestClient, game: str, players: int, humans: tuple[int, ...],
                        seed: int, on_turn: Callable[[str, dict[int | None, SeatSocket],
                                                      dict[int, str]], None] | None = None,
                        **options: Any) -> tuple[str, dict[int | None, SeatSocket]]:
    """Play one seeded game: people at ``humans`` as random clients, bots elsewhere, and a
    spectator. ``on_turn(table id, sockets, tokens)`` is called whenever a person is to move
    (the table is quiet then: bots and chance wait for that person); ``options`` go into the
    table's creation (``public``, ``turn_seconds``...)."""
    seats = ["human" if s in humans else "bot" for s in range(players)]
    made = create_table(client, game=game, players=players, seats=seats, seed=seed,
                        seat=humans[0], **options)
    tid = made["id"]
    tokens = {humans[0]: made["token"]}
    for s in humans[1:]:
        tokens[s] = client.post(f"/api/tables/{tid}/join", json={"seat": s}).json()["token"]
    contexts = []
    conns: dict[int | None, SeatSocket] = {}
    for s in [*humans, None]:
        ctx = client.websocket_connect(f"/ws/{tid}")
        contexts.append(ctx)
        conns[s] = SeatSocket(ctx.__enter__())
        conns[s].hello(tokens.get(s) if s is not None else None)
    try:
        rng = random.Random(seed)
        spy = conns[None]
        for _ in range(5000):
            while not spy.view["terminal"] and spy.view["current_player"] not in humans:
                spy.recv(30)
            if spy.view["terminal"]:
                break
            if on_turn is not None:
                on_turn(tid, conns, tokens)
            mover = conns[spy.view["current_player"]]
            mover.until_version(spy.version or 0)
            assert mover.view["choices"], "a person's turn must come with choices"
            action = rng.choice(mover.view["choices"])["action"]
            mover.send({"type": "act", "token": tokens[spy.view["current_player"]],
                        "version": mover.version, "action": action})
            reply = mover.until(lambda m: m["type"] in ("ack", "error"))
            assert reply["type"] == "ack", reply
            spy.until_version(reply["version"])
        else:
            raise AssertionError("game did not end")
        final = client.app.state.hub.rooms[tid].version
        for conn in conns.values():
            conn.until_version(final)
    finally:
        for ctx in contexts:
            ctx.__exit__(None, None, None)
    return tid, conns


class Audit:
    """The game rebuilt by the test from the action list, to judge each message against."""

    def __init__(self, game_name: str, players: int, history: list[int]):
        self.game = load_game(game_name, players=players)
        self.history = history
        self.states: list[State] = []
        state = self.game.new_initial_state()
        self.states.append(state.clone())
        for action in history:
            state.apply_action(action)
            self.states.append(state.clone())
        self.names: list[str] = list(getattr(self.game, "card_names", []))
        self._seen: dict[int | None, list[set[str]]] = {}

    def line(self, version: int, seat: int | None) -> str | None:
        return self.states[version - 1].describe_action(self.history[version - 1], seat)

    def event(self, version: int, seat: int | None) -> dict[str, Any] | None:
        return self.states[version - 1].log_event(self.history[version - 1], seat)

    def seen_names(self, seat: int | None, version: int) -> set[str]:
        """Card names this seat was allowed to see at any version up to ``version``."""
        if seat not in self._seen:
            cumulative: list[set[str]] = []
            seen: set[str] = set()
            for v, state in enumerate(self.states):
                text = json.dumps(state.observation(seat))
                if v > 0:
                    text += (self.line(v, seat) or "") + json.dumps(self.event(v, seat))
                if seat is not None and state.current_player() == seat:
                    text += " ".join(state.action_to_string(a) for a in state.legal_actions())
                seen = seen | {n for n in self.names if n in text}
                cumulative.append(seen)
            self._seen[seat] = cumulative
        return self._seen[seat][version]


def check_view(audit: Audit, seat: int | None, humans: tuple[int, ...], view: dict[str, Any],
               version: int) -> None:
    assert set(view) == VIEW_KEYS
    assert view["version"] == version
    state = audit.states[version]
    assert view["observation"] == plain(state.observation(seat))
    player = state.current_player()
    if seat is not None and player == seat and seat in humans and view["status"] == "playing":
        expected = plain(state.choices())
        assert [c["action"] for c in expected] == state.legal_actions()
        assert [c["label"] for c in expected] == [state.action_to_string(a)
                                                  for a in state.legal_actions()]
    else:
        expected = []
    assert view["choices"] == expected
    assert view["current_player"] == (player if player >= 0 else None)
    assert view["terminal"] == (player == TERMINAL)
    if player == TERMINAL:
        assert view["result"] == plain({"winners": state.winners(), "outcome": state.outcome(),
                                        "summary": state.final_summary()})
    else:
        assert view["result"] is None
    for entry in view["seats"]:
        assert set(entry) == SEAT_KEYS


def audit_connection(audit: Audit, seat: int | None, humans: tuple[int, ...],
                     messages: list[dict[str, Any]]) -> int:
    checked = 0
    for msg in messages:
        kind = msg["type"]
        if kind == "presence":
            assert set(msg) == PRESENCE_KEYS
            continue
        if kind in ("ack", "pong"):
            assert set(msg) <= {"type", "id", "version"}
            continue
        assert kind in ("sync", "update"), msg
        assert set(msg) == (SYNC_KEYS if kind == "sync" else UPDATE_KEYS)
        if kind == "sync":
            assert set(msg["table"]) == TABLE_KEYS
            assert msg["table"]["seeded"] is True  # every seat is told its deals are seeded
            # a seat's own part: the rematch (none during play) is told to players only
            assert msg["you"] == (None if seat is None else {"seat": seat, "name": msg["you"][
                "name"], "rematch": None})
        since, version = msg["since"], msg["version"]
        check_view(audit, seat, humans, msg["view"], version)
        got = [(e["version"], e["line"], e["event"]) for e in msg["events"]]
        want = [(v, audit.line(v, seat), plain(audit.event(v, seat)))
                for v in range(since + 1, version + 1)
                if audit.line(v, seat) is not None or audit.event(v, seat) is not None]
        assert got == want
        if audit.names:
            seen = audit.seen_names(seat, version)
            hidden = [n for n in audit.names if n not in seen]
            text = json.dumps(msg, ensure_ascii=False)
            leaked = [n for n in hidden if name_pattern(n).search(text)]
            assert not leaked, f"seat {seat} was sent hidden cards {leaked} at v{version}"
        checked += 1
    return checked


@pytest.mark.parametrize(("game", "players", "humans", "seed"), CONFIGS,
                         ids=[f"{g}-{n}p-{''.join(map(str, h))}-{s}" for g, n, h, s in CONFIGS])
def test_no_message_reveals_more_than_the_seat_may_see(
        client: TestClient, game: str, players: int, humans: tuple[int, ...], seed: int) -> None:
    tid, conns = play_through_server(client, game, players, humans, seed)
    room = client.app.state.hub.rooms[tid]
    assert room.status == "finished"
    audit = Audit(game, players, room.state.history())
    for seat, conn in conns.items():
        checked = audit_connection(audit, seat, humans, conn.messages)
        assert checked >= 2
    # hands really were hidden from each other during play: the seats' views differed
    if game in ("under-current", "spy-tracker") and len(humans) > 1:
        a, b = conns[humans[0]], conns[humans[1]]
        key = "hand" if game == "under-current" else "hand_cards"
        mid_a = [m["view"]["observation"].get(key) for m in a.messages if m["type"] == "update"]
        mid_b = [m["view"]["observation"].get(key) for m in b.messages if m["type"] == "update"]
        assert mid_a != mid_b


def test_name_pattern_is_exact() -> None:
    assert name_pattern("Blue/SPY").search("you draw Blue/SPY")
    assert not name_pattern("Blue/SPY").search("you draw Blue/SPY(6+)")
    assert not name_pattern("Mercenary 1").search("Mercenary 12")
    assert name_pattern("Mercenary 1").search('["Mercenary 1", "x"]')
