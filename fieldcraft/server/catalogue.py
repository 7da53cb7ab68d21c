"""The games as the web table offers them: the lobby's list and each game's browser assets.

Everything comes from the games' declarations (``SPEC``), so a game added to
``fieldcraft/games`` appears in the lobby, with its board and words, without a server change.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from fieldcraft.agents.levels import offered_levels
from fieldcraft.core import text
from fieldcraft.core.registry import default_ruleset, game_spec, list_games
from fieldcraft.core.ruleset import FIXED_KEYS
from fieldcraft.core.spec import GameSpec

ASSET_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
               ".svg": "image/svg+xml"}


def game_catalogue(lang: str = text.DEFAULT) -> list[dict[str, Any]]:
    """Every registered game in the lobby's order (``lobby_order``, then id) with its player
    range, changeable ruleset values, the string values each ruleset key is known to take
    (its default and the game's own test variants), and what the lobby card shows in
    ``lang``: the picture's address, the two-line ``about``, the playing ``time`` and whether
    there is a rules page. A game lacking any of these gets ``None`` (a plain card). ``bots``:
    the bot levels the lobby offers for it (:func:`offered_levels`), and ``bots_note`` what the
    game's text says of them, if anything (where a level is not measured to play much better
    than the one below, the menu says so beside it)."""
    out = []
    specs = sorted((game_spec(name) for name in list_games()), key=lambda s: (s.lobby_order, s.id))
    for spec in specs:
        name = spec.id
        rules = default_ruleset(name)
        words = text.game_messages(spec, lang)
        ruleset = {k: v for k, v in rules.items() if k not in FIXED_KEYS}
        out.append({"id": name, "title": spec.title, "min_players": spec.min_players,
                    "max_players": spec.max_players, "default_players": spec.default_players,
                    "ruleset": ruleset, "ruleset_values": known_values(spec, ruleset),
                    "name": words.get("title", spec.title),
                    "about": words.get("about"), "time": words.get("time"),
                    "icon": f"/games/{name}/{spec.icon}" if has_file(spec, spec.icon) else None,
                    "rules": rules_page(spec, lang) is not None,
                    "bots": offered_levels(name), "bots_note": words.get("bots_note")})
    return out


def known_values(spec: GameSpec, ruleset: dict[str, Any]) -> dict[str, list[str]]:
    """For each text-valued ruleset key, the values the game itself uses (its default and its
    ``test_configs`` variants): what the lobby offers as suggestions."""
    out: dict[str, list[str]] = {}
    for key, default in ruleset.items():
        if not isinstance(default, str):
            continue
        values = [default]
        for config in spec.test_configs:
            value = config.get(key)
            if isinstance(value, str) and value not in values:
                values.append(value)
        out[key] = values
    return out


def has_file(spec: GameSpec, name: str | None) -> bool:
    return name is not None and resources.files(spec.package).joinpath(name).is_file()


def rules_page(spec: GameSpec, lang: str) -> str | None:
    """The game's rules page (Markdown) in ``lang``, else in English, else ``None``."""
    if spec.rules_pages is None:
        return None
    folder = resources.files(spec.package).joinpath(spec.rules_pages)
    for code in (lang, text.DEFAULT):
        path = folder.joinpath(f"{code}.md")
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


def assets(spec: GameSpec) -> dict[str, str]:
    """The browser files a game declares: ``{"board": "board.js", "board_css": ...,
    "icon": ...}``."""
    return {kind: name for kind in ("board", "board_css", "icon")
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
