"""The playtest report: what people's games of a playtest say, pooled.

A study answers "how does this ruleset play between bots"; a playtest answers the questions only
people can: did they enjoy it, did they understand it, how long did it really take, which rule
lost them. This report pools every finished game of one playtest (each had at least one person
at it: ``POST /api/playtests/<name>/tables`` refuses a table of bots alone) and reads them the
way a study reads its games, with the same intervals (:mod:`fieldcraft.sim.stats`), so the two
can be set side by side:

* win rates by side, by seat and person-versus-bot, each per player count, with Wilson intervals
  (:func:`fieldcraft.sim.report.summarize`, the study's own counting); people's games are few,
  so the intervals are wide, and the report prints them rather than a bare percentage;
* real minutes from a game's first move to its last (waiting for players is not playing),
  median and 90th percentile;
* how games ended, as the game's outcome names it;
* the questionnaire: each 1-5 scale's mean with a t interval, the length votes as rates, the
  confusing rules ranked by how many answers named them, and the comments.

``bots`` is the bot baseline of the same ruleset: by default not run, only named (the study
command that gives it; a thousand games is minutes of CPU, not something a web request should
start), and the report says so. ``fieldcraft playtest report --bot-games N`` plays a quick
baseline of N games per player count in this process, the playtest's bot at every seat, counted
the study's way, so people's seat and side rates can be read against the bots'.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from fieldcraft.core.registry import load_game
from fieldcraft.server import feedback as F
from fieldcraft.server import playtest as P
from fieldcraft.server import store
from fieldcraft.server.models import actions
from fieldcraft.sim.report import summarize
from fieldcraft.sim.stats import rate, t95

_ENDING_KEYS = ("ending", "ended_by")
"""Where a game's ``outcome()`` names how it ended (the same keys a study reads)."""


def _minutes(engine: Engine, ids: list[str]) -> dict[str, float]:
    """Minutes from each table's first stored action to its last."""
    if not ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(sa.select(actions.c.table_id, sa.func.min(actions.c.created_at),
                                      sa.func.max(actions.c.created_at))
                            .where(actions.c.table_id.in_(ids))
                            .group_by(actions.c.table_id)).all()
    return {tid: max(0.0, (last - first).total_seconds() / 60) for tid, first, last in rows
            if first is not None and last is not None}


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (a value that was observed; no interpolation between games)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _labels(engine: Engine, found: P.Playtest, game: dict[str, Any]) -> list[str | None]:
    """Each seat's side at the end of a stored game, from replaying its actions (sides may be
    dealt, so they are not in the stored result)."""
    loaded = load_game(found.game, players=game["players"], **game["overrides"])
    state = loaded.new_initial_state()
    for action in store.read_all_actions(engine, game["id"]):
        state.apply_action(action)
    return [state.seat_label(s) for s in range(game["players"])]


def _row(engine: Engine, found: P.Playtest, game: dict[str, Any]) -> dict[str, Any]:
    """One game as a study row (what :func:`summarize` counts)."""
    result = game["result"] or {}
    outcome = result.get("outcome") or {}
    winners = [int(s) for s in result.get("winners") or []]
    labels = _labels(engine, found, game)
    ending = next((outcome[k] for k in _ENDING_KEYS if outcome.get(k)), None)
    decided = outcome.get("decided_by")
    return {"players": game["players"], "winners": winners, "labels": labels,
            "winning_labels": sorted({labels[s] for s in winners} - {None}),
            "agents": ["person" if s["kind"] == "human" else f"bot:{s['bot']}"
                       for s in game["seats"]],
            "length": 0, "ending": str(ending) if ending is not None else None,
            "decided_by": str(decided) if decided is not None else None}


