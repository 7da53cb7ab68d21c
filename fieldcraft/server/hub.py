"""All rooms of this server, the database writer, and the background tasks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any

from fieldcraft.agents.levels import WEB_BOTS, is_bot_name
from fieldcraft.core.api import Game, State
from fieldcraft.core.errors import FieldcraftError
from fieldcraft.core.registry import load_game
from fieldcraft.server import access, store
from fieldcraft.server import errors as E
from fieldcraft.server.clock import AWAY_GRACE
from fieldcraft.server.errors import TableError
from fieldcraft.server.limits import LimitError, Limits
from fieldcraft.server.restore import room_from_row
from fieldcraft.server.room import Room
from fieldcraft.server.seats import hash_token, new_token
from fieldcraft.server.table import Table

log = logging.getLogger("fieldcraft.server")

SNAPSHOT_EVERY = 50
FINISHED_KEPT = 200
"""Finished rooms with nobody connected kept in memory (older ones are loaded on demand)."""
GAMES_KEPT = 64
"""Rulesets whose :class:`Game` the hub keeps for its tables to share (least recently used
dropped first; a dropped one lives on in the tables that still use it)."""


def _age(created_at: datetime | None) -> float:
    """Seconds since ``created_at`` (SQLite gives back naive datetimes; they are UTC)."""
    if created_at is None:
        return 0.0
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    return max(0.0, (store.now() - created_at).total_seconds())


def _branch_start(table: Table, step: int, seat: int) -> State:
    """The original's position at ``step`` with what ``seat`` could not see re-dealt."""
    state = table.state_at(step)
    if state.is_terminal():
        raise TableError(E.BAD_STEP, f"the game is over at step {step}: there is nothing to "
                         "play on from; pick an earlier step")
    return state.resample(seat, random.SystemRandom())


