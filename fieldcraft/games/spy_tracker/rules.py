"""Spy Tracker rules core: a card version of Liar's Dice with Mercenaries, Traitors and SPOT.

A position is plain ints and lists (so that ``clone`` is a few list copies and random playouts
stay fast) and its rules are here: who acts, what is legal, what an action does, how a
challenge comes out and when the game ends. The cards, the action layout and the ruleset's
tables are in ``game.py``; the names used in the folder are importable from here too, except
the phases and ``BID_BASE``, which the compiled build makes C constants of this module (rules.pxd):
import those from ``game.py``.
"""

from __future__ import annotations

import random
from typing import Any

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from fieldcraft.core import fast
from fieldcraft.core.api import CHANCE, TERMINAL, State, sample_chance
from fieldcraft.core.fields import Shared, StateMeta

from .game import (
    ATTRIBUTES,
    BID_BASE,
    BIDDING,
    CALL,
    CHOOSING,
    CITIES,
    DEALING,
    FACTIONS,
    GAME_TYPE,
    NUM_ATTRIBUTES,
    NUM_SPIES,
    OPENING,
    OVER,
    PHASE_NAMES,
    ROLES,
    SPOT,
    SpyTrackerGame,
    spy_id,
)

__all__ = [
    "ATTRIBUTES",
    "CALL",
    "CITIES",
    "FACTIONS",
    "GAME_TYPE",
    "NUM_ATTRIBUTES",
    "NUM_SPIES",
    "PHASE_NAMES",
    "ROLES",
    "SPOT",
    "SpyTrackerGame",
    "SpyTrackerState",
    "spy_id",
]

