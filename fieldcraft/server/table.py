"""A table's game, with no asyncio: moves applied as one commit, the log, each seat's view.

:class:`Table` owns the authoritative ``State`` of one game. A change is prepared on a clone
(:meth:`Table.prepare`: the moves, the chance draws that follow them, their log lines, the
snapshot and result to store) and only swapped in by :meth:`Table.accept` once the caller has
committed it, so the state never runs ahead of the database. Legality is the engine's:
``apply_action`` on the clone refuses an illegal move and the clone is dropped.

:meth:`Table.view` is the one place where a seat's view is cut (as boardgame.io cuts it at the
broadcast edge): ``observation(seat)``, the seat's structured choices only when it is that seat's
turn, and the result at the end. Log lines come from ``describe_action(action, seat)`` per seat,
so what a seat is told is decided by the game's notation and nothing else.

A *branch* (``POST /api/tables/<id>/branch``) starts from a given position instead of the
game's deal: :attr:`Table.start` holds it, and versions, the log and :meth:`Table.state_at`
count from it, never from the start position's own (re-dealt, possibly missing) history.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fieldcraft.core.api import CHANCE, TERMINAL, Game, State, sample_chance
from fieldcraft.core.errors import MalformedActionError
from fieldcraft.server.connection import dumps

Entry = str
"""One reader's log entry for one action, the compact line and the event for people, kept as
the JSON members ``"line":...,"event":...`` (encoded once, for every message that carries it).
Kept as text, not as dicts, so that the log, which only grows (eight dicts and tuples an action
in Under Current), is nothing the cyclic collector walks: a table's events would otherwise be
in every young and full collection, whose pauses are the server's latency tail."""

CHANCE_BATCH = 256
"""Chance draws folded into one commit at most (a whole deal is far fewer)."""


@dataclass
class Commit:
    """A prepared change: apply it with :meth:`Table.accept` after storing it."""

    since: int
    rows: list[tuple[int, int, bool]]
    """(action, actor, by_bot) per action; the actor is ``CHANCE`` for a draw."""
    state: State
    lines: list[tuple[Entry | None, ...]] | None
    snapshot: str | None = None
    result: dict[str, Any] | None = None
    acked: int = field(default=0)
    """The version of the first move (what an ``ack`` reports; chance may follow it)."""

    @property
    def version(self) -> int:
        return self.since + len(self.rows)

    @property
    def terminal(self) -> bool:
        return self.result is not None


def result_of(state: State) -> dict[str, Any]:
    """A finished game's result as stored and sent: winners, the outcome for reports and the
    final-scores summary for the end screen."""
    return {"winners": state.winners(), "outcome": state.outcome(),
            "summary": state.final_summary()}


