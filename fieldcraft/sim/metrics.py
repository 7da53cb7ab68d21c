"""Designer's metrics of a study: balance, duration, lead changes, drama, decisiveness and
kingmaking, from a per-seat evaluation after every decision.

Why an evaluation: who wins and how long a game lasts say whether a game is fair, not whether it
is tense. Each game's search model already estimates every seat's return (``heuristic_returns``,
used to cut search rollouts short), so every game with one can be traced: the estimate is read
at every decision point and at the end, normalised to win chances per seat (:func:`win_chances`),
and the metrics are read off that series. A decision's effect is the change from its decision
point to the next one, so chance outcomes that follow a decision (a die it rolled) count with it.

Perceived vs. true: the all-seeing evaluation is not what players feel in a hidden-information
game. Each seat's own view is the evaluation averaged over a few ``resample`` s of that seat's
view (what it could know); lead changes, drama and decisiveness are computed from that seat's
series. Resampling costs ``samples`` resamples and evaluations per decision and seat, several
times a decision's own cost, so a study samples: on every ``every``-th game only (the rest still
get the true metrics), and from one seat's view per game, rotating with the game index so every
seat is asked equally often (the mean over games is then the mean over seats). Both numbers are
options, recorded in ``study.json``. Few resamples make each seat's series noisy, which adds
lead changes and makes the winner look behind: at 2 resamples Under Current's perceived drama
read above the true one, at 8 below (issue #33). The default count is the smallest at which
doubling it no longer moves perceived drama and decided-at beyond a quarter of their interval
(:func:`resample_sweep`, :func:`stable_count`; the measurement is in docs/designers.md).

Intervals: rates of games (first mover, kingmaking games) carry Wilson 95% intervals, as the
report's win rates do; means, quantiles and the balance score carry percentile-bootstrap 95%
intervals over games (2,000 resamples, seeded, so a study's figures repeat exactly).
Games whose search model has no evaluation get balance and duration only (all four built-in
games have one).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fieldcraft.core.api import TERMINAL, Game
from fieldcraft.sim.stats import BOOTSTRAP, bootstrap, wilson

Vector = Sequence[float]

HOPELESS = 0.05
"""A seat below this win chance 'cannot win' for kingmaking."""
THRESHOLD = 0.5
"""Decisiveness: the winner counts as settled once its win chance stays at or above this."""
CURVE_POINTS = 11
"""The winner's win chance is kept at this many evenly spaced points of each game (0%..100%)."""
_TIE = 1e-9


@dataclass(frozen=True)
class MetricsOptions:
    """How a study measures: ``samples`` resamples of one seat's view per decision for the
    perceived metrics (0: none), on every ``every``-th game (by game index)."""

    samples: int = 32
    every: int = 4

    def tracer(self, game: Game, index: int, seed: int) -> Tracer:
        """The tracer of game ``index``: perceived from seat ``index // every % players`` on every
        ``every``-th game (so successive perceived games rotate through the seats)."""
        if self.samples > 0 and self.every > 0 and index % self.every == 0:
            seat = index // self.every % game.num_players
            return Tracer(game, self.samples, seed, [seat])
        return Tracer(game, 0, seed)

    def as_dict(self) -> dict[str, int]:
        return {"samples": self.samples, "every": self.every}


# -- evaluation ---------------------------------------------------------------------------------

def win_chances(values: Vector | None, game: Game) -> list[float] | None:
    """``values`` (a state's returns or ``heuristic_returns``) as win chances in [0, 1].

    Returns are scaled from the game's utility range to [0, 1]; in a game where exactly one
    seat wins (the utilities add up to the maximum) they are also made to add up to 1, since a
    heuristic need not be calibrated. ``None`` stays ``None`` (the game has no evaluation).
    """
    return normaliser(game)(values)


def normaliser(game: Game) -> Callable[[Vector | None], list[float] | None]:
    """:func:`win_chances` for one game, with its utility range looked up once (a trace calls
    it at every decision)."""
    info = game._cached_info
    lo, hi = info.min_utility, info.max_utility
    scale = 1.0 / ((hi - lo) or 1.0)
    one_winner = info.utility_sum is not None and abs(info.utility_sum - hi) < _TIE

    def norm(values: Vector | None) -> list[float] | None:
        if values is None:
            return None
        p = [0.0 if v <= lo else 1.0 if v >= hi else (v - lo) * scale for v in values]
        if one_winner:
            total = sum(p)
            if total > 0 and abs(total - 1.0) > _TIE:
                p = [x / total for x in p]
        return p

    return norm


