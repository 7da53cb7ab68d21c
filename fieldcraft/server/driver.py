"""The bot and chance driver of one table: plays chance and bot moves until a person is to move.

It runs as one asyncio task per table, started (``kick``) whenever something may have made it a
bot's or chance's turn. Bots see ``View(state, seat)`` only, like at the terminal, and think in a
worker thread (the search bot takes a second), so the server stays responsive; a bot that
returned an illegal action is logged and a random legal one is played instead.
"""

from __future__ import annotations

import asyncio
import logging
import random
import weakref
from typing import TYPE_CHECKING

from fieldcraft.agents import Agent, View, make_agent
from fieldcraft.core.api import CHANCE, TERMINAL
from fieldcraft.server import store

if TYPE_CHECKING:
    from fieldcraft.server.room import Room

log = logging.getLogger("fieldcraft.server")


class Driver:
    def __init__(self, room: Room, seed: int | None):
        # Weak: the room owns its driver, and a strong link back would make the pair a
        # reference cycle that outlives the room's eviction (the server's tuned collector
        # seldom reaches it). While the task runs, its frame holds the room strongly.
        self._room = weakref.ref(room)
        self.seed = seed
        self.agents: dict[int, Agent] = {}
        self._task: asyncio.Task[None] | None = None
        self._rng: random.Random = random.SystemRandom()

    @property
    def room(self) -> Room:
        room = self._room()
        if room is None:
            raise RuntimeError("the driver's room is gone")
        return room

    def kick(self) -> None:
        """Make sure the driver runs if chance or a bot is to move."""
        room = self._room()
        if room is None or room.status != "playing" or room.hub.closing:
            return
        if self._task is None or self._task.done():
            if self.next_mover() in ("human", "over"):
                return  # nothing to play: no task (this is most kicks, one after every move)
            self._task = asyncio.create_task(self._drive())

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    def next_mover(self) -> str:
        """``"chance"``, ``"bot"``, ``"human"`` or ``"over"``."""
        room = self.room
        player = room.table.state.current_player()
        if player == TERMINAL:
            return "over"
        if player == CHANCE:
            return "chance"
        return "bot" if room.seats.played_by_bot(player) else "human"

    async def _drive(self) -> None:
        room = self.room
        hub = room.hub
        try:
            while not hub.closing:
                async with room.lock:
                    if room.status != "playing":
                        return
                    kind = self.next_mover()
                    if kind == "chance":
                        await room.commit([])  # just the chance draws
                        continue
                    if kind != "bot":
                        return
                    version = room.table.version
                if hub.bot_delay > 0:
                    await asyncio.sleep(hub.bot_delay)
                async with room.lock:
                    if hub.closing:
                        return
                    if room.table.version != version or room.status != "playing" \
                            or self.next_mover() != "bot":
                        continue
                    player = room.table.state.current_player()
                    action = await self._bot_action(player)
                    await room.commit([(action, player, True)])
        except store.StorageError as exc:
            log.error("table %s: could not save a bot/chance move (%s); retrying", room.id, exc)
            if not hub.closing:
                asyncio.get_running_loop().call_later(1.0, self.kick)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: driver failed", room.id)

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

    async def _bot_action(self, player: int) -> int:
        room = self.room
        seat = room.seats[player]
        name = seat.bot if seat.is_bot and seat.bot else room.settings.get("proxy_bot", "random")
        agent = self.agents.get(player)
        if agent is None or getattr(agent, "name", None) != name:
            seed = None if self.seed is None else hash((self.seed, player, room.table.version))
            agent = make_agent(name, seed)
            self.agents[player] = agent
        state = room.table.state
        view = View(state.clone(), player)
        if name == "random":
            action = agent.act(view)
        else:
            action = await asyncio.to_thread(agent.act, view)
        if not state.is_legal(action):
            legal = state.legal_actions()
            log.error("table %s: bot %s chose illegal action %r; playing random", room.id, name,
                      action)
            action = legal[self._rng.randrange(len(legal))]
        return action
