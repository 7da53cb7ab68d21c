"""Rule tests for Against the Current.

Every position is built by replaying an action list with chosen chance outcomes (the terrain
deal, markers, the event pile order, the first player and every die roll), so each test reads
like a game on the table. Expected values come from the rulebook and RULINGS.md section 3, not
from the engine's ruleset file.
"""

from __future__ import annotations

import json
import random

import pytest
from rich.text import Text

from fieldcraft.core import (
    CHANCE,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
    load_game,
    random_playout,
    sample_chance,
)
from fieldcraft.games.against_the_current.layout import EVENTS, TERRAINS
from fieldcraft.games.against_the_current.render import render

GAME = "against-the-current"
AXO, POR, EEL, STU = "Axolotl", "Yangtze Porpoise", "European Eel", "Chinese Sturgeon"
OPEN = "Open Water"
STANDARD_RING = [
    OPEN, "Pollution", "Fishing Nets", "Water Plants", "Rapids", "Dam", "Turbine",
    OPEN, "Pollution", "Fishing Nets", "Water Plants", "Rapids", "Dam", "Turbine", OPEN,
]

# The rulebook's terrain effect table, typed in from section 8.
RULEBOOK_TABLE = {
    AXO: {OPEN: "PASS", "Pollution": "-2", "Fishing Nets": "-1", "Water Plants": "+1",
          "Rapids": "-1", "Dam": "-1", "Turbine": "-1"},
    POR: {OPEN: "PASS", "Pollution": "-2", "Fishing Nets": "STOP", "Water Plants": "-1",
          "Rapids": "PASS", "Dam": "-1", "Turbine": "PASS"},
    EEL: {OPEN: "PASS", "Pollution": "-1", "Fishing Nets": "PASS", "Water Plants": "PASS",
          "Rapids": "-1", "Dam": "-2", "Turbine": "-2"},
    STU: {OPEN: "PASS", "Pollution": "-1", "Fishing Nets": "-2", "Water Plants": "-1",
          "Rapids": "+1", "Dam": "-2", "Turbine": "-1"},
}


# -- helpers ----------------------------------------------------------------------------------
def play(state, *texts: str) -> None:
    for text in texts:
        state.apply_action(state.string_to_action(text))


def ring_with(placed: dict[int, str], base: str = OPEN, size: int = 15) -> list[str]:
    """A ring of ``base`` cards with the given terrain on the given setup spaces (1-based)."""
    ring = [base] * size
    for space, terrain in placed.items():
        ring[space - 1] = terrain
    return ring


def make(ring=None, animals=(AXO, EEL), first=0, deck=(), markers=(), still=True, **overrides):
    """Set up a game by replaying the setup: deal ``ring`` (spaces 1..N at Current 1), place
    the markers, stack the event pile with ``deck`` on top, pick animals, choose first player.

    The terrain counts are taken from the ring (a designer override) so any river can be laid
    out; markers default to none so tests only meet the terrain they ask for; and unless
    ``still=False`` the wheel turns by 0 spaces (Pressure still clears each round), so a test
    about one rule does not have to track the wheel. The wheel tests use the real shift.
    """
    ring = list(ring or ring_with({}))
    if still:
        overrides.setdefault("wheel_shift", 0)
    overrides.setdefault("terrain_counts", {t: ring.count(t) for t in TERRAINS})
    overrides.setdefault("markers", [name for name, _ in markers])
    game = load_game(GAME, players=len(animals), **overrides)
    state = game.new_initial_state()
    counts = game.ruleset["event_deck"]
    rest = [e for e in EVENTS for _ in range(counts.get(e, 0))]
    for card in deck:
        rest.remove(card)
    script = [f"deal {t}" for t in ring]
    script += [f"{name} marker on space {space}" for name, space in markers]
    script += [f"deck card {e}" for e in [*deck, *rest]]
    script += [f"pick {a}" for a in animals]
    script.append(f"first player seat {first}")
    play(state, *script)
    return state


