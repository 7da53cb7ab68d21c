"""A real server process killed with SIGKILL mid-game loses no acknowledged action."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from fieldcraft.core.registry import load_game
from tests.server.helpers import ServerProcess


class Player:
    """A seat over a real WebSocket: remembers every action it got acknowledged."""

    def __init__(self, server: ServerProcess, table: str, token: str,
                 last_version: int | None = None):
        self.token = token
        self._cm = connect(f"{server.ws_base}/ws/{table}", open_timeout=10)
        self.ws: ClientConnection = self._cm.__enter__()
        hello: dict[str, Any] = {"type": "hello", "token": token}
        if last_version is not None:
            hello["last_version"] = last_version
        self.ws.send(json.dumps(hello))
        self.first = self.recv()
        assert self.first["type"] == "sync", self.first
        self.view = self.first["view"]
        self.version = self.first["version"]
        self.acked: list[tuple[int, int]] = []  # (version, action)

    def recv(self, timeout: float = 15.0) -> dict[str, Any]:
        doc = json.loads(self.ws.recv(timeout=timeout))
        if doc["type"] in ("sync", "update"):
            self.view = doc["view"]
            self.version = doc["version"]
        return doc

    def act(self, rng: random.Random, wait: bool = True) -> int:
        action = rng.choice(self.view["choices"])["action"]
        self.ws.send(json.dumps({"type": "act", "token": self.token, "version": self.version,
                                 "action": action}))
        if wait:
            while True:
                doc = self.recv()
                if doc["type"] == "ack":
                    self.acked.append((doc["version"], action))
                    break
                assert doc["type"] != "error", doc
            while self.version < self.acked[-1][0]:
                self.recv()
        return action

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


class EndedEarly(Exception):
    """The game (dealt by the server's SystemRandom) ended before the test was done with it."""


def next_mover(players: dict[int, Player]) -> Player:
    """The seat whose turn it is, reading updates (every seat gets each one) until there is
    one."""
    while True:
        for p in players.values():
            if p.view["choices"]:
                return p
            if p.view["terminal"]:
                raise EndedEarly
        for p in players.values():
            p.recv()


def stored_actions(db_file: Path, table: str) -> list[int]:
    with sqlite3.connect(db_file) as conn:
        rows = conn.execute("SELECT seq, action FROM actions WHERE table_id = ? ORDER BY seq",
                            (table,)).fetchall()
    assert [seq for seq, _ in rows] == list(range(1, len(rows) + 1)), "gap in the action log"
    return [a for _, a in rows]


def open_table(base: str, server: ServerProcess) -> tuple[str, dict[int, str],
                                                          dict[int, Player]]:
    """A 3-person Under Current table with every seat connected."""
    made = httpx.post(f"{base}/api/tables", json={
        "game": "under-current", "players": 3, "seats": ["human", "human", "human"],
        "name": "A"}).json()
    tid = made["id"]
    tokens = {0: made["token"]}
    for seat in (1, 2):
        tokens[seat] = httpx.post(f"{base}/api/tables/{tid}/join",
                                  json={"seat": seat}).json()["token"]
    return tid, tokens, {s: Player(server, tid, tok) for s, tok in tokens.items()}


def test_kill_9_loses_no_acknowledged_action(tmp_path: Path) -> None:
    db_file = tmp_path / "durable.db"
    url = f"sqlite:///{db_file}"
    server = ServerProcess(url).start()
    try:
        base = server.base
        bots = httpx.post(f"{base}/api/tables", json={
            "game": "spy-tracker", "players": 3, "seats": ["bot", "bot", "bot"]}).json()
        rng = random.Random(5)
        for _attempt in range(5):  # a deal that ends the game within 13 moves is set aside
            tid, tokens, players = open_table(base, server)
            try:
                for _ in range(12):
                    next_mover(players).act(rng)
                    for p in players.values():  # everyone catches up before the next move
                        while p.version < max(q.version for q in players.values()):
                            p.recv()
                next_mover(players)
                break
            except EndedEarly:
                for p in players.values():
                    p.close()
        else:
            raise AssertionError("five games in a row ended within 13 moves")
        acked = sorted(a for p in players.values() for a in p.acked)
        assert len(acked) >= 10
        # one more action in flight, then SIGKILL without waiting for its answer
        next_mover(players).act(rng, wait=False)
        server.kill9()
        for p in players.values():
            p.close()

        log = stored_actions(db_file, tid)
        for version, action in acked:
            assert log[version - 1] == action, f"acknowledged action {version} lost"

        server = ServerProcess(url, port=server.port).start()
        info = httpx.get(f"{server.base}/api/tables/{tid}").json()
        assert info["status"] == "playing"
        assert info["version"] >= acked[-1][0]
        last = acked[-1][0]
        again = {s: Player(server, tid, tok, last_version=last) for s, tok in tokens.items()}
        for p in again.values():
            assert p.first["since"] == last  # only what was missed after the last ack
        state = load_game("under-current", players=3).replay(stored_actions(db_file, tid))
        for seat, p in again.items():
            assert p.version == len(state.history())
            assert p.view["observation"] == state.observation(seat)
        # the game goes on: the seat to move can act and gets acknowledged
        mover = next_mover(again)
        before = mover.version
        mover.act(rng)
        assert mover.acked[-1][0] == before + 1
        for p in again.values():
            p.close()
        # the all-bot table was resumed too and plays on to the end
        deadline = time.monotonic() + 60
        while httpx.get(f"{server.base}/api/tables/{bots['id']}").json()["status"] != \
                "finished":
            assert time.monotonic() < deadline, "bot table did not resume"
            time.sleep(0.2)
    finally:
        server.stop()
