"""Named variants, and Spy Tracker's ``tiny`` one under OpenSpiel's exact tools (issue #36).

The variant is only worth having if exact methods finish on it, so the OpenSpiel test runs
them as a researcher would (``get_all_states``, CFR+, ``exploitability.nash_conv``) and holds
them to the time the issue asks for. It runs in a subprocess, as the other OpenSpiel tests do
(``openspiel_run.py``: an interpreter that registered a Python game can abort while shutting
down).
"""

from __future__ import annotations

import json
import os
import pickle
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fieldcraft
from fieldcraft.core.errors import RulesetError
from fieldcraft.core.registry import default_ruleset, variant_overrides, variants

ROOT = Path(__file__).resolve().parents[2]


def test_a_variant_is_its_overrides() -> None:
    rules = variants("spy-tracker")["tiny"]["rules"]
    game = fieldcraft.load_game("spy-tracker", players=2, variant="tiny")
    for key, value in rules.items():
        assert game.ruleset[key] == value
    same = fieldcraft.load_game("spy-tracker", 2, **rules)
    assert game.ruleset == same.ruleset
    assert game.info() == same.info()


def test_explicit_overrides_win_over_the_variant() -> None:
    rules = variants("spy-tracker")["tiny"]["rules"]
    other = rules["min_bid"] + 1
    game = fieldcraft.load_game("spy-tracker", 2, variant="tiny", min_bid=other)
    assert game.ruleset["min_bid"] == other
    assert all(game.ruleset[k] == v for k, v in rules.items() if k != "min_bid")


def test_an_unknown_variant_names_the_known_ones() -> None:
    with pytest.raises(RulesetError) as err:
        fieldcraft.load_game("spy-tracker", 2, variant="huge")
    for name in variants("spy-tracker"):
        assert name in str(err.value)
    with pytest.raises(RulesetError, match="known variants: none"):
        fieldcraft.load_game("under-current", variant="tiny")


def test_a_ruleset_key_named_variant_still_works() -> None:
    """Undercover's rules have their own ``variant`` key; naming one of its values is that key,
    as before named variants existed."""
    assert "variant" in default_ruleset("undercover")
    game = fieldcraft.load_game("undercover", 2, variant="classified")
    assert game.ruleset["variant"] == "classified"
    assert variant_overrides("undercover", "classified", {}) == {"variant": "classified"}


def test_a_variant_state_pickles_into_the_same_rules() -> None:
    game = fieldcraft.load_game("spy-tracker", 2, variant="tiny")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    copy = pickle.loads(pickle.dumps(state))
    assert copy.game.ruleset == game.ruleset
    assert json.loads(copy.to_json()) == json.loads(state.to_json())


def test_the_tiny_deck_and_bids_are_what_the_variant_says() -> None:
    game = fieldcraft.load_game("spy-tracker", 2, variant="tiny")
    rules = game.ruleset
    roles, factions, cities = rules["spy_deck"]
    spies = [c for c in game.deck if c < 27]
    assert len(spies) == roles * factions * cities
    assert len(game.deck) == len(spies) + rules["mercenaries"] + rules["traitors"]
    seen: set[str] = set()
    for _ in range(20):  # a few random rounds: every bid names an allowed trait
        state = game.new_initial_state()
        rng = random.Random(len(seen))
        while not state.is_terminal():
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            if not state.is_chance_node() and action >= 2 and action < game.next_base:
                seen.add(state.action_to_string(action).split(" ", 2)[-1])
            state.apply_action(action)
    assert seen and seen <= set(rules["bid_traits"])


_SOLVE = r"""
import json, sys, time
import pyspiel
from open_spiel.python.algorithms import cfr, exploitability, get_all_states
import fieldcraft.adapters.openspiel as fo

out = {}
game = pyspiel.load_game("fieldcraft_spy_tracker(players=2,variant=tiny)")
out["params"] = game.get_parameters()
start = time.perf_counter()
states = get_all_states.get_all_states(game, -1, True, True)
out["states"] = len(states)
out["states_seconds"] = time.perf_counter() - start
decisions = [s for s in states.values() if not s.is_terminal() and not s.is_chance_node()]
out["info_states"] = len({s.information_state_string() for s in decisions})
solver = cfr.CFRPlusSolver(game)
out["nash_conv"] = []
start = time.perf_counter()
for it in range(1, 101):
    solver.evaluate_and_update_policy()
    if it % 25 == 0:
        conv = exploitability.nash_conv(game, solver.average_policy())
        out["nash_conv"].append((it, conv))
        if conv < 0.05:
            break
out["solve_seconds"] = time.perf_counter() - start
bigger = pyspiel.load_game("fieldcraft_spy_tracker",
                           {"players": 2, "variant": "tiny", "rules": '{"min_bid": 2}'})
out["override_wins"] = bigger.setup.fc.ruleset["min_bid"]
try:
    pyspiel.load_game("fieldcraft_spy_tracker(players=2,variant=huge)")
    out["unknown"] = None
except Exception as exc:
    out["unknown"] = str(exc)
print(json.dumps(out))
fo.exit_cleanly()
"""


def test_cfr_plus_solves_the_tiny_variant_through_openspiel() -> None:
    pytest.importorskip("pyspiel")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _SOLVE], capture_output=True, text=True,
                          timeout=600, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["params"]["variant"] == "tiny"
    assert out["states"] > 0 and out["info_states"] > 0
    assert out["states_seconds"] < 30, "get_all_states should take seconds on this variant"
    iterations, conv = out["nash_conv"][-1]
    assert conv < 0.05, f"CFR+ NashConv after {iterations} iterations: {out['nash_conv']}"
    assert elapsed < 180, f"the exact tools took {elapsed:.0f} s, not well within 3 minutes"
    assert out["override_wins"] == 2
    assert out["unknown"] and "tiny" in out["unknown"]
