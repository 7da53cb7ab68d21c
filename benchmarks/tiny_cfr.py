"""Spy Tracker's ``tiny`` variant under OpenSpiel's exact tools (figures for docs/research.md).

The variant exists so that exact methods run on Spy Tracker as they do on Kuhn and Leduc poker
(issue #36). This script measures what a researcher would first try on it, through the pyspiel
adapter in one process:

* the whole game tree with ``get_all_states`` (states by kind, information states per seat, and
  the time it took);
* CFR+ (``cfr.CFRPlusSolver``): the NashConv of its average policy after chosen iterations, and
  the time spent solving (NashConv evaluations not counted);
* the NashConv of our bots as policies: uniform random, and the heuristic bot
  (``fieldcraft/games/spy_tracker/bot.py``) asked at one state of each information state. The
  bot decides from the seat's observation only (a function of its information state), and its
  rng only breaks near-ties, so its action frequencies over ``--bot-samples`` seeds are its
  policy there.

    FIELDCRAFT_PURE=1 .venv/bin/python benchmarks/tiny_cfr.py [--iterations 1,10,50,100]
        [--players 2] [--bot-samples 16] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from typing import Any

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr, exploitability, get_all_states

import fieldcraft.adapters.openspiel as fo
from fieldcraft.agents import View


def tree_size(game: pyspiel.Game) -> dict[str, Any]:
    """Every state of ``game`` by kind, and the information states each seat decides at."""
    start = time.perf_counter()
    states = get_all_states.get_all_states(game, depth_limit=-1, include_terminals=True,
                                           include_chance_states=True)
    seconds = time.perf_counter() - start
    kinds: Counter[str] = Counter()
    infosets: list[set[str]] = [set() for _ in range(game.num_players())]
    for state in states.values():
        if state.is_terminal():
            kinds["terminal"] += 1
        elif state.is_chance_node():
            kinds["chance"] += 1
        else:
            kinds["decision"] += 1
            seat = state.current_player()
            infosets[seat].add(state.information_state_string(seat))
    return {"states": len(states), **kinds, "infosets": [len(s) for s in infosets],
            "seconds": round(seconds, 2)}


def heuristic_policy(game: pyspiel.Game, samples: int) -> policy_lib.TabularPolicy:
    """The heuristic bot as a tabular policy: at each information state, its choices over
    ``samples`` seeds at one state of that information state."""
    table = policy_lib.TabularPolicy(game)
    bot = game.setup.fc.spec.optional("bot")
    states = get_all_states.get_all_states(game, depth_limit=-1, include_terminals=False,
                                           include_chance_states=False)
    seen: set[tuple[int, str]] = set()
    for state in states.values():
        seat = state.current_player()
        key = (seat, state.information_state_string(seat))
        if key in seen:
            continue
        seen.add(key)
        legal = state.legal_actions()
        if len(legal) == 1:
            choices = Counter(legal)
        else:
            view = View(state.inner, seat)
            choices = Counter(bot(view, random.Random(i)) for i in range(samples))
        probs = table.policy_for_key(key[1])
        probs[:] = 0.0
        for action, n in choices.items():
            probs[action] = n / samples if len(legal) > 1 else 1.0
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", default="1,10,50,100",
                        help="CFR+ iterations after which NashConv is measured")
    parser.add_argument("--bot-samples", type=int, default=16)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    game = pyspiel.load_game(f"fieldcraft_spy_tracker(players={args.players},variant=tiny)")
    out: dict[str, Any] = {"game": str(game)}
    out["tree"] = tree_size(game)
    print("tree:", out["tree"], flush=True)

    checkpoints = sorted({int(x) for x in args.iterations.split(",")})
    solver = cfr.CFRPlusSolver(game)
    solving = 0.0
    done = 0
    out["cfr_plus"] = []
    for target in checkpoints:
        start = time.perf_counter()
        while done < target:
            solver.evaluate_and_update_policy()
            done += 1
        solving += time.perf_counter() - start
        conv = exploitability.nash_conv(game, solver.average_policy())
        row = {"iterations": done, "nash_conv": float(conv), "solve_seconds": round(solving, 1)}
        out["cfr_plus"].append(row)
        print("CFR+:", row, flush=True)

    uniform = policy_lib.TabularPolicy(game)  # uniform over legal actions
    out["uniform_random_nash_conv"] = float(exploitability.nash_conv(game, uniform))
    print("uniform random NashConv:", out["uniform_random_nash_conv"], flush=True)
    heuristic = heuristic_policy(game, args.bot_samples)
    out["heuristic_nash_conv"] = float(exploitability.nash_conv(game, heuristic))
    print("heuristic NashConv:", out["heuristic_nash_conv"], flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    fo.exit_cleanly()


if __name__ == "__main__":
    main()
