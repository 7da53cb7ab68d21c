"""Random playouts through the public API, beside OpenSpiel's C++ ``liars_dice`` in one run.

Researchers drive a game from Python through ``legal_actions``, ``chance_outcomes`` and
``apply_action`` (the loop in the README). This times exactly that loop on every fieldcraft
game and on pyspiel's C++ Liar's Dice, alternating them so that the machine's swings hit both
alike, and prints each game's rate as a ratio to Liar's Dice (the target is at least 0.5).

    python benchmarks/api_speed.py [--rounds 5] [--seconds 1.0] [--game spy-tracker]
    python benchmarks/api_speed.py --json

Needs ``open_spiel`` (``pip install open_spiel``) for the reference; without it only the
fieldcraft rates are printed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def api_loop(new_state: Callable[[], Any], seconds: float, seed: int = 0) -> float:
    """Steps per second of random playouts through the public API only (the README's loop)."""
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(actions, probs)[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            steps += 1
        now = time.perf_counter()
        if now >= deadline:
            return steps / (now - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per game per round")
    parser.add_argument("--game", action="append", help="only these games")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    import fieldcraft

    names = args.game or fieldcraft.list_games()
    games = {name: fieldcraft.load_game(name, players=args.players) for name in names}
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("open_spiel is not installed: no reference rate", file=sys.stderr)
    reference = pyspiel.load_game("liars_dice") if pyspiel is not None else None
    rates: dict[str, list[float]] = {name: [] for name in games}
    ref_rates: list[float] = []
    for round_ in range(args.rounds):
        if reference is not None:
            ref_rates.append(api_loop(reference.new_initial_state, args.seconds, round_))
        for name, game in games.items():
            rates[name].append(api_loop(game.new_initial_state, args.seconds, round_))
    ref = statistics.median(ref_rates) if ref_rates else None
    out: dict[str, Any] = {"liars_dice_steps_per_second": round(ref) if ref else None,
                           "rounds": args.rounds, "games": []}
    for name, game in games.items():
        rate = statistics.median(rates[name])
        out["games"].append({"game": name, "players": game.num_players,
                             "steps_per_second": round(rate),
                             "ratio_to_liars_dice": round(rate / ref, 3) if ref else None})
    if args.json:
        print(json.dumps(out))
        return 0
    if ref:
        print(f"{'pyspiel liars_dice (C++)':<28} {ref:>10,.0f} steps/s")
    for row in out["games"]:
        ratio = f"  {row['ratio_to_liars_dice']:.2f}x" if ref else ""
        print(f"{row['game']:<22} {row['players']}p  {row['steps_per_second']:>10,} steps/s{ratio}")
    print(f"(median of {args.rounds} alternating rounds of {args.seconds:g} s each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
