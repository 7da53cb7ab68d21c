"""Is each bot level stronger than the one below it? Easy vs Normal, Normal vs Strong.

Why this design: a level ladder is only honest if every step up wins, and a win rate from a
few dozen games is mostly noise unless the luck is shared. So the two levels of a pair play the
*same deals* both ways round (paired seeds): each deal is played once with the lower level in
each seat arrangement and once with the higher, and the deal's luck cancels in the comparison.

* Two players: per deal, the pair plays twice, swapping seats. The higher level's win rate is
  over all 2N games.
* More players (Under Current starts at three): per deal and seat ``r``, one game with the
  higher level alone at seat ``r`` among the lower level, and one with the lower level alone at
  ``r`` among the higher. Each side's figure is its win rate as the lone seat; in a team game
  one seat cannot decide the result alone, so the two lone rates are compared with each other.

Each rate has a Wilson 95% interval. The test is an exact two-sided sign test on the paired
deals (McNemar's exact test in the two-player case): per deal, the higher level's total score
minus the lower's over the games of that deal; deals where the difference is zero say nothing
about which is stronger and are dropped, the others are ``+`` or ``-``.

    python benchmarks/levels.py against-the-current --players 2 --games 100
    python benchmarks/levels.py under-current --games 40 --pair normal-strong --json
    python benchmarks/levels.py undercover --games 50 --spec strong="ismcts(iterations=4000)"

``--games`` counts deals; a two-player pair plays two games a deal, an n-player pair 2n.
Measure on the compiled build (``PYTHONPATH`` at the checkout, no ``FIELDCRAFT_PURE``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from fieldcraft.agents import make_agent, parse_agent_spec
from fieldcraft.agents.levels import LEVEL_TABLE, LEVELS, level_spec
from fieldcraft.core.registry import game_spec, load_game
from fieldcraft.sim.simulate import game_seed, play_game
from fieldcraft.sim.stats import wilson

PAIRS: tuple[tuple[str, str], ...] = tuple(zip(LEVELS, LEVELS[1:], strict=False))
"""Adjacent levels, lower first: (easy, normal), (normal, strong)."""


def sign_test(plus: int, minus: int) -> float:
    """Exact two-sided binomial p-value of ``plus`` against ``minus`` at even odds."""
    n = plus + minus
    if n == 0:
        return 1.0
    k = min(plus, minus)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def _deal_games(players: int, low: str, high: str, baseline: bool = False
                ) -> list[tuple[list[str], int, str]]:
    """The games of one deal: (specs by seat, the seat scored, which side that seat is).
    With ``baseline`` (more than two players) the lower side's games are one all-lower game
    scored at every seat (listed once per seat; the caller plays it once)."""
    if players == 2:
        return [([low, high], 1, "high"), ([high, low], 0, "high")]
    games = []
    for r in range(players):
        lone_high = [low] * players
        lone_high[r] = high
        lone_low = [low] * players if baseline else [high] * players
        if not baseline:
            lone_low[r] = low
        games += [(lone_high, r, "high"), (lone_low, r, "low")]
    return games


def capped(spec: str, seconds: float) -> str:
    """``spec`` stopped at ``seconds`` of wall time a move, as the web stops a level's search
    (:func:`fieldcraft.agents.levels.time_cap`): only a search with an unset ``time`` budget
    is capped (ISMCTS, the rollouts); the others (the expectimax, the heuristic) are as they
    are. The table's budgets are measured uncapped; this measures what a person playing on a
    busy server meets."""
    if getattr(make_agent(spec), "time", False) is not None:
        return spec
    name, options = parse_agent_spec(spec)
    options["time"] = seconds
    return f"{name}({', '.join(f'{k}={v}' for k, v in options.items())})"


def at_cap(move_times: list[float], cap: float | None) -> int | None:
    """Moves that took 90% of ``cap`` or more (a stopped search ends a little before its
    deadline: on a forecast of its next round, or within a few iterations of it)."""
    return None if cap is None else sum(t >= 0.9 * cap for t in move_times)


class MoveClock:
    """Seconds one seat takes per decision with a real choice: from the call at its decision
    to the next call (its agent's ``act``, the move and any chance draws after it, which are
    cheap). ``play_game`` calls it at every decision; it changes nothing in the game."""

    def __init__(self, seat: int):
        self.seat = seat
        self.times: list[float] = []
        self._start: float | None = None

    def __call__(self, state: Any, player: int) -> None:
        if self._start is not None:
            self.times.append(time.perf_counter() - self._start)
            self._start = None
        if player == self.seat and len(state.legal_actions()) > 1:
            self._start = time.perf_counter()


def measure_pair(game_id: str, players: int, low: str, high: str, deals: int, seed: int = 0,
                 specs: dict[str, str] | None = None, progress: bool = False,
                 baseline: bool = False, one_seat: bool = False, first: int = 0,
                 cap: float | None = None) -> dict[str, Any]:
    """Play ``deals`` paired deals of level ``low`` against level ``high`` (see the module
    docstring); ``specs`` overrides a level's spec, to measure a candidate before it goes into
    the table. A level's spec is the table's for this player count. ``first`` skips that many
    deals of the seed's sequence, so one run can be split over processes and merged by deal
    (``per_deal`` pairs each deal with another probe's results on the same dice). ``cap``
    stops the higher level's search at that many seconds a move (:func:`capped`)."""
    chosen = {lv: (specs or {}).get(lv) or level_spec(game_id, lv, players)
              for lv in (low, high)}
    if cap is not None:
        chosen[high] = capped(chosen[high], cap)
    game = load_game(game_id, players=players)
    score = {"high": 0.0, "low": 0.0}
    seats = {"high": 0, "low": 0}
    plus = minus = 0
    started = time.perf_counter()
    move_times: list[float] = []  # the higher level's seconds a decision (a real choice)
    per_deal: list[dict[str, Any]] = []
    for i in range(first, first + deals):
        deal_seed = game_seed(seed, i)
        got_deal = {"deal": i, "high": 0.0, "low": 0.0}
        played: dict[tuple[str, ...], list[float]] = {}  # the baseline game is played once
        for seat_specs, seat, side in _deal_games(players, chosen[low], chosen[high],
                                                  baseline):
            if one_seat and players > 2 and seat != i % players:
                continue
            key = tuple(seat_specs)
            if key not in played:
                clock = MoveClock(seat) if side == "high" else None
                played[key] = play_game(game, seat_specs, deal_seed, watch=clock).returns()
                move_times += clock.times if clock is not None else []
            returns = played[key]
            if players == 2:
                got = {"high": returns[seat], "low": returns[1 - seat]}
                for key in got:
                    score[key] += got[key]
                    seats[key] += 1
                    got_deal[key] += got[key]
            else:
                score[side] += returns[seat]
                seats[side] += 1
                got_deal[side] += returns[seat]
        per_deal.append(got_deal)
        diff = got_deal["high"] - got_deal["low"]
        plus += diff > 1e-9
        minus += diff < -1e-9
        if progress:  # all a run cut short can report: the tally, its signs and its timing
            timing = (f", {high} {1000 * sum(move_times) / len(move_times):.0f}/"
                      f"{1000 * max(move_times):.0f} ms a move (mean/max, {len(move_times)})"
                      if move_times else "")
            if cap is not None:
                timing += f", {at_cap(move_times, cap)} at the cap"
            print(f"{game_id} {low}-{high} deal {i + 1 - first}/{deals}: {high} {score['high']:g}/"
                  f"{seats['high']}, {low} {score['low']:g}/{seats['low']}; deals better "
                  f"{plus}, worse {minus}{timing}", file=sys.stderr, flush=True)
    out: dict[str, Any] = {"game": game_id, "players": players, "pair": f"{low}-{high}",
                           "design": ("lone" if players == 2 or not baseline else
                                      "baseline, one seat a deal" if one_seat else "baseline"),
                           "specs": {low: chosen[low], high: chosen[high]}, "deals": deals,
                           "seed": seed, "first": first, "cap": cap}
    for side, level in (("low", low), ("high", high)):
        low_ci, high_ci = wilson(score[side], seats[side])
        out[level] = {"wins": score[side], "games": seats[side],
                      "rate": round(score[side] / seats[side], 4) if seats[side] else None,
                      "wilson95": [round(low_ci, 4), round(high_ci, 4)]}
    out["sign_test"] = {"higher_better_deals": plus, "lower_better_deals": minus,
                        "ties": deals - plus - minus, "p": round(sign_test(plus, minus), 4)}
    out["per_deal"] = per_deal
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["high_ms_per_move"] = {
        "moves": len(move_times),
        "mean": round(1000 * sum(move_times) / len(move_times), 3) if move_times else None,
        "max": round(1000 * max(move_times), 3) if move_times else None,
        "at_cap": at_cap(move_times, cap)}
    return out


def describe(result: dict[str, Any]) -> str:
    """One line per pair, for people."""
    low, high = result["pair"].split("-")
    a, b, t = result[low], result[high], result["sign_test"]
    return (f"{result['game']} {result['players']}p {low} vs {high} ({result['design']}, "
            f"{result['deals']} deals, "
            f"{result['seconds']} s): {high} {b['rate']:.1%} [{b['wilson95'][0]:.1%}, "
            f"{b['wilson95'][1]:.1%}] n={b['games']}; {low} {a['rate']:.1%} "
            f"[{a['wilson95'][0]:.1%}, {a['wilson95'][1]:.1%}] n={a['games']}; deals better for "
            f"{high}/{low}/even {t['higher_better_deals']}/{t['lower_better_deals']}/"
            f"{t['ties']}, sign test p={t['p']:.3g}; {high} ms a move (mean/max) "
            f"{result['high_ms_per_move']['mean']}/{result['high_ms_per_move']['max']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=sorted(LEVEL_TABLE))
    parser.add_argument("--players", type=int, default=None,
                        help="default: 2, or the game's smallest count if larger")
    parser.add_argument("--games", type=int, default=50, help="paired deals per pair")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0,
                        help="skip this many deals of the seed's sequence (split a run)")
    parser.add_argument("--pair", choices=[f"{a}-{b}" for a, b in PAIRS], action="append",
                        help="only this pair (repeatable); default: every adjacent pair")
    parser.add_argument("--spec", action="append", default=[], metavar="LEVEL=SPEC",
                        help="play LEVEL as SPEC instead of the table's (a candidate)")
    parser.add_argument("--baseline", action="store_true",
                        help="more players: the higher level alone against the all-lower game")
    parser.add_argument("--one-seat", action="store_true",
                        help="more players: deal i plays only seat i mod players")
    parser.add_argument("--cap", type=float, default=None, metavar="SECONDS",
                        help="stop the higher level's search at SECONDS a move, as the web does")
    parser.add_argument("--progress", action="store_true", help="a running tally on stderr")
    parser.add_argument("--json", action="store_true", help="one JSON object per pair")
    args = parser.parse_args(argv)
    if args.games < 1 or args.first < 0:
        parser.error("--games must be at least 1 and --first at least 0")
    if args.cap is not None and args.cap <= 0:
        parser.error("--cap must be a positive number of seconds")
    overrides: dict[str, str] = {}
    for item in args.spec:
        level, eq, spec = item.partition("=")
        if not eq or level not in LEVELS:
            parser.error(f"--spec wants LEVEL=SPEC with LEVEL one of {', '.join(LEVELS)}")
        overrides[level] = spec
    players = args.players
    if players is None:
        players = max(2, game_spec(args.game).min_players)
    pairs = [tuple(p.split("-")) for p in args.pair] if args.pair else list(PAIRS)
    for low, high in pairs:
        result = measure_pair(args.game, players, low, high, args.games, args.seed, overrides,
                              args.progress, args.baseline, args.one_seat, args.first,
                              args.cap)
        print(json.dumps(result) if args.json else describe(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
