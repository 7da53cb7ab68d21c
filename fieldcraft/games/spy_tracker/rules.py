"""Spy Tracker rules core: a card version of Liar's Dice with Mercenaries, Traitors and SPOT.

Everything a designer may change lives in ``ruleset.json`` and is read once in
:class:`SpyTrackerGame`; the state itself is plain ints and lists so that ``clone`` is a few list
copies and random playouts stay fast.

Action space (fixed per game; ``C`` = highest bid count, ``m`` = ``min_bid``, ``P`` = players,
``N`` = deck size)::

    0                      call
    1                      spot
    2 + (k-m)*9 + a        bid k of attribute a (round's first bid, or same count new attribute)
    R + (k-m)*9 + a        raise to k of attribute a (higher count)       R = 2 + 9*(C-m+1)
    X + s                  next: seat s (the bidder picks who acts next)  X = R + 9*(C-m+1)
    O + s                  seat s opens (chance, round 1)                 O = X + P
    D + s*N + c            deal card c to seat s (chance)                 D = O + P

Bids and raises get separate ints so that every action means one thing whatever the state
("raise 5 Moscow" over a bid of 5 is simply illegal rather than silently read as a bid), and deals
carry their seat so that a log line can be read back without knowing the position. Chance
outcomes are the ids from ``O`` up, their own range (``GameInfo.chance_offset``).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from operator import itemgetter
from typing import Any

from fieldcraft.core.api import CHANCE, TERMINAL, Game, State, sample_chance
from fieldcraft.core.errors import RulesetError
from fieldcraft.core.fields import Shared
from fieldcraft.core.spec import CONSTANT_SUM, GameInfo, GameType

GAME_TYPE = GameType(utility=CONSTANT_SUM)
"""Sequential, explicit chance (the opener, the deals), imperfect information; exactly one seat
wins, so the returns always add up to 1."""

ROLES = ("Face", "Hacker", "Muscle")
FACTIONS = ("Agency", "Bureau", "Command")
CITIES = ("New York", "London", "Moscow")
ATTRIBUTES = ROLES + FACTIONS + CITIES
"""Attribute index 0-2 roles, 3-5 factions, 6-8 cities: the nine things a bid can name."""
NUM_ATTRIBUTES = 9
NUM_SPIES = 27

CALL = 0
SPOT = 1
BID_BASE = 2

OPENING, DEALING, BIDDING, CHOOSING, OVER = range(5)
PHASE_NAMES = ("opening", "dealing", "bidding", "choosing next", "over")

_FIRST_BIDDER_HELP = '"random" or "seat N"'
_OTHER_PARTY = "other_party"
_NEXT_SEAT = "next_seat"


def spy_id(role: int, faction: int, city: int) -> int:
    """Card id of a spy; spies take ids 0-26 so a card's attributes follow from its id."""
    return role * 9 + faction * 3 + city


def _spy_name(card: int) -> str:
    return f"{FACTIONS[card // 3 % 3]}/{ROLES[card // 9]}/{CITIES[card % 3]}"


class _Table(dict):  # type: ignore[type-arg]
    """A cache that makes a missing entry with ``make(key)`` and keeps it: a lookup is one
    subscript, with no test for a miss in the hot path."""

    def __init__(self, make: Any):
        super().__init__()
        self.make = make

    def __missing__(self, key: int) -> Any:
        value = self[key] = self.make(key)
        return value


