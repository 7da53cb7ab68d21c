"""Rule tests for Undercover (engine ``undercover``), standard and Classified.

Positions are built in two documented ways:

* ``new_state`` replays the setup with chosen chance outcomes (starting seat, colours, Point
  Token order per lane, pile order), so everything it builds is a real game state;
* ``put_agent`` / ``set_staffer`` then move pieces directly through the engine's own board and
  track bookkeeping (``_put``/``_lift``, ``occ``), and ``state.turn`` is set to skip the first
  round. Every test that uses them calls ``check_invariants`` so a helper cannot build a state
  the engine would consider broken.
"""

from __future__ import annotations

import json
import random

import pytest

from fieldcraft.core import (
    TERMINAL,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
    load_game,
    random_playout,
    sample_chance,
)
from fieldcraft.games.undercover.grid import N_AGENTS, N_COLOURS, agent_faces
from fieldcraft.games.undercover.render import render

COLOURS = ["Purple", "Blue", "Green", "Yellow", "Orange", "Red"]
LANE = {name: i for i, name in enumerate(COLOURS)}
ALL_AGENTS = [f"{COLOURS[agent_faces(a)[0]]}/{COLOURS[agent_faces(a)[1]]}" for a in range(12)]


def agent_id(name: str) -> int:
    return ALL_AGENTS.index(name)


def new_state(players, colours, *, start=0, tokens=None, piles=None, **rules):
    """A fresh game whose setup chance nodes are the ones given.

    ``colours`` is by seat; ``tokens`` maps a lane colour to its Point Token values in space
    order (default ascending); ``piles`` is two lists of Agent names, bottom first.
    """
    game = load_game("undercover", players=players, **rules)
    state = game.new_initial_state()

    def do(text):
        state.apply_action(state.string_to_action(text))

    if game.random_start:
        do(f"first seat {start}")
    for k in range(players):
        do(f"colour {colours[(start + k) % players]}")
    if not game.classified:
        for lane in COLOURS:
            for value in (tokens or {}).get(lane, game.token_values):
                do(f"token {value}")
    if piles is None:
        piles = [ALL_AGENTS[:6], ALL_AGENTS[6:]]
    for pile in piles:
        for name in pile:
            do(f"deal {name}")
    assert not state.is_chance_node()
    state.check_invariants()
    return state


def piles_with_tops(top_a, top_b, bottom_a=None):
    """Two piles of six with the given tops (and optionally the bottom of pile A)."""
    rest = [n for n in ALL_AGENTS if n not in (top_a, top_b, bottom_a)]
    if bottom_a:
        return [[bottom_a] + rest[:4] + [top_a], rest[4:] + [top_b]]
    return [rest[:5] + [top_a], rest[5:] + [top_b]]


def cell(state, x, y):
    g = state.game
    return g.a2p[y * g.width + x]


def put_agent(state, name, x, y, flipped=False):
    """Move an Agent from wherever it is onto cell (x, y) (test helper; see module doc)."""
    a = agent_id(name)
    where = state.tcell[a]
    for pile in state.piles:
        if a in pile:
            pile.remove(a)
    if where >= 0:
        state._lift(where)
    if flipped:
        state.up[a] = 1
        state.revealed[a] = 1
        state.tcol[a] = agent_faces(a)[1]
    state._put(a, cell(state, x, y))


def set_staffer(state, seat, lane, pos, take=False):
    """Put a Staffer on a track space; ``take`` also gives it the token there (test helper)."""
    g = state.game
    lane = LANE[lane] if isinstance(lane, str) else lane
    i = seat * N_COLOURS + lane
    base = lane * g.lane_size
    if state.pos[i]:
        state.occ[base + state.pos[i]] -= 1
    state.pos[i] = pos
    if pos:
        state.occ[base + pos] += 1
    if take:
        value = state.tokens[base + pos]
        assert value >= 0, "no token on that space"
        state.tokens[base + pos] = -1
        state.taken[i] = value
        state.frozen[i] = 1
        state.ntaken[seat] += 1
        spaces = [s for s in range(g.lane_size) if state.tokens[base + s] >= 0]
        state.last_tok[lane] = max(spaces) if spaces else 0


def play(state, *texts):
    for text in texts:
        state.apply_action(state.string_to_action(text))


def legal_strings(state):
    return [state.action_to_string(a) for a in state.legal_actions()]


def staffer(state, seat, lane):
    return state.pos[seat * N_COLOURS + LANE[lane]]


# -- the rulebook's examples ---------------------------------------------------------------------


def purple_example_state():
    """5 players (all HQs), Purple first. A Blue Agent stands right of the Green HQ; the Blue
    Agent whose back is Green tops pile A; the Yellow lane has token 8 on space 5 and the
    Yellow player's Staffer already frozen on space 4; Purple's Yellow Staffer is on space 3."""
    state = new_state(
        5, ["Purple", "Yellow", "Red", "Blue", "Green"],
        tokens={"Yellow": [4, 8, 5, 6, 7]},
        piles=piles_with_tops("Blue/Green", "Yellow/Orange"),
    )
    put_agent(state, "Blue/Purple", 20, 17)  # right of the Green HQ at (19, 17)
    set_staffer(state, 1, "Yellow", 4, take=True)
    set_staffer(state, 0, "Yellow", 3)
    state.turn = 5  # the first round (no evaluation) is over; seat 0 to move
    state.check_invariants()
    return state


