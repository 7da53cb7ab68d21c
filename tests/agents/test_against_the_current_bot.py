"""Against the Current bots: the heuristic plays the rules' logic, the race model ranks seats
sensibly, and ISMCTS on top of it finds an obvious win.

Positions are built by replaying action strings with chosen chance outcomes (terrain deal,
event pile, animals, first player, every die roll), so each test reads like a game at a table.
The wheel turns by 0 spaces unless a test says otherwise, so a test about one decision does not
have to track the wheel; nothing here depends on it.
"""

from __future__ import annotations

import random

from fieldcraft.agents import View, make_agent
from fieldcraft.core import load_game
from fieldcraft.games.against_the_current import bot
from fieldcraft.games.against_the_current.layout import EVENTS, TERRAINS

GAME = "against-the-current"
AXO, POR, EEL, STU = "Axolotl", "Yangtze Porpoise", "European Eel", "Chinese Sturgeon"
OPEN = "Open Water"


def setup(ring: list[str], animals: tuple[str, ...], **overrides):
    """Deal ``ring`` as spaces 1..N, stack the event pile in rule-table order, pick the animals
    in seat order and let seat 0 start; no markers and a still wheel unless overridden."""
    overrides.setdefault("wheel_shift", 0)
    overrides.setdefault("markers", [])
    overrides.setdefault("terrain_counts", {t: ring.count(t) for t in TERRAINS})
    game = load_game(GAME, players=len(animals), **overrides)
    state = game.new_initial_state()
    play(state, *[f"deal {t}" for t in ring], *[f"deck card {e}" for e in EVENTS],
         *[f"pick {a}" for a in animals], "first player seat 0")
    return state


def play(state, *texts: str) -> None:
    for text in texts:
        state.apply_action(state.string_to_action(text))


def turn(state, letter: str, roll: int) -> None:
    """Move a token with a chosen roll, declining every ability window."""
    seat = state.current_player()
    play(state, f"move token {letter}", f"roll {roll}")
    while state.current_player() == seat and state.string_to_action("no ability") in \
            state.legal_actions():
        play(state, "no ability")


def heuristic_choice(state, seed: int = 0) -> str:
    view = View(state, state.current_player())
    return state.action_to_string(bot.choose(view, random.Random(seed)))


def where(state, seat: int, letter: str) -> int:
    return state.observation(None)["players"][seat]["tokens"]["ABC".index(letter)]["position"]


