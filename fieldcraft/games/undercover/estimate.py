"""What an Undercover position is worth: the one expected-score model that search's
``heuristic_returns`` and the heuristic bot both read.

Each seat's expected final score is its banked points plus what its open lanes should still
bring:

* Standard game: a Staffer takes the first token it lands on and never moves again, so an open
  lane is worth the token it will probably end on. That expectation is a small dynamic
  programme over step sizes 1-3 from the Staffer's space (:data:`STEP_P`; hops over other
  Staffers included, an overshoot lands on the last token), x2 on the Opposite Side. Open lanes
  are discounted by how far the seat is from a token in each of them (its "work") compared with
  the seat nearest to the end (:func:`reach`), since whatever is open when anyone takes a sixth
  token scores nothing.
* Classified: each Staffer's column value plus the next column's gain for each step it can
  still expect, the least work of any seat spread over the six lanes.

Once the end is triggered, seats that have had their last turn keep what they have and the
others one more turn's grab (:func:`last_turn_scores`). Scores become win chances by a softmax
whose temperature (in points) shrinks with the rounds left. The constants were fitted (log-loss
of the winner) on heuristic self-play positions.

The two users differ only in what they add on top: the search evaluation credits the seat to
move with its best placement (``search.heuristic_returns``), the bot rescores whole lanes for
each move it tries and adds a margin and a stall bonus (``bot._Model``).
"""

from __future__ import annotations

import math
from typing import Any

from .grid import N_COLOURS

STEP_P = ((1, 0.55), (2, 0.30), (3, 0.15))
"""How far a Staffer tends to move in one evaluation (used to guess which token it lands on)."""
GRAB_P = (0.0, 0.85, 0.6, 0.3)
"""Chance that a seat with one turn left lands exactly on a token 1, 2 or 3 free steps away."""
SLACK = 0.25
GAMMA_POW = 0.5
"""An open lane counts ``min(1, (lead + SLACK) / work) ** GAMMA_POW`` of its value, where
``work`` is the free steps the seat needs to reach a token in every open lane and ``lead`` the
least work of any seat (the race to the sixth token)."""
TEMP0 = 2.2
TEMP1 = 0.28
"""Win-chance temperature in points: TEMP0 + TEMP1 * lead."""
END_TEMP = 1.25
"""Win-chance temperature once the end is triggered (only a turn or so is left to play)."""

Totals = tuple[list[float], list[float], list[list[float]], list[float], list[int]]
"""Per seat: (banked points, open-lane value, grabs on offer, work, lanes done), over one lane
or summed over several.

Open-lane value: the expected token (standard) or the next column's gain (Classified, per step
still to come). Grabs: what the seat would add with one more turn in each lane where that can
change its score (a token 1-3 free steps away; the next free column, a loss on the Classified
track's first, negative columns). Work: free steps to the next token (standard) or to the far
side of the black line (Classified). Done: lanes that count towards the end (a token taken, a
Staffer past the line)."""


def blank(players: int) -> Totals:
    return ([0.0] * players, [0.0] * players, [[] for _ in range(players)], [0.0] * players,
            [0] * players)


def opposites(colours: list[int]) -> list[int]:
    """Each seat's Opposite Side lane (its points there count ``opposite_multiplier`` times)."""
    return [(c + 3) % N_COLOURS for c in colours]


def token_outlook(tokens: list[int], occ: list[int], base: int, last: int, p: int
                  ) -> tuple[list[float], int, int]:
    """For a Staffer on space ``p`` of the lane starting at ``base`` whose last token is on
    ``last``: (``f``, free steps to the first token, its value), ``f[x]`` being the expected
    token from space ``x`` (filled from ``p`` on). The spaces it may stop on are the free ones,
    and the value from each is the chance-weighted value of where its next move lands."""
    f = [0.0] * (last + 1)
    for x in range(last - 1, p - 1, -1):
        if x != p and (tokens[base + x] >= 0 or occ[base + x]):
            continue
        ev = 0.0
        for k, pk in STEP_P:
            t = x + k if x + k < last else last
            while occ[base + t]:
                t += 1
            v = tokens[base + t]
            if v >= 0:
                ev += pk * v
            else:
                later = f[t]  # no token there: what the Staffer expects from there on
                ev += pk * later
        f[x] = ev
    dist, x = 0, p
    while True:
        x += 1
        if not occ[base + x]:
            dist += 1
            if tokens[base + x] >= 0:
                return f, dist, tokens[base + x]


