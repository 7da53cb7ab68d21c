"""The deduction report: scripted moments with a known answer (a SPY shows a role, a Spy Tracker
bid the seat's own hand makes true), soundness on random games of every game (whatever a seat
is certain of is the truth, and the truth is never ruled out), uncertainty that only falls
where a game only reveals, the resample estimate agreeing with the exact answer, bad input,
the ``report-game`` command and the studies' time-to-unmask."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fieldcraft.cli import main
from fieldcraft.core.api import Game, random_playout
from fieldcraft.core.deduction import (
    DeductionError,
    NoSecretsError,
    deduction_for,
    deduction_report,
    entropy,
    read_replay,
)
from fieldcraft.core.registry import load_game
from fieldcraft.games.under_current.constants import FLIP, SPY, TARGET
from fieldcraft.sim import unmask

GAMES = [("under-current", 5), ("spy-tracker", 3), ("undercover", 4),
         ("against-the-current", 3)]


def random_game(name: str, players: int, seed: int) -> tuple[Game, list[int]]:
    game = load_game(name, players=players)
    state = game.new_initial_state()
    random_playout(state, random.Random(seed))
    return game, state.history()


def point_at(timeline: list[dict[str, Any]], step: int) -> dict[str, Any]:
    return [p for p in timeline if p["step"] <= step][-1]


# -- scripted: a known answer ---------------------------------------------------------------------
def find_spy() -> tuple[Game, list[int], int, int, int]:
    """The first seeded 5-player game whose SPY shows a role its spy did not know yet, with no
    FLIP afterwards (a FLIP moves role cards, and knowledge with them): (game, actions, the step
    just after the SPY names its target, the spy, the target)."""
    from fieldcraft.games.under_current.view import deduce

    game = load_game("under-current", players=5)
    kind = deduction_for(game).kind
    for seed in range(300):
        state = game.new_initial_state()
        rng = random.Random(seed)
        found = None
        flipped = False
        while not state.is_terminal():
            legal = state.legal_actions()
            action = legal[int(rng.random() * len(legal))]
            if state.phase == TARGET and state.effect == FLIP and found:
                flipped = True
            if state.phase == TARGET and state.effect == SPY and found is None:
                spy, target = state.active, action - game.A_TARGET
                known = deduce(state.role_masks[spy])[target]
                if len({kind[r] for r in range(game.num_roles) if known >> r & 1}) > 1:
                    found = (len(state.history()) + 1, spy, target)
            state.apply_action(action)
        if found and not flipped:
            return (game, state.history(), *found)
    raise AssertionError("no seeded game with an informative SPY and no FLIP after it")


def test_a_spy_makes_the_spied_role_certain_from_that_step() -> None:
    game, actions, step, spy, target = find_spy()
    report = deduction_report(game, actions, seat=spy)
    seat = report["seats"][0]
    key = f"role.{target}"
    truth = game.ruleset["roles"][game.replay(actions).roles[target]]["name"]
    before = point_at(seat["timeline"], step - 1)
    after = point_at(seat["timeline"], step)
    assert len(before["secrets"][key]["dist"]) > 1
    assert after["secrets"][key]["dist"] == {truth: 1.0}
    turn = game.replay(actions[:step]).turn + 1
    assert seat["secrets"][key]["certain_from"] == {"step": step, "turn": turn, "value": truth}
    # the uncertainty about the whole deal fell at that step
    assert after["entropy"] < before["entropy"]
    assert after["assignments"] < before["assignments"]


def test_a_bid_the_own_hand_makes_true_has_probability_one() -> None:
    game = load_game("spy-tracker", players=2)
    rng = random.Random(3)
    for _ in range(300):
        state = game.new_initial_state()
        while state.is_chance_node():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
        seat = state.current_player()
        counts = [sum(game.delta[a][c] for c in state.hands[seat]) for a in range(9)]
        traitors = sum(1 for c in game.deck if min(game.delta[a][c] for a in range(9)) < 0)
        other = 1 - seat
        # a bid of 1 on a trait the seat holds twice more than all Traitors could take away
        best = max(range(9), key=lambda a: counts[a])
        if counts[best] - min(traitors, len(state.hands[other])) < 1:
            continue
        action = game.bid_action(1, best)
        if action not in state.legal_actions():
            continue
        state.apply_action(action)
        d = deduction_for(game)
        assert d.chance_true(state, seat) == 1.0
        # the other seat, who does not hold those cards, is not sure of it
        assert d.chance_true(state, other) < 1.0
        report = deduction_report(game, state.history(), seat=seat)
        last = report["seats"][0]["timeline"][-1]
        (entry,) = last["secrets"].values()
        assert entry == {"dist": {"true": 1.0}, "exact": True}
        return
    pytest.fail("no deal where the opener's hand makes a bid certain")


def test_a_bid_of_every_card_in_play_is_certainly_false_to_a_seat_holding_a_blank() -> None:
    """A bid of as many cards as are in play needs every card to add one: a seat holding a card
    that adds nothing to the trait knows it is false; the bidder, who may not, does not."""
    game = load_game("spy-tracker", players=2)
    for seed in range(500):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while state.is_chance_node():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
        bidder = state.current_player()
        other = 1 - bidder
        attr = next((a for a in range(9)
                     if any(game.delta[a][c] <= 0 for c in state.hands[other])
                     and all(game.delta[a][c] > 0 for c in state.hands[bidder])), None)
        if attr is not None:
            break
    else:
        pytest.fail("no deal with a trait the bidder holds throughout")
    state.apply_action(game.bid_action(state.in_play, attr))
    d = deduction_for(game)
    assert d.chance_true(state, other) == 0.0
    assert 0.0 < d.chance_true(state, bidder) < 1.0


# -- every game: sound, and the estimate agrees ----------------------------------------------
@pytest.mark.parametrize("name,players", GAMES)
def test_certainty_is_always_the_truth_and_the_truth_never_ruled_out(name: str,
                                                                     players: int) -> None:
    game, actions = random_game(name, players, seed=11)
    report = deduction_report(game, actions)
    json.dumps(report)  # JSON-able as it is
    d = deduction_for(game)
    state = game.new_initial_state()
    for step in range(len(actions) + 1):
        for seat_report in report["seats"]:
            point = point_at(seat_report["timeline"], step)
            truths = {x.key: x.truth for x in d.secrets(state, seat_report["seat"])}
            assert set(point["secrets"]) == set(truths)
            for key, entry in point["secrets"].items():
                assert entry["dist"].get(truths[key], 0.0) > 0.0, (step, key, entry)
                assert abs(sum(entry["dist"].values()) - 1.0) < 1e-3
        if step < len(actions):
            state.apply_action(actions[step])
    for seat_report in report["seats"]:
        for info in seat_report["secrets"].values():
            mark = info["certain_from"]
            if mark is not None and info["last_step"] == report["steps"]:
                assert mark["value"] == info["truth"]


def test_role_arrangements_and_backs_only_narrow() -> None:
    """Under Current and Undercover only reveal (a FLIP moves knowledge with the cards), so a
    seat's count of role arrangements never grows, nor the uncertainty about any one Agent's
    hidden face wherever it goes."""
    for seed in (1, 2):
        game, actions = random_game("under-current", 6, seed)
        for seat_report in deduction_report(game, actions)["seats"]:
            counts = [p["assignments"] for p in seat_report["timeline"] if "assignments" in p]
            assert counts and counts == sorted(counts, reverse=True)
        game, actions = random_game("undercover", 3, seed)
        d = deduction_for(game)
        worst: dict[int, float] = {}  # by the Agent's true id, which the report never names
        state = game.new_initial_state()
        for step in range(len(actions) + 1):
            secrets = d.secrets(state, 0)
            belief = d.belief(state, 0, secrets)
            for key, _, agent in d.in_sight(state):
                h = entropy(belief.exact[key])
                assert h <= worst.get(agent, 1.0) + 1e-9, (step, key)
                worst[agent] = h
            if step < len(actions):
                state.apply_action(actions[step])
        assert any(h == 0.0 for h in worst.values())


@pytest.mark.parametrize("name,players", GAMES)
def test_beliefs_read_only_what_the_seat_knows(name: str, players: int) -> None:
    """A state and a re-deal of everything the seat cannot see (``resample``) differ only in
    what is hidden from it: its secrets' names and its exact beliefs must be the same."""
    game, actions = random_game(name, players, seed=4)
    d = deduction_for(game)
    rng = random.Random(0)
    state = game.new_initial_state()
    checked = 0
    for step, action in enumerate(actions):
        if step % 3 == 0 and not state.is_chance_node():
            for seat in range(players):
                other = state.resample(seat, rng)
                mine = d.secrets(state, seat)
                theirs = d.secrets(other, seat)
                assert [(x.key, x.label) for x in mine] == [(x.key, x.label) for x in theirs]
                a, b = d.belief(state, seat, mine), d.belief(other, seat, theirs)
                assert (a.exact, a.joint_entropy, a.extra) == (b.exact, b.joint_entropy, b.extra)
                checked += bool(mine)
        state.apply_action(action)
    assert checked > 3


