"""The fieldcraft command: simulate, bench, play, and clean errors."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest
from rich.console import Console

from fieldcraft.cli import main
from fieldcraft.core.errors import FieldcraftError
from fieldcraft.core.registry import game_spec
from fieldcraft.core.text import Text, game_messages
from fieldcraft.play import MENU_SIZE, TerminalTable


def run_json(capsys, *argv: str):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_json_is_reproducible_and_adds_up(capsys):
    args = ("simulate", "under-current", "--players", "5", "--games", "60", "--seed", "7",
            "--json")
    first = run_json(capsys, *args)
    second = run_json(capsys, *args)
    assert first == second
    assert set(first) >= {"game", "players", "games", "wins_by_faction", "wins_by_seat",
                          "no_winner", "mean_steps"}
    # exactly one faction wins each game, or nobody does
    assert sum(first["wins_by_faction"].values()) + first["no_winner"] == 60
    assert len(first["wins_by_seat"]) == 5
    assert first["mean_steps"] > 20
    other = run_json(capsys, *args[:-2], "9", "--json")
    assert other["wins_by_seat"] != first["wins_by_seat"] or other["mean_steps"] != \
        first["mean_steps"]


def test_simulate_with_override_changes_the_game(capsys):
    base = run_json(capsys, "simulate", "under-current", "--players", "4", "--games", "40",
                    "--json")
    small = run_json(capsys, "simulate", "under-current", "--players", "4", "--games", "40",
                     "--json", "--set", "hand_size=1")
    assert small["overrides"] == {"hand_size": 1}
    assert small["mean_steps"] != base["mean_steps"]


def test_simulate_human_table(capsys):
    assert main(["simulate", "under-current", "--players", "3", "--games", "20"]) == 0
    out = capsys.readouterr().out
    assert "games nobody won" in out and "seat" in out


def test_bench_json(capsys):
    results = run_json(capsys, "bench", "--game", "under-current", "--games", "5", "--runs",
                       "1", "--no-ismcts", "--json")
    assert results[0]["game"] == "under-current"
    assert results[0]["steps_per_second"] > 0


def test_bench_api_times_the_public_api_loop(capsys):
    results = run_json(capsys, "bench", "--game", "spy-tracker", "--games", "3", "--runs", "1",
                       "--no-ismcts", "--api", "--api-seconds", "0.2", "--json")
    (row,) = results
    assert row["api_steps_per_second"] > 0
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        assert row["api_ratio_to_liars_dice"] is None
    else:
        assert row["liars_dice_steps_per_second"] > 0
        assert row["api_ratio_to_liars_dice"] == pytest.approx(
            row["api_steps_per_second"] / row["liars_dice_steps_per_second"], rel=0.01)
        assert row["api_replay_ratio_to_liars_dice"] == pytest.approx(
            row["api_replay_steps_per_second"] / row["liars_dice_replay_steps_per_second"],
            rel=0.01)
    # the API alone is faster than the API with the moves drawn in Python at every step
    assert row["api_replay_steps_per_second"] > row["api_steps_per_second"]


def test_the_api_replay_plays_exactly_the_recorded_games():
    from fieldcraft.core import load_game
    from fieldcraft.sim.bench import api_replay_loop, record_random_games

    game = load_game("under-current", players=4)
    games = record_random_games(game.new_initial_state, steps=500, seed=3)
    assert sum(map(len, games)) >= 500
    assert all(game.replay(moves).is_terminal() for moves in games)
    assert api_replay_loop(game.new_initial_state, games, 0.01) > 0
    with pytest.raises(ValueError, match="ended before"):  # moves beyond the end are noticed
        api_replay_loop(game.new_initial_state, [games[0] + games[1]], 0.01)


def test_bench_reports_both_search_rates_for_a_policy_game(capsys):
    results = run_json(capsys, "bench", "--game", "spy-tracker", "--games", "5", "--runs", "1",
                       "--json")
    r = results[0]
    assert r["ismcts_opponents"] == "policy"
    assert r["ismcts_iterations_per_second"] > 0 and r["ismcts_tree_iterations_per_second"] > 0
    # one run: its best is its median
    assert r["ismcts_iterations_per_second_best"] == r["ismcts_iterations_per_second"]
    assert r["ismcts_tree_iterations_per_second_best"] == r["ismcts_tree_iterations_per_second"]


def test_bench_text_gives_the_median_and_the_best_search_run(capsys):
    assert main(["bench", "--game", "spy-tracker", "--games", "5", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    assert "opponents: tree; median of 2 runs, best" in out
    assert "opponents: policy; median of 2 runs, best" in out


@pytest.mark.parametrize("argv,message", [
    (["simulate", "nope"], "unknown game"),
    (["simulate", "under-current", "--set", "colour=1"], "unknown ruleset key"),
    (["simulate", "under-current", "--set", "novalue"], "key=value"),
    (["simulate", "under-current", "--players", "2"], "3-8 players"),
    (["play", "under-current", "--humans", "0,x"], "seat numbers"),
    (["play", "under-current", "--players", "3", "--humans", "5"], "does not exist"),
])
def test_errors_are_one_line_and_exit_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def _table(inputs: str, humans=(0,), players=4, seed=3):
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    table = TerminalTable("under-current", players, list(humans), seed=seed,
                          stdin=io.StringIO(inputs), console=console)
    return table, out


def test_terminal_game_plays_to_the_end():
    table, out = _table("1\n" * 500)
    state = table.run()
    assert state.is_terminal()
    text = out.getvalue()
    assert "game over" in text and "Result" in text and "Final roles" in text


def test_bad_input_reprompts_without_changing_the_game():
    table, out = _table("zzz\n0\npass Purple/X to seat 1\nq\n")
    state = table.run()
    text = out.getvalue()
    assert "cannot read 'zzz'" in text
    assert "0 is not a choice" in text
    assert "no card named" in text
    assert "Game abandoned" in text
    assert not state.is_terminal()
    assert state.current_player() == 0  # still waiting on the same decision


def test_hot_seat_hands_over_between_people():
    table, out = _table("\n1\n" * 600, humans=(0, 1), players=3, seed=5)
    table.run()
    text = out.getvalue()
    assert text.count("Pass the device to seat 1") >= 1
    assert text.count("Pass the device to seat 2") >= 1


def test_one_seat_view_never_names_a_card_it_cannot_know():
    """Before seat 0 acts, the screen shows only its own two cards by name."""
    table, out = _table("q\n", players=5, seed=11)
    state = table.state
    table.run()
    screen = out.getvalue()
    hidden = {state.game.card_names[c] for s in range(1, 5) for c in state.hands[s]}
    hidden -= set(state.observation(0)["hand"])
    known = {c for cards in state.observation(0)["known_hands"].values() for c in cards}
    for row in state.observation(0)["row"]:
        known.add(row["card"])
    log_section = screen.split("Recent events")[0]
    for name in hidden - known:
        assert f" {name}" not in log_section and f"{name}," not in log_section, name


@pytest.mark.parametrize("name", __import__("fieldcraft").list_games())
def test_every_game_plays_to_the_end_in_the_terminal(name):
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    from fieldcraft.core.registry import default_ruleset

    players = default_ruleset(name)["min_players"]
    table = TerminalTable(name, players, [0], bot="heuristic", seed=4,
                          stdin=io.StringIO("1\n" * 3000), console=console)
    state = table.run()
    assert state.is_terminal()
    text = out.getvalue()
    assert "Your choices" in text and "game over" in text and "Result" in text


@pytest.mark.parametrize("name", __import__("fieldcraft").list_games())
def test_every_game_simulates_reproducibly(capsys, name):
    args = ("simulate", name, "--games", "15", "--seed", "3", "--json")
    first = run_json(capsys, *args)
    assert first == run_json(capsys, *args)
    assert sum(first["wins_by_seat"]) >= first["games"] - first["no_winner"]


def test_study_and_compare_commands(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["study", "under-current", "--players", "3-4", "--games", "12", "--seed", "1",
                 "--workers", "1", "--robustness-games", "0", "--out", str(a)]) == 0
    assert (a / "results.parquet").exists() and (a / "report.html").exists()
    assert main(["study", "under-current", "--players", "3-4", "--games", "12", "--seed", "2",
                 "--workers", "1", "--set", "hand_size=1", "--robustness-games", "0",
                 "--out", str(b)]) == 0
    capsys.readouterr()
    result = run_json(capsys, "compare", str(a), str(b), "--json")
    assert result["metrics"] and all("verdict" in m for m in result["metrics"])
    bad = tmp_path / "bad"
    assert main(["study", "under-current", "--players", "4", "--games", "5", "--set", "nope=1",
                 "--out", str(bad)]) == 2
    assert "unknown ruleset key 'nope'" in capsys.readouterr().err
    assert not (bad / "results.parquet").exists()


def test_study_on_ray_without_the_extra_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    pytest.importorskip("pyarrow")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    out = tmp_path / "r"
    assert main(["study", "under-current", "--players", "4", "--games", "5", "--ray", "auto",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fieldcraft: error: a study on Ray needs the ray extra")
    assert "pip install -e '.[ray]'" in err and "Traceback" not in err
    assert not out.exists()
    assert main(["study", "under-current", "--players", "4", "--games", "5", "--ray", " ",
                 "--out", str(out)]) == 2
    assert "--ray expects 'auto' or a cluster address" in capsys.readouterr().err


def test_a_long_choice_list_is_asked_in_steps():
    """Spy Tracker's hundred-odd bids: the count, then the trait (each menu short)."""
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    # count 3 (third entry), then the second trait offered for it, then quit
    table = TerminalTable("spy-tracker", 2, [0], seed=3, console=console,
                          stdin=io.StringIO("3\n2\nq\n"))
    state = table.state
    table.render = lambda obs, text=None: ""
    table.run()
    screen = out.getvalue()
    menus = screen.split("Your choices")[1:]
    assert all(menu.count("\n  ") <= MENU_SIZE for menu in menus)
    assert "How many: 3" in menus[0]
    traits = [m.group(1) for m in re.finditer(r"^ +\d+\. (.*)$", menus[1], re.M)]
    assert traits and all(label.startswith("Bid 3 × ") for label in traits)
    # the second trait offered is the bid that was made
    notation = table.game.notation
    text = Text(game_messages(game_spec("spy-tracker"), "en"), 0)
    made = [text.choice({"kind": kind, "args": args, "label": ""})
            for kind, args in (notation.choice(state, a) for a in state.history())
            if kind == "bid" and args["count"] == 3]
    assert made == [traits[1]]


