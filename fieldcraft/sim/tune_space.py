"""What ``fieldcraft tune`` searches over and for: the rules to vary and the target.

A ``--param`` becomes a :class:`Param` (a key path into the ruleset, the values it may take,
checked against the default's type and shape), and :func:`apply_values` writes a trial's values
into ruleset overrides; a ``--target`` becomes a :class:`Target`, whose ``loss`` scores the
:func:`game_metrics` of a trial's games. :func:`prepare` checks them all against the game before
anything is played. The search itself (trials, re-evaluation, files) is in
:mod:`fieldcraft.sim.tune`, which re-exports these names.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fieldcraft.core.api import FieldcraftError, RulesetError
from fieldcraft.core.registry import default_ruleset, load_game
from fieldcraft.core.ruleset import FIXED_KEYS, check_shape
from fieldcraft.sim.report import summarize
from fieldcraft.sim.study import validate

Values = dict[str, Any]  # param key path -> value
Measure = dict[str, Any]  # "loss" plus whatever the trial measured


class TuneError(FieldcraftError):
    """A ``--param`` or ``--target`` that cannot be tuned, said in one line."""


# --- parameters -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One rule to vary: a key path into the ruleset and the values it may take.

    ``kind`` is ``"int"`` or ``"float"`` (a range ``low..high``, from the default's type) or
    ``"choice"`` (a list of values, each of the default's shape).
    """

    key: str
    path: tuple[str | int, ...]
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()

    def suggest(self, trial: Any) -> Any:
        """The trial's value for this rule (Optuna's suggest API)."""
        if self.kind == "int":
            return trial.suggest_int(self.key, int(self.low), int(self.high))
        if self.kind == "float":
            return trial.suggest_float(self.key, float(self.low), float(self.high))
        index = trial.suggest_categorical(self.key, list(range(len(self.choices))))
        return self.choices[index]

    def distribution(self) -> Any:
        """The Optuna distribution, to tell the sampler about the default's trial."""
        import optuna

        if self.kind == "int":
            return optuna.distributions.IntDistribution(int(self.low), int(self.high))
        if self.kind == "float":
            return optuna.distributions.FloatDistribution(float(self.low), float(self.high))
        return optuna.distributions.CategoricalDistribution(list(range(len(self.choices))))

    def internal(self, value: Any) -> Any | None:
        """``value`` as the sampler stores it (a choice's index), or None when it lies outside
        the search space (then the default is not told to the sampler)."""
        if self.kind == "choice":
            for i, c in enumerate(self.choices):
                if c == value and type(c) is type(value):
                    return i
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return value if self.low <= value <= self.high else None


def _split_path(key: str) -> tuple[str | int, ...]:
    parts: list[str | int] = []
    for part in key.split("."):
        if part == "":
            raise TuneError(f"--param key {key!r} has an empty part")
        parts.append(int(part) if part.isdigit() else part)
    return tuple(parts)


def _lookup(ruleset: dict[str, Any], path: tuple[str | int, ...], key: str) -> Any:
    node: Any = ruleset
    for depth, part in enumerate(path):
        where = ".".join(str(p) for p in path[:depth]) or "the ruleset"
        if isinstance(node, dict) and isinstance(part, str):
            if part not in node or (depth == 0 and part in FIXED_KEYS):
                known = ", ".join(k for k in sorted(node) if depth or k not in FIXED_KEYS)
                raise TuneError(f"--param {key}: no key {part!r} in {where}; known: {known}")
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int):
            if part >= len(node):
                raise TuneError(f"--param {key}: {where} has {len(node)} entries (0-"
                                f"{len(node) - 1}), not {part}")
            node = node[part]
        else:
            kind = "a list (use an index)" if isinstance(node, list) else type(node).__name__
            raise TuneError(f"--param {key}: {where} is {kind}, it has no {part!r}")
    if isinstance(node, (dict, list)):
        raise TuneError(f"--param {key} is a {type(node).__name__}: name one value inside it "
                        "with a longer key path, e.g. roles.0.from")
    return node


def _number(text: str, key: str) -> float:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TuneError(f"--param {key}: {text!r} is not a number")
    return value


