"""Robustness: do a report's conclusions survive a second bot mix?

Every number a study prints is a number about *these* bots playing *these* rules: Spy Tracker
between heuristic bots ended 0 of 1,200 games on points, with one search bot among them 11 of
100. A designer reading "the Blue side wins more often" needs to know whether that is the rules
or the bots. So the report re-plays a sample of the same ruleset with a second mix, one search
bot (the game's Strong level, :mod:`fieldcraft.agents.levels`) among the study's own bots, seats
rotated as a study rotates them, and checks each headline conclusion in both.

A conclusion is what the headline says about a side (or seat) at a player count: above an even
share, below it, or not clearly off it (the Holm-adjusted score test of
:func:`fieldcraft.sim.metrics_report.even_share_tests`, the same family the headline uses). It
*flips* when the second mix says otherwise:

* ``reversed``: clearly above in one mix, clearly below in the other;
* ``sign``: clear in one mix, and the other mix's rate lies on the other side of its even share
  (not clear there, but pointing the other way);
* ``significance``: clear in one mix, same direction but not clear in the other. The sample is
  smaller than the study, so this one can be a matter of fewer games; the report says so.

The sample plays without the designer's metrics (win rates only), so it costs the bots' time
alone; a search bot is still tens of times slower than a heuristic one, so the sample is small
and its size is the caller's choice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fieldcraft.agents.levels import GENERIC, LEVEL_TABLE
from fieldcraft.core.registry import load_game
from fieldcraft.sim.metrics_report import ALPHA, even_share_tests, even_shares
from fieldcraft.sim.report import summarize
from fieldcraft.sim.stats import newcombe
from fieldcraft.sim.study import (
    STUDY,
    _row,
    load_results,
    ruleset_hash,
    run_study,
    seat_specs,
    study_seed,
)

ROBUSTNESS_SEED = 7919
"""The second mix's deals are not the study's (seed 0 by default): a conclusion that holds
only on the study's own deals is not robust either."""


def search_bot(game: str) -> str:
    """The search bot of the second mix: the game's Strong level."""
    return LEVEL_TABLE.get(game, GENERIC)["strong"]


def second_mix(base: str, search: str, players: int) -> list[str]:
    """One ``search`` bot among ``players - 1`` of the study's first bot (``base``); a study's
    seat rotation then puts the search bot at every seat equally often."""
    return [search] + [base] * (players - 1)


def play_mix(game: str, counts: list[int], overrides: dict[str, Any], base: str, search: str,
             games: int, seed: int = ROBUSTNESS_SEED, workers: int | None = 1,
             out_dir: Path | None = None) -> list[dict[str, Any]]:
    """``games`` games per player count with :func:`second_mix`: a study per count (the mix has
    one seat per player, so the study's rotation seats the search bot everywhere alike), without
    metrics. With ``out_dir`` each count's study is kept in ``out_dir/<count>`` and its
    ``workers`` play in parallel; without, the games are played here."""
    rows: list[dict[str, Any]] = []
    for players in counts:
        mix = second_mix(base, search, players)
        if out_dir is not None:
            sub = Path(out_dir) / str(players)
            run_study(game, [players], mix, games, seed, overrides, workers, sub, metrics=None)
            rows += load_results(sub)[0]
            continue
        loaded = load_game(game, players=players, **overrides)
        rhash = ruleset_hash(loaded.ruleset)
        rows += [_row(loaded, game, players, k, study_seed(seed, players, k),
                      seat_specs(mix, players, k), rhash) for k in range(games)]
    return rows


