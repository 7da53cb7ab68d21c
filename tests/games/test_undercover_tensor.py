"""The Undercover observation tensor (``UndercoverView.tensor``): its layout on hand-built
positions (set up with the rule tests' helpers), that twins nobody can tell apart give one
tensor, and that every plane decodes back to the observation on random games."""

from __future__ import annotations

import random
from array import array

import pytest

from fieldcraft.core import load_game
from fieldcraft.games.undercover.grid import N_AGENTS, N_COLOURS
from tests.games.test_undercover import (
    COLOURS,
    LANE,
    agent_id,
    new_state,
    play,
    put_agent,
    set_staffer,
)


def planes(state, seat):
    """The seat's tensor cut into its planes, each reshaped to nested lists by its shape."""
    observer = state.game.observer
    flat = observer.tensor(state, seat)
    assert len(flat) == observer.tensor_size()
    out = {}
    at = 0
    for plane in observer.planes():
        values = flat[at:at + plane.size]
        at += plane.size
        for dim in reversed(plane.shape[1:]):
            values = [values[i:i + dim] for i in range(0, len(values), dim)]
        out[plane.name] = values
    assert at == len(flat)
    return out


def one_hot(index, size):
    return [1 if i == index else 0 for i in range(size)]


# An ``agents`` row with two piles and four seats: its columns by name.
ROW4 = ["board", "held", "top A", "top B", "hidden", "x", "y", "up", "revealed",
        *[f"colour {c}" for c in COLOURS], *[f"other {c}" for c in COLOURS],
        *[f"file {s}" for s in range(4)]]


def row(values):
    """An ``agents`` row (four seats) as {column: value} for its non-zero columns."""
    assert len(values) == len(ROW4)
    return {name: v for name, v in zip(ROW4, values, strict=True) if v}


def four_player_state():
    """Seats 0-3 play Purple, Blue, Green, Red (Orange and Yellow HQs removed), tokens 4-8 in
    order on spaces 4-8 of every lane; pile A holds Agents 0-5 (Green/Yellow on top), pile B
    Agents 6-11 (Red/Purple on top)."""
    return new_state(4, ["Purple", "Blue", "Green", "Red"])


@pytest.mark.parametrize(("players", "variant", "size"), [
    (2, "standard", 486), (3, "standard", 551), (4, "standard", 604), (5, "standard", 627),
    (6, "standard", 674), (2, "classified", 376), (3, "classified", 429),
    (4, "classified", 470), (5, "classified", 481), (6, "classified", 516),
])
def test_sizes_and_plane_order(players, variant, size):
    game = load_game("undercover", players=players, variant=variant)
    observer = game.observer
    assert observer.tensor_size() == size == sum(p.size for p in observer.planes())
    names = [p.name for p in observer.planes()]
    assert names[:7] == ["seat", "to_act", "phase", "clock", "end", "winners", "agents"]
    assert ("jokers" in names) == (players in (3, 4))
    assert ("tokens" in names) == ("taken" in names) == (variant == "standard")
    assert ("column_values" in names) == (variant == "classified")
    shapes = {p.name: p.shape for p in observer.planes()}
    assert shapes["agents"] == (N_AGENTS, 21 + players)
    assert shapes["colours"] == shapes["staffers"] == (players, N_COLOURS)


def test_after_the_setup():
    state = four_player_state()
    p = planes(state, 2)
    assert p["rules"] == [0, 4, 37, 37, 8, 6, 0, 0]
    assert p["seat"] == one_hot(2, 4)
    assert p["to_act"] == p["starting_seat"] == one_hot(0, 4)
    assert p["phase"] == one_hot(1, 5)  # activate
    assert p["clock"] == [0, 1, 0]  # no evaluation in the first round
    assert p["colours"][1] == one_hot(LANE["Blue"], 6)
    assert p["opposite"][1] == one_hot(LANE["Orange"], 6)
    assert p["colours"][3] == one_hot(LANE["Red"], 6)
    # 4 players: only the chosen colours' Headquarters are laid (at their fixed cells).
    assert p["hq"][LANE["Blue"]] == [1, 18, 17]
    assert p["hq"][LANE["Red"]] == [1, 17, 18]
    assert p["hq"][LANE["Orange"]] == [0, 18, 18]
    assert p["jokers"] == [[1, 0, 0, 0, 0, 0]] * 4
    assert p["piles"] == [6, 6]
    # Green/Yellow (Agent 5) tops pile A and its twin lies below: unflipped twins fill the
    # two Green rows in table order, so the top takes row 4 and the hidden one row 5.
    assert row(p["agents"][4]) == {"top A": 1, "colour Green": 1}
    assert row(p["agents"][5]) == {"hidden": 1}
    assert row(p["agents"][10]) == {"top B": 1, "colour Red": 1}
    assert row(p["agents"][0]) == {"hidden": 1}
    # Every lane holds tokens 4..8 on spaces 4..8.
    for lane in range(N_COLOURS):
        assert p["tokens"][lane] == [[0, 0]] * 3 + [[1, v] for v in (4, 5, 6, 7, 8)]
    assert p["staffers"] == p["frozen"] == p["taken"] == [[0] * 6] * 4
    assert p["scores"] == p["winners"] == [0] * 4
    assert p["hand"] == [0, 0, 0, 0] and p["end"] == [0, 0, 0, 0]