def test_purple_example_turn():
    state = purple_example_state()
    # Yellow is Purple's Opposite Side: the Yellow Agent on pile B may not be activated.
    assert "draw top B" not in legal_strings(state)
    with pytest.raises(IllegalActionError):
        play(state, "draw top B")
    play(state, "draw top A")
    assert state.files[0] == agent_id("Blue/Green")  # the Instructions File goes on it
    play(state, "flip")
    assert state.observation(0)["held"]["colour"] == "Green"
    assert "flip" not in legal_strings(state)  # flipping is once only
    assert "place 20,18" in legal_strings(state)  # beside the Yellow HQ and the Blue Agent
    play(state, "place 20,18")
    assert staffer(state, 0, "Green") == 2  # flipped: 2 spaces
    assert staffer(state, 0, "Blue") == 1
    # Yellow: one space to 4, occupied, so on to 5, which holds the 8: taken and frozen.
    assert staffer(state, 0, "Yellow") == 5
    assert state.taken[0 * N_COLOURS + LANE["Yellow"]] == 8
    assert state.frozen[0 * N_COLOURS + LANE["Yellow"]] == 1
    assert state.observation(0)["lanes"][LANE["Yellow"]]["tokens"][4] is None
    for lane in ("Purple", "Orange", "Red"):
        assert staffer(state, 0, lane) == 0
    assert state.scores()[0] == 16  # Yellow is Purple's Opposite Side: x2
    assert state.current_player() == 1
    state.check_invariants()


def test_frozen_staffer_never_moves_again():
    state = purple_example_state()
    play(state, "draw top A", "flip", "place 20,18")
    put_agent(state, "Orange/Red", 16, 18)  # left of the Red HQ
    state.cur = 0  # Purple again
    state.check_invariants()
    play(state, "take 16,18", "keep", "place 19,19")  # below the Yellow HQ
    assert staffer(state, 0, "Orange") == 1  # the meeting did count...
    assert staffer(state, 0, "Yellow") == 5  # ...but the Yellow Staffer is frozen
    assert state.taken[LANE["Yellow"]] == 8


def test_joker_fits_where_no_agent_can():
    """4 players without Blue and Yellow: the Blue HQ's gap touches Purple, Green and Orange.
    Only a Joker may go there, and it triggers all three."""
    colours = ["Purple", "Green", "Orange", "Red"]
    state = new_state(4, colours)
    state.turn = 4
    gap = "place 18,17"
    assert state.observation(0)["jokers"] == ["unused"] * 4
    for a in range(N_AGENTS):
        for choice in ("keep", "flip"):
            trial = state.clone()
            for pile in trial.piles:
                if a in pile:
                    pile.remove(a)
            trial.piles[0].append(a)  # put this Agent on top of pile A
            face = agent_faces(a)[0]
            if face == (LANE[trial.seat_label(0)] + 3) % 6:
                continue  # Purple may not take a Yellow Agent
            play(trial, "draw top A", choice)
            assert gap not in legal_strings(trial), (ALL_AGENTS[a], choice)
    play(state, "take joker")
    assert "flip" not in legal_strings(state)  # a Joker never flips: straight to placing
    assert gap in legal_strings(state)
    play(state, gap)
    assert [staffer(state, 0, c) for c in COLOURS] == [1, 0, 1, 0, 1, 0]
    assert state.observation(0)["jokers"][0] == "placed"
    assert state.current_player() == 1
    # A placed Joker cannot be picked up again, and seat 0 has no Joker left.
    state.turn = 8
    state.cur = 0
    assert "take joker" not in legal_strings(state)
    assert "take 18,17" not in legal_strings(state)
    state.check_invariants()


def test_opposite_side_ban_and_bottom_of_pile_special_case():
    piles = piles_with_tops("Yellow/Green", "Yellow/Orange", bottom_a="Red/Orange")
    state = new_state(2, ["Purple", "Blue"], piles=piles)
    # No Joker in a 2-player game and both tops are Yellow: only the bottoms remain.
    assert legal_strings(state) == ["draw bottom A", "draw bottom B"]
    play(state, "draw bottom A")
    assert state.held == agent_id("Red/Orange")
    assert state.piles[0][-1] == agent_id("Yellow/Green")  # the top did not move
    play(state, "keep", "place 16,18")  # a Red Agent left of the Red HQ
    state.check_invariants()
    assert state.current_player() == 1
    assert "draw top A" in legal_strings(state)  # Blue may take the Yellow top


def test_agent_revealed_as_opposite_side_after_flip_is_allowed():
    piles = piles_with_tops("Green/Yellow", "Blue/Green")
    state = new_state(2, ["Purple", "Blue"], piles=piles)
    assert "draw top A" in legal_strings(state)  # shows Green: fine for Purple
    play(state, "draw top A", "flip")
    assert state.observation(0)["held"]["colour"] == "Yellow"
    assert legal_strings(state)  # and it may be placed
    play(state, "place 19,19")  # below the Yellow HQ
    # But from now on Purple may not pick that Yellow Agent up from the board.
    state.cur = 0
    state._move_file(0, -1)  # Purple's File off it: only the colour bars it now
    state.check_invariants()
    assert "take 19,19" not in legal_strings(state)
    state.cur = 1
    assert "take 19,19" in legal_strings(state)


def test_diagonal_special_case_skips_evaluation():
    """A 7x3 table with the HQs in the corner: a Purple Agent touches Green, Yellow or Orange
    wherever it could go orthogonally, so it goes diagonally and nothing is evaluated. (The
    table is the narrowest the 18 tiles of a 2-player game cannot fill: see
    test_a_board_the_tiles_can_fill_is_refused.)"""
    rules = {"board_width": 7, "board_height": 3, "hq_origin": [0, 0]}
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Purple/Red", "Blue/Green"),
                      **rules)
    put_agent(state, "Green/Blue", 0, 2)  # below the Red HQ
    state.turn = 2
    state.check_invariants()
    play(state, "draw top A", "keep")
    assert legal_strings(state) == ["place 3,2"]  # diagonal to the Yellow HQ only
    text = state.describe_action(state.string_to_action("place 3,2"), None)
    assert "no evaluation" in text
    play(state, "place 3,2")
    assert [staffer(state, 0, c) for c in COLOURS] == [0] * 6
    assert state.current_player() == 1
    state.check_invariants()