class Hub:
    def __init__(self, engine: Any, writer: store.Writer, bot_delay: float = 0.6,
                 snapshot_every: int = SNAPSHOT_EVERY, away_grace: float = AWAY_GRACE,
                 limits: Limits | None = None):
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
        self.limits = limits or Limits()
        self._creating: set[str] = set()
        """Ids of tables being written: counted as waiting before they exist."""
        self._games: OrderedDict[tuple[str, int, str], Game] = OrderedDict()
        self._games_lock = threading.Lock()  # rooms are also loaded in worker threads

    def game(self, name: str, players: int, overrides: dict[str, Any]) -> Game:
        """The one :class:`Game` of this ruleset that all its tables share.

        A game never changes with play, but it builds tables and caches on first use (its
        notation's action names, its observer's planes, its search model's caches: 50-300 KB),
        and these refer back to the game, a reference cycle that only the cyclic collector
        frees. One game per table was most of a finished table's memory, and it outlived
        the table; shared, a table holds nothing a game owns, and the caches stay warm. Games
        are safe to share: bots, analysis and branches already read them from several threads.
        ``RulesetError`` etc. as :func:`load_game` for a bad ruleset (nothing is kept)."""
        key = (name, players, json.dumps(overrides, sort_keys=True))
        with self._games_lock:
            game = self._games.get(key)
            if game is not None:
                self._games.move_to_end(key)
                return game
        game = load_game(name, players=players, **overrides)  # outside the lock: it may be slow
        with self._games_lock:
            game = self._games.setdefault(key, game)  # another thread's, if it was first
            while len(self._games) > GAMES_KEPT:
                self._games.popitem(last=False)
        return game

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
                room = await asyncio.to_thread(room_from_row, self, row)
            except Exception:  # noqa: BLE001 - one broken table must not stop the server
                log.exception("table %s could not be resumed", row.id)
                continue
            self.rooms[row.id] = room
            self._note_waiting(room)
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
            if row is not None and row.status != "expired":
                try:
                    room = await asyncio.to_thread(room_from_row, self, row)
                except FieldcraftError as exc:  # e.g. its game is no longer registered
                    log.error("table %s cannot be loaded: %s", table_id, exc)
                    room = None
                if room is not None:
                    self.rooms[table_id] = room
                    self._note_waiting(room)
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
            if table_id and len(table_id) <= 32 and await asyncio.to_thread(
                    store.read_status, self.engine, table_id) == "expired":
                raise TableError(E.TABLE_EXPIRED, f"table {table_id!r} expired: nobody joined "
                                 "it in time; create a new one")
            raise TableError(E.NO_SUCH_TABLE, f"no table {table_id!r}")
        return room

    def evict_finished(self, keep: int = FINISHED_KEPT) -> None:
        """Drop all but the ``keep`` newest idle finished rooms (a later visit loads one from
        the database again), so memory follows the live tables, not the tables ever played."""
        finished = [r for r in self.rooms.values() if r.status == "finished" and r.idle()]
        for room in finished[:max(0, len(finished) - keep)]:  # [:-0] would keep them all
            del self.rooms[room.id]

    async def create(self, game: str, players: int, seat_kinds: list[tuple[str, str | None]],
                     overrides: dict[str, Any], settings: dict[str, Any],
                     host_seat: int | None, name: str, *, public: bool = False,
                     address: str | None = None, playtest: str | None = None
                     ) -> tuple[Room, str, int | None]:
        """Create a table; returns (room, host token, host's seat or None). ``public``: list
        it in the lobby; otherwise only its link (the id) or its join code finds it.
        ``address`` is the creating client's (:func:`~fieldcraft.server.limits.client_address`):
        a table that will wait for players must fit the waiting-table limits. ``playtest``: the
        playtest it is made for (else its ``settings``' own, so that a rematch, which copies the
        settings, counts too), stored in the same commit as the table so none is uncounted."""
        if playtest is None and isinstance(settings.get("playtest"), str):
            playtest = settings["playtest"]
        waits = any(kind == "human" and i != host_seat for i, (kind, _) in enumerate(seat_kinds))
        if waits:  # refused before any work: this is what a flood of creations runs into
            await self._admit_waiting(address)
        loaded = self.game(game, players, overrides)
        for kind, bot in seat_kinds:
            if kind == "bot" and not is_bot_name(bot):
                raise TableError(E.UNKNOWN_BOT, f"unknown bot {bot!r}; known bots: "
                                 f"{', '.join(WEB_BOTS)}")
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
        while table_id in self.rooms or table_id in self._creating:
            table_id = access.new_table_id()
        row = store.TableRow(id=table_id, game=game, players=players, overrides=overrides,
                             settings=settings, status=status, host_hash=host_hash, version=0,
                             result=None, created_at=store.now(), seats=seats, public=public,
                             join_code=access.new_join_code(), playtest=playtest)
        if status == "waiting":  # counted at once, so concurrent requests cannot overshoot
            self.limits.note_waiting(table_id, address)
            self._creating.add(table_id)
        try:
            await self.writer.submit(store.job_create_table(row))
        except BaseException:
            self.limits.forget(table_id)
            raise
        finally:
            self._creating.discard(table_id)
        room = Room(self, row, Table.new(loaded, self.snapshot_every))
        self.rooms[table_id] = room
        room.arm_clock()
        room.kick()
        return room, host_token, host_seat

    async def rematch(self, room: Room, seat: int, address: str | None
                      ) -> tuple[Room, str, int, str | None, bool]:
        """The table after a finished one: the same game, player count, ruleset, settings
        (but never its seed) and seat kinds (each bot the same spec), the asking person in
        their seat, the other people's seats kept for them. The first player to ask creates
        it (and is its host); the others who ask get their old seat there. It is private and
        its seats are bound: only this table's players take them, through this method with
        their seat token here (``auth.seat_reserved`` for anyone else), so a spectator or a
        stranger holding its id can watch it but not sit at it. Returns (room, seat token,
        seat, host token or None, created)."""
        async with room.lock:
            if room.status != "finished":
                raise TableError(E.NOT_FINISHED, "a rematch follows a finished game")
            name = room.seats[seat].name or "Player"
            if room.rematch.id is not None:
                follow = await self.require(room.rematch.id)
                got, token = await follow.claim(seat, name, rematch=True)
                return follow, token, got, None, False
            self.limits.check_create_rate(address or "")
            kinds = [(s.kind, s.bot if s.kind == "bot" else None) for s in room.seats]
            settings = {k: v for k, v in room.settings.items() if k != "seed"}
            settings["rematch_of"] = room.id
            follow, host_token, _ = await self.create(
                room.game_name, room.players, kinds, dict(room.overrides), settings, seat,
                name, public=False, address=address)
            await self.writer.submit(store.job_set_rematch(room.id, follow.id))
            room.rematch.offer(room, follow.id)
            return follow, host_token, seat, host_token, True

    async def branch(self, room: Room, step: int, seat: int, bot: str, name: str,
                     address: str | None) -> tuple[Room, str]:
        """A new table that plays on from step ``step`` of a finished one, with ``seat`` the
        asking person and every other seat a ``bot``. Its first position is the original's
        at that step resampled for ``seat`` with a fresh ``SystemRandom``: everything that
        seat could not see is re-dealt consistently with what it knew, so the branch neither
        reveals the real hidden cards nor can be steered by a seed. Private, never seeded,
        no turn timer (it is a study of one moment, not a match). Returns (room, the seat's
        token, which is also the host token). Every refusal comes before anything is made."""
        if room.status != "finished":
            raise TableError(E.NOT_FINISHED, "a branch starts from a finished game; this "
                             "one is still being played (its hidden cards are secret)")
        if not 0 <= step <= room.version:
            raise TableError(E.BAD_STEP, f"step must be 0-{room.version}, not {step}")
        if not 0 <= seat < room.players:
            raise TableError(E.BAD_SEAT, f"seat must be 0-{room.players - 1}, not {seat}")
        if not is_bot_name(bot):
            raise TableError(E.UNKNOWN_BOT, f"unknown bot {bot!r}; known bots: "
                             f"{', '.join(WEB_BOTS)}")
        self.limits.check_create_rate(address or "")
        start = await asyncio.to_thread(_branch_start, room.table, step, seat)
        game = room.table.game
        token = new_token()
        digest = hash_token(token)
        seats = [store.SeatRow(i, "bot", bot) for i in range(room.players)]
        seats[seat] = store.SeatRow(seat, "human", None, name, digest)
        settings: dict[str, Any] = {
            "turn_seconds": None, "proxy_bot": room.settings.get("proxy_bot", "random"),
            "away_bot": room.settings.get("away_bot", True)}
        table_id = access.new_table_id()
        while table_id in self.rooms or table_id in self._creating:
            table_id = access.new_table_id()
        row = store.TableRow(id=table_id, game=room.game_name, players=room.players,
                             overrides=dict(room.overrides), settings=settings,
                             status="playing", host_hash=digest, version=0, result=None,
                             created_at=store.now(), seats=seats, public=False,
                             join_code=access.new_join_code(), start_state=start.to_json(),
                             branch_of=room.id, branch_step=step, branch_seat=seat)
        await self.writer.submit(store.job_create_table(row))
        follow = Room(self, row, Table.new(game, self.snapshot_every, start=start))
        self.rooms[table_id] = follow
        follow.arm_clock()
        follow.kick()
        return follow, token

    # -- waiting tables: limits and expiry (limits.py) ------------------------------------------
    def _still_waiting(self, table_id: str) -> bool:
        if table_id in self._creating:
            return True
        room = self.rooms.get(table_id)
        return room is not None and room.status == "waiting"

    def _note_waiting(self, room: Room) -> None:
        """Count a waiting table that was loaded from the database (its creator's address is
        not stored, so it counts towards the server's cap only)."""
        if room.status == "waiting":
            self.limits.note_waiting(room.id, None, age=_age(room.created_at))

    async def _admit_waiting(self, address: str | None) -> None:
        """Raise the limit's refusal if one more waiting table from ``address`` is too many;
        at the server's cap, expire the tables that are due first."""
        try:
            self.limits.check_waiting(address, self._still_waiting)
        except LimitError:
            if not self.limits.any_due():
                raise
            await self.expire_waiting()
            self.limits.check_waiting(address, self._still_waiting)

    async def expire_waiting(self) -> list[str]:
        """Expire the tables that have waited for players longer than the limit and that
        nobody is connected to: marked ``expired`` in the database (one commit for all) and
        dropped from memory. Tables that are playing or finished are never touched. Returns
        the expired ids."""
        self.limits.prune(self._still_waiting)
        candidates = [self.rooms[t] for t in self.limits.due() if t in self.rooms]
        expired: list[str] = []
        if candidates:
            async with contextlib.AsyncExitStack() as stack:
                for room in candidates:  # held until the commit: no seat is claimed meanwhile
                    await stack.enter_async_context(room.lock)
                ready = [r for r in candidates if r.status == "waiting" and r.idle()]
                if ready:
                    try:
                        done = await self.writer.submit(
                            store.job_expire_tables([r.id for r in ready]))
                    except store.StorageError as exc:
                        log.error("could not expire waiting tables: %s", exc)
                        done = []
                    for room in ready:
                        if room.id in done:
                            room.status = "expired"
                            room.clock.stop()
                            expired.append(room.id)
            for table_id in expired:
                self.rooms.pop(table_id, None)
                self.limits.forget(table_id)
        self.limits.forget_idle()
        if expired:
            log.info("expired %d waiting table(s)", len(expired))
        return expired

    def sweep_interval(self) -> float:
        """How often the sweeper looks for tables to expire: a tenth of the expiry time,
        between 1 s and a minute."""
        ttl = self.limits.settings.waiting_expiry
        return 60.0 if ttl <= 0 else min(60.0, max(1.0, ttl / 10))

    def start_sweeper(self) -> None:
        """Expire waiting tables in the background (real time; tests call
        :meth:`expire_waiting` themselves with a fake clock)."""
        async def sweep() -> None:
            while not self.closing:
                await asyncio.sleep(self.sweep_interval())
                try:
                    await self.expire_waiting()
                except Exception:  # noqa: BLE001 - try again at the next sweep
                    log.exception("sweeping waiting tables failed")

        self.spawn(sweep())

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