def test_a_turn_draw_flip_place():
    state = four_player_state()
    put_agent(state, "Blue/Green", 18, 16)  # Agent 3, out of pile A, above the Blue HQ
    state.check_invariants()
    play(state, "draw top A")
    p = planes(state, 0)
    assert p["phase"] == one_hot(2, 5)  # flip
    assert row(p["agents"][4]) == {"held": 1, "colour Green": 1, "file 0": 1}
    assert p["piles"] == [4, 6]
    play(state, "flip")
    p = planes(state, 0)
    # Flipped, Agent 5 is known (Green/Yellow) and goes to its own row; its twin Agent 4
    # now tops pile A.
    assert row(p["agents"][5]) == {"held": 1, "up": 1, "revealed": 1, "colour Yellow": 1,
                                   "other Green": 1, "file 0": 1}
    assert row(p["agents"][4]) == {"top A": 1, "colour Green": 1}
    assert p["hand"] == [0, 0, 0, 1]  # from a pile; flipped
    play(state, "place 20,17")  # right of the Green HQ
    p = planes(state, 3)
    assert row(p["agents"][5]) == {"board": 1, "x": 20, "y": 17, "up": 1, "revealed": 1,
                                   "colour Yellow": 1, "other Green": 1, "file 0": 1}
    assert row(p["agents"][2]) == {"board": 1, "x": 18, "y": 16, "colour Blue": 1}
    assert row(p["agents"][3]) == {"hidden": 1}
    assert p["clock"] == [1, 1, 0]
    assert p["to_act"] == one_hot(1, 4)
    assert p["phase"] == one_hot(1, 5)
    assert p["hand"] == [0, 0, 0, 0]
    play(state, "take 18,16")  # seat 1 (Blue) takes the Blue Agent off the board
    p = planes(state, 1)
    assert row(p["agents"][2]) == {"held": 1, "colour Blue": 1, "file 1": 1}
    assert p["hand"] == [1, 18, 16, 0]


def test_a_joker_and_its_file():
    state = four_player_state()
    play(state, "take joker")
    p = planes(state, 0)
    assert p["jokers"][0] == [0, 1, 0, 0, 0, 1]  # held, under seat 0's File
    assert p["phase"] == one_hot(3, 5)  # a Joker is placed at once
    play(state, "place 16,17")  # left of the Purple HQ
    p = planes(state, 0)
    assert p["jokers"][0] == [0, 0, 1, 16, 17, 1]
    assert p["jokers"][1] == [1, 0, 0, 0, 0, 0]


def test_twins_nobody_can_tell_apart_give_one_tensor():
    """The two Purple Agents on the board, unflipped, in either order: one view, one tensor
    (the rows follow the cells); once one is flipped each has its own row."""
    a = four_player_state()
    put_agent(a, "Purple/Red", 17, 16)  # above the Purple HQ
    put_agent(a, "Purple/Blue", 16, 17)  # left of it
    b = four_player_state()
    put_agent(b, "Purple/Blue", 17, 16)
    put_agent(b, "Purple/Red", 16, 17)
    for s in (a, b):
        s.check_invariants()
    assert a.observation(0) == b.observation(0)
    for seat in range(4):
        assert a.game.observer.tensor(a, seat) == b.game.observer.tensor(b, seat)
    p = planes(a, 0)
    assert row(p["agents"][0]) == {"board": 1, "x": 17, "y": 16, "colour Purple": 1}
    assert row(p["agents"][1]) == {"board": 1, "x": 16, "y": 17, "colour Purple": 1}
    rng = random.Random(3)
    for _ in range(5):
        assert a.game.observer.tensor(a.resample(0, rng), 0) == a.game.observer.tensor(a, 0)
    # Flip Purple/Blue (Agent 1) where it lies: both rows now follow the Agents' ids.
    c = four_player_state()
    put_agent(c, "Purple/Blue", 17, 16, flipped=True)
    put_agent(c, "Purple/Red", 16, 17)
    c.check_invariants()
    p = planes(c, 0)
    assert agent_id("Purple/Blue") == 1
    assert row(p["agents"][1]) == {"board": 1, "x": 17, "y": 16, "up": 1, "revealed": 1,
                                   "colour Blue": 1, "other Purple": 1}
    assert row(p["agents"][0]) == {"board": 1, "x": 16, "y": 17, "colour Purple": 1}


