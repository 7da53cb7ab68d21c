"""The conformance suite every game must pass, shipped with the library (as pgx ships its api
test), so that a game's own test is one line::

    from fieldcraft.core.conformance import pytest_tests
    test_conformance = pytest_tests("spy-tracker")       # every player count and test config

or, outside pytest, ``check_game(load_game("spy-tracker", players=3))``.

Each check is written so that a stub or a leaky implementation fails it: playouts must really end
within the declared bounds, illegal actions must really be rejected without side effects,
replays and JSON must be exact, the declared observation pieces must be exactly what is sent, and
``resample`` must change hidden information while leaving the seat's view untouched (so a view
that shows something hidden is caught). Checks that cost a deep copy or a resample look at
decision points sampled along seeded games rather than at every step; the cheap contracts are
checked at every step. ``tests/core/test_conformance_faults.py`` plants a fault of each kind and
shows that some check fails it.
"""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    Game,
    IllegalActionError,
    MalformedActionError,
    State,
    sample_chance,
)
from fieldcraft.core.checklist import CHECKS, PLAYOUTS, Check, _every, _points, _step, check
from fieldcraft.core.fields import LISTS, VALUE, own_fields, source_fields
from fieldcraft.core.spec import (
    CONSTANT_SUM,
    DETERMINISTIC,
    EXPLICIT_STOCHASTIC,
    GENERAL_SUM,
    IMPERFECT_INFORMATION,
    PERFECT_INFORMATION,
    SEQUENTIAL,
    TERMINAL_REWARDS,
    ZERO_SUM,
)


# -- declarations ---------------------------------------------------------------------------------
@check
def declared_metadata_is_well_formed(game: Game) -> None:
    t = game.game_type
    assert t.dynamics == SEQUENTIAL, t.dynamics
    assert t.chance_mode in (DETERMINISTIC, EXPLICIT_STOCHASTIC), t.chance_mode
    assert t.information in (PERFECT_INFORMATION, IMPERFECT_INFORMATION), t.information
    assert t.utility in (ZERO_SUM, CONSTANT_SUM, GENERAL_SUM), t.utility
    assert t.reward_model == TERMINAL_REWARDS, t.reward_model
    info = game.info()
    assert info.num_players == game.num_players
    assert info.num_distinct_actions > 0
    assert info.min_utility < info.max_utility
    if t.utility == ZERO_SUM:
        assert info.utility_sum == 0.0
    elif t.utility == CONSTANT_SUM:
        assert info.utility_sum is not None
    else:
        assert info.utility_sum is None
    if t.chance_mode == DETERMINISTIC:
        assert info.max_chance_outcomes == 0
    else:
        assert info.max_chance_outcomes > 0 and info.chance_offset >= 0
    for bound in (info.max_game_length, info.max_chance_nodes):
        assert bound is None or (isinstance(bound, int) and bound > 0)
    assert game.num_distinct_actions() == info.num_distinct_actions
    assert game.max_chance_outcomes() == info.max_chance_outcomes
    names = [p.name for p in game.observer.pieces]
    assert names and len(names) == len(set(names)), "observation pieces must be named once each"


@check
def random_playouts_end_within_the_declared_bounds(game: Game) -> None:
    """Seeded random games end, their returns are valid and within the declared utility range
    and sum, and no game takes more decisions or chance outcomes than declared."""
    info = game.info()
    rng = random.Random(1)
    lengths = []
    for _ in range(PLAYOUTS):
        state = game.new_initial_state()
        decisions = chance = 0
        while True:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                chance += 1
                state._apply(sample_chance(state, rng))
            else:
                decisions += 1
                legal = state.legal_actions()
                state._apply(legal[int(rng.random() * len(legal))])
            assert decisions + chance <= 1_000_000, "a random game did not end"
        if info.max_game_length is not None:
            assert decisions <= info.max_game_length, (decisions, info.max_game_length)
        if info.max_chance_nodes is not None:
            assert chance <= info.max_chance_nodes, (chance, info.max_chance_nodes)
        assert state.is_terminal() and state.legal_actions() == []
        returns = state.returns()
        assert len(returns) == game.num_players
        assert all(info.min_utility <= r <= info.max_utility for r in returns), returns
        if info.utility_sum is not None:
            assert abs(sum(returns) - info.utility_sum) < 1e-9, returns
        assert state.winners() == [s for s, r in enumerate(returns) if r > 0]
        json.dumps(state.outcome())
        lengths.append(decisions + chance)
    assert min(lengths) > game.num_players  # a real game, not an immediate stop


