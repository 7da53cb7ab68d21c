"""Helpers for the web table tests: WebSocket seats with timeouts, a real server process."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx

ROOT = Path(__file__).resolve().parents[2]


def create_table(client: Any, **body: Any) -> dict[str, Any]:
    res = client.post("/api/tables", json=body)
    assert res.status_code == 201, res.text
    return res.json()


class SeatSocket:
    """One WebSocket connection with a receive timeout and the latest view it was sent."""

    def __init__(self, ws: Any):
        self.ws = ws
        self.version: int | None = None
        self.view: dict[str, Any] | None = None
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []  # every message as it arrived, byte for byte
        self.log: list[dict[str, Any]] = []

    def send(self, doc: dict[str, Any] | str) -> None:
        if isinstance(doc, str):
            self.ws.send_text(doc)
        else:
            self.ws.send_json(doc)

    def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        ws = self.ws

        async def get() -> Any:
            with anyio.fail_after(timeout):
                return await ws._send_rx.receive()

        message = ws.portal.call(get)
        ws._raise_on_close(message)
        self.raw.append(message["text"])
        doc = json.loads(message["text"])
        self.messages.append(doc)
        if doc["type"] in ("sync", "update"):
            if doc["type"] == "sync" and doc["since"] == 0:
                self.log = []
            self.log.extend(doc["events"])
            self.version = doc["version"]
            self.view = doc["view"]
        return doc

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0
              ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timed out waiting for a message")
            doc = self.recv(left)
            if pred(doc):
                return doc

    def until_version(self, version: int, timeout: float = 10.0) -> None:
        while self.version is None or self.version < version:
            self.recv(timeout)

    def my_turn(self, timeout: float = 10.0) -> dict[str, Any]:
        """Read until this seat has choices (its turn) or the game is over; returns the view."""
        while self.view is None or not (self.view["choices"] or self.view["terminal"]):
            self.recv(timeout)
        return self.view

    def hello(self, token: str | None = None, last_version: int | None = None
              ) -> dict[str, Any]:
        doc: dict[str, Any] = {"type": "hello"}
        if token is not None:
            doc["token"] = token
        if last_version is not None:
            doc["last_version"] = last_version
        self.send(doc)
        return self.recv()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A real ``python -m fieldcraft.server`` on 127.0.0.1 (killed with SIGKILL by tests)."""

    def __init__(self, db_url: str, port: int | None = None, bot_delay: float = 0.0,
                 allow_seeded_tables: bool = False, args: list[str] | None = None):
        self.db_url = db_url
        self.port = port or free_port()
        self.bot_delay = bot_delay
        self.allow_seeded_tables = allow_seeded_tables
        self.args = list(args or [])  # more command-line options, e.g. --allowed-origin
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fieldcraft.server", "--host", "127.0.0.1", "--port",
             str(self.port), "--db", self.db_url, "--bot-delay", str(self.bot_delay),
             *(["--allow-seeded-tables"] if self.allow_seeded_tables else []), *self.args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read().decode() if self.proc.stdout else ""
                raise RuntimeError(f"server exited early: {out}")
            try:
                if httpx.get(self.base + "/healthz", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not start in time")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()


OPEN_FOLDS = ("() => document.querySelectorAll('#choices details.choice-fold')"
              ".forEach(d => { d.open = true; })")
"""Opens every folded group of choices (boards.js folds a group of more than 8 in a list of more
than 14, as Spy Tracker's opening bids, into a <details>), so a test that plays random choices
from the list finds each one visible; the page keeps a fold open across redraws."""


def open_choice_folds(page: Any) -> None:
    page.evaluate(OPEN_FOLDS)


CHROMIUM = Path("/usr/bin/chromium")
"""Debian's chromium: Playwright's own browser download does not work on the CI machine."""
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """One headless chromium for a module of browser tests (launching one a test is slow)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


def migration_head() -> str:
    """The newest migration's revision, read from the migration scripts themselves (so a new
    migration does not need every test that checks the schema's version edited)."""
    from importlib import resources

    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location",
                        str(resources.files("fieldcraft.server").joinpath("migrations")))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


class LatinWords:
    """Three Latin letters in a row outside a player's name: the page isolates every name in
    U+2068...U+2069, and a name is the person's own, not text left untranslated."""

    words = re.compile(r"[A-Za-z]{3,}")
    names = re.compile("\u2068[^\u2069]*\u2069")

    def search(self, text: str) -> re.Match[str] | None:
        return self.words.search(self.names.sub("", text))


ENGLISH = LatinWords()
"""What a Japanese page must not show: English left untranslated (names aside)."""