def test_tokens_taken_and_scores():
    state = four_player_state()
    before = planes(state, 0)
    set_staffer(state, 0, "Yellow", 8, take=True)  # Yellow is Purple's Opposite Side: x2
    set_staffer(state, 1, "Blue", 5, take=True)
    set_staffer(state, 2, "Red", 3)
    state.check_invariants()
    p = planes(state, 0)
    assert before["taken"][0] == [0] * 6  # (the cached run was not reused)
    assert p["tokens"][LANE["Yellow"]][7] == [0, 0]
    assert p["tokens"][LANE["Yellow"]][6] == [1, 7]
    assert p["tokens"][LANE["Blue"]][4] == [0, 0]
    assert p["frozen"][0] == one_hot(LANE["Yellow"], 6)
    assert p["taken"][0][LANE["Yellow"]] == 8
    assert p["taken"][1][LANE["Blue"]] == 5
    assert p["staffers"][2][LANE["Red"]] == 3
    assert p["scores"] == [16, 5, 0, 0]


def test_classified_track():
    state = new_state(2, ["Purple", "Green"], variant="classified")
    set_staffer(state, 0, "Purple", 8)  # column 8: 5 points
    set_staffer(state, 0, "Yellow", 9)  # column 9 of the Opposite Side: 7 x 2
    state.check_invariants()
    p = planes(state, 1)
    assert p["rules"] == [1, 2, 37, 37, 10, 0, 6, 1]  # two players: last column blocked
    assert p["column_values"] == [-3, -2, -1, 0, 1, 2, 3, 5, 7, 10]
    assert p["staffers"][0] == [8, 0, 0, 9, 0, 0]
    assert p["scores"] == [19, 0]
    assert "tokens" not in p and "frozen" not in p


def decode(state, seat):
    """The observation's pieces read back from the tensor alone (what a learner could
    recover), to compare with ``state.observation(seat)``."""
    g = state.game
    n = g.num_players
    p = planes(state, seat)

    def index(values):
        return values.index(1) if 1 in values else None

    names = g.colour_names
    colours = [index(r) for r in p["colours"]]
    v = {
        "seat": index(p["seat"]),
        "players": p["rules"][1],
        "colours": [names[c] if c is not None else None for c in colours],
        "opposite": [names[index(r)] if index(r) is not None else None for r in p["opposite"]],
        "starting_seat": index(p["starting_seat"]),
        "to_act": index(p["to_act"]),
        "phase": ["setup", "activate", "flip", "place", "over"][index(p["phase"])],
        "turn": p["clock"][0],
        "round": p["clock"][1],
        "evaluation_this_round": bool(p["clock"][2]),
        "end_triggered": bool(p["end"][0]),
        "ended_by": {None: None, 0: "tokens", 1: "line", 2: "stuck"}[index(p["end"][1:])],
        "board_size": p["rules"][2:4],
        "piles": p["piles"],
        "flipped": bool(p["hand"][3]),
        "held_from": p["hand"][1:3] if p["hand"][0] else None,
        "staffers": p["staffers"],
        "scores": p["scores"],
    }
    width = len(p["agents"][0])
    np_ = g.num_piles
    board, tops, held = [], [None] * np_, None
    for r, a in enumerate(p["agents"]):
        visible = index(a[7 + np_:13 + np_])
        other = index(a[13 + np_:19 + np_])
        official = r // 2
        tile = {"kind": "agent", "colour": None if visible is None else names[visible],
                "back": None if other is None else names[other],  # (once revealed)
                "official_up": not a[5 + np_], "file": index(a[19 + np_:width])}
        if visible is not None:  # the official side shows unless it is turned
            assert official == (other if a[5 + np_] else visible)
        if a[0]:
            board.append((a[3 + np_], a[4 + np_], tile))
        elif a[1]:
            held = tile
        elif 1 in a[2:2 + np_]:
            tops[index(a[2:2 + np_])] = tile["colour"]
    for c, (present, x, y) in enumerate(p["hq"]):
        if present:
            board.append((x, y, {"kind": "hq", "colour": names[c], "file": None}))
    jokers = []
    for s, j in enumerate(p.get("jokers", [[0] * 6] * n)):
        where = index(j[:3])
        jokers.append(None if where is None else ["unused", "held", "placed"][where])
        tile = {"kind": "joker", "owner": s, "file": s if j[5] else None}
        if where == 1:
            held = tile
        elif where == 2:
            board.append((j[3], j[4], tile))
    v["board"] = sorted(board, key=lambda e: (e[1], e[0]))
    v["tops"] = tops
    v["held"] = held
    v["jokers"] = jokers
    if not g.classified:
        v["tokens"] = [[value if present else None for present, value in lane]
                       for lane in p["tokens"]]
        v["taken"] = [[value if f else None for f, value in zip(fr, tk, strict=True)]
                      for fr, tk in zip(p["frozen"], p["taken"], strict=True)]
    v["winners"] = [s for s in range(n) if p["winners"][s]]
    return v


