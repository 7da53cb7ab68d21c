"""Rule tests for Spy Tracker. Positions are built by replaying chosen actions: the opener and
every dealt card are chance actions, so a test deals exactly the hands it needs."""

from __future__ import annotations

import json
import random
import re

import pytest

from fieldcraft.core import (
    CHANCE,
    TERMINAL,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
    load_game,
)
from fieldcraft.core.text import Text, game_messages
from fieldcraft.games.spy_tracker import SPEC
from fieldcraft.games.spy_tracker.game import (
    ATTRIBUTES,
    BIDDING,
    CHOOSING,
    DEALING,
    OPENING,
)
from fieldcraft.games.spy_tracker.render import render

GAME = "spy-tracker"

# A few named cards (faction/role/city).
MOSCOW = [
    "Agency/Face/Moscow",
    "Bureau/Face/Moscow",
    "Command/Face/Moscow",
    "Agency/Hacker/Moscow",
    "Bureau/Hacker/Moscow",
]
LONDON_MUSCLE = ["Agency/Muscle/London", "Bureau/Muscle/London", "Command/Muscle/London"]
NY_MUSCLE = ["Agency/Muscle/New York", "Bureau/Muscle/New York", "Command/Muscle/New York"]
MERC = [f"Mercenary {i}" for i in range(1, 6)]
TRAITOR = [f"Traitor {i}" for i in range(1, 5)]


def act(state, *texts: str) -> None:
    for text in texts:
        state.apply_action(state.string_to_action(text))


def deal(state, hands: list[list[str]]) -> None:
    """Deal the given hands (one list per seat, empty for an eliminated seat) in deal order."""
    assert state.current_player() == CHANCE
    for seat, hand in enumerate(hands):
        for card in hand:
            act(state, f"deal {card} to seat {seat}")
    assert state.current_player() >= 0, "the hands given did not complete the deal"


def start(players: int, opener: int, hands: list[list[str]], **overrides):
    game = load_game(GAME, players=players, **overrides)
    state = game.new_initial_state()
    if game.first_bidder < 0:
        act(state, f"seat {opener} opens")
    deal(state, hands)
    assert state.current_player() == opener
    return game, state


# Two seats, three Sources each: small hands keep positions readable.
SMALL2 = {"sources": {"2": 3}}


def two_seat_position(**overrides):
    """Seat 0: 2 Moscow spies + a Mercenary; seat 1: 1 Moscow spy, a Traitor, a London Muscle.
    Moscow true count = 3 + 1 - 1 = 3."""
    return start(
        2,
        0,
        [[MOSCOW[0], MOSCOW[1], MERC[0]], [MOSCOW[2], TRAITOR[0], LONDON_MUSCLE[0]]],
        **{**SMALL2, **overrides},
    )


# -- setup ----------------------------------------------------------------------------------------
def test_deck_has_27_unique_spies_5_mercenaries_4_traitors():
    game = load_game(GAME, players=2)
    names = game.card_names
    assert len(names) == 36 and len(set(names)) == 36
    assert sum(n.startswith("Mercenary") for n in names) == 5
    assert sum(n.startswith("Traitor") for n in names) == 4
    spies = [n.split("/") for n in names[:27]]
    assert len({tuple(s) for s in spies}) == 27
    for attr in range(9):  # every role, faction and city is on exactly nine spies
        assert sum(game.delta[attr][:27]) == 9
        assert game.delta[attr][27:] == [1] * 5 + [-1] * 4


@pytest.mark.parametrize("players,sources", [(2, 6), (3, 4), (4, 3)])
def test_sources_and_hand_sizes_by_player_count(players, sources):
    game = load_game(GAME, players=players)
    state = game.new_initial_state()
    random_steps(state, random.Random(0), until=lambda s: s.current_player() >= 0)
    assert state.sources == [sources] * players
    assert [len(h) for h in state.hands] == [sources] * players
    assert state.observation(0)["cards_in_play"] == sources * players


def random_steps(state, rng, until):
    while not until(state):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])


def test_round_one_opener_is_a_uniform_chance_node():
    game = load_game(GAME, players=3)
    state = game.new_initial_state()
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert [state.action_to_string(a) for a, _ in outcomes] == [
        "seat 0 opens",
        "seat 1 opens",
        "seat 2 opens",
    ]
    assert all(abs(p - 1 / 3) < 1e-12 for _, p in outcomes)


