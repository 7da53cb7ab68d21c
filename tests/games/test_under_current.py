"""Under Current rule tests: the rulebook's examples, every effect, both endings, scoring.

Positions are built by choosing chance outcomes (which role and which card each seat is dealt),
so every test runs through the same code path as a real game. Where a test needs a crowded row it
moves cards from the draw pile into the row with ``put_in_row``, which keeps every card in exactly
one place (``check_invariants`` runs after each step).
"""

from __future__ import annotations

import random

import pytest

from fieldcraft import IllegalActionError, MalformedActionError, RulesetError, load_game
from fieldcraft.core import CHANCE, TERMINAL
from fieldcraft.games.under_current.constants import FACTIONS, FETCH, SNATCH

ROLES_5 = ["Blue Chief", "Red Chief", "Yellow Agent", "Blue Informer", "Red Informer",
           "Green Agent"]


def setup(players: int, roles: list[str], hands: list[list[str]], start: int = 0, **rules):
    """A game at the first PASS with the given roles (seats, then reserve) and hands.

    A hand shorter than two cards is dealt full and the filler returned to the draw pile, a
    shortcut for the late-game positions where hands run short.
    """
    game = load_game("under-current", players=players, **rules)
    state = game.new_initial_state()
    for name in roles[:-1]:
        act(state, f"deal {name} to a position")
    assert state.game.role_names[state.roles[-1]] == roles[-1]
    named = {c for hand in hands for c in hand}
    fillers = [c for c in game.card_names if c not in named]
    extra: list[tuple[int, str]] = []
    for seat, hand in enumerate(hands):
        for card in hand:
            act(state, f"draw {card}")
        for _ in range(game.hand_size - len(hand)):
            filler = fillers.pop()
            extra.append((seat, filler))
            act(state, f"draw {filler}")
    act(state, f"seat {start} starts")
    for seat, name in extra:
        card = game.card_names.index(name)
        i = state.hands[seat].index(card)
        state.hands[seat].pop(i)
        state.hand_known[seat].pop(i)
        state.deck = sorted(state.deck + [card])
    assert state.phase_name == "pass"
    return state


def act(state, *texts: str) -> None:
    for text in texts:
        state.apply_action(state.string_to_action(text))
        state.check_invariants()


def put_in_row(state, cards: list[str], face_up: bool = True) -> None:
    """Move cards from the draw pile into the row (a shortcut for many earlier turns)."""
    g = state.game
    for name in cards:
        card = g.card_names.index(name)
        state.deck.remove(card)
        state.row.append(card)
        state.row_up.append(1 if face_up else 0)
        state.row_known.append(g.all_known if face_up else 0)
    state.check_invariants()


def draw_rest(state, seat_draws: list[str] | None = None) -> None:
    """Resolve pending draws with the lowest cards (or the named ones)."""
    names = list(seat_draws or [])
    while state.current_player() == CHANCE:
        if names:
            act(state, f"draw {names.pop(0)}")
        else:
            state.apply_action(state.legal_actions()[0])


HANDS_5 = [["Blue/RETIRE", "Blue/SCAN"], ["Red/SWAP", "Red/SCAN"], ["Blue/PEEK", "Red/PEEK"],
           ["Blue/SPY", "Red/SPY"], ["Green/SCAN", "Yellow/SCAN"]]


def test_setup_by_player_count():
    for players, cards, roles in [(3, 24, 4), (4, 24, 5), (5, 24, 6), (6, 28, 7), (7, 28, 8),
                                  (8, 32, 9)]:
        game = load_game("under-current", players=players)
        assert game.num_cards == cards
        assert game.num_roles == roles == players + 1
    game = load_game("under-current", players=8)
    assert game.role_names.count("Green Agent") == 1 and "Green Agent 2" in game.role_names
    assert "Blue/FLIP(8+)" in game.card_names and "Green/BURN(8+)" in game.card_names
    five = load_game("under-current", players=5)
    assert "Blue/FLIP(8+)" not in five.card_names and "Red/SPY(6+)" not in five.card_names


def test_identity_confirmation_shows_eye_and_thumb_seats_only_to_eyes():
    s = setup(5, ROLES_5, HANDS_5)
    chief = s.observation(0)  # Blue Chief holds an Eye
    assert chief["identity_confirmation"] == {"eye": [0, 1], "thumb": [3, 4]}
    assert chief["roles"][1] == ["Red Chief"]  # the other Eye, since seat 0 holds Blue Chief
    assert chief["roles"][2] == ["Yellow Agent", "Green Agent"]  # no symbol
    informer = s.observation(3)
    assert informer["identity_confirmation"] is None
    assert len(informer["roles"][0]) == 5  # everything but its own card


def test_rulebook_example_yellow_balancing_wins():
    """Row of 4 Blue, 5 Red, 2 Yellow: Yellow tops Blue up to 5 = 5, so Yellow wins."""
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Blue/FETCH",
                   "Red/DROP", "Red/SNATCH", "Red/FETCH", "Red/BURN",
                   "Red/RETIRE", "Yellow/SWAP", "Yellow/FLIP"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 1 as Red")
    assert s.is_terminal()
    out = s.outcome()
    assert out["row"] == {"Blue": 4, "Red": 5, "Yellow": 2, "Green": 0}
    assert out["winning_faction"] == "Yellow" and out["decided_by"] == "yellow_balance"
    assert s.winners() == [2]
    assert s.returns() == [0.0, 0.0, 1.0, 0.0, 0.0]


