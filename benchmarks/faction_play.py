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

    python benchmarks/faction_play.py --players 8 --games 6 --high "ismcts(iterations=1000)"
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


def run(players: int, deals: int, low: str, high: str, seed: int, all_seats: bool = True
        ) -> dict[str, Any]:
    game = load_game("under-current", players=players)
    tally: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COUNTS, 0))
    wins = {"high": 0.0, "low": 0.0}
    plus = minus = 0  # one seat a deal: deals the high spec won and the low lost, and back
    started = time.perf_counter()
    for i in range(deals):
        deal = game_seed(seed, i)
        base = play_game(game, [low] * players, deal)
        count_game(game, base, [low] * players, tally)
        for r in range(players) if all_seats else [i % players]:
            specs = [low] * players
            specs[r] = high
            final = play_game(game, specs, deal)
            count_game(game, final, specs, tally)
            wins["high"] += final.returns()[r]
            wins["low"] += base.returns()[r]
        diff = final.returns()[r] - base.returns()[r] if not all_seats else 0.0
        plus += diff > 0
        minus += diff < 0
        print(f"deal {i + 1}/{deals}: {wins}", file=sys.stderr, flush=True)
    n = deals * players if all_seats else deals
    out: dict[str, Any] = {"players": players, "deals": deals, "low": low, "high": high,
                           "seconds": round(time.perf_counter() - started, 1)}
    for side in ("high", "low"):
        lo, hi = wilson(wins[side], n)
        out[f"{side}_rate"] = {"wins": wins[side], "games": n, "rate": wins[side] / n,
                               "wilson95": [lo, hi]}
    if not all_seats:
        out["deals_better_high_low"] = [plus, minus]
    out["tally"] = {spec: dict(t) for spec, t in tally.items()}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--games", type=int, default=6, help="deals")
    parser.add_argument("--low", default="heuristic")
    parser.add_argument("--high", default="ismcts(iterations=1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one-seat", action="store_true", help="deal i plays seat i mod n only")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.players, args.games, args.low, args.high, args.seed,
                         not args.one_seat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
