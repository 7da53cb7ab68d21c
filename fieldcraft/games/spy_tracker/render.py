"""Terminal picture of one seat's Spy Tracker view (Rich markup).

It draws only from the observation dict, so it can never show more than that seat may know.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

_PAST = {"call": "called", "spot": "spotted"}


def _sources(active: int, start: int) -> str:
    """Active Sources as filled dots and underground ones as hollow dots, the way the tokens
    lie on the table."""
    lost = max(start - active, 0)
    return "[green]" + "●" * active + "[/][dim]" + "○" * lost + "[/]"


def _bid(entry: dict[str, Any]) -> str:
    return f"{entry['count']} {escape(entry['attribute'])}"


def render(observation: dict[str, Any]) -> str:
    """Seats (Sources, points, hand size), your hand, this round's bids and the last reveal."""
    obs = observation
    me = obs.get("seat")
    lines: list[str] = []
    title = f"[bold]Spy Tracker[/] - round {obs['round']} - first to {obs['points_to_win']} points"
    lines.append(title)
    to_act = obs.get("to_act")
    for seat, active in enumerate(obs["sources"]):
        marker = "[bold yellow]>[/]" if seat == to_act else " "
        who = f"seat {seat}" + (" (you)" if seat == me else "")
        state = "" if active else "  [red]eliminated[/]"
        lines.append(
            f"{marker} {who:<14} sources {_sources(active, obs['start_sources'])}"
            f"  points {obs['points'][seat]}  cards {obs['hand_sizes'][seat]}{state}"
        )
    if me is not None:
        hand = obs.get("hand_cards") or []
        shown = ", ".join(escape(card) for card in hand) if hand else "(none)"
        lines.append(f"[bold]Your hand:[/] {shown}")
    lines.append(f"Cards in play: {obs['cards_in_play']}")
    if obs["bids"]:
        lines.append("[bold]Bids this round:[/]")
        for entry in obs["bids"]:
            lines.append(f"  seat {entry['seat']}: {entry['action']} {_bid(entry)}")
    elif obs["phase"] == "bidding" and obs.get("opener") is not None:
        lines.append(f"No bid yet; seat {obs['opener']} opens.")
    reveal = obs.get("last_reveal")
    if reveal:
        lines.append(
            f"[bold]Last reveal[/] (round {reveal['round']}): seat {reveal['challenger']} "
            f"{_PAST[reveal['challenge']]} {reveal['count']} {escape(reveal['attribute'])} "
            f"by seat {reveal['bidder']}; true count [bold]{reveal['true_count']}[/]"
        )
        for seat, cards in enumerate(reveal["cards"]):
            if cards:
                lines.append(f"  seat {seat}: {', '.join(escape(c) for c in cards)}")
        result = f"  seat {reveal['loser']} lost a Source"
        if reveal["eliminated"]:
            result += " and is eliminated"
        if reveal.get("point_to") is not None:
            result += f"; seat {reveal['point_to']} scores"
        lines.append(result)
    if obs["phase"] == "over":
        winners = ", ".join(f"seat {s}" for s in obs["winners"]) or "nobody"
        how = "points" if obs["ending"] == "points" else "last Sources standing"
        lines.append(f"[bold green]Game over:[/] {winners} wins by {how}.")
    elif to_act is not None:
        doing = "choose who acts next" if obs["phase"] == "choosing next" else "act"
        who = "you" if to_act == me else f"seat {to_act}"
        lines.append(f"Waiting for {who} to {doing}.")
    return "\n".join(lines)
