"""Terminal picture of an Against the Current observation (Rich markup), in the reader's
language: every word comes from the game's catalogue through ``text`` (English without one).

Works from the observation dict only, so it can never show more than the seat is allowed to see.
Beside each river space it shows what that terrain does to the reader's own animal, the
terminal's form of the board's legend.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from rich.markup import escape

from fieldcraft.core.text import Text, game_messages

COLOURS = ("red", "blue", "yellow", "magenta")
SHAPES = ("●", "■", "◆", "▲")
SYMBOL = {"Open Water": "≈", "Pollution": "☣", "Fishing Nets": "▦", "Water Plants": "♣",
          "Rapids": "»", "Dam": "▥", "Turbine": "✲"}
TERRAIN_STYLE = {"Open Water": "blue", "Pollution": "red", "Fishing Nets": "bright_red",
                 "Water Plants": "green", "Rapids": "bright_cyan", "Dam": "yellow",
                 "Turbine": "bright_magenta"}
_CODES = {"+1": "fwd1", "PASS": "pass", "-1": "back1", "-2": "back2", "STOP": "stop"}


@cache
def _default_table() -> dict[str, dict[str, str]]:
    """The default ruleset's terrain table (the observation does not carry the ruleset)."""
    raw = resources.files(__package__).joinpath("ruleset.json").read_text(encoding="utf-8")
    return json.loads(raw)["terrain_table"]


def _english() -> Text:
    from fieldcraft.core.registry import game_spec

    return Text(game_messages(game_spec("against-the-current"), "en"))


def _token(text: Text, seat: int, letter: str, tok: dict[str, Any] | None = None) -> str:
    marks = ""
    if tok:
        if tok["stop"]:
            marks += " " + text.lookup("ui.stopped")
        if tok["safe_shelter"]:
            marks += " ⛨"
        if tok["river_support"]:
            marks += " ✚"
        if tok["pressure_wave"]:
            marks += " ≋"
    return f"[{COLOURS[seat % 4]}]{SHAPES[seat % 4]}{letter}{escape(marks)}[/]"


def _tokens_at(obs: dict[str, Any], text: Text, where: int) -> str:
    out = []
    for player in obs["players"]:
        for tok in player["tokens"]:
            if tok["position"] == where:
                out.append(_token(text, player["seat"], tok["token"], tok))
    return " ".join(out)


def _ui(text: Text, key: str, **params: Any) -> str:
    """A ``ui.`` message of the catalogue, filled in and escaped for Rich markup."""
    return escape(text.format(text.lookup(f"ui.{key}"), params))


def render(observation: dict[str, Any], text: Text | None = None) -> str:
    """The river from Start to River Sanctuary (each space's terrain as symbol, colour and name,
    what it does to the reader's animal, markers, tokens), then each player's animal, abilities
    and score, then the tributaries and the event deck."""
    obs = observation
    text = text or _english()
    lines = _heading(obs, text) + _river(obs, text)
    lines.append("")
    lines += _players(obs, text)
    lines.append("")
    lines += _tributaries_and_deck(obs, text)
    return "\n".join(lines)


def _heading(obs: dict[str, Any], text: Text) -> list[str]:
    """The title with the Current, then whose turn, the phase, the roll and the event drawn."""
    current = _ui(text, "current", n=obs["current"], of=obs["currents"])
    head = f"[bold]{escape(text.lookup('title'))}[/] · {current}"
    if obs["extra_wheel_steps"]:
        head += f" ({_ui(text, 'extra_steps', n=obs['extra_wheel_steps'])})"
    bits = []
    if obs["turn_seat"] is not None and obs["phase"] != "game over":
        bits.append(escape(text.render("ui", "turn", {"seat": obs["turn_seat"]})))
    bits.append(escape(text.name("phase", obs["phase"])))
    if obs["roll"]:
        bits.append(_ui(text, "roll", n=obs["roll"]))
    if obs["event"]:
        bits.append(f"★ [bold]{escape(text.name('event', obs['event']))}[/]: "
                    f"{escape(text.lookup('event_text.' + obs['event']))}")
    return [head, "  ".join(bits)]


