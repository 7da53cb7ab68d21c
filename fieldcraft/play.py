"""Terminal play for any registered game: people at some seats, bots at the others.

Each person sees only ``observation(their seat)`` drawn by the game's renderer, plus the events
the game tells that seat, in the table's language. With several people at one terminal
(hot-seat) the screen is cleared and the next person must press Enter before their hand is shown.
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
from fieldcraft.core.notation import Choice
from fieldcraft.core.registry import game_spec, load_game
from fieldcraft.core.text import DEFAULT, LANGUAGES, Text, game_messages

MENU_SIZE = 20
"""Choices listed at once; a longer list is asked in steps (kind, then each argument), so Spy
Tracker's hundred bids become "bid or raise?", "how many?", "of what?"."""

EARLIEST = 6
"""Events shown at least, when fewer happened since the seat's previous turn."""


def renderer_for(name: str) -> Callable[..., str]:
    """The game's ``render(observation, text)``; games without one get a plain JSON dump."""
    render = game_spec(name).optional("render")
    if render is None:
        return lambda obs, text=None: escape(json.dumps(obs, indent=1, ensure_ascii=False))
    return render


class TerminalTable:
    """One game at the terminal. Input and output streams are injectable for tests.

    Every word of game text comes from the game's catalogues in ``lang`` (as on the web table);
    the log a person sees before a decision is everything told to their seat since their
    previous decision, so what became of the card they passed does not scroll away."""

    def __init__(self, name: str, players: int, humans: list[int], bot: str = "random",
                 seed: int | None = None, overrides: dict[str, Any] | None = None,
                 stdin: IO[str] | None = None, console: Console | None = None,
                 lang: str = DEFAULT, start: State | None = None):
        """``start``: the position to play on from (a branch of a replay, see
        :func:`branch_table`); ``None``: the game's own deal."""
        if lang not in LANGUAGES:
            raise FieldcraftError(f"--lang must be one of {', '.join(LANGUAGES)}; got {lang!r}")
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
        messages = game_messages(game_spec(name), lang)
        self.words = Text(messages)
        self.texts: dict[int | None, Text] = {s: Text(messages, s, self._name)
                                              for s in (*self.humans, None)}
        self.logs: dict[int | None, list[str]] = {s: [] for s in self.texts}
        self.seen: dict[int | None, int] = {s: 0 for s in self.texts}
        if start is not None and (start.game.name != self.game.name
                                  or start.num_players != players):
            raise FieldcraftError(f"the start position is a {start.num_players}-player "
                                  f"{start.game.name} game, not {players}-player {name}")
        self.state: State = self.game.new_initial_state() if start is None else start.clone()
        self.last_human: int | None = None

    def _name(self, seat: int) -> str | None:
        if seat in self.bots:
            return self.words.format(self.words.lookup("term.bot"), {"n": seat + 1})
        return None

    def say(self, key: str, **params: Any) -> str:
        """A terminal word (``term.*`` in the shared catalogue) in the table's language."""
        return escape(self.words.format(self.words.lookup(f"term.{key}"), params))

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
                    self.console.print(self.say("abandoned"))
                    return state
            self._log(action)
            state.apply_action(action)
        self.finish()
        return state

    def _log(self, action: int) -> None:
        for seat, lines in self.logs.items():
            event = self.state.log_event(action, seat)
            if event is not None:
                lines.append(self.texts[seat].event(event))

    def _hand_over(self, seat: int) -> None:
        """Hot-seat: hide the previous person's view before showing the next one."""
        if len(self.humans) > 1 and self.last_human != seat:
            self.console.clear()
            self.console.print(self.say("hand_over", seat=seat + 1))
            self.stdin.readline()
            self.console.clear()
        self.last_human = seat

    def ask(self, seat: int) -> int | None:
        state = self.state
        text = self.texts[seat]
        self._hand_over(seat)
        self.console.rule(self.say("to_decide", seat=seat + 1))
        self.console.print(self.render(state.observation(seat), text))
        lines = self.logs[seat]
        log = lines[min(self.seen[seat], max(0, len(lines) - EARLIEST)):]
        self.seen[seat] = len(lines)
        if log:
            self.console.print("\n[bold]" + self.say("recent") + "[/]")
            for line in log:
                self.console.print("  " + escape(line))
        everything = state.choices()
        if len(everything) == 1:  # a forced move (Spy Tracker's "next" with two players)
            self.console.print("\n" + self.say("forced", choice=text.choice(everything[0])))
            return everything[0]["action"]
        options = everything
        while True:
            menu = self._menu(options, text)
            self.console.print("\n[bold]" + self.say("choices") + "[/]")
            for i, (label, _) in enumerate(menu, 1):
                self.console.print(f"  {i:>2}. {escape(label)}")
            self.console.print(self.say("prompt", n=len(menu)) + " ", end="")
            line = self.stdin.readline()
            if not line:
                return None
            typed = line.strip()
            if typed.lower() in ("q", "quit", "exit"):
                return None
            if typed == "0" and options is not everything:
                options = everything
                continue
            try:
                picked = self._parse_choice(typed, menu)
            except FieldcraftError as exc:
                self.console.print(f"[red]{escape(str(exc))}[/] " + self.say("again"))
                continue
            if isinstance(picked, int):
                return picked
            options = picked

    def _menu(self, options: list[Choice], text: Text) -> list[tuple[str, list[Choice] | int]]:
        """What to list: every choice when there are few; otherwise the choices grouped by
        kind, then by the first argument whose values differ (a step further each time)."""
        if len(options) <= MENU_SIZE:
            return [(text.choice(c), c["action"]) for c in options]
        groups: dict[Any, list[Choice]] = {}
        if len({c["kind"] for c in options}) > 1:
            for c in options:
                groups.setdefault(c["kind"], []).append(c)
            menu: list[tuple[str, list[Choice] | int]] = []
            for kind, items in groups.items():
                if len(items) == 1:
                    menu.append((text.choice(items[0]), items[0]["action"]))
                else:
                    menu.append((text.messages.get(f"group.{kind}", kind), items))
            return menu
        for key in options[0]["args"]:
            if len({repr(c["args"].get(key)) for c in options}) > 1:
                for c in options:
                    groups.setdefault(c["args"].get(key), []).append(c)
                name = text.messages.get(f"arg.{key}", key)
                return [(f"{name}: {value}", items) for value, items in groups.items()]
        return [(text.choice(c), c["action"]) for c in options]

    def _parse_choice(self, text: str, menu: list[tuple[str, Any]]) -> Any:
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(menu):
                return menu[number - 1][1]
            raise MalformedActionError(f"{number} is not a choice (1-{len(menu)})")
        if not text:
            raise MalformedActionError("please type a number")
        action = self.state.string_to_action(text)
        if action not in self.state.legal_actions():
            raise IllegalActionError(f"{text!r} is not allowed now")
        return action

    def finish(self) -> None:
        state = self.state
        if len(self.humans) > 1:
            self.console.clear()
        text = self.texts[None] if len(self.humans) != 1 else self.texts[self.humans[0]]
        self.console.rule(self.say("game_over"))
        self.console.print(self.render(state.observation(None), text))
        self.console.print("\n[bold]" + self.say("public_log") + "[/]")
        for line in self.logs[None][-30:]:
            self.console.print("  " + escape(line))
        summary = state.final_summary()
        if summary is not None:
            self.console.print("\n[bold]" + self.say("result") + "[/]: " + escape(
                text.render("end", summary["reason"]["key"], summary["reason"]["params"])))
            for row in summary["rows"]:
                cells = []
                for column in summary["columns"]:
                    value = row["values"].get(column["key"])
                    shown = text.name(column["ns"], value) if column.get("ns") and \
                        value is not None else ("—" if value is None else str(value))
                    cells.append(f"{text.lookup('col.' + column['key'])} {shown}")
                mark = " ★" if row["winner"] else ""
                self.console.print(f"  {escape(text.seat(row['seat']))}{mark}: "
                                   + escape(" · ".join(cells)))


