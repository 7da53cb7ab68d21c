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

* the designer's metrics of the same games (lead changes, drama, decided-at), traced from the
  stored moves with the all-seeing evaluation, each with a caveat: it is the bots' reading;
* "did it feel close?" against the measured drama of the same games (one pair per game:
  Pearson's r with a Fisher-z interval, and the felt closeness by drama tercile, with n).

``bots`` is the bots' prediction for the same ruleset: a study-like run of the playtest's bot at
every seat, counted the same way, set beside every people's figure with a flag wherever the
people's figure lies outside the bots' 95% interval. A prediction is minutes of CPU, so it is
played only when asked (``fieldcraft playtest report --bot-games N``) and then kept under the
*effective* ruleset (the resolved rules at each count, and the bot): every later report of that
ruleset, the web page's included, reuses it; without one the report names the study to run.
With the prediction, a second bot mix (one search bot among them) re-plays a sample and the
conclusions that flip are flagged (:mod:`fieldcraft.sim.robustness`). ``--out DIR`` exports one
row per game and one per answer as CSV and Parquet.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from fieldcraft.core.api import CHANCE, TERMINAL
from fieldcraft.core.registry import load_game
from fieldcraft.server import feedback as F
from fieldcraft.server import playtest as P
from fieldcraft.server import store
from fieldcraft.server.models import actions
from fieldcraft.sim.metrics import MetricsOptions, Tracer
from fieldcraft.sim.report import summarize
from fieldcraft.sim.stats import Z95, bootstrap, rate, t95

_ENDING_KEYS = ("ending", "ended_by")
"""Where a game's ``outcome()`` names how it ended (the same keys a study reads)."""
_LENGTH_KEYS = ("rounds", "turns")
"""How a game's ``outcome()`` counts its length at the table (the same keys a study reads)."""


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


def _replay(engine: Engine, found: P.Playtest, game: dict[str, Any]
            ) -> tuple[list[str | None], dict[str, Any] | None]:
    """Each seat's side at the end of a stored game (sides may be dealt, so they are not in
    the stored result) and the designer's metrics of the game, traced as a study traces a bot
    game (the all-seeing evaluation only: people's own view is what the questionnaire asks).
    A game that did not reach the end of its rules (conceded) has no metrics: drama and
    decisiveness are read against the eventual winner of a finished game."""
    loaded = load_game(found.game, players=game["players"], **game["overrides"])
    state = loaded.new_initial_state()
    tracer = Tracer(loaded)
    for action in store.read_all_actions(engine, game["id"]):
        player = state.current_player()
        if player != CHANCE:
            tracer(state, player)
        state.apply_action(action)
    labels = [state.seat_label(s) for s in range(game["players"])]
    if state.current_player() != TERMINAL:
        return labels, None
    tracer(state, TERMINAL)
    return labels, tracer.metrics([int(s) for s in state.winners()])


def _row(engine: Engine, found: P.Playtest, game: dict[str, Any]) -> dict[str, Any]:
    """One game as a study row (what :func:`summarize` counts), with its table id."""
    result = game["result"] or {}
    outcome = result.get("outcome") or {}
    winners = [int(s) for s in result.get("winners") or []]
    labels, measured = _replay(engine, found, game)
    ending = next((outcome[k] for k in _ENDING_KEYS if outcome.get(k)), None)
    decided = outcome.get("decided_by")
    return {"table": game["id"], "players": game["players"], "winners": winners,
            "labels": labels, "winning_labels": sorted({labels[s] for s in winners} - {None}),
            "agents": ["person" if s["kind"] == "human" else f"bot:{s['bot']}"
                       for s in game["seats"]],
            "length": 0, **{k: outcome[k] if isinstance(outcome.get(k), int) else None
                            for k in _LENGTH_KEYS},
            "ending": str(ending) if ending is not None else None,
            "decided_by": str(decided) if decided is not None else None,
            "metrics": measured}


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


PREDICTION_KEYS = ("lead_changes", "drama", "decided_at")
"""The designer's metrics set beside the bots' (the all-seeing ones: see :func:`_replay`)."""


def metric_means(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per player count (as text), each metric's mean over the games with a bootstrap interval
    (the study's own, :func:`fieldcraft.sim.stats.bootstrap`)."""
    out: dict[str, dict[str, Any]] = {}
    for players in sorted({r["players"] for r in rows}):
        ms = [r.get("metrics") or {} for r in rows if r["players"] == players]
        out[str(players)] = {key: bootstrap([m.get(key) for m in ms], "mean")
                             for key in PREDICTION_KEYS}
    return out


def table_length(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per player count (as text), the length at the table in the game's own unit (rounds or
    turns): median, 90th percentile and the mean with a bootstrap interval (the figure set
    beside the bots')."""
    out: dict[str, dict[str, Any]] = {}
    for players in sorted({r["players"] for r in rows}):
        games = [r for r in rows if r["players"] == players]
        unit = next((k for k in _LENGTH_KEYS if any(r.get(k) is not None for r in games)), None)
        values = [float(r[unit]) for r in games if unit and r.get(unit) is not None]
        if values:
            out[str(players)] = {"unit": unit, "median": statistics.median(values),
                                 "p90": _percentile(values, 0.9),
                                 "mean": bootstrap(values, "mean")}
    return out


def _counted(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Seats, sides, endings and metrics of some games, keyed as the report keys them."""
    summary = summarize(rows)
    return {"seats": [{"players": p, "seat": st, **r} for (p, st), r in summary["seats"].items()],
            "sides": [{"players": p, "side": lab, **r}
                      for (p, lab), r in summary["labels"].items()],
            "endings": {str(p): c for p, c in summary["endings"].items()},
            "no_winner": {str(p): n for p, n in summary["no_winner"].items()},
            "games": {str(p): n for p, n in summary["games"].items()},
            "metrics": metric_means(rows), "length": table_length(rows)}


def cache_dir() -> Path:
    """Where bot predictions are kept between reports (``FIELDCRAFT_CACHE``, else the user's
    cache folder): a prediction is minutes of CPU, and the page must never play one."""
    root = os.environ.get("FIELDCRAFT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fieldcraft")
    return Path(root) / "predictions"


def prediction_key(found: P.Playtest) -> str:
    """The effective ruleset of the playtest at each of its counts, its bot, and the version
    of the bots (:func:`bots_version`): two playtests (or one reopened under another name)
    that play the same rules with the same bots share a prediction, and a prediction made
    by bots since changed is not reused."""
    from fieldcraft.sim.study import ruleset_hash

    counts = range(found.min_players, found.max_players + 1)
    rules = {str(p): ruleset_hash(load_game(found.game, players=p, **found.overrides).ruleset)
             for p in counts}
    text = json.dumps({"game": found.game, "bot": found.bot, "rules": rules,
                       "bots": bots_version(found.game, list(counts))}, sort_keys=True)
    return f"{found.game}-{hashlib.sha256(text.encode()).hexdigest()[:24]}"


def bots_version(game: str, counts: list[int]) -> str:
    """What the prediction's bots are made of: the package version, every level's spec at
    each count (the level table can change a level's spec, and Strong is the second mix's
    search bot) and the source of the agents and of the game (a heuristic or an evaluation
    edited without a version bump still changes how the bots play). A short hash."""
    import fieldcraft
    from fieldcraft.agents.levels import LEVELS, level_spec

    digest = hashlib.sha256(fieldcraft.__version__.encode())
    digest.update(json.dumps({p: [level_spec(game, lv, p) for lv in LEVELS] for p in counts},
                             sort_keys=True).encode())
    game_dir = Path(type(load_game(game, players=counts[0])).__module__.replace(".", "/"))
    root = Path(fieldcraft.__file__).parent.parent
    for folder in (Path("fieldcraft/agents"), game_dir.parent):
        for source in sorted((root / folder).glob("*.py")):
            digest.update(source.name.encode() + source.read_bytes())
    return digest.hexdigest()[:16]


def cached_baseline(found: P.Playtest) -> dict[str, Any] | None:
    """The stored prediction for this effective ruleset, or ``None``."""
    path = cache_dir() / f"{prediction_key(found)}.json"
    try:
        # the file's name only: the report reaches the designer's browser, the server's
        # folders need not
        return {**json.loads(path.read_text(encoding="utf-8")), "cached": path.name}
    except (OSError, ValueError):
        return None


def bot_baseline(found: P.Playtest, games: int, seed: int = 0, robustness_games: int = 0,
                 search: str | None = None, robustness_seconds: float | None = None
                 ) -> dict[str, Any]:
    """``games`` games per player count of the playtest, its bot at every seat, each row made
    exactly as a study makes it (:func:`fieldcraft.sim.study._row`, seeded as a study seeds
    game ``i``, the all-seeing metrics traced), summarised as people's games are, and stored for
    later reports (:func:`cached_baseline`). With ``robustness_games`` the same conclusions are
    checked with a second bot mix (:mod:`fieldcraft.sim.robustness`), no game of it starting
    after ``robustness_seconds``."""
    from fieldcraft.sim import robustness
    from fieldcraft.sim.study import _row as study_row
    from fieldcraft.sim.study import study_seed

    rows = []
    counts = list(range(found.min_players, found.max_players + 1))
    for players in counts:
        game = load_game(found.game, players=players, **found.overrides)
        for index in range(games):
            rows.append(study_row(game, found.game, players, index,
                                  study_seed(seed, players, index), [found.bot] * players, "",
                                  MetricsOptions(samples=0)))
    baseline = {**bots_stub(found), "run": True, "agent": found.bot, "games_per_count": games,
                "seed": seed, "bots_version": bots_version(found.game, counts), **_counted(rows),
                "note": f"{games} games per player count, {found.bot} at every seat, played "
                        "for a report of this ruleset; the study command gives the full "
                        "picture (more games, the perceived metrics)"}
    if robustness_games > 0:
        baseline["robustness"] = robustness.check(found.game, counts, found.overrides,
                                                  [found.bot], rows, robustness_games, search,
                                                  seconds=robustness_seconds)
    path = cache_dir() / f"{prediction_key(found)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(baseline, default=str), encoding="utf-8")
    return baseline


def _arg(value: Any) -> str:
    import json

    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text if text and all(c.isalnum() or c in "_-.,:" for c in text) else f"'{text}'"


def _against(human: dict[str, Any], bots: dict[str, Any] | None, value: str = "rate"
             ) -> dict[str, Any]:
    """``human`` with the bots' figure beside it: ``outside`` when the people's figure lies
    outside the bots' 95% interval, ``apart`` when even the two intervals do not meet (with a
    handful of people's games a figure is often outside by chance alone; apart is the stronger
    sign)."""
    if not bots or bots.get(value) is None or human.get(value) is None:
        return {**human, "bots": None, "outside": False, "apart": False}
    point = human[value]
    low, high = human.get("low"), human.get("high")
    apart = low is not None and high is not None and (high < bots["low"] or low > bots["high"])
    return {**human, "bots": {k: bots.get(k) for k in (value, "low", "high", "wins", "games", "n")
                              if k in bots},
            "outside": not bots["low"] <= point <= bots["high"], "apart": bool(apart)}


def _ending_shares(endings: dict[Any, dict[str, int]], games: dict[Any, int]
                   ) -> dict[tuple[str, str], dict[str, Any]]:
    return {(str(p), how): rate(n, games[p]) for p, c in endings.items() for how, n in c.items()
            if games.get(p)}


def compare_with_bots(report: dict[str, Any], bots: dict[str, Any]) -> None:
    """Put the bots' figure beside every people's figure of ``report`` (seats, sides, endings,
    metrics), flagged where the people's lies outside the bots' interval (:func:`_against`)."""
    seats = {(b["players"], b["seat"]): b for b in bots["seats"]}
    report["seats"] = [_against(h, seats.get((h["players"], h["seat"])))
                       for h in report["seats"]]
    sides = {(b["players"], b["side"]): b for b in bots["sides"]}
    report["sides"] = [_against(h, sides.get((h["players"], h["side"])))
                       for h in report["sides"]]
    mine = _ending_shares(report["endings"], report["_games"])
    theirs = _ending_shares(bots["endings"], bots["games"])
    report["ending_shares"] = [_against({"players": int(p), "ending": how, **r},
                                        theirs.get((p, how), rate(0, bots["games"].get(p, 0))))
                               for (p, how), r in sorted(mine.items())]
    report["metrics"] = {p: {k: _against(v, bots["metrics"].get(p, {}).get(k), "value")
                             if v else None for k, v in m.items()}
                         for p, m in report["metrics"].items()}
    theirs_long = bots.get("length", {})  # absent from predictions kept before it was counted
    for p, length in report.setdefault("length", {}).items():
        other = theirs_long.get(p)
        length["mean"] = _against(length["mean"], other["mean"] if other else None, "value")
        length["bots"] = {k: other[k] for k in ("median", "p90")} if other else None
    report["flags"] = sum(x["outside"] for group in ("seats", "sides", "ending_shares")
                          for x in report[group]) + sum(
        bool(v and v["outside"]) for m in report["metrics"].values() for v in m.values()) + sum(
        length["mean"]["outside"] for length in report["length"].values())


def _pearson(pairs: list[tuple[float, float]]) -> dict[str, Any] | None:
    """Pearson's r with a 95% Fisher-z interval (``None`` under 4 pairs or with no spread)."""
    n = len(pairs)
    if n < 4:
        return None
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    sx, sy = statistics.pstdev(xs), statistics.pstdev(ys)
    if sx == 0 or sy == 0:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    r = sum((x - mx) * (y - my) for x, y in pairs) / (n * sx * sy)
    r = max(-1.0, min(1.0, r))
    z, half = math.atanh(max(-0.999999, min(0.999999, r))), Z95 / math.sqrt(n - 3)
    return {"r": r, "low": math.tanh(z - half), "high": math.tanh(z + half), "n": n}


def closeness(rows: list[dict[str, Any]], answers: list[F.Answer]) -> dict[str, Any]:
    """"Did it feel close?" against the measured drama of the same games: one pair per game
    (its answers' mean, so a game with four answers does not count four times), Pearson's r
    with its interval, and the felt closeness by drama tercile (low, middle, high)."""
    drama = {r["table"]: r["metrics"]["drama"] for r in rows
             if r.get("metrics") and r["metrics"].get("drama") is not None}
    felt: dict[str, list[int]] = {}
    for a in answers:
        if a.table_id in drama and "close" in a.answers:
            felt.setdefault(a.table_id, []).append(a.answers["close"])
    pairs = sorted((drama[t], statistics.fmean(v)) for t, v in felt.items())
    thirds = [pairs[i * len(pairs) // 3:(i + 1) * len(pairs) // 3] for i in range(3)]
    return {"games": len(pairs), "answers": sum(len(v) for v in felt.values()),
            "pearson": _pearson(pairs),
            "terciles": [{"drama_low": t[0][0], "drama_high": t[-1][0],
                          **_mean([y for _, y in t])}
                         for t in thirds if t] if len(pairs) >= 3 else []}


def _bots(found: P.Playtest, bot_games: int | None, robustness_games: int,
          search: str | None, robustness_seconds: float | None) -> dict[str, Any]:
    """The bots' prediction: played (``bot_games`` > 0), else the cached one for this effective
    ruleset (``None``: the default), else only the study that would give it."""
    if bot_games:
        return bot_baseline(found, bot_games, robustness_games=robustness_games, search=search,
                            robustness_seconds=robustness_seconds)
    cached = cached_baseline(found) if bot_games is None else None
    return cached if cached is not None else bots_stub(found)


def playtest_report(engine: Engine, name: str, bot_games: int | None = None,
                    robustness_games: int = 0, search: str | None = None,
                    robustness_seconds: float | None = None) -> dict[str, Any]:
    """The report of playtest ``name`` as JSON-able data (with its text as ``text``).
    ``bot_games`` > 0 plays that bot prediction (:func:`bot_baseline`, with
    ``robustness_games`` of a second bot mix within ``robustness_seconds``), ``None`` reuses a
    cached one if there is one, 0 only names the study; the people's figures are flagged
    against the bots'."""
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
        "length": table_length(rows),
        "metrics": metric_means(rows),
        "feedback": feedback_summary(answers, found.game),
        "closeness": closeness(rows, answers),
        "bots": _bots(found, bot_games, robustness_games, search, robustness_seconds),
        "flags": 0,
        "games": game_rows(rows, minutes, answers),
        "answers": answer_rows(rows, answers),
        "_games": summary["games"] if summary else {},
    }
    if report["bots"]["run"] and rows:
        compare_with_bots(report, report["bots"])
    del report["_games"]
    report["text"] = "\n".join(report_lines(report))
    return report


def game_rows(rows: list[dict[str, Any]], minutes: dict[str, float],
              answers: list[F.Answer]) -> list[dict[str, Any]]:
    """One flat row per people's game, for the export (:func:`export`)."""
    felt: dict[str, list[int]] = {}
    for a in answers:
        if "close" in a.answers:
            felt.setdefault(a.table_id, []).append(a.answers["close"])
    out = []
    for r in rows:
        m = r.get("metrics") or {}
        close = felt.get(r["table"], [])
        out.append({"table": r["table"], "players": r["players"],
                    "people": sum(a == "person" for a in r["agents"]),
                    "winners": ";".join(str(w) for w in r["winners"]),
                    "winning_sides": ";".join(r["winning_labels"]),
                    "ending": r["ending"], "decided_by": r["decided_by"],
                    "minutes": minutes.get(r["table"]),
                    **{k: m.get(k) for k in PREDICTION_KEYS},
                    "answers": sum(a.table_id == r["table"] for a in answers),
                    "close_mean": statistics.fmean(close) if close else None})
    return out


def answer_rows(rows: list[dict[str, Any]], answers: list[F.Answer]) -> list[dict[str, Any]]:
    """One flat row per questionnaire answer, with its game's player count and drama."""
    games = {r["table"]: r for r in rows}
    out = []
    for a in answers:
        game = games.get(a.table_id) or {}
        out.append({"table": a.table_id, "seat": a.seat, "lang": a.lang,
                    "players": game.get("players"),
                    **{k: a.answers.get(k) for k in F.SCALES},
                    "length": a.answers.get("length"),
                    "confusing": ";".join(a.answers.get("confusing", [])),
                    "comment": a.answers.get("comment") or "",
                    "game_drama": (game.get("metrics") or {}).get("drama")})
    return out


GAME_COLUMNS = (("table", "string"), ("players", "int32"), ("people", "int32"),
                ("winners", "string"), ("winning_sides", "string"), ("ending", "string"),
                ("decided_by", "string"), ("minutes", "float64"), ("lead_changes", "float64"),
                ("drama", "float64"), ("decided_at", "float64"), ("answers", "int32"),
                ("close_mean", "float64"))
ANSWER_COLUMNS = (("table", "string"), ("seat", "int32"), ("lang", "string"),
                  ("players", "int32"), ("fun", "int32"), ("clarity", "int32"),
                  ("close", "int32"), ("length", "string"), ("confusing", "string"),
                  ("comment", "string"), ("game_drama", "float64"))
"""The export's columns and their Parquet types (fixed, so an empty playtest's files still
have them, and a column that is empty so far is not typed as null)."""


def export(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write ``games`` and ``answers`` as CSV and Parquet into ``out_dir`` (pyarrow, the
    ``study`` extra, for Parquet); returns the four paths."""
    import csv

    import pyarrow as pa
    import pyarrow.parquet as pq

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, columns in (("games", GAME_COLUMNS), ("answers", ANSWER_COLUMNS)):
        rows = report[name]
        names = [c for c, _ in columns]
        with open(out_dir / f"{name}.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=names)
            writer.writeheader()
            writer.writerows([{c: "" if r[c] is None else r[c] for c in names} for r in rows])
        schema = pa.schema([(c, getattr(pa, t)()) for c, t in columns])
        pq.write_table(pa.Table.from_pylist([{c: r[c] for c in names} for r in rows],
                                            schema=schema), out_dir / f"{name}.parquet")
        written += [out_dir / f"{name}.csv", out_dir / f"{name}.parquet"]
    return written


def _ci(r: dict[str, Any]) -> str:
    return f"{r['rate']:.0%} [{r['low']:.0%}, {r['high']:.0%}] ({r['wins']}/{r['games']})"


def _beside(r: dict[str, Any]) -> str:
    """The bots' figure after a people's one, and the flag."""
    b = r.get("bots")
    if not b:
        return ""
    value = b.get("rate", b.get("value"))
    digits = 3 if abs(value) < 1.5 else 1  # metrics are shares of a game, lengths are rounds
    text = (f"; bots {value:.0%} [{b['low']:.0%}, {b['high']:.0%}]" if "rate" in b else
            f"; bots {value:.{digits}f} [{b['low']:.{digits}f}, {b['high']:.{digits}f}]")
    if r.get("apart"):
        return text + "  << OUTSIDE the bots' interval (intervals apart)"
    return text + ("  << outside the bots' interval" if r.get("outside") else "")


CAVEATS = {
    "lead_changes": "share of decisions after which the likeliest winner changed, by the "
                    "game's all-seeing evaluation: people saw less, and may have felt fewer",
    "drama": "how far the eventual winner lay behind, by the all-seeing evaluation; what "
             "people felt is the questionnaire's \"did it feel close?\"",
    "decided_at": "how far in the winner's chance stayed above 50% for good, by the all-seeing "
                  "evaluation: people usually learn it later",
}
"""Why each metric of people's games is the evaluation's reading, not theirs."""


def _metric_lines(report: dict[str, Any]) -> list[str]:
    lines = ["Designer's metrics of people's games (bootstrap 95%; all-seeing, see notes)"]
    for p, m in report["metrics"].items():
        for key, v in m.items():
            if v:
                lines.append(f"  {p}p {key}: {v['value']:.3f} [{v['low']:.3f}, "
                             f"{v['high']:.3f}] (n={v['n']}){_beside(v)}")
    lines += [f"  note, {k}: {v}" for k, v in CAVEATS.items()]
    return lines


def _closeness_lines(c: dict[str, Any]) -> list[str]:
    lines = [f"Felt close (1-5) against measured drama: {c['games']} games with both "
             f"({c['answers']} answers, averaged per game)"]
    if c["pearson"]:
        r = c["pearson"]
        lines.append(f"  Pearson r {r['r']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}] "
                     f"(n={r['n']} games, Fisher z interval)")
    else:
        lines.append("  correlation: needs 4 games with both a winner and an answer")
    for name, t in zip(("low", "middle", "high"), c["terciles"], strict=False):
        bounds = f" [{t['low']:.2f}, {t['high']:.2f}]" if t["low"] is not None else ""
        lines.append(f"  {name} drama ({t['drama_low']:.3f}-{t['drama_high']:.3f}): felt "
                     f"{t['mean']:.2f}{bounds} (n={t['n']})")
    return lines


def _human_lines(report: dict[str, Any]) -> list[str]:
    lines = ["Win rate by seat (95% Wilson interval)"]
    lines += [f"  {s['players']}p seat {s['seat'] + 1}: {_ci(s)}{_beside(s)}"
              for s in report["seats"]]
    if report["sides"]:
        lines.append("Win rate by side")
        lines += [f"  {s['players']}p {s['side']}: {_ci(s)}{_beside(s)}"
                  for s in report["sides"]]
    lines.append("People and bots")
    lines += [f"  {a['who']}: {_ci(a)}" for a in report["people_and_bots"]]
    m = report["minutes"]
    if m["games"]:
        lines.append(f"Minutes (first move to last): median {m['median']:.1f}, "
                     f"p90 {m['p90']:.1f} over {m['games']} games")
    for p, n in report["length"].items():
        bots = f"; bots median {n['bots']['median']:g}, p90 {n['bots']['p90']:g}" \
            if n.get("bots") else ""
        mean = n["mean"]
        lines.append(f"Length at {p}p in {n['unit']}: median {n['median']:g}, p90 {n['p90']:g}"
                     f"{bots}; mean {mean['value']:.1f} [{mean['low']:.1f}, {mean['high']:.1f}]"
                     f"{_beside(mean)}")
    if report.get("ending_shares"):
        lines.append("Endings")
        lines += [f"  {e['players']}p {e['ending']}: {_ci(e)}{_beside(e)}"
                  for e in report["ending_shares"]]
    elif report["endings"]:
        lines.append("Endings")
        lines += [f"  {p}p: " + ", ".join(f"{k} {n}" for k, n in c.items())
                  for p, c in report["endings"].items()]
    return lines + _metric_lines(report) + _closeness_lines(report["closeness"])


def _feedback_lines(fb: dict[str, Any]) -> list[str]:
    lines = [f"Questionnaire: {fb['count']} answers"]
    if not fb["count"]:
        return lines
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
    return lines


def _bot_lines(report: dict[str, Any]) -> list[str]:
    bots = report["bots"]
    if not bots["run"]:
        return [f"Bots: not run; the baseline study would be: {bots['study']} (or "
                "`fieldcraft playtest report NAME --bot-games 200`, kept for later reports)"]
    where = "cached" if bots.get("cached") else "played for this report"
    lines = [f"Bots' prediction: {bots['agent']} at every seat, {bots['games_per_count']} "
             f"games per player count, seed {bots['seed']} ({where}); beside each figure "
             f"above. {report['flags']} people's figure(s) outside the bots' interval.",
             "  A people's figure outside the bots' interval is flagged; with few people's "
             "games that happens by chance too: 'intervals apart' is the stronger sign."]
    rob = bots.get("robustness")
    if rob:
        from fieldcraft.sim.robustness import section

        lines += ["Robustness of the bots' prediction"] + [f"  {x}" for x in section(rob) if x]
    else:
        lines.append("  Not checked with a second bot mix (--robustness-games N).")
    lines.append(f"  the full study: {bots['study']}")
    return lines


def report_lines(report: dict[str, Any]) -> list[str]:
    """The report for a terminal: short, every rate with its 95% interval, the bots' beside."""
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
        lines += _human_lines(report)
    return lines + _feedback_lines(report["feedback"]) + _bot_lines(report)
