"""What a Spy Tracker seat sees: the public table (Sources, points, this round's bids, the last
reveal) and its own hand. Every other hand stays hidden until a challenge lays them all open.

The observation tensor (``P`` players, ``N`` cards, ``B`` = 9 x (highest count - min_bid + 1)
bid slots, one per count and attribute, in action order), every value a plain float::

    viewer         [P]     one-hot: whose view this is
    phase          [5]     one-hot: opening, dealing, bidding, choosing next, over
    to_act         [P]     one-hot: the seat to decide (all 0 while chance acts, at the end)
    opener         [P]     one-hot: who opens this round (all 0 before it is drawn)
    round          [1]     the round number, from 1
    sources        [P]     active Sources of each seat
    points         [P]     points of each seat
    hand_sizes     [P]     cards in each seat's hand
    cards_in_play  [1]     cards dealt this round
    bid            [P+1+9] the standing bid: bidder one-hot, count, attribute one-hot (0s if none)
    bids           [B, P+2] this round's bids by slot: bidder one-hot, 1 if a raise, and the
                           bid's place in the round's order (1, 2, ...; 0 if not bid). With
                           ``no_repeat_bids`` (the default) a slot is bid at most once a round,
                           so this is the whole list; without it a slot keeps its last bid.
    hand           [N]     this seat's cards: k if the card was the k-th dealt to it, else 0
    reveal         [7+4P+9+P*N] the last challenge: 1 if any, round, 1 if a spot, count, true
                           count, 1 if the loser was eliminated, 1 if a point was won; then
                           challenger, bidder, loser, winner one-hots, the attribute one-hot,
                           and every hand laid open as in ``hand``
    winners        [P]     1 for each seat that won
    ending         [2]     one-hot: won on points, last one standing

Card order within a hand is kept (the k-th dealt) so that the tensor loses nothing the
observation holds; a learner that wants a set reads ``> 0``.
"""

from __future__ import annotations

from array import array
from typing import Any

from fieldcraft.core import fast
from fieldcraft.core.view import Observer, Piece, Plane, plane_offsets

from .rules import ATTRIBUTES, NUM_ATTRIBUTES, PHASE_NAMES, SpyTrackerGame, SpyTrackerState

_ENDINGS = ("points", "last_standing")


