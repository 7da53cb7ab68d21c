"""Terminal picture of one seat's Undercover view (Rich markup), in the reader's language.

It reads only the observation dict, so it cannot show a hidden face: an unflipped Agent is drawn
with a dim "?" where its back would go, a flipped one with its known back. Every word comes
from the game's catalogue through a :class:`~fieldcraft.core.text.Text` (English when none is
given). The grid's markers are one ASCII letter per colour so that its columns stay aligned in
any terminal; a legend under it names the letters in the reader's language and says what the
other marks mean.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from fieldcraft.core.text import Text, game_messages

_RICH = {
    "purple": "magenta",
    "blue": "blue",
    "green": "green",
    "yellow": "yellow",
    "orange": "dark_orange",
    "red": "red",
}
CELL = 4  # plain-text width of one board cell


def _english() -> Text:
    from fieldcraft.core.registry import game_spec

    return Text(game_messages(game_spec("undercover"), "en"))


def _style(colour: str | None) -> str:
    return _RICH.get((colour or "").lower(), "white")


def _letter(colour: str | None) -> str:
    return escape((colour or "?")[:1].upper())


def _paint(text: str, colour: str | None, extra: str = "") -> str:
    style = f"{extra} {_style(colour)}".strip()
    return f"[{style}]{text}[/]"


def _column(text: Text, x: int) -> str:
    return text.name("column", x)


def _cell(tile: dict[str, Any] | None, colours: list[str | None]) -> str:
    """Exactly CELL visible characters: kind/colour letter, back letter, File owner (from 1)."""
    if tile is None:
        return "[dim] .  [/]"
    owner = tile.get("file")
    file_mark = str(owner + 1) if owner is not None else " "
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


def _board_lines(obs: dict[str, Any], text: Text) -> list[str]:
    colours = obs["colours"]
    tiles = {(t["x"], t["y"]): t for t in obs["board"]}
    spots = list(tiles)
    if obs.get("held_from"):
        spots.append(tuple(obs["held_from"]))
    if not spots:
        return [escape(text.lookup("terminal.empty_table"))]
    width, height = obs["board_size"]
    x0 = max(min(x for x, _ in spots) - 1, 0)
    x1 = min(max(x for x, _ in spots) + 1, width - 1)
    y0 = max(min(y for _, y in spots) - 1, 0)
    y1 = min(max(y for _, y in spots) + 1, height - 1)
    lines = ["    " + "".join(f"{_column(text, x):>3} " for x in range(x0, x1 + 1))]
    for y in range(y0, y1 + 1):
        row = "".join(_cell(tiles.get((x, y)), colours) for x in range(x0, x1 + 1))
        lines.append(f"{y + 1:>3} {row}")
    return lines


def _track_lines(obs: dict[str, Any], text: Text) -> list[str]:
    """One lane per colour: Staffers still at home, then each space with the Staffer standing
    there (seat colour initial), a Point Token value, or a dot."""
    colours = obs["colours"]
    length = obs["track_length"]
    classified = obs["variant"] == "classified"
    lines = [f"[bold]{escape(text.lookup('lanes'))}[/]"]
    if classified:
        head = "".join(f"{v:>3}" + ("|" if i + 1 == obs["black_line_after"] else "")
                       for i, v in enumerate(obs["column_values"]))
        lines.append(f"{'':<9}{head}")
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
                cell = f" {_paint(_letter(colours[s]), colours[s], 'bold')}{mark}"
            elif lane["blocked_last"] and space == length:
                cell = "[dim] X [/]"
            elif lane["tokens"][space - 1] is not None:
                cell = f"{lane['tokens'][space - 1]:>3}"
            else:
                cell = "[dim]  .[/]"
            if classified and space == obs["black_line_after"]:
                cell += "|"
            cells.append(cell)
        name = _paint(f"{_letter(lane['colour'])} ", lane["colour"], "bold")
        lines.append(f"{name}{home}{' ' * (7 - home_width)}{''.join(cells)}")
    return lines


def _plain_width(cells: int) -> int:
    return 4 + CELL * cells


def _legend(obs: dict[str, Any], text: Text) -> list[str]:
    """What the letters and marks of the grid and the track stand for, in the reader's words."""
    letters = text.messages.get("_sep", ", ").join(
        f"{_paint(_letter(lane['colour']), lane['colour'], 'bold')} = "
        f"{escape(text.name('colour', lane['colour']))}" for lane in obs["lanes"])
    return [f"[dim]{escape(text.lookup('legend'))}:[/] {letters}",
            f"[dim]{escape(text.lookup('terminal.legend'))}[/]",
            f"[dim]{escape(text.lookup('terminal.track_legend'))}[/]"]


def _say(text: Text, key: str, **values: Any) -> str:
    """The catalogue's message ``key`` filled in with ``values`` (not escaped)."""
    return text.format(text.lookup(key), values)


def _colour(text: Text, c: str | None) -> str:
    """A colour's name in the reader's words, painted in that colour ("?" when unknown)."""
    return _paint(escape(text.name("colour", c) if c else "?"), c)