def test_deal_is_one_uniform_chance_node_per_card_from_the_undealt_cards():
    game = load_game(GAME, players=2, **SMALL2)
    state = game.new_initial_state()
    act(state, "seat 1 opens", f"deal {MOSCOW[0]} to seat 0")
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 35
    assert all(abs(p - 1 / 35) < 1e-12 for _, p in outcomes)
    assert state.string_to_action(f"deal {MOSCOW[0]} to seat 0") not in state.legal_actions()
    with pytest.raises(IllegalActionError):  # seat 1 is not being dealt to yet
        act(state, f"deal {MOSCOW[1]} to seat 1")


def test_a_deal_of_the_whole_deck_offers_every_card_down_to_the_last():
    """Two seats of 18 Sources deal all 36 cards: the odds follow the pool to a last card
    that is certain."""
    game = load_game(GAME, players=2, sources={"2": 18})
    state = game.new_initial_state()
    act(state, "seat 0 opens")
    rng = random.Random(5)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == state.legal_actions()
        assert all(abs(p - 1 / len(state.pool)) < 1e-12 for _, p in outcomes)
        state.apply_action(rng.choice(outcomes)[0])
    assert outcomes == [(outcomes[0][0], 1.0)] and state.pool == []
    state.check_invariants()


def test_play_chance_deals_the_round_in_one_go_with_uniform_cards():
    """Dealing the rest of a round in one call must give every card the same chance of every
    place in every hand, as card-by-card chance nodes do; a sampler that could never pick the
    last card of the pool, or favoured the first, shows up as an empty or swollen cell."""
    game = load_game(GAME, players=2, **SMALL2)
    rng = random.Random(3)
    deals = 7200
    counts = {}
    for _ in range(deals):
        state = game.new_initial_state()
        act(state, "seat 1 opens")
        state.play_chance(rng)
        assert state.current_player() == 1
        assert len(state.history()) == 1 + 6  # the opener and six dealt cards
        for seat in (0, 1):
            for place, card in enumerate(state.hands[seat]):
                counts[seat, place, card] = counts.get((seat, place, card), 0) + 1
    expected = deals / game.num_cards  # 200 for each card, place and hand
    sigma = expected**0.5
    assert len(counts) == 2 * 3 * game.num_cards
    assert all(abs(n - expected) < 5 * sigma for n in counts.values())
    # Whole hands, not just single cards: every pair of cards shares seat 0's hand now and then
    # (about 34 times each). A sampler dealing runs of neighbouring cards passes the check above
    # and fails this one.
    pairs = {}
    for _ in range(deals):
        state = game.new_initial_state()
        act(state, "seat 1 opens")
        state.play_chance(rng)
        a, b, c = sorted(state.hands[0])
        for pair in ((a, b), (a, c), (b, c)):
            pairs[pair] = pairs.get(pair, 0) + 1
    per_pair = deals * 3 / (game.num_cards * (game.num_cards - 1) / 2)
    assert len(pairs) == game.num_cards * (game.num_cards - 1) // 2
    assert max(pairs.values()) < 3 * per_pair


def test_first_bidder_override_skips_the_opening_chance_node():
    game = load_game(GAME, players=3, first_bidder="seat 2")
    state = game.new_initial_state()
    assert state.current_player() == CHANCE
    assert state.action_to_string(state.legal_actions()[0]).startswith("deal ")
    random_steps(state, random.Random(1), until=lambda s: s.current_player() >= 0)
    assert state.current_player() == 2


# -- counting -------------------------------------------------------------------------------------
def test_true_count_adds_mercenaries_and_subtracts_traitors():
    game, state = start(
        2,
        0,
        [
            [MOSCOW[0], MOSCOW[1], MOSCOW[3], MERC[0], MERC[1], TRAITOR[0]],
            [MOSCOW[2], NY_MUSCLE[0], LONDON_MUSCLE[0], MERC[2], TRAITOR[1], TRAITOR[2]],
        ],
    )
    moscow, hacker, muscle = (ATTRIBUTES.index(a) for a in ("Moscow", "Hacker", "Muscle"))
    assert state.true_count(moscow) == 4 + 3 - 3
    assert state.true_count(hacker) == 1 + 3 - 3
    assert state.true_count(muscle) == 2 + 3 - 3
    # and that count is what a CALL is judged on: 4 Moscow stands, so the caller loses.
    act(state, "bid 4 Moscow", "next: seat 1", "call")
    assert state.reveal["true_count"] == 4
    assert state.sources == [6, 5]


def test_count_can_go_below_zero():
    hands = [[TRAITOR[0], TRAITOR[1], LONDON_MUSCLE[0]], [TRAITOR[2], TRAITOR[3], NY_MUSCLE[0]]]
    game, state = start(2, 0, hands, **SMALL2, min_bid=0)
    moscow = ATTRIBUTES.index("Moscow")
    assert state.true_count(moscow) == -4
    # "at least 0 Moscow" is false when the count is -4, so the bidder loses the CALL.
    act(state, "bid 0 Moscow", "next: seat 1", "call")
    assert state.reveal["true_count"] == -4
    assert state.reveal["loser"] == 0
    assert state.sources == [2, 3]


