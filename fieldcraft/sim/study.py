"""Balance studies: many bot games of one ruleset, saved one row per game for later reports.

A study is meant to be compared with another study of a changed ruleset, so it must be exactly
repeatable: game ``k`` at ``p`` players always gets the same seed and the same seat-rotated agents,
whichever worker plays it and in whatever order, and the rows are sorted before they are written.
Results go to ``results.parquet`` (one row per game) with the full resolved ruleset beside it in
``ruleset.json``, so a report can say exactly which rules produced the numbers.

pyarrow is an optional dependency (the ``study`` extra) and is imported only when a study is
written, so the core package installs light.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from fieldcraft.agents import make_agent
from fieldcraft.core.api import Game, RulesetError
from fieldcraft.core.registry import load_game
from fieldcraft.sim.simulate import game_seed, play_game

RESULTS = "results.parquet"
RULESET = "ruleset.json"
STUDY = "study.json"

# Outcome keys that hold per-seat scores, in order of preference (games name them differently).
_SCORE_KEYS = ("scores", "points")
# Outcome keys that say how a game ended ("ended_by" is Undercover's name for "ending").
_ENDING_KEYS = ("ending", "ended_by")

Progress = Callable[[int, int], None]


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
         rhash: str) -> dict[str, Any]:
    state = play_game(game, specs, seed, trusted=True)
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
        "ending": str(ending) if ending is not None else None,
        "decided_by": str(decided) if decided is not None else None,
    }


_GAMES: dict[tuple[str, int, str], Game] = {}


def _play_chunk(name: str, players: int, overrides: dict[str, Any], agents: list[str],
                seed: int, indices: list[int]) -> list[dict[str, Any]]:
    """Play games ``indices`` at ``players`` players (runs in a worker; the game is built once per
    process and reused, since building it re-validates the ruleset)."""
    key = (name, players, json.dumps(overrides, sort_keys=True))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_game(name, players=players, **overrides)
    rhash = ruleset_hash(game.ruleset)
    return [
        _row(game, name, players, k, study_seed(seed, players, k),
             seat_specs(agents, players, k), rhash)
        for k in indices
    ]


def _ignore_sigint() -> None:
    """Workers ignore Ctrl-C so only the parent handles it: it cancels queued chunks and keeps
    every finished one, instead of the pool breaking with a traceback from each worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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
        ("ending", pa.string()),
        ("decided_by", pa.string()),
    ], metadata={b"fieldcraft_study": json.dumps(meta, sort_keys=True).encode()})
    table = pa.Table.from_pylist(rows, schema=schema)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def run_study(game: str, players: list[int], agents: str | list[str], games: int, seed: int,
              overrides: dict[str, Any] | None, workers: int | None, out_dir: Path,
              progress: Progress | None = None) -> Path:
    """Play ``games`` games per player count and write ``out_dir/results.parquet``.

    Also writes ``ruleset.json`` (full resolved ruleset per player count) and ``study.json``
    (game, agents, seed, games asked for and played, overrides, whether it was interrupted).
    ``workers`` local processes play chunks of games (default ``os.cpu_count()``; 1 plays in
    this process); results do not depend on it. ``progress(done, total)`` is called as games
    finish. Ctrl-C cancels queued games, keeps the finished ones and writes them, then re-raises
    nothing: the returned file holds what was played (``study.json`` says ``interrupted``).
    """
    overrides = dict(overrides or {})
    specs = [agents] if isinstance(agents, str) else list(agents)
    if not specs:
        raise ValueError("a study needs at least one agent spec")
    if games < 0:
        raise ValueError(f"games must be >= 0, got {games}")
    counts = sorted(set(players))
    rulesets = validate(game, counts, overrides, specs)
    workers = max(1, workers or os.cpu_count() or 1)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    total = games * len(counts)
    # Small chunks keep both cores busy to the end and lose little work on Ctrl-C; large enough
    # that pickling the rows is cheap next to playing the games.
    size = max(1, min(200, games // (workers * 8) or 1))
    jobs = [(p, list(range(start, min(start + size, games))))
            for p in counts for start in range(0, games, size)]
    rows: list[dict[str, Any]] = []
    interrupted = False

    def done(chunk: list[dict[str, Any]]) -> None:
        rows.extend(chunk)
        if progress is not None:
            progress(len(rows), total)

    try:
        if workers == 1:
            for p, indices in jobs:
                done(_play_chunk(game, p, overrides, specs, seed, indices))
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint) as pool:
                pending: set[Future[list[dict[str, Any]]]] = {
                    pool.submit(_play_chunk, game, p, overrides, specs, seed, indices)
                    for p, indices in jobs
                }
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
                            rows.extend(future.result())
                    raise
    except KeyboardInterrupt:
        interrupted = True
    rows.sort(key=lambda r: (r["players"], r["index"]))
    meta = {
        "game": game,
        "players": counts,
        "agents": specs,
        "games": games,
        "games_played": len(rows),
        "seed": seed,
        "overrides": overrides,
        "workers": workers,
        "interrupted": interrupted,
        "ruleset_hash": {str(p): ruleset_hash(r) for p, r in rulesets.items()},
    }
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
    rows.sort(key=lambda r: (r["players"], r["index"]))
    return rows, meta
