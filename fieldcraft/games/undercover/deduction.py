"""Undercover's secrets: the hidden face of every Agent in sight (on the board, in hand, on top
of a pile), known exactly.

Each colour has two Agents whose backs are its two ring neighbours. An Agent that has been
flipped was seen on both sides by everyone, and an Agent in sight that has not shows its
official colour, so whoever looks knows its back is one of the backs of that colour's Agents
not yet flipped: certain once its twin (or itself) has been flipped, an even chance before.
Everyone sees the same table, so every seat's belief is the same.

A secret is named by where the tile lies (a cell, the hand, a pile's top), never by which of
the twins it is: which twin lies where is exactly what is hidden, and a name that told it
would let a count over resampled tables (which re-deal the twins) read the answer off the
name. A tile that moves is a new secret at its new place.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.deduction import Belief, GameDeduction, Secret

from .base import OVER, SETUP
from .grid import N_AGENTS, agent_faces, pile_letter
from .rules import UndercoverGame, UndercoverState


class UndercoverDeduction(GameDeduction):
    game: UndercoverGame

    def in_sight(self, state: UndercoverState) -> list[tuple[str, dict[str, Any], int]]:
        """(key, where, Agent) for every Agent anyone can see, in table order."""
        if state.phase == SETUP:
            return []
        g = self.game
        out = []
        for y, a in sorted((state.tcell[a], a) for a in range(N_AGENTS) if state.tcell[a] >= 0):
            x0, y0 = g.cell_xy(y)
            out.append((f"back.{x0}.{y0}", {"x": x0, "y": y0}, a))
        if 0 <= state.held < N_AGENTS:
            out.append(("back.held", {"held": True}, state.held))
        for k, pile in enumerate(state.piles):
            if pile and pile[-1] < N_AGENTS:
                out.append((f"back.pile.{k}", {"pile": pile_letter(k)}, pile[-1]))
        return out

    def secrets(self, state: UndercoverState, seat: int) -> list[Secret]:
        names = self.game.colour_names
        out = []
        for key, where, a in self.in_sight(state):
            official, back = agent_faces(a)
            hidden = official if state.up[a] else back
            out.append(Secret(key, {"key": "agent_back", "params": {
                "colour": names[state.tcol[a]], **where}}, "colour", names[hidden]))
        return out

    def belief(self, state: UndercoverState, seat: int, secrets: list[Secret]) -> Belief:
        names = self.game.colour_names
        exact = {}
        for key, _, a in self.in_sight(state):
            official, back = agent_faces(a)
            if state.revealed[a]:  # seen on both sides: its hidden face is known
                hidden = [official if state.up[a] else back]
            else:  # shows its official colour; its back is one of the unflipped twins'
                shown = state.tcol[a]
                hidden = [agent_faces(t)[1] for t in (2 * shown, 2 * shown + 1)
                          if not state.revealed[t]]
            exact[key] = {names[h]: 1.0 / len(hidden) for h in hidden}
        return Belief(exact=exact)

    def turn(self, state: UndercoverState) -> int | None:
        if state.phase == SETUP:
            return None
        return state.turn if state.phase == OVER else state.turn + 1
