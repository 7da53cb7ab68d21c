"""What Under Current's moves do: a turn's flow, every effect, what the seats learn, scoring.

The state's fields are declared here, on :class:`TurnRules`, the base of the state class;
``rules.py`` adds the rules core on top (who acts, what is legal, the deal, and the step per
phase, which decodes an action id and calls the moves here). The moves move the cards; what the
seats learn from a move is worked out in one place, ``_learn``, which each move tells what
happened (the ``known`` bitmasks and role masks it keeps are described in ``rules.py``), so no
one ever re-reads history.

The compiled build makes :class:`TurnTables` (what the rules read from the game at every step)
and :class:`TurnRules` extension types with C fields, and the moves C methods (``turns.pxd``);
this file stays the source of both builds (docs/performance.md).
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.api import Game, State
from fieldcraft.core.fields import StateMeta

from .constants import (
    BLUE,
    BURN,
    DECLARE_RED,
    DRAW,
    DROP,
    DROP_CHOICE,
    EYE,
    FETCH,
    FILED,
    FLIP,
    FLIPPED,
    GREEN,
    GREENS_REVEALED,
    INFORMER_CHECKED,
    OVER,
    PASS,
    PEEK,
    PEEKED,
    RED,
    RETIRE,
    RETIRE_CHOICE,
    RETIRED,
    ROLES_DEALT,
    ROLES_REVEALED,
    ROW_CHOICE,
    ROW_REVEALED,
    ROW_TAKEN,
    SCAN,
    SCANNED,
    SNATCH,
    SNATCH_DRAW,
    SNATCH_PICK,
    SPIED,
    SPY,
    SWAP,
    SWAP_OWN,
    TARGET,
    THUMB,
    YELLOW,
)

_TARGETED = frozenset({SWAP, SCAN, SPY, FLIP, SNATCH})
"""Effects that name a seat (FLIP: or a reserve slot) before they resolve."""


def balance_winner(blue: int, red: int, yellow: int) -> int:
    """The faction a row without Green cards (and without a right Green declaration) makes win:
    Yellow cards top up the smaller of Blue and Red, and Yellow wins if that evens them;
    otherwise the larger colour wins. The heuristic bot reads the row with this same rule."""
    if abs(blue - red) <= yellow:
        return YELLOW
    return BLUE if blue > red else RED


class TurnTables(Game):
    """The numbers and tables of a game that the rules read at every step; ``UnderCurrentGame``
    (``game.py``) works them out from the ruleset.

    Declared here, below the rules, so that the compiled build can give both the moves and the
    rules core these as C fields (``turns.pxd``): the game's other attributes stay in its
    instance dict. See ``UnderCurrentGame`` for what each one is.
    """

    num_roles: int
    num_reserve: int
    num_cards: int
    hand_size: int
    row_limit: int
    retire_min_row: int
    snatch_hand: int
    all_known: int
    full_role_mask: int
    A_FILE: int
    A_USE: int
    A_TARGET: int
    A_RESERVE: int
    A_OWN: int
    A_ROW: int
    A_RETIRE: int
    A_NAME_RED: int
    A_NAME_BLUE: int
    A_DRAW: int
    A_ROLE: int
    A_START: int
    A_SNATCH: int
    role_faction: list[int]
    card_colour: list[int]
    card_effect: list[int]
    faction_mask: list[int]
    symbol_mask: list[int]
    pass_rows: list[list[list[int]]]
    draw_odds: list[list[tuple[int, float]]]
    target_rows: list[list[int]]
    flip_rows: list[list[int]]
    retire_rows: list[list[int]]
    start_odds: list[tuple[int, float]]


class TurnRules(State, metaclass=StateMeta):
    """The fields of an Under Current state, in the order saved states list them, and the rule
    steps that change them (the state class, ``rules.py``, derives from this one)."""

    actions: list[int]
    phase: int
    roles: list[int]
    """Role id per position: seats, then reserve slots (filled during the deal)."""
    hands: list[list[int]]
    hand_known: list[list[int]]
    deck: list[int]
    """Undrawn cards, kept sorted."""
    row: list[int]
    row_up: list[int]
    row_known: list[int]
    discard: list[int]
    removed: list[int]
    removed_known: list[int]
    role_masks: list[list[int]]
    eye_record: list[Any]
    """Per seat, ``[eye seats, thumb seats]`` if it holds an Eye, else ``None``. Written in place
    during the role deal, so copied (a clone used to share it; playing a clone through the deal
    wrote into its original). Each entry is written once and never changed."""
    active: int
    receiver: int
    pending: int
    """The card being passed or used (-1: none)."""
    pending_known: int
    saved_known: list[int]
    effect: int
    target: int
    swap_index: int
    start_seat: int
    turn: int
    final_left: int
    """Turns left in the extra round once the deck ran out; -1 before."""
    eliminated: int
    informer_removed: int
    """Row cards a retired Informer took out of the row at scoring (``informer_removal``); 0
    when none did. Kept because the row at the end no longer shows it, and a study counts the
    games where that rule came into play."""
    green_queue: list[int]
    declarations: list[list[int]]
    """``[seat, red position, blue position]`` per Green declaration."""
    winner_faction: int
    """-1 undecided or nobody; set at the end."""
    how: str
    draw_seat: int
    sampled: bool
    """A resample: its hidden past was imagined, so it has no history."""

    game: TurnTables

    # -- turn structure ----------------------------------------------------------------------------
    def _begin_turn(self, seat: int) -> None:
        """Start ``seat``'s turn; a seat with no cards skips (its turn still counts)."""
        g = self.game
        n = g.num_players
        hands = self.hands
        while True:
            self.active = seat
            if hands[seat]:
                self.phase = PASS
                return
            if self._count_turn():
                return
            seat = (seat + 1) % n

    def _count_turn(self) -> bool:
        """Close the active seat's turn for the deck-out count; True if the game ended."""
        self.turn += 1
        left = self.final_left
        if left > 0:
            self.final_left = left - 1
            if left == 1:
                self._score("deck_out")
                return True
        elif left < 0 and not self.deck:
            self.final_left = self.game.num_players
        return False

    def _end_turn(self) -> None:
        """Draw back up for the active seat, then hand over to the next seat."""
        self.effect = -1
        self.target = -1
        self.receiver = -1
        self.pending = -1
        self.pending_known = 0
        self.swap_index = -1
        a = self.active
        g = self.game
        if self.deck and len(self.hands[a]) < g.hand_size:
            self.phase = DRAW
            return
        if self._count_turn():
            return
        self._begin_turn((a + 1) % g.num_players)

    def _draw(self, seat: int, card: int) -> None:
        self.deck.remove(card)
        self.hands[seat].append(card)
        self.hand_known[seat].append(1 << seat)

    def _take_from_hand(self, seat: int, card: int, keep_mask: int) -> int:
        """Remove ``card`` from ``seat``'s hand secretly; returns its old known mask.

        Onlookers outside ``keep_mask`` cannot tell which card left when the hand held more than
        one, so they forget the cards that stay.
        """
        hand = self.hands[seat]
        i = hand.index(card)
        hand.pop(i)
        known = self.hand_known[seat]
        old = known.pop(i)
        if hand:
            for j in range(len(known)):
                known[j] &= keep_mask
            return old & keep_mask
        return old

    def _file(self, card: int, known: int) -> None:
        """Add a face-down card to the row; past the limit the oldest face-down card turns up."""
        g = self.game
        row_up = self.row_up
        self.row.append(card)
        row_up.append(0)
        oldest = -1
        if row_up.count(0) > g.row_limit:
            oldest = row_up.index(0)
            row_up[oldest] = 1
        self._learn(FILED, known, oldest)

    # -- effects -----------------------------------------------------------------------------------
    def _resolve(self, effect: int) -> None:
        g = self.game
        a = self.active
        self.effect = effect
        if effect in _TARGETED:
            if effect == SWAP and not self.hands[a]:
                self._end_turn()
                return
            if self._has_target():
                self.phase = TARGET
            else:
                self._end_turn()
        elif effect == PEEK:
            self._learn(PEEKED, 0, 0)
            self._end_turn()
        elif effect == DROP:
            if self.hands[a]:
                self.phase = DROP_CHOICE
            else:
                self._end_turn()
        elif effect == FETCH or effect == BURN:
            if self.row:
                self.phase = ROW_CHOICE
            else:
                self._end_turn()
        elif effect == RETIRE:
            if len(self.row) >= g.retire_min_row:
                self.phase = RETIRE_CHOICE
            else:
                self._end_turn()

    def _has_target(self) -> bool:
        """Whether the pending targeted effect has a seat (or reserve slot) to name."""
        eff = self.effect
        if eff == SCAN or eff == SWAP:
            a = self.active
            for s, hand in enumerate(self.hands):
                if hand and s != a:
                    return True
            return False
        if eff == SNATCH:
            g = self.game
            a, size = self.active, g.snatch_hand
            for s, hand in enumerate(self.hands):
                if len(hand) == size and s != a:
                    return True
            return False
        return True  # SPY and FLIP may name any other seat, and there are at least two

    def _target(self, seat: int) -> None:
        eff = self.effect
        self.target = seat
        if eff == SCAN:
            self._learn(SCANNED, seat, 0)
            self._end_turn()
        elif eff == SPY:
            self._learn(SPIED, seat, 0)
            self._end_turn()
        elif eff == FLIP:
            self._flip(seat)
        elif eff == SWAP:
            self.phase = SWAP_OWN
        elif eff == SNATCH:
            self.phase = SNATCH_PICK

    def _flip(self, pos: int) -> None:
        """Exchange role cards with a seat or a reserve slot."""
        a = self.active
        self.target = pos
        roles = self.roles
        roles[a], roles[pos] = roles[pos], roles[a]
        self._learn(FLIPPED, pos, 0)
        self._end_turn()

    def _swap(self, their_index: int) -> None:
        a, t = self.active, self.target
        pair = (1 << a) | (1 << t)
        mine = self.hands[a][self.swap_index]
        theirs = self.hands[t][their_index]
        mine_known = self._take_from_hand(a, mine, pair)
        theirs_known = self._take_from_hand(t, theirs, pair)
        self.hands[a].append(theirs)
        self.hand_known[a].append(theirs_known | pair)
        self.hands[t].append(mine)
        self.hand_known[t].append(mine_known | pair)
        self._end_turn()

    def _drop(self, card: int) -> None:
        a = self.active
        was_single = len(self.hands[a]) == 1
        old = self._take_from_hand(a, card, 1 << a)
        self._file(card, (old if was_single else 0) | (1 << a))
        self._end_turn()

    def _snatch(self, card: int) -> None:
        t = self.target
        was_single = len(self.hands[t]) == 1
        old = self._take_from_hand(t, card, 1 << t)
        self._file(card, (old if was_single else 0) | (1 << t))
        if self.deck:
            self.phase = SNATCH_DRAW
        else:
            self._end_turn()

    def _row_choice(self, index: int) -> None:
        card = self.row.pop(index)
        self.row_up.pop(index)
        if self.effect == FETCH:
            self.hands[self.active].append(card)
        else:
            self.removed.append(card)
        self._learn(ROW_TAKEN, index, 0)
        self._end_turn()

    def _retire(self, seat: int, faction: int) -> None:
        g = self.game
        self.target = seat
        if g.role_faction[self.roles[seat]] == faction:
            self.eliminated = seat
        self._learn(RETIRED, seat, faction)
        if self.eliminated >= 0:
            self._score("retire")
        else:
            self._end_turn()

    # -- knowledge ---------------------------------------------------------------------------------
    def _learn(self, event: int, x: int, y: int) -> None:
        """What each seat learns from ``event``, told by a move once it has moved the cards
        (``x``, ``y``: the event's numbers, as listed). The one place the row's and removed cards'
        ``known`` masks and the role masks change (a hand's move with its cards)."""
        if event == FILED:  # x: who knows the card filed, y: the card turned face up (or -1)
            self.row_known.append(x)
            if y >= 0:
                g = self.game
                self.row_known[y] = g.all_known
            return  # the most frequent event by far: it needs nothing below
        g = self.game
        a = self.active
        if event == ROW_TAKEN:  # x: the row slot FETCH or BURN emptied
            known = self.row_known.pop(x)
            if self.effect == FETCH:  # the taker learns the card
                self.hand_known[a].append(known | (1 << a))
            else:
                self.removed_known.append(known)
        elif event == PEEKED:  # the active seat sees every face-down row card
            row_known = self.row_known
            for i in range(len(row_known)):
                row_known[i] |= 1 << a
        elif event == SCANNED:  # x: the seat whose hand the active seat saw
            hand_known = self.hand_known[x]
            for i in range(len(hand_known)):
                hand_known[i] |= 1 << a
        elif event == SPIED:  # x: the seat whose role card the active seat saw
            self.role_masks[a][x] = 1 << self.roles[x]
        elif event == FLIPPED:  # x: the position the active seat swapped role cards with
            for masks in self.role_masks:  # the swap is public: every viewer's knowledge moves
                masks[a], masks[x] = masks[x], masks[a]
            self.role_masks[a][a] = 1 << self.roles[a]
            if x < g.num_players:
                self.role_masks[x][x] = 1 << self.roles[x]
        elif event == RETIRED:  # x: the seat named, y: the faction; right or wrong is public
            known = g.faction_mask[y] if self.eliminated == x else ~g.faction_mask[y]
            for masks in self.role_masks:
                masks[x] &= known
        elif event == ROLES_DEALT:  # each seat sees its own role; then the Eye holders look
            for s in range(g.num_players):
                self.role_masks[s][s] = 1 << self.roles[s]
            self._identity_confirmation()
        elif event == ROW_REVEALED:  # scoring turns the whole row face up
            self.row_known = [g.all_known] * len(self.row_known)
        elif event == INFORMER_CHECKED:  # x: row cards removed; y: 1 if an Informer was retired
            seen = g.informer_mask if y else ~g.informer_mask  # which the removal shows to all
            for masks in self.role_masks:
                masks[self.eliminated] &= seen
            self.removed_known += [g.all_known] * x
            self.row_known = [g.all_known] * len(self.row)
        elif event == GREENS_REVEALED:  # every Green seat shows its role, so the rest are not
            greens = self.green_queue
            not_green = ~g.faction_mask[GREEN]
            for masks in self.role_masks:
                for s in range(g.num_players):
                    masks[s] = 1 << self.roles[s] if s in greens else masks[s] & not_green
        elif event == ROLES_REVEALED:  # the end shows every role card
            full = [1 << r for r in self.roles]
            for v in range(len(self.role_masks)):
                self.role_masks[v] = full[:]

    def _identity_confirmation(self) -> None:
        """Eye holders learn which seats hold Eye and Thumb cards (and so which hold neither)."""
        g = self.game
        n = g.num_players
        sym = [g.role_symbol[self.roles[s]] for s in range(n)]
        eyes = [s for s in range(n) if sym[s] == EYE]
        thumbs = [s for s in range(n) if sym[s] == THUMB]
        for v in eyes:
            self.eye_record[v] = [eyes, thumbs]
            masks = self.role_masks[v]
            for s in range(n):
                masks[s] &= g.symbol_mask[sym[s]]

    # -- scoring -----------------------------------------------------------------------------------
    def _score(self, ending: str) -> None:
        g = self.game
        self.how = ending
        self.active = -1
        self.effect = -1
        self.pending = -1
        self.pending_known = 0
        self.receiver = -1
        self.phase = OVER
        for i in range(len(self.row)):  # 1. the row is revealed
            self.row_up[i] = 1
        self._learn(ROW_REVEALED, 0, 0)
        if self.eliminated >= 0 and g.informer_removal:  # 2. an Informer takes its colour along
            role = self.roles[self.eliminated]
            colour = g.role_faction[role]
            if colour in [g.card_colour[c] for c in self.row]:
                informer = g.role_rank[role] == "Informer"
                removed = 0
                if informer:
                    keep = [c for c in self.row if g.card_colour[c] != colour]
                    removed = len(self.row) - len(keep)
                    for c in self.row:
                        if g.card_colour[c] == colour:
                            self.removed.append(c)
                    self.row = keep
                    self.row_up = [1] * len(keep)
                    self.informer_removed = removed
                self._learn(INFORMER_CHECKED, removed, informer)
        if GREEN in [g.card_colour[c] for c in self.row]:  # 3. a Green card
            self._finish(GREEN, "green_card")
            return
        n = g.num_players
        greens = [s for s in range(n) if g.role_faction[self.roles[s]] == GREEN]
        if greens and g.green_declaration:  # 4. the Green players name the Informers
            self.green_queue = greens
            self._learn(GREENS_REVEALED, 0, 0)
            self.phase = DECLARE_RED
            return
        self._balance()  # 5. Yellow balancing

    def _finish_declarations(self) -> None:
        roles = self.roles
        g = self.game
        right = all(
            roles[red] in g.red_informers and roles[blue] in g.blue_informers
            for _, red, blue in self.declarations
        )
        if right:
            self._finish(GREEN, "green_declaration")
        else:
            self._balance()

    def _balance(self) -> None:
        colours = [self.game.card_colour[c] for c in self.row]
        winner = balance_winner(colours.count(BLUE), colours.count(RED), colours.count(YELLOW))
        self._finish(winner, "yellow_balance" if winner == YELLOW else "majority")

    def _finish(self, faction: int, reason: str) -> None:
        g = self.game
        seated = faction in [g.role_faction[self.roles[s]] for s in range(g.num_players)]
        self.winner_faction = faction if seated else -1
        self.how = f"{self.how}:{reason}"
        self.phase = OVER
        self._learn(ROLES_REVEALED, 0, 0)

