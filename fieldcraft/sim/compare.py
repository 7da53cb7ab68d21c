"""Compare two balance studies: did the rules change (B) move any win rate or the game length?

Every metric that both studies measure gets the difference B − A with a 95% interval and a
verdict. Win rates use Newcombe's hybrid score interval for a difference of two independent
proportions (built from the two Wilson intervals, so it stays sensible near 0% and 100% where the
Wald interval is too narrow); mean length uses Welch's interval, which does not assume the two
studies have equal variance. A difference is "significant" when its interval excludes 0. With
many metrics some will cross that line by chance (about 1 in 20), so read verdicts together with
the size of the difference.

When both studies were played from the same seed with the same agents (so game ``k`` of each
had the same deal and seats), the games are compared in pairs instead (see
:mod:`fieldcraft.sim.paired`): each metric then also carries the unpaired interval on the same
games and the ratio of the two widths.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from fieldcraft.sim.report import summarize
from fieldcraft.sim.stats import newcombe, welch
from fieldcraft.sim.study import load_results


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
    values, ``diff``, ``low``, ``high`` and ``verdict``. Raises ValueError if the studies are of
    different games, since nothing in them would be comparable.
    """
    rows_a, meta_a = load_results(Path(dir_a))
    rows_b, meta_b = load_results(Path(dir_b))
    game_a = meta_a.get("game") or (rows_a[0]["game"] if rows_a else None)
    game_b = meta_b.get("game") or (rows_b[0]["game"] if rows_b else None)
    if game_a != game_b:
        raise ValueError(f"cannot compare a study of {game_a} with one of {game_b}")
    meta = {"a": {"dir": str(dir_a), **meta_a}, "b": {"dir": str(dir_b), **meta_b}}
    if paired is not False:
        from fieldcraft.sim import paired as pairing

        problem = pairing.pairing_problem(rows_a, rows_b)
        if problem is None:
            metrics = pairing.paired_metrics(rows_a, rows_b)
            return {**meta, "paired": True, "pairing": pairing.summary(metrics),
                    "metrics": metrics}
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
    return {**meta, "paired": False, "metrics": metrics}


def write_comparison(dir_a: Path, dir_b: Path, out: Path,
                     paired: bool | None = None) -> tuple[Path, Path]:
    """Write ``comparison.md``, ``comparison.json`` and ``comparison.png`` (differences with
    their intervals) into directory ``out``; returns the Markdown and PNG paths. ``paired`` as
    for :func:`compare`."""
    result = compare(dir_a, dir_b, paired)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "comparison.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n",
                                         encoding="utf-8")
    a, b = result["a"], result["b"]
    lines = [
        f"# Comparison: {a.get('game', '?')}", "",
        f"- A: `{a['dir']}` overrides `{json.dumps(a.get('overrides', {}), sort_keys=True)}`, "
        f"seed {a.get('seed', '?')}, {a.get('games_played', '?')} games",
        f"- B: `{b['dir']}` overrides `{json.dumps(b.get('overrides', {}), sort_keys=True)}`, "
        f"seed {b.get('seed', '?')}, {b.get('games_played', '?')} games",
        "- difference is B − A with a 95% interval (Newcombe for win rates, Welch for mean "
        "length, both paired per game when the studies share seeds); significant when the "
        "interval excludes 0", "",
    ]
    if result["paired"]:
        from fieldcraft.sim.paired import markdown_lines

        lines += markdown_lines(result)
    else:
        if result.get("pairing_problem"):
            lines += [f"- not paired: {result['pairing_problem']} (run both with one seed, "
                      "e.g. `fieldcraft compare A B --run GAME ...`, to pair them)", ""]
        lines += ["| metric | players | A | B | B − A | 95% CI | verdict |",
                  "|---|---|---|---|---|---|---|"]
    for m in result["metrics"]:
        if m["metric"] == "mean length":
            vals = [f"{m['a']:.1f}", f"{m['b']:.1f}", f"{m['diff']:+.1f}",
                    f"{m['low']:+.1f} – {m['high']:+.1f}"]
            if result["paired"]:
                vals.append(f"{m['unpaired_low']:+.1f} – {m['unpaired_high']:+.1f}")
        else:
            vals = [f"{100 * m['a']:.1f}%", f"{100 * m['b']:.1f}%",
                    f"{100 * m['diff']:+.1f} pp",
                    f"{100 * m['low']:+.1f} – {100 * m['high']:+.1f} pp"]
            if result["paired"]:
                vals.append(f"{100 * m['unpaired_low']:+.1f} – "
                            f"{100 * m['unpaired_high']:+.1f} pp")
        if result["paired"]:
            vals.append(f"{m['width_ratio']:.2f}")
        verdict = "**significant**" if m["verdict"] == "significant" else m["verdict"]
        lines.append(f"| {m['metric']} | {m['players']} | " + " | ".join(vals)
                     + f" | {verdict} |")
    lines += ["", "![differences](comparison.png)", ""]
    md = out / "comparison.md"
    md.write_text("\n".join(lines), encoding="utf-8")
    png = out / "comparison.png"
    _chart(result["metrics"], png)
    return md, png


def _chart(metrics: list[dict[str, Any]], path: Path) -> None:
    """Win-rate differences (percentage points) on the left, mean-length differences on the
    right, each with its interval; significant ones in red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = [m for m in metrics if m["metric"] != "mean length"]
    lengths = [m for m in metrics if m["metric"] == "mean length"]
    fig, axes = plt.subplots(1, 2, figsize=(10, max(3.0, 0.3 * len(rates) + 1.5)),
                             gridspec_kw={"width_ratios": [3, 1]})
    for ax, items, scale, unit in ((axes[0], rates, 100.0, "B − A (percentage points)"),
                                   (axes[1], lengths, 1.0, "B − A (actions)")):
        ys = list(range(len(items)))[::-1]
        for y, m in zip(ys, items, strict=True):
            if "unpaired_low" in m:  # the unpaired interval on the same games, behind
                ax.plot([scale * m["unpaired_low"], scale * m["unpaired_high"]], [y, y],
                        color="lightgrey", linewidth=6, solid_capstyle="butt", zorder=1)
            colour = "tab:red" if m["verdict"] == "significant" else "tab:blue"
            ax.errorbar([scale * m["diff"]], [y],
                        xerr=[[scale * (m["diff"] - m["low"])], [scale * (m["high"] - m["diff"])]],
                        fmt="o", color=colour, capsize=3)
        ax.axvline(0, color="grey", linewidth=1)
        ax.set_yticks(ys, [f"{m['metric']} ({m['players']}p)" for m in items], fontsize=7)
        ax.set_xlabel(unit)
    paired = any("unpaired_low" in m for m in metrics)
    axes[0].set_title("Win rate differences (95% CI" + (
        "; paired, grey: unpaired)" if paired else ")"))
    axes[1].set_title("Mean length")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
