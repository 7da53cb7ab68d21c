"""Compare two balance studies: did the rules change (B) move any win rate or the game length?

Every metric that both studies measure gets the difference B − A with a 95% interval and a
verdict. Win rates use Newcombe's hybrid score interval for a difference of two independent
proportions (built from the two Wilson intervals, so it stays sensible near 0% and 100% where the
Wald interval is too narrow); mean length uses Welch's interval, which does not assume the two
studies have equal variance. An interval that excludes 0 is significant on its own, but with
many metrics some cross that line by chance (about 1 in 20 of those that did not change), so
every verdict is Holm-adjusted over all the comparisons in the result (win rates, length and
every study metric of :mod:`fieldcraft.sim.compare_metrics`): each gets a two-sided p-value from
its interval (:func:`fieldcraft.sim.stats.p_from_interval`) and is "significant" only when its
Holm-adjusted p is below 5%.

The JSON is strict (no ``Infinity`` or ``NaN``, which ``jq`` and browsers refuse): a figure with
no finite value is ``null``, with a flag saying why where one applies.

When both studies were played from the same seed with the same agents (so game ``k`` of each
had the same deal and seats), the games are compared in pairs instead (see
:mod:`fieldcraft.sim.paired`): each metric then also carries the unpaired interval on the same
games and the ratio of the two widths.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

from fieldcraft.sim.compare_metrics import study_metrics
from fieldcraft.sim.report import summarize
from fieldcraft.sim.stats import holm, newcombe, p_from_interval, welch
from fieldcraft.sim.study import load_results

ALPHA = 0.05
"""Family-wise error of a comparison's "significant" verdicts (Holm-adjusted)."""


def _entry(metric: str, players: int, a: Any, b: Any, diff: tuple[float, float, float]
           ) -> dict[str, Any]:
    d, low, high = diff
    return {"metric": metric, "players": players, "a": a, "b": b, "diff": d, "low": low,
            "high": high,
            "verdict": "significant" if low > 0 or high < 0 else "not significant"}


def compare(dir_a: Path, dir_b: Path, paired: bool | None = None) -> dict[str, Any]:
    """Differences B − A for every metric both studies measured.

    ``paired=None`` pairs the games when the studies allow it (same seeds and agents per game),
    ``True`` requires it (ValueError saying why not) and ``False`` never pairs. The result's
    ``paired`` says which was done; a paired result also has ``pairing`` (median width ratios,
    :func:`fieldcraft.sim.paired.summary`) and per metric the unpaired interval and ratio.

    Returns ``{"a": meta, "b": meta, "metrics": [...]}``; each metric has ``metric`` (e.g.
    ``"win rate Axolotl"``, ``"win rate seat 0"``, ``"mean length"``), ``players``, the two
    values, ``diff``, ``low``, ``high``, ``p``, ``p_holm`` and ``verdict`` (from ``p_holm``).
    ``study_metrics`` holds every other study metric in the same form
    (:func:`fieldcraft.sim.compare_metrics.study_metrics`), ``adjustment`` the method and the
    number of comparisons adjusted together, ``non_finite`` (only when there are any) the
    paths of figures that had no finite value and are ``null``. Raises ValueError if the
    studies are of different games, since nothing in them would be comparable.
    """
    rows_a, meta_a = load_results(Path(dir_a))
    rows_b, meta_b = load_results(Path(dir_b))
    game_a = meta_a.get("game") or (rows_a[0]["game"] if rows_a else None)
    game_b = meta_b.get("game") or (rows_b[0]["game"] if rows_b else None)
    if game_a != game_b:
        raise ValueError(f"cannot compare a study of {game_a} with one of {game_b}")
    meta = {"a": {"dir": str(dir_a), **meta_a}, "b": {"dir": str(dir_b), **meta_b}}
    seed = int(meta_a.get("seed") or 0)
    if paired is not False:
        from fieldcraft.sim import paired as pairing

        problem = pairing.pairing_problem(rows_a, rows_b)
        if problem is None:
            metrics = pairing.paired_metrics(rows_a, rows_b)
            return _adjusted(_finite({
                **meta, "paired": True,
                "pairing": pairing.summary(metrics, pairing.pair_rows(rows_a, rows_b)),
                "metrics": metrics,
                "study_metrics": study_metrics(rows_a, rows_b, True, seed)}))
        if paired:
            raise ValueError(f"cannot pair the two studies: {problem}")
        meta["pairing_problem"] = problem
    sa, sb = summarize(rows_a), summarize(rows_b)
    metrics = []
    for (p, label), ra in sa["labels"].items():
        rb = sb["labels"].get((p, label))
        if rb is not None and ra["games"] and rb["games"]:
            metrics.append(_entry(f"win rate {label}", p, ra["rate"], rb["rate"],
                                  newcombe(ra, rb)))
    for (p, seat), ra in sa["seats"].items():
        rb = sb["seats"].get((p, seat))
        if rb is not None and ra["games"] and rb["games"]:
            metrics.append(_entry(f"win rate seat {seat}", p, ra["rate"], rb["rate"],
                                  newcombe(ra, rb)))
    for p, la in sa["lengths"].items():
        lb = sb["lengths"].get(p)
        if lb:
            metrics.append(_entry("mean length", p, statistics.fmean(la), statistics.fmean(lb),
                                  welch([float(x) for x in la], [float(x) for x in lb])))
    return _adjusted(_finite({**meta, "paired": False, "metrics": metrics,
                              "study_metrics": study_metrics(rows_a, rows_b, False, seed)}))


