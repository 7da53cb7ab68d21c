"""The designer's part of a study report: the headline verdict, the metrics table with their
definitions, and charts drawn so a designer reads them at a glance.

Why these choices: a designer asks first "is some side ahead, and by how much?", so one sentence
answers it above everything else. Sides keep one colour on every chart (the game's declared
``side_colours``, else the colour a side is named after, else a distinct one), so Blue faction
is blue whatever the player count; player counts are small multiples side by side rather than
colours, which are kept for sides. matplotlib is imported by the caller (Agg backend).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fieldcraft.sim.metrics import DEFAULT_METRICS, DEFINITIONS, THRESHOLD
from fieldcraft.sim.stats import Rate, holm, score_p

Chart = tuple[str, str, str]  # title, file name, definition

# Named colours that are unreadable on white are drawn a shade darker.
_READABLE = {"yellow": "gold", "white": "lightgrey"}

PAGE_INCHES = 9.5
"""The widest a chart of small multiples gets before its panels wrap (855 px at 90 dpi)."""


def side_colours(game: str | None, sides: Iterable[str]) -> dict[str, str]:
    """A fixed colour per side: the game's ``SPEC.side_colours``, else a colour the side's name
    contains ("Blue", "Orange team"), else the next unused Tableau colour in label order."""
    from matplotlib import colors

    declared: dict[str, str] = {}
    if game:
        try:
            from fieldcraft.core.registry import game_spec

            declared = dict(game_spec(game).side_colours)
        except Exception:  # an unknown game (a study folder from elsewhere): derive them all
            declared = {}
    out: dict[str, str] = {}
    rest = []
    for side in sorted(set(sides)):
        if side in declared:
            out[side] = declared[side]
            continue
        for word in reversed(side.lower().split()):
            if f"tab:{word}" in colors.TABLEAU_COLORS:
                out[side] = f"tab:{word}"
                break
            if word in colors.CSS4_COLORS:
                out[side] = _READABLE.get(word, word)
                break
        else:
            rest.append(side)
    used = {colors.to_hex(c) for c in out.values()}
    spare = [c for c in colors.TABLEAU_COLORS.values() if c not in used]
    for i, side in enumerate(rest):
        out[side] = spare[i % len(spare)] if spare else "tab:gray"
    return out


def _counts(ps: Sequence[int]) -> str:
    """3, 5, 6 -> "3 and 5–6"; runs of consecutive counts as ranges."""
    runs: list[list[int]] = []
    for p in sorted(ps):
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    parts = [f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def even_shares(rates: dict[tuple[int, str], Rate]) -> dict[int, float]:
    """Per player count, what every side would win if all were equal: all sides' wins over all
    their games (1/players when one seat wins a game)."""
    wins: dict[int, int] = {}
    games: dict[int, int] = {}
    for (p, _), r in rates.items():
        wins[p] = wins.get(p, 0) + r["wins"]
        games[p] = games.get(p, 0) + r["games"]
    return {p: wins[p] / games[p] if games[p] else 0.0 for p in wins}


ALPHA = 0.05
"""Family-wise error of a headline's "above/below an even share" (Holm-adjusted)."""


def even_share_tests(rates: dict[tuple[int, Any], Rate]) -> dict[tuple[int, Any], float]:
    """Holm-adjusted p-value of every rate against the even share at its player count.

    The headline names the side furthest from an even share out of every side (or seat) at
    every player count; with 9 rates, one of them crosses an unadjusted 5% line by chance far
    more often than 1 time in 20 (about 1 in 3 if they were independent). So each rate gets the
    score test against its count's even share (:func:`even_shares`; the test Wilson's interval
    inverts) and the family of all of them is adjusted with Holm's method.
    """
    even = even_shares(rates)
    keys = list(rates)
    ps = [score_p(rates[k]["wins"], rates[k]["games"], even[k[0]]) for k in keys]
    return dict(zip(keys, holm(ps), strict=True))


