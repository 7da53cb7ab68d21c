"""Undercover's secrets: the hidden back of every Agent in sight (on the board, held, on top of
a pile), known exactly.

Each colour has two Agents whose backs are its two ring neighbours. An Agent that has been
flipped was seen on both sides by everyone, and an Agent in sight that has not shows its
official colour, so whoever looks knows its back is one of the backs of that colour's Agents
not yet flipped: certain once its twin (or itself) has been flipped, an even chance before.
Everyone sees the same table, so every seat's belief is the same.
"""

from __future__ import annotations

from fieldcraft.core.deduction import Belief, GameDeduction, Secret

from .grid import N_AGENTS, agent_faces
from .rules import OVER, SETUP, UndercoverGame, UndercoverState


class UndercoverDeduction(GameDeduction):
    game: UndercoverGame

    def _in_sight(self, state: UndercoverState) -> list[int]:
        if state.phase == SETUP:
            return []
        seen = [a for a in range(N_AGENTS) if state.tcell[a] >= 0]
        if 0 <= state.held < N_AGENTS:
            seen.append(state.held)
        seen += [pile[-1] for pile in state.piles if pile and pile[-1] < N_AGENTS]
        return sorted(set(seen))

    def secrets(self, state: UndercoverState, seat: int) -> list[Secret]:
        names = self.game.colour_names
        out = []
        for a in self._in_sight(state):
            official, back = agent_faces(a)
            out.append(Secret(f"back.{a}", {"key": "agent_back", "params": {
                "colour": names[official], "twin": a % 2 + 1}}, "colour", names[back]))
        return out

    def belief(self, state: UndercoverState, seat: int, secrets: list[Secret]) -> Belief:
        names = self.game.colour_names
        exact = {}
        for x in secrets:
            a = int(x.key.split(".")[1])
            official, _ = agent_faces(a)
            if state.revealed[a]:
                backs = [agent_faces(a)[1]]
            else:
                backs = [agent_faces(t)[1] for t in (2 * official, 2 * official + 1)
                         if not state.revealed[t]]
            exact[x.key] = {names[b]: 1.0 / len(backs) for b in backs}
        return Belief(exact=exact)

    def turn(self, state: UndercoverState) -> int | None:
        if state.phase == SETUP:
            return None
        return state.turn if state.phase == OVER else state.turn + 1
