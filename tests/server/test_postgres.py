"""The same server code on PostgreSQL. Runs when FIELDCRAFT_TEST_POSTGRES names a database that
may be wiped, e.g. ``postgresql://fc:fc@127.0.0.1/fieldcraft_test`` (needs the postgres extra)."""

from __future__ import annotations

import os
import random

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from fieldcraft.server import create_app, store
from fieldcraft.server.models import metadata
from tests.server.helpers import SeatSocket, create_table, migration_head

URL = os.environ.get("FIELDCRAFT_TEST_POSTGRES")
pytestmark = pytest.mark.skipif(not URL, reason="set FIELDCRAFT_TEST_POSTGRES to a scratch "
                                                "PostgreSQL database to run")


@pytest.fixture
def pg_url() -> str:
    assert URL
    engine = store.make_engine(URL)
    metadata.drop_all(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
    engine.dispose()
    return URL


def test_play_restart_and_resume_on_postgres(pg_url: str) -> None:
    with TestClient(create_app(pg_url, allowed_hosts=["testserver"],
                               bot_delay=0.0, allow_seeded_tables=True)) as client:
        made = create_table(client, game="under-current", players=3,
                            seats=["human", "bot", "bot"], seed=8)
        room = client.app.state.hub.rooms[made["id"]]
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            me = SeatSocket(ws)
            me.hello(made["token"])
            rng = random.Random(2)
            for _ in range(3):
                view = me.my_turn()
                me.send({"type": "act", "token": made["token"], "version": me.version,
                         "action": rng.choice(view["choices"])["action"]})
                ack = me.until(lambda m: m["type"] == "ack")
                me.until_version(ack["version"])
    history = room.state.history()
    engine = store.make_engine(pg_url)
    assert store.read_all_actions(engine, made["id"]) == history
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() \
            == migration_head()
    engine.dispose()
    with TestClient(create_app(pg_url, allowed_hosts=["testserver"], bot_delay=0.0)) as client:
        again = client.app.state.hub.rooms[made["id"]]
        assert again.state.history()[:len(history)] == history
        with client.websocket_connect(f"/ws/{made['id']}") as ws:
            me = SeatSocket(ws)
            assert me.hello(made["token"], last_version=len(history))["since"] == len(history)