def legal(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def token(state, seat: int, letter: str) -> dict:
    return state.observation(None)["players"][seat]["tokens"]["ABC".index(letter)]


def where(state, seat: int, letter: str) -> int:
    return token(state, seat, letter)["position"]


def turn(state, letter: str, roll: int, *then: str) -> None:
    """Move a token with a chosen roll, declining every ability window unless ``then`` says
    otherwise (the first entries of ``then`` answer the windows in order)."""
    seat = state.current_player()
    play(state, f"move token {letter}", f"roll {roll}")
    for text in then:
        play(state, text)
    while state.current_player() == seat and "no ability" in legal(state):
        play(state, "no ability")


def attempt(state) -> None:
    play(state, "attempt challenge", "challenge passed")


# -- terrain table -----------------------------------------------------------------------------
@pytest.mark.parametrize("animal", [AXO, POR, EEL, STU])
@pytest.mark.parametrize("terrain", TERRAINS)
def test_terrain_table_row(animal, terrain):
    other = next(a for a in (AXO, POR, EEL, STU) if a != animal)
    state = make(ring_with({3: terrain}), animals=(animal, other))
    turn(state, "A", 3)
    expected = RULEBOOK_TABLE[animal][terrain]
    landing = {"PASS": 3, "+1": 4, "-1": 2, "-2": 1, "STOP": 3}[expected]
    assert where(state, 0, "A") == landing
    assert (token(state, 0, "A")["stop"] == "next turn") == (expected == "STOP")
    assert state.current_player() == 1  # the turn is over


def test_markers_make_their_card_resolve_as_pollution_and_nets():
    state = make(ring_with({}), animals=(POR, AXO),
                 markers=(("Pollution", 2), ("Fishing Nets", 3)))
    view = state.observation(None)["spaces"]
    assert view[1]["terrain"] == "Pollution" and view[1]["printed"] == OPEN
    turn(state, "A", 3)  # Porpoise on a net-marked Open Water card: STOP
    assert token(state, 0, "A")["stop"] == "next turn"
    turn(state, "A", 2)  # Axolotl on the polluted card: -2, so back to Start
    assert where(state, 1, "A") == 0


# -- boosts ------------------------------------------------------------------------------------
def test_regeneration_turns_pollution_into_pass_once_per_game():
    state = make(ring_with({2: "Pollution"}), animals=(AXO, EEL))
    play(state, "move token A", "roll 2")
    assert legal(state) == ["no ability", "regeneration"]
    play(state, "regeneration")
    assert where(state, 0, "A") == 2
    turn(state, "A", 1)  # Eel
    play(state, "move token B", "roll 2")
    assert state.current_player() == 1  # no window: the Boost is spent
    assert where(state, 0, "B") == 0
    assert not state.observation(None)["players"][0]["boost_left"]


def test_echolocation_changes_the_roll_by_one_either_way():
    state = make(animals=(POR, AXO))
    play(state, "move token A", "roll 3")
    assert legal(state) == ["no ability", "echolocation +1", "echolocation -1"]
    play(state, "echolocation +1")
    assert where(state, 0, "A") == 4
    turn(state, "A", 1)
    play(state, "move token B", "roll 3")
    assert state.current_player() == 1 and where(state, 0, "B") == 3  # used up


def test_echolocation_to_zero_means_no_move_and_no_terrain():
    state = make(ring_with({1: "Pollution"}), animals=(POR, AXO))
    play(state, "move token A", "roll 1", "echolocation -1")
    assert where(state, 0, "A") == 0
    assert state.current_player() == 1


def test_echolocation_to_zero_can_be_switched_off():
    state = make(animals=(POR, AXO), echolocation_allows_zero=False)
    play(state, "move token A", "roll 1")
    assert legal(state) == ["no ability", "echolocation +1"]


@pytest.mark.parametrize("terrain", ["Dam", "Turbine"])
def test_slip_through_turns_dam_or_turbine_into_pass(terrain):
    state = make(ring_with({3: terrain}), animals=(EEL, AXO))
    play(state, "move token A", "roll 3")
    assert legal(state) == ["no ability", "slip through"]
    play(state, "slip through")
    assert where(state, 0, "A") == 3  # instead of -2


def test_migration_burst_moves_two_extra_spaces():
    state = make(animals=(STU, AXO))
    play(state, "move token A", "roll 1")
    assert legal(state) == ["no ability", "migration burst"]
    play(state, "migration burst")
    assert where(state, 0, "A") == 3


def test_only_one_ability_per_turn():
    # Porpoise reaches its Turbine with Echolocation: its Pressure may not follow this turn.
    state = make(ring_with({4: "Turbine"}), animals=(POR, AXO))
    play(state, "move token A", "roll 3", "echolocation +1")
    assert where(state, 0, "A") == 4
    assert state.current_player() == 1
    assert state.observation(None)["players"][0]["pressure_left"]


def test_pressure_ability_is_once_per_game():
    state = make(ring_with({3: "Turbine"}), animals=(POR, AXO), wheel_shift=0)
    play(state, "move token A", "roll 3", "no ability")
    assert legal(state) == ["no ability", "place pressure"]
    play(state, "place pressure")
    turn(state, "A", 1)
    play(state, "move token B", "roll 3", "no ability")
    assert state.current_player() == 1  # no second Pressure window


# -- pressure ----------------------------------------------------------------------------------
def test_pressure_worsens_opponents_only_and_stop_stays_stop():
    state = make(ring_with({3: "Fishing Nets"}), animals=(EEL, AXO, POR), wheel_shift=0)
    play(state, "move token A", "roll 3", "place pressure")
    assert where(state, 0, "A") == 3  # the owner's token is not worsened (PASS stays PASS)
    view = state.observation(None)
    assert view["spaces"][2]["pressure"] == [0]
    turn(state, "A", 3)  # Axolotl: Fishing Nets -1 worsened to -2
    assert where(state, 1, "A") == 1
    turn(state, "A", 3)  # Porpoise: STOP stays STOP
    assert where(state, 2, "A") == 3 and token(state, 2, "A")["stop"] == "next turn"


def test_pressure_never_worsens_plus_one():
    table = json.loads(json.dumps(RULEBOOK_TABLE))
    table[AXO]["Fishing Nets"] = "+1"
    state = make(ring_with({3: "Fishing Nets"}), animals=(EEL, AXO), terrain_table=table)
    play(state, "move token A", "roll 3", "place pressure")
    turn(state, "A", 3)
    assert where(state, 1, "A") == 4


def test_pressure_markers_are_removed_when_the_wheel_turns():
    state = make(ring_with({3: "Fishing Nets"}), animals=(EEL, AXO), wheel_shift=0)
    play(state, "move token A", "roll 3", "place pressure")
    turn(state, "A", 1)  # round over: the wheel turns
    view = state.observation(None)
    assert view["current"] == 2
    assert all(not space["pressure"] for space in view["spaces"])
    turn(state, "B", 1)  # Eel
    turn(state, "B", 3)  # Axolotl on the same card: plain -1 now
    assert where(state, 1, "B") == 2


# -- the modifier order of RULINGS 3 -----------------------------------------------------------
def _modifier_scenario(**overrides):
    """Porpoise token B collects Pressure Wave (from the Eel), Safe Shelter and River Support,
    then lands on Fishing Nets carrying the Eel's Pressure Marker."""
    state = make(ring_with({3: "Fishing Nets"}), animals=(POR, EEL), first=1, wheel_shift=0,
                 deck=("Pressure Wave", "Safe Shelter", "River Support"), **overrides)
    turn(state, "A", 6)  # Eel, round 1
    attempt(state)
    play(state, "target seat 0 token B")
    turn(state, "A", 6)  # Porpoise
    attempt(state)
    play(state, "target seat 0 token B")
    turn(state, "A", 1)  # Eel, round 2
    turn(state, "A", 6)  # Porpoise
    attempt(state)
    play(state, "target seat 0 token B")
    b = token(state, 0, "B")
    assert b["safe_shelter"] and b["river_support"] and b["pressure_wave"]
    play(state, "move token B", "roll 3", "place pressure")  # Eel, round 3
    turn(state, "B", 3)  # Porpoise lands on the pressured Fishing Nets
    return state


def test_modifier_order_shelter_support_and_wave_together():
    # STOP -> River Support PASS -> Pressure Marker -1 -> Pressure Wave -2 -> Safe Shelter -1
    state = _modifier_scenario()
    b = token(state, 0, "B")
    assert b["position"] == 2
    assert b["stop"] is None
    assert not (b["safe_shelter"] or b["river_support"] or b["pressure_wave"])


def test_modifier_order_is_ruleset_data():
    # Shelter first: STOP -> -2, then River Support PASS, Pressure -1, Wave -2.
    order = ["safe_shelter", "boost", "river_support", "pressure_marker", "pressure_wave"]
    state = _modifier_scenario(modifier_order=order)
    assert where(state, 0, "B") == 1


# -- STOP, start, arrival ----------------------------------------------------------------------
def test_stop_skips_the_token_on_its_owners_next_turn_only():
    state = make(ring_with({3: "Fishing Nets"}), animals=(POR, AXO), wheel_shift=0)
    turn(state, "A", 3)
    assert token(state, 0, "A")["stop"] == "next turn"
    turn(state, "A", 1)
    assert legal(state) == ["move token B", "move token C"]
    assert token(state, 0, "A")["stop"] == "this turn"
    with pytest.raises(IllegalActionError):
        play(state, "move token A")
    turn(state, "B", 1)
    assert token(state, 0, "A")["stop"] is None
    turn(state, "A", 1)
    assert "move token A" in legal(state)


def test_player_with_every_token_stopped_skips_the_turn():
    ring = [OPEN, OPEN, "Fishing Nets", OPEN]  # short river: Sanctuary is 5
    state = make(ring, animals=(POR, AXO), wheel_shift=0, event_roll=7)
    turn(state, "A", 5)
    play(state, "tributary 1 (12 pts)")
    turn(state, "A", 1)
    turn(state, "B", 5)
    play(state, "tributary 2 (11 pts)")
    turn(state, "A", 1)
    turn(state, "C", 3)  # Porpoise's last token is stopped
    assert token(state, 0, "C")["stop"] == "next turn"
    current = state.observation(None)["current"]
    turn(state, "B", 1)  # Axolotl; then the Porpoise's turn is skipped
    assert state.current_player() == 1
    assert state.observation(None)["current"] == current + 1
    assert token(state, 0, "C")["stop"] is None  # the mark cleared with the skipped turn
    turn(state, "B", 1)
    assert legal(state) == ["move token C"] and state.current_player() == 0


@pytest.mark.parametrize(("animal", "terrain", "start_roll"), [
    (AXO, "Pollution", 1),  # 1 - 2 = -1: back to Start
    (EEL, "Dam", 1),
])
def test_moving_behind_start_returns_to_start(animal, terrain, start_roll):
    state = make(ring_with({1: terrain}), animals=(animal, POR))
    turn(state, "A", start_roll)
    assert where(state, 0, "A") == 0


def test_arrival_needs_no_exact_roll_and_any_unclaimed_tributary():
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7)
    turn(state, "A", 3)
    turn(state, "A", 1)
    turn(state, "A", 4)  # 3 + 4 = 7, past Sanctuary (5)
    assert len(legal(state)) == 12 and state.current_player() == 0
    play(state, "tributary 5 (8 pts)")
    assert token(state, 0, "A")["arrived"] and token(state, 0, "A")["tributary"] == 5
    turn(state, "A", 5)
    assert "tributary 5 (8 pts)" not in legal(state)  # each tributary holds one token
    play(state, "tributary 1 (12 pts)")
    assert [p["score"] for p in state.observation(None)["players"]] == [8, 12]


