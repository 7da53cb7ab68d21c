"""Every study metric in a comparison: the designer's metrics, endings and balance, B − A.

Why: a rule change is made to change how a game plays (shorter, more drama, fewer deck-outs),
not only who wins, so a comparison that reports win rates and length alone leaves the designer
to eyeball two reports. Each metric here is the one the study computes
(:func:`fieldcraft.sim.metrics.aggregate`, :func:`fieldcraft.sim.report.summarize`), read off
the same per-game rows:

- per-game means (rounds or turns where the game counts them, decisions, lead changes, drama,
  decided at, their perceived versions, kingmaking moves): paired t on the per-game
  differences, next to Welch's interval on the same games; unpaired studies get Welch's;
- shares of games (first mover wins, no winner, kingmaking games, each ending): Newcombe's
  paired interval next to the unpaired one; unpaired studies get Newcombe's unpaired interval;
- balance (no mean of per-game values): a percentile bootstrap of the difference, resampling
  the same pairs on both sides when paired.

A per-game metric is compared over the games where both sides measured it (a game without a
winner has no drama), so ``pairs`` can be fewer than the games played.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from fieldcraft.sim.metrics import balance_statistic
from fieldcraft.sim.stats import (
    bootstrap_diff,
    newcombe,
    newcombe_paired,
    paired_t,
    rate,
    welch,
)

Row = dict[str, Any]
Value = Callable[[Row], Any]


def _metric_of(key: str) -> Value:
    return lambda r: (r.get("metrics") or {}).get(key)


def _first_mover_won(r: Row) -> bool | None:
    first = (r.get("metrics") or {}).get("first_mover")
    return None if first is None else first in r["winners"]


def _kingmaking_game(r: Row) -> bool | None:
    kings = (r.get("metrics") or {}).get("kingmaking")
    return None if kings is None else kings > 0


def ending(r: Row) -> str | None:
    """How a game ended, as the study report's "How games end" table names it."""
    return ":".join(str(r[k]) for k in ("ending", "decided_by") if r.get(k)) or None


MEANS: list[tuple[str, str, Value]] = [
    ("rounds per game", "count", lambda r: r.get("rounds")),
    ("turns per game", "count", lambda r: r.get("turns")),
    ("decisions per game", "count", _metric_of("decisions")),
    ("lead changes", "share", _metric_of("lead_changes")),
    ("lead changes (perceived)", "share", _metric_of("perceived_lead_changes")),
    ("drama", "share", _metric_of("drama")),
    ("drama (perceived)", "share", _metric_of("perceived_drama")),
    ("decided at", "share", _metric_of("decided_at")),
    ("decided at (perceived)", "share", _metric_of("perceived_decided_at")),
    ("kingmaking moves per game", "count", _metric_of("kingmaking")),
]
"""Per-game values compared as means: (metric, unit, value of a row or None)."""

SHARES: list[tuple[str, Value]] = [
    ("first mover wins", _first_mover_won),
    ("no winner", lambda r: not r["winners"]),
    ("kingmaking games", _kingmaking_game),
]
"""Per-game yes/no values compared as shares of games (every ending is added per study)."""


def _verdict(low: float, high: float) -> str:
    return "significant" if low > 0 or high < 0 else "not significant"


def _paired_entry(metric: str, players: int, unit: str, a: float, b: float, n: int,
                  paired: tuple[float, float, float], unpaired: tuple[float, float, float]
                  ) -> Row:
    d, low, high = paired
    width = unpaired[2] - unpaired[1]
    return {"metric": metric, "players": players, "unit": unit, "a": a, "b": b, "pairs": n,
            "diff": d, "low": low, "high": high, "unpaired_low": unpaired[1],
            "unpaired_high": unpaired[2],
            "width_ratio": (high - low) / width if width > 0 else 1.0,
            "verdict": _verdict(low, high)}


def _unpaired_entry(metric: str, players: int, unit: str, a: float, b: float,
                    games: tuple[int, int], diff: tuple[float, float, float]) -> Row:
    d, low, high = diff
    return {"metric": metric, "players": players, "unit": unit, "a": a, "b": b,
            "games_a": games[0], "games_b": games[1], "diff": d, "low": low, "high": high,
            "verdict": _verdict(low, high)}


def _share_paired(metric: str, p: int, got: list[tuple[bool, bool]]) -> Row:
    both = sum(1 for x, y in got if x and y)
    only_a = sum(1 for x, y in got if x and not y)
    only_b = sum(1 for x, y in got if y and not x)
    n = len(got)
    return _paired_entry(metric, p, "rate", (both + only_a) / n, (both + only_b) / n, n,
                         newcombe_paired(both, only_a, only_b, n - both - only_a - only_b),
                         newcombe(rate(both + only_a, n), rate(both + only_b, n)))


