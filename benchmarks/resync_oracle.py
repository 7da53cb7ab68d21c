"""The resync oracle of issue 31, replayed: how much of the hidden game a seat rebuilds by asking.

A seated player reconnects with ``pending_version``/``pending_action`` ("did my move at version
v land?"). The old answer said ``landed: true`` whenever the action that made version v + 1 was
the one asked about, whoever had played it, so a seat that asked about every action at every
past version (chance outcomes included) learnt the whole history: the deal, the other seats'
hands and hidden moves. The answer now covers only versions at which the asking seat moved.

For each game this plays a table through the server in this process (seat 0 a random client,
bots elsewhere), stops mid-game, and has seat 0 ask the question for every past version and
every action legal there, over its WebSocket, first with the old answer, then with the new one.
It prints, per game, how many actions of the history the answers pin down, split into seat 0's
own moves (which it knows anyway) and everyone else's moves and chance draws (which it must not
learn)::

    .venv/bin/python benchmarks/resync_oracle.py [--games 4] [--moves 12]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

warnings.filterwarnings("ignore")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastapi.testclient import TestClient  # noqa: E402

from fieldcraft.server import create_app  # noqa: E402
from fieldcraft.server.limits import LimitSettings  # noqa: E402
from fieldcraft.server.room import Room  # noqa: E402

GAMES = {"under-current": 4, "spy-tracker": 3, "against-the-current": 2, "undercover": 3}


def old_pending_answer(self: Room, seat: int | None, version: int, action: int | None
                       ) -> dict[str, Any]:
    """The answer before issue 31: any version, whoever moved there."""
    history = self.table.history()
    landed = False
    if seat is not None and 0 <= version < len(history):
        landed = action is None or history[version] == action
    return {"version": version, "action": action, "landed": landed}


def attack(client: TestClient, game: str, players: int, moves: int, seed: int
           ) -> dict[str, Any]:
    """Play seat 0 for ``moves`` of its own moves, then ask about every action everywhere."""
    rng = random.Random(seed)
    made = client.post("/api/tables", json={
        "game": game, "players": players, "seats": ["human"] + ["bot"] * (players - 1),
        "bot": "random"}).json()
    if "id" not in made:
        raise RuntimeError(f"could not create a table: {made}")
    tid, token = made["id"], made["token"]
    room = client.app.state.hub.rooms[tid]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "hello", "token": token})
        view: dict[str, Any] = {}
        played = 0
        while played < moves:
            msg = ws.receive_json()
            if msg["type"] in ("sync", "update"):
                view = msg["view"]
            if view.get("terminal"):
                break
            if view.get("choices") and view["version"] == room.version:
                action = rng.choice(view["choices"])["action"]
                ws.send_json({"type": "act", "token": token, "version": view["version"],
                              "action": action})
                view = {}
                played += 1
        while not view.get("terminal") and not (view.get("choices")
                                                and view["version"] == room.version):
            msg = ws.receive_json()  # let the bots play on to seat 0's turn: a quiet table
            if msg["type"] in ("sync", "update"):
                view = msg["view"]
        history, movers = room.table.history(), list(room.table.movers)
        replay = room.table.game.new_initial_state()
        legal_at = []
        for action in history:
            state_legal = set(replay.legal_actions())
            legal_at.append(sorted(state_legal))
            replay.apply_action(action)
        learnt: dict[int, int] = {}
        asked = 0
        for version, legal in enumerate(legal_at):
            for action in legal:
                ws.send_json({"type": "sync", "token": token, "last_version": room.version,
                              "pending_version": version, "pending_action": action})
                asked += 1
                while True:
                    msg = ws.receive_json()
                    if msg["type"] == "sync":
                        break
                if msg["pending"]["landed"]:
                    learnt[version] = action
    own = [v for v, m in enumerate(movers) if m == 0]
    hidden = [v for v, m in enumerate(movers) if m != 0]
    return {"game": game, "players": players, "versions": len(history), "asked": asked,
            "own": len(own), "own_learnt": sum(learnt.get(v) == history[v] for v in own),
            "hidden": len(hidden),
            "hidden_learnt": sum(learnt.get(v) == history[v] for v in hidden)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=12, help="seat 0's moves before asking")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"{'game':<26}{'answer':<6}{'asked':>7}{'own moves learnt':>20}"
          f"{'others/chance learnt':>24}")
    for label, patch in (("old", True), ("new", False)):
        real = Room.pending_answer
        if patch:
            Room.pending_answer = old_pending_answer  # type: ignore[method-assign]
        try:
            db = Path(tempfile.mkdtemp()) / "oracle.db"
            app = create_app(f"sqlite:///{db}", bot_delay=0.0, allowed_hosts=["testserver"],
                             limits=LimitSettings.unlimited())
            with TestClient(app) as client:
                for game, players in GAMES.items():
                    r = attack(client, game, players, args.moves, args.seed)
                    print(f"{game + f' {players}p':<26}{label:<6}{r['asked']:>7}"
                          f"{r['own_learnt']:>12} of {r['own']:<5}"
                          f"{r['hidden_learnt']:>14} of {r['hidden']:<5}")
        finally:
            Room.pending_answer = real  # type: ignore[method-assign]
    return 0


if __name__ == "__main__":
    sys.exit(main())
