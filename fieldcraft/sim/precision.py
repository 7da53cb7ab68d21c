"""Play a study until its headline intervals are as narrow as asked (``study --until-ci``).

The headline intervals are the win rate of every side and of every seat at every player count
(the Wilson 95% intervals of the report). ``--until-ci 0.02`` asks for a **half-width** of at
most 0.02 for each: every headline figure is known to within ±2 percentage points (its full
interval spans at most 4). Half-width is the "margin of error" designers quote ("52% ± 2%"),
and the Wilson interval is asymmetric near 0 and 1, so the larger of its two sides is used.

Each player count stops on its own: after a batch, a count whose widest interval is still too
wide is given as many more games as the 1/√n law predicts it needs (with 5% to spare, at least a
quarter more and at most four times as many as it has, so one noisy early estimate can neither
crawl nor overshoot far), never past ``max_games``. Game ``k`` is the same game whatever the
batch that played it, so the rows equal those of a fixed-size study of the final size.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from fieldcraft.sim.stats import wilson

Rows = list[dict[str, Any]]

# Default safety cap (games per player count): ±1 point at an even 50% needs about 9,600.
DEFAULT_MAX_GAMES = 20_000
_SPARE = 1.05
_MIN_GROWTH = 1.25
_MAX_GROWTH = 4.0


def half_width(wins: int, n: int) -> float:
    """The larger side of the Wilson 95% interval of ``wins`` out of ``n`` (0.5 and up when
    ``n`` is 0, so an unplayed count never counts as narrow enough)."""
    if n == 0:
        return 1.0
    low, high = wilson(wins, n)
    rate = wins / n
    return max(rate - low, high - rate)


def headline_widths(rows: Rows) -> dict[int, dict[str, float]]:
    """Half-width of every headline interval, per player count: ``{p: {"seat 0": w, "Blue":
    w, ...}}``; a side's rate is over the games where some seat played it, as in the report."""
    seats: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    sides: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        p = row["players"]
        for seat in range(p):
            seats[(p, seat)][0] += int(seat in row["winners"])
            seats[(p, seat)][1] += 1
        won = set(row["winning_labels"] or [])
        for label in {lab for lab in row["labels"] if lab is not None}:
            sides[(p, label)][0] += int(label in won)
            sides[(p, label)][1] += 1
    out: dict[int, dict[str, float]] = defaultdict(dict)
    for (p, label), (w, n) in sorted(sides.items()):
        out[p][label] = half_width(w, n)
    for (p, seat), (w, n) in sorted(seats.items()):
        out[p][f"seat {seat}"] = half_width(w, n)
    return dict(out)


def widest(rows: Rows, counts: list[int]) -> dict[int, tuple[str, float]]:
    """The widest headline interval per player count: ``{p: (name, half-width)}``."""
    widths = headline_widths(rows)
    out = {}
    for p in counts:
        items = widths.get(p, {})
        out[p] = max(items.items(), key=lambda kv: kv[1]) if items else ("no games", 1.0)
    return out


def planner(target: float, max_games: int, counts: list[int]
            ) -> Callable[[Rows, dict[int, int]], dict[int, int]]:
    """A function ``(rows so far, games played per count) -> more games per count`` (0 for a
    count that is narrow enough or at the cap): the study plays batches until all are 0."""
    if not 0 < target < 0.5:
        raise ValueError(f"--until-ci is a half-width between 0 and 0.5, got {target}")

    def more(rows: Rows, played: dict[int, int]) -> dict[int, int]:
        out = {}
        for p, (_, h) in widest(rows, counts).items():
            n = played.get(p, 0)
            if h <= target or n >= max_games:
                out[p] = 0
                continue
            want = math.ceil(n * (h / target) ** 2 * _SPARE)
            want = min(max(want, math.ceil(n * _MIN_GROWTH), n + 1),
                       math.ceil(n * _MAX_GROWTH) or 1, max_games)
            out[p] = want - n
        return out

    return more


def record(rows: Rows, counts: list[int], target: float, max_games: int,
           schedule: list[dict[int, int]]) -> dict[str, Any]:
    """What ``study.json`` says about the stopping rule: the target, the cap, the games each
    count took (``games``: the rows there are, so an interrupted batch counts what finished;
    ``schedule``: the games asked for after each batch), the widest interval each ended with
    and whether every count reached the target."""
    wide = widest(rows, counts)
    return {
        "half_width": target,
        "max_games": max_games,
        "batches": len(schedule),
        "schedule": [{str(p): n for p, n in step.items()} for step in schedule],
        "games": {str(p): sum(1 for r in rows if r["players"] == p) for p in counts},
        "widest": {str(p): {"interval": name, "half_width": h} for p, (name, h) in wide.items()},
        "reached": all(h <= target for _, h in wide.values()),
    }


def describe(info: dict[str, Any]) -> str:
    """One line for the report and the terminal: how many games it took to reach ±target."""
    counts = ", ".join(f"{int(n):,} games at {p}p" for p, n in info["games"].items())
    status = "reached" if info["reached"] else \
        f"not reached (cap {info['max_games']:,} games per count)"
    p, worst = max(info["widest"].items(), key=lambda kv: kv[1]["half_width"])
    return (f"until every headline interval is within ±{100 * info['half_width']:.1f} points: "
            f"{status} after {counts} in {info['batches']} batches (widest at the end: "
            f"{worst['interval']} at {p}p, ±{100 * worst['half_width']:.1f})")
