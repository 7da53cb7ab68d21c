"""The search hooks a game may offer ISMCTS, and ISMCTS's use of them.

* ``search_actions``: the legal actions worth trying (Spy Tracker drops far-fetched bids);
* ``policy_action``: a quick model of the seat to move that reads only its own cards;
* ``belief_weight``: how well a resample explains the opponents' public actions;
* ``SearchSettings.chance_nodes`` (or the agent's ``chance_nodes``): small chance events branch
  the tree.
"""

from __future__ import annotations

import gc
import random
from dataclasses import replace

import pytest

from fieldcraft.agents import View
from fieldcraft.agents.ismcts import ISMCTSAgent
from fieldcraft.core import load_game
from fieldcraft.core.api import CHANCE, TERMINAL, sample_chance
from fieldcraft.games.spy_tracker.rules import ATTRIBUTES, CALL, SPOT
from fieldcraft.sim.bench import decision_positions


def spy_tracker(players: int = 2, first: int = 0):
    return load_game("spy-tracker", players=players, first_bidder=f"seat {first}")


def deal(state, *hands: list[str]) -> None:
    for seat, hand in enumerate(hands):
        for card in hand:
            state.apply_action(state.string_to_action(f"deal {card} to seat {seat}"))


def spies_in(game, suffix: str) -> list[str]:
    return [c for c in game.card_names if c.count("/") == 2 and c.endswith(suffix)]


def others(game, *exclude: str) -> list[str]:
    """Spies with none of the given traits."""
    return [c for c in game.card_names
            if c.count("/") == 2 and not any(t in c.split("/") for t in exclude)]


def test_spy_tracker_search_actions_keep_challenges_and_two_counts_per_trait():
    game = spy_tracker()
    s = game.new_initial_state()
    deal(s, spies_in(game, "London")[:6], spies_in(game, "Moscow")[:6])
    s.apply_action(s.string_to_action("bid 3 Moscow"))
    s.apply_action(s.string_to_action("next: seat 1"))
    s.apply_action(s.string_to_action("bid 3 London"))
    s.apply_action(s.string_to_action("next: seat 0"))
    legal = s.legal_actions()
    kept = s.search_actions()
    assert set(kept) <= set(legal) and len(kept) < len(legal) // 4
    names = {s.action_to_string(a) for a in kept}
    assert {"call", "spot"} <= names
    # the standing trait (London) can only go up; Moscow 3 was already bid this round
    assert "raise 4 London" in names and "raise 5 London" in names
    assert "raise 6 London" not in names
    assert "bid 3 Moscow" not in names and {"raise 4 Moscow", "raise 5 Moscow"} <= names
    for attr in ATTRIBUTES:
        if attr not in ("London", "Moscow"):
            assert {f"bid 3 {attr}", f"raise 4 {attr}"} <= names, attr
            assert f"raise 5 {attr}" not in names


def test_spy_tracker_policy_calls_an_impossible_bid_and_backs_a_sure_one():
    game = spy_tracker(first=1)
    s = game.new_initial_state()
    deal(s, spies_in(game, "London")[:6], spies_in(game, "Moscow")[:6])
    s.apply_action(s.string_to_action("bid 12 Moscow"))
    s.apply_action(s.string_to_action("next: seat 0"))
    assert s.policy_action(random.Random(0)) == CALL
    game = spy_tracker()
    t = game.new_initial_state()
    deal(t, spies_in(game, "London")[:6], spies_in(game, "Moscow")[:6])
    t.apply_action(t.string_to_action("bid 2 London"))
    t.apply_action(t.string_to_action("next: seat 1"))
    # seat 1 holds six Moscow spies: a Moscow bid at the count is the safest answer
    assert t.action_to_string(t.policy_action(random.Random(0))) == "bid 2 Moscow"
    assert t.policy_action(random.Random(0)) not in (CALL, SPOT)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spy_tracker_policy_is_legal_and_reads_only_the_movers_cards(players):
    positions = decision_positions("spy-tracker", players, 40, seed=players)
    rng = random.Random(3)
    for state in positions:
        seat = state.current_player()
        action = state.policy_action(random.Random(9))
        assert action in state.legal_actions()
        kept = state.search_actions()
        assert set(kept) <= set(state.legal_actions())
        assert action in kept  # the policy's lowest-count bids are among those searched
        twin = state.resample(seat, rng)  # same own hand and bids, other hands re-dealt
        assert twin.policy_action(random.Random(9)) == action