def test_orthogonal_placement_does_evaluate_after_first_round():
    rules = {"board_width": 7, "board_height": 3, "hq_origin": [0, 0]}
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Purple/Red", "Blue/Green"),
                      **rules)
    state.turn = 2
    play(state, "draw top A", "keep")
    assert legal_strings(state) == ["place 0,2"]  # below the Red HQ
    play(state, "place 0,2")
    assert staffer(state, 0, "Purple") == 1 and staffer(state, 0, "Red") == 1


def test_first_round_has_no_evaluation():
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Blue/Green", "Green/Blue"))
    play(state, "draw top A", "keep", "place 18,16")  # above the Blue HQ
    play(state, "draw top B", "keep", "place 19,16")  # above the Green HQ, beside Blue Agent
    assert state.pos == [0] * 12
    play(state, legal_strings(state)[0])
    if state.phase == 2:
        play(state, "keep")
    play(state, legal_strings(state)[0])
    assert sum(state.pos[:6]) >= 1  # round 2: seat 0's meeting counts


def test_must_move_unless_flipped_and_file_blocks():
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Blue/Green", "Red/Orange"))
    put_agent(state, "Purple/Blue", 17, 16)  # above the Purple HQ
    state.turn = 2
    state.check_invariants()
    play(state, "take 17,16", "keep")
    assert "place 17,16" not in legal_strings(state)  # not flipped: must go elsewhere
    with pytest.raises(IllegalActionError):
        play(state, "place 17,16")
    trial = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Blue/Green", "Red/Orange"))
    put_agent(trial, "Purple/Blue", 17, 16)
    trial.turn = 2
    play(trial, "take 17,16", "flip")  # now Blue: still fits above the Purple HQ
    assert "place 17,16" in legal_strings(trial)
    play(trial, "place 17,16")
    # Seat 0's File is on it: seat 1 may not pick it up.
    assert trial.current_player() == 1
    assert "take 17,16" not in legal_strings(trial)
    trial.check_invariants()


def test_colour_match_rule():
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Green/Blue", "Red/Orange"))
    play(state, "draw top A", "keep")
    legal = legal_strings(state)
    assert "place 19,16" in legal  # above the Green HQ
    assert "place 18,16" in legal  # above the Blue HQ
    assert "place 17,16" not in legal  # above Purple: not Green's colour or neighbour
    assert "place 20,18" in legal  # right of the Yellow HQ (Green's other neighbour)
    assert "place 16,17" not in legal  # left of the Purple HQ
    assert "place 18,19" not in legal  # below the Orange HQ
    with pytest.raises(IllegalActionError):
        play(state, "place 18,19")


# -- end of game and scoring ---------------------------------------------------------------------


def five_tokens_state():
    """3 players, seat 1 (Blue) has five tokens and a Blue Staffer on space 3."""
    state = new_state(3, ["Purple", "Blue", "Red"],
                      piles=piles_with_tops("Blue/Purple", "Red/Orange"))
    for lane, space in (("Purple", 8), ("Green", 7), ("Yellow", 6), ("Orange", 4), ("Red", 5)):
        set_staffer(state, 1, lane, space, take=True)
    set_staffer(state, 1, "Blue", 3)
    state.turn = 4
    state.cur = 1
    state.check_invariants()
    return state


def test_sixth_token_ends_after_equal_turns():
    state = five_tokens_state()
    play(state, "draw top A", "keep", "place 18,16")  # above the Blue HQ: Blue +2
    assert state.ntaken[1] == 6
    assert state.end_trig and state.ended_by == "tokens"
    assert state.current_player() == 2  # the round is finished first
    assert not state.is_terminal()
    rng = random.Random(0)
    for _ in range(3):
        state.apply_action(state.legal_actions()[rng.randrange(len(state.legal_actions()))])
        if state.is_terminal():
            break
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.turn == 6  # seat 0 did not start another round
    # Blue's Opposite Side is Orange (token 4 on space 4): 8 + 7 + 6 + 4*2 + 5 + Blue token.
    blue_token = state.taken[1 * N_COLOURS + LANE["Blue"]]
    assert state.outcome()["scores"][1] == 8 + 7 + 6 + 8 + 5 + blue_token
    assert state.winners() == [1]
    assert state.returns() == [0.0, 1.0, 0.0]
    assert state.outcome()["colours"] == ["Purple", "Blue", "Red"]
    assert state.seat_label(1) == "Blue"


def test_trigger_on_last_seat_ends_at_once():
    state = five_tokens_state()
    state.start = 2  # seat 1 is now the last seat of the round
    state.turn = 5
    play(state, "draw top A", "keep", "place 18,16")
    assert state.is_terminal()


def test_game_ends_when_no_staffer_can_move():
    """Fallback end (ruleset ``end_when_no_staffer_can_move``): with the sixth token out of
    reach (``tokens_to_end=7``) the game still ends once every Staffer is frozen."""
    state = new_state(2, ["Purple", "Blue"], tokens_to_end=7,
                      piles=piles_with_tops("Blue/Purple", "Red/Orange"))
    for lane in COLOURS:
        set_staffer(state, 1, lane, 6, take=True)
        if lane != "Blue":
            set_staffer(state, 0, lane, 5, take=True)
    set_staffer(state, 0, "Blue", 3)
    state.turn = 2
    state.check_invariants()
    play(state, "draw top A", "keep", "place 18,16")
    assert state.ntaken[0] == 6 and state.end_trig and state.ended_by == "stuck"
    play(state, state.action_to_string(state.legal_actions()[0]))
    if state.phase == 2:
        play(state, "keep")
    play(state, state.action_to_string(state.legal_actions()[0]))
    assert state.is_terminal() and state.outcome()["ended_by"] == "stuck"


