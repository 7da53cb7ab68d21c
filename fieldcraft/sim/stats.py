"""The intervals and tests of the designer's lab, in one place.

Studies, comparisons, paired rule tests, tuning and the bot benchmarks all report rates and
differences with 95% intervals; each method is written once here so that every report computes
it the same way (and none needs scipy): Wilson's score interval for a rate, Newcombe's hybrid
intervals for the difference of two rates (independent or paired), Welch's and the paired t
interval for differences of means, and the percentile bootstrap.

A headline picks the most extreme of many rates, so it also needs tests that know how many were
looked at: :func:`score_p` is the test the Wilson interval inverts (a rate is outside its
interval exactly when ``score_p`` < 0.05), and :func:`holm` adjusts a family of such p-values
so that the chance of any false "above an even share" stays at 5% however many rates there are.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Any

BOOTSTRAP = 2000
"""Resamples of a percentile-bootstrap interval."""


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion: honest near 0 and 1 and for small samples,
    where the normal approximation gives intervals outside [0, 1]."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At a rate of 0 or 1 the bound is the rate itself in exact arithmetic; in floats it can
    # land a hair inside (0.9999999999999999 for 5 of 5), which charts refuse as a negative
    # error bar: the interval always contains the rate.
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


Rate = dict[str, Any]


def rate(wins: int, n: int) -> Rate:
    """A rate with its Wilson interval, as every report and comparison stores it."""
    low, high = wilson(wins, n)
    return {"wins": wins, "games": n, "rate": wins / n if n else 0.0, "low": low, "high": high}


Z95 = 1.959963984540054


def newcombe(a: Rate, b: Rate) -> tuple[float, float, float]:
    """Difference ``b - a`` of two proportions with Newcombe's 95% hybrid score interval."""
    d = b["rate"] - a["rate"]
    low = d - math.sqrt((b["rate"] - b["low"]) ** 2 + (a["high"] - a["rate"]) ** 2)
    high = d + math.sqrt((b["high"] - b["rate"]) ** 2 + (a["rate"] - a["low"]) ** 2)
    return d, low, high


def t95(df: float) -> float:
    """Two-sided 95% Student t quantile (Cornish–Fisher expansion; within 0.01 for df >= 3),
    so the comparison needs no scipy."""
    if not math.isfinite(df) or df <= 0:
        return Z95
    z = Z95
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def welch(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """Difference of means ``mean(b) - mean(a)`` with Welch's 95% interval."""
    d = statistics.fmean(b) - statistics.fmean(a)
    va = statistics.variance(a) / len(a) if len(a) > 1 else 0.0
    vb = statistics.variance(b) / len(b) if len(b) > 1 else 0.0
    se = math.sqrt(va + vb)
    if se == 0:
        return d, d, d
    denom = (va ** 2 / (len(a) - 1) if len(a) > 1 else 0) + \
        (vb ** 2 / (len(b) - 1) if len(b) > 1 else 0)
    df = (va + vb) ** 2 / denom if denom else math.inf
    half = t95(df) * se
    return d, d - half, d + half


def newcombe_paired(both: int, only_a: int, only_b: int, neither: int
                    ) -> tuple[float, float, float]:
    """Difference ``p_B - p_A`` of two paired proportions with Newcombe's 95% interval.

    The counts are the paired 2×2 table: games that both, only A, only B or neither won. φ is
    the table's correlation with Newcombe's correction (``ad − bc`` shrunk by ``n/2`` towards 0
    when positive), which keeps the interval from getting too narrow in small samples.
    """
    n = both + only_a + only_b + neither
    if n == 0:
        return 0.0, -1.0, 1.0
    pa, pb = (both + only_a) / n, (both + only_b) / n
    la, ua = wilson(both + only_a, n)
    lb, ub = wilson(both + only_b, n)
    phi = 0.0
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    if margins > 0:
        cross = both * neither - only_a * only_b
        corrected = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
        phi = corrected / math.sqrt(margins)
    d = pb - pa
    low = d - math.sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa)
                            + (ua - pa) ** 2))
    high = d + math.sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la)
                             + (pa - la) ** 2))
    return d, max(-1.0, low), min(1.0, high)


def paired_t(diffs: list[float]) -> tuple[float, float, float]:
    """Mean of per-game differences with the paired (one-sample) t 95% interval."""
    d = statistics.fmean(diffs)
    if len(diffs) < 2:
        return d, d, d
    half = t95(len(diffs) - 1) * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return d, d - half, d + half


def bootstrap(values: Sequence[float], statistic: str = "mean", seed: int = 0,
              resamples: int = BOOTSTRAP) -> dict[str, float] | None:
    """``statistic`` (mean, sd or p95) of ``values`` with a percentile-bootstrap 95% interval."""
    import numpy as np

    x = np.asarray([v for v in values if v is not None], dtype=float)
    if x.size == 0:
        return None
    fn = {"mean": lambda a: a.mean(axis=-1),
          "sd": lambda a: a.std(axis=-1, ddof=1) if a.shape[-1] > 1 else np.zeros(a.shape[:-1]),
          "p95": lambda a: np.quantile(a, 0.95, axis=-1)}[statistic]
    draws = fn(x[np.random.default_rng(seed).integers(0, x.size, (resamples, x.size))])
    low, high = np.quantile(draws, [0.025, 0.975])
    return {"value": float(fn(x)), "low": float(low), "high": float(high), "n": int(x.size)}


