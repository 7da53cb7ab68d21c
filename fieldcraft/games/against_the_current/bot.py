"""Against the Current heuristic bot, from the rules' logic.

The game is a race in which arriving earlier claims a better tributary, so every decision is
judged by one yardstick: this seat's chance of winning the race, as estimated by the game's race
model (``heuristic_returns``: tokens' expected turns to Sanctuary, queued one after another
because a player moves one token a turn, interleaved with the other players by seat order).
That model already counts an unused Boost or Pressure as a little progress, STOP as a lost turn
and event effects as small gains or losses, so "keep a Boost for bad terrain" falls out of it:
a Boost is spent only where it saves more than holding it is worth.

* Choosing a token: the landing of every die face is known (the wheel position is public), so
  each token is scored by the expectation over the die of the best way to play out the rest of
  the turn (Boost or not, Pressure or not, which tributary), each ending judged by the model.
* Abilities and event targets: try each legal option on a copy of the table, play the turn to
  its end the same way, keep the best. Pressure Wave, Backwash and Detour thus land on whoever
  the model sees as the biggest threat; Tail Current and the like on the token where a step
  helps most.
* Challenges: attempted unless playing out the card (on a copy) looks worse than skipping it.
* Tributary: the highest one left (a later token can never do better with what is left).
* Animal: the one whose terrain row and Boost promise the fewest lost spaces over the river's mix.

Everything on the table is public except the order of the face-down event pile, so the copy is
``view.resample``; the simulation stops before any further card is drawn.
"""

from __future__ import annotations

import random
from typing import Any

from fieldcraft.core.api import CHANCE, TERMINAL

from .layout import (
    A_ATTEMPT,
    A_NO_ABILITY,
    A_PICK,
    ANIMALS,
    ATTEMPT,
    CHALLENGE,
    PICK,
    ROLL,
    STOP_RESULT,
    TOKEN,
    TRIB,
)
from .search import BOOST_SPACES
from .value import learned_returns

LANDINGS = 14  # about how many landings an animal's three tokens make in a game
STOP_SPACES = 1.0  # a STOP costs a turn of one token; with three tokens another one moves
TIE = 1e-7  # random tie-break size, far below any real difference in value


def _value(state: Any, seat: int) -> float:
    """The seat's win chance: exact at the end, else the race model's estimate."""
    if state.current_player() == TERMINAL:
        return state.returns()[seat]
    return state.heuristic_returns()[seat]


def _after(state: Any, action: int) -> Any:
    child = state.clone()
    child._apply(action)
    return child


def _best_tributary(state: Any) -> int:
    g = state.game
    return max(state.legal_actions(), key=lambda a: g.tributaries[a - g.a_trib])


def _settle(state: Any, seat: int) -> float:
    """Value of a position in which ``seat`` may still have choices this turn: the best choice
    at its own decisions, the expectation over dice and challenges, the model's estimate once
    the turn passes on (or a new event card would have to be drawn, which nobody has seen)."""
    player = state.current_player()
    if player == TERMINAL:
        return state.returns()[seat]
    phase = state.phase
    if player == CHANCE:
        if phase == ROLL or phase == CHALLENGE:
            return sum(p * _settle(_after(state, a), seat) for a, p in state.chance_outcomes())
        return _value(state, seat)
    if player != seat or phase == TOKEN or phase == ATTEMPT:
        return _value(state, seat)
    if phase == TRIB:
        return _settle(_after(state, _best_tributary(state)), seat)
    return max(_settle(_after(state, a), seat) for a in state.legal_actions())


def _animal_cost(g: Any, animal: int) -> float:
    """Spaces an animal expects to lose to terrain over a game, less what its Boost saves
    (:data:`~.search.BOOST_SPACES`, as in the race model).

    The river's mix is the setup one (``setup_mix``): every marker sits on one of its host
    cards."""
    loss = 0.0
    for terrain, c in enumerate(g.setup_mix):
        r = g.table[animal][terrain]
        loss += c * (STOP_SPACES if r == STOP_RESULT else -r)
    return loss / g.cards * LANDINGS - BOOST_SPACES[animal]


def choose(view: Any, rng: random.Random) -> int:
    """The action whose played-out turn gives this seat the best estimated chance to win."""
    g = view.game
    legal = view.legal_actions()
    seat = view.seat
    if len(legal) == 1:
        return legal[0]
    if all(A_PICK <= a < A_PICK + len(ANIMALS) for a in legal):
        return min(legal, key=lambda a: _animal_cost(g, a - A_PICK) + rng.random() * TIE)
    if all(g.a_trib <= a < g.n_actions for a in legal):
        return max(legal, key=lambda a: g.tributaries[a - g.a_trib])

    world = view.resample(rng)
    phase = world.phase

    def worth(action: int) -> float:
        child = _after(world, action)
        value = _settle(child, seat)
        if phase == ATTEMPT and action == A_ATTEMPT:
            value += 1e-6  # an effect the model cannot see (Current Shift) still may help
        elif action == A_NO_ABILITY:
            value += 1e-6  # on a tie keep the ability for later
        return value + rng.random() * TIE

    return max(legal, key=worth)


