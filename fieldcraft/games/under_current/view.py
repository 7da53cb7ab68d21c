"""What an Under Current seat sees: the public table and everything it has learned.

The one place that decides visibility in this game: every piece is built from public data or
from the seat's own ``known`` bits and role masks (see ``rules.py``), never from the true cards
directly. A spectator sees what the public bit allows; its ``hand``, ``role`` and
``identity_confirmation`` are null (the keys are there for every viewer alike).

Observation tensor (``N`` seats, ``C`` intelligence cards, ``R`` role cards, ``P = R`` role
positions: seats then reserve, ``H`` hand size), flat and row-major, every value a plain
float, planes in this order::

    viewer                 (N,)       one-hot: the seat whose view this is
    players                (1,)       N
    phase                  (17,)      one-hot phase (PHASE_NAMES order)
    current_player         (N,)       one-hot seat to decide (zeros: chance or the end)
    active                 (N,)       one-hot seat whose turn it is (zeros: none)
    start_seat             (N,)       one-hot seat that took the first turn (zeros: not yet)
    turn                   (1,)       turns completed, skipped ones included
    deck_count             (1,)       cards left in the draw pile
    final_round            (1,)       1 while the last round is on
    final_turns_left       (1,)       turns left in the last round (0 before it)
    hand_sizes             (N,)       cards in each seat's hand
    hand                   (H, C)     the viewer's hand, one card one-hot per slot, in order
    role                   (R,)       one-hot the viewer's role card (zeros: not dealt yet)
    roles                  (P, R)     1 where a role is still possible at a position (deduced)
    known_hands            (N, C)     1 where the viewer knows a seat holds that card (its own
                                      hand included)
    row                    (C, C+2)   per row slot, oldest first: present, face up, card
                                      one-hot (zeros: unseen)
    discard                (C,)       1 for each used card
    discard_order          (C,)       per card, its 1-based place in the used pile (0: not used)
    removed                (C,)       per card seen removed, its 1-based place among removals
    removed_unseen         (C,)       1 where the k-th removed card is one the viewer did not see
    identity_confirmation  (2, N)     an Eye holder's record: Eye seats, Thumb seats (zeros: none)
    pending                (1,)       1 while a card is being passed or used (passer: active)
    pending_receiver       (N,)       one-hot its receiver
    pending_card           (C,)       one-hot the card if the viewer saw it
    pending_effect         (10,)      one-hot the effect being resolved (EFFECTS order)
    pending_target         (P,)       one-hot the named seat or reserve slot
    pending_swap_card      (C,)       one-hot the SWAP card the viewer (the active seat) picked
    eliminated             (N,)       one-hot the seat a right RETIRE eliminated
    declarations           (N, 2, P)  per Green seat: one-hot named Red, Blue Informer position
    winner_faction         (4,)       one-hot winning faction (FACTIONS order; zeros: none)
    winners                (N,)       1 for each seat that won
    ending                 (2,)       one-hot deck_out, retire (zeros: not scored yet)
    ending_reason          (4,)       one-hot green_card, green_declaration, yellow_balance,
                                      majority (zeros: not decided yet)

The row, the used pile and the removed cards are at most all ``C`` cards, so ``C`` slots hold
them losslessly; a seat declares at most once and Greens declare in seat order, so the
declarations by seat keep their order. Only the game id is left out.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from fieldcraft.core import fast
from fieldcraft.core.view import Observer, Piece, Plane, plane_offsets

from .constants import EFFECTS, FACTIONS, OVER, PHASE_NAMES
from .game import UnderCurrentGame
from .rules import UnderCurrentState


class UnderCurrentView(Observer):
    game: UnderCurrentGame

    pieces = (
        Piece("game", "the game id (not in the tensor: one game, one id)", tensor=False),
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

    def __init__(self, game: UnderCurrentGame):
        super().__init__(game)
        self._planes = _planes(game)
        offsets = plane_offsets(self._planes)
        self._size = sum(plane.size for plane in self._planes)
        self._offsets = tuple(offsets[name] for name in _OFFSET_ORDER)
        self._at = offsets
        c, p = game.num_cards, game.num_roles
        base = offsets["ending"]
        kinds = {"deck_out": base, "retire": base + 1}
        reasons = {name: base + 2 + i for i, name in enumerate(ENDING_REASONS)}
        self._ending = {kind: (at_kind,) for kind, at_kind in kinds.items()}
        for kind, at_kind in kinds.items():
            for reason, at_reason in reasons.items():
                self._ending[f"{kind}:{reason}"] = (at_kind, at_reason)
        self._row_stride = c + 2
        self._decl_stride = 2 * p
        self._roles_cache: dict[tuple[int, ...], list[float]] = {}

    def planes(self) -> tuple[Plane, ...]:
        return self._planes

    def tensor_size(self) -> int:
        return self._size

    def tensor(self, state: UnderCurrentState, seat: int) -> list[float]:
        buffer = array("d", bytes(8 * self._size))
        self.write_tensor(state, seat, buffer, 0)
        return fast.float_list(buffer)

    def write_tensor(self, state: UnderCurrentState, seat: int, buffer: array,
                     at: int) -> None:
        """:meth:`tensor` written over ``buffer[at:at + size]`` (an ``array.array("d")``) with
        no list in between (a batched env's one write per decision): the table, the piles,
        the move under way, as far as the viewer's and the public bit see them. C functions on
        the state's C fields in the compiled build."""
        fast.zero_doubles(buffer, at, self._size)  # checks that the tensor fits
        t = fast.doubles(buffer, at)
        g = self.game
        n = g.num_players
        key = tuple(state.role_masks[seat])
        block = self._roles_cache.get(key)
        if block is None:
            block = self._roles_block(key)
        vis = (1 << seat) | (1 << n)
        _put_table(t, self._offsets, state, seat, n, g.num_cards, state.current_player(),
                   block)
        _put_piles(t, self._at, self._row_stride, state, vis)
        _put_move(t, self, state, seat, vis)

    def _roles_block(self, key: tuple[int, ...]) -> list[float]:
        """The ``roles`` plane for the role masks ``key``, deduced (cached: few distinct ones,
        and one slice assignment writes the whole plane)."""
        r = self.game.num_roles
        block = [1.0 if mask >> role & 1 else 0.0 for mask in deduce(list(key))
                 for role in range(r)]
        cache = self._roles_cache
        if len(cache) >= 100_000:
            cache.clear()
        cache[key] = block
        return block

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
            "known_hands": self._known_hands(state, seat, visible),
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

    def _known_hands(self, state: UnderCurrentState, seat: int | None,
                     visible: Callable[[int], bool]) -> dict[str, list[str]]:
        """The cards of the other seats' hands the viewer knows, by seat (none: left out)."""
        names = self.game.card_names
        known_hands: dict[str, list[str]] = {}
        for s in range(self.game.num_players):
            if s == seat:
                continue
            cards = sorted(names[c] for c, m in zip(state.hands[s], state.hand_known[s],
                                                    strict=True) if visible(m))
            if cards:
                known_hands[str(s)] = cards
        return known_hands

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


ENDING_REASONS = ("green_card", "green_declaration", "yellow_balance", "majority")
"""How a scored game was decided (after the colon of ``ending``), in tensor order."""

_OFFSET_ORDER = (
    "players", "phase", "current_player", "active", "start_seat", "turn", "deck_count",
    "final_round", "final_turns_left", "hand_sizes", "hand", "role", "roles", "known_hands",
)
"""The planes whose offsets ``tensor`` unpacks, in that order (the rest are looked up by name
in ``_tensor_piles`` and ``_tensor_move``)."""


def _planes(g: UnderCurrentGame) -> tuple[Plane, ...]:
    """The tensor layout for one player count and ruleset (see the module docstring)."""
    n, c, r, h = g.num_players, g.num_cards, g.num_roles, g.hand_size
    p = g.num_players + g.num_reserve
    return (
        Plane("viewer", (n,), "one-hot: the seat whose view this is"),
        Plane("players", (1,), "the number of seats"),
        Plane("phase", (len(PHASE_NAMES),), "one-hot: the phase, in PHASE_NAMES order"),
        Plane("current_player", (n,), "one-hot: the seat to decide (zeros: chance or the end)"),
        Plane("active", (n,), "one-hot: the seat whose turn it is (zeros: none)"),
        Plane("start_seat", (n,), "one-hot: the seat that took the first turn (zeros: not yet)"),
        Plane("turn", (1,), "turns completed, skipped ones included"),
        Plane("deck_count", (1,), "cards left in the draw pile"),
        Plane("final_round", (1,), "1 while the last round (after the pile ran out) is on"),
        Plane("final_turns_left", (1,), "turns left in the last round (0 before it)"),
        Plane("hand_sizes", (n,), "cards in each seat's hand"),
        Plane("hand", (h, c), "the viewer's hand in the order the cards came: slot k holds "
                              "the k-th card one-hot (hands never exceed the hand size)"),
        Plane("role", (r,), "one-hot: the viewer's role card (zeros: not dealt yet)"),
        Plane("roles", (p, r), "per role position (seats, then reserve), 1 for each role "
                               "still possible there after deduction"),
        Plane("known_hands", (n, c), "per seat, 1 for each of its cards the viewer knows: "
                                     "the viewer's own hand, the known_hands of the view"),
        Plane("row", (c, c + 2), "the Central File Row, oldest first, one slot per card (it "
                                 "never holds more than all C): present, face up, then the "
                                 "card one-hot if the viewer knows it"),
        Plane("discard", (c,), "1 for each used card"),
        Plane("discard_order", (c,), "per card, its 1-based place in the used pile (0: not "
                                     "used), so the pile's order is kept"),
        Plane("removed", (c,), "per card the viewer saw burned or removed, its 1-based place "
                               "in the removed pile (0: not seen there)"),
        Plane("removed_unseen", (c,), "1 at slot k where the k-th removed card is one the "
                                      "viewer did not see"),
        Plane("identity_confirmation", (2, n), "an Eye holder's record: the Eye seats, then "
                                               "the Thumb seats (zeros: no record; a record "
                                               "always lists the viewer as an Eye)"),
        Plane("pending", (1,), "1 while a card is being passed or used (its passer is the "
                               "active seat)"),
        Plane("pending_receiver", (n,), "one-hot: the seat receiving the pending card"),
        Plane("pending_card", (c,), "one-hot: the pending card, if the viewer saw it"),
        Plane("pending_effect", (len(EFFECTS),), "one-hot: the effect being resolved, in "
                                                 "EFFECTS order (zeros: not used yet)"),
        Plane("pending_target", (p,), "one-hot: the seat or reserve slot the effect names"),
        Plane("pending_swap_card", (c,), "one-hot: the card the viewer, the active seat, "
                                         "picked to SWAP"),
        Plane("eliminated", (n,), "one-hot: the seat a right RETIRE eliminated"),
        Plane("declarations", (n, 2, p), "per Green seat that declared: the position named "
                                         "Red Informer, then Blue Informer, one-hot (Greens "
                                         "declare once each, in seat order)"),
        Plane("winner_faction", (len(FACTIONS),), "one-hot: the winning faction, in FACTIONS "
                                                  "order (zeros: none or not yet)"),
        Plane("winners", (n,), "1 for each seat that won"),
        Plane("ending", (2,), "one-hot: the game ended by deck_out or retire"),
        Plane("ending_reason", (len(ENDING_REASONS),), "one-hot: green_card, "
                                                       "green_declaration, yellow_balance or "
                                                       "majority (zeros: not decided yet)"),
    )


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


def _put_table(t: Any, offsets: tuple[int, ...], state: UnderCurrentState, seat: int, n: int,
               c: int, current: int, roles_block: list[float]) -> None:
    """The planes up to ``known_hands``: who looks and acts, the turn, the hands (this seat's
    own, and the cards of others it knows), its role and the roles still possible. ``t`` is a
    C pointer in the compiled build, a memoryview in the pure one."""
    (o_players, o_phase, o_current, o_active, o_start, o_turn, o_deck, o_final,
     o_final_left, o_sizes, o_hand, o_role, o_roles, o_known) = offsets
    vis = (1 << seat) | (1 << n)
    t[seat] = 1.0  # viewer, at offset 0
    t[o_players] = n
    t[o_phase + state.phase] = 1.0
    if current >= 0:
        t[o_current + current] = 1.0
    if state.active >= 0:
        t[o_active + state.active] = 1.0
    if state.start_seat >= 0:
        t[o_start + state.start_seat] = 1.0
    t[o_turn] = state.turn
    t[o_deck] = len(state.deck)
    left = state.final_left
    if left > 0:
        t[o_final] = 1.0
        t[o_final_left] = left
    hands, hand_known = state.hands, state.hand_known
    for s in range(n):
        t[o_sizes + s] = len(hands[s])
    own = hands[seat]
    for i in range(len(own)):
        t[o_hand + c * i + own[i]] = 1.0
    for s in range(n):
        hand = hands[s]
        known = hand_known[s]
        for i in range(len(hand)):
            if known[i] & vis:
                t[o_known + c * s + hand[i]] = 1.0
    roles = state.roles
    if len(roles) > seat:
        t[o_role + roles[seat]] = 1.0
    for i in range(len(roles_block)):
        if roles_block[i]:
            t[o_roles + i] = roles_block[i]


def _put_piles(t: Any, at_: dict[str, int], stride: int, state: UnderCurrentState,
               vis: int) -> None:
    """The row, the used pile and the removed cards, as far as ``vis`` (the viewer's and the
    public bit) sees them."""
    o_row, o_discard, o_discard_order = at_["row"], at_["discard"], at_["discard_order"]
    o_removed, o_removed_unseen = at_["removed"], at_["removed_unseen"]
    row, row_up, row_known = state.row, state.row_up, state.row_known
    for i in range(min(len(row), len(row_up), len(row_known))):
        at = o_row + stride * i
        t[at] = 1.0
        if row_up[i]:
            t[at + 1] = 1.0
        if row_known[i] & vis:
            t[at + 2 + row[i]] = 1.0
    discard = state.discard
    for i in range(len(discard)):
        t[o_discard + discard[i]] = 1.0
        t[o_discard_order + discard[i]] = i + 1
    removed, removed_known = state.removed, state.removed_known
    for i in range(min(len(removed), len(removed_known))):
        if removed_known[i] & vis:
            t[o_removed + removed[i]] = i + 1
        else:
            t[o_removed_unseen + i] = 1.0


def _put_move(t: Any, view: UnderCurrentView, state: UnderCurrentState, seat: int,
              vis: int) -> None:
    """The identity confirmation, the card being passed or used, and the end."""
    g = view.game
    n = g.num_players
    at_ = view._at
    o_identity, o_pending, o_receiver = (at_["identity_confirmation"], at_["pending"],
                                         at_["pending_receiver"])
    o_card, o_effect, o_target = at_["pending_card"], at_["pending_effect"], \
        at_["pending_target"]
    o_swap, o_eliminated, o_decl = (at_["pending_swap_card"], at_["eliminated"],
                                    at_["declarations"])
    o_winner, o_winners = at_["winner_faction"], at_["winners"]
    active = state.active
    record = state.eye_record[seat]
    if record is not None:
        for s in record[0]:
            t[o_identity + s] = 1.0
        for s in record[1]:
            t[o_identity + n + s] = 1.0
    pending = state.pending
    if pending >= 0:
        t[o_pending] = 1.0
        t[o_receiver + state.receiver] = 1.0
        if state.pending_known & vis:
            t[o_card + pending] = 1.0
        effect = state.effect
        if effect >= 0:
            t[o_effect + effect] = 1.0
            if state.target >= 0:
                t[o_target + state.target] = 1.0
        if state.swap_index >= 0 and seat == active:
            t[o_swap + state.hands[active][state.swap_index]] = 1.0
    if state.eliminated >= 0:
        t[o_eliminated + state.eliminated] = 1.0
    if state.declarations:
        stride = view._decl_stride
        p = g.num_roles
        for s, red, blue in state.declarations:
            at = o_decl + s * stride
            t[at + red] = 1.0
            if blue >= 0:
                t[at + p + blue] = 1.0
    if state.phase == OVER:
        if state.winner_faction >= 0:
            t[o_winner + state.winner_faction] = 1.0
        for s in state.winners():
            t[o_winners + s] = 1.0
    if state.how:
        for i in view._ending[state.how]:
            t[i] = 1.0
