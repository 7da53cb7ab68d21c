"""A room rebuilt from its stored rows: a server restart, or a finished table asked for again.

A game is its action list: the state is rebuilt from the latest snapshot plus the actions after
it (each re-checked by ``apply_action``), or, if the snapshot cannot be used (say the game's
code changed its fields), by replaying the whole action list. A branch is rebuilt from its
stored first position and every move after it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from fieldcraft.core.api import Game, State
from fieldcraft.core.errors import FieldcraftError
from fieldcraft.server import store
from fieldcraft.server.room import Room
from fieldcraft.server.table import Table

if TYPE_CHECKING:
    from fieldcraft.server.hub import Hub

log = logging.getLogger("fieldcraft.server")


def room_from_row(hub: Hub, row: store.TableRow) -> Room:
    """The room of a stored table, with its state, log and chat (runs in a worker thread)."""
    game = hub.game(row.game, row.players, row.overrides)
    if row.start_state is not None:
        table = _branch_table(hub, row, game)
    else:
        table = Table(game, _state_from_rows(hub, row, game), hub.snapshot_every)
    table.last_snapshot = row.snapshot[0] if row.snapshot else 0
    return Room(hub, row, table, store.read_chat(hub.engine, row.id))


def _state_from_rows(hub: Hub, row: store.TableRow, game: Game) -> State:
    """Snapshot + the actions after it, or, if the snapshot cannot be used, a full replay of
    the action list."""
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
    return state


def _branch_table(hub: Hub, row: store.TableRow, game: Game) -> Table:
    """A branch: its stored first position and every move after it (its snapshot is not
    used: a branch's moves are counted from its start, and it is short)."""
    start = game.state_from_json(row.start_state or "")
    moves = store.read_all_actions(hub.engine, row.id)
    if len(moves) != row.version:
        log.warning("table %s: %d actions stored, version column says %d", row.id,
                    len(moves), row.version)
    return Table.branch(game, start, moves, hub.snapshot_every)
