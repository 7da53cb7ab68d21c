"""The bot levels (fieldcraft/agents/levels.py): every game has every level, the web seats its
bots through the table, and each level's agent plays a legal move in each game.

No timings and no win rates here: strength is measured by ``benchmarks/levels.py`` (figures in
``docs/bots.md``); these tests keep the table and its users from drifting apart.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from fieldcraft.agents import AGENTS, View, levels, make_agent, parse_agent_spec
from fieldcraft.agents.expectimax import ExpectimaxAgent, search_policy
from fieldcraft.agents.heuristic import HeuristicAgent
from fieldcraft.agents.ismcts import ISMCTSAgent
from fieldcraft.agents.rollout import RolloutAgent
from fieldcraft.core.api import CHANCE, TERMINAL, sample_chance
from fieldcraft.core.registry import game_spec, list_games, load_game
from tests.benchmark_modules import load_benchmark

SERVER = Path(__file__).resolve().parents[2] / "fieldcraft" / "server"


def test_every_game_has_every_level_and_each_spec_names_a_known_agent() -> None:
    assert set(levels.LEVEL_TABLE) == set(list_games())
    for game_id, table in levels.LEVEL_TABLE.items():
        assert tuple(table) == levels.LEVELS, game_id
        for level, spec in table.items():
            name, _ = parse_agent_spec(spec)
            assert name in AGENTS, (game_id, level, spec)
    assert tuple(levels.GENERIC) == levels.LEVELS


def test_level_names_and_web_ids_resolve_alike() -> None:
    assert sorted(levels.WEB_IDS.values()) == sorted(levels.LEVELS)  # one web id per level
    assert [levels.WEB_IDS[name] for name in levels.WEB_BOTS] == list(levels.LEVELS)
    for web_id, level in levels.WEB_IDS.items():
        assert levels.level_of(web_id) == level == levels.level_of(level)
        for game_id in list_games():
            assert levels.level_spec(game_id, web_id) == levels.LEVEL_TABLE[game_id][level]
    assert levels.level_of("ismcts(iterations=5)") is None
    with pytest.raises(KeyError):
        levels.level_spec("spy-tracker", "grandmaster")
    assert levels.level_spec("a-game-not-yet-measured", "strong") == levels.GENERIC["strong"]


def test_a_level_agent_keeps_the_web_name_and_an_agent_spec_still_works() -> None:
    strong = levels.make_level_agent("against-the-current", "ismcts", seed=1)
    assert isinstance(strong, ExpectimaxAgent) and strong.name == "ismcts"
    normal = levels.make_level_agent("spy-tracker", "normal", seed=1)
    assert isinstance(normal, HeuristicAgent) and normal.name == "normal"
    raw = levels.make_level_agent("spy-tracker", "ismcts(iterations=7)", seed=1)
    assert isinstance(raw, ISMCTSAgent) and raw.iterations == 7 and raw.time is None
    capped = levels.make_level_agent("spy-tracker", "strong", seed=1)
    assert isinstance(capped, ISMCTSAgent) and capped.time == levels.WEB_TIME_CAP
    assert levels.is_bot_name("strong") and levels.is_bot_name("expectimax")
    assert not levels.is_bot_name("nobody")


def test_the_web_lists_and_seats_bots_through_the_level_table() -> None:
    from fieldcraft.server import driver
    from fieldcraft.server.routes import tables

    assert driver.make_level_agent is levels.make_level_agent
    assert asyncio.run(tables.api_games())["bots"] == list(levels.WEB_BOTS)
    assert tables.known_bot("strong") == "strong"
    common = (SERVER / "static" / "common.js").read_text()
    match = re.search(r"const BOT_ORDER = (\[.*?\]);", common)
    assert match is not None
    order = json.loads(match.group(1))
    # as the lobby's sortBots ranks them: a name it does not list goes after those it does
    ranks = [order.index(name) if name in order else len(order) for name in levels.WEB_BOTS]
    assert ranks == sorted(ranks)  # the lobby sorts the levels weakest first
    assert levels.WEB_BOTS[-1] == "expert"  # the one level the lobby does not list, strongest
    for path in sorted((SERVER / "locales").glob("*.json")):
        words = json.loads(path.read_text())
        for name in (*levels.WEB_BOTS, *levels.LEVELS):
            assert f"bot.level.{name}" in words, (path.name, name)
        for web_id, level in levels.WEB_IDS.items():
            assert words[f"bot.level.{web_id}"] == words[f"bot.level.{level}"], path.name


def _first_decisions(game_id: str, seed: int, count: int) -> list:
    """States at the first ``count`` decisions with a real choice of a random game."""
    game = load_game(game_id, players=max(2, game_spec(game_id).min_players))
    rng = random.Random(seed)
    state = game.new_initial_state()
    found = []
    while len(found) < count and state.current_player() != TERMINAL:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            found.append(state.clone())
        state.apply_action(rng.choice(legal))
    return found


SMALL = {level: {"ismcts": "ismcts(iterations=60)", "expectimax": "expectimax(turns=1)"}
         for level in ("strong", "expert")}
"""Strong's budget cut down for the pure build: the test is that the agent is made from the
table and answers legally, not how well."""


@pytest.mark.parametrize("game_id", sorted(levels.LEVEL_TABLE))
@pytest.mark.parametrize("level", levels.LEVELS)
def test_each_level_plays_a_legal_move_in_each_game(game_id: str, level: str) -> None:
    spec = levels.level_spec(game_id, level)
    agent = levels.make_level_agent(game_id, level, seed=3)  # the table's spec builds
    assert agent.name == level
    name, _ = parse_agent_spec(spec)
    small = SMALL.get(level, {}).get(name)
    if small is not None:
        agent = make_agent(small, seed=3)
    for state in _first_decisions(game_id, seed=11, count=3):
        seat = state.current_player()
        action = agent.act(View(state, seat))
        assert action in state.legal_actions()


def test_against_the_current_offers_a_search_policy_and_others_fall_back() -> None:
    assert search_policy(load_game("against-the-current", players=2)) is not None
    game = load_game("spy-tracker", players=2)
    assert search_policy(game) is None
    agent = ExpectimaxAgent(seed=2)
    for state in _first_decisions("spy-tracker", seed=5, count=2):
        assert agent.act(View(state, state.current_player())) in state.legal_actions()


def test_expectimax_keeps_the_die_as_chance_at_the_token_choice() -> None:
    """At a token choice the search values each token by the expectation over every die face
    (weighted by ``chance_outcomes``), not by one roll fixed in advance (the fault of
    determinising): its choice is a best token by that expectation, whatever its seed."""
    from fieldcraft.games.against_the_current import bot
    from fieldcraft.games.against_the_current.layout import ROLL, TOKEN

    state = next(s for s in _first_decisions("against-the-current", seed=4, count=12)
                 if s.phase == TOKEN)
    seat = state.current_player()

    def expected(action: int) -> float:
        child = state.clone()
        child._apply(action)
        assert child.current_player() == CHANCE and child.phase == ROLL
        total = 0.0
        for face, p in child.chance_outcomes():
            rolled = child.clone()
            rolled._apply(face)
            total += p * bot._expectimax(rolled, seat, 0)
        return total

    values = {a: expected(a) for a in state.legal_actions()}
    best = max(values.values())
    for k in range(4):
        choice = bot.search_choose(View(state, seat), random.Random(k), turns=1)
        assert values[choice] == pytest.approx(best, abs=1e-6)


def _benchmark() -> Any:
    """``benchmarks/levels.py`` as a module."""
    return load_benchmark("levels")


def test_the_benchmark_pairs_deals_both_ways_and_tests_them() -> None:
    bench: Any = _benchmark()
    assert bench.PAIRS == (("easy", "normal"), ("normal", "strong"), ("strong", "expert"))
    assert bench.sign_test(0, 0) == 1.0
    assert bench.sign_test(5, 5) == 1.0
    assert bench.sign_test(10, 0) == pytest.approx(2 / 1024)
    assert bench.sign_test(2, 9) == bench.sign_test(9, 2)
    two = bench._deal_games(2, "lo", "hi")
    assert two == [(["lo", "hi"], 1, "high"), (["hi", "lo"], 0, "high")]
    three = bench._deal_games(3, "lo", "hi")
    assert len(three) == 6 and {g[2] for g in three} == {"high", "low"}
    for specs, seat, side in three:
        lone = "hi" if side == "high" else "lo"
        assert specs[seat] == lone and specs.count(lone) == 1
    result = bench.measure_pair("spy-tracker", 2, "easy", "normal", deals=2, seed=1)
    again = bench.measure_pair("spy-tracker", 2, "easy", "normal", deals=2, seed=1)
    assert result["easy"]["games"] == result["normal"]["games"] == 4
    assert result["easy"]["wins"] + result["normal"]["wins"] == 4
    clocked = ("seconds", "high_ms_per_move")  # timings: they differ from run to run
    assert {k: v for k, v in result.items() if k not in clocked} == \
        {k: v for k, v in again.items() if k not in clocked}
    moves = result["high_ms_per_move"]
    assert moves["moves"] > 0 and 0 < moves["mean"] <= moves["max"]  # Normal's decisions


def test_a_run_split_with_first_is_the_whole_run_deal_by_deal() -> None:
    """Why ``first`` exists: a long run split over processes must play the same deals, so its
    per-deal results can be merged, and paired with another probe's on the same dice."""
    bench: Any = _benchmark()
    # Under Current's results vary from deal to deal even between Easy and Normal
    whole = bench.measure_pair("under-current", 3, "easy", "normal", deals=6, seed=4,
                               baseline=True)
    head = bench.measure_pair("under-current", 3, "easy", "normal", deals=2, seed=4,
                              baseline=True)
    tail = bench.measure_pair("under-current", 3, "easy", "normal", deals=4, seed=4,
                              baseline=True, first=2)
    rows = whole["per_deal"]
    assert [d["deal"] for d in rows] == list(range(6))
    assert len({(d["high"], d["low"]) for d in rows}) > 1  # else any dice would pass
    assert head["per_deal"] + tail["per_deal"] == rows
    assert tail["first"] == 2 and tail["deals"] == 4
    for side in ("easy", "normal"):  # the per-deal rows add up to the totals
        key = "high" if side == "normal" else "low"
        assert sum(d[key] for d in rows) == whole[side]["wins"]
        assert head[side]["wins"] + tail[side]["wins"] == whole[side]["wins"]


