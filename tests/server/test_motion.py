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


# -- a token travels the river (Against the Current) ----------------------------------------------
ATC = {"game": "against-the-current", "players": 3, "seed": 5, "name": "Ann",
       "seats": ["human", "bot:random", "bot:random"]}
TOKENS_AT = """() => Object.fromEntries(
  [...document.querySelectorAll('#board .atc-token[data-motion]')]
    .map(n => [n.dataset.motion, Number(n.dataset.motionAt.split(':')[1])]))"""
TOKEN_RUNNING = """() => [...document.querySelectorAll('#board .atc-token')]
    .some(n => n.getAnimations().some(a => a.id === 'fc-motion'))"""
# Each token running the table's animation: the space it was on (from `before`), the one it is on,
# its keyframes' count, and how far (px) each in-between keyframe puts the token's centre from the
# centre of the space it should pass, in the river's order (the animation is cancelled to measure
# where the token rests).
TRAVELS = """(before) => [...document.querySelectorAll('#board .atc-token[data-motion]')]
.flatMap(n => {
  const a = n.getAnimations().find(x => x.id === 'fc-motion');
  if (!a) return [];
  const was = before[n.dataset.motion], now = Number(n.dataset.motionAt.split(':')[1]);
  const frames = a.effect.getKeyframes();
  a.cancel();
  const r = n.getBoundingClientRect(), cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  const step = Math.sign(now - was);
  const off = frames.slice(1, -1).map((f, i) => {
    const m = /translate\\(([-\\d.e]+)px, ([-\\d.e]+)px\\)/.exec(f.transform);
    const s = document.querySelector(`#board .atc-space[data-space="${was + step * (i + 1)}"]`);
    if (!m || !s) return Infinity;
    const q = s.getBoundingClientRect();
    return Math.hypot(cx + Number(m[1]) - (q.left + q.width / 2),
                      cy + Number(m[2]) - (q.top + q.height / 2));
  });
  return [{key: n.dataset.motion, was, now, frames: frames.length, off}];
})"""


@BROWSER
@pytest.mark.parametrize("size", ["phone", "wide"])
def test_a_token_travels_the_river_through_the_spaces_it_passes(
        browser: Any, server: ServerProcess, size: str) -> None:
    """A token moved more than one space runs keyframes through the centre of every space in
    between, in order (more than two keyframes); a move of one space is a plain slide."""
    with table_page(browser, size) as tp:
        open_table(tp, server, ATC)
        tp.page.evaluate(LONG_MOTION)
        rng = random.Random(3)
        found = []
        for _ in range(30):
            if not wait_for_turn(tp):
                break
            before = tp.page.evaluate(TOKENS_AT)
            random_move(tp, rng)
            try:
                tp.page.wait_for_function(TOKEN_RUNNING, timeout=1500)
            except Exception:  # no token moved (an animal picked, a die face chosen)
                continue
            travels = tp.page.evaluate(TRAVELS, before)
            found += [t for t in travels if abs(t["now"] - t["was"]) >= 2
                      and t["frames"] == abs(t["now"] - t["was"]) + 1]
            if found:
                break
        assert found, "no token moved more than one space within 30 moves"
        travel = found[0]
        assert travel["frames"] > 2
        assert all(d < 2 for d in travel["off"]), travel
        tp.check_clean()


@BROWSER
def test_a_token_does_not_travel_under_reduced_motion(browser: Any,
                                                     server: ServerProcess) -> None:
    with table_page(browser, "wide", reduced_motion="reduce") as tp:
        open_table(tp, server, ATC)
        tp.page.evaluate(LONG_MOTION)
        rng = random.Random(3)
        far = 0
        for _ in range(30):
            if not wait_for_turn(tp):
                break
            before = tp.page.evaluate(TOKENS_AT)
            random_move(tp, rng)
            tp.page.wait_for_timeout(150)
            after = tp.page.evaluate(TOKENS_AT)
            far += sum(1 for k, v in after.items() if k in before and abs(v - before[k]) >= 2)
            assert tp.page.evaluate(RUNNING) == 0
            if far:
                break
        assert far, "no token moved more than one space within 30 moves"
        assert tp.page.evaluate("document.body.dataset.motions") is None
        tp.check_clean()
