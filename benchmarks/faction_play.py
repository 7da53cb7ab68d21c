"""Does a bot in Under Current play for its faction? Counted from the games' action logs.

Why: Under Current is a team game, so a seat's win rate mixes its own play with its team's.
This counts two things a seat does *for its side*, per agent, from every game's log:

* **files**: a Blue or Red seat that receives a card of its own colour and files it into the
  row helps its faction; filing the other main colour helps the enemy. The rate of each.
* **passes**: a card of the passer's own colour passed to a seat of the same faction (which
  tends to file it) helps the side; the share of a seat's passes that do so, of those it could
  have made so (it held a card of its colour and a teammate was seated).

It plays the deals of ``benchmarks/levels.py --baseline`` (the same seeds): per deal the
``--high`` spec alone at each seat among ``--low``, and one game all ``--low``; so its win
rates are that benchmark's, and each count is split by which spec made the move.

Several ``--high`` specs play the same deals and seats, so two candidates are compared game
by game as well as each against the low seat (an exact sign test over deals). The output keeps
one record per game (the returns, and the high seat's milliseconds a decision with a real
choice), and ``--merge`` summarises the records of several runs together: runs of other specs
on the same deals pair up, runs of other deals (``--first``) add up, so a long run can be
split over processes.

    python benchmarks/faction_play.py --players 8 --games 6 --high "ismcts(iterations=1000)"
    python benchmarks/faction_play.py --players 8 --games 76 --first 76 --seed 4 --one-seat \
        --high "rollout(rollouts=32)" --high "rollout(rollouts=64, halve=2)" > b.json
    python benchmarks/faction_play.py --merge a.json b.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from typing import Any

from fieldcraft.core.api import CHANCE, TERMINAL
from fieldcraft.core.registry import load_game
from fieldcraft.games.under_current.constants import BLUE, RED
from fieldcraft.sim.simulate import game_seed, play_game
from fieldcraft.sim.stats import wilson

COUNTS = ("own_received", "own_filed", "enemy_received", "enemy_filed", "passes",
          "could_help", "helped")


def count_game(game: Any, final: Any, specs: list[str], tally: dict[str, dict[str, int]]
               ) -> None:
    """Replay ``final``'s log and add each seat's faction-play counts to its spec's tally."""
    g = game
    n = g.num_players
    state = g.new_initial_state()
    for action in final.actions:
        player = state.current_player()
        if player not in (CHANCE, TERMINAL) and len(state.roles) == g.num_roles:
            t = tally[specs[player]]
            faction = g.role_faction[state.roles[player]]
            if faction in (BLUE, RED):
                enemy = RED if faction == BLUE else BLUE
                legal = state.legal_actions()
                if g.A_FILE in legal and state.pending >= 0:
                    colour = g.card_colour[state.pending]
                    filed = action == g.A_FILE
                    if colour == faction:
                        t["own_received"] += 1
                        t["own_filed"] += filed
                    elif colour == enemy:
                        t["enemy_received"] += 1
                        t["enemy_filed"] += filed
                elif action < g.A_FILE:  # a pass: card * n + seat
                    t["passes"] += 1
                    mates = [s for s in range(n) if s != player
                             and g.role_faction[state.roles[s]] == faction]
                    mine = [c for c in state.hands[player] if g.card_colour[c] == faction]
                    if mates and mine:
                        t["could_help"] += 1
                        card, to = divmod(action, n)
                        t["helped"] += g.card_colour[card] == faction and to in mates
        state.apply_action(action)


class _Clock:
    """Seconds ``seat`` takes per decision with a real choice (as ``levels.py``'s MoveClock):
    from the call at its decision to the next call. Both wall time and the process's CPU
    time: on a shared machine the wall time grows with the load, the CPU time much less."""

    def __init__(self, seat: int):
        self.seat, self.times, self.cpu = seat, [], []
        self._start: tuple[float, float] | None = None

    def __call__(self, state: Any, player: int) -> None:
        if self._start is not None:
            self.times.append(time.perf_counter() - self._start[0])
            self.cpu.append(time.process_time() - self._start[1])
            self._start = None
        if player == self.seat and len(state.legal_actions()) > 1:
            self._start = (time.perf_counter(), time.process_time())


def _rate(wins: float, n: int) -> dict[str, Any]:
    lo, hi = wilson(wins, n)
    return {"wins": wins, "games": n, "rate": wins / n if n else None, "wilson95": [lo, hi]}


