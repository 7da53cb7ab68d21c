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


class SpyTrackerGame(Game):
    """Resolved ruleset plus the tables every state shares (card names, counting deltas and a
    cache of bidding-phase legal move lists)."""

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
        self._legal_cache: dict[int, tuple[list[int], frozenset[int]]] = {}
        self._play_stride = self.num_cards + 1
        self._deal_pairs: dict[int, list[tuple[int, float]]] = {}

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

    def deal_outcomes(self, seat: int, left: int) -> list[tuple[int, float]]:
        """``(deal card c to seat, 1/left)`` for every card id c: a deal's odds are indexed out
        of this list instead of building a tuple per card at every dealt card (the deal is most
        of a game's chance steps)."""
        key = seat * 64 + left
        pairs = self._deal_pairs.get(key)
        if pairs is None:
            base = self.deal_base + seat * self.num_cards
            p = 1.0 / left
            pairs = self._deal_pairs[key] = [(base + c, p) for c in range(self.num_cards)]
        return pairs

    def bid_action(self, count: int, attr: int, raise_: bool = False) -> int:
        """Action id of a bid or raise; lets tests and bots build bids without string parsing."""
        base = self.raise_base if raise_ else BID_BASE
        return base + (count - self.min_bid) * NUM_ATTRIBUTES + attr

    def round_cap(self, in_play: int) -> int:
        """Highest count allowed this round; never below ``min_bid`` so an opening bid exists."""
        if not self.cap_in_play:
            return self.max_count
        return max(in_play, self.min_bid)

    def bidding_legal(self, count: int, taken: int, in_play: int
                      ) -> tuple[list[int], frozenset[int]]:
        """Legal actions while bidding (as a list and a set), cached because they depend only on
        the standing count, the attributes ``taken`` at that count (a bitmask) and the cards in
        play."""
        key = ((count + 1) << 9 | taken) * self._play_stride + in_play  # one int: cheap to hash
        entry = self._legal_cache.get(key)
        if entry is None:
            cap = self.round_cap(in_play)
            stride = NUM_ATTRIBUTES
            if count < 0:  # first action of the round: a bid at any count
                legal = list(range(BID_BASE, BID_BASE + (cap - self.min_bid + 1) * stride))
            else:
                same = BID_BASE + (count - self.min_bid) * stride
                legal = [CALL, SPOT] + [same + a for a in range(stride) if not taken >> a & 1]
                legal += range(
                    self.raise_base + (count + 1 - self.min_bid) * stride,
                    self.raise_base + (cap + 1 - self.min_bid) * stride,
                )
            entry = (legal, frozenset(legal))
            self._legal_cache[key] = entry
        return entry


