"""``fieldcraft tune``: the search finds a planted optimum, re-evaluation beats a lucky trial,
the CLI writes its files, and bad ``--param``/``--target`` input fails in one line."""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("optuna")
pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from fieldcraft.cli import main, parse_sets  # noqa: E402
from fieldcraft.core.registry import default_ruleset, load_game  # noqa: E402
from fieldcraft.sim.tune import (  # noqa: E402
    BEST,
    CHART,
    TRIALS_CSV,
    TRIALS_JSON,
    TUNE,
    Param,
    TuneError,
    apply_values,
    game_metrics,
    parse_param,
    parse_target,
    tune,
)


def _noise(values: dict[str, Any], first: int) -> float:
    """Deterministic noise per (ruleset, deals), like a small study's sampling error."""
    return random.Random(json.dumps([values, first], sort_keys=True)).gauss(0, 0.01)


def test_tune_finds_a_planted_optimum(tmp_path: Path) -> None:
    # Optimum x = 2.5 (float), n = 13 (int), mode = "b" (choice); the default is far from it.
    space = [Param("x", ("x",), "float", -4.0, -5.0, 5.0),
             Param("n", ("n",), "int", 2, 0, 20),
             Param("mode", ("mode",), "choice", "a", choices=("a", "b", "c"))]
    calls: list[tuple[int, int]] = []

    def objective(values: dict[str, Any], games: int, first: int) -> float:
        calls.append((games, first))
        return ((values["x"] - 2.5) / 5) ** 2 + ((values["n"] - 13) / 20) ** 2 + \
            (0.0 if values["mode"] == "b" else 0.3) + _noise(values, first)

    meta = tune("toy", [2], space, "balance", 60, tmp_path, games_per_trial=50, seed=3,
                top_k=3, objective=objective)
    best = meta["best"]["values"]
    assert abs(best["x"] - 2.5) < 0.75
    assert abs(best["n"] - 13) <= 2
    assert best["mode"] == "b"
    assert meta["improved"]
    assert meta["best"]["reeval_loss"] < meta["default"]["reeval_loss"] - 0.3
    # The default and 60 trials on the search's deals, then 4 re-plays on fresh, larger ones.
    assert calls.count((50, 0)) == 61
    assert calls.count((200, 50)) == 4
    assert json.loads((tmp_path / BEST).read_text()) == best


def test_reevaluation_overrules_a_lucky_trial(tmp_path: Path) -> None:
    # "lucky" looks perfect on the search's deals but is worse on fresh ones; "steady" is good
    # everywhere. The search ranks lucky first; the re-evaluation must declare steady best.
    space = [Param("arm", ("arm",), "choice", "bad", choices=("bad", "lucky", "steady"))]
    losses = {"bad": (0.9, 0.9), "lucky": (0.0, 0.6), "steady": (0.2, 0.2)}

    def objective(values: dict[str, Any], games: int, first: int) -> float:
        search, fresh = losses[values["arm"]]
        return search if first == 0 else fresh

    meta = tune("toy", [2], space, "balance", 8, tmp_path, games_per_trial=10, top_k=2,
                objective=objective)
    search_best = min((r for r in json.loads((tmp_path / TRIALS_JSON).read_text())
                       if r["phase"] == "search"), key=lambda r: r["loss"])
    assert search_best["values"] == {"arm": "lucky"}
    assert meta["best"]["values"] == {"arm": "steady"}
    assert meta["best"]["reeval_loss"] == pytest.approx(0.2)


def test_default_kept_when_nothing_beats_it(tmp_path: Path) -> None:
    space = [Param("k", ("k",), "int", 5, 0, 9)]
    meta = tune("toy", [2], space, "balance", 6, tmp_path, games_per_trial=10,
                objective=lambda v, g, f: abs(v["k"] - 5) + 0.1)
    assert not meta["improved"]
    assert meta["best"]["trial"] == "default"
    assert json.loads((tmp_path / BEST).read_text()) == {"k": 5}


def test_nested_param_is_a_loadable_override() -> None:
    rules = default_ruleset("under-current")
    p = parse_param("roles.5.from=3..8", rules)
    assert (p.kind, p.low, p.high, p.default) == ("int", 3, 8, 5)
    over = apply_values([p], {"roles.5.from": 4}, {"hand_size": 3}, rules)
    assert set(over) == {"roles", "hand_size"}
    changed = [i for i, (a, b) in enumerate(zip(rules["roles"], over["roles"], strict=True))
               if a != b]
    assert changed == [5] and over["roles"][5]["from"] == 4
    assert rules["roles"][5]["from"] == 5  # the defaults are not modified
    game = load_game("under-current", players=4, **over)
    assert game.ruleset["roles"][5]["from"] == 4
    assert parse_param("green_declaration", rules).choices == (False, True)
    assert parse_param("hand_size=1,3", rules).choices == (1, 3)