def adjustment_note(summary: dict[str, Any]) -> str:
    """The line under the headline saying how "above/below an even share" was decided."""
    rates = summary["labels"] or summary["seats"]
    if not rates:
        return ""
    kind = "sides" if summary["labels"] else "seats"
    return (f"Above or below an even share: a two-sided score test of each of the {len(rates)} "
            f"win rates of {kind} (every player count) against the mean rate at its player "
            f"count, Holm-adjusted over all {len(rates)} so the chance of any false claim stays "
            f"at {ALPHA:.0%}.")


def verdict(summary: dict[str, Any], metrics: dict[str, Any] | None) -> str:
    """The headline: the side furthest from an even share, at every player count, then how the
    games play (length, lead changes, when the winner is settled).

    "Above/below an even share" is claimed only where the rate's Holm-adjusted p-value over all
    the rates it was picked from (:func:`even_share_tests`) is under :data:`ALPHA`: the most
    extreme of many rates is the one most likely to be extreme by chance."""
    rates = summary["labels"] or {(p, f"Seat {s}"): r for (p, s), r in summary["seats"].items()}
    if not rates:
        return "No games were played."
    even = even_shares(rates)
    sides = sorted({side for _, side in rates})
    side = max(sides, key=lambda s: max(abs(r["rate"] - even[p])
                                        for (p, x), r in rates.items() if x == s))
    mine = {p: r for (p, x), r in rates.items() if x == side}
    worst = max(mine, key=lambda p: abs(mine[p]["rate"] - even[p]))
    text = f"{side} wins {mine[worst]['rate']:.0%} at {worst} players"
    others = [p for p in mine if p != worst]
    if others:
        lo = min(mine[p]["rate"] for p in others)
        hi = max(mine[p]["rate"] for p in others)
        span = f"{lo:.0%}" if round(lo * 100) == round(hi * 100) else \
            f"{100 * lo:.0f}–{100 * hi:.0f}%"
        text += f", {span} at {_counts(others)}"
    adjusted = even_share_tests(rates)
    above = [p for p, r in mine.items() if adjusted[(p, side)] < ALPHA and r["rate"] > even[p]]
    below = [p for p, r in mine.items() if adjusted[(p, side)] < ALPHA and r["rate"] < even[p]]

    def where(ps: list[int]) -> str:
        if len(mine) == 1:
            return f"({even[ps[0]]:.0%})"
        return "at every count" if len(ps) == len(mine) else f"at {_counts(ps)} players"

    clauses = [f"{word} an even share {where(ps)}" for word, ps in
               (("above", above), ("below", below)) if ps]
    if clauses:
        text += ": " + " and ".join(clauses) + "."
    elif all(r["low"] <= even[p] <= r["high"] for p, r in mine.items()):
        text += ": within the 95% interval of an even share."
    else:  # outside its own interval, but one of many rates: could well be chance
        text += (f": not clearly off an even share once all {len(rates)} rates compared are "
                 "taken into account (Holm).")
    if metrics:
        parts = []
        for p, m in metrics.items():
            part = f"at {p} players games last {m['duration']['mean']['value']:.0f} decisions"
            table = [(unit, v) for (unit, q), v in summary.get("table_lengths", {}).items()
                     if str(q) == str(p) and v]
            if table:
                unit, v = table[0]
                part += f" ({sum(v) / len(v):.1f} {unit})"
            if m.get("lead_changes"):
                part += f", the lead changes after {m['lead_changes']['value']:.0%} of them"
            if m.get("decided_at"):
                part += (f"{' and' if m.get('lead_changes') else ','} the winner is settled "
                         f"{m['decided_at']['value']:.0%} of the way in")
            parts.append(part)
        joined = "; ".join(parts)
        text += " " + joined[0].upper() + joined[1:] + "."
    return text + _no_winner_clause(summary)


def _no_winner_clause(summary: dict[str, Any]) -> str:
    """" Nobody wins 25% of games at 3 players, 18% at 4.": a side's rate reads differently
    when a quarter of the games have no winner, so the headline says so beside it."""
    games = summary.get("games", {})
    shares = [(p, n / games[p]) for p, n in summary.get("no_winner", {}).items()
              if n and games.get(p)]
    if not shares:
        return ""
    first, *rest = shares
    words = [f"{first[1]:.0%} of games at {first[0]} players"]
    words += [f"{share:.0%} at {p}" for p, share in rest]
    return " Nobody wins " + ", ".join(words) + "."