def test_spy_tracker_policy_plays_whole_games():
    game = load_game("spy-tracker", players=3)
    rng = random.Random(4)
    for _ in range(20):
        s = game.new_initial_state()
        steps = 0
        while s.current_player() != TERMINAL:
            if s.current_player() == CHANCE:
                s.apply_action(sample_chance(s, rng))
            else:
                s.apply_action(s.policy_action(rng))  # raises if illegal
            steps += 1
            assert steps < 5000, "the policy must not cycle for ever"


def test_spy_tracker_belief_weight_prefers_hands_that_explain_a_bid():
    """Seat 0 opens with 5 in Moscow. Seen from seat 1, a deal in which seat 0 holds Moscow
    spies explains that bid far better than one in which it holds none."""
    game = spy_tracker()

    def after_bid(hand0: list[str]):
        s = game.new_initial_state()
        deal(s, hand0, spies_in(game, "London")[6:9] + ["Traitor 1", "Traitor 2", "Traitor 3"])
        s.apply_action(s.string_to_action("bid 5 Moscow"))
        return s

    moscow = after_bid(spies_in(game, "Moscow")[:4] + others(game, "Moscow", "London")[:2])
    plain = after_bid(others(game, "Moscow", "London")[:6])
    strong, weak = moscow.belief_weight(1), plain.belief_weight(1)
    assert strong > 5 * weak > 0
    # the bidder's own view is not weighed by its own bid: nothing to weigh
    assert moscow.belief_weight(0) is None and plain.belief_weight(0) is None


class _Weighted:
    """A stand-in determinisation with a fixed belief weight."""

    def __init__(self, label: int, weight: float):
        self.label, self.weight = label, weight

    def belief_weight(self, seat: int) -> float:
        return self.weight

    def clone(self) -> _Weighted:
        return self


class _PoolView:
    seat = 0

    def __init__(self) -> None:
        self.made = 0

    def resample(self, rng: random.Random) -> _Weighted:
        self.made += 1
        label = self.made % 2  # alternate: odd samples weigh 3, even ones 1
        return _Weighted(label, 3.0 if label else 1.0)

    def resampler(self):
        return self.resample


def test_ismcts_draws_determinisations_in_proportion_to_belief_weight():
    view = _PoolView()
    draw = ISMCTSAgent(time=1.0, seed=1, beliefs=200)._sampler(view, random.Random(2))
    assert view.made == 200  # the pool is drawn once per decision
    labels = [draw().label for _ in range(8000)]
    assert view.made == 200
    share = sum(labels) / len(labels)
    assert 0.72 < share < 0.78  # 3 : 1 weights -> 75% of draws
    uniform = ISMCTSAgent(time=1.0, seed=1, beliefs=0)._sampler(_PoolView(), random.Random(2))
    assert 0.4 < sum(uniform().label for _ in range(2000)) / 2000 < 0.6


def test_ismcts_rejects_bad_search_options():
    with pytest.raises(ValueError):
        ISMCTSAgent(iterations=10, opponents="oracle")
    with pytest.raises(ValueError):
        ISMCTSAgent(iterations=10, beliefs=-1)


def test_ismcts_models_opponents_by_their_policy_when_asked():
    """With ``opponents=policy`` the opponent's replies are branches under each of the
    searcher's moves (not searched choices), chosen by the policy from the opponent's cards."""
    game = spy_tracker()
    s = game.new_initial_state()
    deal(s, spies_in(game, "London")[:6], spies_in(game, "Moscow")[:6])
    view = View(s, 0)
    root = ISMCTSAgent(iterations=400, seed=1, opponents="policy", expand_after=1).search(view)
    replies = set()
    for kid in root.kids:
        # the bid hands the turn to seat 1 (choosing "next" is seat 0's own move)
        for grandkid in kid.kids:
            replies |= set(grandkid.chance or {})
    assert replies, "the opponent's replies should branch the tree"
    assert all(s.action_to_string(a).split()[0] in ("call", "spot", "bid", "raise")
               for a in replies)
    plain = ISMCTSAgent(iterations=400, seed=1, opponents="tree", expand_after=1).search(view)
    assert all(k.chance is None for kid in plain.kids for k in kid.kids)


