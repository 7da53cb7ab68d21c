"""Every fieldcraft game as an OpenSpiel game (extra ``openspiel``).

After ``import fieldcraft.adapters.openspiel`` each game is registered with pyspiel as
``fieldcraft_<id>`` (dashes become underscores)::

    import pyspiel
    import fieldcraft.adapters.openspiel  # noqa: F401  (registers the games)
    game = pyspiel.load_game("fieldcraft_spy_tracker", {"players": 2})
    game = pyspiel.load_game("fieldcraft_spy_tracker",
                             {"players": 3, "rules": '{"no_repeat_bids": false}'})

Parameters: ``players`` (the game's default if left out), ``variant`` (a named variant the
game declares, ``fieldcraft.core.registry.variants``; empty for none) and ``rules``, ruleset
overrides as a JSON object, which win over the variant's (a bad key or value, or an unknown
variant, raises ``ValueError`` naming it). Spy Tracker's ``tiny`` variant
(``fieldcraft_spy_tracker(players=2,variant=tiny)``) is small enough for OpenSpiel's exact
tools (``get_all_states``, CFR, ``exploitability.nash_conv``); docs/research.md. In a game
string, where OpenSpiel splits parameters at commas, write the commas of ``rules`` as ``;``
(``fieldcraft_spy_tracker(players=3,rules={"min_bid":2;"no_repeat_bids":false})``), as
``str(game)`` does. ``GameType`` and ``GameInfo``
are the game's own declarations (``fieldcraft.core.spec``): the same chance mode, information,
utility, action count and bounds. Chance outcomes get their own ids from 0 (fieldcraft numbers
them from ``GameInfo.chance_offset``; this adapter shifts them), so ``max_chance_outcomes``
bounds them as OpenSpiel expects; decisions keep their fieldcraft ids.

A game whose rules allow endless play (Against the Current and Undercover with ``round_limit``
null; Spy Tracker with ``no_repeat_bids`` off) declares a ``length_cap`` in its spec; here it
becomes the parameter ``max_game_length``: after that many decisions (or four times as many
chance events, for a game with no bound on them) the game ends as a draw, every seat getting an
equal share of the declared utility sum (the lowest utility for a general-sum game), as
OpenSpiel's chess ends at its length limit. Bounded games ignore it.

Observations (``make_py_observer``, the default observer and ``pyspiel.IIGObservationType``):

* **observation tensor**: the game's declared planes (``Observer.planes()`` in the game's
  ``view.py``, where each game documents its layout, plane by plane), flat float32, with a
  named, reshaped view of each plane in ``observer.dict``. It is a function of the seat's
  observation and loses none of it (checked by the conformance suite).
* **observation string**: the seat's observation as compact JSON (sorted keys). With
  ``private_info=NONE`` it is the spectator's view and the tensor is empty.
* **information state string** (``perfect_recall=True``): every log line the seat has seen
  (the game's per-seat ``describe_action``: its own cards and moves, what was shown to it, the
  public events), one per line, then its current observation. It is kept incrementally: a state
  notes the actions applied since it last wrote the lines and writes them only when asked, so a
  search that never asks pays nothing and one that asks at every step pays one step's lines.
* **information state tensor** (``provides_information_state_tensor``): the same things
  as the string, exactly, at a fixed size per game and player count: the observation planes,
  then each log line the seat has seen as bytes, up to the most lines a game can give (its
  decisions plus chance events). Pieces, sizes and why are in
  :mod:`fieldcraft.adapters.infostate` and docs/research.md; the perfect-recall observer's
  ``dict`` names them.

Every per-player call (the strings and tensors, the observers' ``set_from`` and ``string_from``,
``resample_from_infostate``) takes a seat 0 to P-1 and raises :class:`PlayerError` (a
``pyspiel.SpielError``) for anything else, as OpenSpiel's own games stop on ``player >= 0``;
leaving the player out means the current player, so at a chance or terminal node it raises too.

``resample_from_infostate(player, sampler)`` is the game's ``resample``: hidden cards re-dealt
consistently with what ``player`` knows. The resampled state keeps ``player``'s information
state exactly; the other seats' lines are the public ones (what they saw privately cannot be
known from ``player``'s side), and every seat's lines go on from there as play goes on, so
OpenSpiel's ISMCTS, which keys its nodes by information state, works on it. A resampled state
has no history of its own (its past is not one the rules could replay); ``history()`` is empty
and it should not be serialized. Everything else serializes (``pyspiel.serialize_game_and_state``
replays the history).

Workarounds for OpenSpiel 2.0.2 (see ``docs/research.md``): use the Python search bots
(``open_spiel.python.algorithms.ismcts.ISMCTSBot``, ``mcts.MCTSBot``); the C++ ones cannot hold
a Python game's states. A process that has registered a Python game can abort in the
interpreter's shutdown after all its work is done; :func:`exit_cleanly` ends the process at once
with the right status instead (our tests run OpenSpiel in a subprocess that calls it).
"""

