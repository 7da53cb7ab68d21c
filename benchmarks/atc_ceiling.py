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
* ``clairvoyant``: the seat knows the whole future: at each of its decisions it plays every
  legal action out to the end on a copy of the game *with the true future* (the deal's own
  chance stream and every agent's own random stream, copied), everyone playing the heuristic
  from there, and keeps the action that ends best for it (the heuristic's own choice on a tie).
  It plays the deals of ``benchmarks/levels.py`` (same seeds, same seat order, Normal's agents
  seeded alike), so its figure sits beside Strong's on the same dice. No fair player knows the
  dice to come, so this is the room a real player could hope for at most (up to what a
  heuristic continuation leaves: a clairvoyant with a perfect continuation might do better).
* ``knows-roll-paired``: ``knows-roll`` on those same deals: the seat sees only its own coming
  roll (the next draw of the deal's chance stream) when it chooses a token. Between the two,
  what foresight of one roll is worth and what only foresight of the whole game is.

* ``room``: how much one better decision is worth, for a *fair* player. In heuristic
  self-play, at a sample of decisions (``--share``), every legal action is played out
  ``--rollouts`` times with everyone on the heuristic afterwards, each action on the same dice
  and bot streams (common random numbers). The rollouts are split in two halves: the first
  picks the action that looks best, the second measures its gain over the heuristic's choice
  without the first half's luck (a fair estimate for a player who picks by that many
  rollouts, and in expectation *below* the best action's true gain); the best mean over all
  rollouts, less the heuristic's, is above it in expectation (the largest of noisy means is
  biased upward). Summed per game and seat, the two bracket the win-rate points that a
  perfect one-turn improvement on the heuristic, played once at each decision, would add,
  which is what any better leaf evaluation for the heuristic's one-turn search could buy.

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

MODES = ("random-token", "knows-roll", "lookahead", "clairvoyant", "knows-roll-paired",
         "room")


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


def _rollout(state: Any, chance: random.Random, rngs: list[random.Random], seat: int
             ) -> tuple[float, int]:
    """Play ``state`` to its end with every seat on the heuristic, chance from ``chance`` and
    seat ``s`` deciding with ``rngs[s]`` (all consumed); the seat's result and score margin."""
    while True:
        player = state.current_player()
        if player == TERMINAL:
            scores = state.scores()
            best_other = max(v for s, v in enumerate(scores) if s != seat)
            return state.returns()[seat], scores[seat] - best_other
        if player == CHANCE:
            state._apply(sample_chance(state, chance))
        elif len(legal := state.legal_actions()) == 1:
            state._apply(legal[0])
        else:
            state._apply(heuristic.choose(View(state, player), rngs[player]))


def _copy(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def _knows_roll_choice(state: Any, seat: int, chance: random.Random, rng: random.Random
                       ) -> int:
    """The heuristic's choice, but at a token choice the coming roll (the chance stream's next
    draw, copied) is known and each token is judged for that roll."""
    if state.phase != TOKEN:
        return heuristic.choose(View(state, seat), rng)
    scored = []
    for action in state.legal_actions():
        child = _after(state, action)
        if child.current_player() == CHANCE and child.phase == ROLL:
            child._apply(sample_chance(child, _copy(chance)))
        scored.append((heuristic._settle(child, seat), -action, action))
    return max(scored)[2]


def clairvoyant_game(game: Any, seat: int, seed: int, horizon: str = "game") -> float:
    """One game as ``benchmarks/levels.py`` plays deal ``seed``: the clairvoyant at ``seat``,
    the heuristic elsewhere, agents seeded in seat order from the deal's stream, which then
    draws every chance outcome (as :func:`~fieldcraft.sim.simulate.play_game` does)."""
    chance = random.Random(seed)
    rngs = [random.Random(chance.randrange(2**32)) for _ in range(game.num_players)]
    state = game.new_initial_state()
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[seat]
        if player == CHANCE:
            state._apply(sample_chance(state, chance))
            continue
        legal = state.legal_actions()
        if len(legal) == 1:
            state._apply(legal[0])
            continue
        if player != seat:
            state._apply(heuristic.choose(View(state, player), rngs[player]))
            continue
        if horizon == "roll":
            state._apply(_knows_roll_choice(state, seat, chance, rngs[seat]))
            continue
        own = heuristic.choose(View(state, player), _copy(rngs[player]))
        outcomes = {}
        for action in legal:
            child = state.clone()
            child._apply(action)
            agent_rngs = [_copy(r) for r in rngs]
            heuristic.choose(View(state, player), agent_rngs[player])  # the draw own took
            outcomes[action] = _rollout(child, _copy(chance), agent_rngs, seat)
        best = max(outcomes.values())
        choice = own if outcomes[own] == best else max(legal, key=lambda a: outcomes[a])
        heuristic.choose(View(state, player), rngs[player])  # keep its stream in step
        state._apply(choice)


def clairvoyant_run(players: int, deals: int, seed: int, horizon: str = "game"
                    ) -> dict[str, Any]:
    """Every seat of ``deals`` deals in turn (levels.py's seeds); the clairvoyant's win rate."""
    game = load_game("against-the-current", players=players)
    start = time.perf_counter()
    wins = 0.0
    per_deal = []
    for i in range(deals):
        got = [clairvoyant_game(game, seat, game_seed(seed, i), horizon)
               for seat in range(players)]
        per_deal.append(got)
        wins += sum(got)
    n = deals * players
    low, high = wilson(wins, n)
    return {"mode": "clairvoyant" if horizon == "game" else "knows-roll-paired",
            "players": players, "deals": deals, "seed": seed,
            "games": n, "wins": wins, "rate": wins / n, "ci95": [low, high],
            "per_deal": per_deal, "seconds": round(time.perf_counter() - start, 1)}


def _action_results(state: Any, rollouts: int, seed: int) -> dict[int, list[float]]:
    """Each legal action's results for the mover over ``rollouts`` playouts, playout ``k`` of
    every action on the same chance and bot streams."""
    seat = state.current_player()
    out: dict[int, list[float]] = {a: [] for a in state.legal_actions()}
    for k in range(rollouts):
        chance = random.Random(seed * 1_000_003 + k)
        rngs = [random.Random(chance.randrange(2**32)) for _ in range(state.game.num_players)]
        for action in out:
            out[action].append(_rollout(_after(state, action), _copy(chance),
                                        [_copy(r) for r in rngs], seat)[0])
    return out


def room_run(players: int, games: int, seed: int, rollouts: int, share: float,
             progress: bool = False) -> dict[str, Any]:
    """The ``room`` probe (see the module docstring)."""
    game = load_game("against-the-current", players=players)
    pick = random.Random(seed + 1)
    start = time.perf_counter()
    sampled = 0
    split_gains: list[float] = []  # per sampled decision: chosen by half A, measured on half B
    max_gains: list[float] = []  # per sampled decision: best mean of all, less the heuristic's
    half = rollouts // 2
    for i in range(games):
        deal = random.Random(game_seed(seed, i))
        rngs = [random.Random(deal.randrange(2**32)) for _ in range(players)]
        state = game.new_initial_state()
        while (player := state.current_player()) != TERMINAL:
            if player == CHANCE:
                state.apply_action(sample_chance(state, deal))
                continue
            theirs = heuristic.choose(View(state, player), rngs[player])
            if (len(state.legal_actions()) > 1 and state.phase not in (PICK, TRIB)
                    and pick.random() < share):
                results = _action_results(state, rollouts, seed * 100_003 + sampled)
                sampled += 1
                base_a = sum(results[theirs][:half])
                best_a = max(results, key=lambda a: (sum(results[a][:half]) - base_a, a == theirs))
                split_gains.append((sum(results[best_a][half:]) - sum(results[theirs][half:]))
                                   / (rollouts - half))
                means = {a: sum(r) / rollouts for a, r in results.items()}
                max_gains.append(max(means.values()) - means[theirs])
            state.apply_action(theirs)
        if progress:
            print(f"room {i + 1}/{games} games, {sampled} decisions sampled, split "
                  f"{sum(split_gains):+.3f}, max {sum(max_gains):+.3f} "
                  f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    scale = 100.0 / (share * games * players)  # sampled gains -> win points a seat a game
    out: dict[str, Any] = {"mode": "room", "players": players, "games": games, "seed": seed,
                           "rollouts": rollouts, "share": share, "sampled": sampled,
                           "seconds": round(time.perf_counter() - start, 1)}
    for name, gains in (("split", split_gains), ("max", max_gains)):
        n = len(gains)
        mean = sum(gains) / n if n else 0.0
        sd = (sum((g - mean) ** 2 for g in gains) / (n - 1)) ** 0.5 if n > 1 else 0.0
        se_total = sd * n ** 0.5  # of the sum over sampled decisions
        out[name] = {"points_per_seat_game": sum(gains) * scale,
                     "ci95": [(sum(gains) - 1.96 * se_total) * scale,
                              (sum(gains) + 1.96 * se_total) * scale]}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--turns", type=int, default=2, help="lookahead: turns searched")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rollouts", type=int, default=64, help="room: playouts an action")
    parser.add_argument("--share", type=float, default=0.25, help="room: decisions sampled")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 1 or args.turns < 1:
        parser.error("--games and --turns must be at least 1")
    if args.mode == "room":
        if args.rollouts < 2 or not 0.0 < args.share <= 1.0:
            parser.error("room wants --rollouts of 2 or more and --share in (0, 1]")
        print(json.dumps(room_run(args.players, args.games, args.seed, args.rollouts,
                                  args.share, args.progress)))
        return 0
    if args.mode in ("clairvoyant", "knows-roll-paired"):  # --games counts deals, each
        horizon = "game" if args.mode == "clairvoyant" else "roll"  # played from every seat
        result = clairvoyant_run(args.players, args.games, args.seed, horizon)
        print(json.dumps(result) if args.json else
              f"{args.mode} vs heuristic, {args.players} players, {args.games} deals: "
              f"{result['wins']:g}/{result['games']} = {result['rate']:.1%} "
              f"[{result['ci95'][0]:.1%}, {result['ci95'][1]:.1%}]  ({result['seconds']} s)")
        return 0
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
