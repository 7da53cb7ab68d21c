"""Moves animate on the table, and nothing moves for a person who asks for less motion (issue 34,
item 3); the bots' pace is the server's setting.

Every game from a seed, the person at seat 0 against random bots, at 390x844 (touch) and
1280x800: within the first moves some board element (a passed card sliding into the middle, a
token travelling the river, a bid appearing, a tile landing) runs a Web Animation of the
table's own (``id`` is ``fc-motion``); its length is the CSS variable ``--fc-motion-ms``, which
the test sets long so the animation is still running when it looks. Under
``prefers-reduced-motion: reduce`` the same moves start none (Under Current). The bot delay:
bots' moves on a table without people come no faster than the server's ``bot_delay``.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.helpers import CHROMIUM, SeatSocket, ServerProcess, create_table
from tests.server.table_pages import TablePage, open_table, random_move, table_page, wait_for_turn

warnings.filterwarnings("ignore", message=".*httpx2.*")

BROWSER = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed "
                             "(apt-get install chromium)")
MOVES = 8
"""The person's moves looked at; each seeded game moves something within them."""
LONG_MOTION = "() => document.documentElement.style.setProperty('--fc-motion-ms', '4000')"
RUNNING = """() => document.getAnimations().filter(a => a.id === 'fc-motion'
    && a.effect && a.effect.target && a.effect.target.closest('#board')).length"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("motion") / "web.db"
    srv = ServerProcess(f"sqlite:///{db}", bot_delay=0.0, allow_seeded_tables=True,
                        args=["--no-limits"]).start()
    yield srv
    srv.stop()


def uc_table(tp: TablePage, server: ServerProcess) -> None:
    open_table(tp, server, {"game": "under-current", "players": 3, "seed": 5, "name": "Ann",
                            "seats": ["human", "bot:random", "bot:random"]})
    tp.page.wait_for_selector("#my-role")


GAMES = {"under-current": 3, "against-the-current": 3, "spy-tracker": 3, "undercover": 2}
"""Each game at a small player count: a card slides (Under Current), a token travels the river
or the die turns (Against the Current), a bid appears (Spy Tracker), a tile lands (Undercover)."""


@BROWSER
@pytest.mark.parametrize("size", ["phone", "wide"])
@pytest.mark.parametrize("game", list(GAMES))
def test_a_move_animates(browser: Any, server: ServerProcess, size: str, game: str) -> None:
    with table_page(browser, size) as tp:
        players = GAMES[game]
        open_table(tp, server, {"game": game, "players": players, "seed": 5, "name": "Ann",
                                "seats": ["human"] + ["bot:random"] * (players - 1)})
        # the animation's length is the page's CSS variable: long, so it is seen running
        tp.page.evaluate(LONG_MOTION)
        rng = random.Random(3)
        seen = 0
        for _ in range(MOVES):
            if not wait_for_turn(tp):
                break
            random_move(tp, rng)
            try:
                tp.page.wait_for_function(RUNNING, timeout=1500)
            except Exception:  # this move moved nothing that has a key (a seat named, say)
                continue
            seen = tp.page.evaluate(RUNNING)
            break
        assert seen > 0, "no board element was animated after a move"
        assert int(tp.page.evaluate("document.body.dataset.motions || '0'")) >= seen
        tp.check_clean()


@BROWSER
@pytest.mark.parametrize("size", ["phone", "wide"])
def test_nothing_moves_under_reduced_motion(browser: Any, server: ServerProcess,
                                            size: str) -> None:
    with table_page(browser, size, reduced_motion="reduce") as tp:
        uc_table(tp, server)
        tp.page.evaluate(LONG_MOTION)
        assert tp.page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
        rng = random.Random(3)
        moves = 0
        for _ in range(MOVES):
            if not wait_for_turn(tp):
                break
            random_move(tp, rng)
            moves += 1
            tp.page.wait_for_timeout(150)
            assert tp.page.evaluate(RUNNING) == 0
        assert moves >= 3
        assert tp.page.evaluate("document.body.dataset.motions") is None
        tp.check_clean()


def test_bots_keep_the_servers_pace(tmp_path: Path) -> None:
    """A table of bots only, watched: its moves come at least ``bot_delay`` apart."""
    from fastapi.testclient import TestClient

    from fieldcraft.server import create_app

    delay = 0.25
    app = create_app(f"sqlite:///{tmp_path / 'pace.db'}", allowed_hosts=["testserver"],
                     bot_delay=delay, away_grace=30.0)
    with TestClient(app) as client:
        made = create_table(client, game="spy-tracker", players=3,
                            seats=["bot:random", "bot:random", "bot:random"])
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            seat = SeatSocket(ws)
            seat.hello()
            arrivals: list[float] = []
            deadline = time.monotonic() + 2.5
            while time.monotonic() < deadline and len(arrivals) < 6:
                doc = seat.recv(timeout=5.0)
                if doc["type"] == "update" and any(
                        e.get("event") and isinstance(e["event"].get("params", {}).get("seat"), int)
                        for e in doc["events"]):
                    arrivals.append(time.monotonic())
    assert len(arrivals) >= 3, arrivals
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert min(gaps) >= delay * 0.8, gaps
