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
alone; a search bot is still tens of times slower than a heuristic one, so the sample is small:
at most ``games`` per player count, and, given ``seconds``, no new game starts once that budget
is spent (the games are dealt round-robin over the counts, so a cut sample is the first games
of every count, never all of one count and none of another). The result says how many games
each count got and whether the budget cut it, and the report prints both.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from fieldcraft.agents.levels import level_spec
from fieldcraft.core.registry import load_game
from fieldcraft.sim.metrics_report import ALPHA, even_share_tests, even_shares
from fieldcraft.sim.report import summarize
from fieldcraft.sim.stats import newcombe
from fieldcraft.sim.study import (
    STUDY,
    _ignore_sigint,
    _play_chunk,
    _write_study,
    load_results,
    ruleset_hash,
)

ROBUSTNESS_SEED = 7919
"""The second mix's deals are not the study's (seed 0 by default): a conclusion that holds
only on the study's own deals is not robust either."""


def search_bot(game: str, players: int | None = None) -> str:
    """The search bot of the second mix: the game's Strong level at ``players`` seats, the
    spec the web seats at that count (a level may change spec from some count up:
    :data:`fieldcraft.agents.levels.BY_COUNT`); ``None``: the level table's base row."""
    return level_spec(game, "strong", players)


def second_mix(base: str, search: str, players: int) -> list[str]:
    """One ``search`` bot among ``players - 1`` of the study's first bot (``base``); a study's
    seat rotation then puts the search bot at every seat equally often."""
    return [search] + [base] * (players - 1)


def play_mix(game: str, counts: list[int], overrides: dict[str, Any], base: str,
             search: str | dict[int, str], games: int, seed: int = ROBUSTNESS_SEED,
             workers: int | None = 1, out_dir: Path | None = None,
             seconds: float | None = None) -> list[dict[str, Any]]:
    """At most ``games`` games per player count with :func:`second_mix` (``search``: one spec,
    or one per count), without metrics, seeded and seat-rotated as a study's game ``k`` (so the
    rotation seats the search bot everywhere alike). Games go round-robin over the counts and
    none starts once ``seconds`` have passed (the first round always plays), so each count
    gets its first games. ``workers`` processes play them (1: here). With ``out_dir`` each
    count's games are kept as a study in ``out_dir/<count>``."""
    mixes = {p: second_mix(base, search if isinstance(search, str) else search[p], p)
             for p in counts}
    jobs = [(p, k) for k in range(games) for p in counts]
    deadline = None if seconds is None else time.monotonic() + seconds
    rows = _play_jobs(game, overrides, mixes, seed, jobs, max(1, workers or 1), deadline)
    rows.sort(key=lambda r: (r["players"], r["index"]))
    if out_dir is not None:
        for p in counts:
            _keep(Path(out_dir) / str(p), game, p, overrides, mixes[p], seed,
                  [r for r in rows if r["players"] == p])
    return rows


def _play_jobs(game: str, overrides: dict[str, Any], mixes: dict[int, list[str]], seed: int,
               jobs: list[tuple[int, int]], workers: int, deadline: float | None
               ) -> list[dict[str, Any]]:
    """Play ``jobs`` (``(players, index)``) in order, at most ``workers`` at a time, starting
    none after ``deadline`` once a round of the counts has started: so the games played are a
    prefix of ``jobs``, and a seed and a count of games say exactly which games they were."""
    first_round = len(mixes)

    def may_start(started: int) -> bool:
        return started < len(jobs) and (started < first_round or deadline is None
                                        or time.monotonic() < deadline)

    def chunk(job: tuple[int, int]) -> tuple[Any, ...]:
        return game, job[0], overrides, mixes[job[0]], seed, [job[1]], None

    rows: list[dict[str, Any]] = []
    started = 0
    if workers == 1:
        while may_start(started):
            rows += _play_chunk(*chunk(jobs[started]))
            started += 1
        return rows
    with ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint) as pool:
        pending: set[Future[list[dict[str, Any]]]] = set()
        while True:
            while len(pending) < workers and may_start(started):
                pending.add(pool.submit(_play_chunk, *chunk(jobs[started])))
                started += 1
            if not pending:
                return rows
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                rows += future.result()


