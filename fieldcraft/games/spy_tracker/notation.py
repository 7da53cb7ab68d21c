"""Spy Tracker notation: "bid 4 Moscow", "raise 5 Hacker", "call", "spot", "next: seat 1".

Every action id has one fixed name (the table is built once per game), so reading a name back
is one dictionary lookup. A challenge's log line also says how it came out, since every hand is
shown at that moment anyway; a dealt card is seen only by its receiver.

The events for people (:meth:`SpyTrackerNotation.event`) tell a round's deal in one line per
reader, at its last card: the reader's own cards and who opens, nothing of anyone else's hand.
A forced "next" (two players left, so the bidder has one seat to hand the turn to) is not told:
it is noise in the log, and everyone knows it from the bid already.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.errors import MalformedActionError
from fieldcraft.core.notation import Notation, normalize, require_text
from fieldcraft.core.text import Event

from .game import (
    ATTRIBUTES,
    BID_BASE,
    BIDDING,
    CALL,
    CHOOSING,
    DEALING,
    NUM_ATTRIBUTES,
    NUM_SPIES,
    OPENING,
    SPOT,
    SpyTrackerGame,
)
from .rules import SpyTrackerState


def card_kind(game: SpyTrackerGame, card: int) -> str:
    """The catalogue name of a card for people (``card.<kind>``): a spy's own name, and plain
    "Mercenary" or "Traitor" for the others, whose numbers only keep the ids apart."""
    if card < NUM_SPIES:
        return game.card_names[card]
    return "Mercenary" if card < NUM_SPIES + game.num_mercenaries else "Traitor"


class SpyTrackerNotation(Notation):
    game: SpyTrackerGame

    def __init__(self, game: SpyTrackerGame):
        super().__init__(game)
        g = game
        strings = ["call", "spot"]
        for verb in ("bid", "raise"):
            for count in range(g.min_bid, g.max_count + 1):
                strings += [f"{verb} {count} {attr}" for attr in ATTRIBUTES]
        strings += [f"next: seat {s}" for s in range(g.num_players)]
        strings += [f"seat {s} opens" for s in range(g.num_players)]
        for s in range(g.num_players):
            strings += [f"deal {name} to seat {s}" for name in g.card_names]
        assert len(strings) == g.num_actions
        self.strings: list[str] = strings
        self.lookup: dict[str, int] = {normalize(t): a for a, t in enumerate(strings)}

    def action_to_string(self, state: Any, action: int) -> str:
        strings = self.strings
        if not isinstance(action, int) or not 0 <= action < len(strings):
            raise MalformedActionError(f"{action!r} is not an action of {self.game.name}")
        return strings[action]

    def string_to_action(self, state: Any, text: str) -> int:
        action = self.lookup.get(normalize(require_text(text)))
        if action is None:
            raise MalformedActionError(
                f"{text!r} is not a Spy Tracker action (try 'bid 4 Moscow', 'raise 5 Hacker', "
                "'call', 'spot', 'next: seat 1')"
            )
        return action

    def choice(self, state: Any, action: int) -> tuple[str, dict[str, Any]]:
        g = self.game
        if action == CALL:
            return "call", {}
        if action == SPOT:
            return "spot", {}
        if action < g.next_base:
            kind = "bid" if action < g.raise_base else "raise"
            index = action - (BID_BASE if kind == "bid" else g.raise_base)
            return kind, {"count": index // NUM_ATTRIBUTES + g.min_bid,
                          "attribute": ATTRIBUTES[index % NUM_ATTRIBUTES]}
        if action < g.open_base:
            return "next", {"seat": action - g.next_base}
        if action < g.deal_base:
            return "open", {"seat": action - g.open_base}
        seat, card = divmod(action - g.deal_base, g.num_cards)
        return "deal", {"seat": seat, "card": g.card_names[card]}

    def describe_action(self, state: SpyTrackerState, action: int,
                        seat: int | None) -> str | None:
        """Deals are secret to their receiver; a challenge line also says how it came out."""
        g = self.game
        phase = state.phase
        if phase == DEALING:
            if seat is None or seat != state.deal_seat:
                return None
            card = action - g.deal_base - seat * g.num_cards
            if 0 <= card < g.num_cards:
                return f"you are dealt {g.card_names[card]}"
            return None
        if phase == OPENING:
            return self.action_to_string(state, action)
        text = f"seat {state.player}: {self.action_to_string(state, action)}"
        if phase == BIDDING and action in (CALL, SPOT) and state.bid_count >= 0:
            true, loser, _ = state.resolve(action == SPOT)
            text += (
                f" on {state.bid_count} {ATTRIBUTES[state.bid_attr]} (seat {state.bidder}):"
                f" true count {true}, seat {loser} loses a Source"
            )
        return text

    # -- game text for people ------------------------------------------------------------------
    def event(self, state: SpyTrackerState, action: int, seat: int | None) -> Event | None:
        """What ``seat`` is told of ``action`` (called before applying it).

        A deal is one line per round, at its last card, naming only the reader's own cards; the
        random opener of round 1 is told in that line too. A challenge tells its whole outcome
        (every hand is laid open at that moment)."""
        g = self.game
        phase = state.phase
        if phase == DEALING:
            if g.num_cards - len(state.pool) != state.in_play - 1:
                return None  # not the round's last card
            cards = list(state.hands[seat]) if seat is not None else []
            if seat is not None and seat == state.deal_seat:
                cards.append(action - state.deal_first)
            params: dict[str, Any] = {"round": state.round, "opener": state.opener}
            if not cards:
                return {"key": "deal_public", "params": params}
            params["cards"] = [card_kind(g, c) for c in sorted(cards)]
            return {"key": "deal", "params": params}
        if phase == OPENING:
            return None  # told with the deal that follows
        actor = state.player
        if phase == CHOOSING:
            if len(g.choosers[state.bidder][state.active][0]) == 1:
                return None  # forced: nothing to tell
            return {"key": "next", "params": {"seat": actor, "next": action - g.next_base}}
        if action in (CALL, SPOT):
            spot = action == SPOT
            true, loser, winner = state.resolve(spot)
            out = state.sources[loser] == 1
            point = spot and g.spot_points > 0
            key = ("spot" if spot else "call") + ("_point" if point else "") \
                + ("_out" if out else "")
            return {"key": key, "params": {
                "seat": actor, "bidder": state.bidder, "count": state.bid_count,
                "trait": ATTRIBUTES[state.bid_attr], "true": true, "loser": loser,
                "winner": winner, "points": g.spot_points}}
        kind, count, attr = g.bid_of[action]
        key = "raise" if kind else ("open_bid" if state.bid_count < 0 else "bid")
        return {"key": key, "params": {"seat": actor, "count": count,
                                       "trait": ATTRIBUTES[attr]}}

    def summary(self, state: SpyTrackerState) -> dict[str, Any] | None:
        """Points and Sources left per seat, and how the game ended: a seat reached the points
        that win, or it was the last one with active Sources."""
        if not state.is_terminal():
            return None
        winner = state.winner
        rows = [{"seat": s, "winner": s == winner,
                 "values": {"points": state.points[s], "sources": state.sources[s]}}
                for s in range(len(state.sources))]
        if state.ending == "points":
            reason: Event = {"key": "points", "params": {"winner": winner,
                                                         "points": state.points[winner],
                                                         "rounds": state.round}}
        else:
            reason = {"key": "last_standing", "params": {"winner": winner,
                                                         "rounds": state.round}}
        return {"columns": [{"key": "points"}, {"key": "sources"}], "rows": rows,
                "reason": reason}