def test_tie_is_won_by_the_earlier_third_arrival():
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7, tributaries=[5] * 6)
    for letter in "AB":
        for _ in range(2):
            turn(state, letter, 5)
            play(state, legal(state)[0])
    turn(state, "C", 1)
    turn(state, "C", 5)  # the Eel's third token arrives first
    play(state, legal(state)[0])
    turn(state, "C", 5)
    play(state, legal(state)[0])
    assert state.is_terminal()
    assert state.outcome()["scores"] == [15, 15]
    assert state.returns() == [0.0, 1.0]
    assert state.outcome()["finish_order"] == [1, 0]
    assert state.seat_label(1) == EEL


def test_higher_total_beats_earlier_finish():
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7)
    for letter in "AB":  # both take the lowest tributaries left: 1, 2, 3, 4
        for _ in range(2):
            turn(state, letter, 5)
            play(state, legal(state)[-1])
    turn(state, "C", 1)
    turn(state, "C", 5)
    play(state, legal(state)[-1])  # Eel finishes first with the low tributaries
    turn(state, "C", 5)
    play(state, "tributary 1 (12 pts)")
    assert state.is_terminal()
    scores = state.outcome()["scores"]
    assert scores[0] > scores[1] and state.winners() == [0]


# -- the round limit (RULINGS section 3, ruling of 2026-12-04) -----------------------------------
def test_round_limit_scores_only_tokens_in_the_sanctuary():
    """Round 2 of 2 completed: the Axolotl has one token home (12 points), the Eel two (11 and
    10), the rest are on the river and score nothing; the Eel wins on points."""
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7, round_limit=2)
    turn(state, "A", 5)
    play(state, "tributary 1 (12 pts)")
    turn(state, "A", 5)
    play(state, "tributary 2 (11 pts)")
    turn(state, "B", 2)  # round 2: the Axolotl's B stays on the river
    assert not state.is_terminal()
    turn(state, "B", 5)
    play(state, "tributary 3 (10 pts)")
    assert state.is_terminal() and state.legal_actions() == []
    assert where(state, 0, "B") == 2
    out = state.outcome()
    assert out["scores"] == [12, 21] and state.returns() == [0.0, 1.0]
    assert out["tributaries"] == [[12], [11, 10]] and out["finish_order"] == []
    assert out["tie_break"] is None and out["ended_by"] == "round limit (2 rounds)"
    assert state.game.notation.summary(state)["reason"]["key"] == "limit"


def test_round_limit_tie_goes_to_more_tokens_arrived():
    """12 points each: the Axolotl with one token (12), the Eel with two (7 + 5)."""
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7, round_limit=2,
                 tributaries=[12, 7, 5, 1, 1, 1])
    turn(state, "A", 5)
    play(state, "tributary 1 (12 pts)")
    turn(state, "A", 5)
    play(state, "tributary 2 (7 pts)")
    turn(state, "B", 1)
    turn(state, "B", 5)
    play(state, "tributary 3 (5 pts)")
    assert state.is_terminal()
    assert state.outcome()["scores"] == [12, 12] and state.returns() == [0.0, 1.0]
    assert state.outcome()["tie_break"] == "more tokens arrived"
    assert state.game.notation.summary(state)["reason"]["key"] == "limit_more"


def test_round_limit_tie_on_tokens_goes_to_the_earlier_last_arrival():
    """Two tokens home each and 10 points each; the Eel's second token arrived (round 2, its
    turn) after the Axolotl's (round 2, the turn before): the Axolotl wins."""
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7, round_limit=2,
                 tributaries=[5] * 6)
    for _ in range(2):
        for _seat in range(2):
            turn(state, legal(state)[0][-1], 5)
            play(state, legal(state)[0])
    assert state.is_terminal()
    assert state.outcome()["scores"] == [10, 10] and state.returns() == [1.0, 0.0]
    assert state.outcome()["tie_break"] == "last token arrived first"
    # first player seat 1: now the Eel's last arrival is the earlier one
    state = make([OPEN] * 4, animals=(AXO, EEL), first=1, event_roll=7, round_limit=2,
                 tributaries=[5] * 6)
    for _ in range(4):
        turn(state, legal(state)[0][-1], 5)
        play(state, legal(state)[0])
    assert state.returns() == [0.0, 1.0]


def test_round_limit_with_nobody_home_is_a_shared_win():
    """One round, nobody arrives: 0 points and no tokens each, so the seats share the win (the
    returns still add up to 1)."""
    state = make([OPEN] * 15, animals=(AXO, EEL, POR), event_roll=7, round_limit=1)
    for _ in range(3):
        turn(state, "A", 3)
    assert state.is_terminal()
    assert state.returns() == [1 / 3] * 3 and state.winners() == [0, 1, 2]
    assert state.outcome()["tie_break"] == "shared"
    assert state.game.notation.summary(state)["reason"]["key"] == "limit_shared"