def _for_count(here_a: list[Row], here_b: list[Row], p: int, paired: bool, seed: int
               ) -> list[Row]:
    """Every study metric at one player count; ``paired``: ``here_a[k]`` pairs ``here_b[k]``."""
    out: list[Row] = []
    for name, unit, value in MEANS:
        if paired:
            got = [(float(x), float(y)) for x, y in
                   ((value(a), value(b)) for a, b in zip(here_a, here_b, strict=True))
                   if x is not None and y is not None]
            if len(got) >= 2:
                la, lb = [x for x, _ in got], [y for _, y in got]
                out.append(_paired_entry(
                    name, p, unit, statistics.fmean(la), statistics.fmean(lb), len(got),
                    paired_t([y - x for x, y in got]), welch(la, lb)))
            continue
        la = [float(v) for v in map(value, here_a) if v is not None]
        lb = [float(v) for v in map(value, here_b) if v is not None]
        if len(la) >= 2 and len(lb) >= 2:
            out.append(_unpaired_entry(name, p, unit, statistics.fmean(la),
                                       statistics.fmean(lb), (len(la), len(lb)),
                                       welch(la, lb)))
    kinds = sorted({k for r in (*here_a, *here_b) if (k := ending(r)) is not None})
    shares = SHARES + [(f"ending {kind}", lambda r, kind=kind: ending(r) == kind)
                       for kind in kinds]
    for name, value in shares:
        if paired:
            got = [(bool(x), bool(y)) for x, y in
                   ((value(a), value(b)) for a, b in zip(here_a, here_b, strict=True))
                   if x is not None and y is not None]
            if got:
                out.append(_share_paired(name, p, got))
            continue
        va = [bool(v) for v in map(value, here_a) if v is not None]
        vb = [bool(v) for v in map(value, here_b) if v is not None]
        if va and vb:
            ra, rb = rate(sum(va), len(va)), rate(sum(vb), len(vb))
            out.append(_unpaired_entry(name, p, "rate", ra["rate"], rb["rate"],
                                       (len(va), len(vb)), newcombe(ra, rb)))
    out += _balance(here_a, here_b, p, paired, seed)
    return out


def _balance(here_a: list[Row], here_b: list[Row], p: int, paired: bool, seed: int
             ) -> list[Row]:
    """Balance B − A by a bootstrap over games (pairs resampled alike when paired)."""
    stat_a, stat_b = balance_statistic(here_a), balance_statistic(here_b)
    if stat_a is None or stat_b is None:
        return []
    import numpy as np

    whole_a = float(stat_a(np.arange(len(here_a))[None, :])[0])
    whole_b = float(stat_b(np.arange(len(here_b))[None, :])[0])
    independent = bootstrap_diff(stat_a, len(here_a), stat_b, len(here_b), False, seed)
    if independent is None:
        return []
    if not paired:
        return [_unpaired_entry("balance", p, "share", whole_a, whole_b,
                                (len(here_a), len(here_b)), independent)]
    both = bootstrap_diff(stat_a, len(here_a), stat_b, len(here_b), True, seed)
    if both is None:
        return []
    return [_paired_entry("balance", p, "share", whole_a, whole_b, len(here_a), both,
                          independent)]


def study_metrics(rows_a: list[Row], rows_b: list[Row], paired: bool, seed: int = 0
                  ) -> list[Row]:
    """B − A for every study metric at every player count both studies played.

    ``paired``: games pair by (players, index) (:func:`fieldcraft.sim.paired.pair_rows`) and
    each entry has the paired ``low``/``high``, the unpaired interval on the same games and
    their ``width_ratio``, as the win rates do; otherwise the studies are independent samples.
    Every entry has ``unit``: ``rate`` (a share of games), ``share`` (a 0–1 metric) or
    ``count`` (per game).
    """
    counts = sorted({r["players"] for r in rows_a} & {r["players"] for r in rows_b})
    out: list[Row] = []
    for p in counts:
        if paired:
            from fieldcraft.sim.paired import pair_rows

            pairs = [(a, b) for a, b in pair_rows(rows_a, rows_b) if a["players"] == p]
            here_a, here_b = [a for a, _ in pairs], [b for _, b in pairs]
        else:
            here_a = [r for r in rows_a if r["players"] == p]
            here_b = [r for r in rows_b if r["players"] == p]
        if here_a and here_b:
            out += _for_count(here_a, here_b, p, paired, seed)
    return out
