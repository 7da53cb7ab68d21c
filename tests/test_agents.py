"""Bots: legal moves only, reproducible, blind to hidden cards, and search finds obvious wins."""

from __future__ import annotations

import random

import pytest

from fieldcraft import FieldcraftError, load_game
from fieldcraft.agents import View, make_agent, parse_agent_spec
from fieldcraft.core.registry import default_ruleset, list_games
from fieldcraft.sim.bench import decision_positions
from fieldcraft.sim.simulate import play_game
from fieldcraft.sim.stats import wilson
from fieldcraft.sim.tournament import tournament

GAMES = [g for g in list_games()]
SPECS = ["random", "heuristic", "ismcts(iterations=25)"]


def default_players(name: str) -> int:
    return default_ruleset(name)["default_players"]


@pytest.mark.parametrize("name", GAMES)
def test_agents_play_only_legal_actions(name):
    """``play_game`` applies moves with ``apply_action``, which raises on an illegal one."""
    game = load_game(name, players=default_players(name))
    for i in range(3):
        specs = [SPECS[(s + i) % len(SPECS)] for s in range(game.num_players)]
        state = play_game(game, specs, seed=i)
        assert state.is_terminal()


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_decisions(name):
    game = load_game(name, players=default_players(name))
    specs = ["heuristic", "ismcts(iterations=20)"] * game.num_players
    a = play_game(game, specs[: game.num_players], seed=5)
    b = play_game(game, specs[: game.num_players], seed=5)
    assert a.history() == b.history()


def decision_states(name: str, count: int, seed: int = 0):
    return decision_positions(name, default_players(name), count, seed)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", SPECS)
def test_agents_cannot_see_hidden_cards(name, spec):
    """Give a bot two states that differ only in what its seat cannot see: same decision."""
    rng = random.Random(1)
    differing = 0
    for state in decision_states(name, 6):
        seat = state.current_player()
        twin = state.resample(seat, rng)
        assert twin.observation(seat) == state.observation(seat)
        if twin.to_dict()["state"] != state.to_dict()["state"]:
            differing += 1
        first = make_agent(spec, seed=7).act(View(state, seat))
        second = make_agent(spec, seed=7).act(View(twin, seat))
        assert first == second
    assert differing > 0 or name == "against-the-current"  # a game with little hidden


def test_agent_specs_are_parsed_and_checked():
    assert parse_agent_spec("ismcts(iterations=500, c=0.5)") == (
        "ismcts", {"iterations": 500, "c": 0.5})
    assert make_agent("ismcts(time=0.5)").time == 0.5
    with pytest.raises(FieldcraftError, match="unknown agent"):
        make_agent("genius")
    with pytest.raises(FieldcraftError, match="bad options"):
        make_agent("ismcts(depth=3)")
    with pytest.raises(FieldcraftError, match="bad options"):
        make_agent("ismcts(iterations=0)")


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert low < 0.5 < high and abs((low + high) / 2 - 0.5) < 1e-9
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert 0.0 < wilson(0, 10)[1] < 0.35


def test_tournament_rotates_seats_and_adds_up():
    result = tournament("spy-tracker", 2, ["heuristic", "random"], games=6, seed=3)
    rows = {row["agent"]: row for row in result["agents"]}
    assert rows["heuristic"]["games"] == rows["random"]["games"] == 6
    assert rows["heuristic"]["wins"] + rows["random"]["wins"] == 6
    assert rows["heuristic"]["mu"] > rows["random"]["mu"]  # it won more, so rates higher
    again = tournament("spy-tracker", 2, ["heuristic", "random"], games=6, seed=3)
    assert again == result


# ----------------------------------------------------------------- obvious wins for search
def test_ismcts_retires_a_seat_it_has_spied_when_that_wins():
    from tests.games.test_under_current import act, draw_rest, put_in_row, setup

    roles = ["Yellow Agent", "Blue Chief", "Red Chief", "Blue Informer", "Green Agent"]
    hands = [["Blue/SPY", "Blue/RETIRE"], ["Red/PEEK", "Red/SWAP"], ["Blue/PEEK", "Red/SCAN"],
             ["Green/SCAN", "Yellow/SCAN"]]
    s = setup(4, roles, hands)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Red/DROP", "Red/FETCH"])  # 2-2: Yellow's tie
    act(s, "pass Blue/SPY to seat 1", "use", "spy on seat 2")
    draw_rest(s, ["Yellow/SWAP"])
    act(s, "pass Red/PEEK to seat 3", "use")
    draw_rest(s, ["Blue/SNATCH"])
    act(s, "pass Blue/PEEK to seat 3", "use")
    draw_rest(s, ["Red/SNATCH"])
    act(s, "pass Yellow/SCAN to seat 0", "use", "scan seat 1")
    draw_rest(s, ["Blue/FETCH"])
    act(s, "pass Blue/RETIRE to seat 1", "use")
    assert s.current_player() == 0 and s.phase_name == "retire"
    assert s.observation(0)["roles"][2] == ["Red Chief"]
    choice = make_agent("ismcts(iterations=400)", seed=1).act(View(s, 0))
    assert s.action_to_string(choice) == "retire seat 2 as Red"


def test_ismcts_calls_an_impossible_bid():
    game = load_game("spy-tracker", players=2, first_bidder="seat 1")
    s = game.new_initial_state()
    spies = [c for c in game.card_names if c.count("/") == 2]
    london = [c for c in spies if c.endswith("London")][:6]
    moscow = [c for c in spies if c.endswith("Moscow")][:6]
    for card in london:
        s.apply_action(s.string_to_action(f"deal {card} to seat 0"))
    for card in moscow:
        s.apply_action(s.string_to_action(f"deal {card} to seat 1"))
    # 12 Moscow among 12 cards cannot be true: seat 0 holds six London spies
    s.apply_action(s.string_to_action("bid 12 Moscow"))
    s.apply_action(s.string_to_action("next: seat 0"))
    assert s.current_player() == 0
    choice = make_agent("ismcts(iterations=300)", seed=2).act(View(s, 0))
    assert s.action_to_string(choice) == "call"
    assert make_agent("heuristic", seed=2).act(View(s, 0)) == choice


def test_tournament_lists_a_repeated_agent_once():
    result = tournament("spy-tracker", 3, ["heuristic", "random", "random"], games=3, seed=1)
    assert [row["agent"] for row in result["agents"]] == ["heuristic", "random"]
    rows = {row["agent"]: row for row in result["agents"]}
    assert rows["heuristic"]["games"] == 3 and rows["random"]["games"] == 6
