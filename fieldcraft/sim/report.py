"""Report of one balance study: tables and charts of who wins, from which seat, how long games
last and how they end, with the full ruleset in the header so numbers never lose their rules.

The Markdown and HTML reports hold the same tables; the HTML one also shows the PNG charts (the
Markdown one links them). Win rates carry Wilson 95% intervals because studies are often small
and some sides win rarely, where the normal approximation gives nonsense bounds. matplotlib is
an optional dependency (the ``study`` extra), imported only here and with the Agg backend so a
report can be written on a server with no display.
"""

from __future__ import annotations

import html
import json
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from fieldcraft.sim import actions, metrics_report, unmask
from fieldcraft.sim.stats import Rate, rate
from fieldcraft.sim.study import RULESET, load_results


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts behind every table and chart, keyed so two studies can be matched metric by metric.

    A label's rate is over the games where some seat played it (in Under Current a faction may be
    absent or held by several seats); a seat's rate is over all games at that player count.
    """
    label_counts: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0])
    seat_counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    agent_counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    lengths: dict[int, list[int]] = defaultdict(list)
    table_lengths: dict[tuple[str, int], list[int]] = defaultdict(list)
    endings: dict[int, Counter[str]] = defaultdict(Counter)
    no_winner: Counter[int] = Counter()
    for row in rows:
        p = row["players"]
        winners = set(row["winners"])
        won_labels = set(row["winning_labels"] or [])
        for label in {lab for lab in row["labels"] if lab is not None}:
            label_counts[(p, label)][0] += int(label in won_labels)
            label_counts[(p, label)][1] += 1
        for seat in range(p):
            seat_counts[(p, seat)][0] += int(seat in winners)
            seat_counts[(p, seat)][1] += 1
        for seat, spec in enumerate(row["agents"]):
            agent_counts[spec][0] += int(seat in winners)
            agent_counts[spec][1] += 1
        lengths[p].append(row["length"])
        for unit in ("rounds", "turns"):
            if row.get(unit) is not None:
                table_lengths[(unit, p)].append(row[unit])
        how = ":".join(str(row[k]) for k in ("ending", "decided_by") if row.get(k))
        if how:
            endings[p][how] += 1
        if not winners:
            no_winner[p] += 1
    return {
        "labels": {k: rate(*v) for k, v in sorted(label_counts.items())},
        "seats": {k: rate(*v) for k, v in sorted(seat_counts.items())},
        "agents": {k: rate(*v) for k, v in sorted(agent_counts.items())},
        "lengths": dict(sorted(lengths.items())),
        "table_lengths": dict(sorted(table_lengths.items())),
        "endings": {p: dict(sorted(c.items())) for p, c in sorted(endings.items())},
        "no_winner": dict(sorted(no_winner.items())),
        "games": dict(sorted(Counter(r["players"] for r in rows).items())),
        "unmask": unmask.summary(rows),
        "actions": actions.summary(rows),
    }


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate_cells(r: Rate) -> list[str]:
    return [str(r["wins"]), str(r["games"]), _pct(r["rate"]),
            f"{_pct(r['low'])} – {_pct(r['high'])}"]


def _table(head: list[str], body: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return lines


def _charts(summary: dict[str, Any], out_dir: Path,
            meta: dict[str, Any] | None = None) -> list[tuple[str, ...]]:
    """Draw the PNG charts; returns (title, file name[, definition]) in report order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta = meta or {}
    charts = _rate_charts(plt, summary, out_dir, meta.get("game"))
    if summary["lengths"]:
        charts.append(_length_chart(plt, summary["lengths"], out_dir))
    if summary["endings"]:
        charts.append(_endings_chart(plt, summary["endings"], out_dir))
    if meta.get("metrics"):
        charts += metrics_report.charts(plt, meta["metrics"], out_dir)
    if summary.get("unmask"):
        charts.append(unmask.chart(plt, out_dir, summary["unmask"], metrics_report.side_colours(
            meta.get("game"), sorted({lab for _, lab in summary["unmask"]}))))
    return charts