def conclusions(summary: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    """What the headline concludes of every side (seats when the game has no sides) at every
    player count: ``above``, ``below`` or ``even`` (not clearly off), with the rate, the even
    share and the Holm-adjusted p-value."""
    rates = summary["labels"] or {(p, f"seat {s}"): r for (p, s), r in summary["seats"].items()}
    if not rates:
        return {}
    even = even_shares(rates)
    adjusted = even_share_tests(rates)
    out = {}
    for key, r in rates.items():
        share = even[key[0]]
        clear = adjusted[key] < ALPHA
        direction = "even" if not clear else "above" if r["rate"] > share else "below"
        out[(int(key[0]), str(key[1]))] = {"rate": r["rate"], "low": r["low"],
                                           "high": r["high"], "games": r["games"],
                                           "even": share, "p_holm": adjusted[key],
                                           "conclusion": direction}
    return out


def _flip(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """How conclusion ``b`` differs from ``a`` (see the module), or ``None``."""
    ca, cb = a["conclusion"], b["conclusion"]
    if ca == cb:
        return None
    if "even" not in (ca, cb):
        return "reversed"
    clear, other = (a, b) if cb == "even" else (b, a)
    side = (other["rate"] - other["even"]) * (1 if clear["conclusion"] == "above" else -1)
    return "sign" if side < 0 else "significance"


def compare(first: dict[str, Any], second: dict[str, Any]) -> list[dict[str, Any]]:
    """Every conclusion of summary ``first`` that ``second`` does not share, with its kind
    (``reversed``, ``sign``, ``significance``) and whether the two rates themselves differ
    (``differs``: Newcombe's 95% interval of the difference excludes 0; a flip of significance
    alone whose rates do not differ may be the smaller sample's want of power); sides only one
    of them played are skipped."""
    a, b = conclusions(first), conclusions(second)
    flips = []
    for key in sorted(set(a) & set(b)):
        kind = _flip(a[key], b[key])
        if kind is not None:
            _, low, high = newcombe(a[key], b[key])
            flips.append({"players": key[0], "side": key[1], "kind": kind,
                          "differs": low > 0 or high < 0, "first": a[key], "second": b[key]})
    return flips


def check(game: str, counts: list[int], overrides: dict[str, Any], agents: list[str],
          rows: list[dict[str, Any]], games: int, search: str | None = None,
          seed: int = ROBUSTNESS_SEED, workers: int | None = 1,
          out_dir: Path | None = None) -> dict[str, Any]:
    """Re-play ``games`` games per count with the second mix and compare the conclusions of
    ``rows`` (the study's games) with the sample's. JSON-able; ``flips`` empty: robust."""
    search = search or search_bot(game)
    sample = play_mix(game, counts, overrides, agents[0], search, games, seed, workers, out_dir)
    flips = compare(summarize(rows), summarize(sample))
    return {"games_per_count": games, "seed": seed, "search": search, "base": agents[0],
            "mix": {str(p): second_mix(agents[0], search, p) for p in counts},
            "conclusions": [{"players": p, "side": s, **c}
                            for (p, s), c in conclusions(summarize(sample)).items()],
            "flips": flips}


def add_to_study(out_dir: Path, games: int, search: str | None = None,
                 workers: int | None = None) -> dict[str, Any]:
    """Check the study in ``out_dir`` (:func:`check`; the sample's own studies go to
    ``out_dir/robustness``) and store the result in its ``study.json`` for the report."""
    out_dir = Path(out_dir)
    rows, meta = load_results(out_dir)
    counts = sorted({int(r["players"]) for r in rows})
    result = check(meta["game"], counts, meta.get("overrides", {}), list(meta["agents"]), rows,
                   games, search, workers=workers, out_dir=out_dir / "robustness")
    path = out_dir / STUDY
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["robustness"] = result
    path.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return result


KIND_TEXT = {
    "reversed": "reverses",
    "sign": "points the other way",
    "significance": "is no longer clear",
}


def section(result: dict[str, Any]) -> list[str]:
    """The report's lines: the mix, then each flipped conclusion or that none flipped."""
    lines = [f"A second bot mix re-played {result['games_per_count']} games per player count "
             f"(seed {result['seed']}): one `{result['search']}` among "
             f"`{result['base']}` bots, seats rotated. Each conclusion of the headline (a side "
             f"above, below or not clearly off an even share, Holm-adjusted) is checked in it.",
             ""]
    if not result["flips"]:
        return lines + ["No conclusion flips with the second mix."]
    weak = sum(f["kind"] == "significance" and not f.get("differs") for f in result["flips"])
    lines.append(f"**{len(result['flips'])} conclusion(s) flip with the second mix**"
                 + (f" ({weak} only lose significance, the rate itself not differing: the "
                    "sample may be too small to tell)" if weak else "") + ":")
    for f in result["flips"]:
        a, b = f["first"], f["second"]
        lines.append(f"- ⚠ {f['side']} at {f['players']} players: {a['conclusion']} "
                     f"({a['rate']:.0%} vs even {a['even']:.0%}) with the study's bots, "
                     f"{b['conclusion']} ({b['rate']:.0%} vs even {b['even']:.0%}) with the "
                     f"second mix: {KIND_TEXT[f['kind']]}"
                     + ("; the two rates differ (Newcombe 95%)" if f.get("differs") else ""))
    return lines


def flip_note(result: dict[str, Any] | None) -> str:
    """The sentence under a headline whose conclusions flip (empty when none do)."""
    flips = (result or {}).get("flips") or []
    if not flips:
        return ""
    weak = sum(f["kind"] == "significance" and not f.get("differs") for f in flips)
    return (f"{len(flips)} of these conclusions flip with a second bot mix"
            + (f" ({weak} of them only lose significance in its smaller sample)" if weak
               else "") + ": see Robustness.")
