"""``fieldcraft report-game``: what each seat could deduce in a finished game."""

from __future__ import annotations

import argparse
import json
from typing import Any

from fieldcraft.core.api import FieldcraftError


def _cmd_report_game(args: argparse.Namespace) -> int:
    """What each seat could deduce in a finished game (see :mod:`fieldcraft.core.deduction`)."""
    from fieldcraft.core.deduction import deduction_report, read_replay, report_lines

    try:
        with open(args.replay, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FieldcraftError(f"cannot read {args.replay}: {exc}") from None
    game, actions = read_replay(doc)
    if args.seat is not None and not 1 <= args.seat <= game.num_players:
        raise FieldcraftError(f"--seat must be 1-{game.num_players}, got {args.seat}")
    seat = None if args.seat is None else args.seat - 1
    report = deduction_report(game, actions, seat=seat, samples=args.samples, seed=args.seed)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print("\n".join(report_lines(report)))
    return 0


def add(sub: Any) -> None:
    """Register this module's commands on the ``fieldcraft`` parser."""
    p = sub.add_parser("report-game", help="what each seat could deduce in a finished game")
    p.add_argument("replay", help='REPLAY.json: {"game", "players", "overrides", "actions"}')
    p.add_argument("--seat", type=int, default=None, help="only this seat (from 1)")
    p.add_argument("--samples", type=int, default=200,
                   help="resamples per step where a belief is estimated (default 200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.set_defaults(func=_cmd_report_game)
