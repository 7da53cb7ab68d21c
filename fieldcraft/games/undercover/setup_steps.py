"""Undercover's setup as a script: the starting player, each seat's colour, the Point Tokens of
every lane (standard game) and the deal of the Agents into the piles, one step per chance node.

The script is worked out once per game (:func:`setup_script`) so that a state only keeps its
place in it (``setup_i``). Colours are a decision of the seat concerned when the ruleset lets
players choose them, and a chance outcome otherwise. :class:`SetupRules` is mixed into the state
class (``rules.UndercoverState``), which owns the fields it reads and hands over to play with
``_finish_setup`` once the script is done.
"""

from __future__ import annotations

from fieldcraft.core.api import CHANCE

from .grid import LOC_PILE, LOC_SUPPLY, N_AGENTS, N_COLOURS

# Setup step kinds: (kind, k, space) with k the colour step's order from the starting seat,
# a token's lane or a dealt Agent's pile, and space a token's track space.
K_START = 0
K_COLOUR = 1
K_TOKEN = 2
K_DEAL = 3


def setup_script(players: int, random_start: bool, classified: bool, token_spaces: list[int],
                 pile_sizes: list[int]) -> list[tuple[int, int, int]]:
    """Every setup step in order, as (kind, k, space) triples."""
    steps: list[tuple[int, int, int]] = []
    if random_start:
        steps.append((K_START, 0, 0))
    steps += [(K_COLOUR, k, 0) for k in range(players)]
    if not classified:
        for lane in range(N_COLOURS):
            steps += [(K_TOKEN, lane, space) for space in token_spaces]
    for pile, size in enumerate(pile_sizes):
        steps += [(K_DEAL, pile, i) for i in range(size)]
    return steps


class SetupRules:
    """Who acts in each setup step, what it may choose and what it does."""

    __slots__ = ()

    def _enter_setup_step(self) -> None:
        g = self.game
        if self.setup_i >= len(g.setup_steps):
            self._finish_setup()
            return
        kind, k, _ = g.setup_steps[self.setup_i]
        if kind == K_COLOUR and g.choose_colours:
            self.cur = (self.start + k) % g.num_players
        else:
            self.cur = CHANCE

    def _setup_legal(self) -> list[int]:
        g = self.game
        kind = g.setup_steps[self.setup_i][0]
        if kind == K_DEAL:
            deal = g.DEAL
            tcell = self.tcell
            return [deal + a for a in range(N_AGENTS) if tcell[a] == LOC_SUPPLY]
        if kind == K_COLOUR:
            return [g.COLOUR + c for c in range(N_COLOURS) if c not in self.colour]
        if kind == K_TOKEN and g.tokens_distinct:
            remaining = self._tokens_left()
            tok = g.TOKEN
            return [tok + v for v in remaining]  # token_values is sorted, so this is too
        return [a for a, _ in self._setup_outcomes()]

    def _setup_outcomes(self) -> list[tuple[int, float]]:
        g = self.game
        kind, k, space = g.setup_steps[self.setup_i]
        if kind == K_START:
            n = g.num_players
            return [(g.FIRST + s, 1.0 / n) for s in range(n)]
        if kind == K_COLOUR:
            free = [c for c in range(N_COLOURS) if c not in self.colour]
            return [(g.COLOUR + c, 1.0 / len(free)) for c in free]
        if kind == K_TOKEN:
            remaining = self._tokens_left()
            total = len(remaining)
            tok = g.TOKEN
            if g.tokens_distinct:
                p = 1.0 / total
                return [(tok + v, p) for v in remaining]
            return [(tok + v, remaining.count(v) / total) for v in sorted(set(remaining))]
        tcell = self.tcell
        free = [a for a in range(N_AGENTS) if tcell[a] == LOC_SUPPLY]
        p = 1.0 / len(free)
        deal = g.DEAL
        return [(deal + a, p) for a in free]

    def _tokens_left(self) -> list[int]:
        """Token values not yet laid in the lane being set up (the lane fills left to right)."""
        g = self.game
        _, lane, space = g.setup_steps[self.setup_i]
        base = lane * g.lane_size
        remaining = g.token_values[:]
        for v in self.tokens[base + g.token_spaces[0]:base + space]:
            remaining.remove(v)
        return remaining

    def _apply_setup(self, action: int) -> None:
        g = self.game
        kind, k, space = g.setup_steps[self.setup_i]
        if kind == K_START:
            self.start = action - g.FIRST
        elif kind == K_COLOUR:
            self.colour[(self.start + k) % g.num_players] = action - g.COLOUR
        elif kind == K_TOKEN:
            v = action - g.TOKEN
            self.tokens[k * g.lane_size + space] = v
            if space > self.last_tok[k]:
                self.last_tok[k] = space
        else:
            a = action - g.DEAL
            self.piles[k].append(a)
            self.tcell[a] = LOC_PILE
        self.setup_i += 1
        self._enter_setup_step()