def _mean(values: list[int]) -> dict[str, Any]:
    """Mean with a 95% t interval (``None`` bounds below two answers: no spread to use)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "low": None, "high": None}
    mean = statistics.fmean(values)
    if n < 2:
        return {"n": n, "mean": mean, "low": None, "high": None}
    half = t95(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return {"n": n, "mean": mean, "low": max(1.0, mean - half), "high": min(5.0, mean + half)}


def feedback_summary(answers: list[F.Answer], game: str) -> dict[str, Any]:
    """The questionnaire pooled: scales, length votes, confusing rules ranked, comments."""
    n = len(answers)
    labels = {c["id"]: c["label"] for c in F.rule_choices(game)}
    named: Counter[str] = Counter(c for a in answers for c in a.answers.get("confusing", []))
    lengths = Counter(a.answers.get("length") for a in answers)
    return {
        "count": n,
        "scales": {key: _mean([a.answers[key] for a in answers if key in a.answers])
                   for key in F.SCALES},
        "length": {v: rate(lengths.get(v, 0), n) for v in F.LENGTHS},
        "confusing": [{"id": cid, "label": labels.get(cid, cid), **rate(k, n)}
                      for cid, k in sorted(named.items(), key=lambda kv: (-kv[1], kv[0]))],
        "comments": [{"table": a.table_id, "seat": a.seat, "lang": a.lang,
                      "text": a.answers["comment"]} for a in answers
                     if a.answers.get("comment")],
    }


def bots_stub(found: P.Playtest) -> dict[str, Any]:
    """The study that gives this ruleset's bot baseline, not run here (see the module)."""
    sets = " ".join(f"--set {k}={_arg(v)}" for k, v in sorted(found.overrides.items()))
    players = str(found.min_players) if found.min_players == found.max_players \
        else f"{found.min_players}-{found.max_players}"
    command = (f"fieldcraft study {found.game} --players {players} --agents {found.bot} "
               f"{sets} --games 1000 --out study-{found.name}").replace("  ", " ")
    return {"run": False, "study": command,
            "note": "no bot games were played for this report; run the study to compare "
                    "people's win rates with the bots' on the same ruleset"}


def bot_baseline(found: P.Playtest, games: int, seed: int = 0) -> dict[str, Any]:
    """``games`` games per player count of the playtest, its bot at every seat, each row made
    exactly as a study makes it (:func:`fieldcraft.sim.study._row`, seeded as a study seeds
    game ``i``), summarised as people's games are."""
    from fieldcraft.sim.study import _row as study_row
    from fieldcraft.sim.study import study_seed

    rows = []
    for players in range(found.min_players, found.max_players + 1):
        game = load_game(found.game, players=players, **found.overrides)
        for index in range(games):
            rows.append(study_row(game, found.game, players, index,
                                  study_seed(seed, players, index), [found.bot] * players, ""))
    summary = summarize(rows)
    return {**bots_stub(found), "run": True, "agent": found.bot, "games_per_count": games,
            "seed": seed,
            "seats": [{"players": p, "seat": st, **r} for (p, st), r in summary["seats"].items()],
            "sides": [{"players": p, "side": lab, **r}
                      for (p, lab), r in summary["labels"].items()],
            "endings": summary["endings"],
            "note": f"a quick baseline: {games} games per player count, {found.bot} at every "
                    "seat, played for this report; the study command gives the full picture "
                    "(more games, the metrics)"}


def _arg(value: Any) -> str:
    import json

    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text if text and all(c.isalnum() or c in "_-.,:" for c in text) else f"'{text}'"