class Tracer:
    """Records the evaluation at every decision point and at the end of one game; pass it as
    ``play_game(..., watch=tracer)``. Its resampling draws from its own generator, so tracing
    never changes the game that is played."""

    def __init__(self, game: Game, samples: int = 0, seed: int = 0,
                 seats: Sequence[int] | None = None):
        self.game = game
        self.norm = normaliser(game)
        self.samples = samples
        self.rng = random.Random(seed ^ 0x5EED_F1E1D)
        self.evals: list[list[float]] = []
        self.movers: list[int] = []
        self.seats = list(range(game.num_players) if seats is None else seats) if samples else []
        self.perceived: list[list[list[float]]] = [[] for _ in self.seats]
        self.available = True
        self.first_mover: int | None = None

    def __call__(self, state: Any, player: int) -> None:
        if player != TERMINAL:
            if self.first_mover is None:
                self.first_mover = player
            self.movers.append(player)
        if not self.available:
            return
        terminal = player == TERMINAL
        true = self.norm(state.returns() if terminal else state.heuristic_returns())
        if true is None:
            self.available = False
            return
        self.evals.append(true)
        for seat, series in zip(self.seats, self.perceived, strict=True):
            series.append(true if terminal else self._view(state, seat))

    def _view(self, state: Any, seat: int) -> list[float]:
        """The evaluation averaged over resamples of what ``seat`` can know."""
        total = [0.0] * self.game.num_players
        for _ in range(self.samples):
            e = self.norm(state.resample(seat, self.rng).heuristic_returns()) or []
            for i, x in enumerate(e):
                total[i] += x
        return [x / self.samples for x in total]

    def metrics(self, winners: Sequence[int]) -> dict[str, Any]:
        """This game's row of metrics (see :func:`game_metrics`)."""
        out = game_metrics(self.evals if self.available else [], self.movers, winners,
                           self.game.num_players,
                           self.perceived if self.available and self.samples else None)
        out["decisions"] = len(self.movers)
        out["first_mover"] = self.first_mover
        return out


# -- one game -----------------------------------------------------------------------------------

def leader(v: Vector) -> int | None:
    """The seat most likely to win, or ``None`` when several share the top."""
    best = max(v)
    top = [s for s, x in enumerate(v) if x >= best - _TIE]
    return top[0] if len(top) == 1 else None


def lead_change_rate(evals: Sequence[Vector]) -> float | None:
    """Share of decisions after which the leading seat differs from the last seat that led.

    ``evals[0]`` is before the first decision and ``evals[i]`` after decision ``i``. A tie at
    the top is no leader: A, tie, B is one change (at B), A, tie, A none.
    """
    if len(evals) < 2:
        return None
    last = leader(evals[0])
    changes = 0
    for v in evals[1:]:
        now = leader(v)
        if now is not None:
            changes += last is not None and now != last
            last = now
    return changes / (len(evals) - 1)


def _winner_value(v: Vector, winners: Sequence[int]) -> float:
    return max(v[w] for w in winners)


def drama(evals: Sequence[Vector], winners: Sequence[int]) -> float | None:
    """Mean over the game (every point but the end) of how far the eventual winner's win chance
    lay below the best other seat's (0 while it led). ``None`` without a winner, or when every
    seat won."""
    n = len(evals[0]) if evals else 0
    others = [s for s in range(n) if s not in set(winners)]
    if len(evals) < 2 or not winners or not others:
        return None
    gaps = [max(0.0, max(v[s] for s in others) - _winner_value(v, winners)) for v in evals[:-1]]
    return sum(gaps) / len(gaps)


def decided_at(evals: Sequence[Vector], winners: Sequence[int],
               threshold: float = THRESHOLD) -> float | None:
    """How far into the game (0 = before the first decision, 1 = the end) the eventual winner's
    win chance rose to ``threshold`` and stayed there to the end; low means decided early."""
    if len(evals) < 2 or not winners:
        return None
    t = len(evals) - 1
    while t > 0 and _winner_value(evals[t - 1], winners) >= threshold:
        t -= 1
    return t / (len(evals) - 1)


def kingmaking_moves(evals: Sequence[Vector], movers: Sequence[int],
                     hopeless: float = HOPELESS) -> tuple[int, int]:
    """(decisions by a seat under ``hopeless`` that changed who is most likely to win to another
    seat, decisions by a seat under ``hopeless``). Only counts for 3+ players: with two, the
    hopeless seat's rival is already the leader."""
    n = len(evals[0]) if evals else 0
    if n < 3:
        return 0, 0
    kings = lows = 0
    for i, mover in enumerate(movers[: len(evals) - 1]):
        before, after = evals[i], evals[i + 1]
        if before[mover] < hopeless:
            lows += 1
            a, b = leader(before), leader(after)
            kings += a is not None and b is not None and a != b and b != mover
    return kings, lows


