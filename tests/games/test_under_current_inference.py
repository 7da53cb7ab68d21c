"""Under Current's informed role draws: search weighs each role deal by the receiving choices a
seat saw (``search.receipts``, ``role_weights``, ``weighted_roles``, ``informed_resampler``).

What could go wrong, and what each test pins down: the record read from the game's history
must hold only what the seat was told (checked against the table's own per-reader events and
the seat's observation, not against the code under test); the sampler must draw deals in
proportion to their weights, exactly; an informed draw must be a state the seat cannot tell
from the real one; and the inference must actually inform (it puts the true factions where they
are more often than uniform draws, on games of Normal bots).
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any

import pytest

from fieldcraft import load_game
from fieldcraft.agents import View, make_agent
from fieldcraft.agents.rollout import RolloutAgent
from fieldcraft.core import CHANCE
from fieldcraft.core.api import FieldcraftError
from fieldcraft.games.under_current import bot, events
from fieldcraft.games.under_current.constants import FACTIONS, FLIP, RECEIVE, RETIRE, TARGET
from fieldcraft.games.under_current.search import (
    _colour_value,
    files,
    receipts,
    role_weights,
    weighted_roles,
)
from tests.benchmark_modules import load_benchmark


@functools.cache
def _benchmark() -> Any:
    """``benchmarks/uc_inference.py``, loaded once (no test patches it)."""
    return load_benchmark("uc_inference")


def _played(players: int, seed: int, steps: int) -> Any:
    """A game of Normal bots ``steps`` actions in (the benchmark's seeded games)."""
    return _benchmark().normal_game(players, seed, steps)


def _spy_on_draws(monkeypatch: Any, state: Any) -> tuple[list[int], list[int]]:
    """Wrap the game's ``informed_resampler``: the seats it was asked for, and one entry per
    world drawn from it."""
    model = type(state.game.search_model)
    real = model.informed_resampler
    asked: list[int] = []
    drawn: list[int] = []

    def spy(self: Any, game_state: Any, who: int) -> Any:
        asked.append(who)
        draw = real(self, game_state, who)
        assert draw is not None

        def counted(rng: random.Random) -> Any:
            drawn.append(who)
            return draw(rng)
        return counted

    monkeypatch.setattr(model, "informed_resampler", spy)
    return asked, drawn


def _told(state: Any, seat: int) -> list[tuple[int, tuple[bool, ...]]]:
    """``receipts`` worked out again from what the table tells ``seat``: its per-reader event
    for every action, and its own observation (the row cards it sees) before each receive."""
    g = state.game
    replay = g.new_initial_state()
    seen: list[list[Any]] = []
    for action in state.actions:
        told = events.event(replay, action, seat)
        if replay.phase == RECEIVE and told["params"]["seat"] != seat:
            card = told["params"].get("card")  # named only if the seat may know it
            if card is not None:
                used = not told["key"].startswith("file")
                row = [e["card"] for e in replay.observation(seat)["row"] if e["card"]]
                blue = sum(c.startswith("Blue") for c in row)
                red = sum(c.startswith("Red") for c in row)
                colour = FACTIONS.index(card.split("/")[0])
                live = "RETIRE" in card and len(replay.observation(seat)["row"]) \
                    >= g.retire_min_row
                fits = tuple(files(f, colour, blue, red, live) != used for f in range(4))
                seen.append([told["params"]["seat"], fits])
        if replay.phase == TARGET and replay.effect == FLIP:
            a = told["params"]["seat"]
            b = (g.num_players + told["params"]["reserve"] if "reserve" in told["params"]
                 else told["params"]["target"])
            for record in seen:
                record[0] = b if record[0] == a else a if record[0] == b else record[0]
        replay._apply(action)
    return [(p, fits) for p, fits in seen]


@pytest.mark.parametrize("players", [3, 5, 8])
def test_the_record_holds_what_the_seat_was_told(players: int) -> None:
    checked = 0
    flips = 0
    for seed in range(8):
        state = _played(players, seed, steps=400)
        flips += sum(1 for _ in _flip_steps(state))
        for seat in range(players):
            mine = receipts(state, seat)
            assert mine == _told(state, seat)
            checked += len(mine)
    assert checked > 20 * players  # the games had choices to read
    if players == 8:
        assert flips > 0  # a FLIP moved a role card in one of them at least


def test_the_model_values_colours_as_normal_does() -> None:
    reader = object.__new__(bot._Reader)  # only its valuation: no view needed
    for f, faction in enumerate(FACTIONS):
        reader.faction = faction
        for blue in range(5):
            for red in range(5):
                reader.counts = {"Blue": blue, "Red": red, "Yellow": 0, "Green": 0}
                for c, colour in enumerate(FACTIONS):
                    assert _colour_value(f, c, blue, red) == reader.colour_value(colour)


@pytest.mark.parametrize("players", [4, 8])
def test_the_model_predicts_every_choice_of_normal_from_what_it_saw(players: int) -> None:
    """Given what the receiver saw (its row counts) and its true faction, the model's rule is
    exactly Normal's receiving choice, wherever Normal's one extra care (a passer it knows to
    share its faction may pass a live RETIRE safely) does not apply: so the misfits in
    ``receipts`` come only from what the reading seat cannot see."""
    checked = 0
    for seed in range(6):
        state = _played(players, seed, steps=500)
        g = state.game
        replay = g.new_initial_state()
        for action in state.actions:
            if replay.phase == RECEIVE:
                r, a, card = replay.receiver, replay.active, replay.pending
                sees = (1 << r) | (1 << players)
                row = [c for i, c in enumerate(replay.row) if replay.row_known[i] & sees]
                blue = sum(g.card_colour[c] == 0 for c in row)
                red = sum(g.card_colour[c] == 1 for c in row)
                faction = g.role_faction[replay.roles[r]]
                live = g.card_effect[card] == RETIRE and len(replay.row) >= g.retire_min_row
                ally = all(g.role_faction[x] == faction for x in range(g.num_roles)
                           if replay.role_masks[r][a] >> x & 1)
                if not (live and ally):
                    assert files(faction, g.card_colour[card], blue, red, live) == \
                        (action == g.A_FILE)
                    checked += 1
            replay._apply(action)
    assert checked > 50


def _flip_steps(state: Any) -> Any:
    replay = state.game.new_initial_state()
    for action in state.actions:
        if replay.phase == TARGET and replay.effect == FLIP:
            yield action
        replay._apply(action)


def test_a_seat_learns_nothing_from_a_card_it_never_saw() -> None:
    """A filed card stays face down: a seat that neither passed nor knew it gets no record of
    that choice, while the passer does; a used card is shown to all and counts for every
    seat but the receiver (who knows its own role)."""
    state = _played(5, seed=3, steps=400)
    g = state.game
    replay = g.new_initial_state()
    counted = {s: 0 for s in range(5)}
    for action in state.actions:
        if replay.phase == RECEIVE:
            r, a = replay.receiver, replay.active
            for s in range(5):
                knew = bool(replay.pending_known >> s & 1) or \
                    bool(replay.pending_known >> 5 & 1)
                if s != r and (action != g.A_FILE or knew):
                    counted[s] += 1
            if action == g.A_FILE:
                assert replay.pending_known >> a & 1  # the passer always knows what it passed
        replay._apply(action)
    assert {s: len(receipts(state, s)) for s in range(5)} == counted
    assert len(set(counted.values())) > 1  # seats were told different things


def test_weighted_roles_draws_each_deal_in_proportion_to_its_weight() -> None:
    masks = [0b0111, 0b1011, 0b1111, 0b1100]  # four positions, four roles, some ruled out
    weights = [[0.5, 1.0, 2.0, 0.0], [1.0, 0.2, 1.0, 3.0], [1.0, 1.0, 1.0, 1.0],
               [1.0, 1.0, 0.7, 1.3]]
    allowed = {}
    for deal in itertools.permutations(range(4)):
        if all(masks[p] >> r & 1 for p, r in enumerate(deal)):
            weight = 1.0
            for p, r in enumerate(deal):
                weight *= weights[p][r]
            if weight:
                allowed[deal] = weight
    total = sum(allowed.values())
    draw = weighted_roles(masks, weights)
    assert draw is not None
    rng = random.Random(4)
    n = 40_000
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(n):
        deal = tuple(draw(rng))
        counts[deal] = counts.get(deal, 0) + 1
    assert set(counts) <= set(allowed)  # never a deal the masks or a zero weight rule out
    for deal, weight in allowed.items():
        p = weight / total
        sd = (p * (1 - p) / n) ** 0.5
        assert abs(counts.get(deal, 0) / n - p) < 4 * sd + 1e-9, deal


def test_weighted_roles_is_uniform_without_evidence_and_none_without_a_deal() -> None:
    masks = [0b011, 0b011, 0b111]
    draw = weighted_roles(masks, [[1.0] * 3] * 3)
    assert draw is not None
    rng = random.Random(1)
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(6000):
        deal = tuple(draw(rng))
        counts[deal] = counts.get(deal, 0) + 1
    assert set(counts) == {(0, 1, 2), (1, 0, 2)}
    assert abs(counts[(0, 1, 2)] - 3000) < 250
    assert weighted_roles(masks, [[0.0, 0.0, 1.0]] * 3) is None  # nobody may hold 0 or 1


def test_informed_draws_are_states_the_seat_cannot_tell_apart() -> None:
    state = _played(6, seed=2, steps=300)
    for seat in range(6):
        draw = state.informed_resampler(seat)
        assert draw is not None
        before = state.observation(seat)
        rng = random.Random(seat)
        for _ in range(20):
            world = draw(rng)
            world.check_invariants()
            assert world.sampled and world.ply() is None  # a sample, its history dropped
            assert world.observation(seat) == before
            assert sorted(world.roles) == sorted(state.roles)
            assert world.roles[seat] == state.roles[seat]
            for other in range(6):  # the others know their drawn role and the public facts
                if other != seat:
                    assert world.role_masks[other][other] == 1 << world.roles[other]
        assert state.observation(seat) == before  # the real state is untouched


def test_no_informed_draws_before_the_deal_or_from_a_resample() -> None:
    game = load_game("under-current", players=5)
    assert game.new_initial_state().informed_resampler(0) is None
    state = _played(5, seed=1, steps=300)
    assert state.informed_resampler(0) is not None
    assert state.resample(0, random.Random(0)).informed_resampler(0) is None


def test_the_choices_seen_point_to_the_true_factions() -> None:
    """On games of Normal bots (whose receiving rule the model is), informed draws put the
    true faction at a seat far more often than uniform ones (a model that valued colours
    wrongly still beats uniform draws a little, so the margin is wide)."""
    players = 8
    g = load_game("under-current", players=players)
    uniform = [[1.0] * g.num_roles for _ in range(players + g.num_reserve)]
    rng = random.Random(7)
    informed_hits = uniform_hits = total = 0
    for seed in range(12):
        state = _played(players, seed, steps=60 + 7 * seed)
        seat = seed % players
        masks = state.role_masks[seat]
        with_evidence = weighted_roles(masks, role_weights(g, receipts(state, seat)))
        without = weighted_roles(masks, uniform)
        assert with_evidence is not None and without is not None
        truth = [g.role_faction[r] for r in state.roles]
        for _ in range(100):
            a, b = with_evidence(rng), without(rng)
            for s in range(players):
                if s != seat:
                    total += 1
                    informed_hits += g.role_faction[a[s]] == truth[s]
                    uniform_hits += g.role_faction[b[s]] == truth[s]
    assert informed_hits / total > uniform_hits / total + 0.18  # measured: 0.67 against 0.42


def test_the_rollout_bot_draws_informed_worlds_only_when_asked(monkeypatch: Any) -> None:
    state = _played(6, seed=4, steps=300)
    seat = state.current_player()
    assert seat >= 0 and len(state.legal_actions()) > 1
    _, drawn = _spy_on_draws(monkeypatch, state)
    first = RolloutAgent(rollouts=2, depth=6, infer=1, seed=3)
    action = first.act(View(state, seat))
    assert first.last["informed"] and action in state.legal_actions()
    assert drawn == [seat] * 3  # the candidates' world and both rounds' worlds
    drawn.clear()
    again = RolloutAgent(rollouts=2, depth=6, infer=1, seed=3)
    assert again.act(View(state, seat)) == action and again.last["values"] == first.last["values"]
    plain = RolloutAgent(rollouts=2, depth=6, seed=3)
    plain.act(View(state, seat))
    assert not plain.last["informed"] and drawn == [seat] * 3  # `again` drew; `plain` did not
    monkeypatch.undo()
    # a game without a model of its players: the uniform draws, no error
    spy = load_game("spy-tracker", players=2).new_initial_state()
    while spy.current_player() == CHANCE:
        spy.play_chance(random.Random(0))
    bot = RolloutAgent(rollouts=2, depth=4, infer=1, seed=1)
    assert bot.act(View(spy, spy.current_player())) in spy.legal_actions()
    assert not bot.last["informed"]
    with pytest.raises(FieldcraftError):
        make_agent("rollout(infer=2)", seed=0)


def test_ismcts_draws_informed_worlds_only_when_asked(monkeypatch: Any) -> None:
    state = _played(5, seed=6, steps=250)
    seat = state.current_player()
    assert seat >= 0 and len(state.legal_actions()) > 1
    asked, drawn = _spy_on_draws(monkeypatch, state)
    plain = make_agent("ismcts(iterations=40)", seed=2)
    plain.act(View(state, seat))
    assert asked == [] and drawn == []
    informed = make_agent("ismcts(iterations=40, infer=1)", seed=2)
    assert informed.act(View(state, seat)) in state.legal_actions()
    assert asked == [seat] and len(drawn) >= 40  # every iteration's world came from it
    with pytest.raises(FieldcraftError):
        make_agent("ismcts(infer=2)", seed=0)
