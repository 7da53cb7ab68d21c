"""Text picture of one seat's Under Current view (Rich markup), built only from ``observation``."""

from __future__ import annotations

from typing import Any

_STYLE = {"Blue": "bold blue", "Red": "bold red", "Green": "bold green", "Yellow": "bold yellow"}


def card(name: str | None) -> str:
    """A card in its colour; an unknown card as a face-down mark."""
    if name is None:
        return "[dim]▒▒ face down[/]"
    colour = name.split("/")[0]
    style = _STYLE.get(colour, "")
    return f"[{style}]{name}[/]" if style else name


def role(name: str) -> str:
    style = _STYLE.get(name.split()[0], "")
    return f"[{style}]{name}[/]" if style else name


def render(obs: dict[str, Any]) -> str:
    seat = obs["seat"]
    players = obs["players"]
    lines: list[str] = []
    who = "spectator" if seat is None else f"seat {seat}"
    header = f"[bold]Under Current[/] — {players} players — you are {who}"
    if obs.get("role"):
        header += f", role {role(obs['role'])}"
    lines.append(header)
    status = f"turn {obs['turn'] + 1}, draw pile {obs['deck_count']}"
    if obs["final_round"]:
        status += f", [bold magenta]final round: {obs['final_turns_left']} turn(s) left[/]"
    lines.append(status)
    lines.append("")
    row = obs["row"]
    if row:
        cells = []
        for i, entry in enumerate(row):
            mark = "" if entry["face_up"] else " [dim](face down)[/]"
            shown = card(entry["card"]) if entry["card"] or not entry["face_up"] else "?"
            if entry["card"] and not entry["face_up"]:
                shown += mark
            cells.append(f"  {i}: {shown}")
        lines.append("[bold]Central File Row[/] (oldest first):")
        lines.extend(cells)
    else:
        lines.append("[bold]Central File Row[/]: empty")
    if obs["discard"]:
        lines.append("Used: " + ", ".join(card(c) for c in obs["discard"]))
    removed = obs["removed"]
    if removed:
        lines.append("Removed from the game: " + ", ".join(card(c) for c in removed))
    lines.append("")
    lines.append("[bold]Seats[/]")
    for s in range(players):
        marks = []
        if s == obs["active"]:
            marks.append("[reverse] active [/]")
        if s == obs["current_player"]:
            marks.append("[bold]← to decide[/]")
        if s == obs.get("eliminated"):
            marks.append("[bold red]eliminated[/]")
        candidates = obs["roles"][s]
        known_role = ""
        if s != seat and len(candidates) == 1:
            known_role = f" — role {role(candidates[0])}"
        elif s != seat and len(candidates) <= 3:
            known_role = " — one of " + ", ".join(role(r) for r in candidates)
        cards = obs["known_hands"].get(str(s), [])
        known = f" (you know: {', '.join(card(c) for c in cards)})" if cards else ""
        name = "you" if s == seat else f"seat {s}"
        lines.append(f"  {name}: {obs['hand_sizes'][s]} card(s){known}{known_role} "
                     + " ".join(marks))
    reserve = obs["roles"][players:]
    for r, candidates in enumerate(reserve):
        if len(candidates) <= 3:
            lines.append(f"  reserve {r}: one of " + ", ".join(role(x) for x in candidates))
    if obs.get("identity_confirmation"):
        ic = obs["identity_confirmation"]
        lines.append(f"Identity confirmation: Eyes at seats {ic['eye']}, Thumbs at seats "
                     f"{ic['thumb']}")
    pending = obs.get("pending")
    if pending:
        text = f"Seat {pending['passer']} passed "
        text += card(pending["card"]) if pending["card"] else "a face-down card"
        text += f" to seat {pending['receiver']}"
        if pending.get("effect"):
            text += f"; resolving {pending['effect']}"
        if pending.get("your_swap_card"):
            text += f"; you offer {card(pending['your_swap_card'])}"
        lines.append(text)
    if obs["hand"] is not None:
        lines.append("")
        lines.append("[bold]Your hand[/]: " + (", ".join(card(c) for c in obs["hand"]) or "empty"))
    for d in obs["declarations"]:
        lines.append(f"Seat {d['seat']} (Green) names {d['red_informer']} as Red Informer"
                     + (f" and {d['blue_informer']} as Blue Informer" if d["blue_informer"]
                        else ""))
    if obs["phase"] == "over":
        lines.append("")
        winner = obs["winner_faction"]
        lines.append("[bold]Final roles[/]: " + ", ".join(
            f"seat {s}: {role(obs['roles'][s][0])}" for s in range(players)))
        if winner:
            lines.append(f"[bold]{role(winner)} wins[/] — winning seats: {obs['winners']}")
        else:
            lines.append("[bold]Nobody wins[/] (the winning faction has no seated player)")
    return "\n".join(lines)
