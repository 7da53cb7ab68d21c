"""The action table: a hand-scripted replay is counted as written, the winners' and losers'
plays add up to the total, a study keeps the table in its rows, JSON and report, and the rules in
play are read from the outcome and from the actions tied to a key."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from fieldcraft.core.api import sample_chance
from fieldcraft.core.registry import load_game
from fieldcraft.sim.actions import SEP, rules_in_play, summary, tally


def _deal(state: object, rng: random.Random) -> None:
    while state.current_player() < 0 and not state.is_terminal():  # type: ignore[attr-defined]
        state.apply_action(sample_chance(state, rng))  # type: ignore[attr-defined]


def test_tally_counts_a_scripted_replay_by_hand() -> None:
    # Spy Tracker at 3: the deal (chance), the first bidder bids "1 Face" and hands the turn
    # to the seat after it, which calls; then the next deal starts (chance again). By hand: the
    # first bidder made one bid, on Face, and one "next"; the second one call; the third
    # nothing; the dealt cards (chance) count for nobody.
    game = load_game("spy-tracker", players=3)
    note = game.notation
    rng = random.Random(5)
    state = game.new_initial_state()
    _deal(state, rng)
    first = state.current_player()  # the rules draw the first bidder
    second = (first + 1) % 3
    for text in ("bid 1 Face", f"next: seat {second}", "call"):
        state.apply_action(note.string_to_action(state, text))
    _deal(state, rng)
    expected: list[dict[str, int]] = [{}, {}, {}]
    expected[first] = {"bid": 1, f"bid{SEP}Face": 1, "next": 1}
    expected[second] = {"call": 1}
    assert tally(game, state.history()) == expected


def test_summary_splits_winners_and_losers_into_the_total() -> None:
    rows = [
        {"players": 3, "winners": [0], "actions": [{"bid": 2, "call": 1}, {"bid": 1}, {}]},
        {"players": 3, "winners": [1, 2], "actions": [{"bid": 1}, {"bid": 3}, {"spot": 1}]},
        {"players": 4, "winners": [], "actions": [{"bid": 1}, {}, {}, {}]},
        {"players": 3, "winners": [0], "actions": None},  # an older study: no tally, skipped
    ]
    table = summary(rows)
    bid = table[3]["bid"]
    assert (bid["total"], bid["winners"], bid["losers"]) == (7, 5, 2)
    # 3 winning seat-games (seat 0, then seats 1 and 2) and 3 losing ones.
    assert bid["per_winner"] == pytest.approx(5 / 3)
    assert bid["per_loser"] == pytest.approx(2 / 3)
    assert (bid["games"], bid["game_share"]) == (2, 1.0)
    assert table[3]["spot"]["game_share"] == 0.5
    assert table[4]["bid"]["winners"] == 0 and table[4]["bid"]["per_winner"] is None
    for keys in table.values():
        for cell in keys.values():
            assert cell["winners"] + cell["losers"] == cell["total"]


def test_a_study_keeps_the_action_table(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.sim.report import write_report
    from fieldcraft.sim.study import load_results, run_study

    run_study("spy-tracker", [3], "random", 4, 2, None, 1, tmp_path)
    rows, meta = load_results(tmp_path)
    assert all(r["actions"] is not None and len(r["actions"]) == 3 for r in rows)
    # The table's totals are the rows' counts added up, split by winners and losers.
    total: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for r in rows:
        for seat, counts in enumerate(r["actions"]):
            total.update(counts)
            if seat in r["winners"]:
                won.update(counts)
    table = meta["actions"]["3"]
    assert {k: c["total"] for k, c in table.items()} == dict(total)
    assert {k: c["winners"] for k, c in table.items() if c["winners"]} == dict(won)
    assert all(c["winners"] + c["losers"] == c["total"] for c in table.values())
    assert table["bid"]["total"] > 0
    _, md = write_report(tmp_path)
    text = md.read_text(encoding="utf-8")
    assert "## What players do" in text and f"`bid{SEP}" in text
    assert json.loads((tmp_path / "study.json").read_text())["rules_in_play"]["3"]


def test_rules_in_play_from_the_outcome_and_from_tied_actions() -> None:
    rulesets = {"5": {"green_declaration": True, "hand_size": 2}}
    rows = [{"players": 5, "ending": "deck_out", "decided_by": "green_declaration"},
            {"players": 5, "ending": "retire", "decided_by": "majority"}]
    seen = rules_in_play("under-current", rows, rulesets)
    assert seen[5]["green_declaration"]["share"] == 0.5
    assert set(seen[5]) == {"green_declaration"}  # neither ending names a ruleset key
    spy = [{"players": 3, "actions": [{"next": 2}, {}, {}]},
           {"players": 3, "actions": [{"bid": 1}, {}, {}]}]
    seen = rules_in_play("spy-tracker", spy, {"3": {"bidder_chooses_next": True}})
    assert seen[3]["bidder_chooses_next"]["games"] == 1
    assert seen[3]["bidder_chooses_next"]["of"] == 2
    assert "spot_points" not in seen[3]  # not a key of that ruleset: not reported


def test_under_current_green_declaration_counts_when_the_greens_name_informers() -> None:
    """The declaration comes into play whenever the Greens name the Informers, also when the
    naming is wrong and the game goes on to Yellow's balance: the outcome alone misses those."""
    rulesets = {"4": {"green_declaration": True, "informer_removal": True}}
    rows = [{"players": 4, "ending": "deck_out", "decided_by": "majority",
             "actions": [{"name": 1, f"name{SEP}Red": 1}, {}, {}, {}]},
            {"players": 4, "ending": "deck_out", "decided_by": "green_card",
             "actions": [{"pass": 3}, {}, {}, {}]},
            {"players": 4, "ending": "retire", "decided_by": "green_declaration",
             "actions": [{}, {"name": 2}, {}, {}]}]
    seen = rules_in_play("under-current", rows, rulesets)[4]["green_declaration"]
    assert (seen["games"], seen["of"]) == (2, 3)
    assert "name" in seen["seen_as"]
    off = rules_in_play("under-current", rows, {"4": {"informer_removal": True}})
    assert "green_declaration" not in off.get(4, {})


def test_against_the_current_pressure_terrain_counts_when_a_pressure_is_placed() -> None:
    rulesets = {"2": {"pressure_terrain": {"Axolotl": "Water Plants"}, "event_deck": {}}}
    rows = [{"players": 2, "actions": [{"pressure": 1, f"pressure{SEP}Water Plants": 1}, {}]},
            {"players": 2, "actions": [{"move": 9}, {"move": 8}]}]
    seen = rules_in_play("against-the-current", rows, rulesets)[2]
    assert (seen["pressure_terrain"]["games"], seen["pressure_terrain"]["of"]) == (1, 2)
    assert seen["event_deck"]["games"] == 0  # a key in the list but never seen: 0, not absent