def winner_curve(evals: Sequence[Vector], winners: Sequence[int],
                 points: int = CURVE_POINTS) -> list[float] | None:
    """The winner's win chance at ``points`` evenly spaced moments of the game."""
    if len(evals) < 2 or not winners:
        return None
    last = len(evals) - 1
    return [_winner_value(evals[round(k * last / (points - 1))], winners) for k in range(points)]


def _seat_mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def game_metrics(evals: Sequence[Vector], movers: Sequence[int], winners: Sequence[int],
                 players: int, perceived: Sequence[Sequence[Vector]] | None = None,
                 threshold: float = THRESHOLD, hopeless: float = HOPELESS) -> dict[str, Any]:
    """Every per-game metric from a traced game (``evals`` empty: the game has no evaluation).

    ``perceived[s]`` is seat ``s``'s own series, as long as ``evals``; its lead changes, drama
    and decisiveness are averaged over seats.
    """
    kings, lows = kingmaking_moves(evals, movers, hopeless) if evals else (0, 0)
    out: dict[str, Any] = {
        "traced": bool(evals),
        "lead_changes": lead_change_rate(evals),
        "drama": drama(evals, winners),
        "decided_at": decided_at(evals, winners, threshold),
        "kingmaking": kings if evals and players >= 3 else None,
        "hopeless_moves": lows if evals and players >= 3 else None,
        "winner_curve": winner_curve(evals, winners),
        "perceived_lead_changes": None,
        "perceived_drama": None,
        "perceived_decided_at": None,
    }
    if perceived:
        out["perceived_lead_changes"] = _seat_mean([lead_change_rate(s) for s in perceived])
        out["perceived_drama"] = _seat_mean([drama(s, winners) for s in perceived])
        out["perceived_decided_at"] = _seat_mean([decided_at(s, winners, threshold)
                                                  for s in perceived])
    return out


# -- a study ------------------------------------------------------------------------------------

def _proportion(k: int, n: int) -> dict[str, float]:
    low, high = wilson(k, n)
    return {"value": k / n if n else 0.0, "low": low, "high": high, "n": n}


def side_rates(rows: list[dict[str, Any]]) -> tuple[list[str], Any, Any]:
    """(sides, present, won): 0/1 matrices games x sides, by label (seats when unlabelled)."""
    import numpy as np

    labelled = any(lab is not None for r in rows for lab in r["labels"])
    if labelled:
        sides = sorted({lab for r in rows for lab in r["labels"] if lab is not None})
    else:
        sides = [f"seat {s}" for s in range(rows[0]["players"])] if rows else []
    index = {s: i for i, s in enumerate(sides)}
    present = np.zeros((len(rows), len(sides)))
    won = np.zeros((len(rows), len(sides)))
    for g, r in enumerate(rows):
        names = r["labels"] if labelled else [f"seat {s}" for s in range(r["players"])]
        for seat, name in enumerate(names):
            if name is None:
                continue
            present[g, index[name]] = 1
            if seat in r["winners"]:
                won[g, index[name]] = 1
    return sides, present, won


def seat_share(rows: list[dict[str, Any]], players: int) -> float:
    """The mean seat win rate of ``rows`` (all at ``players`` players): winners per game over
    seats. It is 1/players only when every game has exactly one winner; in a team game with
    several winners a game it is higher, with games nobody wins lower. Seat and first-mover
    advantage are measured against it, as the seat chart's dashed line is."""
    if not rows or players <= 0:
        return 0.0
    return sum(len(set(r["winners"])) for r in rows) / (len(rows) * players)


def _balance_score(p: Any, w: Any) -> Any:
    """Balance of games x sides matrices (any leading axes: one score per resample)."""
    import numpy as np

    with np.errstate(invalid="ignore", divide="ignore"):
        rates = w.sum(axis=-2) / p.sum(axis=-2)
        return 1 - (np.nanmax(rates, axis=-1) - np.nanmin(rates, axis=-1))