def parse_param(text: str, ruleset: dict[str, Any]) -> Param:
    """Read ``key=low..high``, ``key=a,b,c`` or (for a true/false rule) ``key`` alone.

    The kind comes from the default value at the key path in ``ruleset``: an int default gives
    an integer range, a float default a float range; a list of values is a choice, each value
    read as JSON and checked against the default's shape. Raises :class:`TuneError`.
    """
    key, sep, spec = text.partition("=")
    key = key.strip()
    if not key:
        raise TuneError(f"--param expects key=low..high or key=a,b,c; got {text!r}")
    path = _split_path(key)
    default = _lookup(ruleset, path, key)
    spec = spec.strip()
    if not sep or not spec:
        if isinstance(default, bool):
            return Param(key, path, "choice", default, choices=(False, True))
        raise TuneError(f"--param {key} needs values: {key}=low..high or {key}=a,b,c "
                        f"(the default is {default!r})")
    if ".." in spec:
        lo_text, _, hi_text = spec.partition("..")
        if isinstance(default, bool) or not isinstance(default, (int, float)):
            raise TuneError(f"--param {key}: a range needs a number rule, but the default is "
                            f"{default!r}; list the values instead ({key}=a,b,c)")
        low, high = _number(lo_text.strip(), key), _number(hi_text.strip(), key)
        if low >= high:
            raise TuneError(f"--param {key}: the range {spec} is empty (low must be < high)")
        if isinstance(default, int):
            if not (float(low).is_integer() and float(high).is_integer()):
                raise TuneError(f"--param {key} is an integer rule (default {default}): "
                                f"give an integer range, not {spec}")
            return Param(key, path, "int", default, int(low), int(high))
        return Param(key, path, "float", default, float(low), float(high))
    choices = []
    for raw in spec.split(","):
        raw = raw.strip()
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        try:
            check_shape(default, value, key)
        except RulesetError as exc:
            raise TuneError(f"--param {key}: {exc}") from None
        choices.append(value)
    if len(choices) < 2:
        raise TuneError(f"--param {key}: give at least two values (a=b,c) or a range low..high")
    return Param(key, path, "choice", default, choices=tuple(choices))


def apply_values(params: Sequence[Param], values: Values, base: dict[str, Any],
                 defaults: dict[str, Any]) -> dict[str, Any]:
    """Ruleset overrides for a trial: ``base`` (the fixed ``--set`` overrides) with each
    param's value written at its key path. A nested value replaces its whole top-level entry
    (a copy of it with that one value changed), since overrides work on top-level keys."""
    overrides = copy.deepcopy(base)
    for p in params:
        top = p.path[0]
        if len(p.path) == 1:
            overrides[top] = values[p.key]
            continue
        entry = overrides.setdefault(top, copy.deepcopy(defaults[top]))
        node = entry
        for part in p.path[1:-1]:
            node = node[part]
        node[p.path[-1]] = values[p.key]
    return overrides


# --- targets --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """What the search minimises (its ``loss``, 0 at the target).

    - ``balance``: the largest gap between the win rates of any two sides (1 − balance), at
      each player count, averaged over the counts;
    - ``side:LABEL=x``: how far side LABEL's win rate is from ``x``;
    - ``duration=N``: how far the mean game length (decisions) is from ``N``.
    """

    kind: str
    label: str | None = None
    value: float | None = None

    def __str__(self) -> str:
        if self.kind == "balance":
            return "balance"
        if self.kind == "side":
            return f"side:{self.label}={self.value:g}"
        return f"duration={self.value:g}"

    def loss(self, metrics: Measure) -> float:
        """The loss of one trial's metrics (see :func:`game_metrics`)."""
        counts = metrics["players"]
        if self.kind == "balance":
            return _mean(metrics["gap"][str(p)] for p in counts)
        if self.kind == "side":
            rates = [metrics["rates"][str(p)].get(self.label) for p in counts]
            return _mean(abs(r - self.value) for r in rates if r is not None)
        return _mean(abs(metrics["mean_length"][str(p)] - self.value) for p in counts)

    def check(self, metrics: Measure) -> None:
        """Fail if a side target names a side the game's rows never show."""
        if self.kind != "side":
            return
        seen = sorted({lab for p in metrics["players"] for lab in metrics["rates"][str(p)]})
        if self.label not in seen:
            raise TuneError(f"--target {self}: no side {self.label!r} in this game; its sides "
                            f"are {', '.join(seen) or '(none: the game has no side labels)'}")


