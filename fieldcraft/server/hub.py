"""All rooms of this server, the database writer, and the background tasks."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from fieldcraft.agents import AGENTS
from fieldcraft.core.errors import FieldcraftError
from fieldcraft.core.registry import load_game
from fieldcraft.server import access, store
from fieldcraft.server import errors as E
from fieldcraft.server.errors import TableError
from fieldcraft.server.room import Room
from fieldcraft.server.seats import AWAY_GRACE, hash_token, new_token
from fieldcraft.server.table import Table

log = logging.getLogger("fieldcraft.server")

SNAPSHOT_EVERY = 50
FINISHED_KEPT = 200
"""Finished rooms with nobody connected kept in memory (older ones are loaded on demand)."""


class Hub:
    def __init__(self, engine: Any, writer: store.Writer, bot_delay: float = 0.6,
                 snapshot_every: int = SNAPSHOT_EVERY, away_grace: float = AWAY_GRACE):
        self.engine = engine
        self.writer = writer
        self.bot_delay = bot_delay
        self.snapshot_every = snapshot_every
        self.away_grace = away_grace
        self.rooms: dict[str, Room] = {}
        self.closing = False
        self.actions_committed = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loading: dict[str, asyncio.Future[Room | None]] = {}

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def resume(self) -> int:
        """Load every table that was waiting or playing and restart its driver."""
        rows = await asyncio.to_thread(store.read_live_tables, self.engine)
        resumed = 0
        for row in rows:
            try:
                room = await asyncio.to_thread(Room.from_row, self, row)
            except Exception:  # noqa: BLE001 - one broken table must not stop the server
                log.exception("table %s could not be resumed", row.id)
                continue
            self.rooms[row.id] = room
            resumed += 1
        for room in self.rooms.values():
            room.arm_clock()
            room.kick()
        return resumed

    async def get(self, table_id: str) -> Room | None:
        """The live room, or a finished table loaded from the database on demand."""
        room = self.rooms.get(table_id)
        if room is not None:
            return room
        if not table_id or len(table_id) > 32:
            return None
        pending = self._loading.get(table_id)
        if pending is not None:
            return await pending
        fut: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = fut
        try:
            row = await asyncio.to_thread(store.read_table, self.engine, table_id)
            room = None
            if row is not None:
                try:
                    room = await asyncio.to_thread(Room.from_row, self, row)
                except FieldcraftError as exc:  # e.g. its game is no longer registered
                    log.error("table %s cannot be loaded: %s", table_id, exc)
                    room = None
                if room is not None:
                    self.rooms[table_id] = room
                    self.evict_finished()
                    room.arm_clock()
                    room.kick()  # a live table that missed the start-up resume plays on
            fut.set_result(room)
            return room
        except Exception as exc:
            fut.set_exception(exc)
            raise
        finally:
            del self._loading[table_id]

    async def require(self, table_id: str) -> Room:
        room = await self.get(table_id)
        if room is None:
            raise TableError(E.NO_SUCH_TABLE, f"no table {table_id!r}")
        return room

    def evict_finished(self, keep: int = FINISHED_KEPT) -> None:
        finished = [r for r in self.rooms.values() if r.status == "finished" and r.idle()]
        for room in finished[:-keep] if len(finished) > keep else []:
            del self.rooms[room.id]

    async def create(self, game: str, players: int, seat_kinds: list[tuple[str, str | None]],
                     overrides: dict[str, Any], settings: dict[str, Any],
                     host_seat: int | None, name: str, *, public: bool = False
                     ) -> tuple[Room, str, int | None]:
        """Create a table; returns (room, host token, host's seat or None). ``public``: list
        it in the lobby; otherwise only its link (the id) or its join code finds it."""
        loaded = load_game(game, players=players, **overrides)
        for kind, bot in seat_kinds:
            if kind == "bot" and bot not in AGENTS:
                raise TableError(E.UNKNOWN_BOT, f"unknown bot {bot!r}; known bots: "
                                 f"{', '.join(sorted(AGENTS))}")
        host_token = new_token()
        host_hash = hash_token(host_token)
        seats = [store.SeatRow(i, kind, bot if kind == "bot" else None)
                 for i, (kind, bot) in enumerate(seat_kinds)]
        if host_seat is not None:
            if not 0 <= host_seat < players or seats[host_seat].kind != "human":
                raise TableError(E.BAD_SEAT, "your seat must be one of the human seats")
            seats[host_seat].name = name
            seats[host_seat].token_hash = host_hash
        open_seats = [s for s in seats if s.kind == "human" and s.token_hash is None]
        status = "waiting" if open_seats else "playing"
        table_id = access.new_table_id()
        while table_id in self.rooms:
            table_id = access.new_table_id()
        row = store.TableRow(id=table_id, game=game, players=players, overrides=overrides,
                             settings=settings, status=status, host_hash=host_hash, version=0,
                             result=None, created_at=store.now(), seats=seats, public=public,
                             join_code=access.new_join_code())
        await self.writer.submit(store.job_create_table(row))
        room = Room(self, row, Table.new(loaded, self.snapshot_every))
        self.rooms[table_id] = room
        room.arm_clock()
        room.kick()
        return room, host_token, host_seat

    def live_rooms(self) -> list[Room]:
        return [r for r in self.rooms.values() if r.status in ("waiting", "playing")]

    def listed_rooms(self) -> list[Room]:
        """The lobby's tables: public ones waiting or playing, newest first."""
        return sorted((r for r in self.rooms.values()
                       if r.public and r.status in ("waiting", "playing")),
                      key=lambda r: r.created_at, reverse=True)

    async def find_code(self, text: str) -> str:
        """The id of the table a typed join code names; ``table.no_such_table`` if none (the
        same answer whether the code is malformed or just unknown)."""
        code = access.normalise_join_code(text)
        table_id = None
        if code is not None:
            table_id = await asyncio.to_thread(store.read_table_id_by_code, self.engine, code)
        if table_id is None:
            raise TableError(E.NO_SUCH_TABLE, "no table has that join code")
        return table_id

    async def close(self, grace: float = 5.0) -> None:
        """Shut down: let moves being committed finish (up to ``grace`` seconds), so the
        rooms in memory end exactly where the database does; then cancel what is left."""
        self.closing = True
        for room in self.rooms.values():
            room.close()
        tasks = [r.driver.task for r in self.rooms.values()
                 if r.driver.task is not None and not r.driver.task.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        tasks += list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