def test_negative_counts_override_floors_the_count_at_zero():
    hands = [[TRAITOR[0], TRAITOR[1], LONDON_MUSCLE[0]], [TRAITOR[2], TRAITOR[3], NY_MUSCLE[0]]]
    game, state = start(2, 0, hands, **SMALL2, min_bid=0, negative_counts=False)
    assert state.true_count(ATTRIBUTES.index("Moscow")) == 0
    act(state, "bid 0 Moscow", "next: seat 1", "spot")  # exactly 0 now: the spot is right
    assert state.reveal["true_count"] == 0
    assert state.points == [0, 1]
    assert state.sources == [2, 3]


# -- CALL and SPOT ------------------------------------------------------------------------------
def test_call_on_a_true_bid_costs_the_caller_a_source():
    game, state = two_seat_position()
    act(state, "bid 3 Moscow", "next: seat 1", "call")  # exactly 3: "at least 3" holds
    assert state.sources == [3, 2]
    assert state.points == [0, 0]
    assert state.reveal["loser"] == 1


def test_call_on_a_false_bid_costs_the_bidder_a_source():
    game, state = two_seat_position()
    act(state, "bid 4 Moscow", "next: seat 1", "call")
    assert state.sources == [2, 3]
    assert state.points == [0, 0]
    assert state.reveal["loser"] == 0 and state.reveal["challenge"] == "call"


def test_right_spot_costs_the_bidder_a_source_and_scores_the_spotter():
    game, state = two_seat_position()
    act(state, "bid 3 Moscow", "next: seat 1", "spot")
    assert state.sources == [2, 3]
    assert state.points == [0, 1]
    assert state.reveal["point_to"] == 1


@pytest.mark.parametrize("count", [2, 4])
def test_wrong_spot_costs_the_spotter_a_source_and_scores_the_bidder(count):
    game, state = two_seat_position()
    act(state, f"bid {count} Moscow", "next: seat 1", "spot")
    assert state.sources == [3, 2]
    assert state.points == [1, 0]


# -- bidding --------------------------------------------------------------------------------------
def test_first_action_of_a_round_must_be_a_bid():
    game, state = two_seat_position()
    legal = state.legal_actions()
    for text in ("call", "spot", "raise 2 Moscow"):
        assert state.string_to_action(text) not in legal
    assert state.string_to_action("bid 1 Face") in legal
    assert state.string_to_action("bid 6 Moscow") in legal  # 6 cards in play


def test_bid_at_the_same_count_must_change_the_attribute():
    game, state = two_seat_position()
    act(state, "bid 2 Moscow", "next: seat 1")
    legal = state.legal_actions()
    assert state.string_to_action("bid 2 Moscow") not in legal
    assert state.string_to_action("bid 2 London") in legal
    assert state.string_to_action("bid 1 London") not in legal
    assert state.string_to_action("bid 3 London") not in legal  # a higher count is a raise
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        act(state, "bid 2 Moscow")
    assert state.to_dict() == before
    act(state, "bid 2 London")
    assert state.observation(None)["current_bid"] == {"seat": 1, "count": 2, "attribute": "London"}


def test_raise_must_raise_the_count_and_may_change_the_attribute():
    game, state = two_seat_position()
    act(state, "bid 2 Moscow", "next: seat 1")
    legal = state.legal_actions()
    assert state.string_to_action("raise 2 Hacker") not in legal
    assert state.string_to_action("raise 1 Hacker") not in legal
    assert state.string_to_action("raise 3 Moscow") in legal
    assert state.string_to_action("raise 3 Hacker") in legal
    act(state, "raise 3 Hacker")
    assert state.observation(0)["bids"] == [
        {"seat": 0, "action": "bid", "count": 2, "attribute": "Moscow"},
        {"seat": 1, "action": "raise", "count": 3, "attribute": "Hacker"},
    ]


