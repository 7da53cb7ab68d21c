"""Undercover's setup as a script: the starting player, each seat's colour, the Point Tokens of
every lane (standard game) and the deal of the Agents into the piles, one step per chance node.

The script is worked out once per game (:func:`setup_script`) so that a state only keeps its
place in it (``setup_i``). Colours are a decision of the seat concerned when the ruleset lets
players choose them, and a chance outcome otherwise. :class:`SetupRules` is the link of the state's
class chain (see ``base``) before ``rules.UndercoverState``, which hands over to play with
``_finish_setup`` once the script is done.
"""

from __future__ import annotations

from fieldcraft.core.api import CHANCE

from .grid import LOC_PILE, LOC_SUPPLY, N_AGENTS, N_COLOURS
from .track import TrackRules

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


def step_tables(steps: list[tuple[int, int, int]], choose_colours: bool, lane_size: int,
                token_spaces: list[int]) -> tuple[list[int], list[tuple[int, int]]]:
    """Per step: who chooses (the colour step's order from the starting seat when players
    choose, -1 for chance), and for a token step the slice of ``tokens`` holding the values
    its lane already has (empty for the other steps)."""
    choosers = [k if kind == K_COLOUR and choose_colours else -1 for kind, k, _ in steps]
    slices = [(lane * lane_size + token_spaces[0], lane * lane_size + space)
              if kind == K_TOKEN else (0, 0) for kind, lane, space in steps]
    return choosers, slices


class SetupRules(TrackRules):
    """Who acts in each setup step, what it may choose and what it does."""

    def _finish_setup(self) -> None:
        """Lay out the table once the script is done (``rules.UndercoverState`` does it)."""
        raise NotImplementedError

    def _enter_setup_step(self) -> None:
        g = self.game
        i = self.setup_i
        if i >= len(g.setup_steps):
            self._finish_setup()
            return
        chooser = g.setup_choosers[i]
        self.cur = CHANCE if chooser < 0 else (self.start + chooser) % g.num_players

    def _setup_legal(self) -> list[int]:
        g = self.game
        kind, k, space = g.setup_steps[self.setup_i]
        if kind == K_DEAL:  # any Agent still in the supply
            tcell = self.tcell
            deal = g.DEAL
            acts = []
            for a in range(N_AGENTS):
                if tcell[a] == LOC_SUPPLY:
                    acts.append(deal + a)
            return acts
        if kind == K_TOKEN:
            return self._token_odds()[0][:]
        return self._seat_actions(kind)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Chance acts only in the setup; its steps are tested in order of how many a game has
        (thirty token steps, twelve deals, a colour per seat, one starting seat)."""
        if self.cur != CHANCE:
            return []
        g = self.game
        i = self.setup_i
        kind = g.setup_steps[i][0]
        if kind == K_TOKEN:
            lo, hi = g.laid_slices[i]
            entry = g.token_odds.get(tuple(self.tokens[lo:hi])) or self._token_odds()
            return entry[1][:]
        if kind == K_DEAL:
            entry = g.deal_odds.get(tuple(self.tcell[:N_AGENTS])) or self._deal_odds()
            return entry[1][:]
        return self._seat_odds(kind)

    def _seat_odds(self, kind: int) -> list[tuple[int, float]]:
        """The starting seat (any, evenly) or a colour (any not taken yet, evenly). Apart from
        the hot steps, so that their comprehensions do not make ``self`` a closure cell in
        ``chance_outcomes``."""
        acts = self._seat_actions(kind)
        p = 1.0 / len(acts)
        return [(a, p) for a in acts]

    def _seat_actions(self, kind: int) -> list[int]:
        """The starting seat's or colour's actions, which ``_seat_odds`` gives even odds."""
        g = self.game
        if kind == K_START:
            return list(range(g.FIRST, g.FIRST + g.num_players))
        colour = self.colour
        acts = []
        for c in range(N_COLOURS):
            if c not in colour:
                acts.append(g.COLOUR + c)
        return acts

    def _setup_is_legal(self, action: int) -> bool:
        """``action in self.legal_actions()`` in a setup step, from one look (or the cached
        token odds)."""
        g = self.game
        i = self.setup_i
        kind = g.setup_steps[i][0]
        if kind == K_TOKEN:
            lo, hi = g.laid_slices[i]
            entry = g.token_odds.get(tuple(self.tokens[lo:hi])) or self._token_odds()
            return action in entry[0]
        if kind == K_DEAL:
            a = action - g.DEAL
            return 0 <= a < N_AGENTS and self.tcell[a] == LOC_SUPPLY
        if kind == K_COLOUR:
            c = action - g.COLOUR
            return 0 <= c < N_COLOURS and c not in self.colour
        return 0 <= action - g.FIRST < g.num_players

    def _token_odds(self) -> tuple[list[int], list[tuple[int, float]]]:
        """(legal actions, outcomes) of the token step now: the values not yet laid in its lane
        (which fills from its first token space), each by how many of it are left. Cached on
        the game by the values laid, since every lane of every game deals from the same few
        hundred partial orders."""
        g = self.game
        lo, hi = g.laid_slices[self.setup_i]
        laid = tuple(self.tokens[lo:hi])
        entry = g.token_odds.get(laid)
        if entry is None:
            remaining = g.token_values[:]
            for v in laid:
                remaining.remove(v)
            total = len(remaining)
            tok = g.TOKEN
            if g.tokens_distinct:  # token_values is sorted, so the lists are too
                p = 1.0 / total
                outcomes = [(tok + v, p) for v in remaining]
            else:
                outcomes = [(tok + v, remaining.count(v) / total) for v in sorted(set(remaining))]
            entry = ([a for a, _ in outcomes], outcomes)
            g.token_odds[laid] = entry
        return entry

    def _deal_odds(self) -> tuple[list[int], list[tuple[int, float]]]:
        """(legal actions, outcomes) of a deal step: every Agent still in supply, at even odds.
        Cached on the game by where the Agents are (in supply or dealt), a dozen steps a game
        from a few thousand possible sets."""
        g = self.game
        key = tuple(self.tcell[:N_AGENTS])
        entry = g.deal_odds.get(key)
        if entry is None:
            deal = g.DEAL
            undealt = [a for a in range(N_AGENTS) if key[a] == LOC_SUPPLY]
            p = 1.0 / len(undealt) if undealt else 0.0
            entry = ([deal + a for a in undealt], [(deal + a, p) for a in undealt])
            g.deal_odds[key] = entry
        return entry

    def _apply_setup(self, action: int) -> None:
        g = self.game
        i = self.setup_i
        kind, k, space = g.setup_steps[i]
        if kind == K_TOKEN:
            v = action - g.TOKEN
            self.tokens[k * g.lane_size + space] = v
            if space > self.last_tok[k]:
                self.last_tok[k] = space
        elif kind == K_DEAL:
            a = action - g.DEAL
            self.piles[k].append(a)
            self.tcell[a] = LOC_PILE
        elif kind == K_COLOUR:
            self.colour[(self.start + k) % g.num_players] = action - g.COLOUR
        else:
            self.start = action - g.FIRST
        i += 1
        self.setup_i = i
        if i == len(g.setup_steps):
            self._finish_setup()
            return
        chooser = g.setup_choosers[i]
        self.cur = CHANCE if chooser < 0 else (self.start + chooser) % g.num_players
