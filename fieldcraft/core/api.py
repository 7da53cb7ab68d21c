"""The one game API that every fieldcraft game implements.

The shape follows OpenSpiel: a ``Game`` holds the fixed parameters (player count and ruleset) and
creates ``State`` objects; a ``State`` is advanced one integer action at a time. Randomness only
enters through chance nodes (``current_player() == CHANCE``) whose outcomes are ordinary actions,
so a game is exactly its list of actions and a replay is bit-for-bit identical.

Games keep their state in plain ints and lists so that ``clone()`` is a handful of list copies and
bots can run millions of steps. Nothing here validates in the hot path beyond the legality check
in ``apply_action`` (which is what keeps illegal moves from ever corrupting a state).
"""

from __future__ import annotations

import json
import operator
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

CHANCE = -1
"""``current_player()`` value when the next action is drawn by chance."""
TERMINAL = -4
"""``current_player()`` value once the game is over."""


class FieldcraftError(Exception):
    """Base class for every error fieldcraft raises on bad input."""


class RulesetError(FieldcraftError, ValueError):
    """A ruleset override names an unknown key or gives a value of the wrong shape."""


class UnknownGameError(FieldcraftError, KeyError):
    """``load_game`` was asked for a game that is not registered."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else "unknown game"


class MalformedActionError(FieldcraftError, ValueError):
    """A string could not be read as any action of this game (a typo, not a rules question)."""


class IllegalActionError(FieldcraftError, ValueError):
    """A well-formed action that the rules do not allow in this state.

    Kept separate from :class:`MalformedActionError` (as python-chess does) so a user interface
    can say "that is not a move" apart from "that move is not allowed now".
    """


class Game:
    """Fixed parameters of one game: its name, player count and resolved ruleset.

    Subclasses set ``name`` and ``state_class`` and may override ``validate_ruleset``.
    """

    name: str = ""
    state_class: type[State]
    search_rollout_depth: int | None = None
    """Default number of random decisions a search rollout makes before it asks
    ``heuristic_returns``; ``None`` plays rollouts to the end."""
    search_expand_after: int = 1
    """Visits a search node needs before it grows children (1: at once)."""
    search_c: float = 0.7
    """UCB exploration constant that suits this game's reward scale."""
    search_chance_nodes: int = 0
    """Chance events with at most this many outcomes (a die) are tree levels in search, so a
    choice made after a roll is judged per face; larger ones (a shuffle) stay open-loop."""
    search_opponents: str = "tree"
    """How search models the other seats: ``"tree"`` (their choices are searched in the shared
    tree, as in plain single-observer ISMCTS) or ``"policy"`` (they play the state's
    ``policy_action``, which decides from their own cards)."""
    test_configs: tuple[dict[str, Any], ...] = ({},)
    """Ruleset overrides (e.g. variants) the conformance suite runs besides the defaults."""

    def __init__(self, players: int, ruleset: dict[str, Any], overrides: dict[str, Any]):
        self.num_players = players
        self.ruleset = ruleset
        self.overrides = dict(overrides)

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

    def num_distinct_actions(self) -> int:
        """Size of the integer action space (actions are ``0 .. n-1``)."""
        raise NotImplementedError

    def max_chance_outcomes(self) -> int:
        raise NotImplementedError

    def __reduce__(self) -> tuple[Any, ...]:
        """A game goes to another process (parallel search) as what ``load_game`` needs, not
        its tables and caches, which could be changing while they are pickled; each process
        keeps one copy per ruleset, so its caches stay warm from one decision to the next."""
        from fieldcraft.core.registry import shared_game

        return shared_game, (self.name, self.num_players,
                             json.dumps(self.overrides, sort_keys=True))

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in sorted(self.overrides.items()))
        return f"load_game({self.name!r}, players={self.num_players}{extra})"