def _keep(sub: Path, game: str, players: int, overrides: dict[str, Any], mix: list[str],
          seed: int, rows: list[dict[str, Any]]) -> None:
    """One count's sample as a study folder (``results.parquet``, ``study.json``), so that
    the study tools (report, compare) read it as they read any study."""
    rules = load_game(game, players=players, **overrides).ruleset
    sub.mkdir(parents=True, exist_ok=True)
    meta = {"game": game, "players": [players], "agents": mix, "games": len(rows),
            "games_played": len(rows), "seed": seed, "overrides": overrides,
            "backend": "local", "interrupted": False,
            "ruleset_hash": {str(players): ruleset_hash(rules)}}
    _write_study(sub, rows, meta, {players: rules})


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
          out_dir: Path | None = None, seconds: float | None = None) -> dict[str, Any]:
    """Re-play at most ``games`` games per count (within ``seconds``, see :func:`play_mix`)
    with the second mix and compare the conclusions of ``rows`` (the study's games) with the
    sample's. ``search`` ``None``: each count's Strong (:func:`search_bot`). JSON-able;
    ``flips`` empty: robust; ``played`` says how many games each count got."""
    by_count = {p: search or search_bot(game, p) for p in counts}
    started = time.monotonic()
    sample = play_mix(game, counts, overrides, agents[0], by_count, games, seed, workers,
                      out_dir, seconds)
    played = {str(p): sum(r["players"] == p for r in sample) for p in counts}
    flips = compare(summarize(rows), summarize(sample))
    specs = set(by_count.values())
    # ``games_per_count`` and ``search`` stay one number and one string (what the playtest
    # page prints): the fewest games a count got, and each count's spec when they differ.
    return {"asked": games, "games_per_count": min(played.values()), "played": played,
            "seconds": seconds, "cut_by_time": any(n < games for n in played.values()),
            "elapsed": round(time.monotonic() - started, 1), "seed": seed,
            "search": specs.pop() if len(specs) == 1 else ", ".join(
                f"{s} at {p} players" for p, s in by_count.items()),
            "search_by_count": {str(p): s for p, s in by_count.items()}, "base": agents[0],
            "mix": {str(p): second_mix(agents[0], by_count[p], p) for p in counts},
            "conclusions": [{"players": p, "side": s, **c}
                            for (p, s), c in conclusions(summarize(sample)).items()],
            "flips": flips}


def add_to_study(out_dir: Path, games: int, search: str | None = None,
                 workers: int | None = None, seconds: float | None = None) -> dict[str, Any]:
    """Check the study in ``out_dir`` (:func:`check`, in ``workers`` processes, default one
    per core, as a study; the sample's own studies go to ``out_dir/robustness``) and store the
    result in its ``study.json`` for the report."""
    out_dir = Path(out_dir)
    rows, meta = load_results(out_dir)
    counts = sorted({int(r["players"]) for r in rows})
    result = check(meta["game"], counts, meta.get("overrides", {}), list(meta["agents"]), rows,
                   games, search, workers=workers or os.cpu_count() or 1,
                   out_dir=out_dir / "robustness", seconds=seconds)
    _store(out_dir, result)
    return result


def switched_off(out_dir: Path) -> None:
    """Record in the study in ``out_dir`` that its robustness check was switched off
    (``--robustness-games 0``), so the report says so rather than that it was not run."""
    _store(Path(out_dir), {"off": True})


def _store(out_dir: Path, result: dict[str, Any]) -> None:
    path = out_dir / STUDY
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["robustness"] = result
    path.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8")


KIND_TEXT = {
    "reversed": "reverses",
    "sign": "points the other way",
    "significance": "is no longer clear",
}


def _sample_text(result: dict[str, Any]) -> str:
    """How many games the sample had: the asked count, or per count what the budget allowed."""
    asked = result.get("asked", result["games_per_count"])
    played = result.get("played")  # both absent from checks stored before the time budget
    if not played or not result.get("cut_by_time"):
        return f"{asked} games per player count"
    each = ", ".join(f"{n} at {p} players" for p, n in sorted(played.items(), key=lambda x:
                                                             int(x[0])))
    return (f"{each} (of {asked} asked: no new game starts once the {result['seconds']:g} s "
            "budget is spent)")


def _search_text(result: dict[str, Any]) -> str:
    """The search bot, or each count's where the level changes spec with the count."""
    by_count = result.get("search_by_count") or {}
    if len(set(by_count.values())) < 2:
        return f"`{result['search']}`"
    return "Strong search bot (" + ", ".join(f"`{s}` at {p} players"
                                             for p, s in by_count.items()) + ")"


def section(result: dict[str, Any]) -> list[str]:
    """The report's lines: the mix, then each flipped conclusion or that none flipped."""
    lines = [f"A second bot mix re-played {_sample_text(result)} (seed {result['seed']}): one "
             f"{_search_text(result)} among `{result['base']}` bots, seats rotated. Each "
             "conclusion of the headline (a side above, below or not clearly off an even "
             "share, Holm-adjusted) is checked in it.",
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