def test_opposite_side_counts_double():
    state = new_state(2, ["Purple", "Blue"], tokens={"Yellow": [5, 6, 7, 8]})
    set_staffer(state, 0, "Yellow", 8, take=True)
    set_staffer(state, 0, "Blue", 8, take=True)
    set_staffer(state, 1, "Orange", 5, take=True)  # Blue's opposite: 5 x2
    state.check_invariants()
    assert state.scores() == [8 * 2 + 8, 5 * 2]


def end_by_first_round(state):
    """Finish the game without evaluation: mark the end and let the last seat of the first
    round play (no meeting is evaluated in the first round, so scores cannot change)."""
    n = state.game.num_players
    state.end_trig = True
    state.turn = n - 1
    state.cur = (state.start + n - 1) % n
    play(state, state.action_to_string(state.legal_actions()[0]))
    if state.phase == 2:
        play(state, "keep")
    play(state, state.action_to_string(state.legal_actions()[0]))
    assert state.is_terminal()


def test_staffer_tiebreak():
    state = new_state(2, ["Purple", "Blue"])  # tokens 5,6,7,8 on spaces 5..8 in every lane
    set_staffer(state, 0, "Purple", 8, take=True)
    set_staffer(state, 0, "Blue", 8, take=True)  # 16, two Staffers in column 8
    set_staffer(state, 1, "Orange", 5, take=True)  # 5 x2
    set_staffer(state, 1, "Green", 6, take=True)  # + 6 = 16, none in column 8
    state.check_invariants()
    end_by_first_round(state)
    out = state.outcome()
    assert out["scores"] == [16, 16]
    assert out["tiebreak"] is True
    assert state.winners() == [0]


def test_full_tie_shares_the_win():
    state = new_state(2, ["Purple", "Blue"])
    set_staffer(state, 0, "Purple", 8, take=True)
    set_staffer(state, 1, "Blue", 8, take=True)
    end_by_first_round(state)
    assert state.winners() == [0, 1]
    assert state.returns() == [1.0, 1.0]


def test_tiebreak_column_any_player():
    """Purple and Blue tie on 13; Red (8) alone stands in column 8. With "tied" the column is
    the rightmost one a tied player stands in (7: Purple's); with "any" it is column 8, where
    neither tied player stands, so both win."""
    for rule, expected in (("tied", [0]), ("any", [0, 1])):
        state = new_state(3, ["Purple", "Blue", "Red"], tiebreak_column=rule)
        set_staffer(state, 2, "Purple", 8, take=True)  # Red: 8
        set_staffer(state, 0, "Blue", 7, take=True)
        set_staffer(state, 0, "Red", 6, take=True)  # Purple: 7 + 6
        set_staffer(state, 1, "Orange", 4, take=True)  # Blue's Opposite Side: 4 x2
        set_staffer(state, 1, "Yellow", 5, take=True)  # + 5
        state.check_invariants()
        assert state.scores() == [13, 13, 8]
        end_by_first_round(state)
        assert state.winners() == expected, rule


def test_classified_scoring_with_negative_double():
    state = new_state(2, ["Purple", "Blue"], variant="classified")
    set_staffer(state, 0, "Yellow", 1)  # Special Staffer on -3: x2 = -6
    set_staffer(state, 0, "Purple", 9)  # 7
    set_staffer(state, 1, "Orange", 2)  # Blue's Special Staffer on -2: -4
    state.check_invariants()
    assert state.scores() == [7 - 6, -4]
    end_by_first_round(state)
    assert state.outcome()["scores"] == [1, -4]
    assert state.winners() == [0]


def test_classified_two_players_block_the_last_column():
    state = new_state(2, ["Purple", "Blue"], variant="classified")
    obs = state.observation(0)
    assert all(lane["blocked_last"] for lane in obs["lanes"])
    assert state.occ[LANE["Green"] * state.game.lane_size + 10] == 1
    set_staffer(state, 0, "Green", 8)
    state._advance_classified(0, LANE["Green"], 2)  # to 10: blocked, so it stops on 9
    assert staffer(state, 0, "Green") == 9
    set_staffer(state, 1, "Green", 7)
    state._advance_classified(1, LANE["Green"], 1)  # 8 free
    assert staffer(state, 1, "Green") == 8
    moved = state._advance_classified(1, LANE["Green"], 1)  # 9 taken, 10 blocked: stays
    assert not moved and staffer(state, 1, "Green") == 8
    state.check_invariants()


def test_classified_no_tokens_and_collision():
    state = new_state(3, ["Purple", "Blue", "Red"], variant="classified")
    assert all(v == -1 for v in state.tokens)
    set_staffer(state, 1, "Red", 3)
    set_staffer(state, 0, "Red", 2)
    state._advance_classified(0, LANE["Red"], 1)  # lands on 3, taken: on to 4
    assert staffer(state, 0, "Red") == 4
    state._advance_classified(0, LANE["Red"], 20)  # stops on the last column
    assert staffer(state, 0, "Red") == 10
    assert not state._advance_classified(0, LANE["Red"], 1)


