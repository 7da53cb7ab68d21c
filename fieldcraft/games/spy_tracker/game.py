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

Bids and raises get separate ints so that every action string means one thing whatever the state
("raise 5 Moscow" over a bid of 5 is simply illegal rather than silently read as a bid), and deals
carry their seat so that a log line can be read back without knowing the position.
"""

from __future__ import annotations

import random
from typing import Any

from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    Game,
    MalformedActionError,
    RulesetError,
    State,
    sample_chance,
)

ROLES = ("Face", "Hacker", "Muscle")
FACTIONS = ("Agency", "Bureau", "Command")
CITIES = ("New York", "London", "Moscow")
ATTRIBUTES = ROLES + FACTIONS + CITIES
"""Attribute index 0-2 roles, 3-5 factions, 6-8 cities: the nine things a bid can name."""
NUM_ATTRIBUTES = 9
NUM_SPIES = 27

# Weight of an opponent bid its own hand makes unlikely, next to one it makes sure (1 + floor):
# people bluff and are sometimes forced to bid, so an unlikely bid is rare, not impossible.
BELIEF_FLOOR = 0.05
# The quick policy's weights, as in the heuristic bot: a bid passes the risk on (the round goes
# on) and a right SPOT also scores.
BID_DISCOUNT = 0.85
HAND_CACHE = 50_000  # hands whose trait counts ``SpyTrackerGame.hand_counts`` keeps
SEARCH_BIDS_PER_TRAIT = 2  # counts per trait a search tries (see ``search_actions``)
SPOT_BONUS = 1.15

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


def _normalize(text: str) -> str:
    return " ".join(text.lower().split())


class SpyTrackerGame(Game):
    """Resolved ruleset plus the tables every state shares (card names, counting deltas, the
    action-name lookup and a cache of bidding-phase legal move lists)."""

    name = "spy-tracker"
    # Search settings measured against the heuristic bot (benchmarks/strength.py, tournament):
    # heuristic_returns reads a determinised deal well and random bids do not, so rollouts stop
    # at once. Exploration stays at the usual 0.7: the measurements below were made with it.
    # Opponents answer with ``policy_action`` (from their own hands) instead of being searched
    # in the shared tree, where they would in effect see the searcher's hand: that took
    # ISMCTS from about a third of 2-player games against the heuristic bot to most of them.
    # With the opponents' replies as branches, the searcher's next choice is worth growing
    # after 5 visits (the tree-searched opponents needed 30 to settle).
    search_rollout_depth = 0
    search_expand_after = 5
    search_opponents = "policy"
    search_c = 0.7
    test_configs = (
        {},
        {
            "first_bidder": "seat 0",
            "bidder_chooses_next": False,
            "negative_counts": False,
            "max_bid": "deck",
            "opener_if_loser_eliminated": _NEXT_SEAT,
        },
    )

    def __init__(self, players: int, ruleset: dict[str, Any], overrides: dict[str, Any]):
        super().__init__(players, ruleset, overrides)
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

        strings = ["call", "spot"]
        for verb in ("bid", "raise"):
            for count in range(self.min_bid, self.max_count + 1):
                strings += [f"{verb} {count} {attr}" for attr in ATTRIBUTES]
        strings += [f"next: seat {s}" for s in range(players)]
        strings += [f"seat {s} opens" for s in range(players)]
        for s in range(players):
            strings += [f"deal {name} to seat {s}" for name in names]
        assert len(strings) == self.num_actions
        self.action_strings: list[str] = strings
        self.action_lookup: dict[str, int] = {_normalize(t): a for a, t in enumerate(strings)}
        self._legal_cache: dict[tuple[int, int, int], list[int]] = {}
        self._tails: dict[int, list[float]] = {}
        self._search_cache: dict[tuple[int, int, int, int], list[int]] = {}
        self._hand_counts: dict[tuple[int, ...], tuple[int, ...]] = {}

    def hand_counts(self, hand: list[int]) -> tuple[int, ...]:
        """What ``hand`` adds to each trait's count. Cached: a search asks it for the same few
        thousand hands (its pool of determinisations) hundreds of thousands of times, and the
        sum over the hand was a fifth of a policy-played search. The cache is emptied when it
        grows past ``HAND_CACHE`` hands, so memory stays bounded in long simulations."""
        key = tuple(hand)
        counts = self._hand_counts.get(key)
        if counts is None:
            if len(self._hand_counts) >= HAND_CACHE:
                self._hand_counts.clear()
            card_delta = self.card_delta
            if hand:
                counts = tuple(map(sum, zip(*[card_delta[c] for c in hand], strict=True)))
            else:
                counts = (0,) * NUM_ATTRIBUTES
            self._hand_counts[key] = counts
        return counts

    def num_distinct_actions(self) -> int:
        return self.num_actions

    def tail_chance(self, hidden: int, need: int) -> float:
        """P(the ``hidden`` cards a seat cannot see add at least ``need`` to a trait's count),
        each drawn independently with the whole deck's odds of +1 (a spy with the trait or a
        Mercenary) and -1 (a Traitor); cached, since belief weights ask it millions of times."""
        j = need + hidden
        if j <= 0:
            return 1.0
        table = self.tail_table(hidden)
        return table[j] if j < len(table) else 0.0

    def tail_table(self, hidden: int) -> list[float]:
        """``tail_chance`` for every ``need`` at once: entry ``need + hidden`` (cached)."""
        table = self._tails.get(hidden)
        if table is None:
            plus = (NUM_SPIES // 3 + self.num_mercenaries) / self.num_cards
            minus = self.num_traitors / self.num_cards
            dist = [1.0]  # dist[i]: P(sum = i - drawn so far)
            for _ in range(hidden):
                new = [0.0] * (len(dist) + 2)
                for i, p in enumerate(dist):
                    new[i] += p * minus
                    new[i + 1] += p * (1.0 - plus - minus)
                    new[i + 2] += p * plus
                dist = new
            table = [0.0] * len(dist)  # table[j]: P(sum >= j - hidden)
            acc = 0.0
            for j in range(len(dist) - 1, -1, -1):
                acc += dist[j]
                table[j] = acc
            self._tails[hidden] = table
        return table

    def max_chance_outcomes(self) -> int:
        return max(self.num_cards, self.num_players)

    def bid_action(self, count: int, attr: int, raise_: bool = False) -> int:
        """Action id of a bid or raise; lets tests and bots build bids without string parsing."""
        base = self.raise_base if raise_ else BID_BASE
        return base + (count - self.min_bid) * NUM_ATTRIBUTES + attr

    def round_cap(self, in_play: int) -> int:
        """Highest count allowed this round; never below ``min_bid`` so an opening bid exists."""
        if not self.cap_in_play:
            return self.max_count
        return max(in_play, self.min_bid)

    def bidding_legal(self, count: int, attr: int, in_play: int) -> list[int]:
        """Legal actions while bidding, cached because they depend only on these three ints."""
        key = (count, attr, in_play)
        legal = self._legal_cache.get(key)
        if legal is None:
            cap = self.round_cap(in_play)
            stride = NUM_ATTRIBUTES
            if count < 0:  # first action of the round: a bid at any count
                legal = list(range(BID_BASE, BID_BASE + (cap - self.min_bid + 1) * stride))
            else:
                same = BID_BASE + (count - self.min_bid) * stride
                legal = [CALL, SPOT] + [same + a for a in range(stride) if a != attr]
                legal += range(
                    self.raise_base + (count + 1 - self.min_bid) * stride,
                    self.raise_base + (cap + 1 - self.min_bid) * stride,
                )
            self._legal_cache[key] = legal
        return legal


class SpyTrackerState(State):
    """One position. Hands hold card ids in the order dealt; ``pool`` (undealt cards) is kept
    sorted so that a replay and a resampled state agree field for field. The action list is the
    field ``actions`` because the name ``history`` is taken by the API method."""

    __slots__ = (
        "actions",
        "phase",
        "player",
        "round",
        "sources",
        "points",
        "hands",
        "pool",
        "deal_seat",
        "deal_start",
        "in_play",
        "opener",
        "bid_count",
        "bid_attr",
        "bidder",
        "bids",
        "reveal",
        "winner",
        "ending",
    )

    game: SpyTrackerGame
    uniform_chance = True  # every chance node (opener, each dealt card) is uniform over legal

    def __init__(self, game: SpyTrackerGame):
        self.game = game
        players = game.num_players
        self.actions: list[int] = []  # every action applied, chance included
        self.round = 1
        self.sources = [game.start_sources] * players
        self.points = [0] * players
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.pool = list(range(game.num_cards))
        self.deal_seat = -1
        self.deal_start = 0
        self.in_play = players * game.start_sources * game.cards_per_source
        self.bid_count = -1
        self.bid_attr = -1
        self.bidder = -1
        self.bids: list[int] = []  # flat: seat, kind (0 bid / 1 raise), count, attribute
        self.reveal: dict[str, Any] | None = None
        self.winner = -1
        self.ending: str | None = None
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

    def legal_actions(self) -> list[int]:
        phase = self.phase
        g = self.game
        if phase == BIDDING:
            return g.bidding_legal(self.bid_count, self.bid_attr, self.in_play)[:]
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

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        g = self.game
        if phase == DEALING:
            base = g.deal_base + self.deal_seat * g.num_cards
            p = 1.0 / len(self.pool)
            return [(base + c, p) for c in self.pool]
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

    def _resolve(self, spot: bool) -> tuple[int, int, int]:
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
        true, loser, winner = self._resolve(spot)
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

    # -- strings --------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        strings = self.game.action_strings
        if not isinstance(action, int) or not 0 <= action < len(strings):
            raise MalformedActionError(f"{action!r} is not an action of {self.game.name}")
        return strings[action]

    def string_to_action(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedActionError(f"{text!r} is not an action string")
        action = self.game.action_lookup.get(_normalize(text))
        if action is None:
            raise MalformedActionError(
                f"{text!r} is not a Spy Tracker action (try 'bid 4 Moscow', 'raise 5 Hacker', "
                "'call', 'spot', 'next: seat 1')"
            )
        return action

    def describe_action(self, action: int, seat: int | None) -> str | None:
        """Deals are secret to their receiver; a challenge line also says how it came out, since
        every hand is shown at that moment anyway."""
        g = self.game
        phase = self.phase
        if phase == DEALING:
            if seat is None or seat != self.deal_seat:
                return None
            card = action - g.deal_base - seat * g.num_cards
            if 0 <= card < g.num_cards:
                return f"you are dealt {g.card_names[card]}"
            return None
        if phase == OPENING:
            return self.action_to_string(action)
        text = f"seat {self.player}: {self.action_to_string(action)}"
        if phase == BIDDING and action in (CALL, SPOT) and self.bid_count >= 0:
            true, loser, _ = self._resolve(action == SPOT)
            text += (
                f" on {self.bid_count} {ATTRIBUTES[self.bid_attr]} (seat {self.bidder}):"
                f" true count {true}, seat {loser} loses a Source"
            )
        return text

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

    # -- information ----------------------------------------------------------------------------
    def observation(self, seat: int | None) -> dict[str, Any]:
        g = self.game
        names = g.card_names
        bids = self.bids
        history = [
            {
                "seat": bids[i],
                "action": "raise" if bids[i + 1] else "bid",
                "count": bids[i + 2],
                "attribute": ATTRIBUTES[bids[i + 3]],
            }
            for i in range(0, len(bids), 4)
        ]
        reveal = self.reveal
        if reveal is not None:
            reveal = dict(reveal)
            reveal["hands"] = [h[:] for h in reveal["hands"]]
            reveal["cards"] = [h[:] for h in reveal["cards"]]
        obs: dict[str, Any] = {
            "game": g.name,
            "seat": seat,
            "round": self.round,
            "phase": PHASE_NAMES[self.phase],
            "to_act": self.player if self.player >= 0 else None,
            "opener": self.opener if self.opener >= 0 else None,
            "sources": self.sources[:],
            "start_sources": g.start_sources,
            "points": self.points[:],
            "points_to_win": g.points_to_win,
            "hand_sizes": [len(h) for h in self.hands],
            "cards_in_play": self.in_play,
            "current_bid": None
            if self.bid_count < 0
            else {
                "seat": self.bidder,
                "count": self.bid_count,
                "attribute": ATTRIBUTES[self.bid_attr],
            },
            "bids": history,
            "last_reveal": reveal,
            "winners": self.winners(),
            "ending": self.ending,
        }
        if seat is not None:
            hand = self.hands[seat]
            obs["hand"] = hand[:]
            obs["hand_cards"] = [names[c] for c in hand]
        return obs

    def resample(self, seat: int, rng: random.Random) -> SpyTrackerState:
        """Re-deal every card ``seat`` cannot see (other live hands and the undealt pool) keeping
        hand sizes, and rewrite this round's deal actions to match so the sample's history
        replays to the sample and cannot be read for the true hands."""
        sample = self.clone()
        hidden = sample.pool[:]
        for other, hand in enumerate(sample.hands):
            if other != seat:
                hidden += hand
        hidden.sort()  # canonical: depends on what the seat knows, not on the true deal
        # Only the other hands need random cards (the pool is kept sorted), so shuffle just
        # their share into the front: a partial Fisher-Yates, a fraction of a full shuffle.
        needed = sum(len(hand) for other, hand in enumerate(sample.hands) if other != seat)
        random_ = rng.random
        last = len(hidden)
        for i in range(needed):
            j = i + int(random_() * (last - i))
            hidden[i], hidden[j] = hidden[j], hidden[i]
        used = 0
        for other, hand in enumerate(sample.hands):
            if other != seat:
                size = len(hand)
                sample.hands[other] = hidden[used : used + size]
                used += size
        sample.pool = sorted(hidden[used:])
        g = self.game
        base, size = g.deal_base, g.num_cards
        history = sample.actions
        # This round's deal is one run of actions from ``deal_start``, seat after seat, each
        # hand in the order it was dealt: rewrite the other seats' stretches of it.
        i = sample.deal_start
        for other, hand in enumerate(sample.hands):
            if other != seat:
                first = base + other * size
                history[i : i + len(hand)] = [first + c for c in hand]
            i += len(hand)
        return sample

    def heuristic_returns(self) -> list[float] | None:
        """Win chances guessed from Sources and points, so search can stop rollouts early.

        A seat's weight grows with its active Sources and sharply with points (each point is a
        third of the way to winning by default); eliminated seats have none.
        """
        if self.winner >= 0:
            return self.returns()
        sources = self.sources[:]
        if (self.phase == BIDDING or self.phase == CHOOSING) and self.bid_count > 0:
            # Search calls this on a determinised state, where every hand is known: a false
            # standing bid will likely be called (its bidder loses a Source); a true one leaves
            # whoever must answer it in a spot (half a Source, as an expectation; while the
            # bidder is still choosing who answers, that cost is shared by the candidates).
            if self.true_count(self.bid_attr) < self.bid_count:
                sources[self.bidder] -= 1
            elif self.phase == BIDDING:
                sources[self.player] -= 0.5
            else:
                rivals = [s for s, n in enumerate(self.sources) if n and s != self.bidder]
                for s in rivals:
                    sources[s] -= 0.5 / len(rivals)
        # Sources over the starting number, times (1 + points) squared (a constant factor
        # does not change the normalised result, so the division by start_sources is left out).
        weights = [s * (1.0 + p) * (1.0 + p) if s > 0 else 0.0
                   for s, p in zip(sources, self.points, strict=True)]
        total = sum(weights)
        if total <= 0:
            return [1.0 / len(weights)] * len(weights)
        scale = 1.0 / total
        return [w * scale for w in weights]

    def search_actions(self) -> list[int]:
        """Challenges, and per trait the two lowest counts still open to this seat.

        A higher bid on the same trait is less likely to be true and rarely better for it; the
        full bid list runs to hundreds of actions, which would spread a search too thin.
        """
        if self.phase != BIDDING:
            return self.legal_actions()
        g = self.game
        count, attr = self.bid_count, self.bid_attr
        key = (count, attr, self.in_play, self._traits_bid_at_count())
        out = g._search_cache.get(key)
        if out is None:
            made = key[3]
            out = [CALL, SPOT] if count >= 0 else []
            cap = g.round_cap(self.in_play)
            for a in range(NUM_ATTRIBUTES):
                k = g.min_bid if count < 0 else (count if a != attr else count + 1)
                kept = 0
                while k <= cap and kept < SEARCH_BIDS_PER_TRAIT:
                    if k != count or not made >> a & 1:
                        out.append(g.bid_action(k, a, count >= 0 and k > count))
                        kept += 1
                    k += 1
            out.sort()
            g._search_cache[key] = out
        return out[:]

    def _traits_bid_at_count(self) -> int:
        """Bitmask of the traits already bid at the standing count this round. Counts never go
        down within a round, so these are the only earlier bids a new bid could repeat."""
        bids, count = self.bids, self.bid_count
        mask = 0
        i = len(bids) - 4
        while i >= 0 and bids[i + 2] == count:
            mask |= 1 << bids[i + 3]
            i -= 4
        return mask

    def policy_action(self, rng: random.Random) -> int:
        """A quick decision for the seat to move from its own hand and the public bids only:
        the heuristic bot's rule (challenge or bid by the odds its hand gives) on cached odds.

        Search uses it as the model of the other players, who then decide from their own cards
        rather than, as in a shared search tree, from the searcher's.
        """
        g = self.game
        phase = self.phase
        seat = self.player
        if phase == CHOOSING:
            best, key = -1, (-1, -1, -1.0)
            for s, n in enumerate(self.sources):
                if n and s != self.bidder:
                    k = (self.points[s], n, rng.random())
                    if k > key:
                        best, key = s, k
            return g.next_base + best
        if phase != BIDDING:
            legal = self.legal_actions()
            return legal[int(rng.random() * len(legal))]
        hand = self.hands[seat]
        hidden = self.in_play - len(hand)
        table = g.tail_table(hidden)  # table[need + hidden] = P(hidden cards add >= need)
        size = len(table)
        mine = g.hand_counts(hand)
        count, attr = self.bid_count, self.bid_attr
        best, best_value = -1, -1.0
        if count >= 0:
            j = count - mine[attr] + hidden
            at_least = 1.0 if j <= 0 else (table[j] if j < size else 0.0)
            j += 1
            above = 1.0 if j <= 0 else (table[j] if j < size else 0.0)
            best, best_value = CALL, 1.0 - at_least
            spot = (at_least - above) * SPOT_BONUS
            if spot > best_value:
                best, best_value = SPOT, spot
        made = self._traits_bid_at_count()
        cap = g.round_cap(self.in_play)
        low = g.min_bid
        start = int(rng.random() * NUM_ATTRIBUTES)  # ties go to a random trait
        for i in range(NUM_ATTRIBUTES):
            a = (start + i) % NUM_ATTRIBUTES
            if count < 0:
                k = low
            else:
                k = count if a != attr else count + 1
            if k == count and made >> a & 1:
                k += 1
            if k > cap:
                continue
            j = k - mine[a] + hidden
            value = (1.0 if j <= 0 else (table[j] if j < size else 0.0)) * BID_DISCOUNT
            if value > best_value:
                best, best_value = g.bid_action(k, a, count >= 0 and k > count), value
        if best < 0:  # every bid made and no challenge possible (cannot happen in play)
            legal = self.legal_actions()
            return legal[int(rng.random() * len(legal))]
        return best

    def belief_weight(self, seat: int) -> float | None:
        """Plausibility of the other hands (in a resampled state) given this round's bids.

        People bid what their own cards make likely: each opponent bid of ``k`` on a trait is
        weighted by the chance, seen from the bidder's hand alone, that at least ``k`` are in
        play (plus a floor, for bluffs and forced bids). Without this a searcher treats an
        opponent's "5 in Moscow" as if it said nothing about the bidder's cards. ``None`` when
        no opponent has bid this round (public, so the same for every resample): nothing to
        weigh, and search can skip drawing a pool.
        """
        bids = self.bids
        if all(bids[i] == seat for i in range(0, len(bids), 4)):
            return None
        g = self.game
        hands, delta = self.hands, g.delta
        in_play = self.in_play
        weight = 1.0
        for i in range(0, len(bids), 4):
            bidder = bids[i]
            if bidder == seat:
                continue
            hand = hands[bidder]
            row = delta[bids[i + 3]]
            mine = 0
            for c in hand:
                mine += row[c]
            weight *= BELIEF_FLOOR + g.tail_chance(in_play - len(hand), bids[i + 2] - mine)
        return weight

    # -- plumbing -------------------------------------------------------------------------------
    def clone(self) -> SpyTrackerState:
        new = SpyTrackerState.__new__(SpyTrackerState)
        new.game = self.game
        new.actions = self.actions[:]
        new.phase = self.phase
        new.player = self.player
        new.round = self.round
        new.sources = self.sources[:]
        new.points = self.points[:]
        new.hands = list(map(list.copy, self.hands))
        new.pool = self.pool[:]
        new.deal_seat = self.deal_seat
        new.deal_start = self.deal_start
        new.in_play = self.in_play
        new.opener = self.opener
        new.bid_count = self.bid_count
        new.bid_attr = self.bid_attr
        new.bidder = self.bidder
        new.bids = self.bids[:]
        new.reveal = self.reveal  # replaced, never mutated, so sharing is safe
        new.winner = self.winner
        new.ending = self.ending
        return new

    def history(self) -> list[int]:
        return self.actions[:]

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