def test_counts_run_up_to_the_cards_in_play_this_round():
    game = load_game(GAME, players=2)
    names = game.card_names
    with pytest.raises(MalformedActionError):  # 12 cards in round 1: no 13 in the action space
        game.new_initial_state().string_to_action("bid 13 Moscow")
    game, state = start(2, 0, [names[:6], names[6:12]])
    assert state.string_to_action("bid 12 Moscow") in state.legal_actions()
    act(state, "bid 12 Moscow", "next: seat 1", "call")  # seat 0 loses a Source: 11 cards next
    deal(state, [names[:5], names[5:11]])
    assert state.observation(0)["cards_in_play"] == 11
    assert state.string_to_action("bid 11 Moscow") in state.legal_actions()
    assert state.string_to_action("bid 12 Moscow") not in state.legal_actions()
    act(state, "bid 10 Face", "next: seat 1")
    assert state.string_to_action("raise 11 Face") in state.legal_actions()
    assert state.string_to_action("raise 12 Face") not in state.legal_actions()


def test_bidder_chooses_any_other_active_player_but_never_self():
    hands = [[MOSCOW[0]], [MOSCOW[1]], [MOSCOW[2]], [MOSCOW[3]]]
    game, state = start(4, 2, hands, sources={"4": 1})
    act(state, "bid 1 Moscow")
    assert state.current_player() == 2  # the bidder's own decision node
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "next: seat 0",
        "next: seat 1",
        "next: seat 3",
    ]
    with pytest.raises(IllegalActionError):
        act(state, "next: seat 2")
    act(state, "next: seat 0")
    assert state.current_player() == 0


def test_eliminated_players_cannot_be_chosen_next():
    hands = [[MOSCOW[0]], [LONDON_MUSCLE[0]], [NY_MUSCLE[0]]]
    game, state = start(3, 0, hands, sources={"3": 1})
    act(state, "bid 2 Moscow", "next: seat 1", "call")  # only 1 Moscow: seat 0 is out
    assert state.sources == [0, 1, 1]
    deal(state, [[], [MOSCOW[0]], [MOSCOW[1]]])
    assert state.current_player() == 1  # the loser is out, so the caller opens
    act(state, "bid 1 Face")
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["next: seat 2"]


def test_without_bidder_choice_the_next_active_seat_acts():
    hands = [[MOSCOW[0]], [MOSCOW[1]], [MOSCOW[2]]]
    game, state = start(3, 2, hands, sources={"3": 1}, bidder_chooses_next=False)
    act(state, "bid 1 Moscow")
    assert state.current_player() == 0  # clockwise, no choice node
    act(state, "raise 2 Moscow")
    assert state.current_player() == 1


# -- next round's opener --------------------------------------------------------------------------
def test_loser_of_the_challenge_opens_the_next_round():
    game, state = two_seat_position()
    act(state, "bid 4 Moscow", "next: seat 1", "call")  # bidder (seat 0) loses
    deal(state, [["Agency/Face/London", "Agency/Face/New York"], MOSCOW[:3]])
    assert state.current_player() == 0
    act(state, "bid 1 Face", "next: seat 1", "call")  # 2 Face >= 1: caller (seat 1) loses
    deal(state, [MOSCOW[:2], MOSCOW[2:4]])
    assert state.current_player() == 1


def test_other_party_opens_when_the_loser_was_just_eliminated():
    hands = [[MOSCOW[0]], [MOSCOW[1]], [MOSCOW[2]]]
    # seat 1 bids, seat 2 calls a true bid and, with one Source, is eliminated: seat 1 opens.
    game, state = start(3, 1, hands, sources={"3": 1})
    act(state, "bid 3 Moscow", "next: seat 2", "call")
    assert state.sources == [1, 1, 0]
    deal(state, [[MOSCOW[0]], [MOSCOW[1]], []])
    assert state.current_player() == 1


def test_next_seat_override_for_an_eliminated_loser():
    hands = [[MOSCOW[0]], [MOSCOW[1]], [MOSCOW[2]]]
    game, state = start(3, 1, hands, sources={"3": 1}, opener_if_loser_eliminated="next_seat")
    act(state, "bid 3 Moscow", "next: seat 2", "call")  # seat 2 out; next active after it: 0
    deal(state, [[MOSCOW[0]], [MOSCOW[1]], []])
    assert state.current_player() == 0


# -- winning --------------------------------------------------------------------------------------
def _spot_round(state, spotter: int, bidder: int) -> None:
    """Deal a known round; the bidder bids the exact Moscow count and the spotter spots it."""
    cards = iter(MOSCOW + ["Command/Hacker/Moscow", "Agency/Muscle/Moscow"] + LONDON_MUSCLE)
    hands = [[next(cards) for _ in range(n)] for n in state.sources]
    deal(state, hands)
    moscow = sum(card.endswith("Moscow") for hand in hands for card in hand)
    assert state.current_player() == bidder
    act(state, f"bid {moscow} Moscow", f"next: seat {spotter}", "spot")


