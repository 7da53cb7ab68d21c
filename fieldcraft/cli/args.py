"""What several commands read the same way: ruleset overrides, seat lists, player ranges."""

from __future__ import annotations

import json
from typing import Any

from fieldcraft.core.api import FieldcraftError


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """``--set key=value`` pairs; values are read as JSON when they can be (numbers, lists...).
    ``--set @file.json`` reads a whole set of overrides (``fieldcraft tune``'s ``best.json``)."""
    overrides: dict[str, Any] = {}
    for item in items or []:
        if item.startswith("@"):
            overrides.update(_read_overrides(item[1:]))
            continue
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise FieldcraftError(f"--set expects key=value, got {item!r}")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    return overrides


def _read_overrides(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise FieldcraftError(f"--set @{path}: cannot read overrides: {exc}") from None
    if not isinstance(data, dict):
        raise FieldcraftError(f"--set @{path}: expected a JSON object of ruleset overrides")
    return data


def parse_seats(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(part) for part in text.split(",") if part.strip() != ""]
    except ValueError:
        raise FieldcraftError(f"--humans expects seat numbers like 0,2; got {text!r}") from None


def parse_player_range(text: str) -> list[int]:
    """``5`` -> [5]; ``3-8`` -> [3, 4, ..., 8]; ``3,5,8`` -> [3, 5, 8]."""
    try:
        if "-" in text:
            low, high = (int(x) for x in text.split("-", 1))
            return list(range(low, high + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise FieldcraftError(f"--players expects 5, 3-8 or 3,5,8; got {text!r}") from None