def test_majority_wins_when_yellow_cannot_balance():
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Red/DROP", "Red/SNATCH", "Red/FETCH",
                   "Red/BURN", "Yellow/SWAP"])
    act(s, "pass Blue/RETIRE to seat 2", "use", "retire seat 1 as Red")
    assert s.outcome()["winning_faction"] == "Red"
    assert s.winners() == [1, 4]  # the eliminated Red Chief wins with its faction


def test_rulebook_example_scan_filed():
    s = setup(5, ROLES_5, HANDS_5)
    act(s, "pass Blue/SCAN to seat 1", "file")
    row = s.observation(None)["row"]
    assert row == [{"card": None, "face_up": False}]
    assert s.observation(0)["row"][0]["card"] == "Blue/SCAN"  # the passer knows it
    assert s.observation(1)["row"][0]["card"] == "Blue/SCAN"  # so does the receiver
    assert s.observation(2)["row"][0]["card"] is None
    assert s.observation(0)["known_hands"] == {}  # no effect happened
    assert s.current_player() == CHANCE  # seat 0 draws back up


def test_rulebook_example_scan_used():
    s = setup(5, ROLES_5, HANDS_5)
    act(s, "pass Blue/SCAN to seat 1", "use")
    assert s.observation(None)["row"] == []
    assert s.observation(None)["discard"] == ["Blue/SCAN"]
    assert s.current_player() == 0
    act(s, "scan seat 3")
    assert s.observation(0)["known_hands"]["3"] == ["Blue/SPY", "Red/SPY"]
    assert "3" not in s.observation(2)["known_hands"]


def test_receiver_sees_card_others_do_not_while_choosing():
    s = setup(5, ROLES_5, HANDS_5)
    act(s, "pass Blue/SCAN to seat 2")
    assert s.current_player() == 2
    assert s.observation(2)["pending"]["card"] == "Blue/SCAN"
    assert s.observation(3)["pending"]["card"] is None
    with pytest.raises(IllegalActionError):
        act(s, "scan seat 1")


def test_cannot_pass_to_self_or_a_card_not_held():
    s = setup(5, ROLES_5, HANDS_5)
    before = s.to_dict()
    for text in ["pass Blue/SCAN to seat 0", "pass Red/SWAP to seat 1"]:
        with pytest.raises(IllegalActionError, match="legal"):
            act(s, text)
    assert s.to_dict() == before
    with pytest.raises(MalformedActionError):
        s.string_to_action("pass Purple/SCAN to seat 1")


def test_row_overflow_reveals_oldest_face_down_card():
    s = setup(5, ROLES_5, HANDS_5)
    act(s, "pass Blue/SCAN to seat 1", "file")
    draw_rest(s)
    act(s, "pass Red/SCAN to seat 2", "file")
    draw_rest(s)
    row = s.observation(None)["row"]
    assert [r["face_up"] for r in row] == [False, False]
    act(s, "pass Red/PEEK to seat 3", "file")
    row = s.observation(None)["row"]
    assert [r["face_up"] for r in row] == [True, False, False]
    assert row[0]["card"] == "Blue/SCAN" and row[1]["card"] is None