def _ci(x: dict[str, Any] | None, pct: bool = False, digits: int = 2) -> str:
    if not x:
        return "–"
    if pct:
        return f"{100 * x['value']:.1f}% ({100 * x['low']:.1f}–{100 * x['high']:.1f})"
    return f"{x['value']:.{digits}f} ({x['low']:.{digits}f}–{x['high']:.{digits}f})"


def sections(metrics: dict[str, Any], options: dict[str, Any] | None
             ) -> list[tuple[str, list[str]]]:
    """The metrics table (a column per player count, 95% intervals in brackets) and below it
    every metric's definition."""
    counts = list(metrics)
    rows: list[tuple[str, Any]] = [
        ("balance", lambda m: _ci(m["balance"])),
        ("first mover wins", lambda m: _ci(m["first_mover"], pct=True)),
        ("first mover − mean seat win rate",
         lambda m: f"{100 * m['first_mover']['advantage']:+.1f} pts" if m["first_mover"]
         else "–"),
        ("decisions per game: mean", lambda m: _ci(m["duration"]["mean"], digits=1)),
        ("decisions: spread (sd)", lambda m: _ci(m["duration"]["sd"], digits=1)),
        ("decisions: p95", lambda m: _ci(m["duration"]["p95"], digits=0)),
        ("lead changes (true)", lambda m: _ci(m["lead_changes"], pct=True)),
        ("lead changes (perceived)", lambda m: _ci(m["perceived_lead_changes"], pct=True)),
        ("lead changes: perceived − true", lambda m: _ci(m.get("gap_lead_changes"), pct=True)),
        ("drama (true)", lambda m: _ci(m["drama"])),
        ("drama (perceived)", lambda m: _ci(m["perceived_drama"])),
        ("drama: perceived − true", lambda m: _ci(m.get("gap_drama"))),
        ("decided at (true)", lambda m: _ci(m["decided_at"])),
        ("decided at (perceived)", lambda m: _ci(m["perceived_decided_at"])),
        ("decided at: perceived − true", lambda m: _ci(m.get("gap_decided_at"))),
        ("kingmaking games", lambda m: _ci(m["kingmaking"]["games"], pct=True)
         if m["kingmaking"] else "–"),
        ("kingmaking moves per game", lambda m: _ci(m["kingmaking"]["per_game"])
         if m["kingmaking"] else "–"),
        ("traced / perceived games", lambda m: f"{m['traced']} / {m['perceived_games']} of "
                                               f"{m['games']}"),
    ]
    head = ["metric (95% interval)", *[f"{p} players" for p in counts]]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for name, cell in rows:
        lines.append("| " + " | ".join([name, *[cell(metrics[p]) for p in counts]]) + " |")
    clear = _clear_seats(metrics)
    seats = []
    for p in counts:
        adv = ", ".join(f"seat {s} {100 * r['advantage']:+.1f} pts"
                        + ("*" if (p, s) in clear else "")
                        for s, r in metrics[p]["seats"].items())
        seats.append(f"- {p} players: {adv}")
    seats += ["", "Each seat's win rate minus the mean seat win rate at that player count (the "
              "seat chart's dashed line), so the advantages add up to zero; the mean is "
              "1/players only when every game has exactly one winner. *: off the mean after "
              f"Holm's adjustment over all {sum(len(metrics[p]['seats']) for p in counts)} "
              f"seats (score test, family-wise {ALPHA:.0%})."]
    untraced = [p for p in counts if not metrics[p]["traced"]]
    notes = [""] + [f"- **{k.replace('_', ' ')}**: {v}" for k, v in DEFINITIONS.items()]
    if options:
        notes.append(f"- perceived metrics: {options.get('samples')} resamples of one seat's "
                     f"view per decision, on every {options.get('every')}th game, the seat "
                     f"rotating (default {DEFAULT_METRICS.samples}: see docs/designers.md, "
                     "\"How many resamples\")")
        notes += [f"  - caveat, perceived {k.replace('_', ' ')}: {v}"
                  for k, v in perceived_caveats(options.get("samples") or 0).items()]
    if untraced:
        notes.append("- this game's search model has no evaluation (`heuristic_returns`), so "
                     "only balance, first mover and duration are measured")
    return [("Designer's metrics", lines + notes),
            ("Seat advantage (win rate − mean seat win rate)", seats)]


