"""Golden replays: what a refactor must leave unchanged, recorded before code moves.

For every game, player count and test configuration, seeded random games are played and each is
reduced to a digest of everything a player or a bot could notice: at every step the player to
move, the legal actions, the chosen action's name, the log line of every seat and of a
spectator, and every seat's observation (and the spectator's); at the end the returns and the
outcome. Heuristic-bot games and ISMCTS decisions at a fixed seed and budget are recorded too,
because the bots and the search evaluation move with the games.

Only digests are committed (a few KB); when one differs, ``python -m tests.golden.golden diff``
on the old and new code prints the first step at which the streams part.

    python -m tests.golden.golden record            # write tests/golden/*.json
    python -m tests.golden.golden check [--games N] # compare (exit 1 on a difference)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from fieldcraft.core import load_game, sample_chance

HERE = Path(__file__).parent
GAMES_PER_CONFIG = 50
BOT_GAMES = 4
SEARCH_POSITIONS = 6
SEARCH_ITERATIONS = 300

# The configurations recorded: every player count of every game, with the variants the
# conformance suite runs. Written out here (not read from the games) so that the recording does
# not depend on the code it is meant to check.
CONFIGS: dict[str, tuple[range, list[dict[str, Any]]]] = {
    "under-current": (range(3, 9), [{}]),
    "spy-tracker": (range(2, 5), [{}, {"first_bidder": "seat 0", "bidder_chooses_next": False,
                                       "negative_counts": False, "max_bid": "deck",
                                       "opener_if_loser_eliminated": "next_seat"}]),
    "against-the-current": (range(2, 5), [{}, {"challenge_success": 0.5}]),
    "undercover": (range(2, 7), [{}, {"variant": "classified"}]),
}


def _dump(doc: Any) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def stream(game: Any, seed: int, observe: bool = True) -> list[Any]:
    """The step-by-step record of one seeded random game (a list of JSON-able entries)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    seats = list(range(game.num_players)) + [None]
    out: list[Any] = []
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        if state.is_chance_node():
            action = sample_chance(state, rng)
        else:
            action = legal[rng.randrange(len(legal))]
        entry: list[Any] = [player, legal, action, state.action_to_string(action),
                            [state.describe_action(action, s) for s in seats]]
        if observe:
            entry.append([state.observation(s) for s in seats])
        out.append(entry)
        state.apply_action(action)
    out.append(["end", state.returns(), state.outcome(), [state.observation(s) for s in seats]])
    return out


def digest(entries: list[Any]) -> str:
    h = hashlib.sha256()
    for entry in entries:
        h.update(_dump(entry))
    return h.hexdigest()[:24]


def bot_games(name: str, players: int, overrides: dict[str, Any], games: int) -> list[Any]:
    """Histories of games with the heuristic bot in every seat (seeded)."""
    from fieldcraft.agents import View, make_agent

    game = load_game(name, players=players, **overrides)
    out = []
    for seed in range(games):
        rng = random.Random(1000 + seed)
        agents = [make_agent("heuristic", seed * 10 + s) for s in range(players)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                p = state.current_player()
                state.apply_action(agents[p].act(View(state, p)))
        out.append(digest([state.history(), state.returns()]))
    return out


def search_decisions(name: str, players: int, overrides: dict[str, Any] | None = None
                     ) -> list[Any]:
    """ISMCTS root statistics at seeded positions with a fixed budget and seed."""
    from fieldcraft.agents import View
    from fieldcraft.agents.ismcts import ISMCTSAgent
    from fieldcraft.sim.bench import decision_positions

    out = []
    for state in decision_positions(name, players, SEARCH_POSITIONS, seed=3,
                                    overrides=overrides):
        agent = ISMCTSAgent(iterations=SEARCH_ITERATIONS, seed=5)
        root = agent.search(View(state, state.current_player()))
        stats = sorted(zip(root.actions, root.n, [round(w, 9) for w in root.w], strict=True))
        out.append(digest([stats]))
    return out


def config_key(name: str, players: int, overrides: dict[str, Any]) -> str:
    extra = ",".join(f"{k}={v}" for k, v in sorted(overrides.items()))
    return f"{name}/{players}" + (f"/{extra}" if extra else "")


def record_game(name: str, games: int = GAMES_PER_CONFIG) -> dict[str, Any]:
    players_range, configs = CONFIGS[name]
    doc: dict[str, Any] = {"games": games, "replays": {}, "bots": {}, "search": {}}
    for overrides in configs:
        for players in players_range:
            game = load_game(name, players=players, **overrides)
            key = config_key(name, players, overrides)
            doc["replays"][key] = [digest(stream(game, seed)) for seed in range(games)]
            if not overrides:
                doc["bots"][key] = bot_games(name, players, overrides, BOT_GAMES)
                doc["search"][key] = search_decisions(name, players)
    return doc


def path_for(name: str) -> Path:
    return HERE / f"{name}.json"


def check_game(name: str, games: int | None = None, overrides_extra: dict[str, Any] | None = None,
               bots: bool = True) -> list[str]:
    """Keys (with game numbers) whose digests differ from the recording."""
    doc = json.loads(path_for(name).read_text())
    players_range, configs = CONFIGS[name]
    games = doc["games"] if games is None else min(games, doc["games"])
    extra = overrides_extra or {}
    diffs = []
    for overrides in configs:
        for players in players_range:
            key = config_key(name, players, overrides)
            game = load_game(name, players=players, **overrides, **extra)
            want = doc["replays"][key]
            for seed in range(games):
                if digest(stream(game, seed)) != want[seed]:
                    diffs.append(f"{key}#{seed}")
            if bots and not overrides:
                if bot_games(name, players, extra, BOT_GAMES) != doc["bots"][key]:
                    diffs.append(f"{key} bots")
                if search_decisions(name, players, extra) != doc["search"][key]:
                    diffs.append(f"{key} search")
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["record", "check", "diff"])
    parser.add_argument("--game", action="append")
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0, help="diff: the game to print")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--set", action="append", default=[], help="diff/check: override")
    args = parser.parse_args(argv)
    names = args.game or list(CONFIGS)
    extra = {k: json.loads(v) for k, _, v in (s.partition("=") for s in args.set)}
    if args.command == "record":
        for name in names:
            path_for(name).write_text(json.dumps(record_game(name, args.games or GAMES_PER_CONFIG),
                                                 indent=0, sort_keys=True) + "\n")
            print("recorded", name, flush=True)
        return 0
    if args.command == "diff":  # print one game's stream, to diff between two checkouts
        name = names[0]
        game = load_game(name, players=args.players, **extra)
        for i, entry in enumerate(stream(game, args.seed)):
            print(i, json.dumps(entry, sort_keys=True))
        return 0
    bad = 0
    for name in names:
        diffs = check_game(name, args.games, extra)
        print(name, "equal" if not diffs else f"{len(diffs)} differ: {diffs[:20]}", flush=True)
        bad += len(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