def _rate_charts(plt: Any, summary: dict[str, Any], out_dir: Path, game: str | None
                 ) -> list[tuple[str, ...]]:
    """Win rates by side and by seat: small multiples per player count, each side in its own
    colour (``metrics_report.rate_chart``)."""
    charts: list[tuple[str, ...]] = []

    def rate_chart(title: str, fname: str, groups: dict[int, list[tuple[str, Rate]]],
                   rates: dict[Any, Rate], colours: dict[str, str]) -> None:
        metrics_report.rate_chart(plt, out_dir, title, fname, groups, colours,
                                  metrics_report.even_shares(rates))
        charts.append((title, fname, "Wilson 95% intervals; dashed: what every side would win "
                                     "if all were equal"))

    by_label: dict[int, list[tuple[str, Rate]]] = defaultdict(list)
    for (p, label), r in summary["labels"].items():
        by_label[p].append((label, r))
    if by_label:
        rate_chart("Win rate by side and player count", "win_rate_by_label.png", by_label,
                   summary["labels"], metrics_report.side_colours(
                       game, [lab for _, lab in summary["labels"]]))
    by_seat: dict[int, list[tuple[str, Rate]]] = defaultdict(list)
    for (p, seat), r in summary["seats"].items():
        by_seat[p].append((f"seat {seat}", r))
    if by_seat:
        seat_names = {f"seat {s}" for _, s in summary["seats"]}
        rate_chart("Win rate by seat and player count", "win_rate_by_seat.png", by_seat,
                   {(p, str(s)): r for (p, s), r in summary["seats"].items()},
                   metrics_report.side_colours(None, seat_names))
    return charts


def _save(plt: Any, fig: Any, ax: Any, out_dir: Path, title: str, fname: str
          ) -> tuple[str, str]:
    """Title, legend, save and close one chart (every chart ends the same way)."""
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / fname, dpi=90)
    plt.close(fig)
    return title, fname


def _length_chart(plt: Any, lengths: dict[int, list[int]], out_dir: Path) -> tuple[str, str]:
    fig, ax = plt.subplots(figsize=(6, 4))
    for p, values in lengths.items():
        ax.hist(values, bins=30, alpha=0.6, label=f"{p} players")
    ax.set_xlabel("game length (actions)")
    ax.set_ylabel("games")
    return _save(plt, fig, ax, out_dir, "Game length distribution", "game_length.png")


def _endings_chart(plt: Any, endings: dict[int, dict[str, int]], out_dir: Path
                   ) -> tuple[str, str]:
    """One horizontal bar per player count, split into its endings' shares of the games. Its
    size grows with the player counts only, by a bar's height: one group of bars per ending and
    count side by side made the chart 3,636 px wide at 3-8 players, unreadable at any width a
    page shows it."""
    kinds = sorted({k for c in endings.values() for k in c})
    counts = list(endings)
    colours = plt.get_cmap("tab20").colors
    fig, ax = plt.subplots(figsize=(7.5, 1.9 + 0.45 * len(counts) + 0.12 * len(kinds)),
                           layout="constrained")
    left = [0.0] * len(counts)
    for j, kind in enumerate(kinds):
        shares = [endings[p].get(kind, 0) / max(1, sum(endings[p].values())) for p in counts]
        ax.barh(range(len(counts)), shares, left=left, color=colours[j % len(colours)],
                label=kind, edgecolor="white", linewidth=0.5)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.set_yticks(range(len(counts)), [f"{p} players" for p in counts], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda x, _: f"{100 * x:.0f}%"))
    ax.set_xlabel("share of the games that ended (ending:decided_by)")
    ax.set_title("How games end")
    fig.legend(fontsize=7, loc="outside lower center", ncol=min(3, len(kinds)), frameon=False)
    fig.savefig(out_dir / "endings.png", dpi=90)
    plt.close(fig)
    return "How games end", "endings.png"


def _no_winner_share(summary: dict[str, Any], p: int) -> Rate:
    return rate(summary["no_winner"].get(p, 0), summary["games"].get(p, 0))


def _no_winner_note(summary: dict[str, Any]) -> list[str]:
    """Below the seat table: games nobody won pull every seat's rate down, so a reader
    comparing them with 1/players would see every seat behind (Under Current at 3 players)."""
    shares = [f"{p} players {summary['no_winner'][p]} of {summary['games'][p]} "
              f"({_pct(r['rate'])}, {_pct(r['low'])} – {_pct(r['high'])})"
              for p in summary["no_winner"] if (r := _no_winner_share(summary, p))["wins"]]
    if not shares:
        return []
    return ["", "No winner: " + "; ".join(shares) + ". Those games count as a loss for every "
            "seat, so the seats' rates add up to less than one and an even share is the mean "
            "seat win rate, not 1/players."]