# -- the Strong level: expectimax over the dice ----------------------------------------------
#
# The search bot (ISMCTS) determinises the die before the token is chosen, so it plays every
# token choice as if it knew its roll; against this heuristic it won only 28% of two-player
# games. Here the die stays a chance node: a token is chosen, *then* every face is weighed by
# its probability (``chance_outcomes``), through this turn and the next ``turns - 1`` turns,
# the other seats choosing what is worst for this seat (exact in two-player games, where the
# race model's chances sum to one). Leaves are the race model, as for the heuristic. An event
# card's draw ends every line (nobody has seen the pile), so the only hidden thing is never
# looked past and the one resample the search reads is as good as the true state.

LOOKAHEAD_PHASES = (PICK, TRIB, ATTEMPT)
"""Phases the expectimax leaves to the heuristic: picking an animal and a tributary are judged
alike by both, and a challenge's value is the card it would draw, which nobody has seen."""


def _expectimax(state: Any, seat: int, turns: int, leaf: Any = _value) -> float:
    """Expectimax value for ``seat`` through ``turns`` more turn starts (see above): at a token
    choice with ``turns`` at 0 the race model (or ``leaf``) judges the position."""
    player = state.current_player()
    if player == TERMINAL:
        return state.returns()[seat]
    phase = state.phase
    if player == CHANCE:
        if phase == ROLL or phase == CHALLENGE:
            return sum(p * _expectimax(_after(state, a), seat, turns, leaf)
                       for a, p in state.chance_outcomes())
        return leaf(state, seat)  # an event card: nobody has seen it
    if phase == ATTEMPT:
        return leaf(state, seat)
    if phase == TOKEN:
        if turns <= 0:
            return leaf(state, seat)
        turns -= 1
    if phase == TRIB:
        return _expectimax(_after(state, _best_tributary(state)), seat, turns, leaf)
    values = [_expectimax(_after(state, a), seat, turns, leaf) for a in state.legal_actions()]
    return max(values) if player == seat else min(values)


def _values(state: Any) -> list[float]:
    """Every seat's win chance: exact at the end, else the race model's estimate."""
    if state.current_player() == TERMINAL:
        return state.returns()
    return state.heuristic_returns()


def _expectimax_n(state: Any, turns: int, leaf: Any = _values) -> list[float]:
    """:func:`_expectimax` with each seat choosing what is best *for itself* (max-n), as the
    heuristic bots it meets do, rather than what is worst for the searching seat: with more
    than two players the paranoid assumption has every opponent spend its turn on this seat."""
    player = state.current_player()
    if player == TERMINAL:
        return state.returns()
    phase = state.phase
    if player == CHANCE:
        if phase == ROLL or phase == CHALLENGE:
            total = [0.0] * state.game.num_players
            for a, p in state.chance_outcomes():
                for s, v in enumerate(_expectimax_n(_after(state, a), turns, leaf)):
                    total[s] += p * v
            return total
        return leaf(state)
    if phase == ATTEMPT:
        return leaf(state)
    if phase == TOKEN:
        if turns <= 0:
            return leaf(state)
        turns -= 1
    if phase == TRIB:
        return _expectimax_n(_after(state, _best_tributary(state)), turns, leaf)
    return max((_expectimax_n(_after(state, a), turns, leaf) for a in state.legal_actions()),
               key=lambda values: values[player])


def _learned_value(state: Any, seat: int) -> float:
    """The seat's win chance: exact at the end, else the learned model's (:mod:`.value`)."""
    return learned_returns(state)[seat]


LEAVES = {"race": (_value, _values), "learned": (_learned_value, learned_returns)}
"""What scores the expectimax's leaves: the race model (the heuristic's yardstick) or the
model fitted to self-play outcomes (``value.py``), each as (one seat's chance, every seat's)."""


def search_choose(view: Any, rng: random.Random, turns: int = 3, opponents: str = "min",
                  value: str = "race") -> int:
    """The Strong level's move: expectimax over the dice through ``turns`` turns, the one under
    way first (``turns=3``: this turn, the next seat's and this seat's next in two-player), else
    the heuristic's. ``opponents="maxn"`` has the other seats maximise their own chance instead
    of minimising this seat's (the same in two-player games). ``value`` names what scores the
    leaves (:data:`LEAVES`): ``race`` or ``learned``. (``benchmarks/atc_ceiling.py
    lookahead --turns N`` searches what is ``turns=N + 1`` here: its count starts after the
    turn under way.)"""
    if value not in LEAVES:
        raise ValueError(f"value must be one of {', '.join(LEAVES)}, not {value!r}")
    if opponents not in ("min", "maxn"):
        raise ValueError(f"opponents must be 'min' or 'maxn', not {opponents!r}")
    legal = view.legal_actions()
    if len(legal) == 1:
        return legal[0]
    world = view.resample(rng)
    if world.phase in LOOKAHEAD_PHASES or turns < 1:
        return choose(view, rng)
    left = turns - 1  # the turn under way is past (or at) its token choice: it is the first
    seat = view.seat
    one, every = LEAVES[value]
    if opponents == "maxn":
        return max(legal, key=lambda a: _expectimax_n(_after(world, a), left, every)[seat]
                   + rng.random() * TIE)
    return max(legal, key=lambda a: _expectimax(_after(world, a), seat, left, one)
               + rng.random() * TIE)
