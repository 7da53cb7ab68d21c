"""Research adapters, measured side by side in one run (figures for docs/research.md):

* PettingZoo decisions/s per game (the AEC loop: ``last`` then ``step`` with a masked random
  choice), beside PettingZoo's own ``connect_four_v3`` when its classic games are installed;
* random playouts through pyspiel (``fieldcraft_<game>``) as a fraction of the same loop on the
  direct API and of pyspiel's C++ ``liars_dice`` in the same loop and rounds (issue #36's
  yardstick: at least 0.5x it; ``fieldcraft.sim.bench.api_loop`` drives all three);
* ``--match N``: fieldcraft's ISMCTS against OpenSpiel's Python ``ISMCTSBot`` on Spy Tracker 2p
  through the adapter, at equal iterations per move: iterations/s of each and an N-game
  seat-rotated match with a Wilson interval.

    .venv/bin/python benchmarks/adapters.py [--seconds 1] [--rounds 3] [--match 100]
        [--iterations 100]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from typing import Any

import numpy as np


def pz_rate(make: Any, seconds: float) -> float:
    """Decisions per CPU second of the AEC loop (CPU time, as ``api_loop`` counts: the other
    jobs of a shared machine then change the figure much less than wall time would)."""
    env = make()
    rng = np.random.default_rng(0)
    decisions = 0
    seed = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
    return decisions / (time.process_time() - start)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def match(games: int, iterations: int) -> None:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import fieldcraft.adapters.openspiel as fo
    from fieldcraft.agents import View
    from fieldcraft.agents.ismcts import ISMCTSAgent

    game = pyspiel.load_game(fo.short_name("spy-tracker"), {"players": 2})
    rng = random.Random(0)
    time_fc = time_os = 0.0
    its_fc = its_os = 0
    wins = 0.0
    for g in range(games):
        fc_seat = g % 2
        ours = ISMCTSAgent(iterations=iterations, seed=g)
        theirs = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(g)),
                                  2.0, iterations, random_state=np.random.RandomState(g))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            seat = state.current_player()
            start = time.process_time()
            if seat == fc_seat:
                action = ours.act(View(state.inner, seat))
                time_fc += time.process_time() - start
                its_fc += iterations
            else:
                action = theirs.step(state)
                time_os += time.process_time() - start
                its_os += iterations
            state.apply_action(action)
        wins += state.returns()[fc_seat]
        print(f"  game {g + 1}/{games}: fieldcraft {'won' if state.returns()[fc_seat] else 'lost'}",
              file=sys.stderr, flush=True)
    low, high = wilson(wins, games)
    rate_fc, rate_os = its_fc / time_fc, its_os / time_os
    print(f"ISMCTS on Spy Tracker 2p, {iterations} iterations a move: fieldcraft "
          f"{rate_fc:,.0f} it/s, OpenSpiel Python {rate_os:,.0f} it/s ({rate_fc / rate_os:.1f}x)")
    print(f"match, {games} games, seats rotated: fieldcraft wins {wins:.0f} "
          f"({wins / games:.0%}, 95% Wilson {low:.0%}-{high:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--match", type=int, default=0, metavar="N")
    parser.add_argument("--iterations", type=int, default=100)
    args = parser.parse_args()

    import pyspiel

    import fieldcraft.adapters.openspiel as fo
    from fieldcraft.adapters.pettingzoo import env, raw_env
    from fieldcraft.core.registry import game_spec, list_games, load_game
    from fieldcraft.sim.bench import api_loop

    configs = [(name, players) for name in list_games()
               for players in sorted({game_spec(name).min_players, game_spec(name).max_players})]
    makers: dict[str, Any] = {}
    for name, players in configs:
        makers[f"{name} {players}p"] = (lambda n=name, p=players: raw_env(n, players=p))
    makers["spy-tracker 2p, env() (wrapped)"] = lambda: env("spy-tracker", players=2)
    try:
        from pettingzoo.classic import connect_four_v3

        makers["connect_four_v3 (PettingZoo's own)"] = connect_four_v3.env
    except ImportError:
        pass
    rates: dict[str, list[float]] = {k: [] for k in makers}
    direct: dict[str, list[float]] = {f"{n} {p}p": [] for n, p in configs}
    through: dict[str, list[float]] = {f"{n} {p}p": [] for n, p in configs}
    liars: list[float] = []
    liars_dice = pyspiel.load_game("liars_dice")
    for _ in range(args.rounds):  # alternate, so load on the shared machine hits all alike
        for key, make in makers.items():
            rates[key].append(pz_rate(make, args.seconds))
        liars.append(api_loop(liars_dice.new_initial_state, args.seconds))
        for name, players in configs:
            key = f"{name} {players}p"
            fc = load_game(name, players)
            os_game = pyspiel.load_game(fo.short_name(name), {"players": players})
            direct[key].append(api_loop(fc.new_initial_state, args.seconds))
            through[key].append(api_loop(os_game.new_initial_state, args.seconds))
    print(f"PettingZoo AEC loop, decisions/s (median of {args.rounds} rounds):")
    for key, values in rates.items():
        print(f"  {key:<36} {statistics.median(values):>9,.0f}")
    ref = statistics.median(liars)
    print(f"random playouts, steps/s: direct API | through pyspiel | ratio | pyspiel / C++ "
          f"liars_dice ({ref:,.0f} steps/s)")
    for key in direct:
        d, t = statistics.median(direct[key]), statistics.median(through[key])
        print(f"  {key:<24} {d:>9,.0f} | {t:>9,.0f} | {t / d:.2f}x | {t / ref:.2f}x")
    if args.match:
        match(args.match, args.iterations)
    fo.exit_cleanly(0)


if __name__ == "__main__":
    main()
