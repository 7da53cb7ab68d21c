"""Under Current's observation tensor: its layout on scripted positions, and that it writes the
observation dict exactly (an independent encoder from the dict, on random games).

Positions are dealt by naming the chance outcomes, as in ``test_under_current.py``; the planes
are found by name, so a plane written at the wrong offset or in the wrong shape fails here.
"""

from __future__ import annotations

import random

import pytest

from fieldcraft import load_game
from fieldcraft.games.under_current.constants import EFFECTS, FACTIONS, PHASE_NAMES

ROLES_5 = ["Blue Chief", "Red Chief", "Yellow Agent", "Blue Informer", "Red Informer",
           "Green Agent"]
HANDS_5 = [["Blue/RETIRE", "Blue/SCAN"], ["Red/SWAP", "Red/SCAN"], ["Blue/PEEK", "Red/PEEK"],
           ["Blue/SPY", "Red/SPY"], ["Green/SCAN", "Yellow/SCAN"]]
REASONS = ("green_card", "green_declaration", "yellow_balance", "majority")


def act(state, *texts: str) -> None:
    for text in texts:
        state.apply_action(state.string_to_action(text))
        state.check_invariants()


def setup(players: int, roles: list[str], hands: list[list[str]], start: int = 0):
    """A game at the first PASS with the given roles (seats, then reserve) and full hands."""
    state = load_game("under-current", players=players).new_initial_state()
    for name in roles[:-1]:
        act(state, f"deal {name} to a position")
    for hand in hands:
        for card in hand:
            act(state, f"draw {card}")
    act(state, f"seat {start} starts")
    assert state.phase_name == "pass"
    return state


def planes(state, seat: int) -> dict[str, list[float]]:
    """The seat's tensor cut into its named planes (flat lists)."""
    observer = state.game.observer
    tensor = observer.tensor(state, seat)
    assert len(tensor) == observer.tensor_size()
    assert all(type(x) is float for x in tensor)
    out = observer.split(tensor)
    assert sum(len(v) for v in out.values()) == len(tensor)
    return out


def one_hot(size: int, *hot: int) -> list[float]:
    v = [0.0] * size
    for i in hot:
        v[i] = 1.0
    return v


def rows(flat: list[float], width: int) -> list[list[float]]:
    return [flat[i:i + width] for i in range(0, len(flat), width)]


@pytest.mark.parametrize(("players", "size"), [(3, 1009), (4, 1070), (5, 1137), (6, 1482),
                                               (7, 1565), (8, 1966)])
def test_sizes_and_plane_names(players, size):
    observer = load_game("under-current", players=players).observer
    assert observer.tensor_size() == size == sum(p.size for p in observer.planes())
    names = [p.name for p in observer.planes()]
    assert names[0] == "viewer" and len(names) == len(set(names))
    shapes = {p.name: p.shape for p in observer.planes()}
    g = observer.game
    assert shapes["row"] == (g.num_cards, g.num_cards + 2)
    assert shapes["roles"] == (g.num_roles, g.num_roles)
    assert shapes["declarations"] == (players, 2, g.num_roles)


def test_first_pass_of_an_eye_holder():
    s = setup(5, ROLES_5, HANDS_5)
    g = s.game
    c = g.num_cards
    p = planes(s, 0)
    assert p["viewer"] == one_hot(5, 0)
    assert p["players"] == [5]
    assert p["phase"] == one_hot(len(PHASE_NAMES), PHASE_NAMES.index("pass"))
    assert p["current_player"] == p["active"] == p["start_seat"] == one_hot(5, 0)
    assert p["hand_sizes"] == [2] * 5
    assert p["deck_count"] == [c - 10]
    assert p["turn"] == [0] and p["final_round"] == [0.0] and p["final_turns_left"] == [0.0]
    hand = rows(p["hand"], c)
    assert hand == [one_hot(c, g.card_names.index("Blue/RETIRE")),
                    one_hot(c, g.card_names.index("Blue/SCAN"))]
    known = rows(p["known_hands"], c)
    assert known[0] == one_hot(c, *(g.card_names.index(x) for x in HANDS_5[0]))
    assert all(row == [0.0] * c for row in known[1:])
    blue_chief = g.role_names.index("Blue Chief")
    assert p["role"] == one_hot(g.num_roles, blue_chief)
    roles = rows(p["roles"], g.num_roles)
    assert roles[0] == one_hot(g.num_roles, blue_chief)
    eye = [g.role_names.index(x) for x in ("Blue Chief", "Red Chief")]
    thumb = [g.role_names.index(x) for x in ("Blue Informer", "Red Informer")]
    assert roles[1] == one_hot(g.num_roles, eye[1])  # the only other Eye
    assert roles[3] == roles[4] == one_hot(g.num_roles, *thumb)
    assert p["identity_confirmation"] == one_hot(5, 0, 1) + one_hot(5, 3, 4)
    assert p["pending"] == [0.0] and p["row"] == [0.0] * (c * (c + 2))
    # A seat without an Eye has no record and knows only its own role.
    q = planes(s, 2)
    assert q["viewer"] == one_hot(5, 2)
    assert q["identity_confirmation"] == [0.0] * 10
    yellow = g.role_names.index("Yellow Agent")
    assert rows(q["roles"], g.num_roles)[2] == one_hot(g.num_roles, yellow)
    others = [1.0] * g.num_roles
    others[yellow] = 0.0  # deduced: the Yellow Agent card is the viewer's own
    assert rows(q["roles"], g.num_roles)[0] == others and q["known_hands"][:c] == [0.0] * c