def _adjusted(result: dict[str, Any]) -> dict[str, Any]:
    """Holm-adjust every comparison in ``result`` together: each gets ``p`` (from its
    interval), ``p_holm`` and the verdict from ``p_holm``; ``adjustment`` names the method."""
    entries = [m for m in result["metrics"] + result["study_metrics"]
               if all(isinstance(m.get(k), int | float) for k in ("diff", "low", "high"))]
    ps = [p_from_interval(m["diff"], m["low"], m["high"]) for m in entries]
    for m, p, q in zip(entries, ps, holm(ps), strict=True):
        m["p"], m["p_holm"] = p, q
        m["verdict"] = "significant" if q < ALPHA else "not significant"
    result["adjustment"] = {"method": "holm", "comparisons": len(entries), "alpha": ALPHA}
    return result


def _finite(obj: Any, path: str = "", bad: list[str] | None = None) -> Any:
    """``obj`` with every non-finite float replaced by ``None``, so ``json.dumps`` writes
    strict JSON; the paths replaced are listed under ``non_finite`` at the top level."""
    top = bad is None
    bad = [] if bad is None else bad
    if isinstance(obj, float) and not math.isfinite(obj):
        bad.append(path)
        return None
    if isinstance(obj, dict):
        out: Any = {k: _finite(v, f"{path}.{k}" if path else str(k), bad)
                    for k, v in obj.items()}
    elif isinstance(obj, list | tuple):
        out = [_finite(v, f"{path}[{i}]", bad) for i, v in enumerate(obj)]
    else:
        out = obj
    if top and bad and isinstance(out, dict):
        out["non_finite"] = bad
    return out


