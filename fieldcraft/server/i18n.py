"""Message catalogues: the page frame's in ``locales/<lang>.json``, each game's in its folder.

Why catalogues rather than strings in templates: the same keys are used by the server-rendered
pages and by the page's JavaScript (which receives the catalogue of the chosen language), so a
translation is one JSON file and a missing key shows up in one test. English is the fallback for
a key a catalogue lacks. A game's own words (its title, its board's labels) live in its folder's
``messages/<lang>.json``, so no shared file names a game; the frame's catalogue gets each game's
title as ``game.<id>`` for the lobby and page titles.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from fieldcraft.core import text
from fieldcraft.core.registry import game_spec, list_games
from fieldcraft.core.spec import GameSpec

LANGUAGES = text.LANGUAGES
DEFAULT = text.DEFAULT


@cache
def _frame(lang: str) -> dict[str, str]:
    base = _load_frame(DEFAULT)
    if lang == DEFAULT:
        return base
    return {**base, **_load_frame(lang)}


def _load_frame(lang: str) -> dict[str, str]:
    text = resources.files("fieldcraft.server").joinpath("locales", f"{lang}.json").read_text(
        encoding="utf-8")
    return json.loads(text)


def _game_file(package: str, folder: str, lang: str) -> dict[str, str]:
    return text._json(package, folder, lang)


def game_messages(spec: GameSpec, lang: str) -> dict[str, str]:
    """A game's own catalogue in ``lang`` (see :func:`fieldcraft.core.text.game_messages`)."""
    return text.game_messages(spec, lang)


def catalogue(lang: str) -> dict[str, str]:
    """The page frame's catalogue of ``lang`` with English filled in for any key it lacks, and
    every registered game's title as ``game.<id>``."""
    titles = {f"game.{name}": game_messages(game_spec(name), lang)["title"]
              for name in list_games()}
    return {**_frame(lang), **titles}


def pick_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    """Query parameter, then cookie, then the browser's Accept-Language, then English."""
    for choice in (query, cookie):
        if choice in LANGUAGES:
            return choice
    for part in (accept or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("ja"):
            return "ja"
        if tag.startswith("zh"):
            # Traditional Chinese is the only Chinese we have; zh-CN readers can still read it.
            return "zh-Hant"
        if tag.startswith("en"):
            return "en"
    return DEFAULT


class Translator:
    """``t("key", n=3)``: the catalogue text with ``{n}`` filled in; unknown keys show the key
    itself so a missing translation is visible rather than blank."""

    def __init__(self, lang: str):
        self.lang = lang
        self.messages = catalogue(lang)

    def __call__(self, key: str, **values: Any) -> str:
        text = self.messages.get(key, key)
        return text.format(**values) if values else text