def test_round_limit_counts_rounds_of_passed_over_seats():
    """A finished seat takes no turns but still counts in the round: the Eel, all home after
    round 3, is passed over, and the Axolotl's next turn ends round 4 and the game."""
    state = make([OPEN] * 4, animals=(EEL, AXO), event_roll=7, round_limit=4)
    for letter in "ABC":
        turn(state, letter, 5)
        play(state, legal(state)[0])
        turn(state, "A", 1)
    assert state.rounds == 3 and not state.is_terminal() and state.current_player() == 1
    turn(state, "A", 1)
    assert state.is_terminal() and state.rounds == 4 and where(state, 1, "A") == 4


# -- the wheel ---------------------------------------------------------------------------------
def _round(state) -> None:
    for _ in range(state.num_players):
        turn(state, legal(state)[0][-1], 1)


def _card_at(state, space: int) -> int:
    return state.observation(None)["spaces"][space - 1]["card"]


def test_wheel_turns_four_spaces_per_round_and_cycles_after_current_four():
    state = make(STANDARD_RING, animals=(AXO, POR), still=False,
                 markers=(("Pollution", 8), ("Fishing Nets", 15)))
    assert state.observation(None)["current"] == 1
    assert [_card_at(state, s) for s in range(1, 16)] == list(range(1, 16))
    _round(state)
    view = state.observation(None)
    assert view["current"] == 2
    assert _card_at(state, 5) == 1  # card 1 moved 4 spaces downstream
    assert all(_card_at(state, s) == (s - 1 - 4) % 15 + 1 for s in range(1, 16))
    assert view["spaces"][11]["marker"] == "Pollution"  # the marker travelled with card 8
    assert view["spaces"][3]["marker"] == "Fishing Nets"  # card 15 is now at space 4
    for _ in range(3):
        _round(state)
    assert state.observation(None)["current"] == 1
    assert [_card_at(state, s) for s in range(1, 16)] == list(range(1, 16))
    _round(state)
    assert state.observation(None)["current"] == 2
    assert _card_at(state, 5) == 1


def test_current_shift_adds_an_extra_step_after_the_round():
    state = make(STANDARD_RING, animals=(AXO, POR), deck=("Current Shift",), still=False)
    turn(state, "A", 6)
    attempt(state)
    assert state.observation(None)["extra_wheel_steps"] == 1
    assert state.current_player() == 1  # no target to choose
    turn(state, "A", 1)
    view = state.observation(None)
    assert view["current"] == 3
    assert _card_at(state, 9) == 1
    assert view["extra_wheel_steps"] == 0
    _round(state)
    assert state.observation(None)["current"] == 4


def test_wheel_shift_and_currents_are_ruleset_data():
    state = make(STANDARD_RING, animals=(AXO, POR), still=False, wheel_shift=1,
                 wheel_currents=15)
    _round(state)
    assert _card_at(state, 2) == 1


# -- special events ----------------------------------------------------------------------------
def test_event_needs_a_six_and_can_be_skipped():
    state = make(animals=(AXO, EEL), deck=("Tail Current",))
    turn(state, "A", 5)
    assert state.current_player() == 1  # no event on a 5
    turn(state, "A", 6)
    view = state.observation(None)
    assert view["event"] == "Tail Current" and view["deck_size"] == 11
    assert legal(state) == ["attempt challenge", "skip challenge"]
    play(state, "skip challenge")
    assert state.current_player() == 0 and where(state, 1, "A") == 6
    assert state.observation(None)["discard"] == ["Tail Current"]


def test_challenge_is_a_chance_node_that_can_fail():
    state = make(animals=(AXO, EEL), deck=("Tail Current",), challenge_success=0.25)
    turn(state, "A", 6)
    play(state, "attempt challenge")
    assert state.current_player() == CHANCE
    outcomes = sorted((state.action_to_string(a), p) for a, p in state.chance_outcomes())
    assert outcomes == [("challenge failed", 0.75), ("challenge passed", 0.25)]
    play(state, "challenge failed")
    assert state.current_player() == 1 and where(state, 0, "B") == 0


def test_default_challenge_has_a_single_outcome():
    state = make(animals=(AXO, EEL), deck=("Tail Current",))
    turn(state, "A", 6)
    play(state, "attempt challenge")
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == ["challenge passed"]


def test_extra_roll_moves_the_same_token_and_cannot_trigger_another_event():
    state = make(animals=(AXO, EEL), deck=("Extra Roll", "Tail Current"))
    turn(state, "A", 6)
    attempt(state)
    assert state.current_player() == CHANCE
    play(state, "roll 6")
    assert where(state, 0, "A") == 12
    assert state.current_player() == 1
    assert state.observation(None)["deck_size"] == 11


def test_tail_current_moves_one_own_token_forward():
    state = make(animals=(AXO, EEL), deck=("Tail Current",))
    turn(state, "A", 6)
    attempt(state)
    assert legal(state) == [f"target seat 0 token {x}" for x in "ABC"]
    play(state, "target seat 0 token B")
    assert where(state, 0, "B") == 1 and where(state, 0, "A") == 6


def test_backwash_moves_an_opponents_leading_token_back():
    state = make(animals=(AXO, EEL, STU), first=1, deck=("Backwash",))
    turn(state, "A", 4)  # Eel
    turn(state, "A", 2)  # Sturgeon
    turn(state, "A", 6)  # Axolotl
    attempt(state)
    assert legal(state) == ["target seat 1 token A", "target seat 2 token A"]
    play(state, "target seat 1 token A")
    assert where(state, 1, "A") == 3 and where(state, 2, "A") == 2


def test_detour_forces_the_rearmost_unstopped_token_on_the_next_turn_only():
    state = make(animals=(AXO, EEL), first=1, deck=("Detour",))
    turn(state, "A", 4)  # Eel
    turn(state, "A", 1)
    turn(state, "B", 2)  # Eel
    turn(state, "A", 6)
    attempt(state)
    assert legal(state) == ["target seat 1"]
    play(state, "target seat 1")
    assert state.current_player() == 1
    assert legal(state) == ["move token C"]  # A (4) and B (2) are ahead of C (Start)
    turn(state, "C", 3)
    turn(state, "B", 1)
    assert legal(state) == [f"move token {x}" for x in "ABC"]


def test_second_chance_removes_stop():
    state = make(ring_with({6: "Fishing Nets"}), animals=(POR, EEL), deck=("Second Chance",))
    turn(state, "A", 6)
    assert token(state, 0, "A")["stop"] == "next turn"
    attempt(state)
    assert legal(state) == ["target seat 0 token A"]
    play(state, "target seat 0 token A")
    assert token(state, 0, "A")["stop"] is None
    turn(state, "A", 1)
    assert "move token A" in legal(state)


def test_second_chance_without_stop_moves_the_rearmost_token():
    state = make(animals=(AXO, EEL), deck=("Second Chance",))
    turn(state, "A", 6)
    attempt(state)
    assert legal(state) == ["target seat 0 token B", "target seat 0 token C"]
    play(state, "target seat 0 token C")
    assert where(state, 0, "C") == 1