def test_classified_sixth_staffer_past_the_line_ends():
    state = new_state(2, ["Purple", "Blue"], variant="classified",
                      piles=piles_with_tops("Blue/Purple", "Red/Orange"))
    for lane, pos in (("Purple", 7), ("Green", 8), ("Yellow", 9), ("Orange", 7), ("Red", 8)):
        set_staffer(state, 0, lane, pos)
    set_staffer(state, 0, "Blue", 5)
    state.turn = 2
    play(state, "draw top A", "keep", "place 18,16")  # above the Blue HQ: Blue +2 to 7
    assert staffer(state, 0, "Blue") == 7
    assert state.end_trig and state.ended_by == "line"
    assert state.current_player() == 1
    play(state, state.action_to_string(state.legal_actions()[0]))
    if state.phase == 2:
        play(state, "keep")
    play(state, state.action_to_string(state.legal_actions()[0]))
    assert state.is_terminal()


# -- hidden information ----------------------------------------------------------------------------


def test_observation_never_shows_an_unflipped_back():
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Blue/Green", "Red/Orange"))
    obs = state.observation(1)
    top = obs["piles"][0]["top"]
    assert top == {"kind": "agent", "colour": "Blue", "others": ["Purple", "Green"],
                   "back": None, "official_up": True, "file": None}
    assert "Blue/Green" not in json.dumps(obs)
    play(state, "draw top A", "flip")
    assert state.observation(1)["held"]["back"] == "Blue"  # seen by everyone when flipped


def test_resample_keeps_view_and_twins_differ():
    rng = random.Random(11)
    game = load_game("undercover", players=4)
    state = game.new_initial_state()
    varied = 0
    for _ in range(60):
        if state.is_terminal():
            break
        if not state.is_chance_node():
            view = state.observation(2)
            for _ in range(4):
                sample = state.resample(2, rng)
                assert sample.observation(2) == view
                sample.check_invariants()
                assert game.replay(sample.history()) == sample  # the sample is a real game
                if sample.piles != state.piles or sample.grid != state.grid:
                    varied += 1
                for a in range(N_AGENTS):  # flipped Agents never move in a resample
                    if state.revealed[a]:
                        assert sample.tcell[a] == state.tcell[a]
        state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    assert varied > 0


def test_deal_is_hidden_in_the_log():
    game = load_game("undercover", players=3)
    state = game.new_initial_state()
    rng = random.Random(5)
    lines = []
    while state.is_chance_node():
        action = sample_chance(state, rng)
        lines.append(state.describe_action(action, 0))
        state.apply_action(action)
    deals = [line for line in lines if "dealt" in line]
    assert len(deals) == 12
    assert not any("/" in line for line in deals)


# -- API behaviour ---------------------------------------------------------------------------


def test_illegal_actions_leave_state_unchanged():
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Green/Blue", "Red/Orange"))
    before = state.to_dict()
    for text in ("flip", "place 18,16", "take 17,17", "take joker", "draw bottom A",
                 "colour Red", "token 5"):
        with pytest.raises(IllegalActionError):
            play(state, text)
        assert state.to_dict() == before
    play(state, "draw top A")
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        play(state, "draw top B")
    assert state.to_dict() == before


def test_strings_round_trip_and_junk_is_malformed():
    game = load_game("undercover", players=6)
    state = game.new_initial_state()
    for action in range(game.num_distinct_actions()):
        assert state.string_to_action(state.action_to_string(action)) == action
    for junk in ("", "place", "place 1", "place 99,99", "take 1,2,3", "draw top C",
                 "deal Blue/Yellow", "colour Pink", "first seat 6", "token 99", "flip it"):
        with pytest.raises(MalformedActionError):
            state.string_to_action(junk)


def test_ruleset_errors():
    with pytest.raises(RulesetError):
        load_game("undercover", players=4, no_such_rule=1)
    with pytest.raises(RulesetError):
        load_game("undercover", players=4, variant="secret")
    with pytest.raises(RulesetError):
        load_game("undercover", players=7)
    with pytest.raises(RulesetError):
        load_game("undercover", players=3, pile_sizes=[6, 5])


def test_three_and_four_players_leave_gaps_and_get_jokers():
    state = new_state(3, ["Purple", "Green", "Orange"])
    hqs = {t["colour"] for t in state.observation(0)["board"] if t["kind"] == "hq"}
    assert hqs == {"Purple", "Green", "Orange"}
    assert state.observation(0)["jokers"] == ["unused"] * 3
    five = new_state(5, ["Purple", "Green", "Orange", "Red", "Blue"])
    assert len([t for t in five.observation(0)["board"] if t["kind"] == "hq"]) == 6
    assert five.observation(0)["jokers"] == [None] * 5


def test_two_player_track_has_no_fours():
    state = new_state(2, ["Purple", "Blue"])
    lane = state.observation(0)["lanes"][0]["tokens"]
    assert lane == [None, None, None, None, 5, 6, 7, 8]
    five = new_state(5, ["Purple", "Green", "Orange", "Red", "Blue"])
    assert five.observation(0)["lanes"][0]["tokens"] == [None, None, None, 4, 5, 6, 7, 8]


def test_choose_colours_and_fixed_start():
    game = load_game("undercover", players=3, colour_assignment="choose", starting_player="seat0")
    state = game.new_initial_state()
    assert state.current_player() == 0
    play(state, "colour Red")
    assert state.current_player() == 1
    assert "colour Red" not in legal_strings(state)
    play(state, "colour Blue", "colour Green")
    assert state.is_chance_node()
    random_playout(state, random.Random(3))
    assert state.outcome()["colours"] == ["Red", "Blue", "Green"]


def test_render_draws_board_and_track():
    state = new_state(4, ["Purple", "Green", "Orange", "Red"])
    random_playout_steps(state, 40, random.Random(2))
    text = render(state.observation(1))
    assert "[magenta]" in text and "Information Track" in text
    assert "?" in text or "pile" in text
    for seat in (0, 2, 3):  # seats are shown from 1; the reader is "you" when it has a Text
        assert f"Seat {seat + 1}:" in text
    classified = new_state(2, ["Purple", "Blue"], variant="classified")
    assert "10" in render(classified.observation(0))