def test_three_points_win_at_once():
    game = load_game(GAME, players=2, sources={"2": 4}, first_bidder="seat 0")
    state = game.new_initial_state()
    # Seat 0 always bids the exact count and seat 1 always spots it right; but the bidder
    # (seat 0) loses, so seat 0 keeps opening.
    for round_no in range(3):
        assert state.points == [0, round_no]
        _spot_round(state, spotter=1, bidder=0)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert state.points == [0, 3]
    assert state.sources == [1, 4]  # seat 0 still had a Source: the win was on points
    assert state.returns() == [0.0, 1.0]
    assert state.outcome() == {
        "winners": [1],
        "points": [0, 3],
        "sources": [1, 4],
        "ending": "points",
        "rounds": 3,
    }
    with pytest.raises(IllegalActionError):
        state.apply_action(0)


def test_points_to_win_override_takes_effect():
    game = load_game(GAME, players=2, sources={"2": 4}, first_bidder="seat 0", points_to_win=2)
    state = game.new_initial_state()
    _spot_round(state, spotter=1, bidder=0)
    assert not state.is_terminal()
    _spot_round(state, spotter=1, bidder=0)
    assert state.is_terminal()
    assert state.outcome()["ending"] == "points"
    assert state.winners() == [1]


def test_last_player_with_sources_wins():
    hands = [[MOSCOW[0]], [LONDON_MUSCLE[0]], [NY_MUSCLE[0]]]
    game, state = start(3, 0, hands, sources={"3": 1})
    act(state, "bid 2 Moscow", "next: seat 1", "call")  # seat 0 out, seat 1 opens
    assert not state.is_terminal()
    deal(state, [[], [MOSCOW[0]], [MOSCOW[1]]])
    assert state.current_player() == 1
    act(state, "bid 1 Moscow", "next: seat 2", "call")  # true: caller seat 2 is out
    assert state.is_terminal()
    assert state.winners() == [1]
    assert state.outcome()["ending"] == "last_standing"
    assert state.returns() == [0.0, 1.0, 0.0]
    assert state.observation(0)["last_reveal"]["cards"] == [[], [MOSCOW[0]], [MOSCOW[1]]]


# -- errors, rulesets and strings -----------------------------------------------------------------
def test_illegal_actions_raise_and_leave_the_state_unchanged():
    game, state = two_seat_position()
    before = state.to_dict()
    for action in (
        state.string_to_action("call"),
        state.string_to_action("next: seat 1"),
        state.string_to_action(f"deal {MOSCOW[4]} to seat 0"),
        -5,
        10**6,
    ):
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
        assert state.to_dict() == before
    act(state, "bid 2 Moscow")
    before = state.to_dict()
    with pytest.raises(IllegalActionError):  # the bidder must name the next player first
        act(state, "call")
    assert state.to_dict() == before


def test_unknown_override_key_and_bad_values_raise():
    with pytest.raises(RulesetError):
        load_game(GAME, players=2, points_to_wn=2)
    with pytest.raises(RulesetError):
        load_game(GAME, players=2, points_to_win="two")
    with pytest.raises(RulesetError):
        load_game(GAME, players=2, points_to_win=0)
    with pytest.raises(RulesetError):
        load_game(GAME, players=3, sources={"2": 5})  # nothing for 3 players
    with pytest.raises(RulesetError):
        load_game(GAME, players=4, sources={"4": 10})  # 40 cards needed, 36 in the deck
    with pytest.raises(RulesetError):
        load_game(GAME, players=2, first_bidder="the most honest")
    with pytest.raises(RulesetError):
        load_game(GAME, players=2, first_bidder="seat 3")
    with pytest.raises(RulesetError):
        load_game(GAME, players=2, opener_if_loser_eliminated="winner-ish")
    with pytest.raises(RulesetError):
        load_game(GAME, players=5)


def test_deck_size_overrides_change_the_deck():
    game = load_game(GAME, players=2, mercenaries=2, traitors=0)
    assert game.num_cards == 29
    assert game.card_names[-1] == "Mercenary 2"


def test_action_strings_read_back_exactly():
    game = load_game(GAME, players=3)
    state = game.new_initial_state()
    for text in (
        "bid 5 Moscow",
        "raise 6 Hacker",
        "call",
        "spot",
        "next: seat 2",
        "seat 2 opens",
        "deal Agency/Hacker/London to seat 1",
        "deal Traitor 4 to seat 0",
        "bid 1 New York",
    ):
        action = state.string_to_action(text)
        assert state.action_to_string(action) == text
    assert state.string_to_action("  RAISE 6   hacker ") == state.string_to_action("raise 6 Hacker")
    assert len({state.string_to_action(t) for t in ("bid 5 Moscow", "raise 5 Moscow")}) == 2
    assert all(
        state.string_to_action(state.action_to_string(a)) == a
        for a in range(game.num_distinct_actions())
    )
    for junk in (
        "bid",
        "bid 5",
        "bid five Moscow",
        "bid 5 Paris",
        "next: seat 3",
        "seat 9 opens",
        "deal Mercenary 6 to seat 0",
        "deal Agency/Hacker to seat 0",
        "raise 13 Face",
    ):
        with pytest.raises(MalformedActionError):
            state.string_to_action(junk)


