"""The ``fieldcraft`` command: play, serve, simulate, study, bench, and list the games.

Argument errors and rules errors exit with status 2 and a one-line message, never a traceback:
the people typing these commands are players and designers. Each command lives in its own
module of this package (its parser and what it runs); this one puts them together.
"""

from __future__ import annotations

import argparse
import sys

from fieldcraft.cli import bench, compare, play, playtest, report, serve, simulate, study
from fieldcraft.cli.args import parse_player_range, parse_seats, parse_sets
from fieldcraft.core.api import FieldcraftError

__all__ = ["build_parser", "main", "parse_player_range", "parse_seats", "parse_sets"]


class _VersionAction(argparse.Action):
    """``--version``: worked out only when asked (it looks up where the hot modules load from)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help=kwargs.get("help"))  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from fieldcraft.build import describe

        print(describe())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fieldcraft", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction,
                        help="the version and which build (pure Python or compiled) is active")
    sub = parser.add_subparsers(dest="command", required=True)
    serve.add(sub)
    play.add(sub)  # list, play
    simulate.add(sub)  # simulate, tournament
    study.add(sub)  # study, tune
    compare.add(sub)
    bench.add(sub)
    report.add(sub)
    playtest.add(sub)  # playtest create, report, close
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "players", None) is None and hasattr(args, "game") and args.game:
        if args.command in ("play", "simulate", "tournament"):
            from fieldcraft.core.registry import game_spec

            try:
                args.players = game_spec(args.game).default_players
            except FieldcraftError as exc:
                print(f"fieldcraft: error: {exc}", file=sys.stderr)
                return 2
    try:
        return args.func(args)
    except FieldcraftError as exc:
        print(f"fieldcraft: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head, say: not an error
        return 0


if __name__ == "__main__":
    sys.exit(main())
