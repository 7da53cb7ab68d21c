"""Text picture of one seat's Under Current view (Rich markup), built only from ``observation``.

Every word comes from the game's catalogue through ``text`` (a :class:`~fieldcraft.core.text.Text`
for the reader; ``None``: English), so the terminal reads like the web table in any language. The
row is drawn slot by slot, numbered from 1 as the log names them, with what became of each card
(face up, face down and known to you, or unseen), so the log's "filed in slot 3" can be found.
"""

from __future__ import annotations

import re
from typing import Any

from rich.markup import escape

from fieldcraft.core.text import Text, game_messages

_STYLE = {"Blue": "bold blue", "Red": "bold red", "Green": "bold green", "Yellow": "bold yellow"}
_CARD = re.compile(r"^(\w+)/")


def _english() -> Text:
    """The English renderer, for a caller that passes no ``text``."""
    from . import SPEC

    return Text(game_messages(SPEC, "en"))


def card(name: str | None, text: Text | None = None) -> str:
    """A card in its colour with its faction's symbol; an unseen card as a face-down mark."""
    text = text or _english()
    if name is None:
        return "[dim]▒▒ " + escape(text.lookup("ui.face_down")) + "[/]"
    m = _CARD.match(name)
    colour = m.group(1) if m else ""
    shown = escape(text.name("symbol", colour) + " " + text.name("card", name)) if colour \
        else escape(text.name("card", name))
    style = _STYLE.get(colour)
    return f"[{style}]{shown}[/]" if style else shown


def role(name: str, text: Text | None = None) -> str:
    """A role card in its faction's colour, with the faction's symbol."""
    text = text or _english()
    faction = name.split()[0] if name else ""
    shown = escape(text.name("symbol", faction) + " " + text.name("role", name))
    style = _STYLE.get(faction)
    return f"[{style}]{shown}[/]" if style else shown


def _roles_hint(candidates: list[str], text: Text) -> str | None:
    """What the reader knows of a role position: the card, a few candidates, or nothing."""
    if not candidates:
        return None
    if len({text.name("role", r) for r in candidates}) == 1:
        return escape(text.lookup("ui.role_is")) + " " + role(candidates[0], text)
    if len(candidates) <= 3:
        joined = escape(text.lookup("ui.or")).join(role(r, text) for r in candidates)
        return escape(text.lookup("ui.role_could")) + " " + joined
    return None


def render(obs: dict[str, Any], text: Text | None = None) -> str:
    text = text or _english()

    def say(key: str, **params: Any) -> str:
        return _say(text, key, **params)

    def seat_name(s: int) -> str:
        return escape(text.seat(s))

    seat = obs["seat"]
    players = obs["players"]
    lines: list[str] = []
    sep = text.messages.get("_sep", ", ")
    who = say("ui.watching") if seat is None else \
        say("ui.you_are", seat=text.format(text.lookup("seat"), {"n": seat + 1}))
    header = f"[bold]{escape(text.lookup('title'))}[/] — {who}"
    if obs.get("role"):
        header += " — " + role(obs["role"], text)
    lines.append(header)
    status = [say("ui.turn", n=obs["turn"] + 1), say("ui.deck", n=obs["deck_count"])]
    if obs["final_round"]:
        left = obs["final_turns_left"]
        status.append("[bold magenta]" + (say("ui.final_round_last") if left == 1
                                          else say("ui.final_round", n=left)) + "[/]")
    lines.append(" · ".join(status))
    lines.append("")

    lines += _table_lines(obs, text)
    lines += _seat_lines(obs, text)
    if obs["hand"] is not None:
        lines.append("")
        hand = sep.join(card(c, text) for c in obs["hand"]) or say("ui.hand_empty")
        lines.append(f"[bold]{say('ui.hand')}[/]: {hand}")
    for d in obs["declarations"]:
        lines.append(say("ui.declaration", seat=text.seat(d["seat"]),
                         red=_place(d["red_informer"], text),
                         blue=_place(d["blue_informer"], text) if d["blue_informer"] else "—"))
    if obs["phase"] == "over":
        lines.append("")
        lines.append(f"[bold]{say('ui.final_roles')}[/]: " + sep.join(
            f"{seat_name(s)}: {role(obs['roles'][s][0], text)}" for s in range(players)))
    return "\n".join(lines)