# -- contracts at every step ------------------------------------------------------------------
@check
def every_step_keeps_invariants_and_api_contracts(game: Game) -> None:
    """At every step of a few games: the player, the legal list (sorted, in the declared id
    ranges), chance odds (listed in id order, as OpenSpiel expects), ``_is_legal`` against the
    list, ``ply``, invariants; at sampled steps
    the names and structured choices of every legal action."""
    info = game.info()
    rng = random.Random(2)
    low, high = info.chance_offset, info.chance_offset + info.max_chance_outcomes
    every = _every(game)
    for _ in range(6):
        state = game.new_initial_state()
        state.check_invariants()
        step = 0
        while not state.is_terminal():
            step += 1
            player = state.current_player()
            assert player == CHANCE or 0 <= player < game.num_players
            legal = state.legal_actions()
            assert legal, "a non-terminal state must offer an action"
            assert legal == sorted(set(legal))
            if player == CHANCE:
                assert all(low <= a < high for a in legal), ("chance id outside its range",
                                                              legal, low, high)
                outcomes = state.chance_outcomes()
                assert [a for a, _ in outcomes] == legal, "outcomes in ascending id order"
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                assert all(p > 0 for _, p in outcomes)
                if state.uniform_chance:  # the flag lets samplers skip the odds: verify it
                    assert all(abs(p - outcomes[0][1]) < 1e-12 for _, p in outcomes)
            else:
                assert all(0 <= a < info.num_distinct_actions for a in legal)
            legal_set = set(legal)
            probes = legal + [rng.randrange(-2, info.num_distinct_actions + 3) for _ in range(6)]
            for action in probes:
                assert state._is_legal(action) == (action in legal_set), ("_is_legal", action)
                assert state.is_legal(action) == (action in legal_set), ("is_legal", action)
            for action in (True, 1.0, "0", 1 << 31, 1 << 53, -(1 << 31)):
                assert not state.is_legal(action), ("is_legal", action)
            if step % every == 0:
                for action in legal:
                    text = state.action_to_string(action)
                    assert isinstance(text, str) and text
                    assert state.string_to_action(text) == action, text
                if player != CHANCE:
                    choices = state.choices()
                    assert [c["action"] for c in choices] == legal
                    for c in choices:
                        assert c["label"] == state.action_to_string(c["action"])
                        assert isinstance(c["kind"], str) and c["kind"]
                        assert isinstance(c["args"], dict)
                        assert json.loads(json.dumps(c["args"])) == c["args"]
            ply = state.ply()
            assert ply == len(state.history())
            state.apply_action(_step(state, rng))
            assert state.ply() == ply + 1  # search bots rely on it to keep a turn's tree
            state.check_invariants()


@check
def illegal_actions_are_rejected_and_change_nothing(game: Game) -> None:
    rng = random.Random(3)
    num_actions = game.num_distinct_actions()
    checked = 0
    for state, _ in _points(game, 3, _every(game), games=4, decisions_only=False):
        legal = set(state.legal_actions())
        illegal = [a for a in rng.sample(range(num_actions), min(8, num_actions))
                   if a not in legal] + [-1, num_actions, 10**9]
        before = state.to_dict()
        for action in illegal + [True, 1.5, "1"]:
            try:
                state.apply_action(action)  # type: ignore[arg-type]
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"illegal action {action!r} was applied")
            assert state.to_dict() == before, f"rejecting {action!r} changed the state"
            checked += 1
        if state.is_terminal():
            assert state.legal_actions() == []
    assert checked > 0


@check
def malformed_strings_are_rejected(game: Game) -> None:
    state = game.new_initial_state()
    for text in ["", "definitely not an action", "pass to seat 99", "42 42 42", None, 7]:
        try:
            state.string_to_action(text)  # type: ignore[arg-type]
        except MalformedActionError:
            continue
        raise AssertionError(f"{text!r} was read as an action")