def write_comparison(dir_a: Path, dir_b: Path, out: Path,
                     paired: bool | None = None) -> tuple[Path, Path]:
    """Write ``comparison.md``, ``comparison.json`` and ``comparison.png`` (differences with
    their intervals) into directory ``out``; returns the Markdown and PNG paths. ``paired`` as
    for :func:`compare`."""
    result = compare(dir_a, dir_b, paired)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "comparison.json").write_text(
        json.dumps(result, indent=2, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
    a, b = result["a"], result["b"]
    adjustment = result.get("adjustment", {})
    lines = [
        f"# Comparison: {a.get('game', '?')}", "",
        f"- A: `{a['dir']}` overrides `{json.dumps(a.get('overrides', {}), sort_keys=True)}`, "
        f"seed {a.get('seed', '?')}, {a.get('games_played', '?')} games",
        f"- B: `{b['dir']}` overrides `{json.dumps(b.get('overrides', {}), sort_keys=True)}`, "
        f"seed {b.get('seed', '?')}, {b.get('games_played', '?')} games",
        "- difference is B − A with a 95% interval (Newcombe for win rates and shares of "
        "games, Welch or paired t for means, a bootstrap for balance; paired per game when "
        "the studies share seeds)",
        f"- significant when the Holm-adjusted p (over all {adjustment.get('comparisons', '?')} "
        f"comparisons below, p from each interval) is under {ALPHA:.0%}: with this many "
        "metrics some would cross an unadjusted 5% line by chance", "",
    ]
    if result["paired"]:
        from fieldcraft.sim.paired import markdown_lines

        head = markdown_lines(result)
    else:
        if result.get("pairing_problem"):
            lines += [f"- not paired: {result['pairing_problem']} (run both with one seed, "
                      "e.g. `fieldcraft compare A B --run GAME ...`, to pair them)", ""]
        head = ["| metric | players | A | B | B − A | 95% CI | p (Holm) | verdict |",
                "|---|---|---|---|---|---|---|---|"]
    lines += head + [_row(m, result["paired"]) for m in result["metrics"]]
    if result.get("study_metrics"):
        table = [ln for ln in head if ln.startswith("|")]
        lines += ["", "## Study metrics", "",
                  "Rates are shares of games (percentage points); drama, decided at, lead "
                  "changes and balance are 0–1 figures; decisions and kingmaking moves are per "
                  "game. A per-game metric is compared over the games where both sides "
                  "measured it.", "", *table]
        lines += [_row(m, result["paired"]) for m in result["study_metrics"]]
    lines += ["", "![differences](comparison.png)", ""]
    md = out / "comparison.md"
    md.write_text("\n".join(lines), encoding="utf-8")
    png = out / "comparison.png"
    _chart(result["metrics"] + result.get("study_metrics", []), png)
    return md, png


def unit(m: dict[str, Any]) -> str:
    """How a comparison entry is written: ``rate`` (percent, differences in points),
    ``share`` (a 0–1 figure) or ``count`` (per game)."""
    return m.get("unit") or ("count" if m["metric"] == "mean length" else "rate")


def _row(m: dict[str, Any], paired: bool) -> str:
    """One table row of a comparison entry, written in its unit."""
    kind = unit(m)

    def val(x: float | None) -> str:
        if x is None:
            return "–"
        return f"{100 * x:.1f}%" if kind == "rate" else f"{x:.3f}" if kind == "share" \
            else f"{x:.1f}"

    def diff(x: float | None) -> str:
        if x is None:
            return "–"
        return f"{100 * x:+.1f}" if kind == "rate" else f"{x:+.3f}" if kind == "share" \
            else f"{x:+.1f}"

    suffix = " pp" if kind == "rate" else ""
    cells = [val(m["a"]), val(m["b"]), diff(m["diff"]) + suffix,
             f"{diff(m['low'])} – {diff(m['high'])}{suffix}"]
    if paired:
        cells.append(f"{diff(m.get('unpaired_low'))} – {diff(m.get('unpaired_high'))}{suffix}")
        ratio = m.get("width_ratio")
        cells.append(f"{ratio:.2f}" if ratio is not None else "–")
    p_holm = m.get("p_holm")
    cells.append(f"{p_holm:.3g}" if p_holm is not None else "–")
    verdict = "**significant**" if m["verdict"] == "significant" else m["verdict"]
    return f"| {m['metric']} | {m['players']} | " + " | ".join(cells) + f" | {verdict} |"


def _chart(metrics: list[dict[str, Any]], path: Path) -> None:
    """One panel per unit, each difference with its interval, significant ones in red: rates
    of games in percentage points, 0–1 metrics (drama, balance, ...) and per-game counts
    (length, decisions), since on one axis the small ones would vanish next to the large."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(kind, [m for m in metrics if unit(m) == kind
                      and all(m.get(k) is not None for k in ("diff", "low", "high"))],
               scale, label, title)
              for kind, scale, label, title in (
                  ("rate", 100.0, "B − A (percentage points)", "Rates of games"),
                  ("share", 1.0, "B − A (0–1 scale)", "Drama, decided at, balance"),
                  ("count", 1.0, "B − A (per game)", "Length and counts"))]
    panels = [p for p in panels if p[1]] or [panels[0]]
    tallest = max(len(p[1]) for p in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(5 + 3.5 * len(panels),
                                                      max(3.0, 0.3 * tallest + 1.5)),
                             squeeze=False)
    paired = any("unpaired_low" in m for m in metrics)
    for ax, (_, items, scale, label, title) in zip(axes[0], panels, strict=True):
        ys = list(range(len(items)))[::-1]
        for y, m in zip(ys, items, strict=True):
            if m.get("unpaired_low") is not None:  # the unpaired interval, same games, behind
                ax.plot([scale * m["unpaired_low"], scale * m["unpaired_high"]], [y, y],
                        color="lightgrey", linewidth=6, solid_capstyle="butt", zorder=1)
            colour = "tab:red" if m["verdict"] == "significant" else "tab:blue"
            ax.errorbar([scale * m["diff"]], [y],
                        xerr=[[scale * (m["diff"] - m["low"])], [scale * (m["high"] - m["diff"])]],
                        fmt="o", color=colour, capsize=3)
        ax.axvline(0, color="grey", linewidth=1)
        ax.set_yticks(ys, [f"{m['metric']} ({m['players']}p)" for m in items], fontsize=7)
        ax.set_xlabel(label)
        ax.set_title(title + (" (95% CI; paired, grey: unpaired)" if paired else " (95% CI)"),
                     fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
