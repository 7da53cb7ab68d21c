"""Terminal picture of one seat's Undercover view (Rich markup).

It reads only the observation dict, so it cannot show a hidden face: an unflipped Agent is drawn
with a dim "?" where its back would go, a flipped one with its known back.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

_RICH = {
    "purple": "magenta",
    "blue": "blue",
    "green": "green",
    "yellow": "yellow",
    "orange": "dark_orange",
    "red": "red",
}
CELL = 4  # plain-text width of one board cell


def _style(colour: str | None) -> str:
    return _RICH.get((colour or "").lower(), "white")


def _letter(colour: str | None) -> str:
    return escape((colour or "?")[:1].upper())


def _paint(text: str, colour: str | None, extra: str = "") -> str:
    style = f"{extra} {_style(colour)}".strip()
    return f"[{style}]{text}[/]"


def _cell(tile: dict[str, Any] | None, colours: list[str | None]) -> str:
    """Exactly CELL visible characters: kind/colour letter, back letter, File owner."""
    if tile is None:
        return "[dim] .  [/]"
    owner = tile.get("file")
    file_mark = str(owner) if owner is not None else " "
    if owner is not None:
        file_mark = _paint(file_mark, colours[owner], "bold")
    if tile["kind"] == "hq":
        return _paint(f" {_letter(tile['colour'])} ", tile["colour"], "reverse") + file_mark
    if tile["kind"] == "joker":
        return "[bold] * [/]" + file_mark
    front = _paint(_letter(tile["colour"]), tile["colour"], "bold")
    back = tile.get("back")
    behind = _paint(_letter(back).lower(), back) if back else "[dim]?[/]"
    return f" {front}{behind}{file_mark}"


def _board_lines(obs: dict[str, Any]) -> list[str]:
    colours = obs["colours"]
    tiles = {(t["x"], t["y"]): t for t in obs["board"]}
    spots = list(tiles)
    if obs.get("held_from"):
        spots.append(tuple(obs["held_from"]))
    if not spots:
        return ["(empty table)"]
    width, height = obs["board_size"]
    x0 = max(min(x for x, _ in spots) - 1, 0)
    x1 = min(max(x for x, _ in spots) + 1, width - 1)
    y0 = max(min(y for _, y in spots) - 1, 0)
    y1 = min(max(y for _, y in spots) + 1, height - 1)
    lines = ["    " + "".join(f"{x:>3} " for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        row = "".join(_cell(tiles.get((x, y)), colours) for x in range(x0, x1 + 1))
        lines.append(f"{y:>3} {row}")
    return lines


def _track_lines(obs: dict[str, Any]) -> list[str]:
    """One lane per colour: Staffers still at home, then each space with the Staffer standing
    there (seat colour initial), a Point Token value, or a dot."""
    colours = obs["colours"]
    length = obs["track_length"]
    classified = obs["variant"] == "classified"
    lines = ["[bold]Information Track[/]"]
    if classified:
        head = "".join(f"{v:>3}" + ("|" if i + 1 == obs["black_line_after"] else "")
                       for i, v in enumerate(obs["column_values"]))
        lines.append(f"{'':<14}{head}")
    for lane in obs["lanes"]:
        home = "".join(_paint(_letter(colours[s]), colours[s])
                       for s, p in enumerate(lane["staffers"]) if p == 0)
        home_width = sum(1 for p in lane["staffers"] if p == 0)
        cells = []
        for space in range(1, length + 1):
            who = [s for s, p in enumerate(lane["staffers"]) if p == space]
            if who:
                s = who[0]
                mark = "!" if lane["frozen"][s] else " "
                text = f" {_paint(_letter(colours[s]), colours[s], 'bold')}{mark}"
            elif lane["blocked_last"] and space == length:
                text = "[dim] X [/]"
            elif lane["tokens"][space - 1] is not None:
                text = f"{lane['tokens'][space - 1]:>3}"
            else:
                text = "[dim]  .[/]"
            if classified and space == obs["black_line_after"]:
                text += "|"
            cells.append(text)
        name = _paint(f"{escape(lane['colour']):<7}", lane["colour"])
        lines.append(f"{name}{home}{' ' * (7 - home_width)}{''.join(cells)}")
    return lines


def _plain_width(cells: int) -> int:
    return 4 + CELL * cells


def render(observation: dict[str, Any]) -> str:
    """The table as one seat sees it: the grid of tiles with the Information Track beside it,
    then the seats, the draw piles and the tile in hand."""
    obs = observation
    me = obs.get("seat")
    colours = obs["colours"]
    title = "Undercover" + (" - Classified" if obs["variant"] == "classified" else "")
    if obs["phase"] == "over":
        lines = [f"[bold]{title}[/] - finished after {obs['turn']} turns"]
    else:
        lines = [f"[bold]{title}[/] - round {obs['round']}, turn {obs['turn'] + 1}"]
    board = _board_lines(obs)
    track = _track_lines(obs)
    columns = (len(board[0]) - 4) // CELL if board and board[0].startswith("    ") else 0
    pad = _plain_width(columns)
    for i in range(max(len(board), len(track))):
        left = board[i] if i < len(board) else ""
        plain = pad if i < len(board) and i > 0 else (len(left) if i == 0 else 0)
        gap = " " * (pad - plain + 3)
        right = track[i] if i < len(track) else ""
        lines.append(f"{left}{gap}{right}".rstrip())
    for seat, colour in enumerate(colours):
        marker = "[bold yellow]>[/]" if obs.get("to_act") == seat else " "
        you = " (you)" if seat == me else ""
        opp = obs["opposite"][seat]
        label = _paint(escape(colour or "?"), colour)
        taken = [v for v in obs["taken"][seat] if v is not None and v >= 0]
        joker = obs["jokers"][seat]
        extra = f"  joker {joker}" if joker else ""
        lines.append(
            f"{marker} seat {seat}{you}: {label}, opposite {_paint(escape(opp or '?'), opp)}"
            f"  points {obs['scores'][seat]}  tokens {len(taken)}{extra}"
        )
    for pile in obs["piles"]:
        top = pile["top"]
        shown = "empty" if not pile["count"] else (
            f"top {_paint(escape(top['colour']), top['colour'])} "
            f"(other side {' or '.join(escape(c) for c in top['others'])})" if top else "face down"
        )
        lines.append(f"  pile {pile['name']}: {pile['count']} Agents, {shown}")
    held = obs.get("held")
    if held:
        what = "Joker" if held["kind"] == "joker" else f"{escape(held['colour'])} Agent"
        state = " (flipped)" if obs.get("flipped") else ""
        lines.append(f"  in hand: {what}{state}")
    if obs["phase"] == "over":
        winners = ", ".join(_paint(escape(colours[s] or "?"), colours[s])
                            for s in obs.get("winners", []))
        lines.append(f"[bold green]Game over:[/] {winners or 'nobody'} wins.")
    elif obs.get("to_act") is not None:
        who = "you" if obs["to_act"] == me else f"seat {obs['to_act']}"
        lines.append(f"Waiting for {who} to {obs['phase']}.")
    if obs.get("end_triggered") and obs["phase"] != "over":
        lines.append("[bold]Last round:[/] the game ends when this round is complete.")
    return "\n".join(lines)