def expected(state, seat):
    """The same pieces taken from the observation."""
    o = state.observation(seat)
    v = {k: o[k] for k in ("seat", "players", "colours", "opposite", "starting_seat", "to_act",
                           "phase", "turn", "round", "evaluation_this_round", "end_triggered",
                           "ended_by", "board_size", "flipped", "held_from", "scores",
                           "jokers")}
    v["piles"] = [pile["count"] for pile in o["piles"]]
    v["tops"] = [pile["top"]["colour"] if pile["top"] else None for pile in o["piles"]]
    v["staffers"] = [[lane["staffers"][s] for lane in o["lanes"]] for s in range(o["players"])]

    def tile(t):
        keep = ("kind", "colour", "back", "official_up", "file", "owner")
        t = {k: t[k] for k in keep if k in t}
        if t["kind"] == "hq":
            t.pop("official_up", None)
        return t

    v["board"] = [(t["x"], t["y"], tile(t)) for t in o["board"]]
    v["held"] = tile(o["held"]) if o["held"] else None
    if "tokens_to_end" in o:
        v["tokens"] = [lane["tokens"] for lane in o["lanes"]]
        v["taken"] = o["taken"]
    v["winners"] = o.get("winners", [])
    return v


@pytest.mark.parametrize(("players", "variant"), [
    (2, "standard"), (3, "standard"), (4, "classified"), (5, "standard"), (6, "classified"),
])
def test_the_tensor_decodes_to_the_observation(players, variant):
    game = load_game("undercover", players=players, variant=variant)
    rng = random.Random(players)
    state = game.new_initial_state()
    steps = 0
    while True:
        if steps % 3 == 0 or state.is_terminal():
            seat = steps % players
            assert decode(state, seat) == expected(state, seat), steps
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    assert steps > 50


@pytest.mark.parametrize(("players", "variant"), [(3, "standard"), (5, "classified")])
def test_write_tensor_at_an_offset_is_the_tensor_and_leaves_the_rest_alone(players, variant):
    """The buffer writer a batched env calls, at every seat of a random game, into a buffer
    whose every item starts at a sentinel (so a writer that only sets nonzero entries must
    clear its range first): exactly ``tensor`` there, floats only, nothing written beside it,
    and refused when the range does not fit."""
    game = load_game("undercover", players=players, variant=variant)
    observer = game.observer
    size = observer.tensor_size()
    rng = random.Random(7)
    state = game.new_initial_state()
    buffer = array("d", [7.0] * (3 * size + 1))
    checked = 0
    while not state.is_terminal():
        for seat in range(players):
            buffer[size:2 * size + 1] = array("d", [7.0] * (size + 1))
            observer.write_tensor(state, seat, buffer, size + 1)
            tensor = observer.tensor(state, seat)
            assert all(type(x) is float for x in tensor)
            assert buffer[size + 1:2 * size + 1].tolist() == tensor
            assert buffer[size] == 7.0 and set(buffer[:size]) == {7.0}
            assert set(buffer[2 * size + 1:]) == {7.0}
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 100
    with pytest.raises(IndexError):
        observer.write_tensor(state, 0, buffer, 2 * size + 2)
    with pytest.raises(IndexError):
        observer.write_tensor(state, 0, buffer, -1)