def perceived_caveats(samples: int) -> dict[str, str]:
    """What each perceived metric can and cannot say, at ``samples`` resamples."""
    few = 0 < samples < DEFAULT_METRICS.samples
    return {
        "lead_changes": "reads high: each resample's noise adds lead changes, so the figure "
                        "falls as resamples are added, and in Under Current it was still "
                        "falling at 64 (5 players, perceived - true: +0.42 at 4, +0.30 at 64); "
                        "compare it between studies made with the same count only",
        "drama": ("below the stable count: noise makes the winner look behind, so this reads "
                  "high (Under Current, 5 players: perceived - true +0.035 at 2 resamples, "
                  "-0.039 at 32)" if few else
                  "stable at this count; still the game's evaluation of what a seat could "
                  "know, not what a person felt (a playtest's questionnaire asks that)"),
        "decided_at": "hardly moves with the resample count; like drama, it reads the bots' "
                      "evaluation of a seat's view, not a person's",
    }


def _clear_seats(metrics: dict[str, Any]) -> set[tuple[str, str]]:
    """(player count, seat) of the seats whose win rate is off the mean seat win rate after
    Holm's adjustment over every seat at every count (the test of :func:`even_share_tests`)."""
    keys: list[tuple[str, str]] = []
    ps: list[float] = []
    for p, m in metrics.items():
        seats = m["seats"]
        if not seats:
            continue
        even = sum(r["value"] for r in seats.values()) / len(seats)
        for s, r in seats.items():
            keys.append((p, s))
            ps.append(score_p(round(r["value"] * r["n"]), r["n"], even))
    return {k for k, q in zip(keys, holm(ps), strict=True) if q < ALPHA}