class SpyTrackerState(State, metaclass=StateMeta):
    """One position. Hands hold card ids in the order dealt; ``pool`` (undealt cards) is kept
    sorted so that a replay and a resampled state agree field for field."""

    actions: list[int]
    """Every action applied, chance included."""
    phase: int
    player: int
    round: int
    sources: list[int]
    active: cython.long
    """Bitmask of the seats that still have Sources (kept with ``sources``), so that who deals
    next, who may be handed a bid and whether one seat is left are a bit test or a lookup."""
    points: list[int]
    hands: list[list[int]]
    pool: list[int]
    deal_seat: int
    deal_first: int
    """Action id of dealing card 0 to ``deal_seat`` (-1 when not dealing): a deal's card is the
    action minus this, with no arithmetic on the seat."""
    deal_start: int
    in_play: int
    opener: int
    bid_count: int
    bid_attr: int
    taken: cython.long
    """Bitmask of the attributes a bid at the standing count may not name (see
    ``taken_at_count``), kept up to date so that legality needs no walk over the bids."""
    bidder: int
    bids: list[int]
    """This round's bids, flat: seat, kind (0 bid / 1 raise), count, attribute."""
    reveal: Shared[dict[str, Any] | None]
    """The last challenge laid open; replaced at each challenge, never changed."""
    winner: int
    ending: str | None

    game: SpyTrackerGame
    uniform_chance = True  # every chance node (opener, each dealt card) is uniform over legal

    def __init__(self, game: SpyTrackerGame):
        self.game = game
        players = game.num_players
        self.actions = []
        self.round = 1
        self.sources = [game.start_sources] * players
        self.active = (1 << players) - 1
        self.points = [0] * players
        self.hands = [[] for _ in range(players)]
        self.pool = game.deck.copy()
        self.deal_seat = -1
        self.deal_first = -1
        self.deal_start = 0
        self.in_play = players * game.start_sources * game.cards_per_source
        self.bid_count = -1
        self.bid_attr = -1
        self.taken = 0
        self.bidder = -1
        self.bids = []
        self.reveal = None
        self.winner = -1
        self.ending = None
        if game.first_bidder < 0:
            self.phase = OPENING
            self.player = CHANCE
            self.opener = -1
        else:
            self.opener = game.first_bidder
            self._start_deal()

    # -- core -----------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.player == TERMINAL

    def is_chance_node(self) -> bool:
        return self.player == CHANCE

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == BIDDING:
            g = self.game
            count = self.bid_count
            if count < 0:
                return g.openings[self.in_play][:]
            key = count << 9 | self.taken
            answers = g.answers[key]
            if answers is None:
                answers = g.fill_answers(count, self.taken)
            key = count * g._in_play_stride + self.in_play
            raises = g.raises[key]
            if raises is None:
                raises = g.fill_raises(count, self.in_play)
            return answers + raises
        if phase == CHOOSING:
            g = self.game
            ids = g.choosers[self.bidder][self.active][0]
            return ids[:]
        if phase == DEALING:
            g = self.game
            ids = g.deal_actions[self.deal_seat]
            return fast.gather(ids, self.pool)
        if phase == OPENING:
            g = self.game
            return list(range(g.open_base, g.open_base + g.num_players))
        return []

    def _is_legal(self, action: int) -> bool:
        """A bisection of the pool, a few comparisons or one set lookup, without the legal
        list; the phases in the order of how often they come up."""
        phase = self.phase
        if phase == DEALING:  # any other int is no card of the pool once deal_first is taken
            pool = self.pool
            card = action - self.deal_first
            i = fast.bisect_left(pool, card)
            return i < len(pool) and pool[i] == card
        if phase == BIDDING:  # the rule itself: no set per position
            g = self.game
            return action < g.next_base and g.bid_is_legal(self.bid_count, self.taken,
                                                           self.in_play, action)
        if phase == CHOOSING:
            return action in self.game.choosers[self.bidder][self.active][1]
        if phase == OPENING:
            g = self.game
            return 0 <= action - g.open_base < g.num_players
        return False

    def taken_at_count(self) -> int:
        """Bitmask of the attributes a bid at the standing count may not name: the standing
        bid's own, and with ``no_repeat_bids`` every one already bid at that count (what the
        field ``taken`` is kept equal to)."""
        if self.bid_count < 0:
            return 0
        if not self.game.no_repeat_bids:
            return 1 << self.bid_attr
        return self.traits_bid_at_count()

    def traits_bid_at_count(self) -> int:
        """Bitmask of the attributes already bid at the standing count this round. Counts never
        go down within a round, so these are the only earlier bids a new bid could repeat."""
        bids, count = self.bids, self.bid_count
        mask = 0
        i = len(bids) - 4
        while i >= 0 and bids[i + 2] == count:
            attr = bids[i + 3]
            mask |= 1 << attr
            i -= 4
        return mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        g = self.game
        if phase == DEALING:
            pool = self.pool
            left = len(pool)
            pairs = g.deal_pairs[self.deal_seat][left]
            if left == g.num_cards:  # the round's first card: every card is in the pool
                return pairs.copy()
            return fast.gather(pairs, pool)
        if phase == OPENING:
            p = 1.0 / g.num_players
            return [(g.open_base + s, p) for s in range(g.num_players)]
        return []

    def _apply(self, action: int) -> None:
        self.actions.append(action)
        phase = self.phase
        g = self.game
        if phase == DEALING:  # the phases in the order of how often they come up
            card = action - self.deal_first
            pool = self.pool
            del pool[fast.bisect_left(pool, card)]  # the pool is sorted: no scan for the card
            seat = self.deal_seat
            hand = self.hands[seat]
            hand.append(card)
            if len(hand) == self.sources[seat] * g.cards_per_source:
                self._hand_dealt(seat)
            return
        if phase == BIDDING:
            if action < BID_BASE:
                self._challenge(action == SPOT)
                return
            kind, count, attr = g.bid_of[action]
            seat = self.player
            self.bids += (seat, kind, count, attr)
            if g.no_repeat_bids and count == self.bid_count:
                self.taken |= 1 << attr
            else:
                self.taken = 1 << attr
            self.bid_count = count
            self.bid_attr = attr
            self.bidder = seat
            if g.choose_next:
                self.phase = CHOOSING
            else:
                self.player = self._next_active(seat)
        elif phase == CHOOSING:
            self.player = action - g.next_base
            self.phase = BIDDING
        elif phase == OPENING:
            self.opener = action - g.open_base
            self._start_deal()

    def play_chance(self, rng: random.Random) -> None:
        """Deal the rest of the round in one go (the opener is drawn as usual): each remaining
        card is a uniform draw from what is left of the pool, as dealing card by card would be."""
        if self.phase != DEALING:
            self._apply(sample_chance(self, rng))
            return
        g = self.game
        pool, hands, actions = self.pool, self.hands, self.actions
        cps = g.cards_per_source
        random_ = rng.random
        last = len(pool)
        i = 0
        for seat in range(self.deal_seat, len(hands)):
            hand = hands[seat]
            ids = g.deal_actions[seat]
            for _ in range(self.sources[seat] * cps - len(hand)):
                r = random_()
                j = i + int(r * (last - i))  # a partial Fisher-Yates over the pool
                card = pool[j]
                pool[j] = pool[i]
                pool[i] = card
                hand.append(card)
                actions.append(ids[card])
                i += 1
        del pool[:i]
        pool.sort()
        self.deal_seat = self.deal_first = -1
        self.phase = BIDDING
        self.player = self.opener

    def _hand_dealt(self, seat: int) -> None:
        """``seat``'s hand is full: deal to the next seat with Sources, or start the bidding."""
        later = self.active >> (seat + 1)
        if later:
            self._deal_to(seat + (later & -later).bit_length())  # the lowest seat of ``later``
        else:
            self.deal_seat = self.deal_first = -1
            self.phase = BIDDING
            self.player = self.opener

    def _deal_to(self, seat: int) -> None:
        """Deal to ``seat`` next (``deal_first`` follows ``deal_seat``)."""
        g = self.game
        self.deal_seat = seat
        self.deal_first = g.deal_base + seat * g.num_cards

    def _next_active(self, seat: int) -> int:
        """The next seat clockwise that still has an active Source."""
        players = len(self.sources)
        for step in range(1, players + 1):
            other = (seat + step) % players
            if self.sources[other]:
                return other
        return seat

    def _start_deal(self) -> None:
        self.phase = DEALING
        self.player = CHANCE
        self.deal_start = len(self.actions)
        active = self.active
        self._deal_to((active & -active).bit_length() - 1)  # the lowest seat with Sources

    def true_count(self, attr: int) -> int:
        """Cards showing ``attr`` plus Mercenaries minus Traitors over every live hand (floored at
        zero only if the ruleset turns ``negative_counts`` off)."""
        g = self.game
        delta = g.delta[attr]
        total = 0
        for hand in self.hands:
            for card in hand:
                add = delta[card]
                total += add
        if total < 0 and not g.negative_counts:
            return 0
        return total

    def resolve(self, spot: bool) -> tuple[int, int, int]:
        """(true count, loser, winner) of challenging the current bid now."""
        true = self.true_count(self.bid_attr)
        challenger, bidder = self.player, self.bidder
        if spot:
            right = true == self.bid_count
        else:
            right = true < self.bid_count
        if right:
            return true, bidder, challenger
        return true, challenger, bidder

    def _challenge(self, spot: bool) -> None:
        g = self.game
        true, loser, winner = self.resolve(spot)
        challenger = self.player
        sources = self.sources
        sources[loser] -= 1
        eliminated = not sources[loser]
        if eliminated:
            self.active &= ~(1 << loser)
        if spot:
            self.points[winner] += g.spot_points
        names = g.card_names
        hands = self.hands
        self.reveal = {
            "round": self.round,
            "challenge": "spot" if spot else "call",
            "challenger": challenger,
            "bidder": self.bidder,
            "count": self.bid_count,
            "attribute": ATTRIBUTES[self.bid_attr],
            "true_count": true,
            "hands": hands,  # handed over whole: the next round is dealt into new lists
            "cards": [[names[c] for c in h] for h in hands],
            "loser": loser,
            "winner": winner,
            "point_to": winner if spot and g.spot_points else None,
            "eliminated": eliminated,
        }
        self.hands = [[] for _ in sources]
        self.pool = g.deck.copy()
        self.bid_count = self.bid_attr = self.bidder = -1
        self.taken = 0
        self.bids = []
        if spot and self.points[winner] >= g.points_to_win:
            self._finish(winner, "points")
            return
        active = self.active
        if not active & (active - 1):  # one seat left
            self._finish(active.bit_length() - 1, "last_standing")
            return
        if not eliminated:
            self.opener = loser
        elif g.opener_other_party:
            self.opener = winner
        else:
            self.opener = self._next_active(loser)
        self.round += 1
        self.in_play = sum(sources) * g.cards_per_source
        self._start_deal()

    def _finish(self, seat: int, ending: str) -> None:
        self.winner = seat
        self.ending = ending
        self.phase = OVER
        self.player = TERMINAL
        self.in_play = 0

    # -- results --------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        return [1.0 if s == self.winner else 0.0 for s in range(len(self.sources))]

    def outcome(self) -> dict[str, Any]:
        return {
            "winners": self.winners(),
            "points": self.points[:],
            "sources": self.sources[:],
            "ending": self.ending,
            "rounds": self.round,
        }

    def check_invariants(self) -> None:
        g = self.game
        seen = [0] * g.num_cards
        for card in self.pool:
            seen[card] += 1
        for hand in self.hands:
            for card in hand:
                seen[card] += 1
        in_deck = set(g.deck)
        assert all(n == (c in in_deck) for c, n in enumerate(seen)), \
            "a card is missing, in two places or not of the deck"
        assert self.pool == sorted(self.pool), "the undealt pool must stay sorted"
        assert all(0 <= n <= g.start_sources for n in self.sources)
        assert self.active == sum(1 << s for s, n in enumerate(self.sources) if n), "active"
        assert all(p >= 0 for p in self.points)
        assert len(self.bids) % 4 == 0
        if g.no_repeat_bids:
            made = list(zip(self.bids[2::4], self.bids[3::4], strict=True))
            assert len(made) == len(set(made)), "a bid was repeated this round"
        assert self.taken == self.taken_at_count(), "taken must follow the bids"
        if self.phase == DEALING:
            assert self.deal_first == g.deal_base + self.deal_seat * g.num_cards, "deal_first"
        else:
            assert self.deal_seat == self.deal_first == -1, "deal_first outside a deal"
        active = [s for s, n in enumerate(self.sources) if n]
        cps = g.cards_per_source
        phase = self.phase
        if phase == OVER:
            assert self.player == TERMINAL and self.winner >= 0
            assert self.ending in ("points", "last_standing")
            if self.ending == "points":
                assert self.points[self.winner] >= g.points_to_win
            else:
                assert active == [self.winner]
            assert not any(self.hands)
            return
        assert len(active) >= 2, "the game must end when one player has Sources"
        assert max(self.points) < g.points_to_win
        assert self.in_play == sum(self.sources) * cps
        if phase in (BIDDING, CHOOSING):
            for s, hand in enumerate(self.hands):
                assert len(hand) == self.sources[s] * cps, f"seat {s} hand size"
            assert self.player in active
            if self.bids:
                assert self.bids[-4:-2] == [self.bidder, self.bids[-3]]
                assert self.bids[-2:] == [self.bid_count, self.bid_attr]
            else:
                assert self.bid_count == -1 and phase == BIDDING and self.player == self.opener
            if phase == CHOOSING:
                assert self.player == self.bidder
        elif phase == DEALING:
            assert self.player == CHANCE and self.deal_seat in active
            for s, hand in enumerate(self.hands):
                full = self.sources[s] * cps
                if s < self.deal_seat:
                    assert len(hand) == full
                elif s > self.deal_seat:
                    assert not hand
                else:
                    assert len(hand) < full
            assert self.opener in active and not self.bids
        else:
            assert phase == OPENING and self.player == CHANCE and not any(self.hands)

