"""A fifth game by copying one folder: nothing outside the copy is edited.

The Spy Tracker folder is copied to a new package in a temporary directory named in
``FIELDCRAFT_GAMES_PATH``, and only its declaration's id and title are changed. The copy must be
listed by ``fieldcraft list``, pass the conformance suite at every player count and test
configuration, play a terminal game, and play a web table with its heuristic bot and its own
board (the browser half is in ``tests/server/test_browser.py``). Each check runs in a fresh
process, as a newcomer's would, so the registry of this test process is left as it was.

Compiled too: a second copy's hot modules (its ``GameSpec.hot``) are compiled in place
(``build.compile_game_folder``); on a compiled install they load as extension modules built
from the copy, whose types are the copy's own (its ``.pxd`` files cimport each other
relatively), and it passes the conformance suite and a search; under ``FIELDCRAFT_PURE=1`` its
``.py`` files run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fieldcraft.games.spy_tracker
from fieldcraft.build import (
    active_build,
    compile_game_folder,
    declared_hot,
    pure_requested,
    why_not_compile,
)

ROOT = Path(__file__).resolve().parents[1]
NEW_ID = "double-agents"
NEW_PACKAGE = "double_agents"


def copy_game(base: Path) -> Path:
    """Copy the Spy Tracker folder as a new game; returns the folder to put on the games path.
    Only two values in the copy's ``__init__.py`` change, nothing else anywhere."""
    source = Path(fieldcraft.games.spy_tracker.__file__).parent
    games = base / "games"
    target = games / NEW_PACKAGE
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    init = target / "__init__.py"
    text = init.read_text()
    assert text.count('id="spy-tracker"') == 1 and text.count('title="Spy Tracker"') == 1
    init.write_text(text.replace('id="spy-tracker"', f'id="{NEW_ID}"')
                    .replace('title="Spy Tracker"', 'title="Double Agents"'))
    return games


def run(games: Path, *argv: str, stdin: str | None = None, timeout: float = 600
        ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FIELDCRAFT_GAMES_PATH": str(games), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *argv], input=stdin, capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_game(tmp_path_factory.mktemp("fifth"))


def test_the_copy_is_listed(games: Path) -> None:
    out = run(games, "-m", "fieldcraft.cli", "list")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith(f"{NEW_ID}  (2-4 players)  Double Agents") for line in lines)
    assert any(line.startswith("spy-tracker") for line in lines)  # the original is still there


def test_the_copy_passes_the_conformance_suite(games: Path) -> None:
    script = textwrap.dedent(f"""
        from fieldcraft.core.conformance import check_game, configurations
        from fieldcraft.core.registry import load_game
        configs = configurations({NEW_ID!r})
        for players, overrides in configs:
            game = load_game({NEW_ID!r}, players=players, **overrides)
            assert game.name == {NEW_ID!r} and type(game).__module__.startswith(
                "fieldcraft.games.{NEW_PACKAGE}.")
            check_game(game)
        print("checked", len(configs))
    """)
    out = run(games, "-c", script)
    assert out.returncode == 0, out.stderr[-3000:]
    # 3 player counts x (3 test configurations + the named variant "tiny")
    assert out.stdout.split() == ["checked", "12"]


def test_the_copy_plays_a_terminal_game(games: Path) -> None:
    # Seat 0 is the person and always picks choice 1; the heuristic bot plays seat 1.
    out = run(games, "-m", "fieldcraft.cli", "play", NEW_ID, "--players", "2", "--bots",
              "heuristic", "--seed", "3", stdin="1\n" * 3000)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Double Agents - Round 1" in out.stdout  # the copied terminal picture, its own title
    assert "game over" in out.stdout and "Result" in out.stdout


