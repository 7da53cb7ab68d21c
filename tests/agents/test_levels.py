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


def test_the_lobby_offers_a_level_only_where_it_is_a_bot_of_its_own(monkeypatch) -> None:
    """Expert is offered where its spec differs from Strong's at some player count (Spy
    Tracker), not where it is an alias at every count; the catalogue carries each game's list
    and Against the Current's note on its levels in every language."""
    from fieldcraft.server.catalogue import game_catalogue

    assert levels.offered_levels("spy-tracker") == list(levels.WEB_BOTS)
    for game in ("against-the-current", "undercover", "under-current"):
        assert levels.offered_levels(game) == ["random", "heuristic", "ismcts"], game
    # a difference at one count is enough: a longer search at five players only
    monkeypatch.setitem(levels.BY_COUNT, "under-current",
                        {**levels.BY_COUNT["under-current"],
                         5: {"expert": "ismcts(iterations=9000, infer=1)"}})
    assert levels.offered_levels("under-current")[-1] == "expert"
    monkeypatch.undo()
    for lang in ("en", "ja", "zh-Hant"):
        games = {g["id"]: g for g in game_catalogue(lang)}
        assert games["spy-tracker"]["bots"] == list(levels.WEB_BOTS)
        assert games["against-the-current"]["bots"] == ["random", "heuristic", "ismcts"]
        assert games["against-the-current"]["bots_note"], lang
        assert games["spy-tracker"]["bots_note"] is None


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


def _budget(spec: str) -> tuple[str, int]:
    """An agent's name and its search budget (iterations, turns or rollouts; 0 for no
    search)."""
    name, options = parse_agent_spec(spec)
    return name, int(options.get("iterations", options.get("turns",
                                                            options.get("rollouts", 0))))


@pytest.mark.parametrize("game_id", sorted(levels.LEVEL_TABLE))
def test_each_level_up_the_ladder_searches_no_less_at_every_count(game_id: str) -> None:
    """Easy and Normal do not search; Strong and Expert do, Expert at least Strong's budget of
    the same agent at every player count (an alias where more did not pay)."""
    spec = game_spec(game_id)
    for players in range(max(2, spec.min_players), spec.max_players + 1):
        row = {lv: levels.level_spec(game_id, lv, players) for lv in levels.LEVELS}
        assert row["easy"] == "random" and row["normal"] == "heuristic", (game_id, players)
        strong, expert = _budget(row["strong"]), _budget(row["expert"])
        assert strong[0] == expert[0] and strong[1] > 0, (game_id, players)
        assert expert[1] >= strong[1], (game_id, players)


def test_specs_resolve_per_player_count() -> None:
    """A count row applies from its count up; below it, and without a count, the base row."""
    for game_id, rows in levels.BY_COUNT.items():
        lowest = min(rows)
        base = levels.LEVEL_TABLE[game_id]
        assert levels.level_spec(game_id, "strong", lowest - 1) == base["strong"]
        assert levels.level_spec(game_id, "ismcts") == base["strong"]
        for count, row in rows.items():
            for level, spec in row.items():
                assert levels.level_spec(game_id, level, count) == spec
                assert levels.level_spec(game_id, level, game_spec(game_id).max_players) \
                    == rows[max(rows)].get(level, spec)
    assert levels.level_spec("undercover", "strong", 6) != levels.level_spec("undercover",
                                                                             "strong", 2)
    assert all(levels.level_spec("undercover", "strong", n).startswith("rollout(")
               for n in (3, 4, 5, 6))  # two players keep ISMCTS


def test_a_counted_level_plays_the_spec_of_the_table_it_sits_at() -> None:
    agent: Any = levels.make_level_agent("under-current", "ismcts", seed=2)
    assert isinstance(agent, levels.CountedLevelAgent) and agent.name == "ismcts"
    for players in (3, 6, 8):
        inner: Any = agent.agent_for(players)
        kind, want = parse_agent_spec(levels.level_spec("under-current", "strong", players))
        budget = inner.rollouts if kind == "rollout" else inner.iterations
        assert budget == want.get("iterations", want.get("rollouts"))
        assert inner.time == levels.WEB_TIME_CAP
        assert agent.agent_for(players) is inner  # made once per count
    assert isinstance(agent.agent_for(8), RolloutAgent)  # eight players: heuristic rollouts
    inner = agent.agent_for(8)
    inner.rollouts, inner.time = 2, None  # a small budget for the pure build
    game = load_game("under-current", players=8)
    state = game.new_initial_state()
    rng = random.Random(0)
    while state.current_player() == CHANCE:
        state.apply_action(sample_chance(state, rng))
    seat = state.current_player()
    assert agent.act(View(state, seat)) in state.legal_actions()
    fixed = levels.make_level_agent("under-current", "strong", seed=2, players=3)
    assert isinstance(fixed, ISMCTSAgent) and fixed.iterations == 4000 and fixed.infer
    fixed = levels.make_level_agent("under-current", "strong", seed=2, players=4)
    assert isinstance(fixed, RolloutAgent) and fixed.rollouts == 32 and fixed.infer
    fixed = levels.make_level_agent("under-current", "strong", seed=2, players=5)
    assert isinstance(fixed, ISMCTSAgent) and fixed.iterations == 4000 and fixed.infer
    for players in (6, 7, 8):  # role deals weighed by the choices seen, as at four
        fixed = levels.make_level_agent("under-current", "strong", seed=2, players=players)
        assert isinstance(fixed, RolloutAgent) and fixed.rollouts == 32 and fixed.infer
    assert agent.agent_for(8).infer