def balance_statistic(rows: list[dict[str, Any]]) -> Callable[[Any], Any] | None:
    """Balance as a function of resampled game indices (an array ``(..., games)`` of indices
    into ``rows``), for a bootstrap over games that another study resamples alike (paired
    comparisons); ``None`` with fewer than two sides."""
    sides, present, won = side_rates(rows)
    if len(sides) < 2:
        return None

    def statistic(idx: Any) -> Any:
        return _balance_score(present[idx], won[idx])

    return statistic


def balance(rows: list[dict[str, Any]], seed: int = 0) -> dict[str, Any] | None:
    """1 - the largest gap between two sides' win rates, with a bootstrap interval over games
    (a side's rate is over the games it played in)."""
    import numpy as np

    sides, present, won = side_rates(rows)
    if len(sides) < 2:
        return None
    score = _balance_score
    idx = np.random.default_rng(seed).integers(0, len(rows), (BOOTSTRAP, len(rows)))
    draws = score(present[idx], won[idx])
    low, high = np.nanquantile(draws, [0.025, 0.975])
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = won.sum(0) / present.sum(0)
    order = np.argsort(np.nan_to_num(rates, nan=-1))
    return {"value": float(score(present, won)), "low": float(low), "high": float(high),
            "best": sides[int(order[-1])], "worst": sides[int(order[0])], "n": len(rows)}


def aggregate(rows: list[dict[str, Any]], seed: int = 0) -> dict[str, dict[str, Any]]:
    """Study-level metrics per player count (keys are counts as strings, as in study.json)."""
    by_count: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_count[r["players"]].append(r)
    out: dict[str, dict[str, Any]] = {}
    for p, games in sorted(by_count.items()):
        ms = [r.get("metrics") or {} for r in games]
        # What every seat would win if seats did not matter: the mean seat win rate, not 1/p,
        # since a team game can have several winners a game (or none) and then every seat
        # would read as ahead (or behind) of 1/p. Advantages then sum to zero.
        even = seat_share(games, p)
        seats = {}
        for seat in range(p):
            rate = _proportion(sum(seat in r["winners"] for r in games), len(games))
            seats[str(seat)] = {**rate, "advantage": rate["value"] - even}
        firsts = [(m.get("first_mover"), r) for m, r in zip(ms, games, strict=True)
                  if m.get("first_mover") is not None]
        first = _proportion(sum(f in r["winners"] for f, r in firsts), len(firsts)) \
            if firsts else None
        if first:
            share = seat_share([r for _, r in firsts], p)  # over the same games
            first["advantage"] = first["value"] - share
            first["even"] = share
        decisions = [m["decisions"] if "decisions" in m else r["length"]
                     for m, r in zip(ms, games, strict=True)]
        entry: dict[str, Any] = {
            "games": len(games),
            "traced": sum(bool(m.get("traced")) for m in ms),
            "perceived_games": sum(m.get("perceived_drama") is not None
                                   or m.get("perceived_lead_changes") is not None for m in ms),
            "balance": balance(games, seed),
            "first_mover": first,
            "seats": seats,
            "duration": {"mean": bootstrap(decisions, "mean", seed),
                         "sd": bootstrap(decisions, "sd", seed),
                         "p95": bootstrap(decisions, "p95", seed)},
        }
        for key in ("lead_changes", "drama", "decided_at"):
            entry[key] = bootstrap([m.get(key) for m in ms], "mean", seed)
            entry[f"perceived_{key}"] = bootstrap([m.get(f"perceived_{key}") for m in ms],
                                                  "mean", seed)
            # perceived - true on the same games: the gap itself, paired, so its interval is
            # not widened by the games only the true metric was measured on
            entry[f"gap_{key}"] = bootstrap(
                [m[f"perceived_{key}"] - m[key] for m in ms
                 if m.get(f"perceived_{key}") is not None and m.get(key) is not None],
                "mean", seed)
        kings = [m for m in ms if m.get("kingmaking") is not None]
        entry["kingmaking"] = None if p < 3 or not kings else {
            "games": _proportion(sum(m["kingmaking"] > 0 for m in kings), len(kings)),
            "per_game": bootstrap([m["kingmaking"] for m in kings], "mean", seed),
            "of_hopeless_moves": _proportion(sum(m["kingmaking"] for m in kings),
                                             sum(m["hopeless_moves"] for m in kings)),
        }
        curves = [m["winner_curve"] for m in ms if m.get("winner_curve")]
        entry["winner_curve"] = [sum(c[k] for c in curves) / len(curves)
                                 for k in range(CURVE_POINTS)] if curves else None
        out[str(p)] = entry
    return out


