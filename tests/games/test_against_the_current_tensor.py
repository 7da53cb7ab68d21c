"""Against the Current's observation tensor on scripted games: each plane holds what its doc
says (positions are set up by replaying chosen chance outcomes, as in the rule tests)."""

from __future__ import annotations

from fieldcraft.core import load_game
from fieldcraft.games.against_the_current.layout import (
    ANIMALS,
    EVENTS,
    PHASE_NAMES,
    TERRAINS,
)

GAME = "against-the-current"
OPEN = "Open Water"
RING = [
    OPEN, "Pollution", "Fishing Nets", "Water Plants", "Rapids", "Dam", "Turbine",
    OPEN, "Pollution", "Fishing Nets", "Water Plants", "Rapids", "Dam", "Turbine", OPEN,
]


def plane(game, tensor, name):
    """The slice of the flat tensor that plane ``name`` occupies."""
    return game.observer.split(tensor)[name]


def rows(game, tensor, name):
    """Plane ``name`` cut into its rows (a 2-D plane's first axis)."""
    (shape,) = [p.shape for p in game.observer.planes() if p.name == name]
    flat = plane(game, tensor, name)
    return [flat[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]


def one_hot(size, *hot):
    return [1.0 if i in hot else 0.0 for i in range(size)]


def play(state, *texts):
    for text in texts:
        state.apply_action(state.string_to_action(text))


def setup(ring=RING, markers=(("Pollution", 1), ("Fishing Nets", 8)), deck=(), **overrides):
    """Axolotl (seat 0) against European Eel (seat 1), seat 0 first; the event pile holds
    ``deck`` on top, the rest in box order."""
    overrides.setdefault("terrain_counts", {t: ring.count(t) for t in TERRAINS})
    overrides.setdefault("markers", [name for name, _ in markers])
    game = load_game(GAME, players=2, **overrides)
    state = game.new_initial_state()
    rest = [e for e in EVENTS if e not in deck]
    play(state, *[f"deal {t}" for t in ring])
    play(state, *[f"{name} marker on space {space}" for name, space in markers])
    play(state, *[f"deck card {e}" for e in [*deck, *rest]])
    play(state, "pick Axolotl", "pick European Eel", "first player seat 0")
    return game, state


def test_the_opening_position():
    game, state = setup()
    t0 = game.observer.tensor(state, 0)
    t1 = game.observer.tensor(state, 1)
    assert len(t0) == game.observer.tensor_size()
    assert plane(game, t0, "viewer") == [1.0, 0.0]
    assert plane(game, t1, "viewer") == [0.0, 1.0]
    assert plane(game, t0, "current_player") == [1.0, 0.0, 0.0, 0.0]
    assert plane(game, t0, "turn_seat") == [1.0, 0.0]
    assert plane(game, t0, "first_player") == [1.0, 0.0]
    assert plane(game, t0, "phase") == one_hot(14, PHASE_NAMES.index("choose token"))
    assert plane(game, t0, "current") == [1.0, 0.0, 0.0, 0.0]
    assert plane(game, t0, "space_dealt") == [1.0] * 15
    printed = rows(game, t0, "space_printed")
    terrain = rows(game, t0, "space_terrain")
    for space, name in enumerate(RING):
        assert printed[space] == one_hot(7, TERRAINS.index(name))
    # The markers lie on spaces 1 and 8 (Open Water cards) and make them resolve as their own.
    assert terrain[0] == one_hot(7, TERRAINS.index("Pollution"))
    assert terrain[7] == one_hot(7, TERRAINS.index("Fishing Nets"))
    assert terrain[14] == one_hot(7, TERRAINS.index(OPEN))
    marker = rows(game, t0, "space_marker")
    assert marker[0] == [1.0, 0.0] and marker[7] == [0.0, 1.0]
    assert sum(plane(game, t0, "space_marker")) == 2.0
    assert rows(game, t0, "animal") == [one_hot(4, ANIMALS.index("Axolotl")),
                                        one_hot(4, ANIMALS.index("European Eel"))]
    assert plane(game, t0, "seat_flags") == [1.0, 1.0, 0.0, 0.0] * 2
    assert rows(game, t0, "token_position") == [one_hot(17, 0)] * 6
    assert plane(game, t0, "score") == [0.0, 0.0]
    assert plane(game, t0, "deck_size") == [12.0]
    assert plane(game, t0, "unseen_events") == [1.0] * 12
    assert sum(plane(game, t0, "discard")) == 0.0
    # Only the seat to decide sees its choices (ids 0..31 keep their place).
    assert plane(game, t0, "legal")[:4] == [1.0, 1.0, 1.0, 0.0]
    assert sum(plane(game, t0, "legal")) == 3.0
    assert sum(plane(game, t1, "legal")) == 0.0
    # Everything else is public: the two seats' tensors differ in viewer and legal alone.
    at = 0
    for p in game.observer.planes():
        if p.name not in ("viewer", "legal"):
            assert t0[at:at + p.size] == t1[at:at + p.size], p.name
        at += p.size


def test_a_six_draws_an_event_and_a_skip_discards_it():
    game, state = setup(deck=("Detour",))
    play(state, "move token A", "roll 6")  # Axolotl on Dam: -1, so space 5
    t = game.observer.tensor(state, 0)
    assert rows(game, t, "token_position")[0] == one_hot(17, 5)
    assert plane(game, t, "moving_token") == one_hot(6, 0)
    assert plane(game, t, "roll") == one_hot(6, 5)
    assert plane(game, t, "event") == one_hot(12, EVENTS.index("Detour"))
    assert plane(game, t, "deck_size") == [11.0]
    assert plane(game, t, "unseen_events") == [0.0 if e == "Detour" else 1.0 for e in EVENTS]
    assert plane(game, t, "phase") == one_hot(14, PHASE_NAMES.index("event challenge"))
    assert plane(game, t, "legal") == one_hot(32 + 2 + 12, 10, 11)  # attempt, skip
    play(state, "skip challenge")
    t = game.observer.tensor(state, 0)
    discard = rows(game, t, "discard")
    assert discard[0] == one_hot(12, EVENTS.index("Detour"))
    assert sum(plane(game, t, "discard")) == 1.0
    assert sum(plane(game, t, "event")) == 0.0
    assert plane(game, t, "unseen_events") == [0.0 if e == "Detour" else 1.0 for e in EVENTS]
    assert plane(game, t, "current_player") == [0.0, 1.0, 0.0, 0.0]
    assert plane(game, t, "turn_seat") == [0.0, 1.0]
    assert sum(plane(game, t, "moving_token")) == 0.0 and sum(plane(game, t, "roll")) == 0.0
    assert sum(plane(game, t, "legal")) == 0.0  # seat 1 decides, not the viewer


def test_pressure_marker_and_the_wheel_turning():
    game, state = setup()
    play(state, "move token A", "roll 4")  # Water Plants: Plant Tangle's window
    t = game.observer.tensor(state, 0)
    assert plane(game, t, "phase") == one_hot(14, PHASE_NAMES.index("landed"))
    assert plane(game, t, "legal") == one_hot(46, 3, 9)  # no ability, place pressure
    play(state, "place pressure")
    t = game.observer.tensor(state, 1)
    assert rows(game, t, "space_pressure")[3] == [1.0, 0.0]
    assert sum(plane(game, t, "space_pressure")) == 1.0
    assert rows(game, t, "seat_flags")[0] == [1.0, 0.0, 0.0, 0.0]
    assert rows(game, t, "token_position")[0] == one_hot(17, 5)  # +1 on Water Plants
    play(state, "move token A", "roll 1")  # Eel on Open Water; the round ends
    t = game.observer.tensor(state, 0)
    assert plane(game, t, "current") == [0.0, 1.0, 0.0, 0.0]
    assert sum(plane(game, t, "space_pressure")) == 0.0  # cleared as the wheel turns
    printed = rows(game, t, "space_printed")
    for space in range(15):  # the wheel turned 4 spaces: space s shows card s - 4
        assert printed[space] == one_hot(7, TERRAINS.index(RING[(space - 4) % 15]))
    marker = rows(game, t, "space_marker")
    assert marker[4] == [1.0, 0.0] and marker[11] == [0.0, 1.0]


def test_tributaries_score_and_finish_order():
    ring = [OPEN] * 3  # River Sanctuary is space 4
    game, state = setup(ring=ring, markers=(), wheel_shift=0)
    play(state, "move token A", "roll 6")
    t = game.observer.tensor(state, 0)
    assert plane(game, t, "phase") == one_hot(14, PHASE_NAMES.index("choose tributary"))
    assert plane(game, t, "legal") == [0.0] * 32 + [1.0] * 12  # no markers: K = 0
    play(state, "tributary 1 (12 pts)", "skip challenge")
    play(state, "move token A", "roll 1")
    play(state, "move token B", "roll 5", "tributary 2 (11 pts)")
    play(state, "move token A", "roll 1")
    play(state, "move token C", "roll 5", "tributary 3 (10 pts)")
    t = game.observer.tensor(state, 1)
    assert plane(game, t, "score") == [33.0, 0.0]
    trib = rows(game, t, "token_tributary")
    assert trib[:3] == [one_hot(12, 0), one_hot(12, 1), one_hot(12, 2)]
    assert sum(plane(game, t, "token_tributary")) == 3.0
    assert rows(game, t, "token_position")[:4] == [one_hot(5, 4)] * 3 + [one_hot(5, 2)]
    assert rows(game, t, "finish_order") == [[1.0, 0.0], [0.0, 0.0]]
    assert rows(game, t, "discard")[0] == one_hot(12, EVENTS.index("Extra Roll"))