def playtest_report(engine: Engine, name: str, bot_games: int = 0) -> dict[str, Any]:
    """The report of playtest ``name`` as JSON-able data (with its text as ``text``);
    ``bot_games`` > 0 plays that bot baseline (:func:`bot_baseline`), else ``bots`` only names
    the study."""
    found = P.require(engine, name)
    games = list(reversed(P.finished_tables(engine, name, limit=None)))  # oldest first
    rows = [_row(engine, found, g) for g in games]
    summary = summarize(rows) if rows else None
    minutes = _minutes(engine, [g["id"] for g in games])
    spans = list(minutes.values())
    answers = F.read(engine, [g["id"] for g in games])
    report: dict[str, Any] = {
        "playtest": found.public(),
        "tables": P.counts(engine, name),
        "human_games": len(rows),
        "players": dict(Counter(r["players"] for r in rows)),
        "seats": [{"players": p, "seat": s, **r}
                  for (p, s), r in (summary["seats"].items() if summary else [])],
        "sides": [{"players": p, "side": lab, **r}
                  for (p, lab), r in (summary["labels"].items() if summary else [])],
        "people_and_bots": [{"who": who, **r}
                            for who, r in (summary["agents"].items() if summary else [])],
        "minutes": {"games": len(spans),
                    "median": statistics.median(spans) if spans else None,
                    "p90": _percentile(spans, 0.9) if spans else None},
        "endings": summary["endings"] if summary else {},
        "no_winner": summary["no_winner"] if summary else {},
        "feedback": feedback_summary(answers, found.game),
        "bots": bot_baseline(found, bot_games) if bot_games > 0 else bots_stub(found),
    }
    report["text"] = "\n".join(report_lines(report))
    return report


def _ci(r: dict[str, Any]) -> str:
    return f"{r['rate']:.0%} [{r['low']:.0%}, {r['high']:.0%}] ({r['wins']}/{r['games']})"


def report_lines(report: dict[str, Any]) -> list[str]:
    """The report for a terminal: short, every rate with its 95% interval."""
    pt = report["playtest"]
    t = report["tables"]
    lines = [f"Playtest {pt['name']}: {pt['game']}, {pt['min_players']}-{pt['max_players']} "
             f"players, {pt['status']}",
             f"  tables made {t['made']}, finished {t['finished']}; human games pooled: "
             f"{report['human_games']}"]
    if pt["changes"]:
        lines.append("  changes: " + ", ".join(f"{c['key']} {c['default']!r} -> {c['value']!r}"
                                               for c in pt["changes"]))
    if report["human_games"]:
        lines.append("Win rate by seat (95% Wilson interval)")
        lines += [f"  {s['players']}p seat {s['seat'] + 1}: {_ci(s)}" for s in report["seats"]]
        if report["sides"]:
            lines.append("Win rate by side")
            lines += [f"  {s['players']}p {s['side']}: {_ci(s)}" for s in report["sides"]]
        lines.append("People and bots")
        lines += [f"  {a['who']}: {_ci(a)}" for a in report["people_and_bots"]]
        m = report["minutes"]
        if m["games"]:
            lines.append(f"Minutes (first move to last): median {m['median']:.1f}, "
                         f"p90 {m['p90']:.1f} over {m['games']} games")
        if report["endings"]:
            lines.append("Endings")
            lines += [f"  {p}p: " + ", ".join(f"{k} {n}" for k, n in c.items())
                      for p, c in report["endings"].items()]
    fb = report["feedback"]
    lines.append(f"Questionnaire: {fb['count']} answers")
    if fb["count"]:
        for key, s in fb["scales"].items():
            bounds = f" [{s['low']:.2f}, {s['high']:.2f}]" if s["low"] is not None else ""
            lines.append(f"  {key}: mean {s['mean']:.2f}{bounds} (n={s['n']}, 1-5)")
        lines.append("  length: " + ", ".join(f"{k} {_ci(r)}" for k, r in fb["length"].items()))
        if fb["confusing"]:
            lines.append("  confusing rules:")
            lines += [f"    {c['label']} ({c['id']}): {c['wins']} of {c['games']}"
                      for c in fb["confusing"]]
        if fb["comments"]:
            lines.append("  comments:")
            lines += [f"    - {c['text']}" for c in fb["comments"]]
    bots = report["bots"]
    if not bots["run"]:
        lines.append(f"Bots: not run; the baseline study would be: {bots['study']}")
        return lines
    lines.append(f"Bots: {bots['agent']} at every seat, {bots['games_per_count']} games per "
                 "player count (a quick baseline)")
    lines += [f"  {s['players']}p seat {s['seat'] + 1}: {_ci(s)}" for s in bots["seats"]]
    lines += [f"  {s['players']}p {s['side']}: {_ci(s)}" for s in bots["sides"]]
    lines.append(f"  the full study: {bots['study']}")
    return lines