class State:
    """One position of a game. Subclasses implement the rules; this base holds the shared API.

    Subclasses declare ``__slots__`` listing every field of their state; those fields must be
    JSON-able plain data (ints, bools, strings, None, lists and str-keyed dicts of those), which
    is what lets ``to_json`` and ``state_from_json`` work for every game without extra code.
    """

    __slots__ = ("game",)

    game: Game
    uniform_chance: bool = False
    """True when every chance node is uniform over ``legal_actions()``: lets sampling skip
    building the probability list (a large share of a random playout's time)."""

    # -- to implement ---------------------------------------------------------------------------
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

    def action_to_string(self, action: int) -> str:
        raise NotImplementedError

    def string_to_action(self, text: str) -> int:
        raise NotImplementedError

    def returns(self) -> list[float]:
        raise NotImplementedError

    def observation(self, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def resample(self, seat: int, rng: random.Random) -> State:
        raise NotImplementedError

    def resampler(self, seat: int) -> Callable[[random.Random], State]:
        """A function drawing ``resample(seat, rng)``, valid while this state is unchanged.

        Search draws thousands of resamples from one position. A game whose ``resample`` spends
        much of its time working out what the seat can know (the same for every draw) can work
        it out once here; its draws must equal ``resample``'s for the same ``rng``.
        """
        return lambda rng: self.resample(seat, rng)

    def clone(self) -> State:
        raise NotImplementedError

    def history(self) -> list[int]:
        raise NotImplementedError

    def ply(self) -> int | None:
        """How many actions, chance outcomes included, the game has seen so far; ``None`` if
        this state cannot tell (a resample whose past was imagined).

        Public in every game (each action is seen to happen even when what it dealt is not), so
        a bot may use it to tell that nothing but its own last move happened since it last
        chose, and keep searching the tree it grew then."""
        return len(self.history())

    def heuristic_returns(self) -> list[float] | None:
        """A cheap estimate of each seat's return from here, for cutting search rollouts short
        in long games; ``None`` (the default) means rollouts play on to the end."""
        return None

    def play_chance(self, rng: random.Random) -> None:
        """Apply at least one chance outcome, drawn by its odds (default: exactly one).

        A game whose chance comes in long runs (a deal, card by card) may resolve the whole
        run in one call: search and simulation only need the position after it, and one tight
        loop is several times cheaper than a ``legal_actions`` and an ``_apply`` per card. The
        outcomes must have the same joint distribution as drawing them one at a time, and every
        one of them must still be appended to the history.
        """
        self._apply(sample_chance(self, rng))

    def search_actions(self) -> list[int]:
        """The legal actions worth searching here (default: all of them).

        A game may leave out actions that are almost never better than one it keeps (a bid far
        above the lowest one on the same trait), so a search budget is not spread over hundreds
        of near-copies. Agents still play only legal actions; this only narrows what they try.
        """
        return self.legal_actions()

    def policy_action(self, rng: random.Random) -> int | None:
        """A cheap, sensible action for the seat to move, using only what that seat could know
        in this state (its own cards and public facts); ``None`` (the default) if the game has
        no such policy.

        Search can use it as its model of the other players (see ``search_opponents``); it must
        never read another seat's hidden cards, or the model would play with open hands.
        """
        return None

    def belief_weight(self, seat: int) -> float | None:
        """How plausible this state's hidden part is to ``seat``, given what the other seats did
        in public (up to a constant factor); ``None`` (the default) means every resample is
        equally likely.

        ``resample`` draws hidden cards uniformly, ignoring that an opponent's bids or passes
        say something about its hand. Search agents weight their determinisations by this, so
        a game can add inference from a simple model of how people play without touching its
        sampler (which must stay canonical for the conformance checks). Whether the answer is
        ``None`` must depend on public facts only (search asks one resample to decide).
        """
        return None

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if a conservation rule is broken (every card in exactly one
        place, and so on). The conformance suite calls it after every step."""

    # -- shared behaviour -----------------------------------------------------------------------
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

    def describe_action(self, action: int, seat: int | None) -> str | None:
        """The log line ``seat`` (``None``: a spectator) sees when ``action`` is applied here.

        Call it before applying. ``None`` means the seat sees nothing. The default shows decisions
        to everyone and hides chance outcomes; games with secret actions (a card passed face
        down) override it so that a table's public log never leaks.
        """
        if self.is_chance_node():
            return None
        return f"seat {self.current_player()}: {self.action_to_string(action)}"

    def seat_label(self, seat: int) -> str | None:
        """The side a seat plays for, for reports ("wins by faction/animal/colour").

        ``None`` means the game has no sides beyond seats.
        """
        return None

    def outcome(self) -> dict[str, Any]:
        """JSON-able summary of a finished game for reports (how it ended, scores...)."""
        return {"winners": self.winners()}

    def apply_action(self, action: int) -> None:
        """Apply ``action``; an illegal one raises and leaves the state unchanged."""
        legal = self.legal_actions()
        if type(action) is not int:
            if isinstance(action, bool):
                raise IllegalActionError(f"an action is an int, got the bool {action!r}")
            try:  # numpy integers are fine; floats and strings are not actions
                action = operator.index(action)
            except TypeError:
                raise IllegalActionError(
                    f"an action is an int, got {type(action).__name__} {action!r}"
                ) from None
        if action not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self._apply(action)

    def _illegal_message(self, action: Any, legal: Sequence[int]) -> str:
        if self.is_terminal():
            return f"the game is over; action {action!r} cannot be applied"
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
        return json.dumps(doc, separators=(",", ":"))

    @classmethod
    def _field_names(cls) -> list[str]:
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in getattr(klass, "__slots__", ()):
                if name != "game" and name not in names:
                    names.append(name)
        return names

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
        j = int(random_() * (i + 1))
        items[i], items[j] = items[j], items[i]


def sample_chance(state: State, rng: random.Random) -> int:
    """Draw a chance outcome with the probabilities the state gives."""
    if state.uniform_chance:
        legal = state.legal_actions()
        return legal[int(rng.random() * len(legal))]
    outcomes = state.chance_outcomes()
    if len(outcomes) == 1:
        return outcomes[0][0]
    first = outcomes[0][1]
    if all(p == first for _, p in outcomes):
        return outcomes[rng.randrange(len(outcomes))][0]
    r = rng.random()
    acc = 0.0
    for action, p in outcomes:
        acc += p
        if r < acc:
            return action
    return outcomes[-1][0]


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
            action = legal[int(random_() * len(legal))]
        state._apply(action)
        steps += 1
