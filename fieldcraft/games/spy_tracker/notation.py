"""Spy Tracker notation: "bid 4 Moscow", "raise 5 Hacker", "call", "spot", "next: seat 1".

Every action id has one fixed name (the table is built once per game), so reading a name back
is one dictionary lookup. A challenge's log line also says how it came out, since every hand is
shown at that moment anyway; a dealt card is seen only by its receiver.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.errors import MalformedActionError
from fieldcraft.core.notation import Notation, normalize, require_text

from .rules import (
    ATTRIBUTES,
    BID_BASE,
    BIDDING,
    CALL,
    DEALING,
    NUM_ATTRIBUTES,
    OPENING,
    SPOT,
    SpyTrackerGame,
    SpyTrackerState,
)


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