def test_metrics_on_hand_built_rows() -> None:
    def row(winners: list[str]) -> dict[str, Any]:
        labels = ["Blue", "Red", "Yellow"]
        return {"players": 3, "labels": labels, "agents": ["h"] * 3, "length": 10,
                "winners": [labels.index(w) for w in winners], "winning_labels": winners,
                "ending": None, "decided_by": None}

    rows = [row(["Blue"])] * 6 + [row(["Red"])] * 3 + [row(["Yellow"])]
    m = game_metrics(rows, [3])
    assert m["rates"]["3"] == {"Blue": 0.6, "Red": 0.3, "Yellow": 0.1}
    assert parse_target("balance").loss(m) == pytest.approx(0.5)
    assert parse_target("side:Red=0.2").loss(m) == pytest.approx(0.1)
    assert parse_target("duration=12").loss(m) == pytest.approx(2.0)


def test_two_trial_cli_run_writes_its_files(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tune"
    rc = main(["tune", "under-current", "--players", "4", "--param", "hand_size=1..3",
               "--param", "random_start", "--target", "balance", "--trials", "2",
               "--games-per-trial", "20", "--reeval-games", "20", "--top-k", "1",
               "--out", str(out)])
    assert rc == 0
    for name in (BEST, TRIALS_CSV, TRIALS_JSON, TUNE, CHART):
        assert (out / name).stat().st_size > 0, name
    with (out / TRIALS_CSV).open() as f:
        rows = list(csv.DictReader(f))
    assert [r["phase"] for r in rows] == ["default", "search", "search", "re-eval", "re-eval"]
    assert all(0 <= float(r["loss"]) <= 1 for r in rows)
    assert {"hand_size", "random_start", "gap@4", "Yellow@4"} <= set(rows[0])
    best = json.loads((out / BEST).read_text())
    assert set(best) == {"hand_size", "random_start"}
    load_game("under-current", players=4, **best)
    assert parse_sets([f"@{out / BEST}", "green_declaration=false"]) == {
        **best, "green_declaration": False}
    meta = json.loads((out / TUNE).read_text())
    assert meta["target"] == "balance" and meta["trials"] == 2
    assert len(meta["reevaluation"]) == 2  # the default and the top 1
    assert "best" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--param", "nope=1..2"], "no key 'nope' in the ruleset; known: cards,"),
    (["--param", "hand_size=1.5..3"], "integer rule (default 2): give an integer range"),
    (["--param", "hand_size=3..1"], "range 3..1 is empty"),
    (["--param", "hand_size=a..3"], "'a' is not a number"),
    (["--param", "hand_size=0..3"], "hand_size=0 is not a valid rule"),
    (["--param", "hand_size"], "hand_size needs values"),
    (["--param", "hand_size=2"], "at least two values"),
    (["--param", "random_start=1..3"], "a range needs a number rule"),
    (["--param", "random_start=true,3"], "must be bool"),
    (["--param", "roles=1..2"], "roles is a list: name one value inside it"),
    (["--param", "roles.20.from=1..3"], "roles has 9 entries (0-8), not 20"),
    (["--param", "roles.x=1..3"], "roles is a list (use an index)"),
    (["--param", "hand_size=1..2", "--param", "hand_size=1..3"], "names a rule twice"),
    (["--param", "hand_size=1..3", "--target", "fun"], "--target expects balance, side:"),
    (["--param", "hand_size=1..3", "--target", "side:Yellow=3"], "between 0 and 1"),
    (["--param", "hand_size=1..3", "--target", "side:Yellow=x"], "not a win rate"),
    (["--param", "hand_size=1..3", "--target", "duration=-4"], "must be > 0"),
    (["--param", "hand_size=1..3", "--target", "side:Purple=0.3"],
     "no side 'Purple' in this game; its sides are Blue, Green, Red, Yellow"),
])
def test_bad_param_or_target_is_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        message: str) -> None:
    if "--target" not in argv:
        argv = [*argv, "--target", "balance"]
    rc = main(["tune", "under-current", "--players", "4", "--trials", "2",
               "--games-per-trial", "10", "--out", str(tmp_path / "t"), *argv])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_target_parsing() -> None:
    assert str(parse_target("side:Yellow=0.2")) == "side:Yellow=0.2"
    assert parse_target(" balance ").kind == "balance"
    assert parse_target("duration=40").value == 40
    with pytest.raises(TuneError):
        parse_target("side:=0.2")
    assert math.isnan(parse_target("side:Blue=0.5").loss(
        {"players": [3], "rates": {"3": {"Red": 1.0}}}))