# -- playing on from a replay ------------------------------------------------------------------
REPLAY_KEYS = {"game", "players", "overrides", "actions"}


def read_replay(path: str) -> dict[str, Any]:
    """A replay file, ``{"game", "players", "overrides", "actions"}``, read and checked: a
    clear :class:`FieldcraftError` for a file that cannot be read or has the wrong shape."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        raise FieldcraftError(f"--from {path}: cannot read the replay: {exc}") from None
    if not isinstance(doc, dict):
        raise FieldcraftError(f"--from {path}: a replay is a JSON object with "
                              f"{', '.join(sorted(REPLAY_KEYS))}")
    missing = sorted({"game", "actions"} - set(doc))
    if missing:
        raise FieldcraftError(f"--from {path}: the replay lacks {', '.join(missing)}")
    if not isinstance(doc["game"], str):
        raise FieldcraftError(f"--from {path}: 'game' must be a game id")
    players = doc.get("players")
    if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
        raise FieldcraftError(f"--from {path}: 'players' must be a number")
    if not isinstance(doc.get("overrides", {}), dict):
        raise FieldcraftError(f"--from {path}: 'overrides' must be an object")
    actions = doc["actions"]
    if not isinstance(actions, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in actions):
        raise FieldcraftError(f"--from {path}: 'actions' must be a list of action numbers")
    return doc


def branch_start(doc: dict[str, Any], step: int, seat: int, rng: random.Random,
                 source: str = "the replay") -> State:
    """The replay's position after ``step`` actions, with everything ``seat`` could not see
    there re-dealt consistently with what it knew (``State.resample``), so playing on from it
    neither shows nor uses the real hidden cards."""
    spec = game_spec(doc["game"])
    players = doc.get("players") or spec.default_players
    game = load_game(doc["game"], players=players, **doc.get("overrides", {}))
    actions = doc["actions"]
    if not 0 <= step <= len(actions):
        raise FieldcraftError(f"--step must be 0-{len(actions)} ({source} has "
                              f"{len(actions)} actions), not {step}")
    if not 0 <= seat < players:
        raise FieldcraftError(f"--seat must be 0-{players - 1} in a {players}-player game, "
                              f"not {seat}")
    state = game.new_initial_state()
    for i, action in enumerate(actions[:step]):
        try:
            state.apply_action(action)
        except IllegalActionError as exc:
            raise FieldcraftError(f"{source}: action {i + 1} ({action}) cannot be played: "
                                  f"{exc}") from None
    if state.is_terminal():
        raise FieldcraftError(f"the game is over at step {step}: there is nothing to play on "
                              "from; pick an earlier --step")
    return state.resample(seat, rng)


def branch_table(path: str, step: int, seat: int, bot: str = "random",
                 seed: int | None = None, lang: str = DEFAULT, stdin: IO[str] | None = None,
                 console: Console | None = None) -> TerminalTable:
    """``fieldcraft play --from REPLAY.json --step K --seat S``: a terminal table that plays
    on from step ``K`` of a replay with the person at seat ``S`` and bots elsewhere. The
    re-deal draws from the operating system's generator, or from ``seed`` when one is given
    (reproducible, for tests)."""
    doc = read_replay(path)
    rng: random.Random = random.SystemRandom() if seed is None else random.Random(
        f"{seed}/branch")
    start = branch_start(doc, step, seat, rng, source=path)
    table = TerminalTable(doc["game"], start.num_players, [seat], bot=bot, seed=seed,
                          overrides=doc.get("overrides", {}), stdin=stdin, console=console,
                          lang=lang, start=start)
    table.console.print(table.say("branch", file=path, step=step, seat=seat + 1))
    return table
