"""Message catalogues: every piece of UI text lives in ``locales/<lang>.json``.

Why catalogues rather than strings in templates: the same keys are used by the server-rendered
pages and by the page's JavaScript (which receives the catalogue of the chosen language), so a
translation is one JSON file and a missing key shows up in one test. English is the fallback for
a key a catalogue lacks. Game action strings come from the engines and stay English.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES: dict[str, str] = {"en": "English", "ja": "日本語", "zh-Hant": "繁體中文"}
DEFAULT = "en"


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` with English filled in for any key it lacks."""
    base = _load(DEFAULT)
    if lang == DEFAULT:
        return base
    merged = dict(base)
    merged.update(_load(lang))
    return merged


def _load(lang: str) -> dict[str, str]:
    text = resources.files("fieldcraft.server").joinpath("locales", f"{lang}.json").read_text(
        encoding="utf-8")
    return json.loads(text)


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