def _say(text: Text, key: str, **params: Any) -> str:
    return escape(text.format(text.lookup(key), params))


def _table_lines(obs: dict[str, Any], text: Text) -> list[str]:
    """The row, the card being passed or used, and the used and removed piles."""
    seat = obs["seat"]
    sep = text.messages.get("_sep", ", ")
    lines: list[str] = []

    def say(key: str, **params: Any) -> str:
        return _say(text, key, **params)

    lines.append(f"[bold]{escape(text.lookup('row'))}[/]")
    row = obs["row"]
    if not row:
        lines.append("  " + say("ui.row_empty"))
    for i, entry in enumerate(row):
        slot = say("ui.slot", n=i + 1)
        if entry["face_up"]:
            shown = card(entry["card"], text) + f" [dim]({say('ui.face_up')})[/]"
        elif entry["card"]:
            shown = card(entry["card"], text) + f" [dim]({say('ui.known_down')})[/]"
        else:
            shown = card(None, text)
        lines.append(f"  {slot}: {shown}")
    pending = obs.get("pending")
    if pending:
        what = text.name("card", pending["card"]) if pending["card"] else \
            text.lookup("ui.pending_card")
        key = "ui.pending_you" if pending["passer"] == seat else "ui.pending"
        bits = [say(key, passer=text.seat(pending["passer"]), card=what,
                    receiver=text.seat(pending["receiver"]))]
        if pending.get("effect"):
            bits.append(say("ui.effect_now", effect=text.name("effect", pending["effect"])))
        if pending.get("your_swap_card"):
            bits.append(say("ui.your_swap", card=text.name("card", pending["your_swap_card"])))
        lines.append("[bold]» " + " · ".join(bits) + "[/]")
    if obs["discard"]:
        lines.append(say("ui.used") + ": " + sep.join(card(c, text) for c in obs["discard"]))
    if obs["removed"]:
        lines.append(say("ui.removed") + ": " + sep.join(card(c, text) for c in obs["removed"]))
    lines.append("")

    return lines


def _seat_lines(obs: dict[str, Any], text: Text) -> list[str]:
    """Each seat (hand size, what its role may be, the cards of it we know, whose turn), the
    reserve slots, and what an Eye holder saw."""
    seat = obs["seat"]
    players = obs["players"]
    sep = text.messages.get("_sep", ", ")
    lines: list[str] = []

    def say(key: str, **params: Any) -> str:
        return _say(text, key, **params)

    for s in range(players):
        marks = []
        if s == obs["active"]:
            marks.append("[reverse] " + say("ui.turn_mark_you" if s == seat else "ui.turn_mark")
                         + " [/]")
        if s == obs["current_player"] and s != obs["active"]:
            marks.append("[bold]← " + say("ui.deciding") + "[/]")
        if s == obs.get("eliminated"):
            marks.append("[bold red]✖ " + say("ui.eliminated") + "[/]")
        bits = [say("ui.hand_size", n=obs["hand_sizes"][s])]
        hint = role(obs["role"], text) if s == seat and obs.get("role") else \
            _roles_hint(obs["roles"][s], text)
        if hint:
            bits.append(hint)
        known = obs["known_hands"].get(str(s), [])
        if known:
            bits.append(say("ui.you_know") + " " + sep.join(card(c, text) for c in known))
        lines.append(f"  [bold]{escape(text.seat(s))}[/]: " + " · ".join(bits)
                     + (" " + " ".join(marks) if marks else ""))
    for r, candidates in enumerate(obs["roles"][players:]):
        hint = _roles_hint(candidates, text) or say("ui.unknown")
        lines.append(f"  {say('ui.reserve_slot', n=r + 1)}: {hint}")
    ic = obs.get("identity_confirmation")
    if ic:
        def seats(list_: list[int]) -> str:
            return text.messages.get("_sep", ", ").join(text.seat(s) for s in list_) \
                or text.lookup("ui.none")
        lines.append(say("ui.identity", eyes=seats(ic["eye"]), thumbs=seats(ic["thumb"])))
    return lines


def _place(where: str, text: Text) -> str:
    """The view's "seat 2" / "reserve 0" (0-based) as people read it."""
    kind, _, number = where.partition(" ")
    n = int(number)
    if kind == "seat":
        return text.seat(n)
    return text.format(text.lookup("ui.reserve_slot"), {"n": n + 1})
