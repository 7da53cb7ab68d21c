"""Rooms: one live game table each, and the hub that holds them.

A :class:`Room` owns the authoritative ``State`` of one game and serialises everything that
changes it behind one ``asyncio.Lock``. A change is always done the same way: apply the actions to
a *clone*, commit the action rows (the writer thread), and only then swap the clone in, answer the
actor and tell every connection. So the in-memory state never runs ahead of the database, and a
crash between "applied" and "committed" leaves nothing that anyone has been told about.

Visibility is decided in one place, :meth:`Room.view_for`: a seat receives its own
``observation(seat)``, the names of its legal choices only when it is that seat's turn, and its
own log lines from ``describe_action(action, seat)``; a spectator receives ``observation(None)``
and the public log. Nothing else about the state is ever sent.

Bots and chance act on the server in a per-room "driver" task. A seat whose person timed out or
left is played by a stand-in bot (``away``) until the person returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fieldcraft.agents import AGENTS, Agent, View, make_agent
from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    FieldcraftError,
    MalformedActionError,
    State,
    sample_chance,
)
from fieldcraft.core.registry import load_game
from fieldcraft.server import protocol as P
from fieldcraft.server import store
from fieldcraft.server.protocol import Message, ProtocolError

log = logging.getLogger("fieldcraft.server")

AWAY_GRACE = 10.0
"""Seconds a disconnected person's turn waits before the stand-in bot plays it (when the table
has a turn timer), so that reloading the page does not hand the turn to a bot."""
SNAPSHOT_EVERY = 50
CHANCE_BATCH = 256
SEND_QUEUE = 2000


def hash_token(token: str) -> str:
    """Tokens are stored only as SHA-256 digests: a leaked database cannot be used to play."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def dumps(doc: Any) -> str:
    """Compact JSON. Messages are trees built here, never cyclic, so the cycle check (a third
    of the encoding time of a view) is skipped."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False, check_circular=False)


class Connection:
    """One WebSocket. Messages go through a bounded queue drained by :meth:`pump`, so a slow
    client never stalls a room; a client that falls too far behind is closed and resyncs."""

    def __init__(self, ws: Any):
        self.ws = ws
        self.seat: int | None = None
        self.token_hash: str | None = None
        self.ready = False  # after a valid hello
        self.closed = False
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=SEND_QUEUE)

    def send(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.get_nowait()
                self.queue.put_nowait(None)

    def send_doc(self, doc: dict[str, Any]) -> None:
        self.send(dumps(doc))

    async def pump(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    await self.ws.close(code=4008)
                    return
                await self.ws.send_text(text)
        except Exception:  # noqa: BLE001 - the socket went away; the reader will notice
            self.closed = True


@dataclass
class SeatState:
    seat: int
    kind: str  # "human" | "bot"
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None
    away: bool = False
    connections: set[Connection] = field(default_factory=set)

    @property
    def is_bot(self) -> bool:
        return self.kind == "bot"

    def public(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "bot": self.bot, "name": self.name,
                "claimed": self.is_bot or self.token_hash is not None,
                "connected": bool(self.connections), "away": self.away}


class Room:
    """One table: game state, seats, connections, the driver task and the turn timer."""

    def __init__(self, hub: Hub, row: store.TableRow, state: State):
        self.hub = hub
        self.id = row.id
        self.game_name = row.game
        self.players = row.players
        self.overrides = row.overrides
        self.settings = row.settings
        self.status = row.status
        self.host_hash = row.host_hash
        self.created_at = row.created_at
        self.result = row.result
        self.game = state.game
        self.state = state
        self.version = len(state.history())
        self.seats = [store_seat(s) for s in row.seats]
        self.spectators: set[Connection] = set()
        self.lock = asyncio.Lock()
        self._lines: list[tuple[str | None, ...]] | None = None
        self._driver: asyncio.Task[None] | None = None
        self._kicked = False
        self._timer: asyncio.TimerHandle | None = None
        self.deadline: float | None = None
        self.agents: dict[int, Agent] = {}
        self.last_snapshot = 0
        self._seed = self.settings.get("seed")
        self._rng = random.Random(secrets.randbits(256))
        self._rng_draws = 0

    # -- loading -----------------------------------------------------------------------------
    @classmethod
    def from_row(cls, hub: Hub, row: store.TableRow) -> Room:
        """Rebuild the state: snapshot + the actions after it, or, if the snapshot cannot be
        used (say the game's code changed its fields), a full replay of the action list."""
        game = load_game(row.game, players=row.players, **row.overrides)
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
            every = store.read_all_actions(hub.engine, row.id)
            state = game.replay(every)
        if len(state.history()) != row.version:
            log.warning("table %s: %d actions stored, version column says %d", row.id,
                        len(state.history()), row.version)
        room = cls(hub, row, state)
        room.last_snapshot = row.snapshot[0] if row.snapshot else 0
        return room

    # -- lines ---------------------------------------------------------------------------------
    @property
    def lines(self) -> list[tuple[str | None, ...]]:
        """Per action, the log line of every seat and (last) of a spectator. Built lazily by
        replaying the history, since a resumed room may never be asked for its old log."""
        if self._lines is None:
            scratch = self.game.new_initial_state()
            built = []
            for action in self.state.history():
                built.append(self._describe(scratch, action))
                scratch.apply_action(action)
            self._lines = built
        return self._lines

    def _describe(self, state: State, action: int) -> tuple[str | None, ...]:
        out = [state.describe_action(action, seat) for seat in range(self.players)]
        out.append(state.describe_action(action, None))
        return tuple(out)

    def log_for(self, seat: int | None, since: int) -> list[dict[str, Any]]:
        """Log entries (version, line) that ``seat`` sees for versions after ``since``."""
        col = self.players if seat is None else seat
        lines = self.lines
        return [{"version": v + 1, "line": lines[v][col]} for v in range(since, len(lines))
                if lines[v][col] is not None]

    # -- views ---------------------------------------------------------------------------------
    def seat_info(self) -> list[dict[str, Any]]:
        return [s.public() for s in self.seats]

    def table_info(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game_name, "players": self.players,
                "overrides": self.overrides,
                "turn_seconds": self.settings.get("turn_seconds"),
                "away_bot": self.settings.get("away_bot", True),
                "status": self.status, "version": self.version, "seats": self.seat_info(),
                "created_at": self.created_at.isoformat() if self.created_at else None}

    def deadline_in(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, round(self.deadline - time.time(), 1))

    def view_for(self, seat: int | None, seats: list[dict[str, Any]] | None = None
                 ) -> dict[str, Any]:
        """Everything one seat (``None``: a spectator) is sent about the game right now.
        ``seats`` is the public seat list when the caller already built it (a broadcast)."""
        state = self.state
        player = state.current_player()
        choices: list[list[Any]] = []
        if seat is not None and player == seat and self.status == "playing" \
                and not self.seats[seat].is_bot:
            choices = [[a, state.action_to_string(a)] for a in state.legal_actions()]
        view: dict[str, Any] = {
            "version": self.version,
            "status": self.status,
            "current_player": player if player >= 0 else None,
            "terminal": player == TERMINAL,
            "observation": state.observation(seat),
            "choices": choices,
            "seats": self.seat_info() if seats is None else seats,
            "deadline_in": self.deadline_in(),
            "result": None,
        }
        if player == TERMINAL:
            view["result"] = {"winners": state.winners(), "outcome": state.outcome()}
        return view

    def _connections(self) -> Iterable[tuple[int | None, set[Connection]]]:
        for s in self.seats:
            if s.connections:
                yield s.seat, s.connections
        if self.spectators:
            yield None, self.spectators

    def broadcast_update(self, since: int) -> None:
        seats = self.seat_info()
        for seat, conns in self._connections():
            text = dumps({"type": "update", "since": since, "version": self.version,
                          "events": self.log_for(seat, since),
                          "view": self.view_for(seat, seats)})
            for conn in list(conns):
                conn.send(text)

    def broadcast_presence(self) -> None:
        text = dumps({"type": "presence", "version": self.version, "seats": self.seat_info(),
                      "deadline_in": self.deadline_in(), "status": self.status})
        for _, conns in self._connections():
            for conn in list(conns):
                conn.send(text)

    def sync_message(self, seat: int | None, last_version: int | None) -> dict[str, Any]:
        """What a (re)connecting client missed: the events after ``last_version`` if it is a
        version this room has had, else the whole log; always with a fresh view."""
        since = last_version if last_version is not None and last_version <= self.version else 0
        you = None
        if seat is not None:
            you = {"seat": seat, "name": self.seats[seat].name}
        return {"type": "sync", "since": since, "version": self.version,
                "events": self.log_for(seat, since), "view": self.view_for(seat),
                "table": self.table_info(), "you": you}

    # -- messages ------------------------------------------------------------------------------
    def _check_token(self, conn: Connection, msg: Message) -> None:
        if conn.seat is None:
            if msg.token is not None:
                raise ProtocolError(P.BAD_TOKEN, "spectators send no token", msg.id)
            return
        if msg.token is None or not hmac.compare_digest(hash_token(msg.token),
                                                        conn.token_hash or ""):
            raise ProtocolError(P.BAD_TOKEN, "missing or wrong seat token", msg.id)

    async def handle(self, conn: Connection, raw: str | bytes) -> None:
        """Handle one client message; a refused message gets an error and changes nothing."""
        try:
            msg = P.parse_message(raw)
            if not conn.ready:
                if msg.type != "hello":
                    raise ProtocolError(P.HELLO_REQUIRED, "the first message must be 'hello'",
                                        msg.id)
                await self._hello(conn, msg)
                return
            if msg.type == "hello":
                raise ProtocolError(P.BAD_MESSAGE, "already said hello", msg.id)
            if conn.seat is None and msg.type in ("act", "back"):
                raise ProtocolError(P.SPECTATOR, "spectators cannot act; take a seat or "
                                    "reconnect with your seat token", msg.id)
            self._check_token(conn, msg)
            if msg.type == "ping":
                conn.send_doc({"type": "pong", "id": msg.id, "version": self.version})
            elif msg.type == "sync":
                async with self.lock:
                    conn.send_doc(self.sync_message(conn.seat, msg.last_version))
            elif msg.type == "back":
                async with self.lock:
                    self._returned(conn.seat)
            elif msg.type == "act":
                await self._act(conn, msg)
        except ProtocolError as exc:
            conn.send_doc(exc.payload())

    async def _hello(self, conn: Connection, msg: Message) -> None:
        async with self.lock:
            seat: int | None = None
            if msg.token is not None:
                digest = hash_token(msg.token)
                for s in self.seats:
                    if s.token_hash and hmac.compare_digest(s.token_hash, digest):
                        seat = s.seat
                if seat is None:
                    raise ProtocolError(P.BAD_TOKEN, "this token holds no seat at this table",
                                        msg.id)
                conn.token_hash = digest
            conn.seat = seat
            conn.ready = True
            if seat is None:
                self.spectators.add(conn)
            else:
                self.seats[seat].connections.add(conn)
                self.seats[seat].away = False
                self._arm_timer()
            conn.send_doc(self.sync_message(seat, msg.last_version))
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
                self._arm_timer()
                self.broadcast_presence()

    def _returned(self, seat: int | None) -> None:
        if seat is not None and self.seats[seat].away:
            self.seats[seat].away = False
            self._arm_timer()
            self.broadcast_presence()

    async def _act(self, conn: Connection, msg: Message) -> None:
        async with self.lock:
            seat = conn.seat
            if seat is None:
                raise ProtocolError(P.SPECTATOR, "spectators cannot act", msg.id)
            if self.status == "waiting":
                raise ProtocolError(P.NOT_STARTED, "the table is still waiting for players",
                                    msg.id)
            if self.status == "finished" or self.state.is_terminal():
                raise ProtocolError(P.GAME_OVER, "the game is over", msg.id)
            if msg.version != self.version:
                raise ProtocolError(P.STALE_VERSION, f"your view is version {msg.version}; the "
                                    f"table is at version {self.version}", msg.id)
            if self.state.current_player() != seat:
                raise ProtocolError(P.NOT_YOUR_TURN, "it is not your turn", msg.id)
            if msg.action_text is not None:
                try:
                    action = self.state.string_to_action(msg.action_text)
                except MalformedActionError as exc:
                    raise ProtocolError(P.MALFORMED_ACTION, str(exc), msg.id) from None
                except Exception:  # noqa: BLE001 - any other parser failure is the same thing
                    raise ProtocolError(P.MALFORMED_ACTION, "that is not an action of this "
                                        "game", msg.id) from None
            else:
                action = int(msg.action or 0)
            if action not in self.state.legal_actions():
                raise ProtocolError(P.ILLEGAL_ACTION, "that action is not allowed now", msg.id)
            self.seats[seat].away = False
            try:
                await self._commit([(action, seat, False)], ack=(conn, msg.id))
            except store.StorageError as exc:
                raise ProtocolError(P.STORAGE_ERROR, f"could not save the action: {exc}",
                                    msg.id) from None
        self.kick()

    # -- changing the state ---------------------------------------------------------------------
    async def _commit(self, moves: list[tuple[int, int, bool]],
                      ack: tuple[Connection, Any] | None = None) -> None:
        """Apply ``moves`` (action, actor, by_bot) to a clone, then the chance draws that follow
        them, commit all of it in one transaction, then swap the clone in and tell everyone.

        Folding the chance draws (the card drawn at the end of a turn, the next deal) into the
        move that caused them saves a commit and a whole round of messages per turn. Must be
        called with the lock held. On a storage failure nothing changes (the clone is dropped)
        and :class:`store.StorageError` propagates."""
        scratch = self.state.clone()
        moves = list(moves)
        new_lines = []
        lines_ready = self._lines is not None
        for action, _, _ in moves:
            if lines_ready:
                new_lines.append(self._describe(scratch, action))
            scratch.apply_action(action)
        chance = 0
        while scratch.is_chance_node() and chance < CHANCE_BATCH:
            action = sample_chance(scratch, self._chance_rng(self.version + len(moves)))
            if lines_ready:
                new_lines.append(self._describe(scratch, action))
            scratch.apply_action(action)
            moves.append((action, CHANCE, False))
            chance += 1
        if not moves:
            return
        since = self.version
        version = since + len(moves)
        terminal = scratch.is_terminal()
        status = "finished" if terminal else None
        result = None
        if terminal:
            result = {"winners": scratch.winners(), "outcome": scratch.outcome()}
        snapshot = None
        if terminal or version - self.last_snapshot >= self.hub.snapshot_every:
            snapshot = scratch.to_json()
        await self.hub.writer.submit(store.job_append_actions(
            self.id, since + 1, [(a, actor, by_bot) for a, actor, by_bot in moves],
            snapshot=snapshot, status=status, result=result))
        self.state = scratch
        self.version = version
        if snapshot is not None:
            self.last_snapshot = version
        if lines_ready and self._lines is not None:
            self._lines.extend(new_lines)
        if terminal:
            self.status = "finished"
            self.result = result
            self.hub._evict_finished()
        self._arm_timer()
        if ack is not None:
            conn, msg_id = ack
            # the version of the acknowledged action itself (chance draws may follow it)
            conn.send_doc({"type": "ack", "id": msg_id, "version": since + 1})
        self.broadcast_update(since)
        self.hub.actions_committed += len(moves)

    def kick(self) -> None:
        """Make sure the driver runs if chance or a bot is to move."""
        if self.status != "playing" or self.hub.closing:
            return
        self._kicked = True
        if self._driver is None or self._driver.done():
            self._driver = asyncio.create_task(self._drive())

    def _auto_mover(self) -> str:
        player = self.state.current_player()
        if player == TERMINAL:
            return "over"
        if player == CHANCE:
            return "chance"
        seat = self.seats[player]
        if seat.is_bot or seat.away:
            return "bot"
        return "human"

    async def _drive(self) -> None:
        """Play chance and bot moves until a person is to move or the game is over."""
        try:
            while not self.hub.closing:
                self._kicked = False
                async with self.lock:
                    if self.status != "playing":
                        return
                    kind = self._auto_mover()
                    if kind == "chance":
                        await self._commit([])  # just the chance draws
                        continue
                    if kind != "bot":
                        return
                    version = self.version
                if self.hub.bot_delay > 0:
                    await asyncio.sleep(self.hub.bot_delay)
                async with self.lock:
                    if self.hub.closing:
                        return
                    if self.version != version or self.status != "playing" \
                            or self._auto_mover() != "bot":
                        continue
                    player = self.state.current_player()
                    action = await self._bot_action(player)
                    await self._commit([(action, player, True)])
        except store.StorageError as exc:
            log.error("table %s: could not save a bot/chance move (%s); retrying", self.id, exc)
            if not self.hub.closing:
                asyncio.get_running_loop().call_later(1.0, self.kick)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: driver failed", self.id)

    def _chance_rng(self, version: int) -> random.Random:
        """Chance draws are unpredictable unless the table was created with a seed, in which
        case each draw depends only on (seed, version): reproducible even across restarts,
        which the tests rely on.

        Unpredictable means a generator seeded with 256 bits from ``secrets`` and re-seeded
        every 64 draws, so that no one can rebuild its state from the cards they have seen;
        (``SystemRandom`` costs a system call per draw, which showed up under load)."""
        if self._seed is not None:
            return random.Random(f"{self._seed}/{version}")
        self._rng_draws += 1
        if self._rng_draws >= 64:
            self._rng.seed(secrets.randbits(256))
            self._rng_draws = 0
        return self._rng

    async def _bot_action(self, player: int) -> int:
        seat = self.seats[player]
        name = seat.bot if seat.is_bot and seat.bot else self.settings.get("proxy_bot", "random")
        agent = self.agents.get(player)
        if agent is None or getattr(agent, "name", None) != name:
            seed = None if self._seed is None else hash((self._seed, player, self.version))
            agent = make_agent(name, seed)
            self.agents[player] = agent
        view = View(self.state.clone(), player)
        if name == "random":
            action = agent.act(view)
        else:
            action = await asyncio.to_thread(agent.act, view)
        legal = self.state.legal_actions()
        if action not in legal:
            log.error("table %s: bot %s chose illegal action %r; playing random", self.id, name,
                      action)
            action = legal[self._rng.randrange(len(legal))]
        return action

    # -- turn timer ----------------------------------------------------------------------------
    def _arm_timer(self) -> None:
        """(Re)start the clock of the person to move.

        Two things hand a turn to the stand-in bot: the table's turn timer running out
        (``turn_seconds``), and the person having left (no connection) for ``away_grace``
        seconds while it is their turn, unless the table was created with ``away_bot`` off
        (then, without a timer, it waits for them however long it takes)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.deadline = None
        if self.status != "playing" or self.hub.closing:
            return
        player = self.state.current_player()
        if player < 0:
            return
        seat = self.seats[player]
        if seat.is_bot or seat.away:
            return
        limit = self.settings.get("turn_seconds")
        delays = [float(limit)] if limit else []
        if not seat.connections and self.settings.get("away_bot", True):
            delays.append(self.hub.away_grace)
        if not delays:
            return
        delay = min(delays)
        self.deadline = time.time() + delay
        version = self.version
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(
            delay, lambda: self.hub.spawn(self._timed_out(version, player)))

    async def _timed_out(self, version: int, player: int) -> None:
        async with self.lock:
            if self.version != version or self.state.current_player() != player \
                    or self.status != "playing":
                return
            self.seats[player].away = True
            self.deadline = None
            self.broadcast_presence()
        self.kick()

    # -- seats -----------------------------------------------------------------------------------
    async def claim(self, seat: int | None, name: str) -> tuple[int, str]:
        """Give a person an unclaimed human seat; returns (seat, token). Starts the game when
        every human seat is taken."""
        async with self.lock:
            if self.status != "waiting":
                raise HttpError(409, "not_waiting", "this table is no longer taking players")
            free = [s.seat for s in self.seats if not s.is_bot and s.token_hash is None]
            if seat is None:
                if not free:
                    raise HttpError(409, "table_full", "every seat is taken")
                seat = free[0]
            if not 0 <= seat < self.players:
                raise HttpError(400, "bad_seat", f"seat must be 0-{self.players - 1}")
            if seat not in free:
                raise HttpError(409, "seat_taken", f"seat {seat} is not free")
            token = new_token()
            digest = hash_token(token)
            ok = await self.hub.writer.submit(store.job_claim_seat(self.id, seat, name, digest))
            if not ok:
                raise HttpError(409, "seat_taken", f"seat {seat} is not free")
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
            if not self.host_hash or not hmac.compare_digest(hash_token(host_token),
                                                             self.host_hash):
                raise HttpError(403, "bad_token", "only the table's host can start it")
            if self.status != "waiting":
                raise HttpError(409, "not_waiting", "the game has already started")
            bots = {s.seat: bot for s in self.seats if not s.is_bot and s.token_hash is None}
            await self._start(bots)
        self.kick()

    async def _start(self, bots: dict[int, str]) -> None:
        await self.hub.writer.submit(store.job_set_status(self.id, "playing", bots))
        for seat, bot in bots.items():
            self.seats[seat].kind = "bot"
            self.seats[seat].bot = bot
        self.status = "playing"
        self._arm_timer()
        self.broadcast_update(self.version)

    def close(self) -> None:
        """Stop the timer and tell the connections; the driver stops by itself at its next
        step (``hub.closing``), so a move being committed is finished, not cut in half."""
        if self._timer is not None:
            self._timer.cancel()
        for _, conns in list(self._connections()):
            for conn in list(conns):
                conn.send_doc({"type": "error", "code": P.SERVER_CLOSING,
                               "message": "the server is restarting; reconnecting"})
                conn.closed = True


def store_seat(row: store.SeatRow) -> SeatState:
    return SeatState(seat=row.seat, kind=row.kind, bot=row.bot, name=row.name,
                     token_hash=row.token_hash)


class HttpError(Exception):
    """An HTTP-level refusal with a status, a stable code and a human message."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class Hub:
    """All rooms of this server, the database writer, and the background tasks."""

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
            room._arm_timer()
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
                    self._evict_finished()
                    room._arm_timer()
                    room.kick()  # a live table that missed the start-up resume plays on
            fut.set_result(room)
            return room
        except Exception as exc:
            fut.set_exception(exc)
            raise
        finally:
            del self._loading[table_id]

    def _evict_finished(self, keep: int = 200) -> None:
        finished = [r for r in self.rooms.values() if r.status == "finished"
                    and not r.spectators and not any(s.connections for s in r.seats)]
        for room in finished[:-keep] if len(finished) > keep else []:
            del self.rooms[room.id]

    async def create(self, game: str, players: int, seat_kinds: list[tuple[str, str | None]],
                     overrides: dict[str, Any], settings: dict[str, Any],
                     host_seat: int | None, name: str) -> tuple[Room, str, int | None]:
        """Create a table; returns (room, host token, host's seat or None)."""
        loaded = load_game(game, players=players, **overrides)
        for kind, bot in seat_kinds:
            if kind == "bot" and bot not in AGENTS:
                raise HttpError(400, "unknown_bot", f"unknown bot {bot!r}; known bots: "
                                f"{', '.join(sorted(AGENTS))}")
        host_token = new_token()
        host_hash = hash_token(host_token)
        seats = [store.SeatRow(i, kind, bot if kind == "bot" else None)
                 for i, (kind, bot) in enumerate(seat_kinds)]
        if host_seat is not None:
            if not 0 <= host_seat < players or seats[host_seat].kind != "human":
                raise HttpError(400, "bad_seat", "your seat must be one of the human seats")
            seats[host_seat].name = name
            seats[host_seat].token_hash = host_hash
        open_seats = [s for s in seats if s.kind == "human" and s.token_hash is None]
        status = "waiting" if open_seats else "playing"
        table_id = secrets.token_urlsafe(6)
        while table_id in self.rooms:
            table_id = secrets.token_urlsafe(6)
        row = store.TableRow(id=table_id, game=game, players=players, overrides=overrides,
                             settings=settings, status=status, host_hash=host_hash, version=0,
                             result=None, created_at=store.now(), seats=seats)
        await self.writer.submit(store.job_create_table(row))
        room = Room(self, row, loaded.new_initial_state())
        room._lines = []
        self.rooms[table_id] = room
        room._arm_timer()
        room.kick()
        return room, host_token, host_seat

    def live_rooms(self) -> list[Room]:
        return [r for r in self.rooms.values() if r.status in ("waiting", "playing")]

    async def close(self, grace: float = 5.0) -> None:
        """Shut down: let moves being committed finish (up to ``grace`` seconds), so the
        rooms in memory end exactly where the database does; then cancel what is left."""
        self.closing = True
        for room in self.rooms.values():
            room.close()
        tasks = [r._driver for r in self.rooms.values()
                 if r._driver is not None and not r._driver.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        tasks += list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