# -- information ----------------------------------------------------------------------------------
def test_observation_hides_other_live_hands_and_shows_the_last_reveal():
    game, state = two_seat_position()
    mine = state.observation(0)
    assert mine["hand_cards"] == [MOSCOW[0], MOSCOW[1], MERC[0]]
    assert mine["hand_sizes"] == [3, 3]
    text = json.dumps(mine)
    assert TRAITOR[0] not in text and MOSCOW[2] not in text
    spectator = state.observation(None)
    assert "hand" not in spectator and MOSCOW[0] not in json.dumps(spectator)
    act(state, "bid 4 Moscow", "next: seat 1", "call")
    reveal = state.observation(None)["last_reveal"]
    assert reveal["cards"] == [
        [MOSCOW[0], MOSCOW[1], MERC[0]],
        [MOSCOW[2], TRAITOR[0], LONDON_MUSCLE[0]],
    ]
    assert reveal["true_count"] == 3 and reveal["challenger"] == 1 and reveal["bidder"] == 0
    deal(state, [[MOSCOW[3], MOSCOW[4]], LONDON_MUSCLE])
    # the new round's hands stay hidden while the old reveal stays on view
    spectator = state.observation(None)
    assert spectator["last_reveal"]["round"] == 1
    assert LONDON_MUSCLE[1] not in json.dumps(state.observation(0))


def test_resample_keeps_the_view_varies_the_rest_and_replays():
    game, state = start(
        2,
        0,
        [[MOSCOW[0], MOSCOW[1], MERC[0]], [MOSCOW[2], TRAITOR[0], LONDON_MUSCLE[0]]],
        **SMALL2,
    )
    act(state, "bid 2 Moscow", "next: seat 1")
    rng = random.Random(5)
    seen = set()
    for _ in range(20):
        sample = state.resample(1, rng)
        assert sample.observation(1) == state.observation(1)
        assert sample.hands[1] == state.hands[1]
        sample.check_invariants()
        assert game.replay(sample.history()) == sample
        seen.add(tuple(sample.hands[0]))
    assert len(seen) > 1


def test_deals_are_described_only_to_their_receiver():
    game = load_game(GAME, players=2, **SMALL2)
    state = game.new_initial_state()
    opener = state.string_to_action("seat 1 opens")
    assert state.describe_action(opener, None) == "seat 1 opens"
    act(state, "seat 1 opens")
    action = state.string_to_action(f"deal {MOSCOW[0]} to seat 0")
    assert state.describe_action(action, 0) == f"you are dealt {MOSCOW[0]}"
    assert state.describe_action(action, 1) is None
    assert state.describe_action(action, None) is None


def test_bids_and_calls_are_described_to_everyone():
    game, state = two_seat_position()
    bid = state.string_to_action("bid 4 Moscow")
    assert state.describe_action(bid, 1) == "seat 0: bid 4 Moscow"
    act(state, "bid 4 Moscow", "next: seat 1")
    line = state.describe_action(state.string_to_action("call"), None)
    assert line.startswith("seat 1: call") and "true count 3" in line
    assert "seat 0 loses a Source" in line


def test_render_shows_hand_bids_and_reveal():
    game, state = two_seat_position()
    act(state, "bid 4 Moscow", "next: seat 1", "call")
    deal(state, [[MOSCOW[3], MOSCOW[4]], LONDON_MUSCLE])
    act(state, "bid 2 Face")
    picture = render(state.observation(0))
    # every word from the catalogue: a spy by its role, faction and city
    assert "Hacker (Agency, Moscow)" in picture and "Muscle (Bureau, London)" not in picture
    assert "2 × Face" in picture
    assert "True count 3 against a bid of 4" in picture
    assert "A Source lost: you" in picture
    japanese = render(state.observation(0), Text(game_messages(SPEC, "ja"), 0))
    assert "ハッカー（機関・モスクワ）" in japanese and "実際の数3／宣言4" in japanese
    assert not re.search(r"[A-Za-z]{3,}", re.sub(r"\[/?[a-z_ ]*\]", "", japanese))


