"""Random playouts through the public API, beside OpenSpiel's C++ ``liars_dice`` in one run.

Researchers drive a game from Python through ``legal_actions``, ``chance_outcomes`` and
``apply_action`` (the loop in the README). This times exactly that loop on every fieldcraft
game and on pyspiel's C++ Liar's Dice, alternating them so that the machine's swings hit both
alike, and prints each game's rate as a ratio to Liar's Dice (the target is at least 0.5).
``fieldcraft bench --api`` reports the same figures.

    python benchmarks/api_speed.py [--rounds 5] [--seconds 1.0] [--game spy-tracker]
    python benchmarks/api_speed.py --json

Needs ``open_spiel`` (``pip install -e '.[openspiel]'``) for the reference; without it only the
fieldcraft rates are printed.
"""

from __future__ import annotations

import argparse
import json
import sys

from fieldcraft.sim.bench import bench_api


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per game per round")
    parser.add_argument("--game", action="append", help="only these games")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = bench_api(args.game, args.players, args.rounds, args.seconds)
    if args.json:
        print(json.dumps(out))
        return 0
    ref = out["liars_dice_steps_per_second"]
    if ref:
        print(f"{'pyspiel liars_dice (C++)':<28} {ref:>10,} steps/s")
    else:
        print("open_spiel is not installed: no reference rate", file=sys.stderr)
    for row in out["games"]:
        ratio = f"  {row['ratio_to_liars_dice']:.2f}x" if ref else ""
        print(f"{row['game']:<22} {row['players']}p  {row['steps_per_second']:>10,} steps/s{ratio}")
    print(f"(median of {args.rounds} alternating rounds of {args.seconds:g} s each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