def test_die_faces_branch_the_tree_when_asked():
    """With ``chance_nodes=6``, after the searcher picks a token each die face gets its own
    node, so the choices after the roll are judged per face, not averaged over all six."""
    positions = decision_positions("against-the-current", 2, 40, seed=5)
    state = next(p for p in positions
                 if all(p.action_to_string(a).startswith("move token") for a in p.legal_actions()))
    root = ISMCTSAgent(iterations=600, seed=1, chance_nodes=6).search(
        View(state, state.current_player()))
    faces = [set(kid.chance or {}) for kid in root.kids]
    assert any(len(f) >= 4 for f in faces)
    assert all(len(f) <= 6 for f in faces)
    for f in faces:
        assert all(state.action_to_string(a).startswith("roll") for a in f) or not f
    # the game's default is open loop (measured better for this game): no branches
    plain = ISMCTSAgent(iterations=600, seed=1).search(View(state, state.current_player()))
    assert all(kid.chance is None for kid in plain.kids)


def test_opponent_model_falls_back_to_the_heuristic_bot():
    """Under Current has no quick policy: the heuristic bot answers for the other seats, from
    their own view, and the search still returns a legal move that ignores hidden cards."""
    positions = decision_positions("under-current", 4, 6, seed=3)
    rng = random.Random(0)
    branched = 0
    for state in positions:
        seat = state.current_player()
        assert state.policy_action(random.Random(0)) is None
        agent = ISMCTSAgent(iterations=150, seed=4, opponents="policy")
        root = agent.search(View(state, seat))
        branched += sum(1 for kid in root.kids if kid.chance)
        choice = ISMCTSAgent(iterations=150, seed=4, opponents="policy").act(View(state, seat))
        assert choice in state.legal_actions()
        twin = state.resample(seat, rng)
        again = ISMCTSAgent(iterations=150, seed=4, opponents="policy").act(View(twin, seat))
        assert again == choice
    assert branched > 0


def test_the_games_exploration_constant_is_the_default(monkeypatch):
    """Without ``c`` the agent uses the game's declared ``SearchSettings.c``; an explicit ``c``
    wins."""
    state = decision_positions("spy-tracker", 2, 3, seed=8)[-1]
    view = View(state, state.current_player())

    def visits(**options):
        root = ISMCTSAgent(iterations=600, seed=1, **options).search(view)
        return sorted(root.n)

    greedy = visits(c=0.0)
    wide = visits(c=5.0)
    assert greedy != wide
    spec = state.game.spec
    monkeypatch.setattr(state.game, "spec", replace(spec, search=replace(spec.search, c=0.0)))
    assert visits() == greedy
    monkeypatch.setattr(state.game, "spec", replace(spec, search=replace(spec.search, c=5.0)))
    assert visits() == wide
    assert visits(c=0.0) == greedy


def _undercover_turn_start(seed: int):
    """A two-player Undercover game played by random moves up to seat 0's third turn start."""
    from fieldcraft.games.undercover.base import ACTIVATE

    game = load_game("undercover", players=2)
    s = game.new_initial_state()
    rng = random.Random(seed)
    starts = 0
    while True:
        p = s.current_player()
        if p == CHANCE:
            s.apply_action(sample_chance(s, rng))
            continue
        if p == 0 and s.phase == ACTIVATE and len(s.legal_actions()) > 1:  # a turn begins
            starts += 1
            if starts == 3:
                return s, rng
        s.apply_action(rng.choice(s.legal_actions()))


