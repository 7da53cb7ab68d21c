"""Fixtures for the web table tests: an app on a temporary SQLite file (bots move at once)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from fieldcraft.server import create_app  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    # Starlette asks for the httpx2 package in its TestClient; httpx works and is what we ship.
    config.addinivalue_line("filterwarnings", "ignore:.*httpx2.*")
    config.addinivalue_line(
        "markers", "seeded_tables: the test creates tables with a 'seed', so its app runs "
        "with allow_seeded_tables (the server's --allow-seeded-tables)")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.db'}"


@pytest.fixture
def client(db_url: str, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    # A long grace: a test's seats connect at their own pace without a stand-in bot stepping
    # in; the timer tests shorten it on purpose. Seeded tables only for tests marked so.
    seeded = request.node.get_closest_marker("seeded_tables") is not None
    app = create_app(db_url, bot_delay=0.0, away_grace=30.0, allow_seeded_tables=seeded)
    with TestClient(app) as c:
        yield c
