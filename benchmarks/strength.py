"""Bot strength against a field of other bots (random by default), per seat.

For each seat-rotated game one seat is played by the agent under test and every other seat by
random agents; the baseline is a random agent in the same seat rotation. In a two-player game this
is simply head-to-head. In hidden-team games (Under Current) one seat cannot decide the result
alone, so the meaningful figure is the lift over the random baseline, shown with Wilson 95%
intervals.

    python benchmarks/strength.py under-current --players 5 --games 400 --agent heuristic
    python benchmarks/strength.py under-current --players 5 --games 60 \
        --agent "ismcts(time=0.25)" --against heuristic
"""

from __future__ import annotations

import argparse
import json
import sys

from fieldcraft.core.registry import load_game
from fieldcraft.sim.simulate import game_seed, play_game
from fieldcraft.sim.stats import wilson


def one_vs_field(name: str, players: int, agent: str, games: int, seed: int,
                 field: str = "random", progress: bool = False) -> dict:
    """One ``agent`` seat (rotating) among ``field`` seats; the field's own seats are the
    baseline."""
    game = load_game(name, players=players)
    wins = {agent: 0.0, "field": 0.0}
    seats = {agent: 0, "field": 0}
    for i in range(games):
        seat = i % players
        specs = [field] * players
        specs[seat] = agent
        state = play_game(game, specs, game_seed(seed, i))
        returns = state.returns()
        wins[agent] += returns[seat]
        seats[agent] += 1
        for s in range(players):
            if s != seat:
                wins["field"] += returns[s]
                seats["field"] += 1
        if progress:  # a running tally: long searches take minutes per game
            print(f"{i + 1}/{games} {agent}: {wins[agent]:g} wins", file=sys.stderr, flush=True)
    out = {"game": name, "players": players, "games": games, "agent": agent, "field": field}
    for key in (agent, "field"):
        low, high = wilson(wins[key], seats[key])
        out[key] = {"win_rate": round(wins[key] / seats[key], 4),
                    "wilson95": [round(low, 4), round(high, 4)], "seat_games": seats[key]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--agent", default="heuristic")
    parser.add_argument("--against", default="random", help="the agent in every other seat")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress", action="store_true", help="a running tally on stderr")
    args = parser.parse_args()
    print(json.dumps(one_vs_field(args.game, args.players, args.agent, args.games, args.seed,
                                  args.against, args.progress)))


if __name__ == "__main__":
    main()
