"""Bot strength against random play, per seat, for the bots issue.

For each seat-rotated game one seat is played by the agent under test and every other seat by
random agents; the baseline is a random agent in the same seat rotation. In a two-player game this
is simply head-to-head. In hidden-team games (Under Current) one seat cannot decide the result
alone, so the meaningful figure is the lift over the random baseline, shown with Wilson 95%
intervals.

    python benchmarks/strength.py under-current --players 5 --games 400 --agent heuristic
"""

from __future__ import annotations

import argparse
import json

from fieldcraft.core.registry import load_game
from fieldcraft.sim.simulate import game_seed
from fieldcraft.sim.tournament import play_game, wilson


def one_vs_random(name: str, players: int, agent: str, games: int, seed: int) -> dict:
    game = load_game(name, players=players)
    wins = {agent: 0.0, "random": 0.0}
    seats = {agent: 0, "random": 0}
    for i in range(games):
        seat = i % players
        specs = ["random"] * players
        specs[seat] = agent
        state = play_game(game, specs, game_seed(seed, i))
        returns = state.returns()
        wins[agent] += returns[seat]
        seats[agent] += 1
        for s in range(players):
            if s != seat:
                wins["random"] += returns[s]
                seats["random"] += 1
    out = {"game": name, "players": players, "games": games}
    for key in (agent, "random"):
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
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(one_vs_random(args.game, args.players, args.agent, args.games, args.seed)))


if __name__ == "__main__":
    main()
