"""Game text for people: catalogues per language and the one small template language.

Why a template language of our own rather than English strings from the engine: a log line or a
choice is data (``{"key", "params"}``), and each reader's page or terminal renders it in its own
language from the game's catalogue (``games/<game>/messages/<lang>.json``). The browser
(``server/static/common.js``, ``formatText``) and this module implement the same rules, and a
test renders the same events with both.

Keys are namespaced by a dot: ``log.<key>`` (an event), ``choice.<kind>`` (a choice label),
``end.<key>`` (why a game ended), ``col.<key>`` (a final-scores column), and any namespace a
game uses for names (``card.3``, ``role.SPY``, ``terrain.rapids``, ``phase.bidding``).

Placeholders in a template:

* ``{name}``: the parameter as is;
* ``{name|seat}``: a seat, as the reader knows it: "you" for the reader's own seat, otherwise
  the player's name (or "Seat 3": seats are shown from 1);
* ``{name|+1}``: a 0-based index shown from 1 (a row slot, a space);
* ``{name|ns}``: the catalogue's ``ns.<value>`` (a card's or terrain's name), the value itself
  when the catalogue has none; a list is rendered item by item and joined with ``_sep``.

Variants: ``<key>+<param>`` is used instead of ``<key>`` when that parameter is set (the first
such in the parameters' order), so one kind of choice can read "Name Ana as…" or "Name reserve
card 2 as…" by which argument it has. Voice: when the event's ``seat`` parameter is the reader's
seat and the catalogue has ``<key>.you``, that template is used ("You pass" beside "Ana
passes").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, TypedDict

LANGUAGES: dict[str, str] = {"en": "English", "ja": "日本語", "zh-Hant": "繁體中文"}
DEFAULT = "en"

_FIELD = re.compile(r"\{(\w+)(?:\|([\w.+-]+))?\}")


class Event(TypedDict):
    """Something that happened, as a game's notation tells one seat: a catalogue key (under
    ``log.``) and the values its template needs."""

    key: str
    params: dict[str, Any]


@cache
def _json(package: str, folder: str, lang: str) -> dict[str, str]:
    path = resources.files(package).joinpath(folder, f"{lang}.json")
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def core_messages(lang: str) -> dict[str, str]:
    """The words every game shares ("you", "Seat {n}", the list separator)."""
    return {**_json("fieldcraft.core", "messages", DEFAULT),
            **(_json("fieldcraft.core", "messages", lang) if lang != DEFAULT else {})}


def game_file(spec: Any, lang: str) -> dict[str, str]:
    """One language's catalogue file of a game, exactly as written (no fallback)."""
    return _json(spec.package, spec.messages, lang)


def game_messages(spec: Any, lang: str) -> dict[str, str]:
    """A game's catalogue in ``lang`` over the shared words, English filled in for a missing
    key. Its English title is the one in its ``SPEC`` (so a copied folder is renamed in one
    place); other languages translate it as ``title``."""
    merged = {**core_messages(lang), **game_file(spec, DEFAULT), "title": spec.title}
    if lang != DEFAULT:
        merged.update(game_file(spec, lang))
    return merged


class MissingText(KeyError):
    """A catalogue lacks a key that a game's event or choice needs."""


class Text:
    """One reader's renderer: a catalogue, the reader's seat and the seats' names.

    ``names(seat)`` gives a player's name (``None``: say "Seat n"). ``strict`` raises
    :class:`MissingText` for a missing key instead of falling back (the conformance check)."""

    def __init__(self, messages: dict[str, str], viewer: int | None = None,
                 names: Callable[[int], str | None] | None = None, strict: bool = False):
        self.messages = messages
        self.viewer = viewer
        self.names = names
        self.strict = strict

    def seat(self, seat: Any) -> str:
        if not isinstance(seat, int):
            return "—" if seat is None else str(seat)
        if seat == self.viewer:
            return self.messages.get("you", "you")
        name = self.names(seat) if self.names else None
        return name or self.messages.get("seat", "Seat {n}").replace("{n}", str(seat + 1))

    def lookup(self, key: str) -> str:
        text = self.messages.get(key)
        if text is None:
            if self.strict:
                raise MissingText(key)
            return key
        return text

    def name(self, namespace: str, value: Any) -> str:
        if isinstance(value, list | tuple):
            return self.messages.get("_sep", ", ").join(self.name(namespace, v) for v in value)
        key = f"{namespace}.{value}"
        text = self.messages.get(key)
        if text is None:
            if self.strict:
                raise MissingText(key)
            return str(value)
        return text

    def plain(self, value: Any) -> str:
        """A value shown as is, the way the page's JavaScript shows it (lists joined with the
        language's separator, booleans in lower case)."""
        if value is None:
            return "—"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list | tuple):
            return self.messages.get("_sep", ", ").join(self.plain(v) for v in value)
        return str(value)

    def format(self, template: str, params: dict[str, Any]) -> str:
        def field(match: re.Match[str]) -> str:
            name, how = match.group(1), match.group(2)
            if name not in params:
                if self.strict:
                    raise MissingText(f"parameter {name!r} in {template!r}")
                return match.group(0)
            value = params[name]
            if how is None:
                return self.plain(value)
            if how == "seat":
                if isinstance(value, list | tuple):
                    return self.messages.get("_sep", ", ").join(self.seat(v) for v in value)
                return self.seat(value)
            if how == "+1":
                return str(value + 1) if isinstance(value, int) else str(value)
            return self.name(how, value)

        return _FIELD.sub(field, template)

    def variant(self, full: str, params: dict[str, Any]) -> str:
        """The most specific key for ``params``: ``full+<arg>`` for the first parameter that
        is set and has such a key (one kind of choice whose args differ: a seat or a reserve
        card), then the reader's voice ``.you``."""
        for name, value in params.items():
            if value is not None and f"{full}+{name}" in self.messages:
                full = f"{full}+{name}"
                break
        if self.viewer is not None and params.get("seat") == self.viewer \
                and f"{full}.you" in self.messages:
            full += ".you"
        return full

    def render(self, namespace: str, key: str, params: dict[str, Any] | None = None) -> str:
        """``namespace.key`` with ``params``, in the reader's voice."""
        params = params or {}
        return self.format(self.lookup(self.variant(f"{namespace}.{key}", params)), params)

    def event(self, event: Event) -> str:
        return self.render("log", event["key"], event.get("params"))

    def choice(self, choice: dict[str, Any]) -> str:
        """A choice's label in this language (the English label when the catalogue has no
        ``choice.<kind>`` and the renderer is not strict)."""
        key = f"choice.{choice['kind']}"
        if key not in self.messages and not self.strict:
            return choice["label"]
        args = choice.get("args") or {}
        for name, value in args.items():
            if value is not None and f"{key}+{name}" in self.messages:
                key = f"{key}+{name}"
                break
        return self.format(self.lookup(key), args)