def test_the_copy_plays_a_web_table_with_its_bot_and_board(games: Path) -> None:
    """Through the real app: the lobby lists it, its table page loads its own board and
    words, a person and its heuristic bot play it to the end over the WebSocket."""
    script = textwrap.dedent(f"""
        import json, random, warnings
        warnings.filterwarnings("ignore")
        from fastapi.testclient import TestClient
        from fieldcraft.server import create_app
        from tests.server.helpers import SeatSocket

        app = create_app("sqlite:///{games}/web.db", allowed_hosts=["testserver"],
                         bot_delay=0.0, away_grace=30.0,
                         allow_seeded_tables=True)  # its table is seeded
        with TestClient(app) as client:
            listed = [g["id"] for g in client.get("/api/games").json()["games"]]
            assert {NEW_ID!r} in listed, listed
            made = client.post("/api/tables", json={{"game": {NEW_ID!r}, "players": 2,
                               "seats": ["human", "bot:heuristic"], "seed": 4}}).json()
            page = client.get(made["url"]).text
            assert 'src="/games/{NEW_ID}/board.js"' in page
            assert 'href="/games/{NEW_ID}/board.css"' in page
            board = client.get("/games/{NEW_ID}/board.js")
            assert board.status_code == 200 and "Boards.register" in board.text
            assert client.get("/games/{NEW_ID}/rules.py").status_code == 404
            with client.websocket_connect("/ws/" + made["id"]) as ws:
                seat = SeatSocket(ws)
                seat.hello(made["token"])
                rng = random.Random(1)
                moves = 0
                while True:
                    view = seat.my_turn(timeout=30)
                    if view["terminal"]:
                        break
                    choice = rng.choice(view["choices"])
                    seat.send({{"type": "act", "token": made["token"],
                               "version": seat.version, "action": choice["action"]}})
                    seat.until(lambda m: m["type"] in ("ack", "error"))
                    moves += 1
            room = client.app.state.hub.rooms[made["id"]]
            assert room.status == "finished" and room.game_name == {NEW_ID!r}
            print(json.dumps({{"moves": moves, "winners": room.result["winners"]}}))
    """)
    out = run(games, "-c", script)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["moves"] > 0 and len(result["winners"]) == 1


def test_the_copy_compiles_to_its_own_extension_modules(tmp_path: Path) -> None:
    why = why_not_compile() if not pure_requested() else None
    if why:
        pytest.skip(f"cannot compile here: {why}")
    games = copy_game(tmp_path)
    folder = games / NEW_PACKAGE
    hot = list(declared_hot(folder / "__init__.py"))  # the copy's own GameSpec.hot
    assert {"game", "rules", "search"} <= set(hot)
    if not pure_requested():
        compiled = compile_game_folder(folder)
        assert compiled == [f"fieldcraft.games.{NEW_PACKAGE}.{m}" for m in hot]
    script = textwrap.dedent(f"""
        import importlib, json, random
        from fieldcraft.agents import View
        from fieldcraft.agents.ismcts import ISMCTSAgent
        from fieldcraft.core.conformance import check_game
        from fieldcraft.core.registry import load_game
        import fieldcraft.games.spy_tracker.rules as original
        for players in (2, 3, 4):  # (the registry puts the games path on the package's)
            check_game(load_game({NEW_ID!r}, players=players))
        modules = {{m: importlib.import_module("fieldcraft.games.{NEW_PACKAGE}." + m)
                   for m in {hot!r}}}
        game = load_game({NEW_ID!r}, players=3)
        state = game.new_initial_state()
        rng = random.Random(1)
        while state.is_chance_node():
            state.play_chance(rng)
        ISMCTSAgent(iterations=100, seed=0).search(View(state, state.current_player()))
        print(json.dumps({{"files": {{m: x.__file__ for m, x in modules.items()}},
                          "own_type": modules["rules"].SpyTrackerState is not
                          original.SpyTrackerState,
                          "state_type": type(state) is modules["rules"].SpyTrackerState}}))
    """)
    out = run(games, "-c", script)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["own_type"] and result["state_type"]
    compiled_core = active_build(loaded=False)["build"] == "compiled"
    for name, file in result["files"].items():
        assert Path(file).parent == folder, (name, file)
        assert file.endswith(".py") != (compiled_core and not pure_requested()), (name, file)