def _mean(xs: Any) -> float:
    items = list(xs)
    return sum(items) / len(items) if items else math.nan


def parse_target(text: str) -> Target:
    """Read ``balance``, ``side:LABEL=x`` (0 <= x <= 1) or ``duration=N`` (N > 0)."""
    t = text.strip()
    if t == "balance":
        return Target("balance")
    usage = "--target expects balance, side:LABEL=RATE (e.g. side:Yellow=0.2) or duration=N"
    if t.startswith("side:"):
        label, sep, raw = t[5:].partition("=")
        if not sep or not label.strip():
            raise TuneError(f"{usage}; got {text!r}")
        try:
            rate = float(raw)
        except ValueError:
            raise TuneError(f"--target {text}: {raw!r} is not a win rate like 0.2") from None
        if not 0 <= rate <= 1:
            raise TuneError(f"--target {text}: a win rate is between 0 and 1, not {rate:g}")
        return Target("side", label.strip(), rate)
    if t.startswith("duration="):
        try:
            n = float(t[len("duration="):])
        except ValueError:
            raise TuneError(f"--target {text}: the duration is a number of decisions, like "
                            "duration=40") from None
        if not n > 0:
            raise TuneError(f"--target {text}: the duration must be > 0")
        return Target("duration", value=n)
    raise TuneError(f"{usage}; got {text!r}")


def game_metrics(rows: list[dict[str, Any]], counts: Sequence[int]) -> Measure:
    """Win rate per side, largest side gap and mean length per player count, from study rows
    (sides are the seats' labels; a game without labels is measured by seats)."""
    s = summarize(rows)
    rates: dict[str, dict[str, float]] = {str(p): {} for p in counts}
    for (p, label), r in s["labels"].items():
        if r["games"]:
            rates[str(p)][label] = r["rate"]
    for (p, seat), r in s["seats"].items():
        if not rates[str(p)] or all(k.startswith("seat ") for k in rates[str(p)]):
            rates[str(p)][f"seat {seat}"] = r["rate"]
    gap = {p: (max(v.values()) - min(v.values())) if len(v) > 1 else 0.0
           for p, v in rates.items()}
    lengths = {str(p): _mean(s["lengths"].get(p, [])) for p in counts}
    return {"players": list(counts), "games": len(rows), "rates": rates, "gap": gap,
            "mean_length": lengths}


def prepare(game: str, players: Sequence[int], params: Sequence[str | Param],
            target: str | Target, overrides: dict[str, Any] | None = None,
            agents: Sequence[str] = (), toy: bool = False
            ) -> tuple[list[Param], Target, dict[str, Any]]:
    """Check a tuning run's inputs before anything is played (the CLI calls it before its
    progress bar): the ruleset and agents, each ``--param`` against the default rules, both
    ends of every range (the game must accept them) and the target's syntax. Returns the
    parsed params, the target and the resolved default ruleset. ``toy`` (an injected
    objective) skips the checks that need a real game."""
    counts = sorted(set(players))
    base = dict(overrides or {})
    if not params:
        raise TuneError("give at least one --param to tune")
    target = parse_target(target) if isinstance(target, str) else target
    if not toy:
        validate(game, counts, base, agents)
        defaults = load_game(game, players=counts[0], **base).ruleset
    elif any(isinstance(p, str) for p in params):  # a toy objective over a real game's rules
        defaults = {**default_ruleset(game), **base}
    else:
        defaults = dict(base)
    space = [p if isinstance(p, Param) else parse_param(p, defaults) for p in params]
    keys = [p.key for p in space]
    if len(set(keys)) != len(keys):
        raise TuneError(f"--param names a rule twice: {', '.join(sorted(keys))}")
    if not toy:
        for p in space:  # both ends of every range must be rules the game accepts
            ends = [p.low, p.high] if p.kind != "choice" else list(p.choices)
            for v in ends:
                value = int(v) if p.kind == "int" else v
                try:
                    validate(game, counts, apply_values([p], {p.key: value}, base, defaults))
                except RulesetError as exc:
                    raise TuneError(f"--param {p.key}={value!r} is not a valid rule: "
                                    f"{exc}") from None
    return space, target, defaults
