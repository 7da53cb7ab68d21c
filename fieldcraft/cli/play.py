"""``fieldcraft list`` and ``fieldcraft play``: the games, and a game in the terminal."""

from __future__ import annotations

import argparse
from typing import Any

from fieldcraft.cli.args import parse_seats, parse_sets
from fieldcraft.core.api import FieldcraftError


def _cmd_list(args: argparse.Namespace) -> int:
    from fieldcraft.core.registry import game_spec, list_games

    for name in list_games():
        spec = game_spec(name)
        print(f"{name}  ({spec.min_players}-{spec.max_players} players)  {spec.title}")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from fieldcraft.play import TerminalTable

    if args.replay is not None:
        return _play_branch(args)
    if args.game is None:
        raise FieldcraftError("play needs a game (see 'fieldcraft list'), or --from REPLAY.json")
    if args.step is not None:
        raise FieldcraftError("--step goes with --from REPLAY.json")
    humans = parse_seats(args.humans)
    if humans is None:
        humans = [args.seat]
    table = TerminalTable(args.game, args.players, humans, bot=args.bots, seed=args.seed,
                          overrides=parse_sets(args.set), lang=args.lang)
    table.run()
    return 0


def _play_branch(args: argparse.Namespace) -> int:
    """``play --from REPLAY.json --step K --seat S``: play on from a moment of a replay."""
    from fieldcraft.play import branch_table, read_replay

    if args.step is None:
        raise FieldcraftError("--from needs --step K: the step of the replay to play on from")
    if args.humans is not None or args.set:
        raise FieldcraftError("--from plays one seat (--seat) with the replay's own ruleset: "
                              "--humans and --set do not apply")
    if args.game is not None and args.game != read_replay(args.replay)["game"]:
        raise FieldcraftError(f"{args.replay} is a game of "
                              f"{read_replay(args.replay)['game']}, not {args.game}")
    table = branch_table(args.replay, args.step, args.seat, bot=args.bots, seed=args.seed,
                         lang=args.lang)
    table.run()
    return 0


def add(sub: Any) -> None:
    """Register this module's commands on the ``fieldcraft`` parser."""
    p = sub.add_parser("list", help="list the games")
    p.set_defaults(func=_cmd_list)
    p = sub.add_parser("play", help="play in the terminal against bots or hot-seat")
    p.add_argument("game", nargs="?", default=None)
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--humans", help="seats played by people at this terminal, e.g. 0,2")
    p.add_argument("--bots", default="random",
                   help="bot for the other seats: random, heuristic, ismcts, "
                        "or e.g. 'ismcts(time=2)' (default random)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="ruleset override")
    p.add_argument("--lang", default="en", help="language of the game text: en, ja, zh-Hant")
    p.add_argument("--from", dest="replay", metavar="REPLAY.json", default=None,
                   help="play on from a moment of this replay ({game, players, overrides, "
                        "actions}) as --seat, what that seat could not see re-dealt")
    p.add_argument("--step", type=int, default=None,
                   help="with --from: the number of actions of the replay to play on after")
    p.set_defaults(func=_cmd_play)