@pytest.mark.parametrize("name,players,cut", [("under-current", 5, 40), ("undercover", 3, 70)])
def test_the_resample_estimate_agrees_with_the_exact_answer(name: str, players: int,
                                                             cut: int) -> None:
    game, actions = random_game(name, players, seed=2)
    actions = actions[:cut]
    exact = deduction_report(game, actions, seat=1)
    sampled = deduction_report(game, actions, seat=1, method="sample", samples=300, seed=4)
    assert sampled["samples"] == 300 and exact["samples"] == 0
    worst = 0.0
    uncertain = 0
    for point in sampled["seats"][0]["timeline"]:
        ref = point_at(exact["seats"][0]["timeline"], point["step"])
        for key, entry in point["secrets"].items():
            assert not entry["exact"]
            uncertain += len(ref["secrets"][key]["dist"]) > 1
            for value, p in entry["dist"].items():
                worst = max(worst, abs(p - ref["secrets"][key]["dist"].get(value, 0.0)))
    assert uncertain > 0 and worst < 0.12  # 300 draws: a few standard errors of a half


def test_same_seed_same_report_and_bad_input_is_refused() -> None:
    game, actions = random_game("spy-tracker", 2, seed=5)
    a = deduction_report(game, actions[:30], samples=20, seed=1, method="sample")
    assert a == deduction_report(game, actions[:30], samples=20, seed=1, method="sample")
    for bad in [dict(seat=2), dict(seat=-1), dict(seat="0"), dict(samples=0),
                dict(samples=10**6), dict(method="guess")]:
        with pytest.raises(DeductionError) as err:
            deduction_report(game, actions, **bad)
        assert err.value.code == "deduce.bad_request"
    for bad_actions in (["1"], [1.0], "123", [10**9]):
        with pytest.raises(DeductionError):
            deduction_report(game, bad_actions)
    with pytest.raises(DeductionError):
        read_replay({"game": "spy-tracker", "players": 2, "actions": "x"})
    # a game that declares no secrets has no report (and says so by its own code)
    bare = type(game)(replace(game.spec, deduction=None), 2, game.ruleset, game.overrides)
    with pytest.raises(NoSecretsError) as err:
        deduction_report(bare, actions)
    assert err.value.code == "deduce.no_secrets"


