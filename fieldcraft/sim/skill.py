"""Skill trace: how much does the game reward thinking harder, and where does it stop paying?

One seat is played by ISMCTS at doubling budgets (25, 50, 100, ... iterations a move, or
seconds) and the others by the heuristic bot; the searcher's win rate per budget, with its Wilson
95% interval, is drawn against the heuristic bot's own rate in the same games (every seat
heuristic; the share of seats that won, so seat luck averages out of the baseline). A game
of pure luck gives a flat line at the baseline; a game of skill climbs and keeps climbing; most
climb and flatten where luck (dice, the deal) caps what search can buy.

Every budget plays the same games: game ``k`` has the same seed (deal, chance, bots' seeds) and
puts the searcher in the same seat, seat ``-k mod p`` so it plays every seat equally often. The
budgets are thus compared in pairs (:func:`fieldcraft.sim.stats.newcombe_paired`; the paired t
interval against the baseline, which is a share rather than a 0/1 outcome), which
needs fewer games than independent samples for the same certainty. "Stops paying" is the smallest
budget whose win rate is not significantly below the best budget's (the paired interval of
best − it includes 0): past it more search bought nothing this many games can see. "Still
rising" is the one other verdict: every smaller budget is significantly below the largest. One
verdict (:func:`verdict`) feeds both the text and the chart, so they cannot disagree (they
once did: a chart said "still rising" because the largest budget had the highest rate, beside
a text saying it was no better than a quarter of it).

Budgets are iterations a move (repeatable) or seconds a move (``unit="time"``: what a person
waiting at a table gives the bot; the iterations a second buys depend on the machine and its
load, so such a trace describes the machine it ran on too) or CPU seconds a move
(``unit="cpu"``: the searcher's own process time, so a busy machine buys the same iterations as
a free core would and the trace describes the budget, not the load; the way to trace "seconds"
on a shared machine).

Each budget is an ordinary study (local workers or Ray) written under ``skill/`` in the study
folder, so its games can be reloaded; the summary goes into ``study.json`` as ``skill_trace``
and the report draws it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fieldcraft.sim.stats import newcombe_paired, paired_t, wilson

DEFAULT_BUDGETS = (25, 50, 100, 200, 400)
DEFAULT_GAMES = 40
UNITS = ("iterations", "time", "cpu")
BASELINE = "heuristic"
UNIT_WORDS = {"iterations": "iterations", "time": "seconds", "cpu": "CPU seconds"}
UNIT_MARKS = {"time": "s", "cpu": "s CPU"}  # after a budget in seconds: "0.3 s", "0.3 s CPU"

Rows = list[dict[str, Any]]


def doubling(first: float, count: int) -> list[float]:
    """``count`` budgets doubling from ``first``: 25, 50, 100, ..."""
    return [first * 2 ** i for i in range(count)]


def searcher_spec(budget: float, unit: str = "iterations") -> str:
    """The ISMCTS agent spec for one budget (``ismcts(iterations=100)``, ``ismcts(time=0.05)``,
    ``ismcts(time=0.05,clock=cpu)``)."""
    if unit not in UNITS:
        raise ValueError(f"skill budget unit must be one of {', '.join(UNITS)}, got {unit!r}")
    if unit == "iterations":
        return f"ismcts(iterations={int(budget)})"
    if unit == "cpu":
        return f"ismcts(time={budget:g},clock=cpu)"
    return f"ismcts(time={budget:g})"


def focus_seat(players: int, index: int) -> int:
    """The seat where game ``index`` puts agent 0 of the study's seat rotation (the searcher):
    seat ``i`` plays ``agents[(i + index) % players]``, so agent 0 sits at ``-index mod p``."""
    return (-index) % players


def focus_wins(rows: Rows) -> dict[int, bool]:
    """Per game index: did the focus seat win?"""
    return {r["index"]: focus_seat(r["players"], r["index"]) in r["winners"] for r in rows}


def seat_share(rows: Rows) -> dict[int, float]:
    """Per game index: the share of seats that won (the heuristic bot's result in a seat of an
    all-heuristic game, averaged over the seats: exactly 1/2 in a two-player game without ties,
    where one seat's record would still carry the noise of who won)."""
    return {r["index"]: len(r["winners"]) / r["players"] for r in rows}


def _gain_over_baseline(base: dict[int, float], other: dict[int, bool]) -> dict[str, float]:
    """``other − base`` per game on the games both played, with the paired t 95% interval
    (the baseline is a share of seats, not a 0/1 outcome, so Newcombe does not apply); a
    baseline that is one share in every game is a constant, so the searcher's Wilson interval
    less that constant."""
    keys = sorted(set(base) & set(other))
    if not keys:
        return {"diff": 0.0, "low": -1.0, "high": 1.0}
    shares = {base[k] for k in keys}
    if len(shares) == 1:  # the same share every game (two players, no ties): nothing to pair,
        # and a t interval of 0/1 outcomes would collapse to a point when they all agree
        c, w = shares.pop(), sum(bool(other[k]) for k in keys)
        low, high = wilson(w, len(keys))
        return {"diff": w / len(keys) - c, "low": low - c, "high": high - c}
    d, low, high = paired_t([float(other[k]) - base[k] for k in keys])
    return {"diff": d, "low": max(-1.0, low), "high": min(1.0, high)}


def _paired_gain(base: dict[int, bool], other: dict[int, bool]) -> dict[str, float]:
    """``other − base`` on the games both played, with Newcombe's paired 95% interval."""
    keys = sorted(set(base) & set(other))
    both = sum(1 for k in keys if base[k] and other[k])
    only_base = sum(1 for k in keys if base[k] and not other[k])
    only_other = sum(1 for k in keys if other[k] and not base[k])
    d, low, high = newcombe_paired(both, only_base, only_other,
                                   len(keys) - both - only_base - only_other)
    return {"diff": d, "low": low, "high": high}


def _baseline_point(shares: dict[int, float], players: int, seconds: float) -> dict[str, Any]:
    n = len(shares)
    rate = sum(shares.values()) / n if n else 0.0
    _, low, high = paired_t(list(shares.values())) if n else (0.0, 0.0, 1.0)
    return {"label": BASELINE, "budget": None, "agent": BASELINE, "games": n,
            "wins": round(rate * n * players), "seat_games": n * players, "rate": rate,
            "low": max(0.0, low), "high": min(1.0, high),
            "seconds_per_game": seconds / n if n else 0.0}


def _point(label: str, budget: float | None, spec: str, wins: dict[int, bool],
           seconds: float) -> dict[str, Any]:
    n, w = len(wins), sum(wins.values())
    low, high = wilson(w, n)
    return {"label": label, "budget": budget, "agent": spec, "games": n, "wins": w,
            "rate": w / n if n else 0.0, "low": low, "high": high,
            "seconds_per_game": seconds / n if n else 0.0}


def trace_summary(points: list[dict[str, Any]], wins: list[dict[int, bool]]
                  ) -> dict[str, Any]:
    """Gains and the plateau of one player count's trace.

    ``points[0]``/``wins[0]`` are the heuristic baseline (per game, the share of seats that won:
    :func:`seat_share`), the rest the budgets in increasing order (per game, did the searcher's
    seat win). Adds to each budget ``gain`` (over the baseline) and, from the second budget on,
    ``step`` (over the previous budget tried, named in ``step["over"]``: the budgets need not
    double), both paired; returns ``best`` (the budget with the highest rate), ``skill_gap``
    (best − baseline), ``stops_paying`` (see the module docstring) and ``still_rising`` (every
    smaller budget is significantly below the largest: more might still pay).
    """
    base, budgets = wins[0], wins[1:]
    for i, (point, got) in enumerate(zip(points[1:], budgets, strict=True)):
        point["gain"] = _gain_over_baseline(base, got)
        point["step"] = {**_paired_gain(budgets[i - 1], got), "over": points[i]["budget"]} \
            if i else None
    if not budgets:
        return {}
    best = max(range(len(budgets)), key=lambda i: points[i + 1]["rate"])
    stops = next(i for i in range(len(budgets))
                 if _paired_gain(budgets[i], budgets[best])["low"] <= 0)
    return {"best": points[best + 1]["budget"], "skill_gap": points[best + 1]["gain"],
            "stops_paying": points[stops + 1]["budget"],
            "still_rising": stops == len(budgets) - 1 and len(budgets) > 1}


def verdict(t: dict[str, Any]) -> dict[str, Any]:
    """The one verdict of a player count's trace, for the text and the chart alike: ``kind``
    ``still_rising`` or ``stops_paying``, ``at`` the budget the chart marks (the largest, or
    where search stops paying) and ``largest_best`` (the largest budget has the highest rate
    without being significantly better: worth saying beside a "stops paying")."""
    if t.get("best") is None:
        return {}
    pts = t["points"][1:]
    if t.get("still_rising"):
        return {"kind": "still_rising", "at": pts[-1]["budget"], "largest_best": True}
    return {"kind": "stops_paying", "at": t["stops_paying"],
            "largest_best": t["best"] == pts[-1]["budget"] and len(pts) > 1}


def run_skill_trace(game: str, players: Sequence[int], seed: int,
                    overrides: dict[str, Any] | None, workers: int | None, out_dir: Path,
                    budgets: Sequence[float] = DEFAULT_BUDGETS, games: int = DEFAULT_GAMES,
                    unit: str = "iterations",
                    progress: Callable[[str, int, int], None] | None = None,
                    ray_address: str | None = None,
                    overall: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Play the trace for every player count and return it (``study.json``'s ``skill_trace``).

    For each count, ``games`` games with every seat heuristic (the baseline), then ``games``
    with one ISMCTS seat per budget, each written as a study under ``out_dir/skill/``.
    ``progress(label, done, total)`` reports each budget's games as they finish, and
    ``overall(done, total)`` the games of the whole trace (every count and budget), so a long
    trace says how far it is from the first game on. Ctrl-C keeps the games that finished,
    plays no further budget and sets ``interrupted``.
    """
    from fieldcraft.sim.study import validate

    if games < 1:
        raise ValueError(f"a skill trace needs at least 1 game per budget, got {games}")
    if not budgets or min(budgets) <= 0:
        raise ValueError("skill budgets must be positive")
    budgets = sorted({int(b) if unit == "iterations" else float(b) for b in budgets})
    specs = [searcher_spec(b, unit) for b in budgets]
    counts = sorted(set(players))
    validate(game, counts, dict(overrides or {}), [BASELINE, *specs])
    out_dir = Path(out_dir)
    by_count: dict[str, Any] = {}
    interrupted = False
    grand = games * len(counts) * (len(budgets) + 1)
    finished = 0
    if overall is not None:
        overall(0, grand)
    for p in counts:
        if interrupted:
            break
        points, wins = [], []
        for label, budget, spec in [(BASELINE, None, BASELINE),
                                    *[(s, b, s) for b, s in zip(budgets, specs, strict=True)]]:
            folder = out_dir / "skill" / (f"{p}p-{unit}-{budget:g}" if budget else
                                          f"{p}p-{BASELINE}")

            def step(done: int, total: int, text: str = f"{p}p {label}",
                     before: int = finished) -> None:
                if progress is not None:
                    progress(text, done, total)
                if overall is not None:
                    overall(before + done, grand)

            run = (game, p, [spec] + [BASELINE] * (p - 1), games, seed, overrides, workers)
            point, got, interrupted = _play_budget(run, label, budget, folder, step,
                                                   ray_address)
            finished += games
            points.append(point)
            wins.append(got)
            if interrupted:  # Ctrl-C: keep what finished, play no more budgets
                break
        by_count[str(p)] = {"points": points, **trace_summary(points, wins)}
    return {"game": game, "unit": unit, "budgets": budgets, "games": games, "seed": seed,
            "opponent": BASELINE, "players": by_count, "interrupted": interrupted}


def _play_budget(run: tuple[Any, ...], label: str, budget: float | None, folder: Path,
                 step: Callable[[int, int], None], ray_address: str | None
                 ) -> tuple[dict[str, Any], dict[int, Any], bool]:
    """One budget's games (``run``: the study's game, count, seats, games, seed, overrides and
    workers) as a study in ``folder``: its point, its per-game results and whether Ctrl-C
    stopped it."""
    from fieldcraft.sim.study import load_results, run_study

    game, p, seats, games, seed, overrides, workers = run
    started = time.perf_counter()
    run_study(game, [p], seats, games, seed, overrides, workers, folder, progress=step,
              ray_address=ray_address)
    rows, meta = load_results(folder)
    seconds = time.perf_counter() - started
    if budget is None:
        shares = seat_share(rows)
        return _baseline_point(shares, p, seconds), shares, bool(meta.get("interrupted"))
    won = focus_wins(rows)
    return (_point(label, budget, seats[0], won, seconds), won,
            bool(meta.get("interrupted")))


def add_to_study(out_dir: Path, trace: dict[str, Any]) -> None:
    """Store the trace in the study's ``study.json`` (the report reads it from there)."""
    import json

    from fieldcraft.sim.study import STUDY

    path = Path(out_dir) / STUDY
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["skill_trace"] = trace
    path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _budget_text(budget: float | None, unit: str) -> str:
    if budget is None:
        return "heuristic (baseline)"
    if unit == "iterations":
        return f"{int(budget)} iterations"
    return f"{budget:g} {UNIT_MARKS[unit]}"


def _verdict_text(t: dict[str, Any], trace: dict[str, Any]) -> str:
    """One player count's sentence: the best budget against the baseline, then the verdict
    (:func:`verdict`, the one the chart draws)."""
    unit, n = trace["unit"], trace["games"]
    gap, v = t["skill_gap"], verdict(t)
    best = next(pt for pt in t["points"] if pt["budget"] == t["best"])
    if v["kind"] == "still_rising":
        said = (f"still rising: every smaller budget wins significantly less than "
                f"{_budget_text(v['at'], unit)} at {n} games a budget, so more may still pay")
    else:
        said = (f"search stops paying at {_budget_text(v['at'], unit)} (no larger budget wins "
                f"significantly more at {n} games a budget)")
        if v["largest_best"]:
            said += (f"; the largest budget's rate is the highest, by less than {n} games "
                     "can tell apart")
    if gap["high"] < 0:
        said = "no budget tried plays as well as the heuristic bot; " + said
    return (f"the best budget ({_budget_text(t['best'], unit)}) wins "
            f"{100 * best['rate']:.0f}% against the heuristic bot's "
            f"{100 * t['points'][0]['rate']:.0f}% in the same games "
            f"({100 * gap['diff']:+.1f} points, {100 * gap['low']:+.1f} – "
            f"{100 * gap['high']:+.1f}); {said}")


def section(trace: dict[str, Any]) -> list[str]:
    """The report's "Skill trace" section as Markdown lines."""
    unit = trace["unit"]
    lines = ["- **interrupted**: the trace stops where Ctrl-C came", ""] \
        if trace.get("interrupted") else []
    per = UNIT_WORDS[unit]
    lines += [f"- one seat ISMCTS at each budget ({per} a move), the others "
              f"`{trace['opponent']}`; {trace['games']} games per budget, the searcher's seat "
              "rotated; the baseline is the heuristic bot's share of seats won in the same "
              "games with every seat heuristic; the same deals at every budget, so gains are "
              "paired intervals (paired t against the baseline, or Wilson when it is the same "
              "share every game; Newcombe between budgets)", ""]
    for p, t in trace["players"].items():
        if t.get("best") is not None:
            lines.append(f"- {p} players: {_verdict_text(t, trace)}")
    lines += ["", "| players | searcher | games | wins | win rate | 95% CI | gain over heuristic "
              "| gain over the previous budget | s/game |", "|---|---|---|---|---|---|---|---|---|"]
    for p, t in trace["players"].items():
        for pt in t["points"]:
            gain = step = "—"
            if "gain" in pt:
                g = pt["gain"]
                gain = f"{100 * g['diff']:+.1f} ({100 * g['low']:+.1f} – {100 * g['high']:+.1f})"
            if pt.get("step"):
                st = pt["step"]
                step = (f"{100 * st['diff']:+.1f} ({100 * st['low']:+.1f} – "
                        f"{100 * st['high']:+.1f}) over {_budget_text(st['over'], unit)}")
            wins = f"{pt['wins']} of {pt['seat_games']} seats" if "seat_games" in pt \
                else str(pt["wins"])
            lines.append(f"| {p} | {_budget_text(pt['budget'], unit)} | {pt['games']} | "
                         f"{wins} | {100 * pt['rate']:.1f}% | {100 * pt['low']:.1f}% – "
                         f"{100 * pt['high']:.1f}% | {gain} | {step} | "
                         f"{pt['seconds_per_game']:.2f} |")
    return lines


def chart_note(t: dict[str, Any]) -> tuple[str, float] | None:
    """The chart's label for a player count's line and the budget it marks: the text's
    verdict (:func:`verdict`), word for word."""
    v = verdict(t)
    if not v:
        return None
    return ("still rising" if v["kind"] == "still_rising" else "stops paying"), v["at"]


def chart(trace: dict[str, Any], out_dir: Path) -> list[tuple[str, str]]:
    """``skill_trace.png``: win rate per budget (log scale, one line per player count) with
    Wilson intervals, each count's heuristic baseline as a dashed line in its colour and the
    even share 1/p dotted. Returns the (title, file) pair for the report."""
    import matplotlib.pyplot as plt

    fig, title = figure(trace)
    fig.savefig(Path(out_dir) / "skill_trace.png", dpi=90)
    plt.close(fig)
    return [(title, "skill_trace.png")]


def figure(trace: dict[str, Any]) -> tuple[Any, str]:
    """The skill trace's figure and title, unsaved (:func:`chart` saves it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.6))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    budgets = trace["budgets"]
    counts = len(trace["players"])
    for i, (p, t) in enumerate(trace["players"].items()):
        colour = colours[i % len(colours)]
        base, *pts = t["points"]
        # Player counts side by side around each budget, so their intervals do not overlap.
        dodge = 2 ** (0.07 * (i - (counts - 1) / 2))
        xs = [pt["budget"] * dodge for pt in pts]
        ax.errorbar(xs, [pt["rate"] for pt in pts],
                    yerr=[[pt["rate"] - pt["low"] for pt in pts],
                          [pt["high"] - pt["rate"] for pt in pts]],
                    fmt="o-", color=colour, capsize=3, label=f"ISMCTS seat, {p} players")
        ax.axhline(base["rate"], color=colour, linestyle="--", linewidth=1)
        ax.axhline(1 / int(p), color=colour, linestyle=":", linewidth=1, alpha=0.6)
        note = chart_note(t)
        if note is not None:
            text, at = note
            mark = next(pt for pt in pts if pt["budget"] == at)
            # Centred over an end point, the label ran past the plot's edge (its first letter
            # under the axis at the smallest budget): there it starts or ends at the point.
            ha = "left" if at == budgets[0] else "right" if at == budgets[-1] else "center"
            ax.annotate(text, (at * dodge, mark["high"]), textcoords="offset points",
                        xytext=(0, 5), ha=ha, fontsize=7, color=colour)
    # One legend entry per kind of line, whatever the number of player counts.
    ax.plot([], [], color="grey", linestyle="--", linewidth=1,
            label="heuristic bot, mean seat (same colour: same count)")
    ax.plot([], [], color="grey", linestyle=":", linewidth=1, label="even share 1/players")
    ax.set_xscale("log", base=2)
    ax.set_xticks(budgets, [_budget_text(b, trace["unit"]).split()[0] for b in budgets])
    ax.minorticks_off()
    ax.set_xlabel(f"search budget ({UNIT_WORDS[trace['unit']]} a move, log scale)")
    ax.set_ylabel("win rate of the searcher's seat (Wilson 95%)")
    ax.set_ylim(0, 1)
    game = f" in {trace['game']}" if trace.get("game") else ""
    title = f"Skill trace: ISMCTS against the heuristic bot{game}"
    ax.set_title(title)
    # Below the plot, not in it: inside, it covered the verdict's label whenever search stopped
    # paying at the smallest budget (top left, where the legend sat).
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
              frameon=False)
    fig.tight_layout()
    return fig, title
