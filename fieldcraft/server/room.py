"""A live table on the server: its :class:`Table`, seats, clock, driver and connections.

A :class:`Room` serialises everything that changes its table behind one ``asyncio.Lock``. A
change is always done the same way: the table prepares it on a clone, the writer thread commits
its rows, and only then is it accepted, the actor answered and every connection told. So the
state in memory never runs ahead of the database, and a crash between "applied" and "committed"
leaves nothing that anyone has been told about.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from fieldcraft.core.api import Game, State
from fieldcraft.core.errors import FieldcraftError
from fieldcraft.server import access, store
from fieldcraft.server import errors as E
from fieldcraft.server import protocol as P
from fieldcraft.server.connection import Connection, dumps
from fieldcraft.server.driver import Driver
from fieldcraft.server.errors import TableError
from fieldcraft.server.limits import LimitError, TokenBucket
from fieldcraft.server.seats import Seats, SeatState, TurnClock, hash_token, new_token, same_token
from fieldcraft.server.table import Commit, Table

if TYPE_CHECKING:
    from fieldcraft.server.hub import Hub

log = logging.getLogger("fieldcraft.server")

CHAT_RATE = 0.5
"""Chat messages a seat may send a second in the long run (one every two seconds)..."""
CHAT_BURST = 4
"""...after a burst of this many (a quick "gg" and a sentence should never be refused)."""
CHAT_SENT = 100
"""Chat messages a (re)connecting page is sent: the latest ones (all are kept)."""


class Room:
    def __init__(self, hub: Hub, row: store.TableRow, table: Table):
        self.hub = hub
        self.id = row.id
        self.game_name = row.game
        self.players = row.players
        self.overrides = row.overrides
        self.settings = row.settings
        self.status = row.status
        self.host_hash = row.host_hash
        self.created_at = row.created_at
        self.public = row.public
        self.join_code = row.join_code
        self.result = row.result
        self.rematch_id = row.rematch_id
        self.branch_of = row.branch_of
        self.branch_step = row.branch_step
        self.branch_seat = row.branch_seat
        self.chat: list[store.ChatRow] = []
        self._chat_buckets: dict[int, TokenBucket] = {}
        self.table = table
        self.seats = Seats([SeatState(seat=s.seat, kind=s.kind, bot=s.bot, name=s.name,
                                      token_hash=s.token_hash) for s in row.seats])
        self.spectators: set[Connection] = set()
        self.lock = asyncio.Lock()
        self.clock = TurnClock(self.settings, lambda: hub.away_grace, self._on_timeout)
        self.driver = Driver(self.settings.get("seed"))

    @classmethod
    def from_row(cls, hub: Hub, row: store.TableRow) -> Room:
        """Rebuild the state: snapshot + the actions after it, or, if the snapshot cannot be
        used (say the game's code changed its fields), a full replay of the action list."""
        game = hub.game(row.game, row.players, row.overrides)
        if row.start_state is not None:
            return cls._branch_from_row(hub, row, game)
        state: State | None = None
        if row.snapshot is not None:
            seq, text = row.snapshot
            try:
                state = game.state_from_json(text)
                if len(state.history()) != seq:
                    raise FieldcraftError("snapshot length does not match its sequence number")
                for s, action, _, _ in row.actions:
                    if s != len(state.history()) + 1:
                        raise FieldcraftError(f"action {s} is missing from the log")
                    state.apply_action(action)
            except Exception as exc:  # noqa: BLE001 - fall back to the full action list
                log.warning("table %s: snapshot unusable (%s); replaying all actions", row.id, exc)
                state = None
        if state is None:
            state = game.replay(store.read_all_actions(hub.engine, row.id))
        if len(state.history()) != row.version:
            log.warning("table %s: %d actions stored, version column says %d", row.id,
                        len(state.history()), row.version)
        table = Table(game, state, hub.snapshot_every)
        table.last_snapshot = row.snapshot[0] if row.snapshot else 0
        room = cls(hub, row, table)
        room.chat = store.read_chat(hub.engine, row.id)
        return room

    @classmethod
    def _branch_from_row(cls, hub: Hub, row: store.TableRow, game: Game) -> Room:
        """A branch: its stored first position and every move after it (its snapshot is not
        used: a branch's moves are counted from its start, and it is short)."""
        start = game.state_from_json(row.start_state or "")
        moves = store.read_all_actions(hub.engine, row.id)
        if len(moves) != row.version:
            log.warning("table %s: %d actions stored, version column says %d", row.id,
                        len(moves), row.version)
        table = Table.branch(game, start, moves, hub.snapshot_every)
        table.last_snapshot = row.snapshot[0] if row.snapshot else 0
        room = cls(hub, row, table)
        room.chat = store.read_chat(hub.engine, row.id)
        return room

    # -- what the room is --------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.table.state

    @property
    def version(self) -> int:
        return self.table.version

    @property
    def seeded(self) -> bool:
        """Created with a ``seed``: its deals are predictable, and every seat is told so."""
        return self.settings.get("seed") is not None

    def table_info(self) -> dict[str, Any]:
        """What anyone holding the table's link is told about it (the page, the API, every
        seat's ``sync``): public facts only. Holding the link is the invitation, so this
        includes the join code; whether the deals are ``seeded`` is told to everyone. The
        rematch is not here: it is offered to the seated players only (:meth:`you`)."""
        return {"id": self.id, "game": self.game_name, "players": self.players,
                "overrides": self.overrides,
                "turn_seconds": self.settings.get("turn_seconds"),
                "away_bot": self.settings.get("away_bot", True),
                "seeded": self.seeded, "public": self.public,
                "join_code": access.show_join_code(self.join_code),
                "status": self.status, "version": self.version, "seats": self.seats.public(),
                "created_at": self.created_at.isoformat() if self.created_at else None,
                **self.branch_info()}

    def branch_info(self) -> dict[str, Any]:
        """Where a branch came from (all ``None`` for an ordinary table): the original table,
        the step it plays on from and the seat whose knowledge was kept. Public, like the rest
        of the table info: the original is a finished game, replayable by anyone with its
        link, and the branch's own position was re-dealt."""
        return {"branch_of": self.branch_of, "branch_step": self.branch_step,
                "branch_seat": self.branch_seat}

    def rematch_url(self) -> str | None:
        return None if self.rematch_id is None else f"/t/{self.rematch_id}"

    def you(self, seat: int | None) -> dict[str, Any] | None:
        """What a seat's own ``sync`` says of it (``None`` for a spectator): its number, its
        name and the follow-up table if a rematch was made, which only players are told."""
        if seat is None:
            return None
        return {"seat": seat, "name": self.seats[seat].name, "rematch": self.rematch_url()}

    def idle(self) -> bool:
        return not self.spectators and not self.seats.connected()

    # -- views -------------------------------------------------------------------------------------
    def may_act(self, seat: int | None) -> bool:
        return seat is not None and self.status == "playing" and not self.seats[seat].is_bot

    def view_extra(self) -> dict[str, Any]:
        """The room's keys of every view (after the table's): the same for every seat."""
        return {"status": self.status, "seats": self.seats.public(),
                "deadline_in": self.clock.left()}

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """Everything one seat (``None``: a spectator) is sent about the table right now."""
        return {**self.table.view(seat, self.may_act(seat)), **self.view_extra()}

    def view_text(self, seat: int | None, tail: str | None = None) -> str:
        """:meth:`view_for` as sent (encoded once per version and seat by the table);
        ``tail`` is the encoded :meth:`view_extra` when the caller already has it."""
        if tail is None:
            tail = "," + dumps(self.view_extra())[1:]
        return self.table.view_text(seat, self.may_act(seat), tail)

    def _audience(self) -> list[tuple[int | None, set[Connection]]]:
        out: list[tuple[int | None, set[Connection]]] = list(self.seats.connected())
        if self.spectators:
            out.append((None, self.spectators))
        return out

    def update_text(self, seat: int | None, since: int, tail: str | None = None) -> str:
        """The ``update`` message for ``seat`` after versions ``since+1 ..`` were committed."""
        return (f'{{"type":"update","since":{since},"version":{self.version},"events":'
                f'{self.table.log_text(seat, since)},"view":'
                f'{self.view_text(seat, tail)}}}')

    def broadcast_update(self, since: int) -> None:
        """Tell every connection: one encoding per seat, the room's part encoded once."""
        tail = "," + dumps(self.view_extra())[1:]
        for seat, conns in self._audience():
            text = self.update_text(seat, since, tail)
            for conn in list(conns):
                conn.send(text)

    def presence_text(self) -> str:
        return dumps({"type": "presence", "version": self.version, "seats": self.seats.public(),
                      "deadline_in": self.clock.left(), "status": self.status})

    def broadcast_presence(self) -> None:
        text = self.presence_text()
        for _, conns in self._audience():
            for conn in list(conns):
                conn.send(text)

    def sync_text(self, seat: int | None, last_version: int | None,
                  pending: tuple[int, int | None] | None = None) -> str:
        """What a (re)connecting client missed: the events after ``last_version`` if it is a
        version this room has had, else the whole log; always with a fresh view, the latest
        chat and, for ``pending`` (the version and action of a move the client sent and never
        heard back about), whether that move is in the history."""
        since = last_version if last_version is not None and last_version <= self.version else 0
        you = self.you(seat)
        extra = ""
        if pending is not None:
            extra = f',"pending":{dumps(self.pending_answer(seat, *pending))}'
        chat = [c.public() for c in self.chat[-CHAT_SENT:]]
        return (f'{{"type":"sync","since":{since},"version":{self.version},"events":'
                f'{self.table.log_text(seat, since)},"view":{self.view_text(seat)},'
                f'"table":{dumps(self.table_info())},"you":{dumps(you)},'
                f'"chat":{dumps(chat)}{extra}}}')

    def pending_answer(self, seat: int | None, version: int, action: int | None
                       ) -> dict[str, Any]:
        """Whether the move a seat sent at ``version`` landed: that seat was the one to move
        there, and the action that made version ``version + 1`` is the one it sent.

        Only a version at which the asking seat moved is answered (as lichess and BGA
        acknowledge a client's own move only): asked of anyone else's move, or of a chance
        draw, the answer would say whether a guessed hidden action was played, and a seat
        asking about every action at every version would rebuild the whole deal."""
        landed = False
        if seat is not None and 0 <= version < self.version \
                and self.table.movers[version] == seat:
            landed = action is None or self.table.history()[version] == action
        return {"version": version, "action": action, "landed": landed}

    # -- messages ----------------------------------------------------------------------------------
    async def handle(self, conn: Connection, raw: str | bytes) -> None:
        """Handle one client message; a refused message gets an error and changes nothing."""
        msg_id = None
        try:
            msg = P.parse_message(raw)
            msg_id = msg.id
            if not conn.ready:
                if msg.type != "hello":
                    raise TableError(E.HELLO_REQUIRED, "the first message must be 'hello'")
                await self._hello(conn, msg)
                return
            if msg.type == "hello":
                raise TableError(E.BAD_MESSAGE, "already said hello")
            if conn.seat is None and msg.type in ("act", "back", "chat"):
                raise TableError(E.SPECTATOR, "spectators cannot act; take a seat or "
                                 "reconnect with your seat token")
            self._check_token(conn, msg)
            if msg.type == "ping":
                conn.send_doc({"type": "pong", "id": msg.id, "version": self.version})
            elif msg.type == "sync":
                async with self.lock:
                    conn.send(self.sync_text(conn.seat, msg.last_version, _pending(msg)))
            elif msg.type == "chat":
                await self._chat(conn, msg)
            elif msg.type == "back":
                async with self.lock:
                    self._returned(conn.seat)
            elif msg.type == "act":
                await self._act(conn, msg)
        except FieldcraftError as exc:
            conn.send_doc(E.error_message(exc, getattr(exc, "msg_id", None) or msg_id))
        except Exception:  # noqa: BLE001 - a bug must not close the socket without a word
            # Every change is prepared on a clone and accepted only after its commit, so a
            # message that failed here changed nothing; say so instead of dropping the socket.
            log.exception("table %s: message could not be handled", self.id)
            conn.send_doc(E.error_message(TableError(
                E.INTERNAL, "the server could not handle this message; nothing changed"),
                msg_id))

    def _check_token(self, conn: Connection, msg: P.Message) -> None:
        if conn.seat is None:
            if msg.token is not None:
                raise TableError(E.BAD_TOKEN, "spectators send no token")
            return
        if msg.token is None or not same_token(msg.token, conn.token_hash):
            raise TableError(E.BAD_TOKEN, "missing or wrong seat token")

    async def _hello(self, conn: Connection, msg: P.Message) -> None:
        async with self.lock:
            seat: int | None = None
            if msg.token is not None:
                seat = self.seats.holding(msg.token)
                if seat is None:
                    raise TableError(E.BAD_TOKEN, "this token holds no seat at this table")
                conn.token_hash = hash_token(msg.token)
            conn.seat = seat
            conn.ready = True
            if seat is None:
                self.spectators.add(conn)
            else:
                self.seats[seat].connections.add(conn)
                self.seats[seat].away = False
                self.arm_clock()
            conn.send(self.sync_text(seat, msg.last_version, _pending(msg)))
            if seat is not None:
                self.broadcast_presence()
        if seat is not None:
            self.kick()

    def detach(self, conn: Connection) -> None:
        """Forget a closed connection; a seat left empty may be handed to the stand-in bot."""
        conn.closed = True
        if conn.seat is None:
            self.spectators.discard(conn)
            return
        seat = self.seats[conn.seat]
        if conn in seat.connections:
            seat.connections.discard(conn)
            if not seat.connections:
                self.arm_clock()
                self.broadcast_presence()

    def _returned(self, seat: int | None) -> None:
        if seat is not None and self.seats[seat].away:
            self.seats[seat].away = False
            self.arm_clock()
            self.broadcast_presence()

    async def _act(self, conn: Connection, msg: P.Message) -> None:
        async with self.lock:
            seat = conn.seat
            if seat is None:
                raise TableError(E.SPECTATOR, "spectators cannot act")
            if self.status == "waiting":
                raise TableError(E.NOT_STARTED, "the table is still waiting for players")
            if self.status == "finished" or self.state.is_terminal():
                raise TableError(E.GAME_OVER, "the game is over")
            if msg.version != self.version:
                raise TableError(E.STALE_VERSION, f"your view is version {msg.version}; the "
                                 f"table is at version {self.version}")
            if self.state.current_player() != seat:
                raise TableError(E.NOT_YOUR_TURN, "it is not your turn")
            if msg.action_text is not None:
                action = self.table.parse(msg.action_text)
            else:
                action = int(msg.action or 0)
            top = self.table.game.num_distinct_actions()
            if not 0 <= action < top:  # never handed to the engine (see protocol.MAX_ACTION_ID)
                raise TableError(E.ILLEGAL_ACTION, f"action {action} is not an action of this "
                                 f"game (its actions are 0-{top - 1})")
            commit = self.table.prepare([(action, seat, False)], self.driver.chance_rng)
            assert commit is not None  # a move was given
            self.seats[seat].away = False
            try:
                await self._store(commit, ack=(conn, msg.id))
            except store.StorageError as exc:
                raise TableError(E.STORAGE_ERROR, f"could not save the action: {exc}") from None
        self.kick()

    # -- chat --------------------------------------------------------------------------------------
    async def _chat(self, conn: Connection, msg: P.Message) -> None:
        """Store a seated player's chat message, then send it to everyone at the table (the
        text was checked by the protocol; the rate is checked here, per seat, so two tabs of
        one seat share it)."""
        seat = conn.seat
        assert seat is not None
        bucket = self._chat_buckets.get(seat)
        if bucket is None:
            bucket = self._chat_buckets[seat] = TokenBucket(CHAT_RATE, CHAT_BURST,
                                                            self.hub.limits.clock)
        wait = bucket.take()
        if wait > 0:
            raise LimitError(E.CHAT_TOO_FAST, "too many chat messages; wait a moment", wait)
        async with self.lock:
            row = store.ChatRow(seq=len(self.chat) + 1, seat=seat, version=self.version,
                                text=msg.text.strip() if msg.text is not None else None,
                                phrase=msg.phrase, created_at=store.now())
            try:
                await self.hub.writer.submit(store.job_add_chat(self.id, row))
            except store.StorageError as exc:
                raise TableError(E.STORAGE_ERROR, f"could not save the message: {exc}") from None
            self.chat.append(row)
            text = dumps({"type": "chat", "message": row.public()})
            for _, conns in self._audience():
                for c in list(conns):
                    c.send(text)
        if msg.id is not None:
            conn.send_doc({"type": "ack", "id": msg.id, "version": self.version})

    def chat_until(self, version: int) -> list[dict[str, Any]]:
        """The chat written up to game version ``version`` (a replay at that step)."""
        return [c.public() for c in self.chat if c.version <= version]

    # -- rematch ------------------------------------------------------------------------------
    def set_rematch(self, rematch_id: str) -> None:
        """Remember the follow-up table and tell the seated players' pages (not the
        spectators': the rematch's seats are kept for this table's players)."""
        self.rematch_id = rematch_id
        text = dumps({"type": "rematch", "url": self.rematch_url(), "id": rematch_id})
        for _, conns in self.seats.connected():
            for c in list(conns):
                c.send(text)

    # -- changing the table ------------------------------------------------------------------------
    async def commit(self, moves: list[tuple[int, int, bool]],
                     ack: tuple[Connection, Any] | None = None) -> None:
        """Prepare ``moves`` (and the chance draws after them) on the table, store them in one
        transaction, then accept them and tell everyone. Must be called with the lock held. An
        illegal move raises the engine's ``IllegalActionError``; on a storage failure nothing
        changes and :class:`store.StorageError` propagates."""
        commit = self.table.prepare(moves, self.driver.chance_rng)
        if commit is not None:
            await self._store(commit, ack)

    async def _store(self, commit: Commit, ack: tuple[Connection, Any] | None = None) -> None:
        status = "finished" if commit.terminal else None
        await self.hub.writer.submit(store.job_append_actions(
            self.id, commit.since + 1, commit.rows, snapshot=commit.snapshot, status=status,
            result=commit.result))
        self.table.accept(commit)
        if commit.terminal:
            self.status = "finished"
            self.result = commit.result
            self.hub.evict_finished()
        self.arm_clock()
        if ack is not None:
            conn, msg_id = ack
            # the version of the acknowledged action itself (chance draws may follow it)
            conn.send_doc({"type": "ack", "id": msg_id, "version": commit.acked})
        self.broadcast_update(commit.since)
        self.hub.actions_committed += len(commit.rows)

    def kick(self) -> None:
        """Wake the driver if chance or a bot is to move, handing it the table's port."""
        self.driver.kick(RoomPort(self))

    # -- the clock ---------------------------------------------------------------------------------
    def arm_clock(self) -> None:
        """(Re)start the clock of the person to move, if there is one."""
        player = self.state.current_player()
        if self.status != "playing" or self.hub.closing or player < 0:
            self.clock.stop()
            return
        self.clock.arm(self.seats[player], self.version)

    def _on_timeout(self, version: int, player: int) -> None:
        self.hub.spawn(self._timed_out(version, player))

    async def _timed_out(self, version: int, player: int) -> None:
        async with self.lock:
            if self.version != version or self.state.current_player() != player \
                    or self.status != "playing":
                return
            self.seats[player].away = True
            self.clock.stop()
            self.broadcast_presence()
        self.kick()

    # -- seats -------------------------------------------------------------------------------------
    @property
    def rematch_of(self) -> str | None:
        """The finished table this one is the rematch of: its seats are kept for that
        table's players, each taken only through :meth:`Hub.rematch` with their old token."""
        return self.settings.get("rematch_of")

    async def claim(self, seat: int | None, name: str, *, rematch: bool = False
                    ) -> tuple[int, str]:
        """Give a person an unclaimed human seat; returns (seat, token). Starts the game when
        every human seat is taken. A rematch's seats are taken only with ``rematch`` (the
        hub has checked the asker's seat at the last game)."""
        async with self.lock:
            if self.rematch_of is not None and not rematch:
                raise TableError(E.SEAT_RESERVED, "this table is a rematch: its seats are "
                                 "kept for the players of the last game, who take them "
                                 "with its rematch button")
            if self.status != "waiting":
                raise TableError(E.NOT_WAITING, "this table is no longer taking players")
            free = self.seats.free()
            if seat is None:
                if not free:
                    raise TableError(E.TABLE_FULL, "every seat is taken")
                seat = free[0]
            if not 0 <= seat < self.players:
                raise TableError(E.BAD_SEAT, f"seat must be 0-{self.players - 1}")
            if seat not in free:
                raise TableError(E.SEAT_TAKEN, f"seat {seat} is not free")
            token = new_token()
            digest = hash_token(token)
            ok = await self.hub.writer.submit(store.job_claim_seat(self.id, seat, name, digest))
            if not ok:
                raise TableError(E.SEAT_TAKEN, f"seat {seat} is not free")
            self.seats[seat].name = name
            self.seats[seat].token_hash = digest
            if len(free) == 1:
                await self._start({})
            else:
                self.broadcast_presence()
        self.kick()
        return seat, token

    async def start_now(self, host_token: str, bot: str) -> None:
        """The host starts without waiting: unclaimed seats become bots."""
        async with self.lock:
            if not self.host_hash or not same_token(host_token, self.host_hash):
                raise TableError(E.BAD_TOKEN, "only the table's host can start it")
            if self.status != "waiting":
                raise TableError(E.NOT_WAITING, "the game has already started")
            await self._start({seat: bot for seat in self.seats.free()})
        self.kick()

    async def _start(self, bots: dict[int, str]) -> None:
        await self.hub.writer.submit(store.job_set_status(self.id, "playing", bots))
        for seat, bot in bots.items():
            self.seats[seat].kind = "bot"
            self.seats[seat].bot = bot
        self.status = "playing"
        self.arm_clock()
        self.broadcast_update(self.version)

    def close(self) -> None:
        """Stop the clock and tell the connections; the driver stops by itself at its next
        step (``hub.closing``), so a move being committed is finished, not cut in half."""
        self.clock.stop()
        closing = E.error_message(TableError(E.SERVER_CLOSING,
                                             "the server is restarting; reconnecting"))
        for _, conns in self._audience():
            for conn in list(conns):
                conn.send_doc(closing)
                conn.closed = True


class RoomPort:
    """The driver's narrow view of a room (:class:`~fieldcraft.server.driver.TablePort`).
    Made at each kick and held only by the driver's running task, so it holds the room
    strongly, as any coroutine working on the room does, and the room is no cycle."""

    __slots__ = ("_room",)

    def __init__(self, room: Room):
        self._room = room

    @property
    def table_id(self) -> str:
        return self._room.id

    @property
    def lock(self) -> asyncio.Lock:
        return self._room.lock

    @property
    def closing(self) -> bool:
        return self._room.hub.closing

    @property
    def playing(self) -> bool:
        return self._room.status == "playing"

    @property
    def bot_delay(self) -> float:
        return self._room.hub.bot_delay

    @property
    def state(self) -> State:
        return self._room.table.state

    @property
    def version(self) -> int:
        return self._room.table.version

    def bot_for(self, player: int) -> str | None:
        seat = self._room.seats[player]
        if not (seat.is_bot or seat.away):
            return None
        if seat.is_bot and seat.bot:
            return seat.bot
        return self._room.settings.get("proxy_bot", "random")

    async def commit(self, moves: list[tuple[int, int, bool]]) -> None:
        await self._room.commit(moves)


def _pending(msg: P.Message) -> tuple[int, int | None] | None:
    return None if msg.pending_version is None else (msg.pending_version, msg.pending_action)