def summarise(records: list[dict[str, Any]], highs: list[str]) -> dict[str, Any]:
    """Win rates, sign tests (each high spec against the low seat, and each pair of high
    specs against each other) and ms a move from per-game ``records``; records of one deal
    are summed before the sign test, as ``levels.py`` does."""
    from levels import sign_test  # the benchmarks folder is on the path when run as a script

    by_deal: dict[tuple[int, int], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for rec in records:
        for key in ["low", *highs]:
            by_deal[rec["seed"], rec["deal"]][key] += rec[key]
    out: dict[str, Any] = {"low": _rate(sum(r["low"] for r in records), len(records)),
                           "highs": {}}
    for h in highs:
        times = [t for r in records for t in r["ms"][h]]
        entry = _rate(sum(r[h] for r in records), len(records))
        plus = sum(d[h] > d["low"] for d in by_deal.values())
        minus = sum(d[h] < d["low"] for d in by_deal.values())
        entry["vs_low"] = {"better": plus, "worse": minus, "p": sign_test(plus, minus)}
        entry["ms_a_move"] = {"moves": len(times),
                              "mean": sum(times) / len(times) if times else None,
                              "max": max(times) if times else None}
        cpu = [t for r in records for t in r.get("cpu_ms", {}).get(h, [])]
        if cpu:
            entry["cpu_ms_a_move"] = {"moves": len(cpu), "mean": sum(cpu) / len(cpu),
                                      "max": max(cpu)}
        out["highs"][h] = entry
    for i, a in enumerate(highs):
        for b in highs[i + 1:]:
            plus = sum(d[a] > d[b] for d in by_deal.values())
            minus = sum(d[a] < d[b] for d in by_deal.values())
            out.setdefault("pairs", []).append({"a": a, "b": b, "a_better": plus,
                                                "b_better": minus, "p": sign_test(plus, minus)})
    return out


def merge(outs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Join the records of several runs by game (seed, deal, seat): runs of other specs on the
    same deals pair up, runs of other deals add up. The specs kept are those every joined game
    has, so each is compared on the same games."""
    joined: dict[tuple[int, int, int], dict[str, Any]] = {}
    order: list[str] = []
    for out in outs:
        order += [h for h in out["highs"] if h not in order]
        for rec in out["records"]:
            key = (rec["seed"], rec["deal"], rec["seat"])
            row = joined.setdefault(key, {"seed": key[0], "deal": key[1], "seat": key[2],
                                          "low": rec["low"], "ms": {}, "cpu_ms": {}})
            if row["low"] != rec["low"]:
                raise ValueError(f"game {key}: the all-low results differ between runs")
            row.update({h: rec[h] for h in out["highs"]})
            row["ms"].update(rec["ms"])
            row["cpu_ms"].update(rec.get("cpu_ms", {}))
    highs = [h for h in order if all(h in row for row in joined.values())]
    return list(joined.values()), highs


def run(players: int, deals: int, low: str, highs: list[str], seed: int,
        all_seats: bool = True, first: int = 0) -> dict[str, Any]:
    """Deals ``first`` .. ``first + deals - 1`` of run ``seed``: per deal the all-``low`` game,
    and per seat played each of ``highs`` alone there, on the same deal (paired)."""
    game = load_game("under-current", players=players)
    tally: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COUNTS, 0))
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    for i in range(first, first + deals):
        deal = game_seed(seed, i)
        base = play_game(game, [low] * players, deal)
        count_game(game, base, [low] * players, tally)
        for r in range(players) if all_seats else [i % players]:
            rec: dict[str, Any] = {"seed": seed, "deal": i, "seat": r, "low": base.returns()[r],
                                   "ms": {}, "cpu_ms": {}}
            for high in highs:
                specs = [low] * players
                specs[r] = high
                clock = _Clock(r)
                final = play_game(game, specs, deal, watch=clock)
                count_game(game, final, specs, tally)
                rec[high] = final.returns()[r]
                rec["ms"][high] = [round(1000 * t, 3) for t in clock.times]
                rec["cpu_ms"][high] = [round(1000 * t, 3) for t in clock.cpu]
            records.append(rec)
        wins = {h: sum(x[h] for x in records) for h in ["low", *highs]}
        print(f"deal {i + 1 - first}/{deals}: {wins}", file=sys.stderr, flush=True)
    out: dict[str, Any] = {"players": players, "deals": deals, "first": first, "seed": seed,
                           "low": low, "highs": highs,
                           "seconds": round(time.perf_counter() - started, 1)}
    out["summary"] = summarise(records, highs)
    out["tally"] = {spec: dict(t) for spec, t in tally.items()}
    out["records"] = records
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--games", type=int, default=6, help="deals")
    parser.add_argument("--low", default="heuristic")
    parser.add_argument("--high", action="append", default=[],
                        help="a spec to play alone among --low (repeatable: each plays the "
                        "same deals and seats; default ismcts(iterations=1000))")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="the first deal's index")
    parser.add_argument("--one-seat", action="store_true", help="deal i plays seat i mod n only")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="summarise earlier outputs' records together instead of playing")
    args = parser.parse_args(argv)
    if args.merge:
        records, highs = merge([json.loads(open(path).read()) for path in args.merge])
        print(json.dumps(summarise(records, highs)))
        return 0
    print(json.dumps(run(args.players, args.games, args.low,
                         args.high or ["ismcts(iterations=1000)"], args.seed,
                         not args.one_seat, args.first)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