def test_a_pass_shows_the_card_to_passer_and_receiver_only():
    s = setup(5, ROLES_5, HANDS_5)
    g = s.game
    c = g.num_cards
    scan = g.card_names.index("Blue/SCAN")
    act(s, "pass Blue/SCAN to seat 2")
    for seat in range(5):
        p = planes(s, seat)
        assert p["phase"] == one_hot(len(PHASE_NAMES), PHASE_NAMES.index("receive"))
        assert p["current_player"] == one_hot(5, 2) and p["active"] == one_hot(5, 0)
        assert p["pending"] == [1.0] and p["pending_receiver"] == one_hot(5, 2)
        assert p["pending_card"] == (one_hot(c, scan) if seat in (0, 2) else [0.0] * c)
        assert p["pending_effect"] == [0.0] * len(EFFECTS)
        assert p["hand_sizes"] == [1, 2, 2, 2, 2]
    act(s, "use")
    p = planes(s, 3)
    assert p["pending_card"] == one_hot(c, scan)  # a used card is shown to all
    assert p["pending_effect"] == one_hot(len(EFFECTS), EFFECTS.index("SCAN"))
    assert p["discard"] == one_hot(c, scan) and p["discard_order"] == one_hot(c, scan)
    act(s, "scan seat 3")
    spy = [g.card_names.index(x) for x in HANDS_5[3]]
    assert rows(planes(s, 0)["known_hands"], c)[3] == one_hot(c, *spy)
    assert rows(planes(s, 2)["known_hands"], c)[3] == [0.0] * c
    assert planes(s, 0)["pending"] == [0.0]


def test_a_filed_card_lies_face_down_in_the_row():
    s = setup(5, ROLES_5, HANDS_5)
    g = s.game
    c = g.num_cards
    scan = g.card_names.index("Blue/SCAN")
    act(s, "pass Blue/SCAN to seat 1", "file")
    for seat in range(5):
        slots = rows(planes(s, seat)["row"], c + 2)
        card = one_hot(c, scan) if seat in (0, 1) else [0.0] * c
        assert slots[0] == [1.0, 0.0] + card  # present, face down
        assert all(slot == [0.0] * (c + 2) for slot in slots[1:])


def test_the_end_shows_how_and_who_won():
    s = setup(5, ROLES_5, HANDS_5)
    g = s.game
    for name in ("Red/DROP", "Red/SNATCH"):  # two face-up cards, as if filed long ago
        s.deck.remove(g.card_names.index(name))
        s.row.append(g.card_names.index(name))
        s.row_up.append(1)
        s.row_known.append(g.all_known)
    act(s, "pass Blue/RETIRE to seat 2", "use", "retire seat 1 as Red")
    assert s.is_terminal()
    p = planes(s, 4)
    assert p["phase"] == one_hot(len(PHASE_NAMES), PHASE_NAMES.index("over"))
    assert p["current_player"] == p["active"] == [0.0] * 5
    assert p["eliminated"] == one_hot(5, 1)
    assert p["winner_faction"] == one_hot(4, FACTIONS.index("Red"))
    assert p["winners"] == one_hot(5, *s.winners()) == one_hot(5, 1, 4)
    assert s.observation(4)["ending"] == "retire:majority"
    assert p["ending"] == [0.0, 1.0]
    assert p["ending_reason"] == one_hot(4, REASONS.index("majority"))
    c = g.num_cards
    slots = rows(p["row"], c + 2)
    assert slots[1] == [1.0, 1.0] + one_hot(c, g.card_names.index("Red/SNATCH"))
    assert p["discard_order"][g.card_names.index("Blue/RETIRE")] == 1