def test_second_chance_ignores_a_stop_being_served_this_turn():
    state = make(ring_with({3: "Fishing Nets"}), animals=(POR, EEL), deck=("Second Chance",),
                 wheel_shift=0)
    turn(state, "A", 3)  # stopped for the next turn
    turn(state, "A", 1)
    turn(state, "B", 6)  # A serves its STOP now; B draws Second Chance
    attempt(state)
    assert legal(state) == ["target seat 0 token C"]
    state2 = make(ring_with({3: "Fishing Nets"}), animals=(POR, EEL), deck=("Second Chance",),
                  wheel_shift=0, second_chance_counts_served_stop=True)
    turn(state2, "A", 3)
    turn(state2, "A", 1)
    turn(state2, "B", 6)
    attempt(state2)
    assert legal(state2) == ["target seat 0 token A"]


def test_cleanup_crew_removes_a_marker():
    state = make(STANDARD_RING, animals=(AXO, EEL), deck=("Cleanup Crew",),
                 markers=(("Pollution", 8), ("Fishing Nets", 15)))
    turn(state, "A", 6)
    attempt(state)
    assert legal(state) == ["remove Pollution marker", "remove Fishing Nets marker"]
    play(state, "remove Pollution marker")
    space8 = state.observation(None)["spaces"][7]
    assert space8["marker"] is None and space8["terrain"] == OPEN
    assert state.observation(None)["spaces"][14]["marker"] == "Fishing Nets"


def test_cleanup_crew_without_markers_moves_a_token_forward():
    state = make(animals=(AXO, EEL), deck=("Cleanup Crew",))
    turn(state, "A", 6)
    attempt(state)
    assert legal(state) == [f"target seat 0 token {x}" for x in "ABC"]
    play(state, "target seat 0 token A")
    assert where(state, 0, "A") == 7


def test_safe_shelter_improves_the_next_negative_result_only():
    state = make(ring_with({8: "Pollution", 10: "Pollution"}), animals=(AXO, EEL),
                 deck=("Safe Shelter",), wheel_shift=0)
    turn(state, "A", 6)
    attempt(state)
    play(state, "target seat 0 token A")
    turn(state, "A", 1)
    turn(state, "A", 1)  # Open Water: PASS does not use the shelter up
    assert token(state, 0, "A")["safe_shelter"]
    turn(state, "A", 1)
    turn(state, "A", 1)  # Pollution -2 improved to -1
    assert where(state, 0, "A") == 7 and not token(state, 0, "A")["safe_shelter"]
    turn(state, "A", 1)
    turn(state, "A", 3)  # Pollution again: full -2
    assert where(state, 0, "A") == 8


def test_river_support_turns_the_next_fishing_nets_into_pass():
    state = make(ring_with({9: "Fishing Nets"}), animals=(POR, EEL),
                 deck=("River Support",), wheel_shift=0)
    turn(state, "A", 6)
    attempt(state)
    play(state, "target seat 0 token A")
    assert token(state, 0, "A")["river_support"]
    turn(state, "A", 1)
    turn(state, "A", 3)
    a = token(state, 0, "A")
    assert a["position"] == 9 and a["stop"] is None and not a["river_support"]


def test_river_support_waits_for_fishing_nets():
    state = make(ring_with({7: "Pollution", 9: "Fishing Nets"}), animals=(POR, EEL),
                 deck=("River Support",))
    turn(state, "A", 6)
    attempt(state)
    play(state, "target seat 0 token A")
    turn(state, "A", 1)
    turn(state, "A", 1)  # Pollution: full -2, and the support is kept for the nets
    a = token(state, 0, "A")
    assert a["position"] == 5 and a["river_support"]


def test_habitat_squeeze_blocks_the_boost_on_the_next_turn_only():
    state = make(animals=(AXO, STU), deck=("Habitat Squeeze",))
    turn(state, "A", 6)
    attempt(state)
    play(state, "target seat 1")
    play(state, "move token A", "roll 2")
    assert state.current_player() == 0  # no Migration Burst window this turn
    assert where(state, 1, "A") == 2
    turn(state, "A", 1)
    play(state, "move token A", "roll 2")
    assert legal(state) == ["no ability", "migration burst"]


def test_pressure_wave_worsens_the_next_terrain_result_of_one_opponent_token():
    state = make(animals=(AXO, EEL), deck=("Pressure Wave",))
    turn(state, "A", 6)
    attempt(state)
    assert legal(state) == [f"target seat 1 token {x}" for x in "ABC"]
    play(state, "target seat 1 token B")
    turn(state, "B", 3)  # Open Water PASS worsened to -1
    assert where(state, 1, "B") == 2 and not token(state, 1, "B")["pressure_wave"]


def test_pressure_wave_leaves_plus_one_alone_but_is_used_up():
    state = make(ring_with({3: "Water Plants", 5: "Water Plants"}), animals=(EEL, AXO),
                 deck=("Pressure Wave",))
    turn(state, "A", 6)
    attempt(state)
    play(state, "target seat 1 token A")
    turn(state, "A", 3)  # Axolotl: Water Plants +1 stays +1
    assert where(state, 1, "A") == 4 and not token(state, 1, "A")["pressure_wave"]


def test_migration_push_moves_the_rearmost_token_two_spaces():
    state = make(animals=(AXO, EEL), deck=("Migration Push",))
    turn(state, "A", 6)
    attempt(state)
    assert legal(state) == ["target seat 0 token B", "target seat 0 token C"]
    play(state, "target seat 0 token B")
    assert where(state, 0, "B") == 2


def test_event_deck_reshuffles_its_discards_when_empty():
    state = make(animals=(AXO, EEL), deck=("Detour", "Current Shift"),
                 event_deck={"Detour": 1, "Current Shift": 1})
    turn(state, "A", 6)
    play(state, "skip challenge")
    turn(state, "A", 6)
    play(state, "skip challenge")
    assert state.observation(None)["deck_size"] == 0
    turn(state, "B", 6)
    assert state.current_player() == CHANCE
    assert sorted(legal(state)) == ["deck card Current Shift", "deck card Detour"]
    assert state.describe_action(state.legal_actions()[0], None) is None  # hidden order
    play(state, "deck card Detour", "deck card Current Shift")
    view = state.observation(None)
    assert view["event"] == "Detour" and view["deck_size"] == 1 and view["discard"] == []


# -- API behaviour -----------------------------------------------------------------------------
def test_illegal_actions_raise_and_change_nothing():
    state = make(ring_with({3: "Fishing Nets"}), animals=(POR, EEL), wheel_shift=0)
    before = state.to_dict()
    for text in ["roll 3", "regeneration", "tributary 1 (12 pts)", "target seat 1"]:
        with pytest.raises(IllegalActionError):
            play(state, text)
        assert state.to_dict() == before
    play(state, "move token A")
    with pytest.raises(IllegalActionError):
        play(state, "move token B")
    with pytest.raises(MalformedActionError):
        state.string_to_action("roll 7")


