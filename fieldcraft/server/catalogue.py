"""The games as the web table offers them: the lobby's list and each game's browser assets.

Everything comes from the games' declarations (``SPEC``), so a game added to
``fieldcraft/games`` appears in the lobby, with its board and words, without a server change.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from fieldcraft.core.registry import default_ruleset, game_spec, list_games
from fieldcraft.core.ruleset import FIXED_KEYS
from fieldcraft.core.spec import GameSpec

ASSET_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def game_catalogue() -> list[dict[str, Any]]:
    """Every registered game with its player range and changeable ruleset values."""
    out = []
    for name in list_games():
        spec = game_spec(name)
        rules = default_ruleset(name)
        out.append({"id": name, "title": spec.title, "min_players": spec.min_players,
                    "max_players": spec.max_players, "default_players": spec.default_players,
                    "ruleset": {k: v for k, v in rules.items() if k not in FIXED_KEYS}})
    return out


def assets(spec: GameSpec) -> dict[str, str]:
    """The browser files a game declares: ``{"board": "board.js", "board_css": ...}``."""
    return {kind: name for kind in ("board", "board_css")
            if (name := getattr(spec, kind)) is not None}


@cache
def asset(game: str, name: str) -> tuple[bytes, str] | None:
    """(content, media type) of a declared asset of ``game``; ``None`` for anything else, so
    nothing but the files a game names is ever served from its folder."""
    spec = game_spec(game)
    if name not in assets(spec).values():
        return None
    media = ASSET_TYPES.get(name[name.rfind("."):])
    path = resources.files(spec.package).joinpath(name)
    if media is None or not path.is_file():
        return None
    return path.read_bytes(), media
