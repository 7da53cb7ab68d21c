"""The bot and chance driver of one table: plays chance and bot moves until a person is to move.

It runs as one asyncio task per table, started (``kick``) whenever something may have made it a
bot's or chance's turn. Bots see ``View(state, seat)`` only, like at the terminal, and think in a
worker thread (the search bot takes a second), so the server stays responsive; a bot that
returned an illegal action is logged and a random legal one is played instead.

The driver keeps no link to its room. Each ``kick`` hands it a :class:`TablePort`, the little
it may see and do at the table (the state and version, who plays a seat, the lock, a commit),
and only the task that runs holds it, so the room and its driver are no reference cycle.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Protocol

from fieldcraft.agents import Agent, View
from fieldcraft.agents.levels import make_level_agent
from fieldcraft.core.api import CHANCE, TERMINAL, State
from fieldcraft.server import store

log = logging.getLogger("fieldcraft.server")


class TablePort(Protocol):
    """What a driver sees of its table and may do there (the room's :class:`RoomPort`)."""

    @property
    def table_id(self) -> str: ...

    @property
    def lock(self) -> asyncio.Lock:
        """The table's lock: every look and every commit is made holding it."""
        ...

    @property
    def closing(self) -> bool:
        """The server is shutting down: start nothing new."""
        ...

    @property
    def playing(self) -> bool:
        """The table's game is being played (not waiting, finished or expired)."""
        ...

    @property
    def bot_delay(self) -> float:
        """Seconds to wait before each bot move, so people can follow the table."""
        ...

    @property
    def state(self) -> State: ...

    @property
    def version(self) -> int: ...

    def bot_for(self, player: int) -> str | None:
        """The bot playing seat ``player`` now (its own, or the stand-in of a person who is
        away); ``None`` when a person plays it."""
        ...

    async def commit(self, moves: list[tuple[int, int, bool]]) -> None:
        """Store ``moves`` (action, seat, by_bot) and the chance draws after them, then tell
        everyone (lock held); ``store.StorageError`` if they could not be stored."""
        ...


class Driver:
    def __init__(self, seed: int | None):
        self.seed = seed
        self.agents: dict[int, Agent] = {}
        self._task: asyncio.Task[None] | None = None
        self._rng: random.Random = random.SystemRandom()

    def kick(self, port: TablePort) -> None:
        """Make sure the driver runs if chance or a bot is to move."""
        if not port.playing or port.closing:
            return
        if self._task is None or self._task.done():
            if self.next_mover(port) in ("human", "over"):
                return  # nothing to play: no task (this is most kicks, one after every move)
            self._task = asyncio.create_task(self._drive(port))

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    @staticmethod
    def next_mover(port: TablePort) -> str:
        """``"chance"``, ``"bot"``, ``"human"`` or ``"over"``."""
        player = port.state.current_player()
        if player == TERMINAL:
            return "over"
        if player == CHANCE:
            return "chance"
        return "human" if port.bot_for(player) is None else "bot"

    async def _drive(self, port: TablePort) -> None:
        try:
            while not port.closing:
                async with port.lock:
                    if not port.playing:
                        return
                    kind = self.next_mover(port)
                    if kind == "chance":
                        await port.commit([])  # just the chance draws
                        continue
                    if kind != "bot":
                        return
                    version = port.version
                if port.bot_delay > 0:
                    await asyncio.sleep(port.bot_delay)
                async with port.lock:
                    if port.closing:
                        return
                    if port.version != version or not port.playing \
                            or self.next_mover(port) != "bot":
                        continue
                    player = port.state.current_player()
                    action = await self._bot_action(port, player)
                    await port.commit([(action, player, True)])
        except store.StorageError as exc:
            log.error("table %s: could not save a bot/chance move (%s); retrying",
                      port.table_id, exc)
            if not port.closing:
                asyncio.get_running_loop().call_later(1.0, self.kick, port)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: driver failed", port.table_id)

    def chance_rng(self, version: int) -> random.Random:
        """The generator for the chance draw that makes ``version``.

        Unseeded (every table people play for real): ``random.SystemRandom``, the operating
        system's CSPRNG, so no one can predict a deal from the cards they have seen, the time
        or the table id: a Mersenne Twister's state can be rebuilt from its outputs, this one
        has no state to rebuild. It costs 0.2-1.9 us more a draw than the Twister (measured in
        ``sample_chance``), nothing beside a move's ~0.9 ms.
        Durability does not need the generator: every draw is stored as an action and a
        restarted server replays the stored draws, then draws on with a fresh generator.

        Seeded (only on a server started with ``--allow-seeded-tables``, for tests and demos,
        and announced to every seat): each draw depends only on (seed, version), so the same
        seed gives the same game even across restarts, and whoever knows the seed knows
        every hidden card."""
        if self.seed is not None:
            return random.Random(f"{self.seed}/{version}")
        return self._rng

    async def _bot_action(self, port: TablePort, player: int) -> int:
        name = port.bot_for(player)
        assert name is not None  # next_mover found a bot playing this seat
        agent = self.agents.get(player)
        if agent is None or getattr(agent, "name", None) != name:
            seed = None if self.seed is None else hash((self.seed, player, port.version))
            # A level (its web id) is this game's spec for that level (agents/levels.py).
            agent = make_level_agent(port.state.game.name, name, seed)
            self.agents[player] = agent
        state = port.state
        view = View(state.clone(), player)
        if name == "random":
            action = agent.act(view)
        else:
            action = await asyncio.to_thread(agent.act, view)
        if not state.is_legal(action):
            legal = state.legal_actions()
            log.error("table %s: bot %s chose illegal action %r; playing random",
                      port.table_id, name, action)
            action = legal[self._rng.randrange(len(legal))]
        return action