def test_strings_round_trip_and_junk_is_rejected():
    state = load_game(GAME, players=4).new_initial_state()
    for action in range(state.game.num_distinct_actions()):
        text = state.action_to_string(action)
        assert state.string_to_action(text) == action
        assert state.string_to_action(f"  {text.upper()} ") == action
    for junk in ["", "move token D", "roll", "tributary 13 (0 pts)", "pick Otter"]:
        with pytest.raises(MalformedActionError):
            state.string_to_action(junk)


def test_tributaries_override_takes_effect():
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7, tributaries=[20, 1, 1, 1, 1, 1])
    turn(state, "A", 5)
    assert legal(state)[0] == "tributary 1 (20 pts)" and len(legal(state)) == 6
    play(state, "tributary 1 (20 pts)")
    assert state.observation(None)["players"][0]["score"] == 20


@pytest.mark.parametrize("overrides", [
    {"no_such_rule": 1},
    {"tributaries": "12,11"},
    {"tributaries": [3, 2, 1]},  # fewer than three per player
    {"event_deck": {"Tsunami": 1}},
    {"modifier_order": ["boost"]},
    {"terrain_table": {AXO: {OPEN: "PASS"}}},
    {"challenge_success": 1.5},
    {"seat_animals": ["Otter", AXO]},
    {"wheel_shift": 1 << 40},  # the compiled rules compute with C ints: no overflow, refused
    {"die_sides": 1 << 31},
])
def test_bad_rulesets_raise(overrides):
    with pytest.raises(RulesetError):
        load_game(GAME, players=2, **overrides)


def test_seat_animals_fix_the_animals():
    game = load_game(GAME, players=2, seat_animals=[STU, AXO])
    state = game.new_initial_state()
    random_playout(state, random.Random(0))
    assert state.outcome()["animals"] == [STU, AXO]
    assert game.replay(state.history()) == state


def test_resample_reshuffles_only_the_undrawn_event_pile():
    state = make(animals=(AXO, EEL), deck=("Tail Current",))
    turn(state, "A", 6)
    play(state, "skip challenge")
    view = state.observation(1)
    rng = random.Random(0)
    orders = set()
    for _ in range(10):
        sample = state.resample(1, rng)
        assert sample.observation(1) == view
        assert sample.pile[:1] == state.pile[:1]  # the drawn card stays drawn
        orders.add(tuple(sample.pile))
        assert state.game.replay(sample.history()) == sample
    assert len(orders) > 1


def test_describe_action_and_render():
    state = make(STANDARD_RING, animals=(POR, EEL), markers=(("Pollution", 8),))
    assert state.describe_action(state.string_to_action("move token A"), 1) == (
        "seat 0 (Yangtze Porpoise): move token A (from Start)")
    play(state, "move token A")
    assert state.describe_action(state.string_to_action("roll 4"), None) == (
        "seat 0 (Yangtze Porpoise) rolls 4")
    picture = render(state.observation(0))
    plain = Text.from_markup(picture).plain
    assert "Current 1 of 4" in plain and "Pollution marker on Open Water" in plain
    assert "Echolocation (ready)" in plain and "Turbine Wake (ready)" in plain
    assert "Tributaries" in plain and "takes one free tributary" in plain


# -- legality check ----------------------------------------------------------------------------
def _legal_ids(state) -> set[int]:
    ids = range(-3, state.game.num_distinct_actions() + 3)
    return {a for a in ids if state._is_legal(a)}


def test_is_legal_agrees_with_the_legal_list_in_every_phase():
    """``_is_legal`` answers per phase without the list; walk whole games (every phase, the
    setup's weighted deals and markers included) and compare it with the list for every id."""
    seen = set()
    for players, overrides in ((2, {}), (3, {"challenge_success": 0.5}), (4, {})):
        game = load_game(GAME, players=players, **overrides)
        rng = random.Random(players)
        state = game.new_initial_state()
        while True:
            seen.add(state.phase)
            assert _legal_ids(state) == set(state.legal_actions())
            if state.is_terminal():
                break
            state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                               else rng.choice(state.legal_actions()))
    assert seen == set(range(14))


def test_is_legal_refuses_a_used_marker_card_and_a_drawn_out_deck_card():
    state = load_game(GAME, players=2).new_initial_state()
    play(state, *[f"deal {t}" for t in STANDARD_RING], "Pollution marker on space 8")
    nets_on_8 = state.string_to_action("Fishing Nets marker on space 8")
    assert not state._is_legal(nets_on_8)  # the Pollution marker lies on card 8 already
    assert not state._is_legal(state.string_to_action("Fishing Nets marker on space 2"))
    assert state._is_legal(state.string_to_action("Fishing Nets marker on space 15"))
    play(state, "Fishing Nets marker on space 15", "deck card Detour")
    assert not state._is_legal(state.string_to_action("deck card Detour"))  # one copy only
    assert state._is_legal(state.string_to_action("deck card Backwash"))
    with pytest.raises(IllegalActionError):
        play(state, "deck card Detour")


def test_a_certain_challenge_cannot_fail():
    state = make(animals=(AXO, EEL), deck=("Tail Current",))
    turn(state, "A", 6)
    play(state, "attempt challenge")
    assert not state._is_legal(state.string_to_action("challenge failed"))
    assert state._is_legal(state.string_to_action("challenge passed"))


# -- structured choices ------------------------------------------------------------------------
def kinds(state) -> dict[str, dict]:
    """Each choice's (kind, args) by label."""
    return {c["label"]: (c["kind"], c["args"]) for c in state.choices()}


def test_move_and_ability_choices_name_the_token_the_die_and_the_landing():
    state = make(ring_with({3: "Turbine", 6: "Turbine"}), animals=(POR, STU))
    assert kinds(state)["move token B"] == ("move", {"seat": 0, "token": "B", "space": 0})
    play(state, "move token A", "roll 2")
    assert kinds(state) == {
        "no ability": ("decline", {}),
        "echolocation +1": ("boost", {"boost": "Echolocation", "change": 1}),
        "echolocation -1": ("boost", {"boost": "Echolocation", "change": -1}),
    }
    play(state, "echolocation +1")  # lands on the Turbine at 3, but one ability a turn
    assert state.current_player() == 1
    play(state, "move token A", "roll 1")
    assert kinds(state)["migration burst"] == ("boost", {"boost": "Migration Burst",
                                                          "change": 2})
    play(state, "migration burst")
    play(state, "move token A", "roll 3")  # the Porpoise onto another Turbine: Pressure
    kind, args = kinds(state)["place pressure"]
    assert kind == "pressure" and args == {"pressure": "Turbine Wake", "space": 6, "card": 6}
    assert where(state, 0, "A") == 6
    play(state, "place pressure")
    assert state.observation(None)["players"][0]["pressure_marker_on_space"] == args["space"]
    assert state.observation(None)["spaces"][args["space"] - 1]["card"] == args["card"]