def test_reevaluation_skips_rulesets_that_played_identically(tmp_path: Path) -> None:
    # "b" changes nothing (like a card added only above the studied player counts): trials that
    # differ only in b give identical results, so the top 2 re-played are two different a's,
    # each with b at its default.
    space = [Param("a", ("a",), "int", 0, 0, 3), Param("b", ("b",), "int", 0, 0, 3)]

    def objective(values: dict[str, Any], games: int, first: int) -> dict[str, Any]:
        gap = 0.1 * abs(values["a"] - 2)
        return {"players": [3], "rates": {"3": {"X": 0.5 + gap / 2, "Y": 0.5 - gap / 2}},
                "gap": {"3": gap}, "mean_length": {"3": 10.0}}

    meta = tune("toy", [3], space, "balance", 16, tmp_path, games_per_trial=10, top_k=2,
                objective=objective)
    replayed = [t["values"] for t in meta["reevaluation"] if t["trial"] != "default"]
    assert len({v["a"] for v in replayed}) == 2
    assert meta["best"]["values"]["a"] == 2
    assert all(v["b"] == 0 for v in replayed if v["a"] == 2) or not any(
        r["values"] == {"a": 2, "b": 0} for r in json.loads((tmp_path / TRIALS_JSON).read_text()))


def test_same_trials_on_ray_as_locally(tmp_path: Path) -> None:
    # The trials are study chunks with study seeds wherever they run, so a ruleset evaluated
    # both on Ray and in-process has the same loss. (Which rulesets the sampler proposes may
    # differ: with two trials in flight the second is asked before the first is told.)
    pytest.importorskip("ray", reason="the ray extra is not installed (make installs it)")
    args = ("under-current", [4], ["roles.5.from=3..8", "hand_size=1..3"], "balance", 3)
    kw = {"games_per_trial": 30, "reeval_games": 30, "seed": 5}
    local = tune(*args, tmp_path / "local", workers=1, **kw)
    on_ray = tune(*args, tmp_path / "ray", workers=2, ray_address="auto", **kw)
    assert on_ray["backend"] == "ray" and local["backend"] == "local"

    def losses(d: Path) -> dict[tuple[str, str], float]:
        return {(r["phase"], json.dumps(r["values"], sort_keys=True)): r["loss"]
                for r in json.loads((d / TRIALS_JSON).read_text())}

    a, b = losses(tmp_path / "local"), losses(tmp_path / "ray")
    both = set(a) & set(b)
    assert {"default", "search", "re-eval"} <= {phase for phase, _ in both}
    assert {k: a[k] for k in both} == {k: b[k] for k in both}
    assert local["default"] == on_ray["default"]


def test_ctrl_c_keeps_the_finished_trials(tmp_path: Path) -> None:
    space = [Param("k", ("k",), "int", 0, 0, 9)]
    calls = []

    def objective(values: dict[str, Any], games: int, first: int) -> float:
        calls.append(values)
        if len(calls) == 4:  # the default and two trials have finished
            raise KeyboardInterrupt
        return abs(values["k"] - 7) / 10

    meta = tune("toy", [2], space, "balance", 20, tmp_path, games_per_trial=10,
                objective=objective)
    assert meta["interrupted"]
    records = json.loads((tmp_path / TRIALS_JSON).read_text())
    assert [r["phase"] for r in records] == ["default", "search", "search"]
    assert meta["reevaluation"] == []  # not re-played: the best is the search's
    best = min(records, key=lambda r: r["loss"])
    assert meta["best"]["values"] == best["values"]
    assert (tmp_path / CHART).exists() and (tmp_path / BEST).exists()


def test_set_from_a_file_errors_in_one_line(tmp_path: Path) -> None:
    from fieldcraft.core.api import FieldcraftError

    with pytest.raises(FieldcraftError, match="cannot read overrides"):
        parse_sets([f"@{tmp_path / 'missing.json'}"])
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(FieldcraftError, match="expected a JSON object"):
        parse_sets([f"@{tmp_path / 'list.json'}"])


def test_tune_takes_level_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--agents easy,normal`` means this game's agents for those levels, as in study and
    tournament (before, the level name went to ``make_agent`` as an unknown agent)."""
    from fieldcraft.agents.levels import level_spec
    from fieldcraft.sim import tune as tune_module

    seen: dict[str, object] = {}

    def fake_tune(*args: object, **kwargs: object) -> dict[str, object]:
        seen["agents"] = kwargs["agents"]
        raise SystemExit(0)

    monkeypatch.setattr(tune_module, "tune", fake_tune)
    with pytest.raises(SystemExit):
        main(["tune", "spy-tracker", "--players", "2", "--param", "points_to_win=2..3",
              "--target", "balance", "--trials", "1", "--agents", "normal,easy",
              "--out", str(tmp_path / "t")])
    assert seen["agents"] == [level_spec("spy-tracker", "normal"),
                              level_spec("spy-tracker", "easy")]