def options(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


# -- choosing a token -----------------------------------------------------------------------------
# The Porpoise's token A leads at space 6; B and C wait on Start. Spaces 7-13 are Pollution
# (-2 for a Porpoise, and Echolocation cannot reach past them), spaces 1-6 Open Water.
POLLUTED_AHEAD = [OPEN] * 6 + ["Pollution"] * 7 + [OPEN] * 2


def lead_at_six(ring: list[str]):
    state = setup(ring, (POR, EEL))
    for letter_roll in (3, 3):
        turn(state, "A", letter_roll)  # seat 0: the Porpoise's A
        turn(state, "A", 1)  # seat 1: the Eel's A, onto Open Water
    assert where(state, 0, "A") == 6 and state.current_player() == 0
    return state


def test_heuristic_moves_a_token_away_from_bad_terrain():
    state = lead_at_six(POLLUTED_AHEAD)
    assert options(state) == ["move token A", "move token B", "move token C"]
    for seed in range(3):
        assert heuristic_choice(state, seed) in ("move token B", "move token C")


def test_heuristic_pushes_the_leading_token_on_a_clean_river():
    """The same position with no Pollution: now the lead should run for Sanctuary, which shows
    the previous test's choice was made because of the terrain."""
    state = lead_at_six([OPEN] * 15)
    for seed in range(3):
        assert heuristic_choice(state, seed) == "move token A"


# -- Boosts ---------------------------------------------------------------------------------------
DAM_ON_3 = [OPEN, OPEN, "Dam"] + [OPEN] * 12


def test_migration_burst_is_kept_on_good_terrain_and_used_to_leap_a_dam():
    state = setup(DAM_ON_3, (STU, EEL))
    play(state, "move token A", "roll 3")  # would land on the Dam: -2 for a Sturgeon
    assert options(state) == ["no ability", "migration burst"]
    assert heuristic_choice(state) == "migration burst"
    play(state, "migration burst")
    assert where(state, 0, "A") == 5

    for roll in (1, 4):  # Open Water either way: the Boost is worth more later
        state = setup(DAM_ON_3, (STU, EEL))
        play(state, "move token A", f"roll {roll}")
        assert heuristic_choice(state) == "no ability"


def test_echolocation_is_kept_for_a_landing_worth_changing():
    state = setup(DAM_ON_3, (POR, STU))
    play(state, "move token A", "roll 4")  # Open Water; +1 would only gain a space
    assert "echolocation +1" in options(state)
    assert heuristic_choice(state) == "no ability"
    state = setup(DAM_ON_3, (POR, STU))
    play(state, "move token A", "roll 3")  # the Dam is only -1 for a Porpoise: not worth it
    assert heuristic_choice(state) == "no ability"
    state = setup([OPEN, OPEN, "Pollution"] + [OPEN] * 12, (POR, STU))
    play(state, "move token A", "roll 3")  # Pollution is -2: step past it
    assert heuristic_choice(state) == "echolocation +1"


def test_a_boost_that_reaches_sanctuary_is_used():
    for animal, roll, expected in ((STU, 2, "migration burst"), (POR, 3, "echolocation +1"),
                                   (STU, 1, "no ability")):  # 1 + 2 would still fall short
        state = setup([OPEN] * 15, (animal, EEL))
        for _ in range(3):
            turn(state, "A", 4)
            turn(state, "A", 1)
        assert where(state, 0, "A") == 12
        play(state, "move token A", f"roll {roll}")
        assert heuristic_choice(state) == expected


def test_slip_through_and_regeneration_are_used_on_their_terrain():
    state = setup(DAM_ON_3, (EEL, STU))
    play(state, "move token A", "roll 3")  # Dam: -2 for an Eel
    assert options(state) == ["no ability", "slip through"]
    assert heuristic_choice(state) == "slip through"

    state = setup([OPEN, OPEN, "Pollution"] + [OPEN] * 12, (AXO, STU))
    play(state, "move token A", "roll 3")  # Pollution: -2 for an Axolotl
    assert options(state) == ["no ability", "regeneration"]
    assert heuristic_choice(state) == "regeneration"


# -- tributaries ----------------------------------------------------------------------------------
def test_heuristic_claims_the_highest_tributary_left():
    state = setup([OPEN] * 5, (AXO, EEL))  # Sanctuary is space 6
    turn(state, "A", 5)
    turn(state, "A", 5)
    play(state, "move token A", "roll 1")  # seat 0 arrives first
    assert heuristic_choice(state) == "tributary 1 (12 pts)"
    play(state, "tributary 1 (12 pts)")
    play(state, "move token A", "roll 2")  # seat 1 arrives: 12 is gone
    assert "tributary 12 (1 pts)" in options(state)
    assert heuristic_choice(state) == "tributary 2 (11 pts)"


# -- the race model -------------------------------------------------------------------------------
def test_heuristic_returns_ranks_the_leader_first():
    state = setup([OPEN] * 15, (AXO, EEL, STU))
    for _ in range(3):  # seat 0 rolls 5s, seat 1 rolls 3s, seat 2 rolls 1s, each on token A
        turn(state, "A", 5)
        turn(state, "A", 3)
        turn(state, "A", 1)
    estimate = state.heuristic_returns()
    assert len(estimate) == 3 and all(0.0 <= x <= 1.0 for x in estimate)
    assert abs(sum(estimate) - 1.0) < 1e-9
    assert estimate[0] > estimate[1] > estimate[2]
    assert estimate[0] > 0.5


def test_heuristic_returns_values_claimed_tributaries_and_unused_boosts():
    state = setup([OPEN] * 5, (AXO, EEL))
    turn(state, "A", 5)
    turn(state, "A", 5)
    play(state, "move token A", "roll 1", "tributary 1 (12 pts)")
    ahead = state.heuristic_returns()
    assert ahead[0] > 0.6 > ahead[1]  # seat 0 banked 12 points; seat 1 will get 11 at best

    level = setup([OPEN] * 15, (STU, POR))
    play(level, "move token A", "roll 2", "migration burst")  # Boost spent for 2 spaces
    spent = level.clone()
    level = setup([OPEN] * 15, (STU, POR))
    play(level, "move token A", "roll 4", "no ability")  # same square, Boost still in hand
    assert where(spent, 0, "A") == where(level, 0, "A") == 4
    assert level.heuristic_returns()[0] > spent.heuristic_returns()[0]


def test_heuristic_returns_at_the_end_are_the_returns():
    state = setup([OPEN] * 3, (AXO, EEL), tributaries=[6, 5, 4, 3, 2, 1])
    rng = random.Random(0)
    while not state.is_terminal():  # play it out with the heuristic on both sides
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))] if state.is_chance_node() else
                           bot.choose(View(state, state.current_player()), rng))
    assert state.returns() in ([1.0, 0.0], [0.0, 1.0])
    assert state.heuristic_returns() == state.returns()