class SpyTrackerState(State):
    """One position. Hands hold card ids in the order dealt; ``pool`` (undealt cards) is kept
    sorted so that a replay and a resampled state agree field for field."""

    actions: list[int]
    """Every action applied, chance included."""
    phase: int
    player: int
    round: int
    sources: list[int]
    points: list[int]
    hands: list[list[int]]
    pool: list[int]
    deal_seat: int
    deal_start: int
    in_play: int
    opener: int
    bid_count: int
    bid_attr: int
    taken: int
    """Bitmask of the attributes a bid at the standing count may not name (see
    ``taken_at_count``), kept up to date so that legality is one lookup."""
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
        self.points = [0] * players
        self.hands = [[] for _ in range(players)]
        self.pool = list(range(game.num_cards))
        self.deal_seat = -1
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
        g = self.game
        if phase == BIDDING:
            return g.bidding_legal(self.bid_count, self.taken, self.in_play)[0][:]
        if phase == DEALING:
            base = g.deal_base + self.deal_seat * g.num_cards
            return [base + c for c in self.pool]
        if phase == CHOOSING:
            base = g.next_base
            bidder = self.bidder
            return [base + s for s, n in enumerate(self.sources) if n and s != bidder]
        if phase == OPENING:
            return list(range(g.open_base, g.open_base + g.num_players))
        return []

    def _is_legal(self, action: int) -> bool:
        phase = self.phase
        g = self.game
        if phase == BIDDING:
            return action in g.bidding_legal(self.bid_count, self.taken, self.in_play)[1]
        if phase == DEALING:
            card = action - g.deal_base - self.deal_seat * g.num_cards
            return 0 <= card < g.num_cards and card in self.pool
        if phase == CHOOSING:
            seat = action - g.next_base
            return 0 <= seat < g.num_players and seat != self.bidder and self.sources[seat] > 0
        if phase == OPENING:
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
            pairs = g.deal_outcomes(self.deal_seat, len(self.pool))
            return [pairs[c] for c in self.pool]
        if phase == OPENING:
            p = 1.0 / g.num_players
            return [(g.open_base + s, p) for s in range(g.num_players)]
        return []

    def _apply(self, action: int) -> None:
        self.actions.append(action)
        g = self.game
        phase = self.phase
        if phase == DEALING:
            seat = self.deal_seat
            card = action - g.deal_base - seat * g.num_cards
            self.pool.remove(card)
            hand = self.hands[seat]
            hand.append(card)
            if len(hand) == self.sources[seat] * g.cards_per_source:
                sources = self.sources
                nxt = seat + 1
                while nxt < len(sources) and not sources[nxt]:
                    nxt += 1
                if nxt == len(sources):
                    self.deal_seat = -1
                    self.phase = BIDDING
                    self.player = self.opener
                else:
                    self.deal_seat = nxt
        elif phase == BIDDING:
            if action < BID_BASE:
                self._challenge(action == SPOT)
                return
            if action < g.raise_base:
                index, kind = action - BID_BASE, 0
            else:
                index, kind = action - g.raise_base, 1
            count = index // NUM_ATTRIBUTES + g.min_bid
            attr = index % NUM_ATTRIBUTES
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
        self.deal_seat = -1
        self.phase = BIDDING
        self.player = self.opener

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
        self.deal_seat = next(s for s, n in enumerate(self.sources) if n)

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
        self.sources[loser] -= 1
        if spot:
            self.points[winner] += g.spot_points
        names = g.card_names
        self.reveal = {
            "round": self.round,
            "challenge": "spot" if spot else "call",
            "challenger": challenger,
            "bidder": self.bidder,
            "count": self.bid_count,
            "attribute": ATTRIBUTES[self.bid_attr],
            "true_count": true,
            "hands": [h[:] for h in self.hands],
            "cards": [[names[c] for c in h] for h in self.hands],
            "loser": loser,
            "winner": winner,
            "point_to": winner if spot and g.spot_points else None,
            "eliminated": self.sources[loser] == 0,
        }
        players = len(self.sources)
        self.hands = [[] for _ in range(players)]
        self.pool = list(range(g.num_cards))
        self.bid_count = self.bid_attr = self.bidder = -1
        self.taken = 0
        self.bids = []
        active = [s for s, n in enumerate(self.sources) if n]
        if spot and self.points[winner] >= g.points_to_win:
            self._finish(winner, "points")
            return
        if len(active) == 1:
            self._finish(active[0], "last_standing")
            return
        if self.sources[loser]:
            self.opener = loser
        elif g.opener_other_party:
            self.opener = winner
        else:
            self.opener = self._next_active(loser)
        self.round += 1
        self.in_play = sum(self.sources) * g.cards_per_source
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
        assert all(p >= 0 for p in self.points)
        assert len(self.bids) % 4 == 0
        if g.no_repeat_bids:
            made = list(zip(self.bids[2::4], self.bids[3::4], strict=True))
            assert len(made) == len(set(made)), "a bid was repeated this round"
        assert self.taken == self.taken_at_count(), "taken must follow the bids"
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