class SpyTrackerView(Observer):
    game: SpyTrackerGame

    pieces = (
        Piece("game", "the game id", tensor=False),
        Piece("seat", "whose view this is (null: a spectator)"),
        Piece("round", "the round number, from 1"),
        Piece("phase", "opening, dealing, bidding, choosing next or over"),
        Piece("to_act", "the seat to decide, or null while chance acts"),
        Piece("opener", "who opens this round's bidding"),
        Piece("sources", "active Sources of each seat"),
        Piece("start_sources", "Sources each seat started with (fixed by the ruleset, so not in "
                               "the tensor)", tensor=False),
        Piece("points", "points of each seat"),
        Piece("points_to_win", "points that win the game (fixed by the ruleset)", tensor=False),
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

    def __init__(self, game: SpyTrackerGame):
        super().__init__(game)
        p, n = game.num_players, game.num_cards
        slots = NUM_ATTRIBUTES * (game.max_count - game.min_bid + 1)
        self._planes = (
            Plane("viewer", (p,), "one-hot: whose view this is"),
            Plane("phase", (len(PHASE_NAMES),), "one-hot: " + ", ".join(PHASE_NAMES)),
            Plane("to_act", (p,), "one-hot: the seat to decide (0s while chance acts)"),
            Plane("opener", (p,), "one-hot: who opens this round"),
            Plane("round", (1,), "the round number, from 1"),
            Plane("sources", (p,), "active Sources of each seat"),
            Plane("points", (p,), "points of each seat"),
            Plane("hand_sizes", (p,), "cards in each seat's hand"),
            Plane("cards_in_play", (1,), "cards dealt this round"),
            Plane("bid", (p + 1 + NUM_ATTRIBUTES,),
                  "the standing bid: bidder one-hot, count, attribute one-hot"),
            Plane("bids", (slots, p + 2),
                  "per (count, attribute) slot: bidder one-hot, 1 if a raise, place in order"),
            Plane("hand", (n,), "k if the card was the k-th dealt to this seat, else 0"),
            Plane("reveal", (7 + 4 * p + NUM_ATTRIBUTES + p * n,),
                  "the last challenge: any, round, spot, count, true count, eliminated, point "
                  "won; challenger, bidder, loser, winner one-hots; attribute one-hot; the "
                  "hands laid open as in hand"),
            Plane("winners", (p,), "1 for each seat that won"),
            Plane("ending", (len(_ENDINGS),), "one-hot: won on points, last one standing"),
        )
        self._offsets = plane_offsets(self._planes)
        self._starts = tuple(self._offsets[plane.name] for plane in self._planes)
        """The planes' offsets in order, for :func:`_fill` to unpack into C ints."""
        self._size = sum(plane.size for plane in self._planes)

    def planes(self) -> tuple[Plane, ...]:
        return self._planes

    def tensor(self, state: SpyTrackerState, seat: int) -> list[float]:
        buffer = array("d", bytes(8 * self._size))
        self.write_tensor(state, seat, buffer, 0)
        return fast.float_list(buffer)

    def write_tensor(self, state: SpyTrackerState, seat: int, buffer: array, at: int) -> None:
        """:meth:`tensor` written over ``buffer[at:at + size]`` (an ``array.array("d")``) with
        no list in between: a batched env's one write per decision, a C function on the
        state's C fields in the compiled build."""
        fast.zero_doubles(buffer, at, self._size)  # checks that the tensor fits
        g = self.game
        _fill(fast.doubles(buffer, at), self._starts, state, seat, g.num_players, g.min_bid,
              g.num_cards)

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


def _fill(t: Any, starts: tuple[int, ...], state: SpyTrackerState, seat: int, p: int, low: int,
          n: int) -> None:
    """Write the nonzero entries of ``seat``'s tensor through ``t`` (a C pointer into a zeroed
    buffer in the compiled build, where this is a C function on the state's C fields; a
    memoryview in the pure one), reading only what :meth:`SpyTrackerView.observation` shows:
    the seat's own hand, the others' only once a challenge laid them open. A bid slot bid
    again (possible without ``no_repeat_bids``) is overwritten by the later bid."""
    (_, phase, to_act, opener, round_, sources, points, hand_sizes, in_play, bid, bids, hand,
     reveal, winners, ending) = starts
    t[seat] = 1.0
    t[phase + state.phase] = 1.0
    if state.player >= 0:
        t[to_act + state.player] = 1.0
    if state.opener >= 0:
        t[opener + state.opener] = 1.0
    t[round_] = state.round
    for s in range(p):
        t[sources + s] = state.sources[s]
        t[points + s] = state.points[s]
        t[hand_sizes + s] = len(state.hands[s])
    t[in_play] = state.in_play
    if state.bid_count >= 0:
        t[bid + state.bidder] = 1.0
        t[bid + p] = state.bid_count
        t[bid + p + 1 + state.bid_attr] = 1.0
    history = state.bids
    width = p + 2
    for k in range(0, len(history), 4):
        at = bids + ((history[k + 2] - low) * NUM_ATTRIBUTES + history[k + 3]) * width
        for s in range(p):
            t[at + s] = 0.0
        t[at + history[k]] = 1.0
        t[at + p] = history[k + 1]
        t[at + p + 1] = k // 4 + 1
    own = state.hands[seat]
    for i in range(len(own)):
        t[hand + own[i]] = i + 1
    if state.reveal is not None:
        _fill_reveal(t, reveal, state.reveal, p, n)
    if state.winner >= 0:
        t[winners + state.winner] = 1.0
    if state.ending is not None:
        t[ending + _ENDINGS.index(state.ending)] = 1.0


def _fill_reveal(t: Any, at: int, reveal: dict[str, Any], p: int, n: int) -> None:
    """The ``reveal`` plane from ``at``: the last challenge's numbers and flags, its seats
    one-hot, the attribute bid, and every hand it laid open (as the ``hand`` plane writes one)."""
    t[at] = 1.0
    t[at + 1] = reveal["round"]
    t[at + 2] = 1.0 if reveal["challenge"] == "spot" else 0.0
    t[at + 3] = reveal["count"]
    t[at + 4] = reveal["true_count"]
    t[at + 5] = 1.0 if reveal["eliminated"] else 0.0
    t[at + 6] = 0.0 if reveal["point_to"] is None else 1.0
    at += 7
    for key in ("challenger", "bidder", "loser", "winner"):
        t[at + reveal[key]] = 1.0
        at += p
    t[at + ATTRIBUTES.index(reveal["attribute"])] = 1.0
    at += NUM_ATTRIBUTES
    hands = reveal["hands"]
    for s in range(len(hands)):
        laid = hands[s]
        for i in range(len(laid)):
            t[at + s * n + laid[i]] = i + 1