# -- the command ----------------------------------------------------------------------------------
def test_report_game_reads_a_replay_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    game, actions = random_game("under-current", 4, seed=3)
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"game": "under-current", "players": 4, "overrides": {},
                                "actions": actions}))
    assert main(["report-game", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("under-current, 4 players") and "seat 4:" in out
    assert main(["report-game", str(path), "--seat", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["seat"] for s in doc["seats"]] == [1]
    assert main(["report-game", str(path), "--seat", "5"]) == 2
    assert "--seat must be 1-4" in capsys.readouterr().err
    path.write_text("{not json")
    assert main(["report-game", str(path)]) == 2


# -- studies: time to unmask -------------------------------------------------------------------
def test_time_to_unmask_matches_the_report_and_the_curve_is_censored() -> None:
    game, actions = random_game("under-current", 5, seed=7)
    d = deduction_for(game)
    times = d.unmask_turns(actions)
    report = deduction_report(game, actions)
    sides = {}  # the side of every seat at each step (a FLIP can change it)
    for subject in range(5):
        firsts = []
        for seat_report in report["seats"]:
            viewer = seat_report["seat"]
            for point in seat_report["timeline"]:
                entry = point["secrets"].get(f"role.{subject}")
                if point["step"] == report["steps"] or not entry or len(entry["dist"]) > 1:
                    continue
                if point["step"] not in sides:
                    state = game.replay(actions[:point["step"]])
                    sides[point["step"]] = [state.seat_label(s) for s in range(5)]
                if sides[point["step"]][viewer] != sides[point["step"]][subject]:
                    firsts.append(point["turn"])  # an opponent knew: a teammate does not count
                    break
        assert times["turns"][subject] == (min(firsts) if firsts else None)
    assert any(t is not None for t in times["turns"])
    # two seats: one unmasked at turn 2, one hidden to the end of a 4-turn game (censored)
    rows = [{"players": 3, "labels": ["Blue", "Blue", "Red"],
             "unmask": {"turns": [2, None, 3], "last_turn": 4, "labels": ["Blue", "Blue",
                                                                          "Red"]}}]
    data = unmask.summary(rows)
    assert data[(3, "Blue")]["curve"] == [(0, 1.0), (2, 0.5)]
    assert data[(3, "Blue")]["median"] == 2 and data[(3, "Red")]["median"] == 3
    assert unmask.kaplan_meier([(1, False), (2, True)]) == [(0, 1.0), (2, 0.0)]
