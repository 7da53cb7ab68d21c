"""Spy Tracker's fixed parameters: the cards, the action layout, the resolved ruleset and the
tables every state shares, and what the game declares about itself.

Everything a designer may change lives in ``ruleset.json`` and is read once here, in
:class:`SpyTrackerGame`; the positions and their rules are in ``rules.py``.

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

from typing import Any

from fieldcraft.core.api import Game
from fieldcraft.core.errors import RulesetError
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
    """Resolved ruleset plus the tables every state shares (card names, counting deltas, what
    each bid action names, the deal odds and the legal lists of the decision phases)."""

    game_type = GAME_TYPE

    # The tables the rules and search read at every step (C fields of this class in the compiled
    # build, derived from these annotations; everything else stays in the instance dict).
    start_sources: int
    cards_per_source: int
    num_mercenaries: int
    num_traitors: int
    points_to_win: int
    spot_points: int
    min_bid: int
    choose_next: bool
    negative_counts: bool
    no_repeat_bids: bool
    bid_mask: int
    num_bid_traits: int
    num_cards: int
    first_bidder: int
    opener_other_party: bool
    cap_in_play: bool
    max_count: int
    raise_base: int
    next_base: int
    open_base: int
    deal_base: int
    num_actions: int
    card_names: list[str]
    deck: list[int]
    delta: list[list[int]]
    card_delta: list[tuple[int, ...]]
    bid_of: list[tuple[int, int, int] | None]
    caps: list[int]
    openings: list[list[int]]
    answers: list[list[int] | None]
    raises: list[list[int] | None]
    _in_play_stride: int
    choosers: list[list[tuple[list[int], frozenset[int]]]]
    deal_actions: list[list[int]]
    deal_pairs: list[list[list[tuple[int, float]]]]

    def __init__(self, spec: Any, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        super().__init__(spec, players, ruleset, overrides)
        deal_max = self._read_counts(players, ruleset)
        self._read_choices(players, ruleset, deal_max)
        self._lay_out_actions(players)
        self._make_cards()
        self._make_bidding_tables(deal_max)
        self._make_seat_tables(players, deal_max)

    def _read_counts(self, players: int, r: dict[str, Any]) -> int:
        """Read and check the ruleset's numbers (sources, cards, points, the lowest bid) and the
        switches, so that a bad ruleset fails here, with the key named, before any table is
        built from it. Returns the most cards a round can deal (``deal_max``), which bounds the
        counts and every table indexed by cards in play."""
        sources = r["sources"]
        key = str(players)
        if key not in sources:
            raise RulesetError(
                f"sources has no entry for {players} players (keys: {sorted(sources)})"
            )
        self.start_sources = sources[key]
        self.cards_per_source = r["cards_per_source"]
        self.num_mercenaries = r["mercenaries"]
        self.num_traitors = r["traitors"]
        self.points_to_win = r["points_to_win"]
        self.spot_points = r["spot_points"]
        self.min_bid = r["min_bid"]
        self.choose_next = r["bidder_chooses_next"]
        self.negative_counts = r["negative_counts"]
        self.no_repeat_bids = r["no_repeat_bids"]
        traits = r["bid_traits"]
        unknown = [t for t in traits if t not in ATTRIBUTES]
        if unknown or not traits or len(set(traits)) != len(traits):
            raise RulesetError(f"bid_traits must name distinct traits among {list(ATTRIBUTES)}, "
                               f"at least one, got {traits!r}")
        self.bid_mask = sum(1 << ATTRIBUTES.index(t) for t in traits)
        self.num_bid_traits = len(traits)
        grid = r["spy_deck"]
        if len(grid) != 3 or not all(1 <= n <= 3 for n in grid):
            raise RulesetError(f"spy_deck must be [roles, factions, cities], each 1-3, "
                               f"got {grid!r}")
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
        self.num_cards = NUM_SPIES + self.num_mercenaries + self.num_traitors
        # Card ids keep the full layout whatever the deck holds (a spy's traits follow from its
        # id, and the action ids with them); ``spy_deck`` only leaves spies out of the deck.
        self.deck = sorted([spy_id(ro, fa, ci) for ro in range(grid[0]) for fa in range(grid[1])
                            for ci in range(grid[2])] + list(range(NUM_SPIES, self.num_cards)))
        """Every card id of the deck in order: each round's pool starts as a copy."""
        deal_max = players * self.start_sources * self.cards_per_source
        if deal_max > len(self.deck):
            raise RulesetError(
                f"{players} players x {self.start_sources} sources x {self.cards_per_source} "
                f"cards need {deal_max} cards; the deck has {len(self.deck)}"
            )
        return deal_max

    def _read_choices(self, players: int, r: dict[str, Any], deal_max: int) -> None:
        """Read and check the ruleset's worded choices (who bids first, who opens after an
        elimination, what caps a bid), each refused unless it is one of the spellings the
        rules know, and settle the highest count a bid may name (which sizes the action
        layout)."""
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
        self.opener_other_party = opener_rule == _OTHER_PARTY
        cap_rule = r["max_bid"]
        if cap_rule not in ("cards_in_play", "deck"):
            raise RulesetError(f'max_bid must be "cards_in_play" or "deck", got {cap_rule!r}')
        self.cap_in_play = cap_rule == "cards_in_play"
        self.max_count = deal_max if self.cap_in_play else len(self.deck)
        if self.min_bid > self.max_count:
            raise RulesetError(f"min_bid {self.min_bid} exceeds the highest count {self.max_count}")

    def _lay_out_actions(self, players: int) -> None:
        """Where each range of the action space starts (see the module docstring): the bid and
        raise spans are sized by the counts the ruleset allows, so this follows the reading."""
        span = NUM_ATTRIBUTES * (self.max_count - self.min_bid + 1)
        self.raise_base = BID_BASE + span
        self.next_base = self.raise_base + span
        self.open_base = self.next_base + players
        self.deal_base = self.open_base + players
        self.num_actions = self.deal_base + players * self.num_cards

    def _make_cards(self) -> None:
        """The cards' names (spies, then Mercenaries, then Traitors) and what each card adds to
        the count of each attribute, both ways round: the rules count a hand by card and check
        a bid by attribute."""
        merc_end = NUM_SPIES + self.num_mercenaries
        names = [_spy_name(c) for c in range(NUM_SPIES)]
        names += [f"Mercenary {i + 1}" for i in range(self.num_mercenaries)]
        names += [f"Traitor {i + 1}" for i in range(self.num_traitors)]
        self.card_names = names
        # delta[a][c]: what card c adds to the true count of attribute a.
        self.delta = []
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
        self.card_delta = list(zip(*self.delta, strict=True))

    def _make_bidding_tables(self, deal_max: int) -> None:
        """The bidding phase's tables for the hot path (a random game is about 40% deals, 30%
        bids, 30% choices of who answers), so that its legal list, legality test and move are
        a lookup or two rather than arithmetic on several fields."""
        # bid_of[action]: (kind 0 bid / 1 raise, count, attribute) for ids below ``next_base``
        # (None for call and spot).
        self.bid_of = [None, None]
        for kind in (0, 1):
            for count in range(self.min_bid, self.max_count + 1):
                self.bid_of += [(kind, count, a) for a in range(NUM_ATTRIBUTES)]
        # caps[in_play]: round_cap(in_play).
        self.caps = [self.round_cap(n) for n in range(deal_max + 1)]
        # The legal list while bidding comes in pieces, so the tables stay small enough for the
        # processor's cache (one list, and a set, per count, attributes taken and cards in play
        # grew to megabytes, and looking them up cost more than the pieces do):
        # openings[in_play]: the round's first bid, any count up to the cap;
        # answers[count << 9 | taken]: call, spot and the attributes still open at the count;
        # raises[count * _in_play_stride + in_play]: every raise up to the cap.
        # Each entry is the bids ``bid_is_legal`` allows there (the rule is written once, in
        # it). answers and raises have an entry for every key, made on first use (None until
        # then; see ``fill_answers``): most keys never come up, and a list index is cheaper
        # than a dict's.
        self.openings = [
            self._legal_bids(-1, 0, in_play, BID_BASE, self.raise_base)
            for in_play in range(deal_max + 1)
        ]
        self.answers = [None] * ((self.max_count + 1) << 9)
        self._in_play_stride = deal_max + 1
        self.raises = [None] * ((self.max_count + 1) * (deal_max + 1))

    def _make_seat_tables(self, players: int, deal_max: int) -> None:
        """The per-seat tables of the other two hot phases, choosing who answers and dealing,
        made once so that their legal lists and moves gather existing objects."""
        # choosers[bidder][active]: (legal list, legal set) of the bidder's "next: seat" choice,
        # ``active`` being the bitmask of seats with Sources.
        self.choosers = []
        for bidder in range(players):
            row = []
            for active in range(1 << players):
                legal = [self.next_base + s for s in range(players)
                         if active >> s & 1 and s != bidder]
                row.append((legal, frozenset(legal)))
            self.choosers.append(row)
        # deal_actions[seat][card]: the action dealing ``card`` to ``seat``, made once, so that a
        # deal's legal list and history gather existing ints (the compiled build would make a
        # new int object for each: most of a random deal step's time there).
        self.deal_actions = [
            [self.deal_base + seat * self.num_cards + c for c in range(self.num_cards)]
            for seat in range(players)]
        # deal_pairs[seat][left]: a deal's (action, odds) for every card id, indexed by the
        # cards of the pool instead of building a tuple per card at every dealt card (the deal
        # is most of a game's chance steps). Only ``left`` a round's deal can reach is filled.
        self.deal_pairs = []
        for seat in range(players):
            row = [[] for _ in range(self.num_cards + 1)]
            for left in range(len(self.deck) - deal_max + 1, len(self.deck) + 1):
                p = 1.0 / left
                row[left] = [(a, p) for a in self.deal_actions[seat]]
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
            bids = self.num_bid_traits * (self.round_cap(in_play) - self.min_bid + 1)
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

    def bid_is_legal(self, standing: int, taken: int, in_play: int, action: int) -> bool:
        """The bidding rule, for an action id below ``next_base`` while bidding: with no bid
        standing (``standing`` < 0) any bid opens the round; once one stands, a player may
        call or spot, bid the standing count on an attribute not yet bid at it (``taken``, see
        ``SpyTrackerState.taken_at_count``), or raise to a higher count; never above the round's
        cap (``round_cap(in_play)``), and only on a trait of ``bid_traits``. ``_is_legal`` asks
        it; the legal-move tables are made from it."""
        if action < BID_BASE:  # call or spot, once a bid stands
            return action >= 0 and standing >= 0
        kind, count, attr = self.bid_of[action]
        if count > self.caps[in_play] or not self.bid_mask >> attr & 1:
            return False
        if kind:  # a raise: a higher count than the standing bid's
            return 0 <= standing < count
        if standing < 0:  # the round's first bid
            return True
        return count == standing and not taken >> attr & 1

    def _legal_bids(self, standing: int, taken: int, in_play: int, first: int,
                    end: int) -> list[int]:
        """The actions in ``range(first, end)`` that :meth:`bid_is_legal` allows."""
        return [a for a in range(first, end) if self.bid_is_legal(standing, taken, in_play, a)]

    def fill_answers(self, count: int, taken: int) -> list[int]:
        """Make and keep the entry of ``answers`` for a standing ``count`` and the attributes
        ``taken`` at it: call, spot and the bids (no raise) the rule allows. (The cap does not
        matter: a bid at the standing count is under it.)"""
        entry = self._legal_bids(count, taken, len(self.caps) - 1, 0, self.raise_base)
        self.answers[count << 9 | taken] = entry
        return entry

    def fill_raises(self, count: int, in_play: int) -> list[int]:
        """Make and keep the entry of ``raises`` for a standing ``count`` with ``in_play``
        cards in play: the raises the rule allows (which name no attribute taken)."""
        entry = self._legal_bids(count, 0, in_play, self.raise_base, self.next_base)
        self.raises[count * self._in_play_stride + in_play] = entry
        return entry
