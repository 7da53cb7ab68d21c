"""What an Under Current seat sees: the public table and everything it has learned.

The one place that decides visibility in this game: every piece is built from public data or
from the seat's own ``known`` bits and role masks (see ``rules.py``), never from the true cards
directly. A spectator sees what the public bit allows; its ``hand``, ``role`` and
``identity_confirmation`` are null (the keys are there for every viewer alike).
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.view import Observer, Piece

from .constants import EFFECTS, FACTIONS, OVER, PHASE_NAMES
from .rules import UnderCurrentGame, UnderCurrentState


class UnderCurrentView(Observer):
    game: UnderCurrentGame

    pieces = (
        Piece("game", "the game id"),
        Piece("players", "the number of seats"),
        Piece("seat", "whose view this is (null: a spectator)"),
        Piece("phase", "deal_roles, deal_cards, choose_start, pass, receive, target, retire, "
                       "swap_own, swap_theirs, drop, row_choice, snatch_pick, snatch_draw, "
                       "draw, declare_red, declare_blue or over"),
        Piece("current_player", "the seat to decide (-1 while chance acts, -4 at the end)"),
        Piece("active", "the seat whose turn it is (-1 before the first turn and at the end)"),
        Piece("start_seat", "the seat that took the first turn (-1 before)"),
        Piece("turn", "turns completed, skipped ones included"),
        Piece("deck_count", "cards left in the draw pile"),
        Piece("final_round", "whether the last round (after the pile ran out) is on"),
        Piece("final_turns_left", "turns left in the last round (0 before it)"),
        Piece("hand_sizes", "cards in each seat's hand"),
        Piece("hand", "this seat's cards in the order they came (null for a spectator)"),
        Piece("role", "this seat's role card (null for a spectator or before the deal)"),
        Piece("roles", "per position (seats, then reserve) the roles still possible there"),
        Piece("known_hands", "other seats' cards this viewer knows, by seat (a str key)"),
        Piece("row", "the Central File Row, oldest first: card (null if unseen), face_up"),
        Piece("discard", "the used cards, face up"),
        Piece("removed", "burned or removed cards (null where unseen)"),
        Piece("identity_confirmation", "for an Eye holder, the seats of Eyes and Thumbs"),
        Piece("pending", "the card being passed or used: passer, receiver, card, effect..."),
        Piece("eliminated", "the seat a right RETIRE eliminated (null if none)"),
        Piece("declarations", "the Green players' named Informers"),
        Piece("winner_faction", "the winning faction at the end (null: none or not yet)"),
        Piece("winners", "seats that won (empty until the end)"),
        Piece("ending", "how the game ended, e.g. deck_out:majority (null before)"),
    )

    def observation(self, state: UnderCurrentState, seat: int | None) -> dict[str, Any]:
        g = self.game
        n = g.num_players
        viewer = n if seat is None else seat
        bit = 1 << viewer
        pub = 1 << n
        names = g.card_names

        def visible(mask: int) -> bool:
            return bool(mask & bit) or bool(mask & pub)

        role_view = [[g.role_names[r] for r in range(g.num_roles) if mask >> r & 1]
                     for mask in deduce(state.role_masks[viewer])]
        known_hands: dict[str, list[str]] = {}
        for s in range(n):
            if s == seat:
                continue
            cards = sorted(names[c] for c, m in zip(state.hands[s], state.hand_known[s],
                                                    strict=True) if visible(m))
            if cards:
                known_hands[str(s)] = cards
        obs: dict[str, Any] = {
            "game": g.name,
            "players": n,
            "seat": seat,
            "phase": PHASE_NAMES[state.phase],
            "current_player": state.current_player(),
            "active": state.active,
            "start_seat": state.start_seat,
            "turn": state.turn,
            "deck_count": len(state.deck),
            "final_round": state.final_left > 0,
            "final_turns_left": max(state.final_left, 0),
            "hand_sizes": [len(h) for h in state.hands],
            "hand": [names[c] for c in state.hands[seat]] if seat is not None else None,
            "role": g.role_names[state.roles[seat]]
            if seat is not None and len(state.roles) > seat else None,
            "roles": role_view,
            "known_hands": known_hands,
            "row": [
                {"card": names[c] if visible(state.row_known[i]) else None,
                 "face_up": bool(state.row_up[i])}
                for i, c in enumerate(state.row)
            ],
            "discard": [names[c] for c in state.discard],
            "removed": [names[c] if visible(m) else None
                        for c, m in zip(state.removed, state.removed_known, strict=True)],
            "identity_confirmation": None,
            "pending": self._pending_view(state, viewer),
            "eliminated": state.eliminated if state.eliminated >= 0 else None,
            "declarations": [
                {"seat": s, "red_informer": g.position_name(r),
                 "blue_informer": g.position_name(b) if b >= 0 else None}
                for s, r, b in state.declarations
            ],
            "winner_faction": FACTIONS[state.winner_faction]
            if state.phase == OVER and state.winner_faction >= 0 else None,
            "winners": state.winners(),
            "ending": state.how or None,
        }
        if seat is not None and state.eye_record[seat] is not None:
            eyes, thumbs = state.eye_record[seat]
            obs["identity_confirmation"] = {"eye": eyes, "thumb": thumbs}
        return obs

    def _pending_view(self, state: UnderCurrentState, viewer: int) -> dict[str, Any] | None:
        g = self.game
        if state.pending < 0:
            return None
        mask = state.pending_known
        seen = bool(mask >> viewer & 1) or bool(mask >> g.num_players & 1)
        view: dict[str, Any] = {
            "passer": state.active,
            "receiver": state.receiver,
            "card": g.card_names[state.pending] if seen else None,
        }
        if state.effect >= 0:
            view["effect"] = EFFECTS[state.effect]
            view["target"] = g.position_name(state.target) if state.target >= 0 else None
        if state.swap_index >= 0 and viewer == state.active:
            view["your_swap_card"] = g.card_names[state.hands[state.active][state.swap_index]]
        return view


def deduce(masks: list[int]) -> list[int]:
    """Narrow candidates by the fact that each role card is in exactly one place, until stable:
    a role pinned to one position is struck from the others, and a role possible at only one
    position is pinned there. Both steps are sound; the view shows their result."""
    masks = masks[:]
    size = len(masks)
    changed = True
    while changed:
        changed = False
        for p, mask in enumerate(masks):
            if mask & (mask - 1) == 0:  # exactly one candidate
                for q in range(size):
                    if q != p and masks[q] & mask:
                        masks[q] &= ~mask
                        changed = True
        every = 0
        for mask in masks:
            every |= mask
        r = 0
        while every >> r:
            bit = 1 << r
            places = [p for p in range(size) if masks[p] & bit]
            if len(places) == 1 and masks[places[0]] != bit:
                masks[places[0]] = bit
                changed = True
            r += 1
    return masks