from __future__ import annotations

import json
import operator
import os
import random
import sys
from typing import Any

import numpy as np
import pyspiel

from fieldcraft.adapters.infostate import InfoStateLayout
from fieldcraft.core.api import CHANCE, TERMINAL, Game, State
from fieldcraft.core.errors import RulesetError
from fieldcraft.core.registry import game_spec, list_games, load_game, variant_overrides
from fieldcraft.core.spec import (
    CONSTANT_SUM,
    DETERMINISTIC,
    GENERAL_SUM,
    IMPERFECT_INFORMATION,
    ZERO_SUM,
)

PREFIX = "fieldcraft_"

_UTILITY = {
    ZERO_SUM: pyspiel.GameType.Utility.ZERO_SUM,
    CONSTANT_SUM: pyspiel.GameType.Utility.CONSTANT_SUM,
    GENERAL_SUM: pyspiel.GameType.Utility.GENERAL_SUM,
}


def short_name(game_id: str) -> str:
    """The pyspiel name of a fieldcraft game id: ``spy-tracker`` -> ``fieldcraft_spy_tracker``."""
    return PREFIX + game_id.replace("-", "_")


def _game_type(game_id: str) -> pyspiel.GameType:
    spec = game_spec(game_id)
    t = load_game(game_id, spec.default_players).game_type
    params: dict[str, Any] = {"players": spec.default_players, "variant": "", "rules": "{}"}
    if spec.length_cap is not None:
        params["max_game_length"] = spec.length_cap
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"fieldcraft {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.DETERMINISTIC if t.chance_mode == DETERMINISTIC
                     else pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC),
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION
                     if t.information == IMPERFECT_INFORMATION
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=_UTILITY[t.utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


class PlayerError(pyspiel.SpielError, ValueError):
    """A per-player call named no seat of the game: a negative or too large id, or no id at a
    chance or terminal node (where the default, the current player, is not a seat). OpenSpiel's
    own games stop there with ``SpielError``; Python indexing would instead wrap ``-1`` round to
    the last seat and show its hand. Both bases, so ``except pyspiel.SpielError`` (as for any
    OpenSpiel game) and ``except ValueError`` (as for a bad argument) each catch it."""


def check_player(state: FieldcraftState, player: Any, method: str) -> int:
    """``player`` as a seat index (``None``: the current player), refusing anything that is not
    a seat of ``state``'s game with :class:`PlayerError` before anything is read or written."""
    players = state._s.fc.num_players
    if player is None:
        player = state.current_player()
        if player < 0:
            node = "terminal" if state.is_terminal() else "chance"
            raise PlayerError(f"{method}: no player given at a {node} node, which has no "
                              f"current player: name a seat 0-{players - 1}")
    try:
        seat = operator.index(player)
    except TypeError:
        raise PlayerError(f"{method}: player must be a seat 0-{players - 1}, got "
                          f"{player!r}") from None
    if not 0 <= seat < players:
        raise PlayerError(f"{method}: player must be a seat 0-{players - 1}, got {seat}")
    return seat


class Setup:
    """What a pyspiel game of ours holds on the Python side: the fieldcraft game and the
    numbers the adapter derives from it. States keep this, not the pyspiel game, because a
    pyspiel game rebuilt from its string (as unpickling does) has lost its Python attributes;
    this pickles as the arguments that rebuild it, shared per process."""

    def __init__(self, game_id: str, players: int, rules: str, cap: int | None,
                 variant: str = ""):
        self.args = (game_id, players, rules, cap, variant)
        fc = load_game(game_id, players,
                       **variant_overrides(game_id, variant or None, json.loads(rules)))
        info = fc.info()
        self.fc: Game = fc
        self.info = info
        self.offset = info.chance_offset
        self.cap: int | None = None
        self.chance_cap: int | None = None
        self.length = info.max_game_length
        self.chance = info.max_chance_nodes
        if self.length is None:
            if not cap or cap <= 0:
                raise ValueError(f"{game_id} can go on for ever under these rules: give "
                                 "max_game_length")
            self.cap = self.length = cap
        if self.chance is None:
            self.chance_cap = self.chance = 4 * self.length
        if info.utility_sum is not None:
            self.draw = [info.utility_sum / players] * players
        else:
            self.draw = [info.min_utility] * players

    def __reduce__(self) -> tuple[Any, ...]:
        return (setup, self.args)

    def infostate_layout(self) -> InfoStateLayout:
        """The information-state tensor's layout, made once (a seat can see a line per
        decision and per chance event, so that sum bounds its history)."""
        found = self.__dict__.get("_layout")
        if found is None:
            found = self._layout = InfoStateLayout(self.args[0], self.fc.observer,
                                                   self.length + self.chance)
        return found


_SETUPS: dict[tuple[Any, ...], Setup] = {}


def setup(game_id: str, players: int, rules: str, cap: int | None, variant: str = "") -> Setup:
    """The one :class:`Setup` per game, player count, ruleset, cap and variant in this
    process."""
    key = (game_id, players, rules, cap, variant)
    found = _SETUPS.get(key)
    if found is None:
        found = _SETUPS[key] = Setup(*key)
    return found


def parse_rules(rules: Any) -> dict[str, Any]:
    """The ``rules`` parameter: a JSON object of ruleset overrides. A game string cannot hold
    commas inside a parameter (OpenSpiel splits on them), so the canonical form, which
    ``str(game)`` shows, writes them as ``;``; both forms are read."""
    if isinstance(rules, dict):
        return dict(rules)
    text = rules or "{}"
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = json.loads(text.replace(";", ","))
        except ValueError as exc:
            raise ValueError(f"rules must be a JSON object of ruleset overrides, got {text!r}: "
                             f"{exc}") from exc
    if not isinstance(value, dict):
        raise ValueError(f"rules must be a JSON object of ruleset overrides, got {text!r}")
    return value


class FieldcraftGame(pyspiel.Game):
    """One fieldcraft game (at one player count and ruleset) as a pyspiel game."""

    game_id = ""

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        spec = game_spec(self.game_id)
        players = int(params.get("players", spec.default_players))
        overrides = parse_rules(params.get("rules", "{}"))
        rules = json.dumps(overrides, sort_keys=True, separators=(",", ":"))
        variant = str(params.get("variant", ""))
        cap = spec.length_cap
        if "max_game_length" in params:
            cap = int(params["max_game_length"])
        try:
            self.setup = setup(self.game_id, players, rules, cap, variant)
        except (RulesetError, TypeError) as exc:
            raise ValueError(str(exc)) from exc
        info = self.setup.info
        full: dict[str, Any] = {"players": players, "variant": variant,
                                "rules": rules.replace(",", ";")}
        if spec.length_cap is not None:
            full["max_game_length"] = cap
        super().__init__(
            _TYPES[self.game_id],
            pyspiel.GameInfo(
                num_distinct_actions=info.num_distinct_actions,
                max_chance_outcomes=info.max_chance_outcomes,
                num_players=players,
                min_utility=info.min_utility,
                max_utility=info.max_utility,
                utility_sum=info.utility_sum,
                max_game_length=self.setup.length,
            ),
            full,
        )

    def max_chance_nodes_in_history(self) -> int:
        return self.setup.chance

    def new_initial_state(self) -> FieldcraftState:
        return FieldcraftState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.perfect_recall:
            return InfoStateObserver(self)
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE:
            return ObservationObserver(self, spectator=True)
        return ObservationObserver(self, spectator=False)


class _Side:
    """Everything a :class:`FieldcraftState` holds on the Python side, in one object.

    OpenSpiel's C++ ``Clone`` of a Python state (what ``State.child`` and the C++ algorithms
    use) makes a new initial state and deep-copies each attribute of the old one's
    ``__dict__``. A fieldcraft state deep-copied generically goes field by field through its
    pickle form, several times slower than its own ``clone``; CFR on Spy Tracker's tiny variant
    spent most of its time there. Kept in one attribute, the copy is this object's
    ``__deepcopy__``, which is the states' own clone.
    """

    __slots__ = ("setup", "inner", "lines", "base", "pending", "decisions", "chance", "capped",
                 "replaying")

    def __init__(self, setup: Setup, inner: State, lines: list[list[str]]):
        self.setup = setup
        self.inner = inner
        self.lines = lines
        """Per seat (and last, the spectator) the log lines written so far."""
        self.base: State | None = None
        """The state before the first of ``pending`` (``None`` when nothing is pending)."""
        self.pending: list[int] = []
        self.decisions = 0
        self.chance = 0
        self.capped = False
        self.replaying = False

    def __deepcopy__(self, memo: dict[int, Any]) -> _Side:
        new = _Side(self.setup, self.inner.clone(), [lines[:] for lines in self.lines])
        new.base = None if self.base is None else self.base.clone()
        new.pending = self.pending[:]
        new.decisions, new.chance, new.capped = self.decisions, self.chance, self.capped
        return new


def _side_field(name: str, doc: str) -> property:
    def get(state: FieldcraftState) -> Any:
        return getattr(state._side, name)

    def put(state: FieldcraftState, value: Any) -> None:
        setattr(state._side, name, value)

    return property(get, put, doc=doc)


_CHANCE = pyspiel.PlayerId.CHANCE
_TERMINAL = pyspiel.PlayerId.TERMINAL


class FieldcraftState(pyspiel.State):
    """A fieldcraft state inside a pyspiel state, with the per-seat lines its information
    states are made of."""

    def __init__(self, game: FieldcraftGame, inner: State | None = None,
                 lines: list[list[str]] | None = None):
        super().__init__(game)
        setup = game.setup
        self._side = _Side(setup, inner if inner is not None else setup.fc.new_initial_state(),
                           lines if lines is not None else [
                               [] for _ in range(setup.fc.num_players + 1)])

    _s = _side_field("setup", "The game's :class:`Setup`.")
    inner = _side_field("inner", "The fieldcraft state.")
    _lines = _side_field("lines", "Per seat (and last, the spectator) the log lines so far.")
    _base = _side_field("base", "The state before the first of ``_pending``, or ``None``.")
    _pending = _side_field("pending", "Actions applied since the lines were last written.")
    _decisions = _side_field("decisions", "Decisions applied so far.")
    _chance = _side_field("chance", "Chance outcomes applied so far.")
    _capped = _side_field("capped", "Ended as a draw at ``max_game_length``.")
    _replaying = _side_field("replaying", "``clone`` is copying pyspiel's record of the moves.")

    # -- the pyspiel State API ---------------------------------------------------------------
    # The step path (these five and ``_apply_action``) reads ``self._side`` once and its
    # slots directly: each property above is a Python call, and a random playout through
    # pyspiel spent a fifth of its time in them.
    def current_player(self) -> int:
        side = self._side
        if side.capped:
            return _TERMINAL
        player = side.inner.current_player()
        if player >= 0:
            return player
        return _CHANCE if player == CHANCE else _TERMINAL

    def is_terminal(self) -> bool:
        side = self._side
        return side.capped or side.inner.is_terminal()

    def is_chance_node(self) -> bool:  # what pyspiel would answer, without two crossings
        side = self._side
        return not side.capped and side.inner.is_chance_node()

    def _legal_actions(self, player: int) -> list[int]:
        return self._side.inner.legal_actions()  # ascending already (conformance checks)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """As pyspiel's, answered here for Python callers (C++ ones reach ``_legal_actions``)."""
        side = self._side
        inner = side.inner
        if side.capped:
            return []
        current = inner.current_player()
        if current == TERMINAL or (player is not None and player != current):
            return []
        if current == CHANCE:
            offset = side.setup.offset
            return [a - offset for a in inner.legal_actions()]
        return inner.legal_actions()[:]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        offset = self._s.offset
        return [(a - offset, p) for a, p in self.inner.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        side = self._side
        if side.replaying:  # clone() copying pyspiel's record of the moves
            return
        inner = side.inner
        game = side.setup
        chance = inner.is_chance_node()
        fc_action = action + game.offset if chance else action
        if side.base is None:
            side.base = inner.clone()
        inner.apply_action(fc_action)
        side.pending.append(fc_action)
        if chance:
            side.chance += 1
            if game.chance_cap is not None and side.chance >= game.chance_cap:
                side.capped = not inner.is_terminal()
        else:
            side.decisions += 1
            if game.cap is not None and side.decisions >= game.cap:
                side.capped = not inner.is_terminal()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            action += self._s.offset
        return self.inner.action_to_string(action)

    def returns(self) -> list[float]:
        if self._capped:
            return list(self._s.draw)
        return [float(x) for x in self.inner.returns()]

    def information_state_string(self, player: int | None = None) -> str:
        """``player``'s information state (default: the current player, which a chance or
        terminal node does not have, so there a seat must be named)."""
        return self._info_state(check_player(self, player, "information_state_string"))

    def observation_string(self, player: int | None = None) -> str:
        """``player``'s observation as compact JSON (the default as for
        :meth:`information_state_string`)."""
        seat = check_player(self, player, "observation_string")
        return _compact(self.inner.observation(seat))

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation tensor (the default as for
        :meth:`information_state_string`)."""
        seat = check_player(self, player, "observation_tensor")
        return self._s.fc.observer.tensor(self.inner, seat)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s perfect-recall tensor (:mod:`fieldcraft.adapters.infostate`; the
        default as for :meth:`information_state_string`)."""
        seat = check_player(self, player, "information_state_tensor")
        self._write_lines()
        layout = self._s.infostate_layout()
        out = np.zeros(layout.size, np.float32)
        layout.fill(out, self._lines[seat], self.inner, seat)
        return out.tolist()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> FieldcraftState:
        player_id = check_player(self, player_id, "resample_from_infostate")
        rng = random.Random(int(probability_sampler() * 2**53))
        self._write_lines()
        sample = self.inner.resample(player_id, rng)
        public = self._lines[-1]
        lines = [self._lines[s][:] if s == player_id else public[:]
                 for s in range(len(self._lines) - 1)]
        lines.append(public[:])
        new = FieldcraftState(self.get_game(), sample, lines)
        new._decisions, new._chance = self._decisions, self._chance
        return new

    def clone(self) -> FieldcraftState:
        new = FieldcraftState(self.get_game(), self.inner.clone(),
                              [lines[:] for lines in self._lines])
        new._base = None if self._base is None else self._base.clone()
        new._pending = self._pending[:]
        new._decisions, new._chance, new._capped = self._decisions, self._chance, self._capped
        new._replaying = True
        for action in self.history():  # keep pyspiel's own record of the moves
            pyspiel.State.apply_action(new, action)
        new._replaying = False
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> FieldcraftState:
        return self.clone()

    def __str__(self) -> str:
        return self.inner.to_json()

    # -- helpers --------------------------------------------------------------------------------
    def _write_lines(self) -> None:
        """Write the log lines of every pending action, from the state before each one."""
        if not self._pending:
            return
        state = self._base
        assert state is not None
        lines = self._lines
        players = len(lines) - 1
        for action in self._pending:
            for seat in range(players):
                line = state.describe_action(action, seat)
                if line is not None:
                    lines[seat].append(line)
            line = state.describe_action(action, None)
            if line is not None:
                lines[players].append(line)
            state.apply_action(action)
        self._pending = []
        self._base = None

    def _info_state(self, player: int) -> str:
        self._write_lines()
        return "\n".join(self._lines[player]) + "\n" + _compact(self.inner.observation(player))


def _compact(obs: dict[str, Any]) -> str:
    return json.dumps(obs, sort_keys=True, separators=(",", ":"))


class ObservationObserver:
    """A seat's observation (string, and the game's planes as a float32 tensor)."""

    def __init__(self, game: FieldcraftGame, spectator: bool):
        self.game = game.setup
        self.spectator = spectator
        observer = self.game.fc.observer
        size = 0 if spectator else observer.tensor_size()
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        if not spectator:
            at = 0
            for plane in observer.planes():
                self.dict[plane.name] = self.tensor[at:at + plane.size].reshape(plane.shape)
                at += plane.size

    def set_from(self, state: FieldcraftState, player: int) -> None:
        seat = check_player(state, player, "set_from")
        if not self.spectator:
            self.tensor[:] = self.game.fc.observer.tensor(state.inner, seat)

    def string_from(self, state: FieldcraftState, player: int) -> str:
        seat = check_player(state, player, "string_from")
        return _compact(state.inner.observation(None if self.spectator else seat))


class InfoStateObserver:
    """A seat's perfect-recall information state: the string, and the tensor of
    :mod:`fieldcraft.adapters.infostate` (its pieces named in ``dict``)."""

    def __init__(self, game: FieldcraftGame):
        self.layout = game.setup.infostate_layout()
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict: dict[str, np.ndarray] = self.layout.views(self.tensor)

    def set_from(self, state: FieldcraftState, player: int) -> None:
        seat = check_player(state, player, "set_from")
        state._write_lines()
        self.layout.fill(self.tensor, state._lines[seat], state.inner, seat)

    def string_from(self, state: FieldcraftState, player: int) -> str:
        return state._info_state(check_player(state, player, "string_from"))


def _register(game_id: str) -> None:
    name = short_name(game_id)
    cls = type(f"Fieldcraft_{game_id.replace('-', '_')}", (FieldcraftGame,), {"game_id": game_id})
    globals()[cls.__name__] = cls  # found by name when pyspiel pickles a state
    _TYPES[game_id] = _game_type(game_id)
    pyspiel.register_game(_TYPES[game_id], cls)
    _CLASSES[name] = cls


_TYPES: dict[str, pyspiel.GameType] = {}
_CLASSES: dict[str, type] = {}
for _id in list_games():
    if short_name(_id) not in pyspiel.registered_names():
        _register(_id)


def exit_cleanly(status: int = 0) -> None:
    """End the process now (after flushing output), skipping an interpreter shutdown that
    OpenSpiel 2.0.2 can abort in once a Python game is registered."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
