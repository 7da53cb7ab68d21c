"""Playtests: a designer's named variant that the public plays from its own page.

A study plays bots against bots; a playtest asks people. The designer makes one from the
command line (``fieldcraft playtest create``): a game, a player range and ruleset overrides,
stored under a short name. ``/p/<name>`` shows anyone what the variant changes and a "Play"
button; each table made from it is tagged with the name (``game_tables.playtest``, in the same
commit as the table, so every one is counted) and asks its players the questionnaire
(:mod:`fieldcraft.server.feedback`). The designer alone holds a secret token (only its hash is
stored) that reads the report and closes the playtest.

Everything here is plain functions on an engine, so the command line and the server share it;
the routes run them in a thread.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from fieldcraft.agents import AGENTS
from fieldcraft.core.errors import FieldcraftError, RulesetError
from fieldcraft.core.registry import default_ruleset, game_spec, list_games, load_game
from fieldcraft.core.ruleset import FIXED_KEYS
from fieldcraft.server import errors as E
from fieldcraft.server import store
from fieldcraft.server.errors import TableError
from fieldcraft.server.models import game_tables, playtests, seats
from fieldcraft.server.seats import hash_token, new_token, same_token

NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$")
"""A playtest's name is its address (``/p/<name>``): lower-case letters, digits and inner
dashes, at most 40 characters, so it is typed and shared without escaping."""
DEFAULT_BOT = "heuristic"
"""Who plays the seats people leave to bots, unless the designer says: the game's own
heuristic plays like a person who knows the rules, which ``random`` does not."""
FINISHED_SHOWN = 50


@dataclass
class Playtest:
    name: str
    game: str
    min_players: int
    max_players: int
    overrides: dict[str, Any]
    bot: str
    designer_hash: str
    status: str
    created_at: datetime
    closed_at: datetime | None = None

    @property
    def open(self) -> bool:
        return self.status == "open"

    def public(self) -> dict[str, Any]:
        """What anyone is told (everything but the designer's token hash)."""
        return {"name": self.name, "game": self.game, "min_players": self.min_players,
                "max_players": self.max_players, "overrides": self.overrides, "bot": self.bot,
                "status": self.status, "url": f"/p/{self.name}",
                "changes": changes(self.game, self.overrides),
                "rules_url": f"/games/{self.game}/rules"}


def bad(message: str) -> TableError:
    return TableError(E.BAD_PLAYTEST, message)


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME.match(name):
        raise bad(f"a playtest's name is 1-40 lower-case letters, digits and inner dashes, "
                  f"not {str(name)[:60]!r}")
    return name


def check(game: str, players: list[int], overrides: dict[str, Any], bot: str
          ) -> tuple[int, int]:
    """A playtest's definition checked before anything is stored: a known game, a player range
    inside the game's, a known bot, and a ruleset every one of those player counts accepts
    (a table made later must never be refused for a ruleset the designer was not told of)."""
    if game not in list_games():
        raise TableError(E.UNKNOWN_GAME, f"unknown game {game!r}; known games: "
                         f"{', '.join(list_games())}")
    spec = game_spec(game)
    if not players:
        players = list(range(spec.min_players, spec.max_players + 1))
    low, high = min(players), max(players)
    if sorted(players) != list(range(low, high + 1)):
        raise bad("a playtest's players are one count or a range (3-5), not a list with gaps")
    if low < spec.min_players or high > spec.max_players:
        raise bad(f"{game} is for {spec.min_players}-{spec.max_players} players, not "
                  f"{low}-{high}" if low != high else f"{game} is for {spec.min_players}-"
                  f"{spec.max_players} players, not {low}")
    if bot not in AGENTS:
        raise bad(f"unknown bot {bot!r}; known bots: {', '.join(sorted(AGENTS))}")
    for count in range(low, high + 1):
        try:
            load_game(game, players=count, **overrides)
        except FieldcraftError as exc:
            raise RulesetError(f"at {count} players: {exc}") from None
        except (TypeError, ValueError, KeyError) as exc:
            raise RulesetError(f"at {count} players: {exc}") from None
    return low, high


def changes(game: str, overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """Each ruleset key the variant sets to something else than the game's default, with both
    values: what a player needs to read before sitting down to a variant."""
    base = default_ruleset(game)
    return [{"key": key, "default": base.get(key), "value": value}
            for key, value in sorted(overrides.items())
            if key not in FIXED_KEYS and base.get(key) != value]


def _row(rec: Any) -> Playtest:
    return Playtest(rec.name, rec.game, rec.min_players, rec.max_players,
                    json.loads(rec.overrides), rec.bot, rec.designer_hash, rec.status,
                    rec.created_at, rec.closed_at)


def create(engine: Engine, name: str, game: str, players: list[int],
           overrides: dict[str, Any], bot: str = DEFAULT_BOT) -> tuple[Playtest, str]:
    """Store a new playtest; returns it and the designer's token (shown once: only its hash
    is kept). Refused, storing nothing, for a bad definition or a name already taken."""
    check_name(name)
    low, high = check(game, players, overrides, bot)
    token = new_token()
    stamp = store.now()
    with engine.begin() as conn:
        if conn.execute(sa.select(playtests.c.name).where(playtests.c.name == name)).first():
            raise TableError(E.PLAYTEST_EXISTS, f"there is already a playtest {name!r}")
        conn.execute(playtests.insert().values(
            name=name, game=game, min_players=low, max_players=high,
            overrides=json.dumps(overrides, ensure_ascii=False), bot=bot,
            designer_hash=hash_token(token), status="open", created_at=stamp))
    found = read(engine, name)
    assert found is not None
    return found, token


def read(engine: Engine, name: str) -> Playtest | None:
    if not isinstance(name, str) or not NAME.match(name):
        return None
    with engine.connect() as conn:
        rec = conn.execute(playtests.select().where(playtests.c.name == name)).first()
    return _row(rec) if rec is not None else None


def require(engine: Engine, name: str) -> Playtest:
    found = read(engine, name)
    if found is None:
        raise TableError(E.NO_SUCH_PLAYTEST, f"no playtest {name[:60]!r}")
    return found


def check_designer(found: Playtest, token: Any) -> None:
    """Only the designer link's token reads the report or closes the playtest."""
    if not isinstance(token, str) or not token or not same_token(token, found.designer_hash):
        raise TableError(E.BAD_TOKEN, "this is not the designer's token of this playtest")


def close(engine: Engine, name: str) -> bool:
    """Close a playtest: no new tables (those being played finish, and their players are still
    asked). Returns whether it was open."""
    with engine.begin() as conn:
        done = conn.execute(playtests.update().where(playtests.c.name == name,
                                                     playtests.c.status == "open")
                            .values(status="closed", closed_at=store.now()))
        return done.rowcount == 1


def counts(engine: Engine, name: str) -> dict[str, int]:
    """How many tables the playtest made, by status (``made`` is all of them)."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(game_tables.c.status, sa.func.count())
                            .where(game_tables.c.playtest == name)
                            .group_by(game_tables.c.status)).all()
    out = {"made": 0, "waiting": 0, "playing": 0, "finished": 0}
    for status, n in rows:
        out[status] = out.get(status, 0) + int(n)
        out["made"] += int(n)
    return out


def finished_tables(engine: Engine, name: str, limit: int | None = FINISHED_SHOWN
                    ) -> list[dict[str, Any]]:
    """The playtest's finished games, newest first: id, players, result, seats (kind, bot,
    name), start and end times; for the public page (with a limit) and the report (without)."""
    query = (game_tables.select().where(game_tables.c.playtest == name,
                                        game_tables.c.status == "finished")
             .order_by(game_tables.c.updated_at.desc()))
    if limit is not None:
        query = query.limit(limit)
    out = []
    with engine.connect() as conn:
        for rec in conn.execute(query).fetchall():
            seated = [{"seat": s.seat, "kind": s.kind, "bot": s.bot, "name": s.name}
                      for s in conn.execute(seats.select().where(seats.c.table_id == rec.id)
                                            .order_by(seats.c.seat))]
            out.append({"id": rec.id, "players": rec.players,
                        "overrides": json.loads(rec.overrides),
                        "result": json.loads(rec.result) if rec.result else None,
                        "seats": seated, "created_at": rec.created_at,
                        "updated_at": rec.updated_at,
                        "url": f"/t/{rec.id}", "replay": f"/t/{rec.id}/replay"})
    return out


def designer_link(name: str, token: str, base: str = "") -> str:
    """The designer's page: the token is in the fragment, which browsers never send to the
    server, so it stays out of access logs and ``Referer``s."""
    return f"{base}/p/{name}#designer={token}"

