"""The one game API that every fieldcraft game implements.

The shape follows OpenSpiel: a ``Game`` holds the fixed parameters (player count and ruleset) and
creates ``State`` objects; a ``State`` is advanced one integer action at a time. Randomness only
enters through chance nodes (``current_player() == CHANCE``) whose outcomes are ordinary actions,
so a game is exactly its list of actions and a replay is bit-for-bit identical.

A game is its rules plus three concerns, each a class in the game's folder that the ``Game``
makes once (lila's one class per concern): its :class:`~fieldcraft.core.notation.Notation`
(action names, parsing, log lines, structured choices), its
:class:`~fieldcraft.core.view.Observer` (what each seat sees) and its
:class:`~fieldcraft.core.search.SearchModel` (resampling and what search may use). The public
methods here are the template (as in pgx): they check, then call the rules' private ``_apply``
or hand the state to the concern that answers.

Games keep their state in plain ints and lists declared as annotated fields, from which
``__slots__`` and ``clone()`` are generated (:mod:`fieldcraft.core.fields`), so a clone is a
handful of list copies and bots can run millions of steps. Nothing here validates in the hot
path beyond the legality check in ``apply_action``, which games make cheap with ``_is_legal``.
"""

from __future__ import annotations

import json
import operator
import random
from array import array
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any, ClassVar

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from fieldcraft.core.errors import (
    FieldcraftError,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
    UnknownGameError,
)
from fieldcraft.core.fields import StateMeta  # noqa: F401 - re-exported for games
from fieldcraft.core.notation import Choice, Notation
from fieldcraft.core.search import SearchModel
from fieldcraft.core.spec import GameInfo, GameSpec, GameType
from fieldcraft.core.text import Event
from fieldcraft.core.view import Observer

ACTION_LIMIT = 1 << 31
"""Actions are ints in ``(-ACTION_LIMIT, ACTION_LIMIT)``: the compiled rules take C ints."""
CHANCE = -1
"""``current_player()`` value when the next action is drawn by chance."""
TERMINAL = -4
"""``current_player()`` value once the game is over."""

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Choice",
    "FieldcraftError",
    "Game",
    "IllegalActionError",
    "MalformedActionError",
    "RulesetError",
    "State",
    "UnknownGameError",
    "randbelow",
    "random_playout",
    "sample_chance",
    "shuffle",
]