def test_expert_may_think_longer_than_the_other_levels() -> None:
    assert levels.time_cap("expert") > levels.WEB_TIME_CAP == levels.time_cap("ismcts")
    expert = levels.make_level_agent("spy-tracker", "expert", seed=1)
    assert isinstance(expert, ISMCTSAgent) and expert.time == levels.time_cap("expert")
    assert expert.iterations > _budget(levels.level_spec("spy-tracker", "strong"))[1]


def test_the_baseline_design_scores_the_lone_seat_against_the_all_lower_game() -> None:
    bench: Any = _benchmark()
    games = bench._deal_games(4, "lo", "hi", baseline=True)
    assert len(games) == 8
    for specs, seat, side in games:
        if side == "low":
            assert specs == ["lo"] * 4
        else:
            assert specs[seat] == "hi" and specs.count("hi") == 1
    assert {seat for _, seat, side in games if side == "high"} == set(range(4))
    result = bench.measure_pair("under-current", 4, "easy", "normal", deals=3, seed=2,
                                baseline=True)
    assert result["design"] == "baseline" and result["normal"]["games"] == 12
    one = bench.measure_pair("under-current", 4, "easy", "normal", deals=3, seed=2,
                             baseline=True, one_seat=True)
    assert one["normal"]["games"] == one["easy"]["games"] == 3


def test_the_progress_line_carries_the_signs_and_the_timing_so_far(capsys: Any) -> None:
    """A run stopped for time reports only what its progress lines said: each must carry the
    deals better and worse so far and the higher level's ms a move."""
    bench: Any = _benchmark()
    result = bench.measure_pair("under-current", 4, "easy", "normal", deals=2, seed=2,
                                baseline=True, one_seat=True, progress=True)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2
    signs = result["sign_test"]
    assert (f"deals better {signs['higher_better_deals']}, worse "
            f"{signs['lower_better_deals']}") in lines[-1]
    moves = result["high_ms_per_move"]["moves"]
    assert moves > 0 and lines[-1].endswith(f"ms a move (mean/max, {moves})")


def test_maxn_opponents_agree_with_minimising_ones_in_two_player_games() -> None:
    """With two seats the race model's chances sum to one, so an opponent who maximises its
    own chance minimises this seat's: both searches must give each token the same value. With
    four seats max-n is a different search, and still answers legally."""
    from fieldcraft.games.against_the_current import bot
    from fieldcraft.games.against_the_current.layout import TOKEN

    tokens = [s for s in _first_decisions("against-the-current", seed=4, count=12)
              if s.phase == TOKEN]
    assert tokens
    for state in tokens[:3]:
        seat = state.current_player()
        for action in state.legal_actions():
            child = state.clone()
            child._apply(action)
            assert bot._expectimax_n(child, 1)[seat] == pytest.approx(
                bot._expectimax(child, seat, 1), abs=1e-9)
    game = load_game("against-the-current", players=4)
    state = game.new_initial_state()
    rng = random.Random(7)
    while state.current_player() == CHANCE or state.phase != TOKEN:
        player = state.current_player()
        legal = state.legal_actions()
        state.apply_action(sample_chance(state, rng) if player == CHANCE else rng.choice(legal))
    seat = state.current_player()
    choice = bot.search_choose(View(state, seat), random.Random(1), turns=1, opponents="maxn")
    assert choice in state.legal_actions()
    with pytest.raises(ValueError):
        bot.search_choose(View(state, seat), random.Random(1), turns=1, opponents="kind")


def test_the_clairvoyant_ceiling_plays_the_deals_of_the_levels_benchmark() -> None:
    """``atc_ceiling.py clairvoyant`` compares with Strong on the same deals only if its game
    is levels.py's game: with its look-ahead made blind (every action ends alike, so it keeps
    the heuristic's own choice) it must replay ``play_game``'s heuristic game exactly; with
    sight it wins at least as many of these games as the heuristic in its seat did (not
    promised game by game: it re-decides later, off the line its look-ahead assumed)."""
    from fieldcraft.sim.simulate import game_seed, play_game

    probe = load_benchmark("atc_ceiling")
    game = load_game("against-the-current", players=2)
    seeing = probe._rollout
    probe._rollout = lambda *args: (0.0, 0)
    deals = [game_seed(0, i) for i in range(4)]
    plain = {(d, s): play_game(game, ["heuristic", "heuristic"], d).returns()[s]
             for d in deals for s in (0, 1)}
    for (deal, seat), result in plain.items():
        assert probe.clairvoyant_game(game, seat, deal) == result
    probe._rollout = seeing
    sighted = {(d, s): probe.clairvoyant_game(game, s, d) for d in deals for s in (0, 1)}
    assert sum(sighted.values()) >= sum(plain.values())


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
