"""How much do Under Current's informed role draws know? A probe for docs/bots.md.

Why: the informed draws (``search.informed_resampler``) weigh each role deal by the receiving
choices a seat saw. Whether they help a bot is measured in play (``faction_play.py``); this
says how much they *know*: at random points of games of Normal bots, how often a drawn deal puts
each other seat's true faction where it is, against uniform draws from the same role masks.

    python benchmarks/uc_inference.py --players 8 --games 30 --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from fieldcraft.agents import View, make_agent
from fieldcraft.core.api import CHANCE, TERMINAL
from fieldcraft.core.registry import load_game
from fieldcraft.games.under_current.search import receipts, role_weights, weighted_roles


def normal_game(players: int, seed: int, steps: int) -> Any:
    """A game of Normal bots ``steps`` actions (chance included) in, or its last state before
    the end; seeded, so the same arguments give the same state (the tests use it too)."""
    game = load_game("under-current", players=players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    bots = [make_agent("heuristic", seed=seed * 100 + s) for s in range(players)]
    for _ in range(steps):
        player = state.current_player()
        if player == TERMINAL:
            break
        nxt = state.clone()
        if player == CHANCE:
            nxt.play_chance(rng)
        else:
            nxt._apply(bots[player].act(View(state, player)))
        if nxt.current_player() == TERMINAL:
            break
        state = nxt
    return state


def probe(players: int, games: int, seed: int, draws: int = 200) -> dict[str, Any]:
    """Play ``games`` games of Normal bots, stop each at a random point before its end, pick a
    random seat, and count over ``draws`` draws of each kind how often a drawn deal gives every
    other seat its true faction."""
    game = load_game("under-current", players=players)
    rng = random.Random(seed)
    uniform = [[1.0] * game.num_roles for _ in range(players + game.num_reserve)]
    hits = {"informed": 0, "uniform": 0}
    total = points = choices = 0
    for i in range(games):
        state = normal_game(players, seed * 1000 + i, rng.randrange(40, 160))
        if len(state.roles) < players + game.num_reserve:
            continue
        seat = rng.randrange(players)
        seen = receipts(state, seat)
        masks = state.role_masks[seat]
        samplers = {"informed": weighted_roles(masks, role_weights(game, seen)),
                    "uniform": weighted_roles(masks, uniform)}
        truth = [game.role_faction[r] for r in state.roles]
        points += 1
        choices += len(seen)
        for _ in range(draws):
            for kind, draw in samplers.items():
                assert draw is not None
                deal = draw(rng)
                hits[kind] += sum(game.role_faction[deal[s]] == truth[s]
                                  for s in range(players) if s != seat)
            total += players - 1
    out: dict[str, Any] = {"players": players, "games": games, "seed": seed, "points": points,
                           "choices_seen_mean": round(choices / points, 1) if points else None}
    for kind, count in hits.items():  # no interval: the draws at one point are not independent
        out[kind] = round(count / total, 4) if total else None
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(json.dumps(probe(args.players, args.games, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