# -- an independent encoder: from the observation dict, by names ----------------------------------
def encode(game, view: dict) -> dict[str, list[float]]:
    """Each plane as the module docstring describes it, read from ``view`` alone."""
    n, c, r = game.num_players, game.num_cards, game.num_roles
    card = {name: i for i, name in enumerate(game.card_names)}
    role = {name: i for i, name in enumerate(game.role_names)}

    def position(name: str | None) -> int:
        kind, number = name.split()
        return int(number) + (n if kind == "reserve" else 0)

    def hot(size: int, i: int | None) -> list[float]:
        return one_hot(size, i) if i is not None and i >= 0 else [0.0] * size

    out: dict[str, list[float]] = {
        "viewer": hot(n, view["seat"]),
        "players": [n],
        "phase": hot(len(PHASE_NAMES), PHASE_NAMES.index(view["phase"])),
        "current_player": hot(n, view["current_player"]),
        "active": hot(n, view["active"]),
        "start_seat": hot(n, view["start_seat"]),
        "turn": [view["turn"]],
        "deck_count": [view["deck_count"]],
        "final_round": [float(view["final_round"])],
        "final_turns_left": [view["final_turns_left"]],
        "hand_sizes": view["hand_sizes"],
    }
    hand = [0.0] * (game.hand_size * c)
    for k, name in enumerate(view["hand"]):
        hand[k * c + card[name]] = 1.0
    out["hand"] = hand
    out["role"] = hot(r, role.get(view["role"]))
    out["roles"] = [1.0 if game.role_names[i] in names else 0.0
                    for names in view["roles"] for i in range(r)]
    known = [0.0] * (n * c)
    for s, names in [(view["seat"], view["hand"])] + [(int(k), v) for k, v in
                                                       view["known_hands"].items()]:
        for name in names:
            known[s * c + card[name]] = 1.0
    out["known_hands"] = known
    row = [0.0] * (c * (c + 2))
    for k, slot in enumerate(view["row"]):
        row[k * (c + 2)] = 1.0
        row[k * (c + 2) + 1] = float(slot["face_up"])
        if slot["card"] is not None:
            row[k * (c + 2) + 2 + card[slot["card"]]] = 1.0
    out["row"] = row
    out["discard"] = one_hot(c, *(card[x] for x in view["discard"]))
    order = [0.0] * c
    for k, name in enumerate(view["discard"]):
        order[card[name]] = k + 1
    out["discard_order"] = order
    removed, unseen = [0.0] * c, [0.0] * c
    for k, name in enumerate(view["removed"]):
        if name is None:
            unseen[k] = 1.0
        else:
            removed[card[name]] = k + 1
    out["removed"], out["removed_unseen"] = removed, unseen
    record = view["identity_confirmation"]
    out["identity_confirmation"] = (one_hot(n, *record["eye"]) + one_hot(n, *record["thumb"])
                                    if record else [0.0] * (2 * n))
    pending = view["pending"] or {}
    out["pending"] = [1.0 if pending else 0.0]
    out["pending_receiver"] = hot(n, pending.get("receiver"))
    out["pending_card"] = hot(c, card.get(pending.get("card")))
    effect = pending.get("effect")
    out["pending_effect"] = hot(len(EFFECTS), EFFECTS.index(effect) if effect else None)
    target = pending.get("target")
    out["pending_target"] = hot(r, position(target) if target else None)
    out["pending_swap_card"] = hot(c, card.get(pending.get("your_swap_card")))
    out["eliminated"] = hot(n, view["eliminated"])
    decl = [0.0] * (n * 2 * r)
    for d in view["declarations"]:
        decl[d["seat"] * 2 * r + position(d["red_informer"])] = 1.0
        if d["blue_informer"] is not None:
            decl[d["seat"] * 2 * r + r + position(d["blue_informer"])] = 1.0
    out["declarations"] = decl
    winner = view["winner_faction"]
    out["winner_faction"] = hot(4, FACTIONS.index(winner) if winner else None)
    out["winners"] = one_hot(n, *view["winners"])
    kind, _, reason = (view["ending"] or "").partition(":")
    out["ending"] = hot(2, ("deck_out", "retire").index(kind) if kind else None)
    out["ending_reason"] = hot(4, REASONS.index(reason) if reason else None)
    return out


@pytest.mark.parametrize("players", [3, 5, 8])
def test_tensor_writes_the_observation_exactly(players):
    game = load_game("under-current", players=players)
    rng = random.Random(players)
    seen = set()
    for _ in range(4):
        state = game.new_initial_state()
        while True:
            for seat in range(players):
                view = state.observation(seat)
                want = encode(game, view)
                got = planes(state, seat)
                assert list(got) == list(want)
                for name, values in got.items():
                    assert values == want[name], (name, state.phase_name, seat)
                seen.update(k for k, v in got.items() if any(v))
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
    assert {"row", "discard", "pending_effect", "ending", "winners"} <= seen