def test_random_games_end_and_keep_invariants():
    for players in (2, 3, 4):
        game = load_game(GAME, players=players)
        rng = random.Random(players)
        for _ in range(30):
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                state.check_invariants()
            assert len(state.winners()) == 1
            winner = state.winners()[0]
            if state.outcome()["ending"] == "points":
                assert state.points[winner] >= 3
            else:
                assert [s for s, n in enumerate(state.sources) if n] == [winner]


def test_hand_counts_add_each_cards_traits_and_the_cache_stays_bounded(monkeypatch):
    import fieldcraft.games.spy_tracker.search as search

    game = load_game(GAME, players=3)
    model = game.search_model
    rng = random.Random(4)
    monkeypatch.setattr(search, "HAND_CACHE", 50)
    for _ in range(400):
        hand = rng.sample(range(game.num_cards), rng.randrange(1, 6))
        expected = tuple(sum(game.delta[a][c] for c in hand) for a in range(len(ATTRIBUTES)))
        assert model.hand_counts(hand) == expected
        assert model.hand_counts(hand) == expected  # the cached answer too
        assert len(model._hand_counts) <= 50


# -- no_repeat_bids (RULINGS.md section 2) ------------------------------------------------------
def test_a_bid_already_made_this_round_cannot_be_made_again():
    game, state = two_seat_position()
    act(state, "bid 2 Moscow", "next: seat 1", "bid 2 London", "next: seat 0")
    assert state.string_to_action("bid 2 Moscow") not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        act(state, "bid 2 Moscow")
    act(state, "bid 2 Hacker", "next: seat 1")  # a trait not yet bid at this count is fine
    assert state.string_to_action("bid 2 London") not in state.legal_actions()
    act(state, "raise 3 Moscow")  # a raise names a count nobody has bid yet
    assert state.string_to_action("raise 3 Moscow") not in state.legal_actions()


def test_the_literal_reading_allows_repeats_when_the_ruling_is_off():
    game, state = two_seat_position(no_repeat_bids=False)
    act(state, "bid 2 Moscow", "next: seat 1", "bid 2 London", "next: seat 0")
    act(state, "bid 2 Moscow", "next: seat 1")  # allowed: only the standing trait is barred
    assert state.string_to_action("bid 2 London") in state.legal_actions()
    assert state.string_to_action("bid 2 Moscow") not in state.legal_actions()
    assert game.info().max_game_length is None  # rounds can go on for ever


def test_the_declared_longest_game_is_a_game_that_can_be_played():
    """Two seats, every (count, trait) pair bid in every round, each bid handed on, the round
    ended by a call, Sources lost in turn so the game lasts as many rounds as it can: exactly
    ``max_game_length`` decisions and ``max_chance_nodes`` chance outcomes. So the bound is true
    (a game reaches it) and tight."""
    game = load_game(GAME, players=2)
    info = game.info()
    state = game.new_initial_state()
    act(state, "seat 0 opens")
    decisions = 0
    counting = MERC + [c for c in game.card_names if c.endswith("/Moscow")]
    while not state.is_terminal():
        sizes = state.sources[:]
        top = sum(sizes)
        loser = 0 if sizes[0] >= sizes[1] else 1  # keep both in the game as long as possible
        # The bids alternate from the opener, so the last one ("top Moscow") is the opener's
        # when there is an odd number of them; the other seat calls it.
        last_bidder = state.opener if 9 * top % 2 else 1 - state.opener
        cards = counting[:top]  # every card counts for Moscow: the call is wrong, caller loses
        if loser == last_bidder:
            cards = [*cards[:-1], TRAITOR[0]]  # now the top bid is false: the bidder loses
        deal(state, [cards[:sizes[0]], cards[sizes[0]:]])
        for count in range(1, top + 1):
            for attr in ATTRIBUTES:
                verb = "raise" if count > 1 and attr == ATTRIBUTES[0] else "bid"
                act(state, f"{verb} {count} {attr}")
                act(state, f"next: seat {1 - state.player}")
                decisions += 2
        assert (state.bid_count, ATTRIBUTES[state.bid_attr]) == (top, "Moscow")
        act(state, "call")
        decisions += 1
        assert state.reveal["loser"] == loser
    chance = len(state.history()) - decisions
    assert decisions == info.max_game_length == 1397
    assert chance == info.max_chance_nodes


