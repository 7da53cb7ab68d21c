"""The bot and chance driver through its narrow port alone: no room, hub, seats or database.

:class:`~fieldcraft.server.driver.Driver` sees a table only through a
:class:`~fieldcraft.server.driver.TablePort`; a port of a few lines is enough to drive a game,
so the driver needs nothing else of the room.
"""

from __future__ import annotations

import asyncio
import random

from fieldcraft.core.api import CHANCE, State, sample_chance
from fieldcraft.core.registry import load_game
from fieldcraft.server.driver import Driver, TablePort


class FakePort:
    """A table of its own: the state, which seats bots play, and a commit that applies the
    moves and the chance draws after them (as the room's commit does)."""

    def __init__(self, state: State, bots: dict[int, str]):
        self.table_id = "fake"
        self.lock = asyncio.Lock()
        self.closing = False
        self.playing = True
        self.bot_delay = 0.0
        self.state = state
        self.bots = bots
        self.commits: list[list[tuple[int, int, bool]]] = []
        self.rng = random.Random(7)

    @property
    def version(self) -> int:
        return len(self.state.history())

    def bot_for(self, player: int) -> str | None:
        return self.bots.get(player)

    async def commit(self, moves: list[tuple[int, int, bool]]) -> None:
        assert self.lock.locked(), "a driver commits holding the table's lock"
        self.commits.append(list(moves))
        for action, _, _ in moves:
            self.state.apply_action(action)
        while self.state.current_player() == CHANCE:
            self.state.apply_action(sample_chance(self.state, self.rng))
        if self.state.is_terminal():
            self.playing = False


def run(port: FakePort, driver: Driver) -> None:
    async def go() -> None:
        typed: TablePort = port
        driver.kick(typed)
        if driver.task is not None:
            await asyncio.wait_for(driver.task, timeout=60)

    asyncio.run(go())


def test_a_driver_plays_a_bot_only_game_to_the_end_through_its_port() -> None:
    state = load_game("spy-tracker", players=2).new_initial_state()
    port = FakePort(state, {0: "random", 1: "random"})
    run(port, Driver(seed=3))
    assert state.is_terminal()
    assert port.commits[0] == []  # the deal: chance draws only
    bot_moves = [m for c in port.commits for m in c]
    assert bot_moves and all(by_bot for _, _, by_bot in bot_moves)


def test_a_driver_stops_where_a_person_is_to_move() -> None:
    state = load_game("spy-tracker", players=2).new_initial_state()
    port = FakePort(state, {1: "random"})  # seat 0 is a person's
    run(port, Driver(seed=3))
    assert not state.is_terminal() and state.current_player() == 0
    before = len(port.commits)
    run(port, Driver(seed=3))  # a kick with a person to move starts nothing
    assert len(port.commits) == before