def _endings_section(summary: dict[str, Any]) -> list[str]:
    """How games end, each ending as a share of the games at its count, and the games with no
    winner as their own row: they end in some way too, but "nobody won" is the designer's
    question, and it belongs beside the endings rather than only in the length table."""
    body = [[how, str(p), str(n), _pct(n / summary["games"][p])]
            for p, c in summary["endings"].items() for how, n in c.items()]
    for p in summary["games"]:
        r = _no_winner_share(summary, p)
        if r["wins"]:
            body.append(["no winner (any ending)", str(p), str(r["wins"]),
                         f"{_pct(r['rate'])} ({_pct(r['low'])} – {_pct(r['high'])})"])
    return _table(["ending:decided_by", "players", "games", "share of games (95% CI)"], body)


def _sections(summary: dict[str, Any], meta: dict[str, Any],
              rulesets: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Report body as (heading, Markdown lines) sections, shared by the .md and .html files."""
    sections: list[tuple[str, list[str]]] = []
    header = [
        f"- game: {meta.get('game', '?')}",
        f"- agents (seat-rotated): {', '.join(meta.get('agents', []))}",
        f"- seed: {meta.get('seed', '?')}",
        f"- games per player count: {meta.get('games', '?')} "
        f"(played in total: {meta.get('games_played', sum(summary['games'].values()))})",
        f"- player counts: {', '.join(str(p) for p in summary['games'])}",
        f"- overrides: `{json.dumps(meta.get('overrides', {}), sort_keys=True)}`",
    ]
    if meta.get("until_ci"):
        from fieldcraft.sim.precision import describe

        header.append(f"- played {describe(meta['until_ci'])}")
    if meta.get("interrupted"):
        header.append("- **interrupted**: only the games that finished are counted")
    sections.append(("Study", header))
    if meta.get("metrics"):
        sections += metrics_report.sections(meta["metrics"], meta.get("metrics_options"))
    if summary["labels"]:
        body = [[label, str(p), *_rate_cells(r)] for (p, label), r in summary["labels"].items()]
        sections.append(("Win rate by side", _table(
            ["side", "players", "wins", "games", "win rate", "95% CI"], body)))
    body = [[str(seat), str(p), *_rate_cells(r)] for (p, seat), r in summary["seats"].items()]
    sections.append(("Win rate by seat", _table(
        ["seat", "players", "wins", "games", "win rate", "95% CI"], body)
        + _no_winner_note(summary)))
    if len(summary["agents"]) > 1:
        body = [[f"`{spec}`", *_rate_cells(r)] for spec, r in summary["agents"].items()]
        sections.append(("Win rate by agent (per seat played)", _table(
            ["agent", "wins", "seat-games", "win rate", "95% CI"], body)))
    body = []
    for p, values in summary["lengths"].items():
        body.append([str(p), str(len(values)), f"{statistics.fmean(values):.1f}",
                     str(int(statistics.median(values))), str(min(values)), str(max(values)),
                     str(summary["no_winner"].get(p, 0))])
    sections.append(("Game length (actions)", _table(
        ["players", "games", "mean", "median", "min", "max", "no winner"], body)))
    if summary.get("table_lengths"):
        body = [[unit, str(p), str(len(v)), f"{statistics.fmean(v):.1f}",
                 f"{statistics.median(v):g}", str(min(v)), str(max(v))]
                for (unit, p), v in summary["table_lengths"].items()]
        sections.append(("Game length at the table", _table(
            ["counted in", "players", "games", "mean", "median", "min", "max"], body)
            + ["", "Rounds or turns as the game itself counts them (its outcome), which is "
                   "how long a game feels at the table; actions and decisions count every "
                   "card and choice."]))
    if summary["endings"] or any(summary["no_winner"].values()):
        sections.append(("How games end", _endings_section(summary)))
    if summary.get("unmask"):
        sections.append(("Time to unmask", unmask.section(summary["unmask"])))
    if summary.get("actions"):
        sections.append(("What players do", actions.section(summary["actions"],
                                                             summary.get("rules_in_play", {}))))
    ruleset_lines = []
    for p, rules in rulesets.items():
        ruleset_lines += [f"{p} players (sha256 `{meta.get('ruleset_hash', {}).get(p, '?')}`):",
                          "", "```json", json.dumps(rules, indent=2, sort_keys=True), "```", ""]
    sections.append(("Full ruleset", ruleset_lines))
    return sections


def write_report(out_dir: Path) -> tuple[Path, Path]:
    """Write ``report.html`` and ``report.md`` (and the PNG charts) for the study in
    ``out_dir``; returns the two report paths."""
    out_dir = Path(out_dir)
    rows, meta = load_results(out_dir)
    ruleset_path = out_dir / RULESET
    rulesets = json.loads(ruleset_path.read_text(encoding="utf-8")) if ruleset_path.exists() \
        else {}
    summary = summarize(rows)
    summary["rules_in_play"] = actions.rules_in_play(meta.get("game", ""), rows, rulesets)
    charts = _charts(summary, out_dir, meta)
    sections = _sections(summary, meta, rulesets)
    sections.insert(-1, ("Robustness: a second bot mix", _robustness(meta)))
    if meta.get("skill_trace"):
        from fieldcraft.sim import skill

        charts += skill.chart(meta["skill_trace"], out_dir)
        sections.insert(-1, ("Skill trace", skill.section(meta["skill_trace"])))
    title = f"Balance study: {meta.get('game', '?')}"
    headline = metrics_report.verdict(summary, meta.get("metrics"))

    note = metrics_report.adjustment_note(summary)
    if meta.get("robustness"):
        from fieldcraft.sim.robustness import flip_note

        note = " ".join(x for x in (note, flip_note(meta["robustness"])) if x)
    md = [f"# {title}", "", f"**{headline}**", "", *([f"*{note}*", ""] if note else [])]
    for heading, lines in sections:
        md += [f"## {heading}", "", *lines, ""]
    md += ["## Charts", ""]
    for title_, fname, *definition in charts:
        md += [f"![{title_}]({fname})", ""] + ([f"*{definition[0]}*", ""] if definition else [])
    md_path = out_dir / "report.md"
    md_path.write_text("\n".join(md), encoding="utf-8")

    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            "</title><style>body{font-family:sans-serif;max-width:60em;margin:auto}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}"
            "</style></head><body>", f"<h1>{html.escape(title)}</h1>",
            f"<p class='verdict'><strong>{html.escape(headline)}</strong></p>",
            f"<p class='adjustment'><em>{html.escape(note)}</em></p>" if note else ""]
    for heading, lines in sections:
        page.append(f"<h2>{html.escape(heading)}</h2>")
        page.append(_md_to_html(lines))
    page.append("<h2>Charts</h2>")
    page += [f"<figure><img src='{html.escape(f)}' alt='{html.escape(t)}'>"
             f"<figcaption>{html.escape(t)}{': ' + html.escape(d[0]) if d else ''}"
             "</figcaption></figure>" for t, f, *d in charts]
    page.append("</body></html>")
    html_path = out_dir / "report.html"
    html_path.write_text("\n".join(page), encoding="utf-8")
    return html_path, md_path


def _robustness(meta: dict[str, Any]) -> list[str]:
    """The robustness section: the second mix's flips (:mod:`fieldcraft.sim.robustness`), that
    it was switched off, or (a study made without the command) that it was not run and how."""
    result = meta.get("robustness")
    if result and result.get("off"):
        return ["Switched off (`--robustness-games 0`): every conclusion above is about these "
                "bots only. Without that option the study re-plays a sample with one search bot "
                "among them and flags the conclusions that flip."]
    if result:
        from fieldcraft.sim.robustness import section

        return section(result)
    return ["Not checked: every conclusion above is about these bots. `fieldcraft study ... "
            "--robustness-games 20` re-plays 20 games per player count with one search bot "
            "among them and flags the conclusions that flip."]


def _md_to_html(lines: list[str]) -> str:
    """Just enough Markdown (lists, tables, code fences) for the report's own sections."""
    out: list[str] = []
    in_code = False
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            head, *body = table
            out.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in head) + "</tr>")
            out.extend(["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in body])
            out.append("</table>")
            table.clear()

    for line in lines:
        if line.startswith("```"):
            out.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
        elif in_code:
            out.append(html.escape(line))
        elif line.startswith("|"):
            cells = [html.escape(c.strip().strip("`")) for c in line.strip("|").split("|")]
            if not all(set(c) <= {"-"} for c in cells):
                table.append(cells)
        else:
            flush()
            if line.startswith("- "):
                out.append(f"<li>{html.escape(line[2:]).replace('**', '')}</li>")
            elif line:
                out.append(f"<p>{html.escape(line)}</p>")
    flush()
    return "\n".join(out)
