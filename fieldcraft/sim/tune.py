"""Tune a ruleset: search rule values for a balance target with Optuna's TPE.

A designer names the rules to vary (``--param hand_size=1..4``, ``--param roles.5.from=3..8``,
``--param green_declaration``), a target (``balance``: all sides' win rates equal;
``side:Yellow=0.2``; ``duration=40`` decisions a game) and a budget of trials. Each trial is a
small balance study of one candidate ruleset, played by the study machinery of
:mod:`fieldcraft.sim.study` (the same chunks, seeds and seat rotation, on local processes or Ray).

Why these choices:

- **Optuna's TPE** (a well-kept library) rather than a hand-written search: it handles integer,
  float and categorical values together, copes with noisy objectives reasonably, and with
  ``constant_liar`` it can keep several trials running at once without proposing the same point
  to all of them.
- **Common random numbers**: every search trial plays the same deals (game ``k`` at ``p``
  players gets the study seed of index ``k``), so two trials differ by their rules, not by luck
  of the deal, and the search compares like with like.
- **Re-evaluation before a best is declared**: the best trial of a noisy search is partly the
  luckiest one (the winner's curse). The top ``k`` distinct rulesets, and the default, are
  re-played on fresh deals (game indices after the search's) with more games, and the best is
  the one with the lowest *re-evaluated* loss. If the default wins that, ``tune`` says so.
- **Equivalent rules are played once**: values that make the same games at the counts played
  (a role joining from 3 or from 4 players, in a 4-5 player search) share one effective key
  (:mod:`fieldcraft.sim.tune_cache`); such a trial takes the first one's result instead of
  replaying its games, and the summary counts the distinct rulesets among the trials.
- **Re-played losses have intervals** (a bootstrap over games within each player count), so
  a best that beats the default by less than the noise can be seen as such.
- **The default is the reference**: it is played first with the search's deals, both to report
  how far the search moved and to check the target against the sides the game really has.

Outputs in ``--out``: ``best.json`` (ruleset overrides: ``load_game(game, players=N,
**json.load(f))`` or ``--set @best.json``), ``trials.csv``/``trials.json`` (every trial and
re-evaluation), ``tune.json`` (settings, best, baseline, re-evaluation table) and
``convergence.png``. Optuna is an optional dependency (the ``study`` extra), imported lazily.
With more than one worker the trials finish in an order that depends on timing, so the sampler
sees them in a different order from run to run: only ``--workers 1`` repeats exactly.

The search space and the target (``--param``, ``--target``) are read in
:mod:`fieldcraft.sim.tune_space`; this module runs the search and writes its files.
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fieldcraft.core.api import FieldcraftError, RulesetError
from fieldcraft.sim.study import (
    _ignore_sigint,
    _play_chunk,
    ray_cluster,
    require_ray,
    validate,
)
from fieldcraft.sim.tune_cache import effective_key, loss_interval
from fieldcraft.sim.tune_space import (
    Measure,
    Param,
    Target,
    TuneError,
    Values,
    apply_values,
    game_metrics,
    prepare,
)
from fieldcraft.sim.tune_space import parse_param as parse_param  # re-exported
from fieldcraft.sim.tune_space import parse_target as parse_target  # re-exported

BEST = "best.json"
TRIALS_CSV = "trials.csv"
TRIALS_JSON = "trials.json"
TUNE = "tune.json"
CHART = "convergence.png"

# A chunk of games small enough to spread one trial over the workers, large enough that
# shipping its rows back costs little next to playing it.
_MIN_CHUNK = 25

Objective = Callable[[Values, int, int], "float | Measure"]  # values, games, first game index
TuneProgress = Callable[[int, int, float | None], None]  # done, total, best loss so far


# --- running trials -------------------------------------------------------------------------


@dataclass
class _Job:
    """One evaluation (a trial or a re-evaluation) whose chunks are in flight."""

    key: Any
    values: Values
    overrides: dict[str, Any] | None
    started: float
    left: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    cache: tuple[str, int, int] | None = None  # (effective ruleset, games, first game)
    # Evaluations of the same effective ruleset submitted while this one plays: (key, values).
    twins: list[tuple[Any, Values]] = field(default_factory=list)


class _Evaluator:
    """Plays evaluations as chunks of games on local processes or Ray, several at a time.

    ``submit`` queues one evaluation; ``collect`` blocks until at least one finishes and
    returns ``(key, values, measure or error, seconds)`` for each. With one local worker
    everything runs in this process at ``submit`` (no pool to start or ship rows through).

    An evaluation of rules that play the same games as one already played or in flight (the
    same :func:`~fieldcraft.sim.tune_cache.effective_key` on the same deals) is not played
    again: it gets that one's result, and ``info[key]`` says which (``same_as``) beside its
    ``effective`` key. With a ``target``, a re-evaluation's measure carries the loss's
    bootstrap interval (``loss_low``, ``loss_high``).
    """

    def __init__(self, game: str, counts: list[int], agents: list[str], seed: int,
                 params: Sequence[Param], base: dict[str, Any], defaults: dict[str, Any],
                 workers: int, ray: Any = None, objective: Objective | None = None,
                 target: Target | None = None) -> None:
        self.game, self.counts, self.agents, self.seed = game, counts, agents, seed
        self.params, self.base, self.defaults = params, base, defaults
        self.workers, self.ray, self.objective = workers, ray, objective
        self.target = target
        self.results: dict[tuple[str, int, int], tuple[Any, Measure | str]] = {}
        self.playing: dict[tuple[str, int, int], _Job] = {}
        self.info: dict[Any, dict[str, Any]] = {}
        self.pool: ProcessPoolExecutor | None = None
        if objective is None and ray is None and workers > 1:
            self.pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
        self.remote = ray.remote(num_cpus=1)(_play_chunk) if ray is not None else None
        self.pending: dict[Any, _Job] = {}  # future or ray ref -> its job
        self.ready: list[tuple[Any, Values, Measure | str, float]] = []

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def _finish(self, job: _Job) -> None:
        seconds = time.perf_counter() - job.started
        result: Measure | str
        if job.error is not None:
            result = job.error
        else:
            job.rows.sort(key=lambda r: (r["players"], r["index"]))
            result = game_metrics(job.rows, self.counts)
            if self.target is not None and isinstance(job.key, tuple):  # a re-evaluation
                interval = loss_interval(job.rows, self.counts, self.target, self.seed)
                if interval is not None:
                    result["loss_low"], result["loss_high"] = interval[1:]
        self.ready.append((job.key, job.values, result, seconds))
        if job.cache is not None:
            self.playing.pop(job.cache, None)
            self.results[job.cache] = (job.key, result)
            for key, values in job.twins:
                self.ready.append((key, values, _copy(result), 0.0))

    def _reuse(self, key: Any, values: Values, rulesets: dict[int, dict[str, Any]],
               games: int, first: int) -> tuple[str, int, int] | None:
        """Answer an evaluation whose effective ruleset was played (or is playing) on these
        deals from that result and return None; else the cache key it will be kept under."""
        cache = (effective_key(rulesets), games, first)
        self.info[key] = {"effective": cache[0], "same_as": None}
        if cache in self.results:
            twin, result = self.results[cache]
            self.info[key]["same_as"] = _name(twin)
            self.ready.append((key, values, _copy(result), 0.0))
            return None
        if cache in self.playing:
            self.info[key]["same_as"] = _name(self.playing[cache].key)
            self.playing[cache].twins.append((key, values))
            return None
        return cache

    def submit(self, key: Any, values: Values, games: int, first: int,
               overrides: dict[str, Any] | None = None) -> None:
        """Evaluate ``values`` (or explicit ``overrides``) on games ``first .. first+games-1``
        at every player count."""
        job = _Job(key, values, overrides, time.perf_counter())
        if self.objective is not None:
            try:
                out = self.objective(values, games, first)
            except (FieldcraftError, ValueError) as exc:
                job.error = str(exc)
                self._finish(job)
                return
            measure = dict(out) if isinstance(out, dict) else {"loss": float(out)}
            self.ready.append((key, values, measure, time.perf_counter() - job.started))
            return
        if overrides is None:
            overrides = apply_values(self.params, values, self.base, self.defaults)
        job.overrides = overrides
        try:
            rulesets = validate(self.game, self.counts, overrides)
        except RulesetError as exc:
            job.error = str(exc)
            self._finish(job)
            return
        job.cache = self._reuse(key, values, rulesets, games, first)
        if job.cache is None:
            return
        self.playing[job.cache] = job
        per = max(1, min(self.workers, games // _MIN_CHUNK))
        size = math.ceil(games / per)
        chunks = [(p, list(range(start, min(start + size, first + games))))
                  for p in self.counts for start in range(first, first + games, size)]
        job.left = len(chunks)
        for p, indices in chunks:
            args = (self.game, p, overrides, self.agents, self.seed, indices)
            if self.remote is not None:
                self.pending[self.remote.remote(*args)] = job
            elif self.pool is not None:
                self.pending[self.pool.submit(_play_chunk, *args)] = job
            else:
                self._chunk_done(job, lambda a=args: _play_chunk(*a))

    def _chunk_done(self, job: _Job, result: Callable[[], list[dict[str, Any]]]) -> None:
        try:
            job.rows.extend(result())
        except (FieldcraftError, ValueError) as exc:  # a rule value the game rejects in play
            job.error = job.error or str(exc)
        job.left -= 1
        if job.left == 0:
            self._finish(job)

    def collect(self) -> list[tuple[Any, Values, Measure | str, float]]:
        while not self.ready and self.pending:
            if self.remote is not None:
                done, _ = self.ray.wait(list(self.pending), num_returns=1, timeout=0.2)
                for ref in done:
                    self._chunk_done(self.pending.pop(ref), lambda r=ref: self.ray.get(r))
            else:
                finished, _ = wait(list(self.pending), return_when=FIRST_COMPLETED)
                for fut in finished:
                    future: Future[list[dict[str, Any]]] = fut
                    self._chunk_done(self.pending.pop(fut), future.result)
        out, self.ready = self.ready, []
        return out


def _copy(result: Measure | str) -> Measure | str:
    """A reused result as its own object, so no record shares a dict with another."""
    return result if isinstance(result, str) else json.loads(json.dumps(result))


def _name(key: Any) -> Any:
    """An evaluation's key as the records name it: a trial number, "default", or
    "re-eval N" for a re-evaluation."""
    return f"re-eval {key[1]}" if isinstance(key, tuple) else key


# --- the search -----------------------------------------------------------------------------


def tune(game: str, players: Sequence[int], params: Sequence[str | Param], target: str | Target,
         trials: int, out_dir: Path, *, games_per_trial: int = 200, agents: str | list[str] =
         "heuristic", seed: int = 0, overrides: dict[str, Any] | None = None,
         workers: int | None = 1, ray_address: str | None = None, top_k: int = 3,
         reeval_games: int | None = None, objective: Objective | None = None,
         progress: TuneProgress | None = None) -> dict[str, Any]:
    """Search ``params`` for ``target`` in ``trials`` trials, re-evaluate the best, write files.

    Each trial plays ``games_per_trial`` games per player count (the same deals every trial),
    with ``agents`` (seat-rotated, as in a study), on ``workers`` local processes or on Ray at
    ``ray_address``. The top ``top_k`` distinct rulesets and the default are then re-played on
    ``reeval_games`` fresh games each (default 4 × ``games_per_trial``) and the lowest
    re-evaluated loss is the best. ``objective(values, games, first_index)`` replaces the games
    with a function returning a loss (or a dict with ``"loss"``), for tests and toy problems.
    ``progress(done, total, best_loss)`` is called as evaluations finish. Returns the summary
    also written to ``tune.json``.
    """
    optuna = _import_optuna()
    if trials < 1:
        raise TuneError("--trials must be at least 1")
    if games_per_trial < 1:
        raise TuneError("--games-per-trial must be at least 1")
    counts = sorted(set(players))
    base = dict(overrides or {})
    specs = [agents] if isinstance(agents, str) else list(agents)
    space, target, defaults = prepare(game, counts, params, target, base, specs,
                                      toy=objective is not None)
    reeval = reeval_games if reeval_games is not None else 4 * games_per_trial
    workers = max(1, workers or 1)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    default_values = {p.key: p.default for p in space}

    study = _new_study(optuna, seed, trials)
    total = 1 + trials + min(top_k, trials) + (1 if reeval > 0 else 0)
    record = _Recorder(target, total, progress)

    def evaluator(count: int, ray: Any) -> _Evaluator:
        return _Evaluator(game, counts, specs, seed, space, base, defaults, count, ray, objective,
                          target)

    def search(ev: _Evaluator) -> dict[str, Any]:
        return _search(study, optuna, ev, space, target, trials, games_per_trial, reeval, top_k,
                       default_values, record)

    summary, backend = _on_backend(evaluator, search, workers, ray_address, objective is None)
    if progress is not None:  # fewer distinct rulesets to re-play than planned
        progress(total, total, record.best_loss)
    best_values = summary["best"]["values"]
    best_overrides = (apply_values(space, best_values, base, defaults) if objective is None
                      else {**base, **best_values})
    meta = {
        "game": game, "players": counts, "agents": specs, "seed": seed, "target": str(target),
        "trials": trials, "games_per_trial": games_per_trial, "reeval_games": reeval,
        "top_k": top_k, "overrides": base, **backend,
        "params": [{"key": p.key, "kind": p.kind, "default": p.default, "low": p.low,
                    "high": p.high, "choices": list(p.choices)} for p in space],
        **summary, "best_overrides": best_overrides,
    }
    _write_files(out_dir, meta, record.rows, space)
    return meta


def _import_optuna() -> Any:
    try:
        import optuna
    except ImportError as exc:
        raise FieldcraftError(
            f"tune needs the study extra (pip install -e '.[study]'): {exc}") from None
    return optuna


def _new_study(optuna: Any, seed: int, trials: int) -> Any:
    """TPE with a constant liar (several trials may be in flight), seeded."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed, constant_liar=True,
                                         n_startup_trials=min(10, max(2, trials // 4)))
    return optuna.create_study(direction="minimize", sampler=sampler)


def _on_backend(evaluator: Callable[[int, Any], _Evaluator],
                search: Callable[[_Evaluator], dict[str, Any]], workers: int,
                ray_address: str | None, games: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """``search`` run with an evaluator on Ray at ``ray_address`` (``workers`` tasks at once,
    or one per CPU of the cluster) or on ``workers`` local processes: its summary, and the
    backend as ``tune.json`` records it. ``games``: real games are played (not an injected
    objective), so Ray must be installed."""
    if ray_address is not None:
        if games:
            require_ray()
        with ray_cluster(ray_address, workers if workers > 1 else None) as (ray, cpus):
            backend = {"backend": "ray", "ray_address": ray_address, "ray_cpus": cpus}
            return search(evaluator(workers if workers > 1 else cpus, ray)), backend
    ev = evaluator(workers, None)
    backend = {"backend": "local", "workers": workers}
    try:
        return search(ev), backend
    finally:
        ev.close()


class _Recorder:
    """Each evaluation's row (``trials.csv``/``trials.json``) and its loss for ``target``,
    with the best search loss so far told to ``progress`` (done, total, best)."""

    def __init__(self, target: Target, total: int, progress: TuneProgress | None) -> None:
        self.target = target
        self.total = total
        self.progress = progress
        self.rows: list[dict[str, Any]] = []
        self.best_loss: float | None = None

    def __call__(self, phase: str, number: int | None, values: Values, result: Measure | str,
                 seconds: float, info: dict[str, Any] | None = None) -> float | None:
        """Record one evaluation (``info``: its effective ruleset and the evaluation whose
        result it reused, see :class:`_Evaluator`); its loss, or None if it failed or has no
        value."""
        target = self.target
        row: dict[str, Any] = {"phase": phase, "trial": number, "values": dict(values),
                               "seconds": round(seconds, 3), **(info or {})}
        loss = None
        if isinstance(result, str):
            row.update(state="fail", error=result, loss=None)
        else:
            loss = float(result["loss"]) if "loss" in result else target.loss(result)
            if math.isnan(loss):  # e.g. the rules removed the side the target names
                row.update(state="fail", error=f"no value for target {target}", loss=None,
                           metrics=result)
                loss = None
            else:
                row.update(state="ok", loss=loss, metrics=result)
            if phase == "search" and loss is not None:
                self.best_loss = loss if self.best_loss is None else min(self.best_loss, loss)
        self.rows.append(row)
        if self.progress is not None:
            self.progress(len(self.rows), self.total, self.best_loss)
        return loss


def _search(study: Any, optuna: Any, ev: _Evaluator, space: Sequence[Param], target: Target,
            trials: int, games: int, reeval: int, top_k: int, default_values: Values,
            record: _Recorder) -> dict[str, Any]:
    """The default first, then ``trials`` TPE trials (several in flight when the evaluator
    has workers to fill), then the re-evaluation of the top ``k`` and the default."""
    clock = [time.perf_counter()]
    base_loss = _play_default(study, optuna, ev, space, target, games, default_values, record)
    clock.append(time.perf_counter())
    interrupted = not _run_trials(study, optuna, ev, space, trials, games, record)
    if interrupted:  # Ctrl-C: keep the finished trials, skip the re-play, write what there is
        reeval = 0
    clock.append(time.perf_counter())
    best, table = _reevaluate(ev, record, default_values, base_loss, top_k, reeval, games)
    clock.append(time.perf_counter())
    default_row = next((t for t in table if t["trial"] == "default"), None)
    return {
        "best": {"trial": best["trial"], "values": best["values"],
                 "search_loss": best["search_loss"], "reeval_loss": best["reeval_loss"],
                 "reeval_interval": best.get("reeval_interval"),
                 "metrics": best.get("metrics")},
        "default": {"values": default_values, "search_loss": base_loss,
                    "reeval_loss": default_row["reeval_loss"] if default_row else None,
                    "reeval_interval": default_row["reeval_interval"] if default_row
                    else None},
        "distinct": _distinct(record.rows),
        "improved": best["trial"] != "default",
        "interrupted": interrupted,
        "reevaluation": table,
        # Wall seconds of each phase (the search's is what more workers should shorten).
        "seconds": {"default": round(clock[1] - clock[0], 3),
                    "search": round(clock[2] - clock[1], 3),
                    "reeval": round(clock[3] - clock[2], 3)},
    }


def _play_default(study: Any, optuna: Any, ev: _Evaluator, space: Sequence[Param],
                  target: Target, games: int, default_values: Values, record: _Recorder
                  ) -> float | None:
    """Play the default rules on the search's deals and tell the sampler its loss (when the
    default lies inside the search space); returns that loss."""
    ev.submit("default", default_values, games, 0)
    ((_, _, result, seconds),) = ev.collect()
    if isinstance(result, str):
        raise TuneError(f"the default ruleset could not be played: {result}")
    if "loss" not in result:
        target.check(result)
    base_loss = record("default", None, default_values, result, seconds,
                       ev.info.get("default"))
    internal = {p.key: p.internal(p.default) for p in space}
    if all(v is not None for v in internal.values()) and base_loss is not None:
        study.add_trial(optuna.trial.create_trial(
            params=internal, distributions={p.key: p.distribution() for p in space},
            value=base_loss, user_attrs={"default": True}))
    return base_loss


def _run_trials(study: Any, optuna: Any, ev: _Evaluator, space: Sequence[Param], trials: int,
                games: int, record: _Recorder) -> bool:
    """The TPE trials, several in flight when the evaluator has workers to fill; False if
    Ctrl-C cut them short (the finished ones are kept)."""
    # Enough trials in flight to keep every worker busy between one trial's end and the next.
    chunks = max(1, min(ev.workers, games // _MIN_CHUNK)) * len(ev.counts)
    in_flight = 1 if ev.pool is None and ev.remote is None else \
        math.ceil(ev.workers / chunks) + 1
    asked = 0
    live: dict[int, Any] = {}
    try:
        while asked < trials or live:
            while asked < trials and len(live) < in_flight:
                trial = study.ask()
                values = {p.key: p.suggest(trial) for p in space}
                live[trial.number] = trial
                asked += 1
                ev.submit(trial.number, values, games, 0)
            for number, values, result, seconds in ev.collect():
                trial = live.pop(number)
                loss = record("search", number, values, result, seconds, ev.info.get(number))
                if loss is None or math.isnan(loss):
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    study.tell(trial, loss)
    except KeyboardInterrupt:
        return False
    return True


def _reevaluate(ev: _Evaluator, record: _Recorder, default_values: Values,
                base_loss: float | None, top_k: int, reeval: int, games: int
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Re-play the top ``top_k`` distinct rulesets of the search and the default on fresh
    deals (``reeval`` games each, after the search's ``games``): the best and the table.
    Without a re-play the best is the lowest search loss."""
    candidates = [("default", default_values, base_loss)] + [
        (r["trial"], r["values"], r["loss"]) for r in _top(record.rows, default_values, top_k)]
    table = []
    if reeval <= 0:
        best = min(({"trial": k, "values": v, "search_loss": s, "reeval_loss": None}
                    for k, v, s in candidates),
                   key=lambda t: math.inf if t["search_loss"] is None else t["search_loss"])
        return best, table
    search_loss = {}
    for key, values, loss in candidates:
        search_loss[str(key)] = loss
        ev.submit(("reeval", key), values, reeval, games)
    results = []
    while len(results) < len(candidates):
        results += ev.collect()
    for (_, key), values, result, seconds in results:
        loss = record("re-eval", None if key == "default" else key, values, result, seconds,
                      ev.info.get(("reeval", key)))
        table.append({"trial": key, "values": values, "search_loss": search_loss[str(key)],
                      "reeval_loss": loss, "reeval_interval": _interval(result, loss),
                      "metrics": None if isinstance(result, str) else result})
    order = {str(k): i for i, (k, _, _) in enumerate(candidates)}
    table.sort(key=lambda t: order[str(t["trial"])])
    ranked = [t for t in table if t["reeval_loss"] is not None]
    return (min(ranked, key=lambda t: t["reeval_loss"]) if ranked else table[0]), table


def _interval(result: Measure | str, loss: float | None) -> list[float] | None:
    """A re-played loss's 95% interval ``[low, high]``, when its games gave one."""
    if isinstance(result, str) or loss is None or "loss_low" not in result:
        return None
    return [result["loss_low"], result["loss_high"]]


def _distinct(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many search trials there were, how many distinct rulesets in effect they played
    (the default's among them when a trial repeats it), and how many reused a result instead
    of playing games; re-evaluations likewise."""
    search = [r for r in records if r["phase"] == "search"]
    reeval = [r for r in records if r["phase"] == "re-eval"]
    return {"trials": len(search),
            "distinct": len({r.get("effective") or json.dumps(r["values"], sort_keys=True)
                             for r in search}),
            "reused": sum(r.get("same_as") is not None for r in search),
            "reevaluations": len(reeval),
            "reevaluations_reused": sum(r.get("same_as") is not None for r in reeval)}


def _top(records: list[dict[str, Any]], default_values: Values, top_k: int
         ) -> list[dict[str, Any]]:
    """The ``top_k`` best distinct search trials. Trials that played the same deals to the very
    same results are one ruleset in effect (e.g. a card added only from 7 players, in a study
    of 3-6): one of them is re-played, the one that changes the fewest rules from the default,
    so the others' places go to rivals. Trials whose effective ruleset is the default's are
    left out: the default is re-played anyway."""
    def changed(values: Values) -> int:
        return sum(values[k] != v for k, v in default_values.items())

    seen: dict[str, dict[str, Any]] = {}
    effective = {r.get("effective") for r in records if r["phase"] == "default"} - {None}
    ok = [r for r in records if r["phase"] == "search" and r["loss"] is not None
          and not math.isnan(r["loss"])]
    for r in sorted(ok, key=lambda r: (r["loss"], changed(r["values"]), r["trial"])):
        same = {k: v for k, v in r["metrics"].items() if k != "seconds"} \
            if "loss" not in r["metrics"] else r["values"]
        if r.get("effective") in effective:
            continue
        if r.get("effective") is not None:
            effective.add(r["effective"])
        seen.setdefault(json.dumps(same, sort_keys=True), r)
    return list(seen.values())[:top_k]


# --- files ----------------------------------------------------------------------------------


def _write_files(out_dir: Path, meta: dict[str, Any], records: list[dict[str, Any]],
                 space: Sequence[Param]) -> None:
    """``best.json``, ``tune.json``, ``trials.csv``/``trials.json`` and the chart."""
    (out_dir / BEST).write_text(json.dumps(meta["best_overrides"], indent=2, sort_keys=True)
                                + "\n", encoding="utf-8")
    (out_dir / TUNE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n",
                                encoding="utf-8")
    _write_trials(records, space, out_dir)
    _chart(records, meta, out_dir / CHART)


def _write_trials(records: list[dict[str, Any]], space: Sequence[Param], out_dir: Path) -> None:
    """``trials.json`` as recorded; ``trials.csv`` flat: one column per rule and per measure."""
    (out_dir / TRIALS_JSON).write_text(json.dumps(records, indent=2, sort_keys=True) + "\n",
                                       encoding="utf-8")
    extra: list[str] = []
    flat_rows = []
    for r in records:
        flat: dict[str, Any] = {"phase": r["phase"], "trial": r["trial"], "state": r["state"],
                                "loss": r["loss"], "seconds": r["seconds"],
                                "same_as": r.get("same_as")}
        for p in space:
            v = r["values"].get(p.key)
            flat[p.key] = json.dumps(v) if isinstance(v, (bool, list, dict)) else v
        m = r.get("metrics") or {}
        for p in m.get("players", []):
            flat[f"gap@{p}"] = round(m["gap"][str(p)], 4)
            flat[f"mean_length@{p}"] = round(m["mean_length"][str(p)], 2)
            for label, rate in sorted(m["rates"][str(p)].items()):
                flat[f"{label}@{p}"] = round(rate, 4)
        for k, v in m.items():
            if k not in ("players", "games", "rates", "gap", "mean_length", "loss") and \
                    isinstance(v, (int, float)):
                flat[k] = v
        flat["error"] = r.get("error", "")
        extra += [k for k in flat if k not in extra]
        flat_rows.append(flat)
    with (out_dir / TRIALS_CSV).open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=extra)
        writer.writeheader()
        writer.writerows(flat_rows)


def _chart(records: list[dict[str, Any]], meta: dict[str, Any], path: Path) -> None:
    """Left: each trial's loss and the best so far, the default's loss as a line, and the
    re-evaluated losses; right: loss against each tuned rule (up to three)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    search = [r for r in records if r["phase"] == "search" and r["loss"] is not None]
    params = meta["params"][:3]
    fig, axes = plt.subplots(1, 1 + len(params), figsize=(6 + 3.2 * len(params), 4),
                             squeeze=False)
    ax = axes[0][0]
    xs = [r["trial"] for r in search]
    ys = [r["loss"] for r in search]
    ax.scatter(xs, ys, s=14, color="tab:blue", label="trial")
    best, line = math.inf, []
    for y in ys:
        best = min(best, y)
        line.append(best)
    ax.step(xs, line, where="post", color="tab:blue", label="best so far")
    d = meta["default"]
    if d["search_loss"] is not None:
        ax.axhline(d["search_loss"], color="grey", linestyle="--", label="default")
    top = [t for t in meta["reevaluation"] if t["trial"] != "default" and t["reeval_loss"]
           is not None]
    if top:
        ax.scatter([t["trial"] for t in top], [t["reeval_loss"] for t in top], marker="D",
                   s=40, facecolors="none", edgecolors="tab:red",
                   label=f"re-evaluated ({meta['reeval_games']} games, 95% interval)")
        for t in top:
            if t.get("reeval_interval"):
                ax.vlines(t["trial"], *t["reeval_interval"], color="tab:red", linewidth=1)
    if d["reeval_loss"] is not None:
        ax.axhline(d["reeval_loss"], color="tab:red", linestyle=":", linewidth=1,
                   label="default re-evaluated")
    ax.set_xlabel("trial")
    ax.set_ylabel(f"loss (target {meta['target']}; 0 is on target)")
    b = meta["best"]
    fig.suptitle(f"tune {meta['game']} at {','.join(map(str, meta['players']))} players, "
                 f"target {meta['target']}: best {json.dumps(b['values'])}", fontsize=10)
    ax.set_title("loss per trial (lower is better)", fontsize=9)
    ax.legend(fontsize=7)
    for ax, p in zip(axes[0][1:], params, strict=True):
        vals = [r["values"][p["key"]] for r in search]
        if p["kind"] == "choice":
            labels = [json.dumps(c) for c in p["choices"]]
            vals = [labels.index(json.dumps(v)) for v in vals]
            ax.set_xticks(range(len(labels)), labels, fontsize=7)
        elif p["kind"] == "int":
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.scatter(vals, ys, s=14, color="tab:blue")
        if p["kind"] != "choice" or p["default"] in p["choices"]:
            dv = p["default"] if p["kind"] != "choice" else \
                [json.dumps(c) for c in p["choices"]].index(json.dumps(p["default"]))
            ax.axvline(dv, color="grey", linestyle="--", linewidth=1)
        ax.set_xlabel(f"{p['key']} (dashed: default)")
        ax.set_ylabel("loss")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
