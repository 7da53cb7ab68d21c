"""A live table on the server: its :class:`Table`, seats, connections and one lock.

A :class:`Room` serialises everything that changes its table behind one ``asyncio.Lock`` and
dispatches each client message to the part of the room it concerns, one module each (as lila's
``round`` has one class per concern and its actor only serialises):

* :mod:`~fieldcraft.server.play`: a person's move, checked before anything changes;
* :mod:`~fieldcraft.server.broadcast`: storing a change, then telling each connection its own
  cut of it (the state in memory never runs ahead of the database, and a crash between
  "applied" and "committed" leaves nothing that anyone has been told about);
* :mod:`~fieldcraft.server.seating`: claiming a seat, and the start of the game;
* :mod:`~fieldcraft.server.chat`: the chat lines and each seat's chat limit;
* :mod:`~fieldcraft.server.rematch`: the follow-up of a finished table;
* :mod:`~fieldcraft.server.clock`: whose turn is timed, and what a timeout does;
* :mod:`~fieldcraft.server.driver`: bots and chance, through the narrow :class:`RoomPort`;
* :mod:`~fieldcraft.server.restore`: a room rebuilt from its stored rows.

None of them links back to the room (the clock's timeout holds it weakly, the driver's port
lives only while the driver runs), so an evicted room is freed by reference counting alone.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from fieldcraft.core.api import State
from fieldcraft.core.errors import FieldcraftError
from fieldcraft.server import access, broadcast, play, seating, store
from fieldcraft.server import errors as E
from fieldcraft.server import protocol as P
from fieldcraft.server.chat import Chat
from fieldcraft.server.clock import TurnClock, arm_turn, bank_of, timeout_handler
from fieldcraft.server.connection import Connection
from fieldcraft.server.driver import Driver
from fieldcraft.server.errors import TableError
from fieldcraft.server.rematch import Rematch
from fieldcraft.server.seats import Seats, SeatState, hash_token, same_token
from fieldcraft.server.table import Table

if TYPE_CHECKING:
    from fieldcraft.server.hub import Hub

log = logging.getLogger("fieldcraft.server")


class Room:
    """One table: what it is (its stored row's facts), its table and seats, who is connected,
    and its parts (chat, rematch, clock, driver). Its methods are the entry points: a client
    message (:meth:`handle`), a seat claimed or the game started over HTTP, a connection
    closed; each hands the work to the module of its concern."""

    def __init__(self, hub: Hub, row: store.TableRow, table: Table,
                 chat: list[store.ChatRow] | None = None):
        self.hub = hub
        self.id = row.id
        self.game_name = row.game
        self.players = row.players
        self.overrides = row.overrides
        self.settings = row.settings
        live = seating.take_live(self.settings)  # banks, concessions: not what a rematch copies
        self.status = row.status
        self.host_hash = row.host_hash
        self.created_at = row.created_at
        self.public = row.public
        self.join_code = row.join_code
        self.result = row.result
        self.branch_of = row.branch_of
        self.branch_step = row.branch_step
        self.branch_seat = row.branch_seat
        self.table = table
        conceded = live.get(seating.CONCEDED_KEY) or []
        self.seats = Seats([SeatState(seat=s.seat, kind=s.kind, bot=s.bot, name=s.name,
                                      token_hash=s.token_hash, conceded=s.seat in conceded)
                            for s in row.seats])
        self.spectators: set[Connection] = set()
        self.lock = asyncio.Lock()
        self.chat = Chat(chat if chat is not None else [], hub.limits.clock)
        self.rematch = Rematch(row.rematch_id, self.settings.get("rematch_of"))
        self.bank = bank_of({**self.settings, **live}, row.players, hub.limits.clock)
        self.clock = TurnClock(self.settings, lambda: hub.away_grace, timeout_handler(self),
                               self.bank)
        self.driver = Driver(self.settings.get("seed"))

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
                "clock": self.settings.get("clock"),
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

    def you(self, seat: int | None) -> dict[str, Any] | None:
        """What a seat's own ``sync`` says of it (``None`` for a spectator): its number, its
        name and the follow-up table if a rematch was made, which only players are told."""
        if seat is None:
            return None
        return {"seat": seat, "name": self.seats[seat].name, "rematch": self.rematch.url}

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

    def idle(self) -> bool:
        return not self.spectators and not self.seats.connected()

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
            if conn.seat is None and msg.type in ("act", "back", "chat", "concede"):
                raise TableError(E.SPECTATOR, "spectators cannot act; take a seat or "
                                 "reconnect with your seat token")
            self._check_token(conn, msg)
            await self._dispatch(conn, msg)
        except FieldcraftError as exc:
            conn.send_doc(E.error_message(exc, getattr(exc, "msg_id", None) or msg_id))
        except Exception:  # noqa: BLE001 - a bug must not close the socket without a word
            # Every change is prepared on a clone and accepted only after its commit, so a
            # message that failed here changed nothing; say so instead of dropping the socket.
            log.exception("table %s: message could not be handled", self.id)
            conn.send_doc(E.error_message(TableError(
                E.INTERNAL, "the server could not handle this message; nothing changed"),
                msg_id))

    async def _dispatch(self, conn: Connection, msg: P.Message) -> None:
        """A checked message of a connection that said hello, to the part it concerns."""
        if msg.type == "ping":
            conn.send_doc({"type": "pong", "id": msg.id, "version": self.version})
        elif msg.type == "sync":
            async with self.lock:
                conn.send(broadcast.sync_text(self, conn.seat, msg.last_version,
                                              _pending(msg)))
        elif msg.type == "chat":
            await self.chat.say(self, conn, msg)
        elif msg.type == "back":
            async with self.lock:
                self._returned(conn.seat)
        elif msg.type == "act":
            await play.act(self, conn, msg)
            self.kick()
        elif msg.type == "concede":
            await seating.concede(self, conn)
            self.kick()

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
            conn.send(broadcast.sync_text(self, seat, msg.last_version, _pending(msg)))
            if seat is not None:
                broadcast.send_presence(self)
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
                broadcast.send_presence(self)

    def _returned(self, seat: int | None) -> None:
        if seat is not None and self.seats[seat].away:
            self.seats[seat].away = False
            self.arm_clock()
            broadcast.send_presence(self)

    # -- the clock and the driver ------------------------------------------------------------------
    def arm_clock(self) -> None:
        """(Re)start the clock of the person to move, if there is one."""
        arm_turn(self)

    def kick(self) -> None:
        """Wake the driver if chance or a bot is to move, handing it the table's port."""
        self.driver.kick(RoomPort(self))

    # -- seats -------------------------------------------------------------------------------------
    async def claim(self, seat: int | None, name: str, *, rematch: bool = False
                    ) -> tuple[int, str]:
        """Give a person an unclaimed human seat; returns (seat, token). Starts the game when
        every human seat is taken. A rematch's seats are taken only with ``rematch`` (the
        hub has checked the asker's seat at the last game)."""
        taken = await seating.claim(self, seat, name, rematch)
        self.kick()
        return taken

    async def start_now(self, host_token: str, bot: str) -> None:
        """The host starts without waiting: unclaimed seats become bots."""
        await seating.start_now(self, host_token, bot)
        self.kick()

    def close(self) -> None:
        """Stop the clock and tell the connections; the driver stops by itself at its next
        step (``hub.closing``), so a move being committed is finished, not cut in half."""
        self.clock.stop()
        closing = E.error_message(TableError(E.SERVER_CLOSING,
                                             "the server is restarting; reconnecting"))
        for _, conns in broadcast.audience(self):
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
        room = self._room
        if not room.seats.played_by_bot(player):
            return None
        seat = room.seats[player]
        return seat.bot if seat.is_bot and seat.bot else room.settings.get("proxy_bot", "random")

    async def commit(self, moves: list[tuple[int, int, bool]]) -> None:
        await broadcast.commit(self._room, moves)


def _pending(msg: P.Message) -> tuple[int, int | None] | None:
    return None if msg.pending_version is None else (msg.pending_version, msg.pending_action)