def render(observation: dict[str, Any], text: Text | None = None) -> str:
    """The table as one seat sees it: the grid of tiles with the Information Track beside it,
    a legend, then the seats, the draw piles and the tile in hand."""
    text = text or _english()
    obs = observation
    lines = [_title(obs, text)]
    lines += _side_by_side(_board_lines(obs, text), _track_lines(obs, text))
    lines += _legend(obs, text)
    lines += _seat_lines(obs, text)
    lines += _pile_lines(obs, text)
    lines += _status_lines(obs, text)
    return "\n".join(lines)


def _title(obs: dict[str, Any], text: Text) -> str:
    """The game's name (and variant) with the round and turn, or the turns a finished game
    took."""
    title = escape(text.lookup("title"))
    if obs["variant"] == "classified":
        title += " - " + escape(text.lookup("classified"))
    if obs["phase"] == "over":
        return f"[bold]{title}[/] - {escape(_say(text, 'terminal.finished', n=obs['turn']))}"
    return (f"[bold]{title}[/] - "
            f"{escape(_say(text, 'terminal.turn', round=obs['round'], turn=obs['turn'] + 1))}")


def _side_by_side(board: list[str], track: list[str]) -> list[str]:
    """The grid's lines with the track's beside them, the track aligned past the grid's
    widest printed line (the lines hold markup, so the width is counted from the columns)."""
    lines = []
    columns = (len(board[0]) - 4) // CELL if board and board[0].startswith("    ") else 0
    pad = _plain_width(columns)
    for i in range(max(len(board), len(track))):
        left = board[i] if i < len(board) else ""
        plain = pad if i < len(board) and i > 0 else (len(left) if i == 0 else 0)
        gap = " " * (pad - plain + 3)
        right = track[i] if i < len(track) else ""
        lines.append(f"{left}{gap}{right}".rstrip())
    return lines


def _seat_lines(obs: dict[str, Any], text: Text) -> list[str]:
    """One line per seat: who is to act, its colour and Opposite Side, points, tokens taken
    (or Staffers past the black line in Classified) and its Joker. The painted parts go in
    after the message is escaped, through placeholders."""
    lines = []
    for seat, c in enumerate(obs["colours"]):
        marker = "[bold yellow]>[/]" if obs.get("to_act") == seat else " "
        taken = [v for v in obs["taken"][seat] if v is not None and v >= 0]
        joker = obs["jokers"][seat]
        extra = _say(text, "terminal.joker", state=text.name("joker", joker)) if joker else ""
        classified = obs["variant"] == "classified"
        line = text.lookup("terminal.seat_classified" if classified else "terminal.seat")
        past = sum(1 for lane in obs["lanes"]
                   if lane["staffers"][seat] > obs.get("black_line_after", 0)) if classified else 0
        values = {"past": past, "mark": "\0M", "who": text.seat(seat), "colour": "\0C",
                  "opposite": "\0O", "points": obs["scores"][seat], "tokens": len(taken),
                  "joker": extra}
        shown = escape(text.format(line, values))
        shown = shown.replace("\0M", marker).replace("\0C", _colour(text, c))
        lines.append(shown.replace("\0O", _colour(text, obs["opposite"][seat])))
    return lines


def _pile_lines(obs: dict[str, Any], text: Text) -> list[str]:
    """One line per draw pile: its name, size and what its top shows."""
    lines = []
    for pile in obs["piles"]:
        top = pile["top"]
        if not pile["count"]:
            shown = escape(text.lookup("pile_empty"))
        elif top:
            others = _say(text, "either", a=text.name("colour", top["others"][0]),
                          b=text.name("colour", top["others"][1]))
            shown = escape(_say(text, "terminal.pile_top", colour="\0C", colours=others)
                           ).replace("\0C", _colour(text, top["colour"]))
        else:
            shown = "?"
        lines.append(escape(_say(text, "terminal.pile", name=pile["name"], n=pile["count"],
                                 top="\0T")).replace("\0T", shown))
    return lines


def _status_lines(obs: dict[str, Any], text: Text) -> list[str]:
    """The tile in hand, then who won or who is awaited, and a warning in the last round."""
    lines = []
    held = obs.get("held")
    if held:
        what = text.name("tile", "joker" if held["kind"] == "joker" else held["colour"])
        flipped = text.lookup("terminal.flipped") if obs.get("flipped") else ""
        lines.append(escape(_say(text, "terminal.in_hand", what=what, flipped=flipped)))
    if obs["phase"] == "over":
        winners = obs.get("winners", [])
        who = text.messages.get("_sep", ", ").join(text.seat(s) for s in winners) \
            if winners else text.lookup("terminal.nobody")
        lines.append(f"[bold green]{escape(_say(text, 'terminal.over', who=who))}[/]")
    elif obs.get("to_act") is not None:
        lines.append(escape(_say(text, "terminal.waiting", who=text.seat(obs["to_act"]),
                                 phase=text.name("phase", obs["phase"]))))
    if obs.get("end_triggered") and obs["phase"] != "over":
        lines.append(f"[bold]{escape(text.lookup('terminal.last'))}[/]")
    return lines