def random_playout_steps(state, steps, rng):
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("variant", ["standard", "classified"])
def test_outcome_is_complete(variant):
    game = load_game("undercover", players=4, variant=variant)
    state = game.new_initial_state()
    random_playout(state, random.Random(8))
    out = state.outcome()
    assert set(out) >= {"winners", "scores", "colours", "ended_by"}
    assert out["ended_by"] in ("tokens", "line", "stuck")
    assert max(out["scores"]) == max(out["scores"][w] for w in out["winners"])
    json.dumps(out)


def test_odd_number_and_letter_strings_are_malformed_not_crashes():
    from fieldcraft import MalformedActionError, load_game

    state = load_game("undercover", players=2).new_initial_state()
    for text in ["place --5,3", "take 3,--4", "token --5", "first seat --1", "place ²,3",
                 "token ³", "draw top ß", "draw top ﬀ"]:
        with pytest.raises(MalformedActionError):
            state.string_to_action(text)


def test_tiebreak_default_is_the_rulebooks_rightmost_occupied_column():
    from fieldcraft.core import default_ruleset

    assert default_ruleset("undercover")["tiebreak_column"] == "any"


# -- legality without the list, structured choices, declared numbers -----------------------------


def assert_is_legal_exact(state):
    """``_is_legal`` answers for one action what membership in the list answers, for every id
    (negative, past the end, every range of the action space)."""
    legal = set(state.legal_actions())
    ids = range(-3, state.game.num_distinct_actions() + 3)
    assert {a for a in ids if state._is_legal(a)} == legal


def test_is_legal_agrees_with_the_list_in_every_setup_step_and_at_the_end():
    for rules in ({}, {"colour_assignment": "choose"}, {"token_values": [5, 5, 6, 7]},
                  {"variant": "classified"}):
        game = load_game("undercover", players=3, **rules)
        state = game.new_initial_state()
        rng = random.Random(4)
        while not state.is_terminal():
            if state.phase == 0 or rng.random() < 0.05:
                assert_is_legal_exact(state)
            state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                               else rng.choice(state.legal_actions()))
        assert_is_legal_exact(state)  # nothing at all once the game is over


def test_is_legal_in_the_fallback_cases():
    # Both tops are the Opposite Side: only the bottoms may be drawn, and no top is legal.
    state = new_state(2, ["Purple", "Blue"],
                      piles=piles_with_tops("Yellow/Green", "Yellow/Orange", bottom_a="Red/Orange"))
    g = state.game
    assert not state._is_legal(g.DRAW_TOP) and state._is_legal(g.DRAW_BOTTOM)
    assert_is_legal_exact(state)
    # A tile taken off the board may not go back unless it is flipped.
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Blue/Green", "Red/Orange"))
    put_agent(state, "Purple/Blue", 17, 16)
    state.turn = 2
    origin = state.string_to_action("place 17,16")
    kept = state.clone()
    play(kept, "take 17,16", "keep")
    assert not kept._is_legal(origin)
    assert_is_legal_exact(kept)
    play(state, "take 17,16", "flip")
    assert state._is_legal(origin)
    assert_is_legal_exact(state)
    # Seat 0's File keeps that tile where it is for seat 1.
    play(state, "place 17,16")
    assert not state._is_legal(state.string_to_action("take 17,16"))
    assert_is_legal_exact(state)
    # Only a diagonal cell is left: it is legal, the orthogonal ones that reject Purple are not.
    rules = {"board_width": 7, "board_height": 3, "hq_origin": [0, 0]}
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Purple/Red", "Blue/Green"),
                      **rules)
    put_agent(state, "Green/Blue", 0, 2)
    state.turn = 2
    play(state, "draw top A", "keep")
    assert state._is_legal(state.string_to_action("place 3,2"))
    assert not state._is_legal(state.string_to_action("place 3,0"))  # beside the Green HQ
    assert_is_legal_exact(state)


def test_choices_place_on_the_cell_the_board_shows():
    """A place choice's x, y are the cell its action puts the tile on, in the coordinates of
    the observation's board; a take choice's are where that tile lies on it."""
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Green/Blue", "Red/Orange"))
    put_agent(state, "Purple/Red", 16, 17)
    state.turn = 2
    g = state.game
    by_kind = {}
    for c in state.choices():
        by_kind.setdefault(c["kind"], []).append(c)
    assert set(by_kind) == {"take", "draw"}
    take = by_kind["take"][0]
    assert take["args"] == {"x": 16, "y": 17, "colour": "Purple"}
    board = {(t["x"], t["y"]): t for t in state.observation(0)["board"]}
    assert board[(16, 17)]["kind"] == "agent" and board[(16, 17)]["colour"] == "Purple"
    assert [c["args"] for c in by_kind["draw"]] == [
        {"pile": "A", "end": "top", "colour": "Green"},
        {"pile": "B", "end": "top", "colour": "Red"}]
    play(state, "draw top A")
    assert [(c["kind"], c["args"]) for c in state.choices()] == [
        ("flip", {"colour": "Green"}), ("keep", {"colour": "Green"})]
    play(state, "keep")
    places = state.choices()
    assert places and all(c["kind"] == "place" for c in places)
    for c in places:
        x, y = c["args"]["x"], c["args"]["y"]
        assert c["action"] == y * g.width + x and c["label"] == f"place {x},{y}"
        assert c["args"]["diagonal"] is False
        after = state.clone()
        after.apply_action(c["action"])
        tile = next(t for t in after.observation(0)["board"] if (t["x"], t["y"]) == (x, y))
        assert tile["kind"] == "agent" and tile["colour"] == "Green"