# -- exact replays --------------------------------------------------------------------------------
@check
def replay_json_and_seed_are_exact(game: Game) -> None:
    """A game is its action list (replay), its JSON (at sampled steps and at the end), and
    the same seed plays the same game."""
    rng = random.Random(4)
    for _ in range(3):
        state = game.new_initial_state()
        step = 0
        while True:
            if step % 7 == 0 or state.is_terminal():
                restored = game.state_from_json(state.to_json())
                assert restored == state
                assert restored.legal_actions() == state.legal_actions()
                assert restored.current_player() == state.current_player()
            if state.is_terminal():
                break
            state.apply_action(_step(state, rng))
            step += 1
        replayed = game.replay(state.history())
        assert replayed == state
        assert replayed.returns() == state.returns()
    a, b = game.new_initial_state(), game.new_initial_state()
    ra, rb = random.Random(99), random.Random(99)
    while not a.is_terminal():
        a.apply_action(_step(a, ra))
    while not b.is_terminal():
        b.apply_action(_step(b, rb))
    assert a.history() == b.history()


@check
def pickled_states_share_one_game_per_ruleset(game: Game) -> None:
    """Parallel search sends views to other processes by pickle: a state must come back equal,
    with a game loaded from the same ruleset rather than a copy of the game's caches, and every
    state of that ruleset must share that one game."""
    for state, _ in _points(game, 8, 9, games=1):
        copy = pickle.loads(pickle.dumps(state))
        assert copy == state and copy.legal_actions() == state.legal_actions()
        assert copy.game is not game and repr(copy.game) == repr(game)
        assert pickle.loads(pickle.dumps(state)).game is copy.game


@check
def play_chance_appends_a_run_of_legal_outcomes(game: Game) -> None:
    """``play_chance`` may resolve several chance outcomes at once (a whole deal), but each must
    be a legal outcome in turn: the history it leaves replays, step by checked step, to the
    very state it made."""
    rng = random.Random(9)
    calls = 0
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                if rng.random() < 0.3:  # sometimes start partway through a run (a deal)
                    state.apply_action(sample_chance(state, rng))
                    continue
                before = len(state.history())
                state.play_chance(rng)
                calls += 1
                assert len(state.history()) > before
                state.check_invariants()
                assert game.replay(state.history()) == state
            else:
                state.apply_action(_step(state, rng))
    if game.game_type.chance_mode != DETERMINISTIC:
        assert calls > 0


@check
def clones_are_independent(game: Game) -> None:
    """A clone equals its original; playing the clone on (or playing the original on) changes
    nothing in the other, at decision points and chance nodes alike."""
    rng = random.Random(6)
    checked = 0
    for state, _ in _points(game, 6, 5, games=2, decisions_only=False):
        if state.is_terminal():
            continue
        snapshot = state.to_dict()
        copy = state.clone()
        assert type(copy) is type(state) and copy == state
        steps = 0
        while not copy.is_terminal() and steps < 60:
            copy.apply_action(_step(copy, rng))
            steps += 1
        assert state.to_dict() == snapshot, "playing a clone changed its original"
        original = state.clone()  # now play an original on, and look at its clone
        twin = original.clone()
        kept = twin.to_dict()
        for _ in range(60):
            if original.is_terminal():
                break
            original.apply_action(_step(original, rng))
        assert twin.to_dict() == kept, "playing an original changed its clone"
        checked += 1
    assert checked > 0