def test_search_tree_is_kept_within_a_turn_and_dropped_after_other_moves():
    from fieldcraft.games.undercover.base import ACTIVATE

    s, rng = _undercover_turn_start(4)
    assert s.phase == ACTIVATE
    agent = ISMCTSAgent(iterations=300, seed=1, reuse=1)
    fresh = ISMCTSAgent(iterations=300, seed=1)  # reuse is off by default
    reused = []
    while s.current_player() == 0:  # seat 0's turn: take, flip, place
        view = View(s, 0)
        action = agent.act(view)
        if len(view.legal_actions()) > 1:
            reused.append(agent.last_reused)
            fresh.act(View(s.clone(), 0))
            assert fresh.last_reused == 0
        s.apply_action(action)
    # the turn's first search starts afresh, each later one from the subtree kept for it
    assert len(reused) >= 2 and reused[0] == 0 and all(r > 0 for r in reused[1:]), reused
    # the other seat moves: whatever was kept is stale now
    while s.current_player() != 0:
        p = s.current_player()
        s.apply_action(sample_chance(s, rng) if p == CHANCE else rng.choice(s.legal_actions()))
    agent.act(View(s, 0))
    assert agent.last_reused == 0



def test_a_kept_tree_never_yields_a_move_that_is_not_legal_now():
    """A kept subtree may have grown children in worlds the last move ruled out (a flip shows
    the tile's real back): however many visits such a child has, it must not be played."""
    from fieldcraft.agents.ismcts import _Node

    s, _ = _undercover_turn_start(6)
    legal = s.legal_actions()
    illegal = next(a for a in range(s.game.num_distinct_actions()) if a not in legal)
    stale = _Node()
    i = stale.add(illegal)
    stale.n[i], stale.w[i], stale.visits = 10**6, 10.0**6, 10**6
    agent = ISMCTSAgent(iterations=5, seed=2, reuse=1)
    agent._kept = (0, s.ply(), stale)
    choice = agent.act(View(s, 0))
    assert agent.last_reused == 10**6  # the stale tree was taken up ...
    assert choice in legal  # ... and its illegal favourite was not played


@pytest.mark.parametrize("game, players, position", [("undercover", 2, 1),
                                                    ("spy-tracker", 3, 2)])
def test_parallel_search_sums_the_root_counts_of_each_process_tree(game, players, position):
    """``workers=3``: the helpers' trees are grown in other processes from their own seeds and
    shares, and the move is read from the summed roots; the result is exactly the sum of the
    three trees searched one by one here, so the helpers really searched and nothing is lost.
    Spy Tracker weighs its determinisations, so each process's belief pool is sized for its
    own share, as a lone search of that share sizes it."""
    import os

    from fieldcraft.agents.ismcts_workers import _SHARE_OPTIONS, _search_share

    state = decision_positions(game, players, 3)[position]
    view = View(state, state.current_player())
    agent = ISMCTSAgent(iterations=302, seed=5, workers=3, c=0.3, beliefs=150)
    root = agent.search(view)
    assert agent.last_iterations == 302 == sum(root.n) == root.visits
    assert [n for _, n in agent.last_shares] == [101, 101, 100]
    pids = [pid for pid, _ in agent.last_shares]
    assert pids[0] == os.getpid() and os.getpid() not in pids[1:]

    alone = ISMCTSAgent(iterations=101, seed=5, c=0.3, beliefs=150)  # this process's share
    seeds = [alone.rng.randrange(1 << 62) for _ in range(2)]
    mine = alone.search(view)
    expected = {a: [n, w] for a, n, w in zip(mine.actions, mine.n, mine.w, strict=True)}
    options = {key: getattr(alone, key) for key in _SHARE_OPTIONS}
    for seed, share in zip(seeds, (101, 100), strict=True):
        stats, done, _ = _search_share(view, options, seed, share, None)
        assert done == share
        for a, n, w in stats:
            total = expected.setdefault(a, [0, 0.0])
            total[0] += n
            total[1] += w
    got = {a: [n, w] for a, n, w in zip(root.actions, root.n, root.w, strict=True)}
    assert got == expected
    assert sum(mine.n) == 101  # so the summed root is not one tree of 302


def test_parallel_search_helpers_copy_every_search_setting():
    """A setting missing from what the helpers copy would make their trees differ silently."""
    import inspect

    from fieldcraft.agents.ismcts_workers import _SHARE_OPTIONS

    # clock: a parallel search always runs on the wall clock (clock=cpu refuses workers > 1)
    own = {"self", "iterations", "time", "seed", "reuse", "workers", "clock"}
    assert set(_SHARE_OPTIONS) == set(inspect.signature(ISMCTSAgent).parameters) - own


