"""``tune`` plays each effective ruleset once: rule values that make the same games at the
counts played share one key (and different ones do not), a run reuses the result and says so,
and a re-played loss comes with an interval that holds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fieldcraft.core.registry import load_game
from fieldcraft.sim.study import _play_chunk, validate
from fieldcraft.sim.tune_cache import effective_key, effective_ruleset, loss_interval
from fieldcraft.sim.tune_space import Target, game_metrics


def _key(game: str, counts: list[int], **overrides: object) -> str:
    return effective_key(validate(game, counts, dict(overrides)))


def _roles(game: str, index: int, joins: int) -> list[dict[str, object]]:
    roles = [dict(r) for r in load_game(game, players=5).ruleset["roles"]]
    roles[index]["from"] = joins
    return roles


def test_equivalent_rulesets_share_a_key_and_different_ones_do_not() -> None:
    # The sixth role joining from 3 or from 4 players: the same game at 4 and 5 players, not
    # at 3 (where it is in with 3 and out with 4). Joining from 6: out at 4-5, another game.
    from3, from4, from6 = (_roles("under-current", 5, n) for n in (3, 4, 6))
    assert _key("under-current", [4, 5], roles=from3) == _key("under-current", [4, 5],
                                                              roles=from4)
    assert _key("under-current", [3, 4], roles=from3) != _key("under-current", [3, 4],
                                                              roles=from4)
    assert _key("under-current", [4, 5], roles=from3) != _key("under-current", [4, 5],
                                                              roles=from6)
    # A count-keyed entry matters only at its own count.
    assert _key("spy-tracker", [3], sources={"2": 5, "3": 4, "4": 3}) == \
        _key("spy-tracker", [3], sources={"2": 6, "3": 4, "4": 3})
    assert _key("spy-tracker", [3], sources={"2": 6, "3": 5, "4": 3}) != \
        _key("spy-tracker", [3], sources={"2": 6, "3": 4, "4": 3})


def test_effective_ruleset_reduces_only_the_player_count_conventions() -> None:
    rules = {"hand": 2, "bonus": {"3": 1, "4": 0}, "cards": [{"id": "a", "from": 3},
                                                            {"id": "b", "from": 5}],
             "blocked_players": [2, 4], "tiles": [1, 2]}
    assert effective_ruleset(rules, 4) == {"hand": 2, "bonus": {"@players": 0},
                                           "cards": [{"id": "a"}], "blocked_players": True,
                                           "tiles": [1, 2]}
    assert effective_ruleset(rules, 5)["bonus"] == {"@players": "(absent)"}


def test_tune_reuses_equivalent_trials_and_says_so(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("optuna")
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    from fieldcraft.cli import main

    out = tmp_path / "t"
    rc = main(["tune", "under-current", "--players", "4,5", "--param", "roles.5.from=3..8",
               "--target", "balance", "--trials", "8", "--games-per-trial", "6",
               "--reeval-games", "6", "--top-k", "2", "--agents", "random", "--workers", "1",
               "--out", str(out)])
    assert rc == 0
    meta = json.loads((out / "tune.json").read_text())
    rows = json.loads((out / "trials.json").read_text())
    search = [r for r in rows if r["phase"] == "search"]
    # At 4-5 players a role joining from 3 or 4 is in, from 6 to 8 out, from 5 in at 5 only:
    # three games in effect, whatever values the sampler drew.
    classes = {min(r["values"]["roles.5.from"], 4) if r["values"]["roles.5.from"] < 5 else
               (5 if r["values"]["roles.5.from"] == 5 else 6) for r in search}
    assert meta["distinct"]["trials"] == 8
    assert meta["distinct"]["distinct"] == len(classes)
    first = {}
    for r in [rows[0], *search]:
        klass = r["effective"]
        if klass in first:  # a repeat: reused, with the very result of the first
            assert r["same_as"] is not None and r["seconds"] == 0.0
            assert r["loss"] == first[klass]["loss"]
        else:
            assert r["same_as"] is None
            first[klass] = r
    reused = sum(r["same_as"] is not None for r in search)
    assert reused == meta["distinct"]["reused"] > 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "8 trials in" in printed and f"{len(classes)} distinct ({reused} reused" in printed
    assert "95%" in printed


def test_the_loss_interval_holds_the_loss() -> None:
    counts = [4, 5]
    rows = [r for p in counts
            for r in _play_chunk("under-current", p, {}, ["random"], 1, list(range(30)))]
    for target in (Target("balance"), Target("duration", value=40.0)):
        value, low, high = loss_interval(rows, counts, target, seed=2) or (None, None, None)
        assert value == pytest.approx(target.loss(game_metrics(rows, counts)))
        assert low is not None and high is not None
        assert low <= value <= high and low < high