def _river(obs: dict[str, Any], text: Text) -> list[str]:
    """One line per space from Start to River Sanctuary with the tokens on it, each dealt space
    with its terrain, what that does to the reader's animal (the board's legend, from the
    default ruleset), its marker and Pressure Markers."""
    lines = []
    seat = obs["seat"]
    mine = obs["players"][seat]["animal"] if seat is not None else None
    table = _default_table().get(mine) if mine else None
    lines.append(f"  {escape(text.name('space', 0)):<14} {_tokens_at(obs, text, 0)}".rstrip())
    for space in obs["spaces"]:
        num = space["space"]
        if space["card"] is None:
            lines.append(f"  {num:>2}  ?")
            continue
        terrain = space["terrain"]
        style = TERRAIN_STYLE.get(terrain, "white")
        name = escape(text.name("terrain", terrain))
        label = f"[{style}]{SYMBOL.get(terrain, '?')} {name}[/]"
        notes = []
        if table:
            notes.append(escape(text.name("short", _CODES[table[terrain]])))
        if space["marker"]:
            notes.append(_ui(text, "space_marker", marker=space["marker"],
                             printed=space["printed"]))
        for o in space["pressure"]:
            notes.append(_ui(text, "pressure_on", seat=o))
        note = f" ({'; '.join(notes)})" if notes else ""
        lines.append(f"  {num:>2}  {label}{note}  {_tokens_at(obs, text, num)}".rstrip())
    lines.append(f"  {escape(text.name('space', 'sanctuary')):<14} "
                 f"{_tokens_at(obs, text, obs['sanctuary'])}".rstrip())
    if table:
        lines.append("  " + _ui(text, "legend_mine", animal=mine) + " · "
                     + _ui(text, "legend_key"))
    return lines


def _players(obs: dict[str, Any], text: Text) -> list[str]:
    """One line per seat: its animal, abilities (ready or used), score and the effects on it."""
    lines = []
    for player in obs["players"]:
        s = player["seat"]
        who = f"[{COLOURS[s % 4]}]{SHAPES[s % 4]} {escape(text.seat(s))}[/]"
        if player["animal"] is None:
            lines.append(who)
            continue
        boost = _ui(text, "boost", boost=player["boost"]) + " (" + _ui(
            text, "ready" if player["boost_left"] else "used") + ")"
        pressure = _ui(text, "pressure", pressure=player["pressure"]) + " (" + _ui(
            text, "ready" if player["pressure_left"] else "used") + ")"
        flags = []
        if player["detour_next_turn"]:
            flags.append(_ui(text, "flag_detour"))
        if player["squeezed_next_turn"]:
            flags.append(_ui(text, "flag_squeeze"))
        if player["pressure_marker_on_space"]:
            flags.append(_ui(text, "pressure_on", seat=s) + ": " + escape(
                text.name("space", player["pressure_marker_on_space"])))
        flag_text = f"  \\[{', '.join(flags)}]" if flags else ""
        lines.append(f"{who} · {escape(text.name('animal', player['animal']))}: {boost}, "
                     f"{pressure}, {_ui(text, 'score', n=player['score'])}{flag_text}")
    return lines


def _tributaries_and_deck(obs: dict[str, Any], text: Text) -> list[str]:
    """The tributaries' points with who claimed each, then the event deck and discard."""
    tribs = []
    for trib in obs["tributaries"]:
        if trib["seat"] is None:
            tribs.append(f"{trib['value']}")
        else:
            tribs.append(f"[dim]{trib['value']}[/]={_token(text, trib['seat'], trib['token'])}")
    lines = [_ui(text, "tributaries") + ": " + "  ".join(tribs)]
    lines.append(f"[dim]{_ui(text, 'tribs_help')}[/]")
    discard = text.messages.get("_sep", ", ").join(text.name("event", e) for e in obs["discard"])
    deck = _ui(text, "deck", n=obs["deck_size"])
    if discard:
        deck += " · " + _ui(text, "discard", list=discard)
    lines.append(deck)
    return lines
