"""``fieldcraft simulate`` and ``fieldcraft tournament``: many bot games, counted."""

from __future__ import annotations

import argparse
import json
from typing import Any

from fieldcraft.agents.specs import describe_levels, resolve_agents, split_agents
from fieldcraft.cli.args import parse_sets
from fieldcraft.core.api import FieldcraftError


def _cmd_simulate(args: argparse.Namespace) -> int:
    from fieldcraft.sim.simulate import simulate

    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    result = simulate(args.game, args.players, args.games, args.seed, parse_sets(args.set))
    if args.json:
        keys = ("game", "players", "games", "wins_by_faction", "wins_by_seat", "no_winner",
                "mean_steps", "seed", "overrides", "endings")
        print(json.dumps({k: result[k] for k in keys}))
        return 0
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    games = result["games"]
    console.print(f"[bold]{result['game']}[/], {result['players']} players, {games} random-bot "
                  f"games, seed {result['seed']}; mean {result['mean_steps']:.1f} steps a game")
    if result["wins_by_faction"]:
        table = Table("side", "games won", "share")
        for label, wins in result["wins_by_faction"].items():
            table.add_row(label, str(wins), f"{wins / games:.1%}")
        console.print(table)
    table = Table("seat", "games won", "share")
    for seat, wins in enumerate(result["wins_by_seat"]):
        table.add_row(str(seat), str(wins), f"{wins / games:.1%}")
    console.print(table)
    console.print(f"games nobody won: {result['no_winner']}")
    if result["endings"]:
        console.print("how games ended: " + ", ".join(
            f"{k} {v}" for k, v in result["endings"].items()))
    return 0


def _cmd_tournament(args: argparse.Namespace) -> int:
    from fieldcraft.sim.tournament import tournament

    if args.games < 1:
        raise FieldcraftError("--games must be at least 1")
    chosen = resolve_agents(args.game, split_agents(args.agents), args.players)
    if len(chosen) < 2:
        raise FieldcraftError("--agents needs at least two agents, e.g. heuristic,random "
                              "or strong,normal")
    agents = [c.spec for c in chosen]
    labels = {c.spec: c.label for c in chosen}  # a level and its own spec are one agent
    if args.json:
        result = tournament(args.game, args.players, agents, args.games, args.seed,
                            parse_sets(args.set))
        _name_levels(result, chosen)
        print(json.dumps(result))
        return 0
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    console = Console(highlight=False)
    if describe_levels(chosen):
        console.print(f"levels in {args.game}: {describe_levels(chosen)}")
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=console) as progress:
        task = progress.add_task(f"{args.game} {args.players}p", total=args.games)
        result = tournament(args.game, args.players, agents, args.games, args.seed,
                            parse_sets(args.set), on_game=lambda _: progress.advance(task))
    table = Table("agent", "games", "wins", "win rate", "Wilson 95%", "OpenSkill mu",
                  "sigma", "ordinal")
    for row in result["agents"]:
        low, high = row["wilson95"]
        table.add_row(labels.get(row["agent"], row["agent"]), str(row["games"]),
                      f"{row['wins']:g}", f"{row['win_rate']:.1%}", f"{low:.1%} - {high:.1%}",
                      f"{row['mu']:.2f}", f"{row['sigma']:.2f}", f"{row['ordinal']:.2f}")
    console.print(table)
    console.print(f"wins by seat: {result['wins_by_seat']}; mean length "
                  f"{result['mean_length']:.1f} actions")
    return 0


def _name_levels(result: dict[str, Any], chosen: list[Any]) -> None:
    """Add to ``--json`` output what each level played: ``levels`` (level -> spec) and, on each
    agent's row, its ``level`` and ``label`` (``strong = ismcts(iterations=4000)``)."""
    result["levels"] = {c.level: c.spec for c in chosen if c.level}
    by_spec = {c.spec: c for c in chosen if c.level}
    for row in result["agents"]:
        found = by_spec.get(row["agent"])
        row["level"] = found.level if found else None
        row["label"] = found.label if found else row["agent"]


def add(sub: Any) -> None:
    """Register this module's commands on the ``fieldcraft`` parser."""
    p = sub.add_parser("simulate", help="play many random-bot games and count wins")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.set_defaults(func=_cmd_simulate)
    p = sub.add_parser("tournament", help="seat-rotated games between agents")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--agents", default="heuristic,random",
                   help="comma-separated agent specs or bot levels (easy, normal, strong: "
                        "the game's own agent for each), e.g. 'strong,normal' or "
                        "'ismcts(time=1),heuristic,random'")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.set_defaults(func=_cmd_tournament)
