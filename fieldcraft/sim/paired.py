"""Paired rule tests: both rulesets played on the same deals and seats, as duplicate bridge does.

A study seeds game ``k`` at ``p`` players from the study seed alone (every chance draw and every
bot's seed come from it) and seats the agents by ``k`` too, so two studies with the same seed and
agents give game ``k`` of ruleset A and game ``k`` of ruleset B the same deal, the same seats and
the same bots (common random numbers). What the rule change does not touch then plays out alike
in both, and the luck of the deal, which dominates a single game, cancels from the difference
B − A instead of widening its interval. The two games drift apart as soon as the new rule draws
or decides differently, so how much narrower the interval gets depends on the game and the
change; this module measures it rather than assuming it: every metric gets the paired interval
and the unpaired one computed on the same games, and their width ratio.

Win rates use Newcombe's (1998) hybrid score interval for paired proportions (his method 10:
the two Wilson intervals combined with the correlation φ of the paired outcomes); with φ = 0 it
is exactly the unpaired Newcombe interval of :mod:`fieldcraft.sim.compare`, so the ratio measures
what pairing buys and nothing else. Mean length uses the paired t interval on the per-game
differences, next to Welch's interval on the same games.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fieldcraft.sim.stats import newcombe, newcombe_paired, paired_t, rate, welch

Row = dict[str, Any]
Pairs = list[tuple[Row, Row]]


def pairing_problem(rows_a: list[Row], rows_b: list[Row]) -> str | None:
    """Why two studies' games cannot be paired, or None when they can.

    Games pair when they have the same player count and index and were played from the same seed
    by the same agents in the same seats; at least one game must pair and every shared
    (players, index) must agree, else the studies were run with different seeds or agents and
    their "pairs" would share nothing.
    """
    by_key = {(r["players"], r["index"]): r for r in rows_b}
    shared = [(a, by_key[(a["players"], a["index"])]) for a in rows_a
              if (a["players"], a["index"]) in by_key]
    if not shared:
        return "no game of one study has the player count and index of a game of the other"
    for a, b in shared:
        if a["seed"] != b["seed"]:
            return "the studies were run with different seeds"
        if list(a["agents"]) != list(b["agents"]):
            return "the studies seat different agents"
    return None


def pair_rows(rows_a: list[Row], rows_b: list[Row]) -> Pairs:
    """Games of A and B with the same player count and index, in order."""
    by_key = {(r["players"], r["index"]): r for r in rows_b}
    return [(a, by_key[(a["players"], a["index"])]) for a in rows_a
            if (a["players"], a["index"]) in by_key]


def _proportion(metric: str, players: int, outcomes: list[tuple[bool, bool]]) -> Row:
    both = sum(1 for x, y in outcomes if x and y)
    only_a = sum(1 for x, y in outcomes if x and not y)
    only_b = sum(1 for x, y in outcomes if y and not x)
    n = len(outcomes)
    paired = newcombe_paired(both, only_a, only_b, n - both - only_a - only_b)
    unpaired = newcombe(rate(both + only_a, n), rate(both + only_b, n))
    return _metric(metric, players, (both + only_a) / n, (both + only_b) / n, n, paired,
                   unpaired)


def _metric(metric: str, players: int, a: float, b: float, n: int,
            paired: tuple[float, float, float], unpaired: tuple[float, float, float]) -> Row:
    d, low, high = paired
    width = unpaired[2] - unpaired[1]
    return {"metric": metric, "players": players, "a": a, "b": b, "pairs": n, "diff": d,
            "low": low, "high": high, "unpaired_low": unpaired[1], "unpaired_high": unpaired[2],
            "width_ratio": (high - low) / width if width > 0 else 1.0,
            "verdict": "significant" if low > 0 or high < 0 else "not significant"}


def paired_metrics(rows_a: list[Row], rows_b: list[Row]) -> list[Row]:
    """Every metric of :func:`fieldcraft.sim.compare.compare`, on the paired games.

    Each entry has the values on both sides, the paired ``low``/``high`` and ``verdict``, the
    unpaired ``unpaired_low``/``unpaired_high`` on the same games and ``width_ratio`` (paired
    width over unpaired). A side's rate pairs the games where some seat played it in both.
    """
    pairs = pair_rows(rows_a, rows_b)
    counts = sorted({a["players"] for a, _ in pairs})
    out: list[Row] = []
    for p in counts:
        here = [(a, b) for a, b in pairs if a["players"] == p]
        labels = sorted({lab for a, b in here for lab in (*a["labels"], *b["labels"])
                         if lab is not None})
        for label in labels:
            got = [(label in (a["winning_labels"] or []), label in (b["winning_labels"] or []))
                   for a, b in here if label in a["labels"] and label in b["labels"]]
            if got:
                out.append(_proportion(f"win rate {label}", p, got))
        for seat in range(p):
            out.append(_proportion(f"win rate seat {seat}", p,
                                   [(seat in a["winners"], seat in b["winners"])
                                    for a, b in here]))
    for p in counts:
        here = [(a, b) for a, b in pairs if a["players"] == p]
        la = [float(a["length"]) for a, _ in here]
        lb = [float(b["length"]) for _, b in here]
        out.append(_metric("mean length", p, statistics.fmean(la), statistics.fmean(lb),
                           len(here), paired_t([y - x for x, y in zip(la, lb, strict=True)]),
                           welch(la, lb)))
    return out


IDENTICAL_WARNING = 0.9
"""Above this share of identical paired games the width ratio measures how rarely the rule
matters in these games, not how precise the comparison is, and the comparison says so."""

_OUTCOME_KEYS = ("labels", "winners", "scores", "length", "ending", "decided_by")


def identical_pairs(pairs: Pairs) -> int:
    """How many pairs played out the same under both rulesets: same sides, winners, scores,
    length and ending (every outcome a row records). When nearly all are, the paired intervals
    are narrow because the rule change seldom comes into play, and a study of "N× the games"
    would be no more informative about it."""
    return sum(all(a.get(k) == b.get(k) for k in _OUTCOME_KEYS) for a, b in pairs)


def summary(metrics: list[Row], pairs: Pairs | None = None) -> dict[str, Any]:
    """How much pairing bought: the median width ratio over the win rates and the mean length,
    and the study size an unpaired test would need for the same width (1 / ratio², since width
    shrinks as 1/√games).

    A ratio of 0 (every pair's difference the same) has no finite factor: it is ``None`` with
    ``*_games_factor_unbounded`` true, so the result stays strict JSON. With ``pairs`` it also
    counts the identical pairs (:func:`identical_pairs`) and warns above
    :data:`IDENTICAL_WARNING`.
    """
    rates = [m["width_ratio"] for m in metrics if m["metric"].startswith("win rate")]
    lengths = [m["width_ratio"] for m in metrics if m["metric"] == "mean length"]
    out: dict[str, Any] = {}
    for key, ratios in (("win_rate", rates), ("length", lengths)):
        if ratios:
            r = statistics.median(ratios)
            out[f"{key}_width_ratio"] = r
            out[f"{key}_games_factor"] = 1 / r ** 2 if r > 0 else None
            out[f"{key}_games_factor_unbounded"] = r <= 0
    if pairs is not None:
        same = identical_pairs(pairs)
        out["pairs"] = len(pairs)
        out["identical_pairs"] = same
        out["identical_share"] = same / len(pairs) if pairs else 0.0
        out["identical_warning"] = bool(pairs) and same / len(pairs) > IDENTICAL_WARNING
    return out


def run_pair(game: str, players: list[int], agents: list[str], games: int, seed: int,
             overrides_a: dict[str, Any], overrides_b: dict[str, Any], workers: int | None,
             dir_a: Path, dir_b: Path, progress: Callable[[str, int, int], None] | None = None,
             ray_address: str | None = None) -> tuple[Path, Path]:
    """Play ruleset A and ruleset B as two studies with the same seed, agents and games, so
    game ``k`` of each is dealt and seated alike; returns the two results files.

    Both rulesets are validated before either study starts, so a typo in B's overrides does
    not surface after A's games. ``progress(side, done, total)`` names the study ("A"/"B").
    """
    from fieldcraft.sim.study import run_study, validate

    counts = sorted(set(players))
    validate(game, counts, overrides_a, agents)
    validate(game, counts, overrides_b, agents)
    paths = []
    for side, overrides, out in (("A", overrides_a, dir_a), ("B", overrides_b, dir_b)):
        def step(done: int, total: int, side: str = side) -> None:
            if progress is not None:
                progress(side, done, total)

        paths.append(run_study(game, counts, agents, games, seed, overrides, workers,
                               Path(out), progress=step, ray_address=ray_address))
    return paths[0], paths[1]


def markdown_lines(result: dict[str, Any]) -> list[str]:
    """The comparison's paired summary and table head (the rows are written by the caller)."""
    pairing = result.get("pairing", {})
    pairs = max((m["pairs"] for m in result["metrics"]), default=0)
    lines = [f"- **paired**: games with the same index share the deal, seats and bots "
             f"(common random numbers); up to {pairs} pairs per player count"]
    if "identical_pairs" in pairing:
        lines.append(f"- identical pairs: {pairing['identical_pairs']} of {pairing['pairs']} "
                     f"({pairing['identical_share']:.1%}) played out the same under both "
                     "rulesets (same winners, scores, length and ending)")
    warn = pairing.get("identical_warning")
    if warn:
        lines.append(
            f"- **warning**: over {IDENTICAL_WARNING:.0%} of the pairs are identical: the rule "
            "change seldom comes into play in these games, so the narrow paired intervals say "
            "how rarely it matters here, not that the study is as precise as a larger one; "
            "play more games or a setting where the rule is used")
    if "win_rate_width_ratio" in pairing:
        factor = pairing.get("win_rate_games_factor")
        line = (f"- paired win-rate intervals are {pairing['win_rate_width_ratio']:.2f}× as "
                "wide as unpaired on the same games (median)")
        if not warn and factor is not None:
            line += f": as precise as unpaired studies of {factor:.1f}× the games"
        lines.append(line)
    if "length_width_ratio" in pairing:
        lines.append(f"- paired mean-length intervals: {pairing['length_width_ratio']:.2f}× "
                     "the unpaired width (median)")
    lines += ["", "| metric | players | A | B | B − A | 95% CI (paired) | unpaired 95% CI "
              "| width ratio | p (Holm) | verdict |", "|---|---|---|---|---|---|---|---|---|---|"]
    return lines