def test_choices_of_the_special_cases_and_of_chance():
    rules = {"board_width": 7, "board_height": 3, "hq_origin": [0, 0]}
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops("Purple/Red", "Blue/Green"),
                      **rules)
    put_agent(state, "Green/Blue", 0, 2)
    state.turn = 2
    play(state, "draw top A", "keep")
    assert [(c["kind"], c["args"]) for c in state.choices()] == [
        ("place", {"x": 3, "y": 2, "diagonal": True})]
    state = new_state(2, ["Purple", "Blue"],
                      piles=piles_with_tops("Yellow/Green", "Yellow/Orange", bottom_a="Red/Orange"))
    assert [c["args"] for c in state.choices()] == [
        {"pile": "A", "end": "bottom", "colour": None},  # nobody has seen a pile's bottom
        {"pile": "B", "end": "bottom", "colour": None}]
    state = new_state(4, ["Purple", "Green", "Orange", "Red"])
    assert [(c["kind"], c["args"]) for c in state.choices() if c["kind"] == "joker"] == [
        ("joker", {"seat": 0})]
    game = load_game("undercover", players=3, colour_assignment="choose", starting_player="seat0")
    state = game.new_initial_state()
    play(state, "colour Red")
    assert [(c["kind"], c["args"]) for c in state.choices()][:2] == [
        ("colour", {"colour": "Purple", "seat": 1}), ("colour", {"colour": "Blue", "seat": 1})]
    # Chance outcomes have kinds too (they are never offered to people).
    game = load_game("undercover", players=2)
    state = game.new_initial_state()
    notation = game.notation
    kinds = set()
    rng = random.Random(1)
    while state.is_chance_node():
        action = sample_chance(state, rng)
        kind, args = notation.choice(state, action)
        kinds.add(kind)
        if kind == "token":
            assert args["value"] == action - game.TOKEN and args["lane"] in COLOURS
            assert args["space"] in game.token_spaces
        if kind == "deal":
            assert args["agent"] == state.action_to_string(action)[len("deal "):]
            assert args["pile"] in ("A", "B")
        state.apply_action(action)
    assert kinds == {"first", "colour", "token", "deal"}


def test_choices_tell_nothing_the_seat_cannot_see():
    """Choices go to the seat to move: they must read the same in every world that seat cannot
    tell from the real one (no Agent ids, which would tell a twin's hidden back)."""
    game = load_game("undercover", players=3)
    rng = random.Random(6)
    checked = 0
    state = game.new_initial_state()
    while not state.is_terminal():
        if not state.is_chance_node() and rng.random() < 0.3:
            seat = state.current_player()
            mine = state.choices()
            for _ in range(3):
                assert state.resample(seat, rng).choices() == mine
            checked += 1
        state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    assert checked > 10


@pytest.mark.parametrize("rules", [{}, {"variant": "classified"}, {"colour_assignment": "choose"},
                                   {"starting_player": "seat0"}])
def test_declared_numbers(rules):
    """Chance acts once per setup step (a chosen colour is a decision), so every game draws
    exactly ``max_chance_nodes`` outcomes, all of them in the range that starts at the deals
    and runs to the end of the action space."""
    from fieldcraft.core.spec import GENERAL_SUM

    for players in range(2, 7):
        game = load_game("undercover", players=players, **rules)
        info = game.info()
        assert game.game_type.utility == GENERAL_SUM and info.utility_sum is None
        assert (info.min_utility, info.max_utility) == (0.0, 1.0)
        assert info.chance_offset == game.DEAL
        assert info.chance_offset + info.max_chance_outcomes == info.num_distinct_actions
        # three decisions a turn for 100 rounds, and the colours when chosen
        chosen = players if rules.get("colour_assignment") == "choose" else 0
        assert info.max_game_length == 3 * 100 * players + chosen
        unlimited = load_game("undercover", players=players, round_limit=None, **rules)
        assert unlimited.info().max_game_length is None  # test_a_game_can_repeat_...
        rng = random.Random(players)
        for _ in range(3):
            state = game.new_initial_state()
            chance = decisions = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    chance += 1
                    assert all(info.chance_offset <= a for a in state.legal_actions())
                    state.apply_action(sample_chance(state, rng))
                else:
                    decisions += 1
                    state.apply_action(rng.choice(state.legal_actions()))
            assert chance == info.max_chance_nodes
            assert players < decisions <= info.max_game_length


def test_a_shared_win_after_the_tiebreak_is_why_the_game_is_general_sum():
    state = new_state(2, ["Purple", "Blue"])
    set_staffer(state, 0, "Purple", 8, take=True)
    set_staffer(state, 1, "Blue", 8, take=True)
    end_by_first_round(state)
    assert sum(state.returns()) == 2.0


def _cycle_position(variant, round_limit=None):
    """Two seats, each with a dead lane in its own colour (a token taken; Classified: a
    Staffer that cannot move) and two Agents of that colour beside its Headquarters. The
    rulebook's game (no ``round_limit``) unless one is given."""
    state = new_state(2, ["Purple", "Yellow"], variant=variant, round_limit=round_limit,
                      piles=piles_with_tops("Blue/Green", "Red/Orange"))
    if variant == "classified":
        set_staffer(state, 0, "Purple", 9)  # the last column is blocked with 2 players
        set_staffer(state, 1, "Yellow", 9)
    else:
        set_staffer(state, 0, "Purple", 5, take=True)
        set_staffer(state, 1, "Yellow", 5, take=True)
    put_agent(state, "Purple/Red", 16, 17)  # left of the Purple HQ
    put_agent(state, "Purple/Blue", 15, 17)
    put_agent(state, "Yellow/Green", 20, 18)  # right of the Yellow HQ
    put_agent(state, "Yellow/Orange", 21, 18)
    state.turn = 2
    state.check_invariants()
    return state


