"""Time-to-unmask in a study: how many turns a seat's role stays hidden from every opponent.

Each study row of a game with deducible roles carries, per seat, the turn from which some
opponent was certain of its role (:meth:`fieldcraft.core.deduction.GameDeduction.unmask_turns`)
or ``None`` if it stayed hidden to the end. A seat still hidden when the game ended is
*censored* there, not unmasked: counting it as unmasked at the end, or dropping it, would bias
the curve towards the factions whose games end early. So the curve is the Kaplan-Meier
estimate of the share of seats still hidden after each turn, by faction and player count.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

Spell = tuple[int, bool]
"""(turn, unmasked): the turn a seat was unmasked at, or the game's last turn if it was not."""


def spells(rows: list[dict[str, Any]]) -> dict[tuple[int, str], list[Spell]]:
    """Every seat's hidden spell, keyed by (player count, faction)."""
    out: dict[tuple[int, str], list[Spell]] = defaultdict(list)
    for row in rows:
        data = row.get("unmask")
        if not data:
            continue
        for seat, turn in enumerate(data["turns"]):
            label = data["labels"][seat] or row["labels"][seat]
            if label is None:
                continue
            if turn is None:
                out[(row["players"], label)].append((data["last_turn"], False))
            else:
                out[(row["players"], label)].append((turn, True))
    return dict(sorted(out.items()))


def kaplan_meier(items: list[Spell]) -> list[tuple[int, float]]:
    """(turn, share still hidden after it) at each turn where some seat was unmasked, from
    (1.0 at turn 0); seats censored at a turn count as at risk through it."""
    curve = [(0, 1.0)]
    at_risk = len(items)
    survival = 1.0
    by_turn: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for turn, unmasked in items:
        by_turn[turn][0 if unmasked else 1] += 1
    for turn in sorted(by_turn):
        events, censored = by_turn[turn]
        if events and at_risk:
            survival *= 1.0 - events / at_risk
            curve.append((turn, survival))
        at_risk -= events + censored
    return curve


def median_turn(curve: list[tuple[int, float]]) -> int | None:
    """The first turn after which at most half the seats are still hidden (``None``: never)."""
    return next((turn for turn, share in curve if share <= 0.5), None)


def summary(rows: list[dict[str, Any]]) -> dict[tuple[int, str], dict[str, Any]]:
    """Per (player count, faction): seats, how many were unmasked, the curve and its median."""
    out = {}
    for key, items in spells(rows).items():
        curve = kaplan_meier(items)
        out[key] = {"seats": len(items), "unmasked": sum(1 for _, u in items if u),
                    "curve": curve, "median": median_turn(curve),
                    "last": max(t for t, _ in items)}
    return out


def section(data: dict[tuple[int, str], dict[str, Any]]) -> list[str]:
    """The report's table (Markdown lines)."""
    lines = ["Turns until some opponent is certain of a seat's role (the end's reveal not "
             "counted); seats still hidden at the end are censored there (Kaplan-Meier).", "",
             "| side | players | seats | unmasked before the end | median turns |",
             "|---|---|---|---|---|"]
    for (p, label), d in data.items():
        share = d["unmasked"] / d["seats"] if d["seats"] else 0.0
        median = "—" if d["median"] is None else str(d["median"])
        lines.append(f"| {label} | {p} | {d['seats']} | {100 * share:.1f}% | {median} |")
    return lines


def chart(plt: Any, out_dir: Path, data: dict[tuple[int, str], dict[str, Any]],
          colours: dict[str, str]) -> tuple[str, str, str]:
    """The survival curves, one panel per player count, one step line per faction; at most
    three panels a row (six in one row were 1,728 px wide)."""
    counts = sorted({p for p, _ in data})
    cols = min(3, len(counts))
    rows = -(-len(counts) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(max(5.0, 3.2 * cols), 3.3 * rows + 0.3),
                             sharey=True, squeeze=False)
    for ax in axes.flat[len(counts):]:
        ax.set_visible(False)
    for ax, p in zip(axes.flat, counts, strict=False):
        for (q, label), d in data.items():
            if q != p:
                continue
            turns = [t for t, _ in d["curve"]]
            shares = [s for _, s in d["curve"]]
            ax.step(turns + [max(d["last"], turns[-1])], shares + [shares[-1]], where="post",
                    label=label, color=colours.get(label))
        ax.set_title(f"{p} players", fontsize=9)
        ax.set_xlabel("turn")
        ax.set_ylim(0, 1.05)
        ax.legend(fontsize=7)
    for row in axes:
        row[0].set_ylabel("share of seats still hidden")
    title = "Time to unmask by side and player count"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fname = "time_to_unmask.png"
    fig.savefig(out_dir / fname, dpi=90)
    plt.close(fig)
    return (title, fname, "Kaplan-Meier: seats still hidden at the end are censored there")
