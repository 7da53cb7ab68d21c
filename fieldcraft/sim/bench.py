"""Random-playout speed of every game: the number that bots and balance studies live on.

Each run plays a fixed number of seeded games with ``random_playout`` (chance steps counted) and
the report gives the median of several runs, which is steadier than a mean on a shared machine.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from fieldcraft.core.api import random_playout
from fieldcraft.core.registry import game_spec, list_games, load_game


def bench_game(name: str, players: int | None = None, games: int = 300, runs: int = 5,
               seed: int = 0) -> dict[str, Any]:
    if players is None:
        players = game_spec(name).default_players
    game = load_game(name, players=players)
    rates, game_rates, steps_per_game = [], [], []
    for run in range(runs):
        rng = random.Random(seed + run)
        steps = 0
        start = time.perf_counter()
        for _ in range(games):
            steps += random_playout(game.new_initial_state(), rng)
        elapsed = time.perf_counter() - start
        rates.append(steps / elapsed)
        game_rates.append(games / elapsed)
        steps_per_game.append(steps / games)
    return {
        "game": name,
        "players": players,
        "games_per_run": games,
        "runs": runs,
        "steps_per_second": round(statistics.median(rates)),
        "games_per_second": round(statistics.median(game_rates), 1),
        "mean_steps_per_game": round(statistics.mean(steps_per_game), 1),
    }


def bench_all(games: int = 300, runs: int = 5, names: list[str] | None = None,
              players: int | None = None) -> list[dict[str, Any]]:
    return [bench_game(name, players, games, runs) for name in (names or list_games())]


def decision_positions(name: str, players: int, count: int, seed: int = 0,
                       overrides: dict[str, Any] | None = None) -> list[Any]:
    """Seeded positions where a seat has a real choice (two or more legal actions), taken from
    random games at varied depths, so search speed is measured where search is used."""
    from fieldcraft.core.api import sample_chance

    game = load_game(name, players=players, **(overrides or {}))
    rng = random.Random(seed)
    positions: list[Any] = []
    while len(positions) < count:
        state = game.new_initial_state()
        stop = rng.randrange(5, 60)
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            legal = state.legal_actions()
            if len(legal) > 1:
                decisions += 1
                if decisions >= stop:
                    positions.append(state.clone())
                    break
            state.apply_action(legal[rng.randrange(len(legal))])
    return positions


def bench_ismcts(name: str, players: int | None = None, positions: int = 8,
                 iterations: int = 1500, runs: int = 3,
                 opponents: str | None = None) -> dict[str, Any]:
    """ISMCTS iterations per second of CPU time (process time, so other load on the machine
    disturbs it less than wall time would), median over runs of several positions, and the best
    run: on a shared virtual machine CPU time itself swings by a quarter from minute to minute,
    and as every run does the same work (same positions, same seed), the fastest is the one
    least disturbed (``timeit``'s reasoning for its minimum).

    ``opponents`` as for the agent (default: the game's). An iteration with opponents played by
    a policy also plays their replies up to the searcher's next choice, so it does more than a
    plain tree iteration; both rates are worth knowing."""
    from fieldcraft.agents import View
    from fieldcraft.agents.ismcts import ISMCTSAgent

    if players is None:
        players = game_spec(name).default_players
    states = decision_positions(name, players, positions)
    rates = []
    for _ in range(runs):
        agent = ISMCTSAgent(iterations=iterations, seed=0, opponents=opponents)
        start = time.process_time()
        for state in states:
            agent.search(View(state, state.current_player()))
        rates.append(iterations * len(states) / (time.process_time() - start))
    return {
        "game": name,
        "players": players,
        "ismcts_iterations_per_second": round(statistics.median(rates)),
        "ismcts_iterations_per_second_best": round(max(rates)),
        "runs": runs,
        "positions": len(states),
        "iterations_per_search": iterations,
        "rollout_depth": game_spec(name).search.rollout_depth,
        "opponents": opponents or game_spec(name).search.opponents,
    }


def api_loop(new_state: Any, seconds: float, seed: int = 0) -> float:
    """Steps per second of random playouts through the public API only: the README's loop
    (``chance_outcomes`` at chance nodes, ``legal_actions`` at decisions, ``apply_action``),
    which is how a researcher drives a game from Python. Works on any OpenSpiel-shaped state,
    so pyspiel's own games can run in the very same loop. Timed in CPU seconds, as
    ``bench_ismcts`` is: other load on the shared machine then disturbs it less."""
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
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
        now = time.process_time()
        if now >= deadline:
            return steps / (now - start)


def record_random_games(new_state: Any, steps: int = 20_000, seed: int = 0) -> list[list[int]]:
    """Seeded random games (as ``api_loop`` plays them) until ``steps`` actions in all: the
    moves ``api_replay_loop`` replays."""
    rng = random.Random(seed)
    games: list[list[int]] = []
    total = 0
    while total < steps:
        state = new_state()
        moves: list[int] = []
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(actions, probs)[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            moves.append(action)
        games.append(moves)
        total += len(moves)
    return games


def api_replay_loop(new_state: Any, games: list[list[int]], seconds: float) -> float:
    """Steps per second of the public API alone: ``api_loop``'s calls at every step
    (``is_terminal``, ``is_chance_node``, ``chance_outcomes`` or ``legal_actions``,
    ``apply_action``, and ``new_initial_state`` per game) with the moves drawn beforehand
    (``record_random_games``). ``api_loop`` also times drawing them in Python (``rng.choices``
    over a chance node's odds costs more than a C++ game's whole step), which depends on how
    many chance nodes a game has and how wide they are, not on the game's code; this loop
    compares what two games' APIs cost a researcher per step. CPU seconds, as ``api_loop``."""
    steps = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for moves in games:
            state = new_state()
            following = iter(moves)
            while not state.is_terminal():
                if state.is_chance_node():
                    state.chance_outcomes()
                else:
                    state.legal_actions()
                state.apply_action(next(following))
            if next(following, None) is not None:
                raise ValueError("a replayed game ended before its recorded moves did")
            steps += len(moves)
        now = time.process_time()
        if now >= deadline:
            return steps / (now - start)


def bench_api(names: list[str] | None = None, players: int | None = None, rounds: int = 5,
              seconds: float = 1.0) -> dict[str, Any]:
    """``api_loop`` and ``api_replay_loop`` rates of every game and, when ``open_spiel`` is
    installed, of pyspiel's C++ ``liars_dice`` in the same rounds (alternating, so the machine's
    swings hit both alike), with each game's median rates as ratios to it."""
    games = {name: load_game(name, players=players) for name in (names or list_games())}
    try:
        import pyspiel
    except ImportError:
        reference = None
    else:
        reference = pyspiel.load_game("liars_dice")
    makers = {name: game.new_initial_state for name, game in games.items()}
    if reference is not None:
        makers[LIARS_DICE] = reference.new_initial_state
    moves = {name: record_random_games(make) for name, make in makers.items()}
    rates: dict[str, list[float]] = {name: [] for name in makers}
    replays: dict[str, list[float]] = {name: [] for name in makers}
    for round_ in range(rounds):
        for name, make in makers.items():
            rates[name].append(api_loop(make, seconds / 2, round_))
            replays[name].append(api_replay_loop(make, moves[name], seconds / 2))
    rate = {name: statistics.median(r) for name, r in rates.items()}
    replay = {name: statistics.median(r) for name, r in replays.items()}
    ref = rate.get(LIARS_DICE)
    ref_replay = replay.get(LIARS_DICE)
    return {
        "liars_dice_steps_per_second": round(ref) if ref else None,
        "liars_dice_replay_steps_per_second": round(ref_replay) if ref_replay else None,
        "rounds": rounds,
        "seconds": seconds,
        "games": [{"game": name, "players": game.num_players,
                   "steps_per_second": round(rate[name]),
                   "ratio_to_liars_dice": round(rate[name] / ref, 3) if ref else None,
                   "replay_steps_per_second": round(replay[name]),
                   "replay_ratio_to_liars_dice": round(replay[name] / ref_replay, 3)
                   if ref_replay else None} for name, game in games.items()],
    }


LIARS_DICE = "pyspiel:liars_dice"