def test_is_legal_agrees_with_the_legal_list_in_every_phase():
    game, state = two_seat_position()
    ids = range(-3, game.num_distinct_actions() + 3)
    for script in ([], ["bid 2 Moscow"], ["next: seat 1"], ["bid 2 London", "next: seat 0"]):
        act(state, *script)
        legal = set(state.legal_actions())
        assert {a for a in ids if state._is_legal(a)} == legal
    act(state, "call")  # round over: the next deal is a chance node
    assert state.is_chance_node()
    legal = set(state.legal_actions())
    assert {a for a in ids if state._is_legal(a)} == legal


def _legal_by_the_rules(state) -> list[int]:
    """The legal list worked out from the rules alone, to check the game's cached pieces."""
    g = state.game
    if state.phase == BIDDING:
        cap = g.round_cap(state.in_play)
        count = state.bid_count
        if count < 0:
            return [g.bid_action(k, a) for k in range(g.min_bid, cap + 1)
                    for a in range(len(ATTRIBUTES))]
        taken = state.taken_at_count()
        same = [g.bid_action(count, a) for a in range(len(ATTRIBUTES)) if not taken >> a & 1]
        raises = [g.bid_action(k, a, True) for k in range(count + 1, cap + 1)
                  for a in range(len(ATTRIBUTES))]
        return [0, 1, *same, *raises]  # call, spot
    if state.phase == CHOOSING:
        return [g.next_base + s for s, n in enumerate(state.sources) if n and s != state.bidder]
    if state.phase == DEALING:
        return [g.deal_base + state.deal_seat * g.num_cards + c for c in state.pool]
    if state.phase == OPENING:
        return [g.open_base + s for s in range(g.num_players)]
    return []


@pytest.mark.parametrize("overrides", SPEC.test_configs)
def test_legal_lists_and_is_legal_follow_the_rules_in_whole_games(overrides):
    """The legal lists come from tables on the game and ``_is_legal`` answers without them;
    over whole random games (eliminations and every phase included), both must agree with the
    rules for every action id, and the fields kept for them with the invariants."""
    for players in (2, 3, 4):
        game = load_game(GAME, players=players, **overrides)
        ids = range(-3, game.num_distinct_actions() + 3)
        rng = random.Random(players)
        for _ in range(2):
            state = game.new_initial_state()
            while True:
                legal = state.legal_actions()
                assert legal == _legal_by_the_rules(state)
                assert {a for a in ids if state._is_legal(a)} == set(legal)
                if state.is_chance_node():
                    assert [a for a, _ in state.chance_outcomes()] == legal
                state.check_invariants()
                if state.is_terminal():
                    break
                state.apply_action(legal[rng.randrange(len(legal))])


def test_choices_carry_kind_and_args_a_board_can_use():
    game, state = two_seat_position()
    by_kind: dict[str, list] = {}
    for choice in state.choices():
        by_kind.setdefault(choice["kind"], []).append(choice)
    assert set(by_kind) == {"bid"}  # the opening: bids only
    bid = next(c for c in by_kind["bid"] if c["label"] == "bid 3 London")
    assert bid["args"] == {"count": 3, "attribute": "London"}
    assert bid["action"] == game.bid_action(3, ATTRIBUTES.index("London"))
    act(state, "bid 2 Moscow")
    assert [c["args"] for c in state.choices()] == [{"seat": 1}]
    assert state.choices()[0]["kind"] == "next"
    act(state, "next: seat 1")
    kinds = {c["kind"] for c in state.choices()}
    assert kinds == {"call", "spot", "bid", "raise"}
    raise_ = next(c for c in state.choices() if c["kind"] == "raise")
    assert raise_["args"] == {"count": 3, "attribute": "Face"}


def test_the_heuristic_bot_hands_its_bid_to_the_leading_opponent():
    """After bidding, the bot passes the turn to the opponent with the most points (then the
    most Sources), who must then answer a bid the bot thinks likely. (It used to look for a
    phase named "choosing", which the view calls "choosing next", and chose at random.)"""
    from fieldcraft.agents import View, make_agent

    game, state = start(3, 0, [MOSCOW[:4], LONDON_MUSCLE + [MERC[0]],
                               NY_MUSCLE + [TRAITOR[0]]], sources={"3": 4})
    state.points = [0, 0, 2]  # seat 2 leads on points
    act(state, "bid 2 Moscow")
    assert state.observation(0)["phase"] == "choosing next"
    for seed in range(20):
        bot = make_agent("heuristic", seed=seed)
        assert state.action_to_string(bot.act(View(state, 0))) == "next: seat 2"
    state.points = [0, 0, 0]
    state.sources = [4, 4, 3]  # now seat 1 leads on Sources
    for seed in range(20):
        bot = make_agent("heuristic", seed=seed)
        assert state.action_to_string(bot.act(View(state, 0))) == "next: seat 1"