class SpyTrackerGame(Game):
    """Resolved ruleset plus the tables every state shares (card names, counting deltas, what
    each bid action names, the deal odds and the legal lists of the decision phases)."""

    game_type = GAME_TYPE

    def __init__(self, spec: Any, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        super().__init__(spec, players, ruleset, overrides)
        r = ruleset
        sources = r["sources"]
        key = str(players)
        if key not in sources:
            raise RulesetError(
                f"sources has no entry for {players} players (keys: {sorted(sources)})"
            )
        self.start_sources: int = sources[key]
        self.cards_per_source: int = r["cards_per_source"]
        self.num_mercenaries: int = r["mercenaries"]
        self.num_traitors: int = r["traitors"]
        self.points_to_win: int = r["points_to_win"]
        self.spot_points: int = r["spot_points"]
        self.min_bid: int = r["min_bid"]
        self.choose_next: bool = r["bidder_chooses_next"]
        self.negative_counts: bool = r["negative_counts"]
        self.no_repeat_bids: bool = r["no_repeat_bids"]
        for name, value, low in (
            ("sources", self.start_sources, 1),
            ("cards_per_source", self.cards_per_source, 1),
            ("mercenaries", self.num_mercenaries, 0),
            ("traitors", self.num_traitors, 0),
            ("points_to_win", self.points_to_win, 1),
            ("spot_points", self.spot_points, 0),
            ("min_bid", self.min_bid, 0),
        ):
            if value < low:
                raise RulesetError(f"{name} must be at least {low}, got {value}")
        self.num_cards: int = NUM_SPIES + self.num_mercenaries + self.num_traitors
        deal_max = players * self.start_sources * self.cards_per_source
        if deal_max > self.num_cards:
            raise RulesetError(
                f"{players} players x {self.start_sources} sources x {self.cards_per_source} "
                f"cards need {deal_max} cards; the deck has {self.num_cards}"
            )
        first = r["first_bidder"]
        if first == "random":
            self.first_bidder = -1
        else:
            parts = first.split()
            if len(parts) != 2 or parts[0] != "seat" or not parts[1].isdigit():
                raise RulesetError(f"first_bidder must be {_FIRST_BIDDER_HELP}, got {first!r}")
            self.first_bidder = int(parts[1])
            if self.first_bidder >= players:
                raise RulesetError(f"first_bidder {first!r} is not a seat of {players} players")
        opener_rule = r["opener_if_loser_eliminated"]
        if opener_rule not in (_OTHER_PARTY, _NEXT_SEAT):
            raise RulesetError(
                f'opener_if_loser_eliminated must be "{_OTHER_PARTY}" or "{_NEXT_SEAT}", '
                f"got {opener_rule!r}"
            )
        self.opener_other_party: bool = opener_rule == _OTHER_PARTY
        cap_rule = r["max_bid"]
        if cap_rule not in ("cards_in_play", "deck"):
            raise RulesetError(f'max_bid must be "cards_in_play" or "deck", got {cap_rule!r}')
        self.cap_in_play: bool = cap_rule == "cards_in_play"
        self.max_count: int = deal_max if self.cap_in_play else self.num_cards
        if self.min_bid > self.max_count:
            raise RulesetError(f"min_bid {self.min_bid} exceeds the highest count {self.max_count}")

        # Action layout (see the module docstring).
        span = NUM_ATTRIBUTES * (self.max_count - self.min_bid + 1)
        self.raise_base = BID_BASE + span
        self.next_base = self.raise_base + span
        self.open_base = self.next_base + players
        self.deal_base = self.open_base + players
        self.num_actions = self.deal_base + players * self.num_cards

        # Cards: spies, then Mercenaries, then Traitors.
        merc_end = NUM_SPIES + self.num_mercenaries
        names = [_spy_name(c) for c in range(NUM_SPIES)]
        names += [f"Mercenary {i + 1}" for i in range(self.num_mercenaries)]
        names += [f"Traitor {i + 1}" for i in range(self.num_traitors)]
        self.card_names: list[str] = names
        self.deck: list[int] = list(range(self.num_cards))
        """Every card id in order: each round's pool starts as a copy."""
        # delta[a][c]: what card c adds to the true count of attribute a.
        self.delta: list[list[int]] = []
        for a in range(NUM_ATTRIBUTES):
            row = []
            for c in range(self.num_cards):
                if c < NUM_SPIES:
                    attrs = (c // 9, 3 + c // 3 % 3, 6 + c % 3)
                    row.append(1 if a in attrs else 0)
                else:
                    row.append(1 if c < merc_end else -1)
            self.delta.append(row)
        # card_delta[c][a] = delta[a][c]: a hand's counts are one zip away.
        self.card_delta: list[tuple[int, ...]] = list(zip(*self.delta, strict=True))

        # Tables for the hot path (a random game is about 40% deals, 30% bids, 30% choices of
        # who answers), so that each phase's legal list, legality test and move are a lookup or
        # two rather than arithmetic on several fields.
        # bid_of[action]: (kind 0 bid / 1 raise, count, attribute) for ids below ``next_base``
        # (None for call and spot).
        self.bid_of: list[tuple[int, int, int] | None] = [None, None]
        for kind in (0, 1):
            for count in range(self.min_bid, self.max_count + 1):
                self.bid_of += [(kind, count, a) for a in range(NUM_ATTRIBUTES)]
        # caps[in_play]: round_cap(in_play).
        self.caps: list[int] = [self.round_cap(n) for n in range(deal_max + 1)]
        # The legal list while bidding comes in pieces, so the tables stay small enough for the
        # processor's cache (one list, and a set, per count, attributes taken and cards in play
        # grew to megabytes, and looking them up cost more than the pieces do):
        # openings[in_play]: the round's first bid, any count up to the cap;
        # answers[count << 9 | taken]: call, spot and the attributes still open at the count;
        # raises[count * _in_play_stride + in_play]: every raise up to the cap.
        self.openings: list[list[int]] = [
            list(range(BID_BASE, BID_BASE + (cap - self.min_bid + 1) * NUM_ATTRIBUTES))
            for cap in self.caps
        ]
        self.answers: dict[int, list[int]] = _Table(self._answers)
        self._in_play_stride = deal_max + 1
        self.raises: dict[int, list[int]] = _Table(self._raises)
        # choosers[bidder][active]: (legal list, legal set) of the bidder's "next: seat" choice,
        # ``active`` being the bitmask of seats with Sources.
        self.choosers: list[list[tuple[list[int], frozenset[int]]]] = []
        for bidder in range(players):
            row = []
            for active in range(1 << players):
                legal = [self.next_base + s for s in range(players)
                         if active >> s & 1 and s != bidder]
                row.append((legal, frozenset(legal)))
            self.choosers.append(row)
        # deal_pairs[seat][left]: a deal's (action, odds) for every card id, indexed by the
        # cards of the pool instead of building a tuple per card at every dealt card (the deal
        # is most of a game's chance steps). Only ``left`` a round's deal can reach is filled.
        self.deal_pairs: list[list[list[tuple[int, float]]]] = []
        for seat in range(players):
            first = self.deal_base + seat * self.num_cards
            row = [[] for _ in range(self.num_cards + 1)]
            for left in range(self.num_cards - deal_max + 1, self.num_cards + 1):
                p = 1.0 / left
                row[left] = [(first + c, p) for c in range(self.num_cards)]
            self.deal_pairs.append(row)

    def _info(self) -> GameInfo:
        """The bounds follow from the rules: every challenge costs exactly one Source and the
        game ends when one seat has any left, so there are at most ``P*S - 1`` rounds, round
        ``k`` with at most ``P*S - k`` Sources in play. With ``no_repeat_bids`` a round holds at
        most one bid per (count, attribute) pair, each followed by a choice of who answers when
        the bidder chooses, and then one challenge. Without it a round can go on for ever."""
        players, sources, cps = self.num_players, self.start_sources, self.cards_per_source
        total = players * sources
        rounds = total - 1
        decisions = chance = 0
        for k in range(rounds):
            in_play = (total - k) * cps
            bids = NUM_ATTRIBUTES * (self.round_cap(in_play) - self.min_bid + 1)
            decisions += bids * (2 if self.choose_next else 1) + 1
            chance += in_play
        chance += 1 if self.first_bidder < 0 else 0
        return GameInfo(
            num_players=players,
            num_distinct_actions=self.num_actions,
            max_chance_outcomes=self.num_actions - self.open_base,
            chance_offset=self.open_base,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=decisions if self.no_repeat_bids else None,
            max_chance_nodes=chance,
        )

    def bid_action(self, count: int, attr: int, raise_: bool = False) -> int:
        """Action id of a bid or raise; lets tests and bots build bids without string parsing."""
        base = self.raise_base if raise_ else BID_BASE
        return base + (count - self.min_bid) * NUM_ATTRIBUTES + attr

    def round_cap(self, in_play: int) -> int:
        """Highest count allowed this round; never below ``min_bid`` so an opening bid exists."""
        if not self.cap_in_play:
            return self.max_count
        return max(in_play, self.min_bid)

    def _answers(self, key: int) -> list[int]:
        """An entry of ``answers``: call, spot and the bids at the standing count on the
        attributes not taken."""
        count, taken = key >> 9, key & 511
        same = BID_BASE + (count - self.min_bid) * NUM_ATTRIBUTES
        return [CALL, SPOT] + [same + a for a in range(NUM_ATTRIBUTES) if not taken >> a & 1]

    def _raises(self, key: int) -> list[int]:
        """An entry of ``raises``: every raise over the standing count up to the cap."""
        count, in_play = divmod(key, self._in_play_stride)
        first = self.raise_base + (count + 1 - self.min_bid) * NUM_ATTRIBUTES
        return list(range(first, self.raise_base + (self.caps[in_play] + 1 - self.min_bid)
                          * NUM_ATTRIBUTES))


class SpyTrackerState(State):
    """One position. Hands hold card ids in the order dealt; ``pool`` (undealt cards) is kept
    sorted so that a replay and a resampled state agree field for field."""

    actions: list[int]
    """Every action applied, chance included."""
    phase: int
    player: int
    round: int
    sources: list[int]
    active: int
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
    taken: int
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
                return g.openings[self.in_play].copy()
            return (g.answers[count << 9 | self.taken]
                    + g.raises[count * g._in_play_stride + self.in_play])
        if phase == CHOOSING:
            return self.game.choosers[self.bidder][self.active][0].copy()
        if phase == DEALING:
            first = self.deal_first
            return [first + c for c in self.pool]
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
            i = bisect_left(pool, card)
            return i < len(pool) and pool[i] == card
        if phase == BIDDING:  # from the action's count and attribute: no set per position
            standing = self.bid_count
            if action < BID_BASE:  # call or spot, once a bid stands
                return action >= 0 and standing >= 0
            g = self.game
            if action >= g.next_base:
                return False
            kind, count, attr = g.bid_of[action]
            if count > g.caps[self.in_play]:
                return False
            if kind:  # a raise: a higher count than the standing bid's
                return 0 <= standing < count
            if standing < 0:  # the round's first bid
                return True
            return count == standing and not self.taken >> attr & 1
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
            mask |= 1 << bids[i + 3]
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
            if left == 1:  # (itemgetter of one index gives the item, not a tuple)
                return [pairs[pool[0]]]
            return list(itemgetter(*pool)(pairs))  # gathered in C, not in a comprehension
        if phase == OPENING:
            p = 1.0 / g.num_players
            return [(g.open_base + s, p) for s in range(g.num_players)]
        return []

    def _apply(self, action: int) -> None:
        self.actions.append(action)
        phase = self.phase
        if phase == DEALING:  # the phases in the order of how often they come up
            card = action - self.deal_first
            pool = self.pool
            del pool[bisect_left(pool, card)]  # the pool is sorted: no scan for the card
            seat = self.deal_seat
            hand = self.hands[seat]
            hand.append(card)
            if len(hand) == self.sources[seat] * self.game.cards_per_source:
                self._hand_dealt(seat)
            return
        g = self.game
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
        cps, base, size = g.cards_per_source, g.deal_base, g.num_cards
        random_ = rng.random
        last = len(pool)
        i = 0
        for seat in range(self.deal_seat, len(hands)):
            hand = hands[seat]
            first = base + seat * size
            for _ in range(self.sources[seat] * cps - len(hand)):
                j = i + int(random_() * (last - i))  # a partial Fisher-Yates over the pool
                card = pool[j]
                pool[j] = pool[i]
                pool[i] = card
                hand.append(card)
                actions.append(first + card)
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
        delta = self.game.delta[attr]
        total = 0
        for hand in self.hands:
            for card in hand:
                total += delta[card]
        if total < 0 and not self.game.negative_counts:
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
        assert all(n == 1 for n in seen), "a card is missing or in two places"
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


SpyTrackerGame.state_class = SpyTrackerState