def add_lane(game: Any, lane: int, opposite: list[int], pos: list[int], occ: list[int],
             tokens: list[int], last_tok: list[int], frozen: list[int], taken: list[int],
             into: Totals, keep: int = -1) -> list[float] | None:
    """Add every seat's :data:`Totals` in one lane to ``into``; return seat ``keep``'s table
    ``f`` of :func:`token_outlook` there (standard game, open lane), which a caller pricing
    that seat's moves reads again. The arrays are the state's, or copies with one Staffer
    moved to price a move."""
    g = game
    bank, open_, grabs, work, done = into
    base = lane * g.lane_size
    times = g.multiplier
    if g.classified:
        values = g.column_values
        end = g.track_len
        line = g.black_line
        for s in range(g.num_players):
            p = pos[s * N_COLOURS + lane]
            m = times if opposite[s] == lane else 1
            now = values[p - 1] * m if p else 0.0
            bank[s] += now
            nxt = p + 1
            while nxt <= end and occ[base + nxt]:
                nxt += 1
            if nxt <= end:
                gain = values[nxt - 1] * m - now
                open_[s] += gain
                grabs[s].append(gain)
            if p <= line:
                work[s] += line + 1 - p
            else:
                done[s] += 1
        return None
    last = last_tok[lane]
    kept = None
    for s in range(g.num_players):
        i = s * N_COLOURS + lane
        m = times if opposite[s] == lane else 1
        if frozen[i]:
            bank[s] += taken[i] * m
            done[s] += 1
            continue
        p = pos[i]
        if last <= p:
            continue
        f, dist, first = token_outlook(tokens, occ, base, last, p)
        open_[s] += f[p] * m
        work[s] += dist
        if dist < len(GRAB_P):
            grabs[s].append(GRAB_P[dist] * first * m)
        if s == keep:
            kept = f
    return kept


def combine(parts: list[Totals], players: int) -> Totals:
    """The sum of several lanes' :data:`Totals`, added lane by lane (so each figure is the
    one :func:`add_lane` makes adding the same lanes into one total)."""
    bank, open_, grabs, work, done = blank(players)
    for pb, po, pg, pw, pd in parts:
        for s in range(players):
            bank[s] += pb[s]
            open_[s] += po[s]
            grabs[s] += pg[s]
            work[s] += pw[s]
            done[s] += pd[s]
    return bank, open_, grabs, work, done


def reach(work: float, lead: float) -> float:
    """The share of its open lanes' value a seat that needs ``work`` steps can expect to
    collect before the seat needing ``lead`` ends the game."""
    return 1.0 if work <= 0 else min(1.0, (lead + SLACK) / work) ** GAMMA_POW


def one_turn_grab(grabs: list[float]) -> float:
    """What one more turn is worth: the best grab, and half the second (a meeting can move two
    lanes, less often usefully)."""
    best = sorted(grabs, reverse=True)
    return (best[0] if best else 0.0) + (0.5 * best[1] if len(best) > 1 else 0.0)


def open_scores(classified: bool, bank: list[float], open_: list[float], work: list[float],
                lead: float) -> list[float]:
    """Expected final scores while the end is not yet triggered."""
    seats = range(len(bank))
    if classified:
        return [bank[s] + open_[s] * lead / N_COLOURS for s in seats]
    return [bank[s] + reach(work[s], lead) * open_[s] for s in seats]


def last_turn_scores(bank: list[float], grabs: list[list[float]], still: Any,
                     gains_only: bool = False) -> list[float]:
    """Expected final scores once the end is triggered: ``still`` are the seats with a turn
    left this round. The search evaluation prices a last turn by the best grabs whatever they
    are; the bot (``gains_only``) by the gains among them, as a seat may leave a losing lane
    alone."""
    if gains_only:
        grabs = [[x for x in offered if x > 0] for offered in grabs]
    return [b + one_turn_grab(grabs[s]) if s in still else b for s, b in enumerate(bank)]


def temperature(lead: float) -> float:
    return TEMP0 + TEMP1 * lead


def win_chances(scores: list[float], temp: float) -> list[float]:
    """Expected scores to win chances (a softmax at ``temp`` points)."""
    top = max(scores)
    exps = [math.exp((x - top) / temp) for x in scores]
    total = sum(exps)
    return [e / total for e in exps]
