"""What a Spy Tracker seat sees: the public table (Sources, points, this round's bids, the last
reveal) and its own hand. Every other hand stays hidden until a challenge lays them all open."""

from __future__ import annotations

from typing import Any

from fieldcraft.core.view import Observer, Piece

from .rules import ATTRIBUTES, PHASE_NAMES, SpyTrackerGame, SpyTrackerState


class SpyTrackerView(Observer):
    game: SpyTrackerGame

    pieces = (
        Piece("game", "the game id"),
        Piece("seat", "whose view this is (null: a spectator)"),
        Piece("round", "the round number, from 1"),
        Piece("phase", "opening, dealing, bidding, choosing next or over"),
        Piece("to_act", "the seat to decide, or null while chance acts"),
        Piece("opener", "who opens this round's bidding"),
        Piece("sources", "active Sources of each seat"),
        Piece("start_sources", "Sources each seat started with"),
        Piece("points", "points of each seat"),
        Piece("points_to_win", "points that win the game"),
        Piece("hand_sizes", "cards in each seat's hand"),
        Piece("cards_in_play", "cards dealt this round (the highest count a bid may name)"),
        Piece("current_bid", "the standing bid: seat, count, attribute (null before one)"),
        Piece("bids", "this round's bids in order"),
        Piece("last_reveal", "the last challenge with every hand it laid open"),
        Piece("winners", "seats that won (empty until the end)"),
        Piece("ending", "how the game ended: points or last_standing"),
        Piece("hand", "this seat's card ids, in the order dealt", seat_only=True),
        Piece("hand_cards", "this seat's card names", seat_only=True),
    )

    def observation(self, state: SpyTrackerState, seat: int | None) -> dict[str, Any]:
        g = self.game
        names = g.card_names
        bids = state.bids
        history = [
            {
                "seat": bids[i],
                "action": "raise" if bids[i + 1] else "bid",
                "count": bids[i + 2],
                "attribute": ATTRIBUTES[bids[i + 3]],
            }
            for i in range(0, len(bids), 4)
        ]
        reveal = state.reveal
        if reveal is not None:
            reveal = dict(reveal)
            reveal["hands"] = [h[:] for h in reveal["hands"]]
            reveal["cards"] = [h[:] for h in reveal["cards"]]
        obs: dict[str, Any] = {
            "game": g.name,
            "seat": seat,
            "round": state.round,
            "phase": PHASE_NAMES[state.phase],
            "to_act": state.player if state.player >= 0 else None,
            "opener": state.opener if state.opener >= 0 else None,
            "sources": state.sources[:],
            "start_sources": g.start_sources,
            "points": state.points[:],
            "points_to_win": g.points_to_win,
            "hand_sizes": [len(h) for h in state.hands],
            "cards_in_play": state.in_play,
            "current_bid": None
            if state.bid_count < 0
            else {
                "seat": state.bidder,
                "count": state.bid_count,
                "attribute": ATTRIBUTES[state.bid_attr],
            },
            "bids": history,
            "last_reveal": reveal,
            "winners": state.winners(),
            "ending": state.ending,
        }
        if seat is not None:
            hand = state.hands[seat]
            obs["hand"] = hand[:]
            obs["hand_cards"] = [names[c] for c in hand]
        return obs