# -- search ---------------------------------------------------------------------------------------
def one_arrival_decides():
    """Seat 0's token A and seat 1's token A both wait one space short of Sanctuary (space 9);
    the first to arrive takes the 20-point tributary and the game (the rest are worth 1)."""
    state = setup([OPEN] * 8, (AXO, EEL), tributaries=[20, 1, 1, 1, 1, 1])
    for roll in (5, 3):
        turn(state, "A", roll)
        turn(state, "A", roll)
    assert where(state, 0, "A") == where(state, 1, "A") == 8
    return state


def test_ismcts_takes_the_arrival_that_wins():
    state = one_arrival_decides()
    agent = make_agent("ismcts(iterations=300)", seed=1)
    assert state.action_to_string(agent.act(View(state, 0))) == "move token A"
    play(state, "move token A", "roll 2")
    assert state.action_to_string(agent.act(View(state, 0))) == "tributary 1 (20 pts)"


def test_heuristic_takes_the_arrival_that_wins():
    state = one_arrival_decides()
    assert heuristic_choice(state) == "move token A"


# -- every decision -------------------------------------------------------------------------------
def test_heuristic_is_legal_and_repeatable_in_every_kind_of_decision():
    """Whole games at every table size against random seats: every choice is legal (the agent
    wrapper raises otherwise), and the same seed gives the same game."""
    seen = set()
    for players in (2, 3, 4):
        game = load_game(GAME, players=players)
        for seed in range(4):
            histories = []
            for _ in range(2):
                rng = random.Random(seed)
                agents = [make_agent("heuristic" if s == seed % players else "random",
                                     seed=seed * 10 + s) for s in range(players)]
                state = game.new_initial_state()
                while not state.is_terminal():
                    player = state.current_player()
                    if player < 0:
                        legal = state.legal_actions()
                        state.apply_action(legal[rng.randrange(len(legal))])
                        continue
                    seen.add(state.observation(None)["phase"])
                    state.apply_action(agents[player].act(View(state, player)))
                histories.append(state.history())
            assert histories[0] == histories[1]
    assert {"choose token", "after roll", "landed", "choose tributary", "event challenge",
            "event target", "pick animals"} <= seen


def test_the_bot_and_the_race_model_read_one_river_mix():
    """The animal choice and the race model price the same river: the setup mix (each marker
    turns an Open Water card into its hazard) and the same Boost values, kept in one place."""
    from fieldcraft.games.against_the_current import search

    game = load_game(GAME, players=2)
    assert dict(zip(TERRAINS, game.setup_mix, strict=True)) == {
        OPEN: 1, "Pollution": 3, "Fishing Nets": 3, "Water Plants": 2, "Rapids": 2, "Dam": 2,
        "Turbine": 2}
    assert bot.BOOST_SPACES is search.BOOST_SPACES
    assert game.search_model.race_model()[2] is search.BOOST_SPACES
    # the Axolotl loses Pollution -2 x3, Nets -1 x3, Rapids, Dam, Turbine -1 x2 each and gains
    # on the 2 Water Plants: 13 spaces over 15 cards, about 14 landings, less a 1.5-space Boost
    assert abs(bot._animal_cost(game, 0) - (13 / 15 * 14 - 1.5)) < 1e-12
