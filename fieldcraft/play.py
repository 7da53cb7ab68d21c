"""Terminal play for any registered game: people at some seats, bots at the others.

Each person sees only ``observation(their seat)`` drawn by the game's renderer, plus the log lines
``describe_action`` gives that seat. With several people at one terminal (hot-seat) the screen is
cleared and the next person must press Enter before their hand is shown.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import IO, Any

from rich.console import Console
from rich.markup import escape

from fieldcraft.agents import View, make_agent
from fieldcraft.core.api import (
    FieldcraftError,
    IllegalActionError,
    MalformedActionError,
    State,
    sample_chance,
)
from fieldcraft.core.registry import game_spec, load_game

LOG_LINES = 10


def renderer_for(name: str) -> Callable[[dict[str, Any]], str]:
    """The game's ``render(observation)``; games without one get a plain JSON dump."""
    render = game_spec(name).optional("render")
    if render is None:
        return lambda obs: escape(json.dumps(obs, indent=1))
    return render


class TerminalTable:
    """One game at the terminal. Input and output streams are injectable for tests."""

    def __init__(self, name: str, players: int, humans: list[int], bot: str = "random",
                 seed: int | None = None, overrides: dict[str, Any] | None = None,
                 stdin: IO[str] | None = None, console: Console | None = None):
        self.game = load_game(name, players=players, **(overrides or {}))
        for seat in humans:
            if not 0 <= seat < players:
                raise FieldcraftError(f"seat {seat} does not exist in a {players}-player game")
        self.humans = sorted(set(humans))
        self.rng = random.Random(seed)
        self.bots = {s: make_agent(bot, self.rng.randrange(2**32))
                     for s in range(players) if s not in self.humans}
        self.render = renderer_for(name)
        self.stdin = stdin or sys.stdin
        self.console = console or Console(highlight=False)
        self.logs: dict[int | None, list[str]] = {s: [] for s in self.humans}
        self.logs[None] = []
        self.state: State = self.game.new_initial_state()
        self.last_human: int | None = None

    # -- flow
    def run(self) -> State:
        state = self.state
        while not state.is_terminal():
            player = state.current_player()
            if player < 0:
                action = sample_chance(state, self.rng)
            elif player in self.bots:
                action = self.bots[player].act(View(state, player))
            else:
                action = self.ask(player)
                if action is None:
                    self.console.print("Game abandoned.")
                    return state
            self._log(action)
            state.apply_action(action)
        self.finish()
        return state

    def _log(self, action: int) -> None:
        for seat, lines in self.logs.items():
            line = self.state.describe_action(action, seat)
            if line:
                lines.append(line)

    def _hand_over(self, seat: int) -> None:
        """Hot-seat: hide the previous person's view before showing the next one."""
        if len(self.humans) > 1 and self.last_human != seat:
            self.console.clear()
            self.console.print(f"[bold]Pass the device to seat {seat}[/] and press Enter.")
            self.stdin.readline()
            self.console.clear()
        self.last_human = seat

    def ask(self, seat: int) -> int | None:
        state = self.state
        self._hand_over(seat)
        self.console.rule(f"seat {seat} to decide")
        self.console.print(self.render(state.observation(seat)))
        log = self.logs[seat][-LOG_LINES:]
        if log:
            self.console.print("\n[bold]Recent events[/]")
            for line in log:
                self.console.print("  " + escape(line))
        legal = state.legal_actions()
        self.console.print("\n[bold]Your choices[/]")
        for i, action in enumerate(legal, 1):
            self.console.print(f"  {i:>2}. {escape(state.action_to_string(action))}")
        while True:
            self.console.print(f"Choose 1-{len(legal)} (or type the action; q to quit): ", end="")
            line = self.stdin.readline()
            if not line:
                return None
            text = line.strip()
            if text.lower() in ("q", "quit", "exit"):
                return None
            try:
                return self._parse_choice(text, legal)
            except FieldcraftError as exc:
                self.console.print(f"[red]{escape(str(exc))}[/] Try again.")

    def _parse_choice(self, text: str, legal: list[int]) -> int:
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(legal):
                return legal[number - 1]
            raise MalformedActionError(f"{number} is not a choice (1-{len(legal)})")
        if not text:
            raise MalformedActionError("please type a number")
        action = self.state.string_to_action(text)
        if action not in legal:
            raise IllegalActionError(f"{text!r} is not allowed now")
        return action

    def finish(self) -> None:
        state = self.state
        if len(self.humans) > 1:
            self.console.clear()
        self.console.rule("game over")
        self.console.print(self.render(state.observation(None)))
        self.console.print("\n[bold]Public log[/]")
        for line in self.logs[None][-3 * LOG_LINES:]:
            self.console.print("  " + escape(line))
        winners = state.winners()
        result = ", ".join(f"seat {s}" for s in winners) if winners else "nobody"
        self.console.print(f"\n[bold]Result[/]: {result} won. Outcome: "
                           f"{escape(str(state.outcome()))}")
