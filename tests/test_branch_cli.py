"""``fieldcraft play --from REPLAY.json --step K --seat S``: play on from a moment of a replay.

The start is the replay's position at step K resampled for S, so the terminal shows S exactly
what S knew there and nothing of the real hidden cards; across seeds the re-deal differs. Bad
files and options are one-line errors (exit 2) before anything is played."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from fieldcraft.cli import main
from fieldcraft.core.api import random_playout
from fieldcraft.core.registry import list_games, load_game
from fieldcraft.play import branch_start, branch_table


def write_replay(tmp_path: Path, game: str, players: int, seed: int = 1,
                 overrides: dict[str, Any] | None = None) -> tuple[Path, list[int]]:
    loaded = load_game(game, players=players, **(overrides or {}))
    state = loaded.new_initial_state()
    random_playout(state, random.Random(seed))
    path = tmp_path / f"{game}.json"
    path.write_text(json.dumps({"game": game, "players": players,
                                "overrides": overrides or {}, "actions": state.history()}))
    return path, state.history()


def quiet() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=400, color_system=None, force_terminal=False), out


@pytest.mark.parametrize("game", list_games())
def test_the_branch_keeps_the_seats_view_and_re_deals_the_rest(tmp_path: Path, game: str
                                                               ) -> None:
    players = {"under-current": 4}.get(game, 3)
    path, actions = write_replay(tmp_path, game, players)
    step, seat = len(actions) // 2, 1
    real = load_game(game, players=players).replay(actions[:step])
    doc = json.loads(path.read_text())
    real_fields = {k: v for k, v in real.to_dict()["state"].items()
                   if k not in ("actions", "sampled")}
    re_dealt = 0
    for seed in range(30):
        start = branch_start(doc, step, seat, random.Random(seed))
        assert start.observation(seat) == real.observation(seat)
        fields = {k: v for k, v in start.to_dict()["state"].items()
                  if k not in ("actions", "sampled")}
        re_dealt += fields != real_fields
    assert re_dealt >= 10, re_dealt


def test_a_branch_plays_to_the_end_at_the_terminal(tmp_path: Path) -> None:
    path, actions = write_replay(tmp_path, "under-current", 4, seed=3)
    console, out = quiet()
    step = len(actions) // 2
    table = branch_table(str(path), step, 2, bot="heuristic", seed=5,
                         stdin=io.StringIO("1\n" * 400), console=console)
    real = load_game("under-current", players=4).replay(actions[:step])
    assert table.state.observation(2) == real.observation(2)
    assert table.humans == [2] and sorted(table.bots) == [0, 1, 3]
    state = table.run()
    assert state.is_terminal()
    text = out.getvalue()
    assert f"Branch of {path} at step {step}: you are seat 3" in text
    assert "game over" in text


def test_the_branch_line_is_in_the_tables_language(tmp_path: Path) -> None:
    path, actions = write_replay(tmp_path, "spy-tracker", 2)
    console, out = quiet()
    branch_table(str(path), 4, 0, seed=1, lang="ja", stdin=io.StringIO("q\n"),
                 console=console).run()
    assert "4 手目からの分岐です" in out.getvalue() and "1番席" in out.getvalue()


def test_the_command_line_plays_on_from_the_replay(tmp_path: Path, capsys, monkeypatch
                                                  ) -> None:
    path, actions = write_replay(tmp_path, "spy-tracker", 2, seed=2)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 600))
    assert main(["play", "--from", str(path), "--step", "10", "--seat", "1",
                 "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "Branch of" in text and "you are seat 2" in text and "game over" in text


@pytest.mark.parametrize(("doc", "argv", "message"), [
    (None, ["--step", "1"], "cannot read the replay"),
    ("not json", ["--step", "1"], "cannot read the replay"),
    ([1, 2], ["--step", "1"], "JSON object"),
    ({"game": "spy-tracker"}, ["--step", "1"], "lacks actions"),
    ({"game": "spy-tracker", "actions": ["a"]}, ["--step", "1"], "list of action numbers"),
    ({"game": "spy-tracker", "actions": [], "players": "two"}, ["--step", "0"],
     "'players' must be a number"),
    ({"game": "no-such-game", "actions": []}, ["--step", "0"], "no-such-game"),
    ({"game": "spy-tracker", "players": 2, "actions": [10 ** 6]}, ["--step", "1"],
     "action 1"),
    ("replay", [], "needs --step"),
    ("replay", ["--step", "9999"], "--step must be 0-"),
    ("replay", ["--step", "-1"], "--step must be 0-"),
    ("replay", ["--step", "end"], "the game is over"),
    ("replay", ["--step", "3", "--seat", "2"], "--seat must be 0-1"),
    ("replay", ["--step", "3", "--humans", "0,1"], "--humans"),
    ("replay", ["--step", "3", "--set", "points_to_win=1"], "--set"),
    ("replay", ["under-current", "--step", "3"], "not under-current"),
])
def test_bad_replays_and_options_are_one_line_errors(tmp_path: Path, capsys, doc: Any,
                                                     argv: list[str], message: str) -> None:
    path = tmp_path / "r.json"
    if doc == "replay":
        path, actions = write_replay(tmp_path, "spy-tracker", 2)
        argv = [str(len(actions)) if a == "end" else a for a in argv]
    elif isinstance(doc, str):
        path.write_text(doc)
    elif doc is not None:
        path.write_text(json.dumps(doc))
    assert main(["play", *argv, "--from", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


def test_step_without_from_is_an_error(capsys) -> None:
    assert main(["play", "spy-tracker", "--step", "3"]) == 2
    assert "--step goes with --from" in capsys.readouterr().err
