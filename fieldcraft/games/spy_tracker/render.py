"""Terminal picture of one seat's Spy Tracker view (Rich markup), in the reader's language.

It draws only from the observation dict, so it can never show more than that seat may know, and
takes every word from the game's catalogue through a :class:`~fieldcraft.core.text.Text` (the
same words as the web board), English when none is given.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.markup import escape

from fieldcraft.core.text import Text, game_messages

# A colour and a symbol per faction (the symbol for a terminal without colours), as on the board.
_FACTION_STYLE = {"Agency": ("blue", "◆"), "Bureau": ("dark_orange", "▲"),
                  "Command": ("magenta", "●")}


def _english(viewer: int | None) -> Text:
    """English for the observation's own seat, when the caller gives no renderer."""
    from . import SPEC

    return Text(game_messages(SPEC, "en"), viewer)


def _sources(active: int, start: int) -> str:
    """Active Sources as filled dots and underground ones as crosses, the way the tokens lie on
    the table."""
    lost = max(start - active, 0)
    return "[green]" + "●" * active + "[/][dim]" + "✕" * lost + "[/]"


def _sep(t: Text) -> str:
    """The language's list separator ("、" in Japanese)."""
    return t.messages.get("_sep", ", ")


def _pad(words: str, width: int) -> str:
    """Pad to ``width`` terminal cells (a Japanese character takes two)."""
    return words + " " * max(width - cell_len(words), 0)


def _kind(name: str) -> str:
    """A card's catalogue name: Mercenaries and Traitors lose the number that keeps ids apart."""
    return name.split()[0] if name.startswith(("Mercenary", "Traitor")) else name


def _card(text: Text, name: str) -> str:
    parts = name.split("/")
    word = escape(text.name("card", _kind(name)))
    if len(parts) == 3:
        colour, mark = _FACTION_STYLE.get(parts[0], ("default", ""))
        return f"[{colour}]{mark}[/] {word}"
    return ("[yellow]★[/] " if name.startswith("Mercenary") else "[red]✖[/] ") + word


def _bid(text: Text, count: int, attribute: str) -> str:
    mark = _FACTION_STYLE.get(attribute, ("", ""))[1]
    return f"{count} × {(mark + ' ') if mark else ''}{escape(text.name('trait', attribute))}"


def render(observation: dict[str, Any], text: Text | None = None) -> str:
    """Seats (Sources, points, hand size), your hand, the standing bid, this round's bids and
    the last reveal (the cards that counted marked), or how the game ended."""
    obs = observation
    t = text or _english(obs.get("seat"))
    me = obs.get("seat")

    def say(name: str, **params: Any) -> str:
        return escape(t.format(t.lookup(name), params))

    lines: list[str] = []
    title = f"[bold]{escape(t.lookup('title'))}[/]"
    if obs["phase"] == "over":
        lines.append(f"{title} - {say('game_over')}")
    else:
        lines.append(f"{title} - {say('round', n=obs['round'])} - "
                     f"{say('first_to', n=obs['points_to_win'])} - "
                     f"{say('cards_in_play', n=obs['cards_in_play'])}")
    lines += _seat_lines(obs, t, say)
    if me is not None and obs.get("hand_cards"):
        lines.append(f"[bold]{say('hand')}:[/] "
                     + _sep(t).join(_card(t, card) for card in obs["hand_cards"]))
    lines += _bid_lines(obs, t, say)
    reveal = obs.get("last_reveal")
    if reveal:
        lines += _reveal(t, reveal, say)
    lines += _ending(obs, t, say)
    return "\n".join(lines)


def _seat_lines(obs: dict[str, Any], t: Text, say: Any) -> list[str]:
    """One line per seat: the marker of the seat to act, its Sources (active and lost), its
    points and hand size, and whether it is out."""
    lines = []
    to_act = obs.get("to_act")
    for seat, active in enumerate(obs["sources"]):
        marker = "[bold yellow]▶[/]" if seat == to_act else " "
        out = "" if active else f"  [red]✖ {say('eliminated')}[/]"
        points = obs["points"][seat]
        lines.append(
            f"{marker} {_pad(escape(t.seat(seat)), 12)} {say('sources')} "
            f"{_sources(active, obs['start_sources'])}  {say('points')} "
            f"[yellow]{'★' * points}[/]{points}  {say('cards')} {obs['hand_sizes'][seat]}{out}")
    return lines


def _bid_lines(obs: dict[str, Any], t: Text, say: Any) -> list[str]:
    """The standing bid (or who opens while none stands), then this round's bids in order."""
    lines = []
    bid = obs.get("current_bid")
    if bid:
        lines.append(f"[bold]{say('current_bid')}:[/] {_bid(t, bid['count'], bid['attribute'])}"
                     f" ({say('bid_by', seat=bid['seat'])})")
    elif obs["phase"] == "bidding" and obs.get("opener") is not None:
        lines.append(say("no_bid", opener=obs["opener"]))
    if obs["bids"]:
        lines.append(f"[bold]{say('bids')}:[/]")
        for entry in obs["bids"]:
            raised = f" ({say('raise_mark')})" if entry["action"] == "raise" else ""
            lines.append(f"  {escape(t.seat(entry['seat']))}: "
                         f"{_bid(t, entry['count'], entry['attribute'])}{raised}")
    return lines


def _ending(obs: dict[str, Any], t: Text, say: Any) -> list[str]:
    """How the game ended (who won, on points or as the last seat standing), or who is
    awaited."""
    to_act = obs.get("to_act")
    if obs["phase"] == "over":
        winners = obs.get("winners") or []
        if not winners:
            return []
        winner = winners[0]
        if obs.get("ending") == "points":
            reason = t.render("end", "points", {"winner": winner,
                                               "points": obs["points"][winner],
                                               "rounds": obs["round"]})
        else:
            reason = t.render("end", "last_standing", {"winner": winner,
                                                      "rounds": obs["round"]})
        return [f"[bold green]{escape(reason)}[/]"]
    if to_act is not None:
        return [say("waiting_for", seat=to_act)]
    return []


def _reveal(t: Text, reveal: dict[str, Any], say: Any) -> list[str]:
    """The last challenge: who challenged what, the true count against the bid, every hand with
    the cards that counted marked (✓ the trait, +1 a Mercenary, −1 a Traitor)."""
    attribute = reveal["attribute"]
    key = "reveal_spot" if reveal["challenge"] == "spot" else "reveal_call"
    if reveal["challenger"] == t.viewer:
        key += "_you"
    lines = [f"[bold]{say('last_reveal')}:[/] "
             + say(key, challenger=reveal["challenger"], bidder=reveal["bidder"],
                   count=reveal["count"], trait=attribute),
             "  [bold]" + say("true_vs_bid", true=reveal["true_count"], count=reveal["count"])
             + "[/]"]
    for seat, cards in enumerate(reveal["cards"]):
        if not cards:
            continue
        shown = []
        for card in cards:
            if card.startswith("Mercenary"):
                mark = "[green]+1[/]"
            elif card.startswith("Traitor"):
                mark = "[red]−1[/]"
            else:
                mark = "[green]✓[/]" if attribute in card.split("/") else "[dim]·[/]"
            shown.append(f"{mark} {_card(t, card)}")
        lines.append(f"  {escape(t.seat(seat))}: " + _sep(t).join(shown))
    result = "  ✖ " + say("lost_source", seat=reveal["loser"])
    if reveal["eliminated"]:
        result += " · " + say("eliminated")
    if reveal.get("point_to") is not None:
        result += " · ★ " + say("scored", seat=reveal["point_to"])
    lines.append(result)
    return lines
