"""Balance studies: many bot games of one ruleset, saved one row per game for later reports.

A study is meant to be compared with another study of a changed ruleset, so it must be exactly
repeatable: game ``k`` at ``p`` players always gets the same seed and the same seat-rotated agents,
whichever worker plays it and in whatever order, and the rows are sorted before they are written.
Results go to ``results.parquet`` (one row per game) with the full resolved ruleset beside it in
``ruleset.json``, so a report can say exactly which rules produced the numbers.

pyarrow is an optional dependency (the ``study`` extra) and is imported only when a study is
written, so the core package installs light. The same goes for Ray (the ``ray`` extra), imported
only when a study is asked to run on a Ray cluster instead of local processes; either backend plays
the same chunks with the same seeds, so the rows do not depend on where they were played.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import socket
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fieldcraft.agents import make_agent
from fieldcraft.core.api import FieldcraftError, Game, RulesetError
from fieldcraft.core.registry import load_game
from fieldcraft.sim.actions import outcome_counts, rules_in_play, tally
from fieldcraft.sim.actions import summary as action_summary
from fieldcraft.sim.metrics import DEFAULT_METRICS, MetricsOptions, aggregate
from fieldcraft.sim.simulate import game_seed, play_game

RESULTS = "results.parquet"
RULESET = "ruleset.json"
STUDY = "study.json"

# Outcome keys that hold per-seat scores, in order of preference (games name them differently).
_SCORE_KEYS = ("scores", "points")
# Outcome keys that say how a game ended ("ended_by" is Undercover's name for "ending").
_ENDING_KEYS = ("ending", "ended_by")
# Outcome keys counting a game's length as players feel it (rounds of the table, turns taken),
# kept beside the actions and decisions, which count every card and choice.
_LENGTH_KEYS = ("rounds", "turns")

Progress = Callable[[int, int], None]
Job = tuple[int, list[int]]  # (players, game indices): one chunk
Rows = list[dict[str, Any]]
# game, overrides, agent specs, seed, metrics (None: not traced)
Study = tuple[str, dict[str, Any], list[str], int, MetricsOptions | None]

# A local Ray instance started for a study only ever holds a chunk's rows (tens of KB) in its
# object store; Ray's default reserves 30% of RAM in /dev/shm, which small containers lack.
_RAY_OBJECT_STORE_BYTES = 128 * 1024 * 1024
# How long one ray.wait blocks: Ctrl-C is only seen between waits, so this bounds the delay.
_RAY_POLL_SECONDS = 0.2


def ruleset_hash(ruleset: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a resolved ruleset: equal hashes mean equal rules, so rows
    from different studies can be told apart or matched without comparing whole rulesets."""
    text = json.dumps(ruleset, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def study_seed(seed: int, players: int, index: int) -> int:
    """Seed of game ``index`` at ``players`` players: the player count is folded in so that the
    2-player and 3-player games of one study are not the same deals replayed."""
    return game_seed(game_seed(seed, players), index)


def seat_specs(agents: Sequence[str], players: int, index: int) -> list[str]:
    """Agent specs for game ``index``: seat ``i`` gets ``agents[(i + index) % len(agents)]`` so
    every agent plays every seat equally often and seat advantage does not bias agent results."""
    return [agents[(seat + index) % len(agents)] for seat in range(players)]


def _row(game: Game, name: str, players: int, index: int, seed: int, specs: list[str],
         rhash: str, measure: MetricsOptions | None = None) -> dict[str, Any]:
    tracer = measure.tracer(game, index, seed) if measure is not None else None
    state = play_game(game, specs, seed, trusted=True, watch=tracer)
    outcome = state.outcome()
    winners = [int(s) for s in state.winners()]
    labels = [state.seat_label(s) for s in range(players)]
    winning = sorted({labels[s] for s in winners} - {None})
    scores = next((outcome[k] for k in _SCORE_KEYS if isinstance(outcome.get(k), list)), None)
    ending = next((outcome[k] for k in _ENDING_KEYS if outcome.get(k)), None)
    decided = outcome.get("decided_by")
    return {
        "game": name,
        "players": players,
        "index": index,
        "seed": seed,
        "ruleset_hash": rhash,
        "agents": list(specs),
        "labels": labels,
        "winners": winners,
        "winning_labels": winning,
        "scores": [float(x) for x in scores] if scores is not None else None,
        "length": len(state.history()),
        **{k: int(outcome[k]) if isinstance(outcome.get(k), int) else None
           for k in _LENGTH_KEYS},
        "ending": str(ending) if ending is not None else None,
        "decided_by": str(decided) if decided is not None else None,
        # What only the end shows of a rule in play (an Informer's colour removed), counted.
        "outcome_counts": outcome_counts(name, outcome),
        "metrics": tracer.metrics(winners) if tracer is not None else None,
        "unmask": _unmask(game, state),
        # What each seat played, by kind (fieldcraft.sim.actions); with the metrics, since a
        # tune trial, which plays without them, has no use for it.
        "actions": tally(game, state.history(), trusted=True) if measure is not None else None,
    }


def _unmask(game: Game, state: Any) -> dict[str, Any] | None:
    """Per seat, the turn from which an opponent was certain of its role (time-to-unmask),
    for games whose roles can be deduced (:meth:`GameDeduction.unmask_turns`)."""
    if getattr(game.spec, "deduction", None) is None:
        return None
    from fieldcraft.core.deduction import deduction_for

    return deduction_for(game).unmask_turns(state.history())


_GAMES: dict[tuple[str, int, str], Game] = {}


def _play_chunk(name: str, players: int, overrides: dict[str, Any], agents: list[str],
                seed: int, indices: list[int], measure: MetricsOptions | None = None
                ) -> list[dict[str, Any]]:
    """Play games ``indices`` at ``players`` players (runs in a worker; the game is built once per
    process and reused, since building it re-validates the ruleset)."""
    key = (name, players, json.dumps(overrides, sort_keys=True))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_game(name, players=players, **overrides)
    rhash = ruleset_hash(game.ruleset)
    return [
        _row(game, name, players, k, study_seed(seed, players, k),
             seat_specs(agents, players, k), rhash, measure)
        for k in indices
    ]


def _ignore_sigint() -> None:
    """Workers ignore Ctrl-C so only the parent handles it: it cancels queued chunks and keeps
    every finished one, instead of the pool breaking with a traceback from each worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def require_ray() -> Any:
    """The ``ray`` module, or a one-line :class:`FieldcraftError` naming the extra to install:
    Ray is large and only Ray studies need it, so it is imported here and nowhere at load time."""
    try:
        import ray
    except ImportError as exc:
        raise FieldcraftError(
            f"a study on Ray needs the ray extra (pip install -e '.[ray]'): {exc}") from None
    return ray


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once if nothing listens at ``host:port``: for such an address ``ray.init`` (Ray
    2.60) retries 20 times at about 40 s each, printing warnings, before it gives up."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # not host:port; Ray says what is wrong with it
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout):
            pass
    except OSError as exc:
        raise FieldcraftError(f"no Ray cluster answers at {address!r}: {exc}") from None


@contextmanager
def ray_cluster(address: str, workers: int | None) -> Iterator[tuple[Any, int]]:
    """Connect to Ray and yield ``(ray, cluster CPUs)``; studies run inside it reuse the
    connection, so several studies (or a benchmark) pay Ray's start-up of seconds only once.

    ``"auto"`` starts a private local instance (``workers`` CPUs, default all) and stops it
    afterwards. This differs from Ray's own ``"auto"`` (join a running cluster, never start one)
    because ``--ray auto`` is meant to work on a laptop with nothing set up. Any other value is
    a cluster address handed to ``ray.init`` (``host:port`` or ``ray://host:10001``),
    disconnected afterwards. A process that already called ``ray.init`` (a notebook, the tests,
    an enclosing ``ray_cluster``) keeps its connection: it is used as is and left open.
    """
    ray = require_ray()
    owned = not ray.is_initialized()
    if owned:
        # A study is a batch job: Ray should not report usage from it unless the user opted in.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        try:
            if address == "auto":
                ray.init(address="local", num_cpus=workers, include_dashboard=False,
                         object_store_memory=_RAY_OBJECT_STORE_BYTES,
                         logging_level=logging.WARNING)
            else:
                _check_reachable(address)
                # A ray:// client forwards init arguments to the server's ray.init (with a
                # warning), so the client gets none; a direct driver is told to log less.
                quiet = {} if "://" in address else {"logging_level": logging.WARNING}
                ray.init(address=address, **quiet)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise FieldcraftError(f"could not start or reach Ray at {address!r}: {exc}") from None
    try:
        yield ray, max(1, int(ray.cluster_resources().get("CPU", 1)))
    finally:
        if owned:
            ray.shutdown()


def _chunk_args(study: Study, job: Job) -> tuple[Any, ...]:
    name, overrides, specs, seed, measure = study
    players, indices = job
    return name, players, overrides, specs, seed, indices, measure


def _run_local(study: Study, jobs: list[Job], workers: int, done: Callable[[Rows], None],
               keep: Callable[[Rows], None]) -> None:
    """Play ``jobs`` in ``workers`` local processes (1: in this process)."""
    if workers == 1:
        for job in jobs:
            done(_play_chunk(*_chunk_args(study, job)))
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint) as pool:
        pending: set[Future[Rows]] = {
            pool.submit(_play_chunk, *_chunk_args(study, job)) for job in jobs}
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    done(future.result())
        except KeyboardInterrupt:
            for future in pending:
                future.cancel()
            # Chunks already running finish (they are small); keep them too.
            pool.shutdown(wait=True, cancel_futures=True)
            for future in pending:
                if future.done() and not future.cancelled() and not future.exception():
                    keep(future.result())
            raise


def _run_ray(ray: Any, study: Study, jobs: list[Job], in_flight: int,
             done: Callable[[Rows], None], keep: Callable[[Rows], None]) -> None:
    """Play ``jobs`` as Ray tasks, at most ``in_flight`` submitted at a time.

    Submitting only as many chunks as can run at once means Ctrl-C finds nothing queued: the
    chunks in flight are running, so they are waited for and kept, as with local workers. A
    second Ctrl-C stops waiting and keeps only what had finished. The abandoned tasks are not
    ``ray.cancel``-ed: force-cancelling a task just as it completes aborted the driver in testing
    (Ray 2.60, a failed RAY_CHECK "Tried to complete task that was not pending"), before any row
    was written. Ending the connection stops them instead; in a process that was connected
    before the study they run to the end of their small chunk and the result is dropped.
    """
    remote = ray.remote(num_cpus=1)(_play_chunk)
    queue = iter(jobs)
    pending: list[Any] = []
    try:
        while True:
            while len(pending) < in_flight and (job := next(queue, None)) is not None:
                pending.append(remote.remote(*_chunk_args(study, job)))
            if not pending:
                return
            _collect_ready(ray, pending, done)
    except KeyboardInterrupt:
        try:
            while pending:
                _collect_ready(ray, pending, keep)
        except KeyboardInterrupt:
            pass
        raise


def _collect_ready(ray: Any, pending: list[Any], sink: Callable[[Rows], None]) -> None:
    """Hand the rows of the Ray tasks that finish within one poll to ``sink``; the short poll
    keeps Ctrl-C answered while tasks run."""
    ready, _ = ray.wait(pending, num_returns=1, timeout=_RAY_POLL_SECONDS)
    for ref in ready:
        rows = ray.get(ref)
        pending.remove(ref)
        sink(rows)


def validate(game: str, players: Sequence[int], overrides: dict[str, Any],
             agents: Sequence[str] = ()) -> dict[int, dict[str, Any]]:
    """Resolve the ruleset for every player count (and build every agent) before any game runs,
    so a typo in ``--set`` fails at once rather than after an hour of games at another count.

    Returns the full resolved ruleset per player count; raises :class:`RulesetError`.
    """
    if not players:
        raise RulesetError("a study needs at least one player count")
    rulesets = {}
    for p in players:
        try:
            rulesets[p] = load_game(game, players=p, **overrides).ruleset
        except RulesetError as exc:
            raise RulesetError(f"{game} at {p} players: {exc}") from exc
    for spec in agents:
        make_agent(spec, seed=0)
    return rulesets


def _write_results(rows: list[dict[str, Any]], path: Path, meta: dict[str, Any]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([
        ("game", pa.string()),
        ("players", pa.int32()),
        ("index", pa.int64()),
        ("seed", pa.int64()),
        ("ruleset_hash", pa.string()),
        ("agents", pa.list_(pa.string())),
        ("labels", pa.list_(pa.string())),
        ("winners", pa.list_(pa.int32())),
        ("winning_labels", pa.list_(pa.string())),
        ("scores", pa.list_(pa.float64())),
        ("length", pa.int64()),
        ("rounds", pa.int64()),  # the outcome's rounds played, or null (the game has none)
        ("turns", pa.int64()),  # the outcome's turns taken, or null
        ("ending", pa.string()),
        ("decided_by", pa.string()),
        ("outcome_counts", pa.string()),  # outcome counts as JSON (sim.actions), or null
        ("metrics", pa.string()),  # per-game metrics as JSON (fieldcraft.sim.metrics)
        ("unmask", pa.string()),  # time-to-unmask per seat as JSON (core.deduction), or null
        ("actions", pa.string()),  # decisions per seat by kind as JSON (sim.actions), or null
    ], metadata={b"fieldcraft_study": json.dumps(meta, sort_keys=True).encode()})
    rows = [{"rounds": None, "turns": None, **r,
             "outcome_counts": json.dumps(r["outcome_counts"])
             if r.get("outcome_counts") is not None else None,
             "metrics": json.dumps(r["metrics"]) if r.get("metrics") is not None
             else None, "unmask": json.dumps(r["unmask"]) if r.get("unmask") is not None
             else None, "actions": json.dumps(r["actions"]) if r.get("actions") is not None
             else None} for r in rows]
    table = pa.Table.from_pylist(rows, schema=schema)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def run_study(game: str, players: list[int], agents: str | list[str], games: int, seed: int,
              overrides: dict[str, Any] | None, workers: int | None, out_dir: Path,
              progress: Progress | None = None, ray_address: str | None = None,
              until_ci: float | None = None, max_games: int | None = None,
              metrics: MetricsOptions | None = DEFAULT_METRICS) -> Path:
    """Play ``games`` games per player count and write ``out_dir/results.parquet``.

    Also writes ``ruleset.json`` (full resolved ruleset per player count) and ``study.json``
    (game, agents, seed, games asked for and played, overrides, backend, whether it was
    interrupted). Without ``ray_address``, ``workers`` local processes play chunks of games
    (default ``os.cpu_count()``; 1 plays in this process). With ``ray_address`` the chunks are
    Ray tasks: ``"auto"`` starts a local Ray instance with ``workers`` CPUs for this study, any
    other value is a cluster address; ``workers`` then caps the chunks in flight (default: the
    cluster's CPUs). Results depend on neither. ``progress(done, total)`` is called as games
    finish. Ctrl-C cancels queued games, keeps the finished ones and writes them, then re-raises
    nothing: the returned file holds what was played (``study.json`` says ``interrupted``).

    With ``until_ci`` (a half-width, see :mod:`fieldcraft.sim.precision`) ``games`` is the first
    batch: more batches follow at each player count until every headline interval there is
    that narrow or ``max_games`` (per count) are played; ``study.json``'s ``until_ci`` says how
    many games it took. ``metrics`` traces every game for the designer's metrics
    (:mod:`fieldcraft.sim.metrics`), kept per game in the rows and per player count in
    ``study.json``; ``None`` skips them.
    """
    overrides = dict(overrides or {})
    specs = [agents] if isinstance(agents, str) else list(agents)
    if not specs:
        raise ValueError("a study needs at least one agent spec")
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    workers = max(1, workers) if workers else None
    counts = sorted(set(players))
    rulesets = validate(game, counts, overrides, specs)
    out_dir = Path(out_dir)
    more = None
    if until_ci is not None:
        from fieldcraft.sim import precision

        cap = max_games or precision.DEFAULT_MAX_GAMES
        more = (precision.planner(until_ci, cap, counts), until_ci, cap)
    if ray_address is None:
        return _study(game, counts, specs, games, seed, overrides, rulesets, out_dir, progress,
                      workers or os.cpu_count() or 1, {"backend": "local"}, more=more,
                      metrics=metrics)
    with ray_cluster(ray_address, workers) as (ray, cpus):
        backend = {"backend": "ray", "ray_address": ray_address, "ray_cpus": cpus}
        return _study(game, counts, specs, games, seed, overrides, rulesets, out_dir, progress,
                      workers or cpus, backend, ray, more=more, metrics=metrics)


def _study(game: str, counts: list[int], specs: list[str], games: int, seed: int,
           overrides: dict[str, Any], rulesets: dict[int, dict[str, Any]], out_dir: Path,
           progress: Progress | None, workers: int, backend: dict[str, Any],
           ray: Any = None, more: tuple[Any, float, int] | None = None,
           metrics: MetricsOptions | None = None) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    # Games asked for per count: grows batch by batch under --until-ci (``more``).
    asked = dict.fromkeys(counts, games)
    played = dict.fromkeys(counts, 0)
    study: Study = (game, overrides, specs, seed, metrics)
    rows: Rows = []
    interrupted = False
    schedule: list[dict[int, int]] = []  # games per count after each batch

    def done(chunk: Rows) -> None:
        rows.extend(chunk)
        if progress is not None:
            progress(len(rows), sum(asked.values()))

    if progress is not None:
        progress(0, sum(asked.values()))  # games start now (Ray may have taken seconds)
    try:
        while True:
            jobs = _chunks(counts, asked, played, workers)
            if ray is None:
                _run_local(study, jobs, workers, done, rows.extend)
            else:
                _run_ray(ray, study, jobs, workers, done, rows.extend)
            played = dict(asked)
            schedule.append(played)
            extra = more[0](rows, played) if more is not None else {}
            if not any(extra.values()):
                break
            asked = {p: asked[p] + extra.get(p, 0) for p in counts}
    except KeyboardInterrupt:
        interrupted = True
    rows.sort(key=lambda r: (r["players"], r["index"]))
    until: dict[str, Any] = {}
    if more is not None:
        from fieldcraft.sim.precision import record

        until = {"until_ci": record(rows, counts, more[1], more[2], schedule)}
    meta = {
        "game": game,
        "players": counts,
        "agents": specs,
        "games": max(asked.values()),
        "games_played": len(rows),
        "seed": seed,
        "overrides": overrides,
        "workers": workers,
        **backend,
        "interrupted": interrupted,
        "ruleset_hash": {str(p): ruleset_hash(r) for p, r in rulesets.items()},
        **until,
    }
    if metrics is not None:
        meta["metrics_options"] = metrics.as_dict()
        meta["metrics"] = aggregate(rows, seed)
        # The action table and the rules in play, keyed by player count as text (JSON keys).
        meta["actions"] = {str(p): t for p, t in action_summary(rows).items()}
        meta["rules_in_play"] = {str(p): t for p, t in rules_in_play(
            game, rows, {str(p): r for p, r in rulesets.items()}).items()}
    return _write_study(out_dir, rows, meta, rulesets)


def _chunks(counts: list[int], asked: dict[int, int], played: dict[int, int], workers: int
            ) -> list[tuple[int, list[int]]]:
    """The games still to play, as ``(players, game indices)`` jobs. Small chunks keep every
    worker busy to the end and lose little work on Ctrl-C; large enough that shipping the rows
    back is cheap next to playing the games."""
    batch = max(asked[p] - played[p] for p in counts)
    size = max(1, min(200, batch // (workers * 8) or 1))
    return [(p, list(range(start, min(start + size, asked[p]))))
            for p in counts for start in range(played[p], asked[p], size)]


def _write_study(out_dir: Path, rows: Rows, meta: dict[str, Any],
                 rulesets: dict[int, dict[str, Any]]) -> Path:
    """``ruleset.json``, ``study.json`` and the results file; returns the results' path."""
    (out_dir / RULESET).write_text(
        json.dumps({str(p): r for p, r in rulesets.items()}, indent=2, sort_keys=True) + "\n",
        encoding="utf-8")
    (out_dir / STUDY).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n",
                                 encoding="utf-8")
    path = out_dir / RESULTS
    _write_results(rows, path, meta)
    return path


def load_results(out_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rows of ``results.parquet`` (as dicts, sorted by players and index) and the study's
    metadata, for reports and comparisons."""
    import pyarrow.parquet as pq

    out_dir = Path(out_dir)
    table = pq.read_table(out_dir / RESULTS)
    raw = (table.schema.metadata or {}).get(b"fieldcraft_study")
    meta = json.loads(raw) if raw else {}
    study = out_dir / STUDY
    if study.exists():
        meta = json.loads(study.read_text(encoding="utf-8"))
    rows = table.to_pylist()
    for r in rows:
        raw_metrics = r.get("metrics")
        r["metrics"] = json.loads(raw_metrics) if raw_metrics else None
        raw_unmask = r.get("unmask")  # absent from studies written before it existed
        r["unmask"] = json.loads(raw_unmask) if raw_unmask else None
        raw_actions = r.get("actions")  # likewise absent from older studies
        r["actions"] = json.loads(raw_actions) if raw_actions else None
        raw_counts = r.get("outcome_counts")  # and so are these
        r["outcome_counts"] = json.loads(raw_counts) if raw_counts else None
        for key in _LENGTH_KEYS:  # absent from studies written before they were recorded
            r.setdefault(key, None)
    rows.sort(key=lambda r: (r["players"], r["index"]))
    return rows, meta