class Game:
    """Fixed parameters of one game: its declaration, player count and resolved ruleset.

    A game's rules subclass sets ``game_type`` and ``state_class``, checks its ruleset in
    ``__init__`` (raising :class:`RulesetError`) and computes its :class:`GameInfo` in
    ``_info``. Games are made by :func:`fieldcraft.load_game`.
    """

    game_type: ClassVar[GameType] = GameType()

    def __init__(self, spec: GameSpec, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        self.spec = spec
        self.name = spec.id
        self.num_players = players
        self.ruleset = ruleset
        self.overrides = dict(overrides)
        self._reduce: tuple[Any, ...] | None = None

    # -- what the game is ---------------------------------------------------------------------
    def _info(self) -> GameInfo:
        raise NotImplementedError

    @cached_property
    def _cached_info(self) -> GameInfo:
        return self._info()

    def info(self) -> GameInfo:
        """The declared numbers of this game (see :class:`GameInfo`)."""
        return self._cached_info

    def num_distinct_actions(self) -> int:
        """Size of the integer action space (actions are ``0 .. n-1``)."""
        return self._cached_info.num_distinct_actions

    def max_chance_outcomes(self) -> int:
        """Size of the chance outcome range (see ``GameInfo.chance_offset``)."""
        return self._cached_info.max_chance_outcomes

    def max_game_length(self) -> int | None:
        return self._cached_info.max_game_length

    # -- the concerns, made once on first use --------------------------------------------------
    @cached_property
    def notation(self) -> Notation:
        return self.spec.resolve(self.spec.notation)(self)

    @cached_property
    def observer(self) -> Observer:
        return self.spec.resolve(self.spec.view)(self)

    @cached_property
    def search_model(self) -> SearchModel:
        model = self.spec.optional("search_model") or SearchModel
        return model(self)

    @cached_property
    def state_class(self) -> type[State]:
        """The game's state class, as its spec names it (``GameSpec.state``; a class attribute
        of a subclass takes precedence)."""
        if self.spec.state is None:
            raise NotImplementedError(f"{self.name}: GameSpec.state names no state class")
        return self.spec.resolve(self.spec.state)

    # -- construction -------------------------------------------------------------------------
    def new_initial_state(self) -> State:
        return self.state_class(self)

    def replay(self, actions: Iterable[int]) -> State:
        """Rebuild a state by applying ``actions`` to a fresh initial state (exact, since all
        randomness is in the action list)."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(int(action))
        return state

    def state_from_json(self, data: str | dict[str, Any]) -> State:
        """Inverse of :meth:`State.to_json` for a state of this game."""
        doc = json.loads(data) if isinstance(data, str) else data
        if doc.get("game") != self.name:
            raise FieldcraftError(f"JSON is for game {doc.get('game')!r}, not {self.name!r}")
        if doc.get("players") != self.num_players:
            raise FieldcraftError(
                f"JSON is for {doc.get('players')} players, this game has {self.num_players}"
            )
        if doc.get("overrides", {}) != self.overrides:
            raise FieldcraftError("JSON was made with a different ruleset than this game")
        state = self.state_class.__new__(self.state_class)
        state.game = self
        state._load_fields(doc["state"])
        return state

    def __reduce__(self) -> tuple[Any, ...]:
        """A game goes to another process (parallel search) as what ``load_game`` needs, not
        its tables and caches, which could be changing while they are pickled; each process
        keeps one copy per ruleset, so its caches stay warm from one decision to the next.
        The registry that made the game says how to make it again (``_reduce``)."""
        if self._reduce is None:
            raise TypeError(f"{self!r} was not made by load_game and cannot be pickled")
        return self._reduce

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in sorted(self.overrides.items()))
        return f"load_game({self.name!r}, players={self.num_players}{extra})"


class State:
    """One position of a game. Subclasses implement the rules; this base holds the shared API.

    Subclasses declare every field of their state as an annotation and are made by
    :class:`~fieldcraft.core.fields.StateMeta` (``class MyState(State, metaclass=StateMeta)``,
    see :mod:`fieldcraft.core.fields`), which gives them ``__slots__``, ``_fields`` and
    ``clone``; for a state compiled as an extension type the build derives the same from the
    same annotations (see docs/performance.md). This base has no metaclass so that it can be an
    extension type itself in the compiled build (``api.pxd``). Fields are JSON-able plain data
    (ints, bools, strings, None, lists and str-keyed dicts of those; or an ``array.array`` of
    ints, which ``to_json`` writes as a list and the state's ``_load_fields`` makes again from
    it), which is what lets ``to_json``, ``state_from_json``, ``==`` and ``clone`` work for
    every game without extra code. The list of every action applied (chance included) is the
    field ``actions``.
    """

    __slots__ = ("game",)

    game: Game
    _fields: ClassVar[tuple[str, ...]] = ()
    _field_kinds: ClassVar[dict[str, str]] = {}
    uniform_chance: ClassVar[bool] = False
    """True when every chance node is uniform over ``legal_actions()``: lets sampling skip
    building the probability list (a large share of a random playout's time)."""

    # -- the rules: to implement ----------------------------------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move, ascending; at a chance node, the outcomes."""
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[int, float]]:
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        """Apply an action already known to be legal."""
        raise NotImplementedError

    def _is_legal(self, action: int) -> bool:
        """Whether ``action`` (any int) is legal now. Games that can tell for one action without
        listing them all override it: ``apply_action`` asks it at every step."""
        return action in self.legal_actions()

    def is_legal(self, action: Any) -> bool:
        """Whether ``apply_action(action)`` would accept ``action`` now: an int (not a bool)
        inside every game's action range and legal here. For callers outside the rules (the
        server, tools) that must not pass a value a game's own check cannot take."""
        if isinstance(action, bool):
            return False
        try:
            action = operator.index(action)
        except TypeError:
            return False
        return -ACTION_LIMIT < action < ACTION_LIMIT and self._is_legal(action)

    def returns(self) -> list[float]:
        raise NotImplementedError

    def history(self) -> list[int]:
        """Every action applied so far, chance outcomes included."""
        return self.actions[:]  # type: ignore[attr-defined]

    def ply(self) -> int | None:
        """How many actions, chance outcomes included, the game has seen so far; ``None`` if
        this state cannot tell (a resample whose past was imagined).

        Public in every game (each action is seen to happen even when what it dealt is not), so
        a bot may use it to tell that nothing but its own last move happened since it last
        chose, and keep searching the tree it grew then."""
        return len(self.actions)  # type: ignore[attr-defined]

    def play_chance(self, rng: random.Random) -> None:
        """Apply at least one chance outcome, drawn by its odds (default: exactly one).

        A game whose chance comes in long runs (a deal, card by card) may resolve the whole
        run in one call: search and simulation only need the position after it, and one tight
        loop is several times cheaper than a ``legal_actions`` and an ``_apply`` per card. The
        outcomes must have the same joint distribution as drawing them one at a time, and every
        one of them must still be appended to the history.
        """
        self._apply(sample_chance(self, rng))

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if a conservation rule is broken (every card in exactly one
        place, and so on). The conformance suite calls it at the steps it samples."""

    def seat_label(self, seat: int) -> str | None:
        """The side a seat plays for, for reports ("wins by faction/animal/colour").

        ``None`` means the game has no sides beyond seats.
        """
        return None

    def outcome(self) -> dict[str, Any]:
        """JSON-able summary of a finished game for reports (how it ended, scores...)."""
        return {"winners": self.winners()}

    # -- the template: public methods --------------------------------------------------------
    def apply_action(self, action: int) -> None:
        """Apply ``action``; an illegal one raises and leaves the state unchanged."""
        if type(action) is not int:
            if isinstance(action, bool):
                raise IllegalActionError(f"an action is an int, got the bool {action!r}")
            try:  # numpy integers are fine; floats and strings are not actions
                action = operator.index(action)
            except TypeError:
                raise IllegalActionError(
                    f"an action is an int, got {type(action).__name__} {action!r}"
                ) from None
        # Rules take C ints in the compiled build: an action outside them is no action of any game.
        if not -ACTION_LIMIT < action < ACTION_LIMIT or not self._is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        self._apply(action)

    @property
    def num_players(self) -> int:
        return self.game.num_players

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def winners(self) -> list[int]:
        """Seats that won (empty until the game ends, and empty if nobody won)."""
        if not self.is_terminal():
            return []
        return [seat for seat, r in enumerate(self.returns()) if r > 0]

    # -- notation ---------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        return self.game.notation.action_to_string(self, action)

    def string_to_action(self, text: str) -> int:
        """Inverse of ``action_to_string``; :class:`MalformedActionError` if unreadable."""
        return self.game.notation.string_to_action(self, text)

    def describe_action(self, action: int, seat: int | None) -> str | None:
        """The log line ``seat`` (``None``: a spectator) sees when ``action`` is applied here.

        Call it before applying. ``None`` means the seat sees nothing (a card passed face down
        to someone else), so a table's public log never leaks.
        """
        return self.game.notation.describe_action(self, action, seat)

    def log_event(self, action: int, seat: int | None) -> Event | None:
        """What ``seat`` is told, for people, when ``action`` is applied here (call it before
        applying); rendered per language by :class:`fieldcraft.core.text.Text`."""
        return self.game.notation.event(self, action, seat)

    def final_summary(self) -> dict[str, Any] | None:
        """The final-scores table and why the game ended (``None`` before the end)."""
        return self.game.notation.summary(self)

    def choices(self) -> list[Choice]:
        """The legal actions with their labels and structured ``kind``/``args``."""
        return self.game.notation.choices(self)

    # -- view -------------------------------------------------------------------------------------
    def observation(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` knows now, as JSON-able data (``None``: a spectator)."""
        return self.game.observer.observation(self, seat)

    # -- search -----------------------------------------------------------------------------------
    def resample(self, seat: int, rng: random.Random) -> State:
        """A full state ``seat`` cannot tell from this one, hidden cards re-dealt."""
        return self.game.search_model.resample(self, seat, rng)

    def resampler(self, seat: int) -> Callable[[random.Random], State]:
        """``resample`` as a function, cheaper per draw when a search draws many."""
        return self.game.search_model.resampler(self, seat)

    def informed_resampler(self, seat: int) -> Callable[[random.Random], State] | None:
        """Resamples weighted by the other seats' public play; ``None``: draw uniformly."""
        return self.game.search_model.informed_resampler(self, seat)

    def heuristic_returns(self) -> list[float] | None:
        return self.game.search_model.heuristic_returns(self)

    def search_actions(self) -> list[int]:
        return self.game.search_model.search_actions(self)

    def policy_action(self, rng: random.Random) -> int | None:
        return self.game.search_model.policy_action(self, rng)

    def belief_weight(self, seat: int) -> float | None:
        return self.game.search_model.belief_weight(self, seat)

    # -- plumbing ---------------------------------------------------------------------------------
    def clone(self) -> State:  # replaced in every subclass by one generated from its fields
        raise NotImplementedError(
            f"{type(self).__name__} has no clone: make it with metaclass=StateMeta "
            "(fieldcraft.core.fields)")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its class, game and fields, in both builds: a compiled extension type's
        own pickling would keep only what it declares in C, not a Python subclass's slots."""
        return _restore_state, (type(self), self.game, [getattr(self, n) for n in self._fields])

    def _illegal_message(self, action: Any) -> str:
        if self.is_terminal():
            return f"the game is over; action {action!r} cannot be applied"
        legal = self.legal_actions()
        who = "chance" if self.is_chance_node() else f"seat {self.current_player()}"
        try:
            shown = self.action_to_string(action)
        except Exception:  # noqa: BLE001 - an out-of-range action has no name
            shown = repr(action)
        options = ", ".join(f"{a} ({self.action_to_string(a)})" for a in legal[:12])
        more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
        return f"{shown!r} is not legal for {who} now; legal: {options}{more}"

    def to_dict(self) -> dict[str, Any]:
        """A deep, JSON-shaped copy of the state (safe to keep as a snapshot: later moves do
        not change it)."""
        return json.loads(self.to_json())

    def to_json(self) -> str:
        doc = {
            "game": self.game.name,
            "players": self.game.num_players,
            "overrides": self.game.overrides,
            "state": {name: getattr(self, name) for name in self._field_names()},
        }
        return json.dumps(doc, separators=(",", ":"), default=_json_field)

    @classmethod
    def _field_names(cls) -> tuple[str, ...]:
        return cls._fields  # type: ignore[attr-defined]

    def _load_fields(self, fields: dict[str, Any]) -> None:
        expected = self._field_names()
        missing = [n for n in expected if n not in fields]
        if missing:
            raise FieldcraftError(f"state JSON lacks fields: {', '.join(missing)}")
        for name in expected:
            setattr(self, name, fields[name])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State) or other.game.name != self.game.name:
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return json.dumps(self.observation(None), indent=1)