def test_landing_boost_choice_names_the_space_it_saves():
    state = make(ring_with({2: "Pollution"}), animals=(AXO, EEL))
    play(state, "move token A", "roll 2")
    assert kinds(state)["regeneration"] == ("boost", {"boost": "Regeneration", "space": 2,
                                                       "card": 2})


def test_event_choices_carry_the_card_and_the_target():
    state = make(animals=(AXO, EEL, STU), first=1, deck=("Backwash", "Detour"))
    turn(state, "A", 4)  # Eel
    turn(state, "A", 2)  # Sturgeon
    turn(state, "A", 6)  # Axolotl draws Backwash
    assert kinds(state) == {"attempt challenge": ("attempt", {"event": "Backwash"}),
                            "skip challenge": ("skip", {"event": "Backwash"})}
    attempt(state)
    assert kinds(state)["target seat 1 token A"] == (
        "target", {"event": "Backwash", "seat": 1, "token": "A", "space": 4})
    play(state, "target seat 1 token A")
    turn(state, "A", 6)  # Eel draws Detour
    attempt(state)
    assert kinds(state) == {"target seat 0": ("target", {"event": "Detour", "seat": 0}),
                            "target seat 2": ("target", {"event": "Detour", "seat": 2})}


def test_cleanup_choice_names_where_the_marker_lies_now():
    state = make(STANDARD_RING, animals=(AXO, EEL), deck=("Cleanup Crew",), still=False,
                 markers=(("Pollution", 8), ("Fishing Nets", 15)))
    turn(state, "A", 1)
    turn(state, "A", 1)  # the wheel turns: card 8 now lies at space 12
    turn(state, "A", 6)
    attempt(state)
    kind, args = kinds(state)["remove Pollution marker"]
    assert kind == "remove" and args == {"marker": "Pollution", "space": 12, "card": 8}
    assert state.observation(None)["spaces"][11]["marker"] == "Pollution"


def test_tributary_pick_and_chance_choices():
    state = make([OPEN] * 4, animals=(AXO, EEL), event_roll=7, tributaries=[9, 7, 5, 3, 2, 1])
    turn(state, "A", 5)
    assert kinds(state)["tributary 2 (7 pts)"] == ("tributary", {"number": 2, "points": 7})
    notation = state.game.notation
    for text, expected in [("roll 4", ("roll", {"value": 4})),
                           ("challenge failed", ("challenge", {"passed": False})),
                           ("first player seat 1", ("first", {"seat": 1})),
                           ("deck card Backwash", ("shuffle", {"event": "Backwash"}))]:
        assert notation.choice(state, state.string_to_action(text)) == expected
    fresh = load_game(GAME, players=2).new_initial_state()
    play(fresh, "deal Open Water")
    assert fresh.game.notation.choice(fresh, fresh.string_to_action("deal Rapids")) == (
        "deal", {"terrain": "Rapids", "card": 2})
    play(fresh, *[f"deal {t}" for t in STANDARD_RING[1:]])
    assert fresh.game.notation.choice(
        fresh, fresh.string_to_action("Pollution marker on space 8")) == (
        "marker", {"marker": "Pollution", "card": 8})
    rng = random.Random(0)
    while fresh.is_chance_node():
        fresh.apply_action(sample_chance(fresh, rng))
    assert {c["kind"] for c in fresh.choices()} == {"pick"}
    assert kinds(fresh)["pick European Eel"] == ("pick", {"animal": EEL})


# -- declared numbers --------------------------------------------------------------------------
def test_declared_action_ranges():
    for players in (2, 3, 4):
        game = load_game(GAME, players=players)
        info = game.info()
        assert info.num_distinct_actions == 107 and info.chance_offset == 32
        assert info.max_chance_outcomes == 63  # first player (32) .. last marker placement (94)
        state = game.new_initial_state()
        assert state.string_to_action("first player seat 0") == info.chance_offset
        last = state.string_to_action("Fishing Nets marker on space 15")
        assert last == info.chance_offset + info.max_chance_outcomes - 1
        assert state.string_to_action("tributary 1 (12 pts)") == last + 1
        assert info.utility_sum == 1.0 and game.game_type.utility == "constant_sum"


# The default deal that keeps every animal on Start: the card at space 1 at each Current (cards
# 1, 12, 8 and 4) is a Dam or a Pollution card.
STALL_RING = [
    "Dam", OPEN, "Fishing Nets", "Pollution", "Water Plants", "Rapids", "Turbine", "Dam", OPEN,
    "Fishing Nets", "Water Plants", "Pollution", "Rapids", "Turbine", OPEN,
]


def _stall_turn(state, stalling: int) -> None:
    """The stalling seat rolls 1 onto a card that is -1 or -2 for it (or 2 onto a -2 card);
    the other seats run token after token home with 5s and take the best tributary."""
    seat = state.current_player()
    view = state.observation(None)
    if seat == stalling:
        animal = view["players"][seat]["animal"]
        bad = RULEBOOK_TABLE[animal][view["spaces"][0]["terrain"]] in ("-1", "-2")
        roll = 1 if bad else 2
        assert bad or RULEBOOK_TABLE[animal][view["spaces"][1]["terrain"]] == "-2"
        turn(state, "A", roll)
        assert where(state, seat, "A") == 0
    else:
        turn(state, legal(state)[-1][-1], 5)
        if "choose tributary" == state.observation(None)["phase"]:
            play(state, legal(state)[0])


def _without_history(state) -> dict:
    """The position without its history and the round count (which only ``round_limit``
    reads: with ``null`` two positions that differ only in it play the same)."""
    doc = state.to_dict()["state"]
    del doc["actions"], doc["rounds"]
    return doc


def _assert_stalls_for_ever(state, stalling: int) -> None:
    """Play until only the stalling seat is left, then show a whole wheel cycle of rounds
    brings back exactly the same position: the game can repeat it for ever."""
    game = state.game
    while state.observation(None)["finish_order"] != [s for s in range(game.num_players)
                                                      if s != stalling]:
        _stall_turn(state, stalling)
    while state.observation(None)["current"] != 1:
        _stall_turn(state, stalling)
    before = _without_history(state)
    for _ in range(game.wheel_currents):
        _stall_turn(state, stalling)
    assert not state.is_terminal() and _without_history(state) == before