class Table:
    """One game's state, version and log."""

    def __init__(self, game: Game, state: State, snapshot_every: int = 50,
                 version: int | None = None, start: State | None = None,
                 moves: list[int] | None = None):
        """``version``: when ``state`` has no action list to count (a resampled position, as
        the leak audit's twin tables hold), the version it stands for.

        ``start``: a branch's first position (``None``: the game's own initial state), and
        ``moves`` the actions applied to it since, which ``state`` is the result of. A branch
        counts its versions from its start and never reads ``start``'s own history: a
        resampled position may have none (Under Current drops it), and where it has one, its
        past before the branch is no part of the branch's log or replay."""
        self.game = game
        self.state = state
        self.players = game.num_players
        self.start = start
        self._moves: list[int] | None = None
        if start is not None:
            self._moves = list(moves or [])
            version = len(self._moves)
        self.version = len(state.history()) if version is None else version
        self.snapshot_every = snapshot_every
        self.last_snapshot = 0
        self._lines: list[tuple[Entry | None, ...]] | None = None
        self._movers: list[int] | None = None
        self._views: dict[tuple[int | None, bool], str] = {}
        self._views_at = -1

    @classmethod
    def new(cls, game: Game, snapshot_every: int = 50, start: State | None = None) -> Table:
        """A table at its first position: the game's deal, or ``start`` for a branch."""
        if start is None:
            table = cls(game, game.new_initial_state(), snapshot_every)
        else:
            table = cls(game, start.clone(), snapshot_every, start=start.clone())
        table._lines = []
        table._movers = []
        return table

    @classmethod
    def branch(cls, game: Game, start: State, moves: list[int], snapshot_every: int = 50
               ) -> Table:
        """A branch rebuilt from its first position and the moves stored since (a restart,
        or a finished branch loaded for its replay)."""
        state = start.clone()
        for action in moves:
            state.apply_action(action)
        return cls(game, state, snapshot_every, start=start.clone(), moves=moves)

    def history(self) -> list[int]:
        """The actions of this table from its first position (a branch's from its start)."""
        if self._moves is None:
            return self.state.history()
        return self._moves[:]

    def first_state(self) -> State:
        """A fresh copy of the table's first position."""
        return self.game.new_initial_state() if self.start is None else self.start.clone()

    # -- the log -----------------------------------------------------------------------------------
    @property
    def lines(self) -> list[tuple[Entry | None, ...]]:
        """Per action, the log line of every seat and (last) of a spectator. Built lazily by
        replaying the history, since a resumed table may never be asked for its old log."""
        if self._lines is None:
            self._replay_log()
        assert self._lines is not None
        return self._lines

    @property
    def movers(self) -> list[int]:
        """Per action, who chose it: the seat that was to move, or ``CHANCE`` for a draw.
        Public (every view names the seat to move), and what lets the room acknowledge a
        seat's own move without telling it anyone else's."""
        if self._movers is None:
            self._replay_log()
        assert self._movers is not None
        return self._movers

    def _replay_log(self) -> None:
        scratch = self.first_state()
        lines, movers = [], []
        for action in self.history():
            lines.append(self._describe(scratch, action))
            movers.append(scratch.current_player())
            scratch.apply_action(action)
        self._lines, self._movers = lines, movers

    def _describe(self, state: State, action: int) -> tuple[Entry | None, ...]:
        """Per seat and (last) a spectator: the compact line and the event for people, or
        ``None`` when that reader is told nothing."""
        out: list[Entry | None] = []
        for seat in (*range(self.players), None):
            line = state.describe_action(action, seat)
            event = state.log_event(action, seat)
            out.append(None if line is None and event is None
                       else dumps({"line": line, "event": event})[1:-1])
        return tuple(out)

    def log_for(self, seat: int | None, since: int, until: int | None = None
                ) -> list[dict[str, Any]]:
        """Log entries (version, line, event) that ``seat`` sees for versions after ``since``;
        a page shows the event (``None``: nothing for people, as for each card of a deal that
        the game tells in one setup line), the line is the compact notation."""
        return json.loads(self.log_text(seat, since, until))

    def log_text(self, seat: int | None, since: int, until: int | None = None) -> str:
        """:meth:`log_for` as JSON, put together from the stored entries without decoding
        them (what every update and sync sends)."""
        col = self.players if seat is None else seat
        lines = self.lines
        end = len(lines) if until is None else until
        return "[" + ",".join(f'{{"version":{v + 1},{lines[v][col]}}}'
                              for v in range(since, end) if lines[v][col] is not None) + "]"

    def marks(self, seat: int | None) -> list[int]:
        """Versions at which ``seat`` saw something happen (a replay steps between them)."""
        col = self.players if seat is None else seat
        return [v + 1 for v, line in enumerate(self.lines) if line[col] is not None]

    # -- views -------------------------------------------------------------------------------------
    def view(self, seat: int | None, choices: bool) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) is told about the game now; ``choices`` says
        whether this seat may act (its turn, a person's seat, the table playing)."""
        state = self.state
        player = state.current_player()
        return {
            "version": self.version,
            "current_player": player if player >= 0 else None,
            "terminal": player == TERMINAL,
            "observation": state.observation(seat),
            "choices": state.choices() if choices and seat is not None and player == seat
            else [],
            "result": self.result() if player == TERMINAL else None,
        }

    def view_text(self, seat: int | None, choices: bool, tail: str) -> str:
        """:meth:`view` encoded as JSON, with ``tail`` (the room's keys, ``',"k":v}'``, the
        same for every seat) in place of its closing brace.

        The table's part is encoded once per version, seat and ``choices``: the connections
        of one seat, the spectators, a reconnect at the same version and the update all share
        it. Under load the observation and its encoding are most of a move's cost, so each
        is made once per version; the room's part is encoded once per broadcast."""
        if self._views_at != self.version:
            self._views.clear()
            self._views_at = self.version
        key = (seat, choices)
        head = self._views.get(key)
        if head is None:
            head = dumps(self.view(seat, choices))[:-1]
            self._views[key] = head
        return head + tail

    def result(self) -> dict[str, Any]:
        return result_of(self.state)

    def state_at(self, step: int) -> State:
        """The state after the first ``step`` actions, rebuilt from the action list (a
        branch's from its first position)."""
        if self.start is None:
            return self.game.replay(self.state.history()[:step])
        state = self.start.clone()
        for action in self.history()[:step]:
            state.apply_action(action)
        return state

    def replay_view(self, seat: int | None, step: int) -> dict[str, Any]:
        """A finished game at ``step`` from ``seat``'s point of view."""
        total = self.version
        if step < 0 or step > total:
            step = total
        state = self.state_at(step)
        player = state.current_player()
        return {"step": step, "steps": total, "seat": seat,
                "observation": state.observation(seat), "log": self.log_for(seat, 0, step),
                "marks": self.marks(seat),
                "current_player": player if player >= 0 else None}

    # -- changes -----------------------------------------------------------------------------------
    def parse(self, text: str) -> int:
        """An action typed as text; :class:`MalformedActionError` if it names none."""
        try:
            return self.state.string_to_action(text)
        except MalformedActionError:
            raise
        except Exception:  # noqa: BLE001 - any other parser failure is the same thing
            raise MalformedActionError("that is not an action of this game") from None

    def prepare(self, moves: list[tuple[int, int, bool]],
                chance_rng: Callable[[int], random.Random]) -> Commit | None:
        """Apply ``moves`` (action, actor, by_bot) to a clone, then the chance draws that
        follow them (at most ``CHANCE_BATCH``), and return the commit; ``None`` if there was
        nothing to do. An illegal move raises ``IllegalActionError`` and changes nothing.

        Folding the chance draws (the card drawn at the end of a turn, the next deal) into the
        move that caused them saves a commit and a whole round of messages per turn.
        ``chance_rng(version)`` gives the generator for the draw that makes ``version``."""
        scratch = self.state.clone()
        rows = list(moves)
        lines: list[tuple[Entry | None, ...]] | None = [] if self._lines is not None else None
        for action, _, _ in rows:
            if lines is not None:
                # legality first: a game describes only legal moves (Under Current's log line
                # for an action id past the end raised IndexError, which closed the socket
                # with no answer; found by tests/server/test_leak_audit.py)
                if not scratch.is_legal(action):
                    scratch.apply_action(action)  # raises the engine's IllegalActionError
                lines.append(self._describe(scratch, action))
            scratch.apply_action(action)
        draws = 0
        while scratch.current_player() == CHANCE and draws < CHANCE_BATCH:
            action = sample_chance(scratch, chance_rng(self.version + len(rows)))
            if lines is not None:
                lines.append(self._describe(scratch, action))
            scratch.apply_action(action)
            rows.append((action, CHANCE, False))
            draws += 1
        if not rows:
            return None
        commit = Commit(since=self.version, rows=rows, state=scratch, lines=lines,
                        acked=self.version + 1)
        if scratch.is_terminal():
            commit.result = result_of(scratch)
        if commit.terminal or commit.version - self.last_snapshot >= self.snapshot_every:
            commit.snapshot = scratch.to_json()
        return commit

    def accept(self, commit: Commit) -> None:
        """Make a stored commit the table's state."""
        self.state = commit.state
        self.version = commit.version
        if self._moves is not None:
            self._moves.extend(action for action, _, _ in commit.rows)
        if commit.snapshot is not None:
            self.last_snapshot = commit.version
        if self._lines is not None and self._movers is not None:
            if commit.lines is None:  # the log was built while this commit was being stored
                self._lines = self._movers = None
            else:
                self._lines.extend(commit.lines)
                self._movers.extend(actor for _, actor, _ in commit.rows)