def shuffle(items: list[Any], rng: random.Random) -> None:
    """Fisher-Yates with ``rng.random()``: several times faster than ``random.shuffle`` (one
    float per card instead of a ``getrandbits`` loop), which matters in ``resample``, called
    once per search iteration. The bias of 53-bit floats on a few dozen cards is negligible."""
    random_ = rng.random
    for i in range(len(items) - 1, 0, -1):
        r = random_()
        j = int(r * (i + 1))
        items[i], items[j] = items[j], items[i]


_Random = random.Random


def randbelow(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` (``n`` >= 1): the same draw, without its two Python-level frames
    (``randrange`` and ``_randbelow`` are Python code even in the compiled build, a quarter of a
    compiled dice game's random playout). This is the rejection loop ``random.Random`` itself
    runs on ``getrandbits``; a subclass of ``Random`` keeps its own ``randrange``."""
    if type(rng) is not _Random:
        return rng.randrange(n)
    getrandbits = rng.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def sample_chance(state: State, rng: random.Random) -> int:
    """Draw a chance outcome with the probabilities the state gives."""
    if state.uniform_chance:
        legal = state.legal_actions()
        return legal[int(rng.random() * len(legal))]
    outcomes = state.chance_outcomes()
    if len(outcomes) == 1:
        return outcomes[0][0]
    first = outcomes[0][1]
    for pair in outcomes:
        p = pair[1]
        if p != first:
            break
    else:  # every outcome equally likely
        return outcomes[randbelow(rng, len(outcomes))][0]
    r = rng.random()
    acc = 0.0
    for action, p in outcomes:
        acc += p
        if r < acc:
            return action
    return outcomes[-1][0]


def _json_field(value: Any) -> Any:
    """What ``to_json`` writes for a field value JSON has no form for: an ``array.array`` field
    (a compact board: Undercover's compiled build holds its board in arrays, which a clone
    copies with one ``memcpy``) as the list of its items, so saved states stay plain JSON
    whatever holds them in memory."""
    if isinstance(value, array):
        return value.tolist()
    raise TypeError(f"a state field of type {type(value).__name__} is not JSON serializable")


def _restore_state(cls: type[State], game: Game, values: list[Any]) -> State:
    state = cls.__new__(cls)
    state.game = game
    for name, value in zip(cls._fields, values, strict=True):
        setattr(state, name, value)
    return state


@cython.locals(steps=cython.Py_ssize_t, max_steps=cython.Py_ssize_t, player=cython.int,
               legal=list, state=State, r=cython.double)
def random_playout(state: State, rng: random.Random, max_steps: int = 1_000_000) -> int:
    """Play uniformly random legal actions (chance by its odds) to the end; returns steps taken."""
    steps = 0
    uniform = state.uniform_chance
    random_ = rng.random
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return steps
        if steps >= max_steps:
            raise FieldcraftError(f"game did not end within {max_steps} steps")
        if player == CHANCE and not uniform:
            action = sample_chance(state, rng)
        else:
            legal = state.legal_actions()
            r = random_()
            action = legal[int(r * len(legal))]
        state._apply(action)
        steps += 1