def test_the_rulebook_allows_an_endless_game():
    """Without the round limit (``round_limit`` null, the rulebook's game) a legal game never
    ends (the dice keep showing the same faces): no length bound."""
    from fieldcraft.games.against_the_current.bounds import start_stall

    for players in (2, 3, 4):
        for overrides in ({}, {"challenge_success": 0.5}):
            game = load_game(GAME, players=players, round_limit=None, **overrides)
            assert game.info().max_game_length is None and game.info().max_chance_nodes is None
            assert start_stall(game) is not None
    state = make(STALL_RING, animals=(AXO, EEL), still=False, round_limit=None,
                 markers=(("Pollution", 2), ("Fishing Nets", 9)))
    # the default rules but for the limit
    assert state.game.ruleset == load_game(GAME, players=2, round_limit=None).ruleset
    _assert_stalls_for_ever(state, 0)


def test_the_round_limit_ends_the_endless_game():
    """The same stall under the default rules: after round 100 the game is over, the
    stalled Axolotl's tokens on Start score nothing and the Eel, all home, wins."""
    state = make(STALL_RING, animals=(AXO, EEL), still=False,
                 markers=(("Pollution", 2), ("Fishing Nets", 9)))
    assert state.game.ruleset["round_limit"] == 100
    while not state.is_terminal():
        _stall_turn(state, 0)
    assert state.rounds == 100 and len(state.history()) <= state.game.info().max_game_length
    out = state.outcome()
    assert out["scores"][0] == 0 and out["scores"][1] > 0 and state.returns() == [0.0, 1.0]
    assert out["ended_by"] == "round limit (100 rounds)" and out["tie_break"] is None


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("overrides", [{}, {"challenge_success": 0.5}])
def test_default_rules_declare_finite_bounds_from_the_round_limit(players, overrides):
    """``P + 6 P L + 3 P`` decisions and ``setup + 4 P L`` chance outcomes (bounds.py argues
    them), for every player count of the default rules; the same argument with a limit of 2
    survives random games, most of which the limit cuts off."""
    from fieldcraft.core.conformance import check_game

    game = load_game(GAME, players=players, **overrides)
    info = game.info()
    assert info.max_game_length == players + 6 * players * 100 + 3 * players
    assert info.max_chance_nodes == 15 + 2 + 12 + 1 + 4 * players * 100
    short = load_game(GAME, players=players, round_limit=2, **overrides)
    assert short.info().max_game_length == players + 12 * players + 3 * players
    check_game(short, only=["declared_metadata_is_well_formed",
                            "random_playouts_end_within_the_declared_bounds"])


def test_round_limit_must_be_a_positive_number_of_rounds_or_null():
    for bad in (0, -3, 1.5, "100", True):
        with pytest.raises(RulesetError):
            load_game(GAME, players=2, round_limit=bad)
    assert load_game(GAME, players=2, round_limit=None).ruleset["round_limit"] is None


def test_a_slow_wheel_still_allows_a_stall_with_rolls_of_two():
    """With 15 Currents of 1 step every card comes under space 1, and only 12 are bad for the
    Axolotl; after each of the 3 good ones lies a -2 card, reached with a 2."""
    from fieldcraft.games.against_the_current.bounds import start_stall

    ring = ["Water Plants", "Pollution", "Water Plants", "Pollution", OPEN, OPEN, "Fishing Nets",
            "Fishing Nets", "Rapids", "Rapids", "Dam", "Dam", "Turbine", "Turbine", OPEN]
    state = make(ring, animals=(AXO, EEL), still=False, wheel_shift=1, wheel_currents=15,
                 round_limit=None, markers=(("Pollution", 6), ("Fishing Nets", 15)))
    assert start_stall(state.game) == 0 and state.game.info().max_game_length is None
    _assert_stalls_for_ever(state, 0)


def monotone_game(players: int = 2):
    """A river on which nobody can lose ground: all Open Water, PASS for everyone, Pressure on
    a terrain the wheel lacks, and no card that sets a token back."""
    table = {a: {t: "PASS" for t in TERRAINS} for a in RULEBOOK_TABLE}
    return load_game(GAME, players=players, terrain_counts={t: 6 if t == OPEN else 0
                                                             for t in TERRAINS},
                     markers=[], terrain_table=table,
                     pressure_terrain={a: "Turbine" for a in RULEBOOK_TABLE},
                     event_deck={"Extra Roll": 1, "Tail Current": 1, "Migration Push": 1})


def test_a_river_without_setbacks_has_a_true_length_bound():
    """Every roll then moves a token at least one space (but one Echolocation to 0), so at most
    3 * players * 7 + 1 rolls; the slowest game, all 1s, makes exactly that many."""
    from fieldcraft.core.conformance import check_game

    game = monotone_game(2)
    info = game.info()
    rolls = 3 * 2 * 7 + 1
    assert info.max_game_length == 2 + rolls * 5 + 6  # picks, 3 + 2 windows a roll, tributaries
    assert info.max_chance_nodes == 6 + 3 + 1 + rolls * 3
    state = game.new_initial_state()
    play(state, *["deal Open Water"] * 6, "deck card Extra Roll", "deck card Tail Current",
         "deck card Migration Push", f"pick {POR}", f"pick {EEL}", "first player seat 0")
    decisions, dice = 2, 0
    while not state.is_terminal():
        if state.is_chance_node():
            dice += 1
            play(state, "roll 1")
            continue
        options = legal(state)
        choice = "echolocation -1" if "echolocation -1" in options else options[0]
        play(state, choice)
        decisions += 1
    assert dice == rolls and decisions <= info.max_game_length
    assert len(state.history()) - decisions <= info.max_chance_nodes
    check_game(game, only=["declared_metadata_is_well_formed",
                           "random_playouts_end_within_the_declared_bounds"])


def test_a_setback_without_a_stall_from_start_derives_no_bound():
    """One Dam card on an otherwise harmless river: a token can lose ground (so the simple
    argument fails) but cannot be kept on Start; no bound is claimed for such rulesets."""
    from fieldcraft.games.against_the_current.bounds import setback_possible, start_stall

    game = monotone_game(2)
    counts = {t: 6 if t == OPEN else 0 for t in TERRAINS} | {"Dam": 1}
    table = {a: {t: "-1" if t == "Dam" else "PASS" for t in TERRAINS} for a in RULEBOOK_TABLE}
    game = load_game(GAME, players=2, **{**game.overrides, "terrain_counts": counts,
                                         "terrain_table": table, "round_limit": None})
    assert setback_possible(game) and start_stall(game) is None
    assert game.info().max_game_length is None


def test_outcome_counts_the_rounds_the_table_played():
    """A study's length in rounds reads the outcome (issue #33: Against the Current's had none,
    so its report gave only actions and decisions): the outcome names the rounds the whole
    table finished, which only ever grow, one at a time, as the last seat of a round ends its
    turn."""
    for players in (2, 4):
        rng = random.Random(players)
        state = load_game(GAME, players=players).new_initial_state()
        seen = [0]
        while not state.is_terminal():
            state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                               else rng.choice(state.legal_actions()))
            if state.rounds != seen[-1]:
                seen.append(state.rounds)
        assert seen == list(range(len(seen)))  # 0, 1, 2, ... with no step skipped
        assert state.outcome()["rounds"] == seen[-1] >= 1
