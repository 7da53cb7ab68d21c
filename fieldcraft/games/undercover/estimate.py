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

LaneStat = tuple[float, float, float, float, int]
"""One seat in one lane: (banked points, open-lane value, one-turn grab, work, done).

Open-lane value: the expected token (standard) or the next column's gain (Classified, per step
still to come). One-turn grab: what the seat would add with one more turn there. Work: free
steps to the next token (standard) or to the far side of the black line (Classified). Done: 1
when the lane counts towards the end (a token taken, a Staffer past the line)."""


def multipliers(game: Any, colours: list[int]) -> list[list[int]]:
    """Per seat and lane the scoring factor: x``opposite_multiplier`` on the Opposite Side."""
    return [[game.multiplier if lane == (colours[s] + 3) % N_COLOURS else 1
             for lane in range(N_COLOURS)] for s in range(game.num_players)]


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
            ev += pk * (v if v >= 0 else f[t])
        f[x] = ev
    dist, x = 0, p
    while True:
        x += 1
        if not occ[base + x]:
            dist += 1
            if tokens[base + x] >= 0:
                return f, dist, tokens[base + x]


def lane_stats(game: Any, lane: int, mult: list[list[int]], pos: list[int], occ: list[int],
               tokens: list[int], last_tok: list[int], frozen: list[int], taken: list[int],
               keep: int = -1) -> tuple[list[LaneStat], list[float] | None]:
    """Every seat's :data:`LaneStat` in one lane, and for seat ``keep`` (standard game, open
    lane) the table ``f`` of :func:`token_outlook`, which a caller pricing that seat's moves
    reads again."""
    g = game
    base = lane * g.lane_size
    out: list[LaneStat] = []
    kept = None
    if g.classified:
        values = g.column_values
        end = g.track_len
        line = g.black_line
        for s in range(g.num_players):
            p = pos[s * N_COLOURS + lane]
            m = mult[s][lane]
            now = values[p - 1] * m if p else 0.0
            nxt = p + 1
            while nxt <= end and occ[base + nxt]:
                nxt += 1
            gain = values[nxt - 1] * m - now if nxt <= end else 0.0
            out.append((now, gain, gain, float(max(0, line + 1 - p)), 1 if p > line else 0))
        return out, None
    last = last_tok[lane]
    for s in range(g.num_players):
        i = s * N_COLOURS + lane
        m = mult[s][lane]
        if frozen[i]:
            out.append((taken[i] * m, 0.0, 0.0, 0.0, 1))
            continue
        p = pos[i]
        if last <= p:
            out.append((0.0, 0.0, 0.0, 0.0, 0))
            continue
        f, dist, first = token_outlook(tokens, occ, base, last, p)
        grab = GRAB_P[dist] * first * m if dist < len(GRAB_P) else 0.0
        out.append((0.0, f[p] * m, grab, float(dist), 0))
        if s == keep:
            kept = f
    return out, kept


def seat_totals(lanes: list[list[LaneStat]], players: int
                ) -> tuple[list[float], list[float], list[list[float]], list[float], list[int]]:
    """Per seat over all lanes: banked points, open value, the grabs on offer (gains only, a
    seat need not take a loss), work and lanes done."""
    bank = [0.0] * players
    open_ = [0.0] * players
    grabs: list[list[float]] = [[] for _ in range(players)]
    work = [0.0] * players
    done = [0] * players
    for stats in lanes:
        for s in range(players):
            b, o, gr, w, d = stats[s]
            bank[s] += b
            open_[s] += o
            if gr > 0:
                grabs[s].append(gr)
            work[s] += w
            done[s] += d
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
    if classified:
        return [b + o * lead / N_COLOURS for b, o in zip(bank, open_, strict=True)]
    return [b + reach(w, lead) * o for b, o, w in zip(bank, open_, work, strict=True)]


def last_turn_scores(bank: list[float], grabs: list[list[float]], still: Any) -> list[float]:
    """Expected final scores once the end is triggered: ``still`` are the seats with a turn
    left this round."""
    return [b + one_turn_grab(grabs[s]) if s in still else b for s, b in enumerate(bank)]


def temperature(lead: float) -> float:
    return TEMP0 + TEMP1 * lead


def win_chances(scores: list[float], temp: float) -> list[float]:
    """Expected scores to win chances (a softmax at ``temp`` points)."""
    top = max(scores)
    exps = [math.exp((x - top) / temp) for x in scores]
    total = sum(exps)
    return [e / total for e in exps]