def test_the_terminal_speaks_the_chosen_language():
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    table = TerminalTable("under-current", 3, [0], seed=2, console=console,
                          stdin=io.StringIO("q\n"), lang="ja")
    table.run()
    assert "選択肢" in out.getvalue() and "Your choices" not in out.getvalue()
    with pytest.raises(FieldcraftError, match="--lang"):
        TerminalTable("under-current", 3, [0], lang="fr")


def test_python_dash_m_fieldcraft_is_the_command() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "fieldcraft", "--version"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("fieldcraft ")


def test_tournament_takes_level_names_and_names_what_each_played(capsys):
    """``--agents strong,easy`` plays each game's own agent for the level (Against the
    Current's Strong is not Spy Tracker's), and the output says which spec a level was."""
    from fieldcraft.agents.levels import level_spec

    strong = level_spec("against-the-current", "strong")
    result = run_json(capsys, "tournament", "against-the-current", "--players", "2",
                      "--agents", "strong,easy", "--games", "1", "--json")
    assert result["levels"] == {"strong": strong, "easy": level_spec("against-the-current",
                                                                      "easy")}
    rows = {row["level"]: row for row in result["agents"]}
    assert rows["strong"]["agent"] == strong
    assert rows["strong"]["label"] == f"strong = {strong}"
    assert main(["tournament", "spy-tracker", "--players", "2", "--agents", "normal,easy",
                 "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert f"normal = {level_spec('spy-tracker', 'normal')}" in out
    # The web's old ids are agent names on the command line, as before levels: not resolved.
    plain = run_json(capsys, "tournament", "spy-tracker", "--players", "2",
                     "--agents", "heuristic,random", "--games", "1", "--json")
    assert plain["levels"] == {} and [r["level"] for r in plain["agents"]] == [None, None]


def test_a_level_that_differs_between_player_counts_stops_a_study(monkeypatch, tmp_path,
                                                                    capsys):
    """A study seats one agent list at every count; if a level's spec depends on the count
    (a table with per-count specs), it refuses instead of silently picking one."""
    from fieldcraft.agents import levels, specs

    def by_count(game: str, level: str, players: int | None = None) -> str:
        return f"ismcts(iterations={100 * (players or 1)})" if level == "strong" else "random"

    monkeypatch.setattr(levels, "level_spec", by_count)
    assert [c.spec for c in specs.resolve_agents("undercover", ["strong", "heuristic"], 3)] \
        == ["ismcts(iterations=300)", "heuristic"]
    assert main(["study", "undercover", "--players", "2-3", "--agents", "strong,normal",
                 "--games", "2", "--out", str(tmp_path / "s")]) == 2
    assert "study one player count at a time" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