DEFINITIONS = {
    "balance": "1 − the largest gap between two sides' win rates (1: all sides win equally "
               "often); bootstrap 95% interval over games. Chance widens the gap between the "
               "luckiest and unluckiest side, so with few games balance reads low",
    "first_mover": "win rate of the seat that made the first decision (Wilson 95%), beside an "
                   "even share: the mean seat win rate at that player count (1/players when "
                   "every game has exactly one winner)",
    "duration": "decisions per game (chance outcomes not counted): mean, standard deviation and "
                "95th percentile, bootstrap 95% intervals",
    "lead_changes": "share of decisions after which the seat most likely to win (by the game's "
                    "evaluation) is another than the last one that led",
    "drama": "how far the eventual winner's win chance lay below the best other seat's, "
             "averaged over the game (0: it led throughout)",
    "decided_at": f"how far into the game the eventual winner's win chance reached "
                  f"{THRESHOLD:.0%} and stayed there (0: from the start, 1: only at the end)",
    "kingmaking": f"3+ players: games in which a seat under {HOPELESS:.0%} to win made a move "
                  f"that handed the lead to another seat (Wilson 95%)",
    "perceived": "the same, from each seat's own view: the evaluation averaged over resamples "
                 "of what that seat can see, per seat, then averaged over seats; the gap is "
                 "perceived − true on the same games",
}

# -- how many resamples -------------------------------------------------------------------------

PERCEIVED_KEYS = ("lead_changes", "drama", "decided_at")
SETTLING_KEYS = ("drama", "decided_at")
"""The perceived gaps a resample count must have settled. Perceived lead changes are left out:
each resample's noise adds lead changes, so in Under Current they fall as long as resamples are
added (5 players, perceived - true: +0.42 at 4 resamples, +0.30 at 64, still falling), and the
report's caveat says they read high instead."""
STABLE_SHARE = 0.25
"""A resample count is stable when doubling it moves each settling gap's estimate by less than
this share of the half-width of its 95% interval: more resamples would then change the figure
far less than the games' own noise already does."""


class _Several:
    """Calls several tracers at every decision point of one game (one play, many traces)."""

    def __init__(self, tracers: Sequence[Tracer]):
        self.tracers = tracers

    def __call__(self, state: Any, player: int) -> None:
        for tracer in self.tracers:
            tracer(state, player)


def resample_sweep(game: Game, specs: Sequence[str], seeds: Sequence[int],
                   counts: Sequence[int], seed: int = 0) -> dict[int, dict[str, Any]]:
    """Each perceived gap (perceived - true, per game) at each resample count in ``counts``,
    measured on the same games: each seeded game is played once and traced at every count from
    the same seat (rotating with the game), so the counts differ only in their resamples.
    Returns ``{count: {key: bootstrap mean with interval}}``."""
    from fieldcraft.sim.simulate import play_game

    rows: dict[int, list[dict[str, Any]]] = {k: [] for k in counts}
    for i, game_seed in enumerate(seeds):
        seat = i % game.num_players
        tracers = [Tracer(game, k, game_seed, [seat]) for k in counts]
        state = play_game(game, list(specs), game_seed, trusted=True, watch=_Several(tracers))
        winners = [int(s) for s in state.winners()]
        for k, tracer in zip(counts, tracers, strict=True):
            rows[k].append(tracer.metrics(winners))
    return {k: {key: bootstrap([m[f"perceived_{key}"] - m[key] for m in ms
                                if m[f"perceived_{key}"] is not None and m[key] is not None],
                               "mean", seed) for key in PERCEIVED_KEYS}
            for k, ms in rows.items()}


def stable_count(sweep: dict[int, dict[str, Any]], share: float = STABLE_SHARE,
                 keys: Sequence[str] = SETTLING_KEYS) -> int | None:
    """The smallest resample count of a :func:`resample_sweep` whose every gap in ``keys``
    moves by less than ``share`` of its interval's half-width when the count doubles
    (``None``: none does)."""
    for k in sorted(sweep):
        if 2 * k in sweep and all(_settled(sweep[k][key], sweep[2 * k][key], share)
                                  for key in keys):
            return k
    return None


def _settled(at: dict[str, float] | None, doubled: dict[str, float] | None, share: float
             ) -> bool:
    if at is None or doubled is None:
        return at is None and doubled is None
    half = (doubled["high"] - doubled["low"]) / 2
    return abs(doubled["value"] - at["value"]) <= share * half + _TIE  # a perfect-information
    # game's gap is 0 at every count, with no width at all


DEFAULT_METRICS = MetricsOptions()
"""What a study measures unless told otherwise (see :class:`MetricsOptions`)."""