def test_parallel_search_repeats_with_a_seed_and_plays_legal_moves():
    from fieldcraft.agents import make_agent

    states = decision_positions("spy-tracker", 3, 3)
    runs = []
    for _ in range(2):
        agent = make_agent("ismcts(iterations=150, workers=2)", seed=9)
        runs.append([agent.act(View(s, s.current_player())) for s in states])
    assert runs[0] == runs[1]
    assert all(a in s.legal_actions() for a, s in zip(runs[0], states, strict=True))
    view = View(states[0], states[0].current_player())
    timed = ISMCTSAgent(time=0.2, seed=1, workers=2)
    root = timed.search(view)
    assert sum(root.n) == timed.last_iterations == root.visits
    assert len(timed.last_shares) == 2 and all(n > 0 for _, n in timed.last_shares)
    few = ISMCTSAgent(iterations=2, seed=1, workers=3)  # fewer iterations than processes
    assert sum(few.search(view).n) == 2 and [n for _, n in few.last_shares] == [1, 1]


def test_parallel_search_rejects_bad_worker_counts():
    with pytest.raises(ValueError, match="workers"):
        ISMCTSAgent(iterations=10, workers=0)
    with pytest.raises(ValueError, match="reuse"):
        ISMCTSAgent(iterations=10, workers=2, reuse=1)


def test_parallel_search_survives_a_helper_process_that_dies():
    """A helper killed from outside (out of memory, a stray signal) breaks its pool: the move
    being searched is chosen on the trees that finished, and the next search starts fresh
    helpers instead of failing for the rest of the process's life."""
    import os
    import signal
    import warnings

    from fieldcraft.agents import ismcts_workers

    state = decision_positions("against-the-current", 2, 1)[0]
    view = View(state, state.current_player())
    ISMCTSAgent(iterations=40, seed=1, workers=2).search(view)
    pool = ismcts_workers._pool[0]
    for pid in list(pool._processes):
        os.kill(pid, signal.SIGKILL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert sum(ISMCTSAgent(iterations=40, seed=1, workers=2).search(view).n) >= 20
    agent = ISMCTSAgent(iterations=40, seed=1, workers=2)
    assert sum(agent.search(view).n) == 40 and len(agent.last_shares) == 2
    assert ismcts_workers._pool[0] is not pool


def test_a_study_of_parallel_search_bots_finishes(tmp_path):
    """Each of a study's worker processes starts its own helpers; they must be stopped before
    the worker exits, or the worker (and so the study) would wait for them for ever."""
    import subprocess
    import sys

    pytest.importorskip("pyarrow")
    code = ("from pathlib import Path\n"
            "from fieldcraft.sim.study import run_study\n"
            "if __name__ == '__main__':\n"
            "    run_study('spy-tracker', [2], ['ismcts(iterations=20, workers=2)', 'random'],"
            f" 4, 1, {{}}, 2, Path({str(tmp_path)!r}))\n")
    script = tmp_path / "study.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], timeout=120, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results.parquet").exists()


def test_a_cpu_clock_budget_counts_the_cpu_clock_and_not_the_wall(monkeypatch):
    """``clock=cpu`` stops the search on the process's CPU seconds (a skill trace on a shared
    machine buys what a free core would): the wall clock is never read, and the budget ends
    when the CPU clock has advanced by ``time``."""
    from fieldcraft.agents import ismcts

    ticks = [0.0]

    def cpu() -> float:  # a fake CPU clock: 0.01 s a reading
        ticks[0] += 0.01
        return ticks[0]

    def wall() -> float:
        raise AssertionError("a cpu-clocked search read the wall clock")

    monkeypatch.setitem(ismcts.CLOCKS, "cpu", cpu)
    monkeypatch.setitem(ismcts.CLOCKS, "wall", wall)
    game = spy_tracker()
    s = game.new_initial_state()
    deal(s, spies_in(game, "London")[:6], spies_in(game, "Moscow")[:6])
    agent = ISMCTSAgent(time=0.2, seed=1, clock="cpu")
    agent.search(View(s, 0))
    # one reading to set the deadline, one every 8 iterations: 20 readings reach 0.2 s
    assert 8 * 18 <= agent.last_iterations <= 8 * 21
    with pytest.raises(AssertionError, match="wall clock"):
        ISMCTSAgent(time=0.2, seed=1).search(View(s, 0))
    with pytest.raises(ValueError, match="clock"):
        ISMCTSAgent(time=0.2, clock="sundial")
    with pytest.raises(ValueError, match="workers"):
        ISMCTSAgent(time=0.2, clock="cpu", workers=2)


