"""Spy Tracker's observation tensor on a scripted round: each plane holds what its doc says."""

from __future__ import annotations

from fieldcraft.core import load_game
from fieldcraft.games.spy_tracker.rules import CALL, spy_id


def plane(game, tensor, name):
    """The slice of the flat tensor that plane ``name`` occupies."""
    return game.observer.split(tensor)[name]


def scripted():
    game = load_game("spy-tracker", players=2, first_bidder="seat 0", sources={"2": 2})
    state = game.new_initial_state()
    deals = [spy_id(0, 0, 0), spy_id(1, 1, 1), spy_id(2, 2, 2), spy_id(0, 1, 2)]
    while state.is_chance_node():  # seat 0 gets the first two cards, seat 1 the others
        card = deals.pop(0)
        state.apply_action(state.deal_first + card)
    return game, state


def test_hand_and_table_planes():
    game, state = scripted()
    t0 = game.observer.tensor(state, 0)
    t1 = game.observer.tensor(state, 1)
    assert plane(game, t0, "viewer") == [1.0, 0.0]
    assert plane(game, t1, "viewer") == [0.0, 1.0]
    assert plane(game, t0, "to_act") == [1.0, 0.0]
    hand0 = plane(game, t0, "hand")
    assert hand0[spy_id(0, 0, 0)] == 1.0 and hand0[spy_id(1, 1, 1)] == 2.0
    assert sum(1 for x in hand0 if x) == 2
    hand1 = plane(game, t1, "hand")
    assert hand1[spy_id(2, 2, 2)] == 1.0 and hand1[spy_id(0, 0, 0)] == 0.0
    assert plane(game, t0, "sources") == [2.0, 2.0]
    assert plane(game, t0, "cards_in_play") == [4.0]


def test_a_bid_fills_its_slot_and_a_call_the_reveal():
    game, state = scripted()
    state.apply_action(game.bid_action(3, 6))  # seat 0: 3 New York
    t = game.observer.tensor(state, 1)
    bid = plane(game, t, "bid")
    assert bid[:2] == [1.0, 0.0] and bid[2] == 3.0 and bid[3 + 6] == 1.0
    slots = plane(game, t, "bids")
    width = 2 + 2
    slot = (3 - game.min_bid) * 9 + 6
    assert slots[slot * width:(slot + 1) * width] == [1.0, 0.0, 0.0, 1.0]
    assert sum(slots) == 2.0
    while state.current_player() == 0:  # seat 0 hands the answer to seat 1
        state.apply_action(state.legal_actions()[0])
    state.apply_action(CALL)
    t = game.observer.tensor(state, 1)
    reveal = plane(game, t, "reveal")
    assert reveal[0] == 1.0 and reveal[3] == 3.0 and reveal[4] == 1.0  # one New York card
    n = game.num_cards
    hands = reveal[-2 * n:]
    assert hands[spy_id(0, 0, 0)] == 1.0 and hands[n + spy_id(0, 1, 2)] == 2.0
    assert sum(plane(game, t, "bids")) == 0.0  # a new round starts with no bids