def score_p(wins: float, n: int, p0: float) -> float:
    """Two-sided p-value of the score test of ``wins`` out of ``n`` against a rate ``p0``.

    It is the test Wilson's interval inverts, so ``score_p < 0.05`` exactly when ``p0`` lies
    outside :func:`wilson`'s 95% interval: the unadjusted verdict and the interval agree. A
    ``p0`` of 0 or 1 admits no other outcome (p 1 when the rate equals it, else 0).
    """
    if n == 0:
        return 1.0
    p = wins / n
    if p0 <= 0.0 or p0 >= 1.0:
        return 1.0 if abs(p - p0) < 1e-12 else 0.0
    z = (p - p0) / math.sqrt(p0 * (1 - p0) / n)
    return math.erfc(abs(z) / math.sqrt(2))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    A headline that reports any of ``m`` rates as different needs the family-wise error (the
    chance that one or more of them is a fluke) held at 5%, not each one's: Holm's method does
    that for any dependence between the tests and is uniformly more powerful than Bonferroni.
    The ``k``-th smallest p is multiplied by ``m - k``, kept monotone and capped at 1; a rate is
    significant when its adjusted p is below 0.05.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def p_from_interval(diff: float, low: float, high: float) -> float:
    """Approximate two-sided p-value of ``diff`` from its 95% interval ``(low, high)``, taking
    the half-width on diff's side of 0 as 1.96 standard errors.

    For comparisons whose intervals are not inversions of a simple test (Newcombe's hybrid,
    bootstrap), so they can still enter a Holm adjustment; it agrees with the interval at the
    5% line (p < 0.05 exactly when the interval excludes 0).
    """
    half = (high - diff) if diff < 0 else (diff - low)
    if half <= 0:
        return 1.0 if diff == 0 else 0.0
    return math.erfc(abs(diff) / (half / Z95) / math.sqrt(2))


def bootstrap_diff(stat_a: Callable[[Any], Any], n_a: int, stat_b: Callable[[Any], Any],
                   n_b: int, paired: bool, seed: int = 0, resamples: int = BOOTSTRAP
                   ) -> tuple[float, float, float] | None:
    """Difference ``stat_b - stat_a`` of two statistics of games with a percentile-bootstrap
    95% interval, for statistics (like balance) that are no mean of per-game values.

    Each ``stat`` maps an integer array of game indices ``(..., games)`` to one value per row.
    ``paired`` resamples the same indices on both sides (game ``k`` of A with game ``k`` of B,
    ``n_a == n_b``), so what the pairs share cancels as in a paired t interval; otherwise the
    two sides are resampled independently. ``None`` when a side has no games or no finite draw.
    """
    import numpy as np

    if n_a == 0 or n_b == 0 or (paired and n_a != n_b):
        return None
    rng = np.random.default_rng(seed)
    idx_a = rng.integers(0, n_a, (resamples, n_a))
    idx_b = idx_a if paired else rng.integers(0, n_b, (resamples, n_b))
    d = float(stat_b(np.arange(n_b)[None, :])[0] - stat_a(np.arange(n_a)[None, :])[0])
    draws = np.asarray(stat_b(idx_b), dtype=float) - np.asarray(stat_a(idx_a), dtype=float)
    draws = draws[np.isfinite(draws)]
    if not math.isfinite(d) or draws.size == 0:
        return None
    low, high = np.quantile(draws, [0.025, 0.975])
    return d, float(min(low, d)), float(max(high, d))


def bootstrap_strata(stat: Callable[[list[Any]], Any], sizes: Sequence[int], seed: int = 0,
                     resamples: int = BOOTSTRAP) -> tuple[float, float, float] | None:
    """A statistic of games kept in strata (one per player count) with a percentile-bootstrap
    95% interval, resampling games within each stratum so every count keeps its number of games.

    ``stat`` maps a list of integer index arrays, one per stratum, each ``(rows, games)``, to one
    value per row. For statistics such as a tuning loss (an average over counts of each count's
    largest win-rate gap), which are no mean of per-game values and have no textbook interval.
    Returns ``(value, low, high)``, the interval stretched to hold the value; ``None`` when a
    stratum has no games or no draw is finite.
    """
    import numpy as np

    if not sizes or any(n == 0 for n in sizes):
        return None
    rng = np.random.default_rng(seed)
    value = float(np.asarray(stat([np.arange(n)[None, :] for n in sizes]), dtype=float)[0])
    draws = np.asarray(stat([rng.integers(0, n, (resamples, n)) for n in sizes]), dtype=float)
    draws = draws[np.isfinite(draws)]
    if not math.isfinite(value) or draws.size == 0:
        return None
    low, high = np.quantile(draws, [0.025, 0.975])
    return value, float(min(low, value)), float(max(high, value))