def test_swap_is_secret_and_exchanges_one_card_each():
    s = setup(5, ROLES_5, [["Blue/SWAP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/SWAP to seat 4", "use", "swap with seat 3")
    assert s.current_player() == 0
    act(s, "give Blue/SCAN")
    assert s.current_player() == 3
    assert "your_swap_card" not in s.observation(3)["pending"]  # picked without seeing it
    assert s.observation(0)["pending"]["your_swap_card"] == "Blue/SCAN"
    act(s, "give Red/SPY")
    assert s.observation(0)["hand"] == ["Red/SPY"]
    assert sorted(s.observation(3)["hand"]) == ["Blue/SCAN", "Blue/SPY"]
    assert s.observation(0)["known_hands"]["3"] == ["Blue/SCAN"]  # it knows what it gave
    assert "3" not in s.observation(2)["known_hands"]


def test_swap_with_empty_hand_does_nothing():
    s = setup(5, ROLES_5, [["Blue/SWAP"], ["Red/SWAP", "Red/SCAN"], ["Blue/PEEK", "Red/PEEK"],
                           ["Blue/SPY", "Red/SPY"], ["Green/SCAN", "Yellow/SCAN"]])
    # seat 0 starts with a single card (hand sizes are dealt freely in tests)
    act(s, "pass Blue/SWAP to seat 1", "use")
    assert s.current_player() == CHANCE  # nothing to choose: straight to the draw
    assert s.observation(None)["discard"] == ["Blue/SWAP"]


def test_scan_without_target_does_nothing():
    s = setup(3, ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent"],
              [["Blue/SCAN"], [], []])
    act(s, "pass Blue/SCAN to seat 1", "use")
    assert s.current_player() == CHANCE and s.observation(0)["known_hands"] == {}


PEEK_HANDS = [["Blue/PEEK", "Blue/SCAN"], HANDS_5[1], ["Yellow/SWAP", "Red/PEEK"], *HANDS_5[3:]]


def test_peek_sees_every_face_down_row_card_and_empty_row_is_harmless():
    s = setup(5, ROLES_5, PEEK_HANDS)
    act(s, "pass Blue/PEEK to seat 1", "use")  # empty row: nothing to see
    assert s.current_player() == CHANCE
    s = setup(5, ROLES_5, PEEK_HANDS)
    put_in_row(s, ["Red/DROP", "Red/FETCH"], face_up=False)
    assert [r["card"] for r in s.observation(0)["row"]] == [None, None]
    act(s, "pass Blue/PEEK to seat 1", "use")
    assert [r["card"] for r in s.observation(0)["row"]] == ["Red/DROP", "Red/FETCH"]
    assert [r["card"] for r in s.observation(1)["row"]] == [None, None]


def test_spy_reveals_one_role_to_the_spy_only():
    s = setup(5, ROLES_5, [["Blue/SPY", "Blue/SCAN"], ["Red/SWAP", "Red/SCAN"],
                           ["Blue/PEEK", "Red/PEEK"], ["Yellow/SCAN", "Red/SPY"],
                           ["Green/SCAN", "Blue/DROP"]])
    act(s, "pass Blue/SPY to seat 1", "use", "spy on seat 4")
    assert s.observation(0)["roles"][4] == ["Red Informer"]
    assert len(s.observation(2)["roles"][4]) > 1


def test_flip_with_a_player_both_learn():
    s = setup(5, ROLES_5, [["Yellow/FLIP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Yellow/FLIP to seat 1", "use", "flip with seat 3")
    assert s.observation(0)["role"] == "Blue Informer"
    assert s.observation(3)["role"] == "Blue Chief"
    assert s.observation(0)["roles"][3] == ["Blue Chief"]
    assert s.observation(3)["roles"][0] == ["Blue Informer"]
    # an onlooker's knowledge travels with the cards: seat 1 (an Eye) saw seat 3's thumb
    assert s.observation(1)["roles"][0] == ["Blue Informer", "Red Informer"]


def test_flip_with_reserve_shows_only_the_card_received():
    s = setup(5, ROLES_5, [["Yellow/FLIP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Yellow/FLIP to seat 1", "use")
    assert "flip with reserve 0" in [s.action_to_string(a) for a in s.legal_actions()]
    act(s, "flip with reserve 0")
    assert s.observation(0)["role"] == "Green Agent"
    assert s.observation(0)["roles"][5] == ["Blue Chief"]  # it knows what it put there
    assert s.seat_label(0) == "Green"


def test_drop_files_own_card_and_no_card_does_nothing():
    s = setup(5, ROLES_5, [["Blue/DROP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/DROP to seat 1", "use", "drop Blue/SCAN")
    assert s.observation(0)["row"] == [{"card": "Blue/SCAN", "face_up": False}]
    assert s.observation(1)["row"] == [{"card": None, "face_up": False}]
    s = setup(5, ROLES_5, [["Blue/DROP"], *HANDS_5[1:]])
    act(s, "pass Blue/DROP to seat 1", "use")
    assert s.current_player() == CHANCE and s.row == []


def test_snatch_moves_a_random_card_and_target_draws():
    s = setup(5, ROLES_5, [["Blue/SNATCH", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/SNATCH to seat 1", "use", "snatch from seat 2")
    assert s.current_player() == CHANCE
    assert [a for a, _ in s.chance_outcomes()] == sorted(
        s.string_to_action(f"snatch picks {c}") for c in ["Blue/PEEK", "Red/PEEK"])
    act(s, "snatch picks Red/PEEK")
    assert s.observation(2)["row"][0]["card"] == "Red/PEEK"  # its owner knows which left
    assert s.observation(0)["row"][0]["card"] is None  # the snatcher does not
    act(s, "draw Yellow/SWAP")  # the replacement draw comes at once
    assert s.observation(2)["hand"] == ["Blue/PEEK", "Yellow/SWAP"]


def test_snatch_needs_a_player_holding_two_cards():
    s = setup(3, ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent"],
              [["Blue/SNATCH", "Blue/SCAN"], ["Red/SCAN"], ["Red/PEEK"]])
    act(s, "pass Blue/SNATCH to seat 1", "use")
    assert s.current_player() == CHANCE and s.row == []  # no target: straight to the draw


def test_fetch_takes_face_down_card_and_learns_it():
    s = setup(5, ROLES_5, [["Blue/FETCH", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/FETCH to seat 1", "use")
    assert s.current_player() == CHANCE  # empty row: nothing to fetch
    s = setup(5, ROLES_5, [["Blue/FETCH", "Blue/SCAN"], *HANDS_5[1:]])
    put_in_row(s, ["Green/FETCH"], face_up=True)
    put_in_row(s, ["Red/DROP"], face_up=False)
    act(s, "pass Blue/FETCH to seat 1", "use", "fetch row 1")
    assert sorted(s.observation(0)["hand"]) == ["Blue/SCAN", "Red/DROP"]
    assert len(s.row) == 1


def test_burn_removes_unseen():
    s = setup(5, ROLES_5, [["Blue/BURN", "Blue/SCAN"], *HANDS_5[1:]])
    put_in_row(s, ["Green/FETCH"], face_up=False)
    act(s, "pass Blue/BURN to seat 1", "use", "burn row 0")
    assert s.row == [] and s.observation(0)["removed"] == [None]
    s = setup(5, ROLES_5, [["Blue/BURN", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/BURN to seat 1", "use")
    assert s.current_player() == CHANCE  # empty row: nothing to burn


def test_retire_needs_two_cards_in_the_row():
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Red/DROP"])
    act(s, "pass Blue/RETIRE to seat 1", "use")
    assert s.current_player() == CHANCE and not s.is_terminal()
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Red/DROP"])
    put_in_row(s, ["Red/FETCH"], face_up=False)
    act(s, "pass Blue/RETIRE to seat 1", "use")
    assert s.current_player() == 0
    assert "retire seat 3 as Blue" in [s.action_to_string(a) for a in s.legal_actions()]
    assert not any("retire seat 0" in s.action_to_string(a) for a in s.legal_actions())


def test_wrong_retire_changes_nothing_but_public_knowledge():
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Red/DROP", "Red/FETCH"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 2 as Red")
    assert not s.is_terminal() and s.eliminated == -1
    assert "Red Chief" not in s.observation(None)["roles"][2]
    assert "Red Chief" not in s.observation(4)["roles"][2]


def test_correct_retire_on_informer_removes_that_colour():
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Red/DROP", "Red/FETCH"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 3 as Blue")
    assert s.is_terminal() and s.eliminated == 3
    out = s.outcome()
    assert out["row"] == {"Blue": 0, "Red": 2, "Yellow": 0, "Green": 0}
    assert out["winning_faction"] == "Red" and s.winners() == [1, 4]
    assert out["ending"] == "retire"
    # without the removal Blue (3) would beat Red (2): the ruleset switch proves the step ran
    s = setup(5, ROLES_5, HANDS_5, informer_removal=False)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Red/DROP", "Red/FETCH"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 3 as Blue")
    assert s.outcome()["winning_faction"] == "Blue" and s.winners() == [0, 3]


def test_green_card_in_row_wins_for_green():
    roles = ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent", "Red Informer",
             "Blue Informer"]
    s = setup(5, roles, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Green/FETCH"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 1 as Red")
    assert s.outcome()["decided_by"] == "green_card" and s.winners() == [3]


GREEN_ROLES = ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent", "Blue Informer",
               "Red Informer"]  # Red Informer in the reserve


@pytest.mark.parametrize("red,blue,green_wins", [
    ("reserve 0", "seat 4", True),   # naming a reserve card is allowed and right here
    ("seat 4", "reserve 0", False),  # swapped names
    ("seat 2", "seat 4", False),     # one name wrong
])
def test_green_declaration(red, blue, green_wins):
    s = setup(5, GREEN_ROLES, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Red/DROP"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 1 as Red")
    assert not s.is_terminal()
    assert s.current_player() == 3  # the Green player decides at scoring
    view = s.observation(0)
    assert view["roles"][3] == ["Green Agent"]  # declaring reveals the Green role
    assert view["row"][0]["face_up"] and view["row"][3]["card"] == "Red/DROP"
    assert "name seat 3 as Red Informer" not in [s.action_to_string(a) for a in s.legal_actions()]
    act(s, f"name {red} as Red Informer", f"name {blue} as Blue Informer")
    assert s.is_terminal()
    if green_wins:
        assert s.outcome()["decided_by"] == "green_declaration" and s.winners() == [3]
    else:
        assert s.outcome()["winning_faction"] == "Blue" and s.winners() == [0, 4]


def test_eight_players_both_greens_must_be_right():
    roles = ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent", "Blue Informer",
             "Red Informer", "Blue Agent", "Green Agent 2", "Red Agent"]
    hands = [["Blue/RETIRE", "Blue/SCAN"], ["Red/SWAP", "Red/SCAN"], ["Blue/PEEK", "Red/PEEK"],
             ["Blue/SPY", "Red/SPY"], ["Green/SCAN", "Yellow/SCAN"], ["Blue/DROP", "Red/DROP"],
             ["Blue/SWAP", "Red/FETCH"], ["Blue/FETCH", "Red/BURN"]]
    for second_right, green_wins in [(True, True), (False, False)]:
        s = setup(8, roles, hands)
        put_in_row(s, ["Blue/SNATCH", "Red/SNATCH"])
        act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 1 as Red")
        assert s.current_player() == 3
        act(s, "name seat 5 as Red Informer", "name seat 4 as Blue Informer")
        assert s.current_player() == 7
        act(s, "name seat 5 as Red Informer",
            f"name seat {4 if second_right else 6} as Blue Informer")
        assert s.is_terminal()
        assert (s.outcome()["winning_faction"] == "Green") == green_wins


def test_deck_out_round_counts_exactly_n_turns():
    """Drive to the moment the deck empties, then count the turns that follow."""
    rng = random.Random(3)
    for _ in range(30):
        s = load_game("under-current", players=4).new_initial_state()
        while not s.is_terminal() and s.final_left < 0:
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
        if s.is_terminal():
            continue  # ended by RETIRE before the deck ran out
        turn_at_deck_out = s.turn
        first = (s.actions and s.active)  # the seat after the one whose turn emptied the deck
        assert s.final_left == 4 and not s.deck
        actives = []
        while not s.is_terminal():
            if s.phase_name == "pass" and (not actives or actives[-1][0] != s.turn):
                actives.append((s.turn, s.active))
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
        if s.outcome()["ending"] == "deck_out":
            assert s.turn == turn_at_deck_out + 4
            seats = [seat for _, seat in actives]
            expected = [(first + k) % 4 for k in range(4)]
            assert seats == [e for e in expected if e in seats]  # in order, none twice
            assert seats[0] == first
            return
    raise AssertionError("no deck-out game in 30 tries")


def test_empty_hand_skips_turn():
    s = setup(3, ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent"],
              [["Blue/SCAN"], [], ["Blue/SPY", "Red/SPY"]])
    act(s, "pass Blue/SCAN to seat 2", "file")
    draw_rest(s)
    assert s.current_player() == 2  # seat 1 held no cards and was skipped
    assert s.turn == 2


def test_eliminated_player_can_win_with_its_faction():
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Red/DROP", "Red/FETCH", "Red/BURN"])
    act(s, "pass Blue/RETIRE to seat 3", "use", "retire seat 1 as Red")
    assert s.eliminated == 1 and s.winners() == [1, 4]
    assert s.observation(None)["eliminated"] == 1


def test_nobody_wins_when_winning_faction_has_no_seat():
    roles = ["Blue Chief", "Red Chief", "Blue Informer", "Green Agent", "Red Informer",
             "Yellow Agent"]  # Yellow sits in the reserve
    s = setup(5, roles, HANDS_5)
    put_in_row(s, ["Blue/DROP", "Red/DROP"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 1 as Red")
    act(s, "name seat 4 as Red Informer", "name seat 1 as Blue Informer")  # wrong: Yellow tie
    assert s.outcome()["winning_faction"] is None and s.winners() == []
    assert s.returns() == [0.0] * 5


def test_ruleset_overrides_take_effect_and_are_checked():
    game = load_game("under-current", players=4, row_face_down_limit=1)
    assert game.row_limit == 1
    with pytest.raises(RulesetError, match="unknown ruleset key"):
        load_game("under-current", players=4, row_limit=1)
    with pytest.raises(RulesetError, match="must be int"):
        load_game("under-current", players=4, hand_size="two")
    with pytest.raises(RulesetError, match="3-8 players"):
        load_game("under-current", players=9)
    with pytest.raises(RulesetError, match="at least 1"):
        load_game("under-current", players=4, retire_min_row=0)


def test_card_effect_can_be_changed_by_ruleset():
    from fieldcraft.core import default_ruleset

    cards = default_ruleset("under-current")["cards"]
    for card in cards:
        if card["effect"] == "SCAN":
            card["effect"] = "PEEK"
    game = load_game("under-current", players=5, cards=cards)
    assert "Blue/SCAN" not in game.card_names and game.card_names.count("Blue/PEEK") == 1
    with pytest.raises(RulesetError, match="effects"):
        load_game("under-current", players=5,
                  cards=[{"colour": "Blue", "effect": "ZAP", "from": 3}] * 24)


def test_describe_action_hides_passed_card_from_onlookers():
    s = setup(5, ROLES_5, HANDS_5)
    action = s.string_to_action("pass Blue/SCAN to seat 1")
    assert "Blue/SCAN" in s.describe_action(action, 0)
    assert "Blue/SCAN" in s.describe_action(action, 1)
    assert "Blue/SCAN" not in s.describe_action(action, 2)
    assert "Blue/SCAN" not in s.describe_action(action, None)


def test_terminal_reveals_all_roles():
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Red/DROP", "Red/FETCH", "Red/BURN"])
    act(s, "pass Blue/RETIRE to seat 3", "use", "retire seat 4 as Red")
    assert s.current_player() == TERMINAL
    assert [r[0] for r in s.observation(2)["roles"]] == ROLES_5


def test_resampled_state_hides_the_real_past():
    """A bot must not read the true deal from a resample's history or identity record."""
    s = setup(5, ["Blue Informer", "Red Chief", "Yellow Agent", "Blue Chief", "Red Informer",
                  "Green Agent"], HANDS_5)
    sample = s.resample(0, random.Random(1))  # seat 0 holds a Thumb: it saw no Eyes
    with pytest.raises(Exception, match="no history"):
        sample.history()
    assert sample.eye_record == [None] * 5
    assert sample.observation(0) == s.observation(0)
    assert s.history()  # the real state keeps its history


def test_correct_retire_and_informer_removal_are_public_knowledge():
    roles = ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent", "Blue Informer",
             "Red Informer"]
    s = setup(5, roles, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Red/DROP"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 4 as Blue")
    # Blue cards left the row, so everyone knows seat 4 is the Blue Informer
    assert s.current_player() == 3
    assert s.observation(3)["roles"][4] == ["Blue Informer"]
    rng = random.Random(2)
    assert all(s.resample(3, rng).roles[4] == s.roles[4] for _ in range(50))


def test_green_reveal_shows_the_other_seats_are_not_green():
    roles = ["Blue Chief", "Red Chief", "Yellow Agent", "Green Agent", "Blue Informer",
             "Red Informer", "Blue Agent", "Red Agent", "Green Agent 2"]  # 2nd Green in reserve
    hands = [["Blue/RETIRE", "Blue/SCAN"], ["Red/SWAP", "Red/SCAN"], ["Blue/PEEK", "Red/PEEK"],
             ["Blue/SPY", "Red/SPY"], ["Green/SCAN", "Yellow/SCAN"], ["Blue/DROP", "Red/DROP"],
             ["Blue/SWAP", "Red/FETCH"], ["Blue/FETCH", "Red/BURN"]]
    s = setup(8, roles, hands)
    put_in_row(s, ["Blue/SNATCH", "Red/SNATCH"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 1 as Red")
    assert s.current_player() == 3
    view = s.observation(2)
    for seat in (0, 4, 5, 6, 7):
        assert not any(r.startswith("Green") for r in view["roles"][seat])
    assert view["roles"][8] == ["Green Agent 2"]  # the only place left for the second Green


def test_float_actions_are_rejected():
    s = setup(5, ROLES_5, HANDS_5)
    action = s.string_to_action("pass Blue/SCAN to seat 1")
    before = s.to_json()
    with pytest.raises(IllegalActionError, match="an action is an int"):
        s.apply_action(float(action))
    assert s.to_json() == before


# ----------------------------------------------------------------- the split: clones, legality
def test_a_clone_made_during_the_role_deal_leaves_its_original_alone():
    """Clones used to share ``eye_record``, which the role deal writes in place: playing a clone
    through the deal gave its original the clone's identity records (87 of 7,758 clone checks
    of a review, all during setup)."""
    state = load_game("under-current", players=5).new_initial_state()
    act(state, "deal Blue Chief to a position", "deal Yellow Agent to a position")
    before = state.to_dict()
    copy = state.clone()
    while copy.phase_name == "deal_roles":
        copy.apply_action(copy.legal_actions()[0])
    assert copy.eye_record[0] is not None  # the clone's Blue Chief (an Eye) got its record
    assert state.eye_record == [None] * 5
    assert state.to_dict() == before


def assert_is_legal_matches(state) -> None:
    ids = range(-3, state.game.num_distinct_actions() + 3)
    assert {a for a in ids if state._is_legal(a)} == set(state.legal_actions()), state.phase_name


def test_is_legal_agrees_with_the_legal_list_in_every_phase():
    game = load_game("under-current", players=5)
    state = game.new_initial_state()
    assert_is_legal_matches(state)  # the role deal
    act(state, "deal Blue Chief to a position")
    assert not state._is_legal(state.string_to_action("deal Blue Chief to a position"))
    assert_is_legal_matches(state)
    s = setup(5, ROLES_5, [["Blue/SNATCH", "Blue/SCAN"], ["Red/SWAP"], *HANDS_5[2:]])
    assert_is_legal_matches(s)  # pass
    assert not s._is_legal(s.string_to_action("pass Blue/SCAN to seat 0"))  # to oneself
    assert not s._is_legal(s.string_to_action("pass Red/SWAP to seat 1"))  # not held
    act(s, "pass Blue/SNATCH to seat 2")
    assert_is_legal_matches(s)  # receive
    act(s, "use")
    assert_is_legal_matches(s)  # SNATCH target: seat 1 holds one card, not two
    assert not s._is_legal(s.string_to_action("snatch from seat 1"))
    act(s, "snatch from seat 3")
    assert_is_legal_matches(s)  # the random pick (chance)
    act(s, "snatch picks Red/SPY")
    assert_is_legal_matches(s)  # the refill draw (chance)
    assert not s._is_legal(s.string_to_action("draw Red/SPY"))  # already out of the pile
    s = setup(5, ROLES_5, [["Yellow/FLIP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Yellow/FLIP to seat 1", "use")
    assert_is_legal_matches(s)  # FLIP: seats and the reserve slot
    assert s._is_legal(s.game.A_RESERVE)
    s = setup(5, ROLES_5, [["Blue/SPY", "Blue/SCAN"], ["Red/SWAP", "Red/SCAN"],
                           ["Blue/PEEK", "Red/PEEK"], ["Yellow/SCAN", "Red/SPY"],
                           ["Green/SCAN", "Blue/DROP"]])
    act(s, "pass Blue/SPY to seat 1", "use")
    assert_is_legal_matches(s)
    assert not s._is_legal(s.game.A_RESERVE)  # the reserve is FLIP's only
    s = setup(5, ROLES_5, [["Blue/SWAP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/SWAP to seat 4", "use", "swap with seat 3")
    assert_is_legal_matches(s)  # swap_own
    act(s, "give Blue/SCAN")
    assert_is_legal_matches(s)  # swap_theirs: the target's own cards only
    assert not s._is_legal(s.string_to_action("give Blue/SCAN"))
    s = setup(5, ROLES_5, [["Blue/DROP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/DROP to seat 1", "use")
    assert_is_legal_matches(s)  # drop
    s = setup(5, ROLES_5, [["Blue/BURN", "Blue/SCAN"], *HANDS_5[1:]])
    put_in_row(s, ["Red/DROP", "Red/FETCH"])
    act(s, "pass Blue/BURN to seat 1", "use")
    assert_is_legal_matches(s)  # row choice
    assert not s._is_legal(s.string_to_action("burn row 2"))
    s = setup(5, GREEN_ROLES, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Red/DROP"])
    act(s, "pass Blue/RETIRE to seat 1", "use")
    assert_is_legal_matches(s)  # retire
    assert not s._is_legal(s.string_to_action("retire seat 0 as Blue"))  # not oneself
    act(s, "retire seat 1 as Red")
    assert_is_legal_matches(s)  # declare red
    act(s, "name seat 4 as Red Informer")
    assert_is_legal_matches(s)  # declare blue: not the position just named
    assert not s._is_legal(s.string_to_action("name seat 4 as Blue Informer"))
    act(s, "name reserve 0 as Blue Informer")
    assert s.is_terminal()
    assert_is_legal_matches(s)


def test_random_start_is_a_chance_node_whose_seats_are_all_legal():
    game = load_game("under-current", players=3)
    state = game.new_initial_state()
    while state.phase_name != "choose_start":
        state.apply_action(state.legal_actions()[0])
    assert_is_legal_matches(state)
    assert [a for a, _ in state.chance_outcomes()] == state.legal_actions()


# ----------------------------------------------------------------- structured choices
def choices_by_label(state) -> dict[str, tuple[str, dict]]:
    out = {}
    for c in state.choices():
        assert c["label"] == state.action_to_string(c["action"])
        out[c["label"]] = (c["kind"], c["args"])
    return out


def test_choices_name_the_piece_each_action_acts_on():
    s = setup(5, ROLES_5, [["Blue/SWAP", "Blue/SCAN"], *HANDS_5[1:]])
    g = s.game
    by = choices_by_label(s)
    assert by["pass Blue/SCAN to seat 2"] == (
        "pass", {"card": "Blue/SCAN", "card_id": g.card_names.index("Blue/SCAN"), "to": 2})
    assert len(by) == 8 and {kind for kind, _ in by.values()} == {"pass"}
    act(s, "pass Blue/SWAP to seat 4")
    swap = {"card": "Blue/SWAP", "card_id": g.card_names.index("Blue/SWAP"), "from": 0}
    assert choices_by_label(s) == {"file": ("file", swap), "use": ("use", swap)}
    act(s, "use")
    by = choices_by_label(s)
    assert by["swap with seat 3"] == ("target", {"seat": 3, "effect": "SWAP"})
    act(s, "swap with seat 3")
    assert choices_by_label(s) == {"give Blue/SCAN": (
        "give", {"card": "Blue/SCAN", "card_id": g.card_names.index("Blue/SCAN"), "with": 3})}
    act(s, "give Blue/SCAN")
    by = choices_by_label(s)  # seat 3 answers from its own hand
    assert by["give Red/SPY"] == (
        "give", {"card": "Red/SPY", "card_id": g.card_names.index("Red/SPY"), "with": 0})
    assert set(by) == {"give Blue/SPY", "give Red/SPY"}


def test_choices_for_flip_drop_row_retire_and_declarations():
    s = setup(5, ROLES_5, [["Yellow/FLIP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Yellow/FLIP to seat 1", "use")
    by = choices_by_label(s)
    assert by["flip with reserve 0"] == ("reserve", {"reserve": 0, "position": 5,
                                                      "effect": "FLIP"})
    assert by["flip with seat 2"] == ("target", {"seat": 2, "effect": "FLIP"})
    s = setup(5, ROLES_5, [["Blue/DROP", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/DROP to seat 1", "use")
    assert choices_by_label(s) == {"drop Blue/SCAN": (
        "drop", {"card": "Blue/SCAN", "card_id": s.game.card_names.index("Blue/SCAN")})}
    s = setup(5, ROLES_5, [["Blue/FETCH", "Blue/SCAN"], *HANDS_5[1:]])
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH"])
    put_in_row(s, ["Red/DROP"], face_up=False)
    act(s, "pass Blue/FETCH to seat 1", "use")
    by = choices_by_label(s)
    assert by["fetch row 3"] == ("row", {"index": 3, "effect": "FETCH"})  # the face-down one
    assert sorted(args["index"] for _, args in by.values()) == [0, 1, 2, 3]
    s = setup(5, GREEN_ROLES, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Red/DROP"])
    act(s, "pass Blue/RETIRE to seat 1", "use")
    by = choices_by_label(s)
    assert by["retire seat 2 as Yellow"] == ("retire", {"seat": 2, "faction": "Yellow"})
    assert len(by) == 16  # four other seats, four factions
    act(s, "retire seat 1 as Red")
    assert s.current_player() == 3
    by = choices_by_label(s)
    assert by["name reserve 0 as Red Informer"] == (
        "name", {"informer": "Red", "position": 5, "reserve": 0})
    assert by["name seat 4 as Red Informer"] == (
        "name", {"informer": "Red", "position": 4, "seat": 4})
    act(s, "name seat 4 as Red Informer")
    assert choices_by_label(s)["name seat 2 as Blue Informer"] == (
        "name", {"informer": "Blue", "position": 2, "seat": 2})


def test_chance_outcomes_have_kinds_too():
    game = load_game("under-current", players=4)
    notation = game.notation
    state = game.new_initial_state()
    deal = state.string_to_action("deal Red Chief to a position")
    assert notation.choice(state, deal) == ("deal", {"role": "Red Chief", "role_id": 1,
                                                     "position": 0})
    while state.phase_name == "deal_roles":
        state.apply_action(state.legal_actions()[0])
    draw = state.legal_actions()[3]
    card = draw - game.A_DRAW
    assert notation.choice(state, draw) == ("draw", {"card": game.card_names[card],
                                                     "card_id": card, "seat": 0})
    while state.phase_name == "deal_cards":
        state.apply_action(state.legal_actions()[0])
    assert notation.choice(state, game.A_START + 2) == ("start", {"seat": 2})
    s = setup(5, ROLES_5, [["Blue/SNATCH", "Blue/SCAN"], *HANDS_5[1:]])
    act(s, "pass Blue/SNATCH to seat 1", "use", "snatch from seat 2")
    pick = s.string_to_action("snatch picks Red/PEEK")
    assert s.game.notation.choice(s, pick) == (
        "snatch", {"card": "Red/PEEK", "card_id": s.game.card_names.index("Red/PEEK"),
                   "seat": 2})


# ----------------------------------------------------------------- declared bounds
def test_declared_numbers_at_five_players():
    info = load_game("under-current", players=5).info()
    assert info.num_distinct_actions == 267
    assert (info.chance_offset, info.max_chance_outcomes) == (208, 59)  # draw .. snatch ids
    assert info.utility_sum is None and (info.min_utility, info.max_utility) == (0.0, 1.0)
    # 24 cards + 3 FETCH - 4 * 2 held by the others when the pile runs out + 5 final turns
    # = 24 passes, 2 decisions each; 28 effect choices; one Green names two positions.
    assert info.max_game_length == 2 * 24 + 28 + 2 == 78
    # 5 of 6 role cards dealt by chance, 24 cards drawn, 2 SNATCH picks, the starting seat.
    assert info.max_chance_nodes == 5 + 24 + 2 + 1 == 32


@pytest.mark.parametrize("players", [3, 5, 8])
def test_the_longest_game_argument_holds_step_by_step(players):
    """Each step of the ``max_game_length`` argument, checked on random games (receivers use
    most cards, so effects happen often): at the end of the turn that empties the pile the
    other seats hold full hands; the passes stay within ``C + F - (N - 1) * H + N``; every
    decision is a pass, a file-or-use, an effect choice of a card used at most once, or a
    Green declaration."""
    from fieldcraft.games.under_current.rules import EXTRA_DECISIONS

    game = load_game("under-current", players=players)
    info = game.info()
    n, h = players, game.hand_size
    pass_bound = game.num_cards + game.card_effect.count(FETCH) - (n - 1) * h + n
    rng = random.Random(players)
    deck_outs = 0
    for _ in range(150):
        s = game.new_initial_state()
        decisions = passes = declarations = 0
        used: list[int] = []
        while not s.is_terminal():
            ending_seat, pile_lasted = s.active, s.final_left < 0
            if not s.is_chance_node():
                decisions += 1
                passes += s.phase_name == "pass"
                declarations += s.phase_name.startswith("declare")
            legal = s.legal_actions()
            action = legal[rng.randrange(len(legal))]
            if s.phase_name == "receive":
                action = game.A_USE if rng.random() < 0.7 else game.A_FILE
                if action == game.A_USE:
                    used.append(s.pending)
            s.apply_action(action)
            if pile_lasted and s.final_left >= 0:  # that turn emptied the pile
                deck_outs += 1
                assert all(len(hand) == h for seat, hand in enumerate(s.hands)
                           if seat != ending_seat)
        assert len(used) == len(set(used))  # a used card never comes back
        assert passes <= pass_bound
        extras = sum(EXTRA_DECISIONS.get(game.card_effect[c], 1) for c in used)
        assert decisions <= 2 * passes + extras + declarations
        assert decisions <= info.max_game_length
        assert len(s.history()) - decisions <= info.max_chance_nodes
    assert deck_outs > 50


def test_an_all_file_game_draws_every_card_and_takes_two_decisions_a_pass():
    """Filing every card: each turn draws one card until the pile is empty, then each seat has
    one more turn, so there are ``C - N*H + N`` passes and every chance bound but SNATCH's is
    reached."""
    for players in (3, 5, 8):
        game = load_game("under-current", players=players)
        rng = random.Random(players)
        s = game.new_initial_state()
        decisions = 0
        while not s.is_terminal():
            if s.phase_name == "receive":
                s.apply_action(game.A_FILE)
                decisions += 1
                continue
            legal = s.legal_actions()
            decisions += not s.is_chance_node()
            s.apply_action(legal[rng.randrange(len(legal))])
        passes = game.num_cards - players * game.hand_size + players
        declared = 2 * len(s.declarations)
        assert decisions == 2 * passes + declared
        snatches = game.card_effect.count(SNATCH)
        assert len(s.history()) - decisions == game.info().max_chance_nodes - snatches


def test_a_resample_has_no_ply_either():
    s = setup(5, ROLES_5, HANDS_5)
    assert s.ply() == len(s.history())
    assert s.resample(2, random.Random(0)).ply() is None


def test_the_bot_and_the_rules_read_the_row_balance_alike():
    from fieldcraft.games.under_current.turns import balance_winner

    assert FACTIONS[balance_winner(4, 5, 2)] == "Yellow"  # the rulebook example
    assert FACTIONS[balance_winner(2, 5, 2)] == "Red"
    assert FACTIONS[balance_winner(3, 0, 2)] == "Blue"
    assert FACTIONS[balance_winner(0, 0, 0)] == "Yellow"  # an empty row is level


def test_a_scan_line_does_not_tell_the_order_the_cards_came_in():
    """The scanner sees which cards a seat holds, not in which order they reached it (its view
    lists known cards sorted). Its log line listed them in hand order, which the leak audit
    (tests/server/test_leak_audit.py) caught: a re-deal with the same cards in another order
    changed the line."""
    from fieldcraft.games.under_current.constants import SCAN

    game = load_game("under-current", players=4)
    rng = random.Random(2)
    found = 0
    for _ in range(200):
        s = game.new_initial_state()
        while not s.is_terminal() and found < 5:
            if s.phase_name == "target" and s.effect == SCAN:
                for action in s.legal_actions():
                    t = action - game.A_TARGET
                    if len(set(s.hands[t])) < 2:
                        continue
                    other = s.clone()
                    other.hands[t] = other.hands[t][::-1]
                    assert s.describe_action(action, s.active) == \
                        other.describe_action(action, s.active)
                    found += 1
            s.apply_action(rng.choice(s.legal_actions()))
        if found >= 5:
            break
    assert found >= 5