def _three_seat_spy_tracker():
    game = spy_tracker(players=3)
    s = game.new_initial_state()
    deal(s, spies_in(game, "London")[:4], spies_in(game, "Moscow")[:4],
         spies_in(game, "Paris")[:4])
    return s


def _collections_during(run) -> list[int]:
    """The generations of the cyclic collections that start while ``run()`` runs, with the
    collector on and its young count at zero when it starts."""
    seen: list[int] = []

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    was_enabled = gc.isenabled()
    gc.enable()
    gc.collect()  # the young count starts at zero, far below the first threshold
    gc.callbacks.append(watch)
    try:
        run()
    finally:
        gc.callbacks.remove(watch)
        if not was_enabled:
            gc.disable()
    return seen


def test_no_collection_walks_the_search_tree_in_the_moves_time():
    """The collector is held off while the tree grows; when it comes back, the tree's objects
    must not all sit in the young generation, or the next allocation walks every one of them
    in the move's time (a quarter of a second after 4,000 iterations at four players). A
    search made thousands of tracked objects, yet no collection ran in the move."""
    from fieldcraft.agents import ismcts

    assert not ismcts._freeze_after  # as in a study or the terminal: no collector clock
    gc.unfreeze()  # nor anything frozen
    agent = ISMCTSAgent(iterations=3000, seed=1)
    s = _three_seat_spy_tracker()
    assert _collections_during(lambda: agent.act(View(s, 0))) == []
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # frozen and thawed: nothing left frozen


def test_under_the_web_collector_clock_the_tree_stays_frozen_and_no_collection_runs():
    """The web's collector clock freezes what is young every tenth of a second, but a search
    holding the interpreter lock can keep it from ticking; told so, a search leaves its objects
    frozen (as the next tick would), no collection walks them in the move, and what the
    server froze stays frozen."""
    from fieldcraft.agents import ismcts

    keep = [[i] for i in range(1000)]
    gc.freeze()
    ismcts.freeze_after_searches(True)
    try:
        frozen = gc.get_freeze_count()
        agent = ISMCTSAgent(iterations=3000, seed=1)
        s = _three_seat_spy_tracker()
        assert _collections_during(lambda: agent.act(View(s, 0))) == []
        assert gc.get_freeze_count() >= frozen
    finally:
        ismcts.freeze_after_searches(False)
        gc.unfreeze()
    assert keep


def test_objects_frozen_for_another_reason_are_left_as_they_are():
    """A program that froze objects for its own reasons (before forking workers, say) keeps
    them frozen, and gets no frozen objects of ours: the search leaves the generations alone."""
    keep = [[i] for i in range(1000)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        ISMCTSAgent(iterations=3000, seed=1).act(View(_three_seat_spy_tracker(), 0))
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    assert keep


@pytest.mark.parametrize(("game", "players"), [
    ("spy-tracker", 2), ("spy-tracker", 4), ("against-the-current", 2),
    ("against-the-current", 4), ("undercover", 2), ("undercover", 6),
    ("under-current", 3), ("under-current", 4), ("under-current", 5), ("under-current", 6),
    ("under-current", 8)])
def test_a_search_makes_no_reference_cycles(game, players):
    """What a search made is moved to the oldest generation when it ends, where only the rare
    full collections look, so it must all go by reference counting: no cyclic garbage (a
    recursive closure in Under Current's role deals made some at four to six players)."""
    positions = decision_positions(game, players, 6, seed=3)
    gc.collect()
    for state in positions:
        ISMCTSAgent(iterations=300, seed=2).search(View(state, state.current_player()))
        assert gc.collect() == 0, (game, players)
