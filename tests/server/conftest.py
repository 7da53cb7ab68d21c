"""Fixtures for the web table tests: an app on a temporary SQLite file (bots move at once)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from fieldcraft.server import create_app  # noqa: E402
from fieldcraft.server.limits import LimitSettings  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    # Starlette asks for the httpx2 package in its TestClient; httpx works and is what we ship.
    config.addinivalue_line("filterwarnings", "ignore:.*httpx2.*")
    config.addinivalue_line(
        "markers", "seeded_tables: the test creates tables with a 'seed', so its app runs "
        "with allow_seeded_tables (the server's --allow-seeded-tables)")
    config.addinivalue_line(
        "markers", "no_limits: the test creates more tables than a client may a minute, so its "
        "app runs without the abuse limits (the server's --no-limits)")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.db'}"


@pytest.fixture
def client(db_url: str, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    # A long grace: a test's seats connect at their own pace without a stand-in bot stepping
    # in; the timer tests shorten it on purpose. Seeded tables only for tests marked so.
    # Starlette's TestClient sends "Host: testserver": the app answers only to the names it is
    # given (guard.py, against DNS rebinding), so the tests name that one.
    seeded = request.node.get_closest_marker("seeded_tables") is not None
    unlimited = request.node.get_closest_marker("no_limits") is not None
    app = create_app(db_url, allowed_hosts=["testserver"],
                     bot_delay=0.0, away_grace=30.0, allow_seeded_tables=seeded,
                     limits=LimitSettings.unlimited() if unlimited else None)
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium per test module (Debian's, driven by Playwright); without it the module's
    browser tests are skipped with the reason."""
    from tests.server.helpers import CHROMIUM, chromium_browser

    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    with chromium_browser() as b:
        yield b