def test_the_cap_stops_a_search_as_the_web_does_and_counts_the_moves_it_cut() -> None:
    """The web stops a level's search at a wall-time cap; ``--cap`` measures play under it.
    Only searches with an unset time budget are capped, as ``levels._capped`` does."""
    bench: Any = _benchmark()
    assert bench.capped("ismcts(iterations=8000)", 1.0) == "ismcts(iterations=8000, time=1.0)"
    assert bench.capped("rollout(rollouts=16, top=4)", 0.5) == \
        "rollout(rollouts=16, top=4, time=0.5)"
    for spec in ("expectimax(turns=3)", "heuristic", "ismcts(time=0.2)"):
        assert bench.capped(spec, 1.0) == spec
    result = bench.measure_pair("spy-tracker", 2, "normal", "strong", deals=1, seed=3,
                                specs={"strong": "ismcts(iterations=1000000)"}, cap=0.002)
    assert result["specs"]["strong"] == "ismcts(iterations=1000000, time=0.002)"
    moves = result["high_ms_per_move"]
    # a million iterations cannot finish in 2 ms: every searched move ran to the cap
    assert moves["moves"] > 0 and moves["at_cap"] == moves["moves"]
    assert result["cap"] == 0.002
    roomy = bench.measure_pair("spy-tracker", 2, "normal", "strong", deals=1, seed=3,
                               specs={"strong": "ismcts(iterations=20)"}, cap=600.0)
    assert roomy["high_ms_per_move"]["at_cap"] == 0  # moves far inside the cap are not counted
