"""Terminal picture of an Against the Current observation (Rich markup).

Works from the observation dict only, so it can never show more than the seat is allowed to see.
"""

from __future__ import annotations

from typing import Any

SHORT = {
    "Axolotl": "Axo",
    "Yangtze Porpoise": "Por",
    "European Eel": "Eel",
    "Chinese Sturgeon": "Stu",
}
COLOURS = ("magenta", "cyan", "yellow", "green")
TERRAIN_STYLE = {
    "Open Water": "blue",
    "Pollution": "red",
    "Fishing Nets": "bright_red",
    "Water Plants": "green",
    "Rapids": "bright_cyan",
    "Dam": "yellow",
    "Turbine": "bright_magenta",
}


def _token_label(obs: dict[str, Any], seat: int, letter: str) -> str:
    player = obs["players"][seat]
    name = SHORT.get(player["animal"] or "", f"S{seat}")
    token = next(t for t in player["tokens"] if t["token"] == letter)
    marks = ""
    if token["stop"]:
        marks += " STOP"
    if token["safe_shelter"]:
        marks += " shelter"
    if token["river_support"]:
        marks += " support"
    if token["pressure_wave"]:
        marks += " wave"
    return f"[{COLOURS[seat % len(COLOURS)]}]{name}-{letter}{marks}[/]"


def _tokens_at(obs: dict[str, Any], where: int) -> list[str]:
    out = []
    for player in obs["players"]:
        for token in player["tokens"]:
            if token["position"] == where:
                out.append(_token_label(obs, player["seat"], token["token"]))
    return out


def render(observation: dict[str, Any]) -> str:
    """Draw the river from Start to River Sanctuary, then each player's abilities and tokens,
    then the tributaries and the event deck: what a player looks at on the real table."""
    obs = observation
    lines = []
    shift = obs["extra_wheel_steps"]
    extra = f" (+{shift} extra step{'s' if shift > 1 else ''} at round end)" if shift else ""
    lines.append(
        f"[bold]Against the Current[/] - Current {obs['current']} of {obs['currents']}{extra}"
    )
    if obs["turn_seat"] is not None and obs["phase"] != "game over":
        seat = obs["turn_seat"]
        who = obs["players"][seat]["animal"] or f"seat {seat}"
        bits = [f"turn: seat {seat} ({who})", f"phase: {obs['phase']}"]
        if obs["roll"]:
            bits.append(f"roll {obs['roll']}")
        if obs["extra_roll"]:
            bits.append("extra roll")
        if obs["event"]:
            bits.append(f"event: [bold]{obs['event']}[/]")
        lines.append("  ".join(bits))
    elif obs["phase"] != "game over":
        lines.append(f"setup: {obs['phase']}")

    lines.append(f"  Start      {' '.join(_tokens_at(obs, 0))}")
    for space in obs["spaces"]:
        num = space["space"]
        if space["card"] is None:
            lines.append(f"  {num:>2}  (not dealt)")
            continue
        terrain = space["terrain"]
        style = TERRAIN_STYLE.get(terrain, "white")
        label = f"[{style}]{terrain:<12}[/]"
        notes = []
        if space["marker"]:
            notes.append(f"{space['marker']} marker on {space['printed']}")
        for seat in space["pressure"]:
            animal = obs["players"][seat]["animal"] or f"seat {seat}"
            notes.append(f"pressure of {animal}")
        note = f" ({'; '.join(notes)})" if notes else ""
        tokens = " ".join(_tokens_at(obs, num))
        lines.append(f"  {num:>2}  {label}{note}  {tokens}".rstrip())
    lines.append(f"  Sanctuary  {' '.join(_tokens_at(obs, obs['sanctuary']))}")

    lines.append("")
    for player in obs["players"]:
        seat = player["seat"]
        colour = COLOURS[seat % len(COLOURS)]
        animal = player["animal"] or "(no animal yet)"
        boost = player["boost"] or "-"
        pressure = player["pressure"] or "-"
        boost_state = "ready" if player["boost_left"] else "used"
        pressure_state = "ready" if player["pressure_left"] else "used"
        flags = []
        if player["detour_next_turn"]:
            flags.append("Detour next turn")
        if player["squeezed_next_turn"]:
            flags.append("no Boost next turn")
        if player["pressure_marker_on_space"]:
            flags.append(f"Pressure Marker on space {player['pressure_marker_on_space']}")
        flag_text = f"  [{', '.join(flags)}]" if flags else ""
        flag_text = flag_text.replace("[", "\\[")
        lines.append(
            f"[{colour}]seat {seat} {animal}[/]: Boost {boost} ({boost_state}), "
            f"Pressure {pressure} ({pressure_state}), score {player['score']}{flag_text}"
        )

    lines.append("")
    tribs = []
    for trib in obs["tributaries"]:
        if trib["seat"] is None:
            tribs.append(f"{trib['number']}:{trib['value']}")
        else:
            tribs.append(f"{trib['number']}:{trib['value']}="
                         f"{_token_label(obs, trib['seat'], trib['token'])}")
    lines.append("Tributaries  " + "  ".join(tribs))
    discard = ", ".join(obs["discard"]) or "empty"
    lines.append(f"Event deck: {obs['deck_size']} face down; discard: {discard}")
    if obs["phase"] == "game over":
        scores = ", ".join(
            f"{p['animal']} {p['score']}" for p in obs["players"]
        )
        lines.append(f"[bold]Game over[/]: {scores}")
    return "\n".join(lines)