@check
def state_fields_are_declared_once(game: Game) -> None:
    """Every field of the state is declared once, as an annotation, and what the build made from
    the annotations says the same: ``_fields`` and ``_field_kinds`` (the metaclass's in the pure
    build, the compiled build's, derived from the same source), a slot or C field per field, and
    a clone that copies each field by its kind. Every table the game's class annotates is set,
    and in the compiled build is a C field of that class."""
    state = game.new_initial_state()
    cls = type(state)
    declared: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is State or not issubclass(klass, State):
            continue
        own = source_fields(_module_source(klass), klass.__name__)
        declared.update(own_fields(dict(vars(klass))) if own is None else own)
    assert tuple(cls._fields) == tuple(declared), \
        f"{cls.__name__}._fields is {cls._fields}, its classes declare {tuple(declared)}"
    assert dict(cls._field_kinds) == declared, \
        f"{cls.__name__}._field_kinds is {cls._field_kinds}, the annotations give {declared}"
    for name in declared:
        assert _is_field(cls, name), f"{cls.__name__}.{name} has no slot or C field"
    rng = random.Random(11)
    for _ in range(15):
        if state.is_terminal():
            break
        state.apply_action(_step(state, rng))
    twin = state.clone()
    assert type(twin) is cls
    for name, kind in declared.items():
        mine, copied = getattr(state, name), getattr(twin, name, _NOT_COPIED)
        assert copied is not _NOT_COPIED, f"{cls.__name__}.clone does not copy {name}"
        assert mine == copied, f"clone changed {name}"
        if kind != VALUE:
            assert mine is not copied, f"clone shares {name}, which is copied by {kind}"
        if kind == LISTS:
            assert all(a is not b for a, b in zip(mine, copied, strict=True)), \
                f"clone shares the inner lists of {name}"
    for klass in type(game).__mro__:
        if klass is Game or not issubclass(klass, Game) or klass.__module__ == "builtins":
            continue
        tables = source_fields(_module_source(klass), klass.__name__) or {}
        for name in tables:
            assert hasattr(game, name), f"{klass.__name__} declares {name} but never sets it"
            if not klass.__flags__ & _HEAP_TYPE:  # an extension type: a C field
                assert _is_field(klass, name), f"{klass.__name__}.{name} is not a C field"


_NOT_COPIED = object()
_HEAP_TYPE = 1 << 9
"""``Py_TPFLAGS_HEAPTYPE``: set on a class made by a class statement, not on an extension type."""


def _is_field(cls: type, name: str) -> bool:
    """``name`` is a slot or a C field of ``cls`` (a data descriptor on it), not a dict entry."""
    owner = next((k for k in cls.__mro__ if name in vars(k)), None)
    return owner is not None and hasattr(type(vars(owner)[name]), "__set__")


def _module_source(klass: type) -> str:
    """The ``.py`` text a class was defined in (the compiled build loads the extension module
    built from it, which sits beside it)."""
    import sys
    from pathlib import Path

    path = Path(sys.modules[klass.__module__].__file__ or "")
    if path.suffix != ".py":
        path = path.with_name(path.name.split(".", 1)[0] + ".py")
    return path.read_text()


from fieldcraft.core import conformance_views  # noqa: E402, F401 - registers the view checks next

__all__ = ["CHECKS", "PLAYOUTS", "Check", "check", "check_game", "configurations", "pytest_tests"]


def configurations(name: str) -> list[tuple[int, dict[str, Any]]]:
    """Every player count of a game with each of its declared test configurations and each of
    its named variants (a variant is a set of overrides: ``variants.json``)."""
    from fieldcraft.core.registry import game_spec, variants

    spec = game_spec(name)
    configs = list(spec.test_configs) + [v["rules"] for v in variants(name).values()]
    return [(players, overrides) for overrides in configs for players in spec.player_counts]


def check_game(game: Game, only: list[str] | None = None) -> None:
    """Run every check (or those named in ``only``) on one game; the first failure raises
    ``AssertionError`` naming the check."""
    for name, function in CHECKS.items():
        if only is not None and name not in only:
            continue
        try:
            function(game)
        except AssertionError as exc:
            raise AssertionError(f"{name} failed for {game!r}: {exc}") from exc


def pytest_tests(name: str) -> Any:
    """A pytest test function running every check at every configuration of game ``name``."""
    import pytest

    from fieldcraft.core.registry import load_game

    def config_id(config: tuple[int, dict[str, Any]]) -> str:
        players, overrides = config
        extra = "-".join(f"{k}={v}" for k, v in sorted(overrides.items()))
        return f"{players}p" + (f"-{extra}" if extra else "")

    configs = configurations(name)
    params = [pytest.param(config, check_name, id=f"{name}-{config_id(config)}-{check_name}")
              for config in configs for check_name in CHECKS]

    @pytest.mark.parametrize(("config", "check_name"), params)
    def test_conformance(config: tuple[int, dict[str, Any]], check_name: str) -> None:
        players, overrides = config
        CHECKS[check_name](load_game(name, players=players, **overrides))

    return test_conformance