# Three moves per seat, repeated: each meets only its own colour, whose lane is dead, and the
# seat alternates its two Agents because the one it moved last carries its File.
PURPLE_MOVES = [("16,17", "17,16"), ("15,17", "16,17"), ("17,16", "15,17")]
YELLOW_MOVES = [("20,18", "19,19"), ("21,18", "20,18"), ("19,19", "21,18")]


@pytest.mark.parametrize("variant", ["standard", "classified"])
def test_a_game_can_repeat_a_position_for_ever(variant):
    """Why ``max_game_length`` is None: nothing in the rules forces progress. After six rounds
    of these moves the position is exactly what it was (tiles, Files, track), with nothing
    scored and the end never triggered, so the same rounds can be played for ever."""
    state = _cycle_position(variant)
    start_scores = state.scores()

    def six_rounds():
        for k in range(6):
            for take, place in (PURPLE_MOVES[k % 3], YELLOW_MOVES[k % 3]):
                play(state, f"take {take}", "keep", f"place {place}")
        state.check_invariants()
        fields = state.to_dict()["state"]
        return {k: v for k, v in fields.items() if k not in ("actions", "turn")}

    first = six_rounds()  # the Files are now on the second Agents moved
    assert six_rounds() == first
    assert not state.end_trig and state.scores() == start_scores


def _cycle_until_over(state):
    k = 0
    while not state.is_terminal():
        seat = state.current_player()
        take, place = (PURPLE_MOVES, YELLOW_MOVES)[seat][k // 2 % 3]
        play(state, f"take {take}", "keep", f"place {place}")
        k += 1
    return k


@pytest.mark.parametrize("variant", ["standard", "classified"])
def test_the_round_limit_ends_the_cycle_and_scores_it(variant):
    """The same cycle under a limit of 4 rounds: the game ends when round 4 is complete (the
    first round was played before), both seats having had 4 turns, and is scored as at the
    normal end: 5 points each (Classified: the same column), level on the tie-break's column
    too, so both win."""
    state = _cycle_position(variant, round_limit=4)
    assert _cycle_until_over(state) == 6 and state.turn == 8
    assert state.check_invariants() is None
    out = state.outcome()
    assert out["ended_by"] == "round_limit" and out["tiebreak"] is True
    assert out["scores"][0] == out["scores"][1] and state.winners() == [0, 1]
    assert state.returns() == [1.0, 1.0]
    summary = state.game.notation.summary(state)
    assert summary["reason"]["key"] == "round_limit_tie"
    assert summary["reason"]["params"]["n"] == 4


def test_the_round_limit_keeps_the_tie_break():
    """At the limit a tie on points still goes to the most Staffers in the rightmost occupied
    column. Purple: 5 (own lane) + 8 (Blue, space 8) + 5 (Red, space 5) = 18; Yellow: 5 + 6
    (Green, space 6) + 7 (Red, space 7) = 18; only Purple stands in column 8."""
    state = _cycle_position("standard", round_limit=2)
    set_staffer(state, 0, "Blue", 8, take=True)
    set_staffer(state, 0, "Red", 5, take=True)
    set_staffer(state, 1, "Green", 6, take=True)
    set_staffer(state, 1, "Red", 7, take=True)
    state.check_invariants()
    assert _cycle_until_over(state) == 2  # round 2: one turn each
    out = state.outcome()
    assert out["ended_by"] == "round_limit" and out["scores"] == [18, 18]
    assert out["tiebreak"] is True and state.winners() == [0] and state.returns() == [1.0, 0.0]


def test_round_limit_must_be_a_positive_number_of_rounds_or_null():
    for bad in (0, -1, 2.5, "100", False):
        with pytest.raises(RulesetError):
            load_game("undercover", players=2, round_limit=bad)


def test_a_board_the_tiles_can_fill_is_refused():
    """A grid that all the tiles can fill left a tile in hand with no legal cell and the game
    with no legal action (44 of 50 random 2-player games on 5x3). The board must have a cell
    more than there are tiles: then the tile in hand always has somewhere to go."""
    with pytest.raises(RulesetError, match="fill up"):
        load_game("undercover", players=2, board_width=5, board_height=3, hq_origin=[0, 0])
    with pytest.raises(RulesetError, match="at least 19 cells"):
        load_game("undercover", players=2, board_width=6, board_height=3, hq_origin=[0, 0])
    for players, width in ((2, 10), (3, 10), (4, 11), (6, 10)):  # the smallest accepted
        game = load_game("undercover", players=players, board_width=width, board_height=2,
                         hq_origin=[0, 0])
        for seed in range(20):
            state = game.new_initial_state()
            rng = random.Random(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                assert legal, "a player was left without a legal action"
                state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                                   else rng.choice(legal))


def test_lane_totals_add_up_the_same_one_lane_at_a_time():
    """The bot keeps the shared model's totals per lane (a move rescores only the lanes it
    touches) and adds them up; search adds every lane into one total. Both must give the same
    figures to the last bit, so the two read one model."""
    from fieldcraft.games.undercover.estimate import add_lane, blank, combine, opposites

    for variant in ("standard", "classified"):
        game = load_game("undercover", players=4, variant=variant)
        rng = random.Random(2)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.phase != 0:
                arrays = (opposites(state.colour), state.pos, state.occ, state.tokens,
                          state.last_tok, state.frozen, state.taken)
                at_once = blank(4)
                parts = []
                for lane in range(N_COLOURS):
                    add_lane(game, lane, *arrays, at_once)
                    parts.append(blank(4))
                    add_lane(game, lane, *arrays, parts[-1])
                assert combine(parts, 4) == at_once
            state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                               else rng.choice(state.legal_actions()))