def rate_chart(plt: Any, out_dir: Path, title: str, fname: str,
               groups: dict[int, list[tuple[str, Rate]]], colours: dict[str, str],
               even: dict[int, float]) -> None:
    """Win rates as small multiples, one panel per player count, each side in its colour, the
    even share dashed, Wilson 95% intervals as error bars. Panels wrap into rows no wider
    than a page: in one row, Under Current's seats at 3-8 players were a 2,155 x 342 px strip."""
    counts = list(groups)
    panel = max(2.0, 0.42 * max(len(v) for v in groups.values()) + 0.8)
    cols = max(1, min(len(counts), int(PAGE_INCHES // panel)))
    rows = -(-len(counts) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(max(5.0, cols * panel + 1), 3.3 * rows + 0.5),
                             sharey=True, squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i >= len(counts):
            ax.set_visible(False)
            continue
        p = counts[i]
        items = groups[p]
        xs = list(range(len(items)))
        rates = [r["rate"] for _, r in items]
        err = [[r["rate"] - r["low"] for _, r in items], [r["high"] - r["rate"] for _, r in items]]
        ax.bar(xs, rates, yerr=err, capsize=3, color=[colours[name] for name, _ in items],
               edgecolor="#333", linewidth=0.6)
        ax.axhline(even[p], color="#333", linestyle="--", linewidth=0.8)
        ax.set_xticks(xs, [name for name, _ in items], rotation=45, ha="right", fontsize=8)
        ax.set_xlim(-0.6, max(len(v) for v in groups.values()) - 0.4)
        ax.set_title(f"{p} players", fontsize=9)
        ax.set_ylim(0, 1)
    for row in axes:
        row[0].set_ylabel("win rate (Wilson 95%)")
    fig.suptitle(title, fontsize=10)
    fig.text(0.99, 0.01, "dashed: an even share", ha="right", fontsize=7, color="#333")
    fig.tight_layout()
    fig.savefig(out_dir / fname, dpi=90)
    plt.close(fig)


def charts(plt: Any, metrics: dict[str, Any], out_dir: Path) -> list[Chart]:
    """The tension chart (true beside perceived, per player count) and the winner's curve."""
    counts = [p for p, m in metrics.items() if m["traced"]]
    if not counts:
        return []
    out = [_tension_chart(plt, metrics, counts, out_dir)]
    curves = {p: metrics[p]["winner_curve"] for p in counts if metrics[p].get("winner_curve")}
    if curves:
        evens = {p: _mean_seat_rate(metrics[p]) for p in curves}
        out.append(_winner_curve_chart(plt, curves, out_dir, evens))
    return out


def _tension_chart(plt: Any, metrics: dict[str, Any], counts: list[Any], out_dir: Path
                   ) -> Chart:
    """Lead changes, drama and when the game is decided, true beside perceived."""
    keys = [("lead_changes", "lead changes\n(share of decisions)"),
            ("drama", "drama\n(winner's mean deficit)"),
            ("decided_at", "decided at\n(share of the game)")]
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
    width = 0.38
    for ax, (key, label) in zip(axes, keys, strict=True):
        for k, (kind, colour, hatch) in enumerate((("", "#4c72b0", None),
                                                   ("perceived_", "#dd8452", "//"))):
            xs, vals, errs = [], [], [[], []]
            for i, p in enumerate(counts):
                m = metrics[p].get(kind + key)
                if not m:
                    continue
                xs.append(i + (k - 0.5) * width)
                vals.append(m["value"])
                errs[0].append(m["value"] - m["low"])
                errs[1].append(m["high"] - m["value"])
            ax.bar(xs, vals, width=width, yerr=errs, capsize=3, color=colour, hatch=hatch,
                   edgecolor="#333", linewidth=0.6,
                   label="perceived (own view)" if kind else "true (all-seeing)")
        ax.set_xticks(range(len(counts)), [f"{p} players" for p in counts], fontsize=8)
        ax.set_title(label, fontsize=9)
        if key != "drama":
            from matplotlib.ticker import PercentFormatter

            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", fontsize=7, ncol=2)
    fig.suptitle("How the games feel: true vs perceived (bootstrap 95%)", fontsize=10, x=0.3)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(out_dir / "tension.png", dpi=90)
    plt.close(fig)
    return ("How the games feel: true vs perceived", "tension.png",
            f"Lead changes: {DEFINITIONS['lead_changes']}. Drama: {DEFINITIONS['drama']}. "
            f"Decided at: {DEFINITIONS['decided_at']}. Perceived: {DEFINITIONS['perceived']}.")


def _mean_seat_rate(m: dict[str, Any]) -> float:
    """The mean seat win rate of one player count's metrics (the seats' even share)."""
    seats = m.get("seats") or {}
    return sum(s["value"] for s in seats.values()) / len(seats) if seats else 0.0


def _winner_curve_chart(plt: Any, curves: dict[Any, list[float]], out_dir: Path,
                        evens: dict[Any, float]) -> Chart:
    """The eventual winner's win chance along the game, per player count, beside the mean
    seat win rate (not 1/players: in a team game several seats win a game, or none)."""
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for p, curve in curves.items():
        xs = [k / (len(curve) - 1) for k in range(len(curve))]
        ax.plot(xs, curve, marker="o", markersize=3, label=f"{p} players")
        ax.axhline(evens[p], color=ax.lines[-1].get_color(), linestyle=":", linewidth=0.8)
    ax.axhline(THRESHOLD, color="#333", linestyle="--", linewidth=0.8)
    ax.set_xlabel("share of the game's decisions")
    ax.set_ylabel("eventual winner's win chance")
    ax.set_ylim(0, 1.02)
    ax.set_title("When the winner emerges", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / "winner_curve.png", dpi=90)
    plt.close(fig)
    return ("When the winner emerges", "winner_curve.png",
            "The eventual winner's win chance by the game's evaluation, averaged over "
            "games at each tenth of the game; dotted: an even share (the mean seat win rate), "
            f"dashed: the {THRESHOLD:.0%} line decisiveness is measured at.")
