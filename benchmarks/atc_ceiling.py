"""How much room does Against the Current leave above the heuristic bot?

The issue asks search to beat the heuristic bot in 70% of two-player games. This probe measures
how far a player can get above it at all, by playing one seat (rotating) with a variant of the
heuristic against the plain heuristic on the other seats:

* ``random-token``: the token to move is chosen at random (everything else as the heuristic):
  what the one big decision of a turn is worth.
* ``knows-roll``: the seat sees its coming die roll before it chooses the token, which no fair
  player can. It then picks the token (and plays the turn) for that exact roll.
* ``lookahead``: exact expectimax over the dice through this turn and the next ``--turns - 1``
  turns (the opponents' choices as the worst for this seat), scored by the same race model.

Everything else (Boosts, events, tributaries) is the heuristic's choice. These players read the
true state rather than a view, which is fair here because the only hidden thing in the game, the
order of the event pile, is never looked past (an event draw ends every look-ahead).

    python benchmarks/atc_ceiling.py knows-roll --games 200
    python benchmarks/atc_ceiling.py lookahead --turns 2 --games 120
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from fieldcraft.agents import View, make_agent
from fieldcraft.core.api import CHANCE, TERMINAL, sample_chance
from fieldcraft.core.registry import load_game
from fieldcraft.games.against_the_current import bot as heuristic
from fieldcraft.games.against_the_current.layout import (
    ATTEMPT,
    PICK,
    ROLL,
    TOKEN,
    TRIB,
)
from fieldcraft.sim.simulate import game_seed
from fieldcraft.sim.stats import wilson

MODES = ("random-token", "knows-roll", "lookahead")


def _after(state: Any, action: int) -> Any:
    child = state.clone()
    child._apply(action)
    return child


lookahead = heuristic._expectimax
"""Expectimax over dice through ``turns`` more turn starts; the other seats choose what is
worst for ``seat``: the Strong level's search (``bot.search_choose``), judged by the same race
model."""


def play(game: Any, mode: str, seat: int, seed: int, turns: int) -> float:
    """One game: ``seat`` plays the probe, the others the heuristic; returns the seat's result."""
    rng = random.Random(seed)
    agents = [make_agent("heuristic", seed=rng.randrange(2**32))
              for _ in range(game.num_players)]
    state = game.new_initial_state()
    roll = None  # the probe's foreseen die roll, used at the next roll
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[seat]
        if player == CHANCE:
            if state.phase == ROLL and roll is not None:
                state.apply_action(roll)
                roll = None
            else:
                state.apply_action(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        if player != seat or len(legal) == 1:
            state.apply_action(agents[player].act(View(state, player)))
            continue
        if mode == "random-token" and state.phase == TOKEN:
            state.apply_action(rng.choice(legal))
        elif mode == "knows-roll" and state.phase == TOKEN:
            scored = []
            for action in legal:
                child = _after(state, action)
                if child.current_player() == CHANCE and child.phase == ROLL:
                    if roll is None:
                        roll = sample_chance(child, rng)
                    child._apply(roll)
                scored.append((heuristic._settle(child, seat) + rng.random() * 1e-7, action))
            state.apply_action(max(scored)[1])
        elif mode == "lookahead" and state.phase not in (PICK, TRIB, ATTEMPT):
            left = turns if state.phase == TOKEN else turns - 1
            state.apply_action(max(legal, key=lambda a: lookahead(_after(state, a), seat, left)
                                   + rng.random() * 1e-7))
        else:
            state.apply_action(agents[player].act(View(state, player)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--turns", type=int, default=2, help="lookahead: turns searched")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 1 or args.turns < 1:
        parser.error("--games and --turns must be at least 1")
    game = load_game("against-the-current", players=args.players)
    start = time.perf_counter()
    wins = 0.0
    for i in range(args.games):
        wins += play(game, args.mode, i % args.players, game_seed(args.seed, i), args.turns)
    low, high = wilson(wins, args.games)
    result = {"mode": args.mode, "players": args.players, "games": args.games,
              "turns": args.turns if args.mode == "lookahead" else None, "wins": wins,
              "rate": wins / args.games, "ci95": [low, high],
              "seconds": round(time.perf_counter() - start, 1)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.mode} vs heuristic, {args.players} players: {wins:g}/{args.games} = "
              f"{wins / args.games:.1%} [{low:.1%}, {high:.1%}]  ({result['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
