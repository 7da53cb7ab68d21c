"""What each seat could deduce, step by step, about the hidden things of a finished game.

Hidden-information games are replayed in the head afterwards ("could I have known she was the
Informer?"). The engines already keep exactly what each seat knows, so the answer is computed,
not guessed: each game declares its *secrets* (the hidden things, as a function of the true
state: Under Current's roles, whether Spy Tracker's standing bid is true, Undercover's
face-down backs, Against the Current's event pile) in a ``deduction`` module named by its
``GameSpec.deduction``, and says the seat's belief over each secret exactly where its
knowledge gives it. A secret the game gives no exact belief for is estimated by counting its
values over ``samples`` draws of :meth:`State.resample` for the seat (the report says how
many), which is the same knowledge a searching bot uses, so the two can never disagree about
what a seat may know.

The report (:func:`deduction_report`) is plain JSON: per seat, a timeline of the steps where its
beliefs changed (a distribution per secret and the entropy of its uncertainty, in bits), and per
secret the true value and the first step (and turn) from which the seat was certain of it and
stayed certain. It is computed after the game, off the rules' hot path: nothing here is called
while a game is played.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fieldcraft.core.api import Game, State
from fieldcraft.core.errors import FieldcraftError

__all__ = [
    "DeductionError",
    "GameDeduction",
    "NoSecretsError",
    "Secret",
    "deduction_for",
    "deduction_report",
    "entropy",
]

PRECISION = 4
"""Decimal places kept for probabilities and entropies: the report is for reading and drawing,
and rounding keeps a long game's timeline small and stable across platforms."""
MAX_SAMPLES = 10_000
"""Most resamples one step may draw per seat: a report is made on demand, it must stay cheap."""


class DeductionError(FieldcraftError):
    """A deduction report was asked for something it cannot answer (bad seat, bad actions, a
    game that declares no secrets)."""

    code = "deduce.bad_request"


class NoSecretsError(DeductionError):
    """The game declares no secrets (``GameSpec.deduction`` is unset): it has no report."""

    code = "deduce.no_secrets"


@dataclass(frozen=True)
class Secret:
    """One hidden thing at one moment, as the true state has it.

    ``key`` names it across steps (the same thing keeps its key while it lasts); ``label`` is
    ``{"key", "params"}`` for the page's ``deduce.secret.<key>`` text; ``ns`` is the game's
    catalogue namespace its values are names in (``role``, ``colour``...; ``None``: the values
    are page words, ``deduce.value.<v>``); ``truth`` is its real value.
    """

    key: str
    label: dict[str, Any]
    ns: str | None
    truth: str


@dataclass
class Belief:
    """What a game says one seat knows: exact distributions by secret key (secrets it leaves
    out are estimated by resampling), and optionally the joint uncertainty in bits with a
    count of the possibilities left (Under Current: role assignments)."""

    exact: dict[str, dict[str, float]] = field(default_factory=dict)
    joint_entropy: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class GameDeduction:
    """A game's declaration of its secrets; subclassed in each game's ``deduction`` module.

    ``secrets`` must be a function of the true state only (it is also read from resampled
    states, to count), and ``belief`` must read only what ``seat`` knows.
    """

    def __init__(self, game: Game):
        self.game = game

    def secrets(self, state: State, seat: int) -> list[Secret]:
        """The hidden things at this state that ``seat`` may wonder about (not its own)."""
        raise NotImplementedError

    def belief(self, state: State, seat: int, secrets: list[Secret]) -> Belief:
        """The exact part of ``seat``'s belief; the default knows nothing exactly."""
        return Belief()

    turn_word = "turn"
    """What :meth:`turn` counts: ``"turn"`` or ``"round"`` (the page's ``deduce.from_<word>``)."""

    def turn(self, state: State) -> int | None:
        """The game's turn (or round) in progress, from 1, for "certain from turn 7"."""
        return None

    def subject(self, key: str) -> int | None:
        """The seat a secret is about, if it is about one (a role): time-to-unmask counts
        how long each seat's stays hidden from the others."""
        return None

    def unmask_turns(self, actions: list[int]) -> dict[str, Any] | None:
        """Per seat, the turn from which some opponent (a seat of another side) was certain of
        its role (``None``: it
        stayed hidden until the end, the end's own reveal not counted), and the game's last
        turn (where a hidden seat is censored): what a study's time-to-unmask survival curve
        needs, computed far cheaper than a whole report. ``None``: the game has no roles."""
        return None


def entropy(dist: dict[str, float]) -> float:
    """Shannon entropy in bits of a distribution given as value -> probability."""
    return -sum(p * math.log2(p) for p in dist.values() if p > 0.0)


def deduction_for(game: Game) -> GameDeduction:
    """The game's :class:`GameDeduction`; :class:`DeductionError` if it declares none."""
    made = game.__dict__.get("_deduction")  # one per game: its caches stay warm
    if made is not None:
        return made
    target = getattr(game.spec, "deduction", None)
    if target is None:
        raise NoSecretsError(f"{game.name} declares no secrets to deduce")
    made = game.__dict__["_deduction"] = game.spec.resolve(target)(game)
    return made


def _rounded(dist: dict[str, float]) -> dict[str, float]:
    return {v: round(p, PRECISION) for v, p in sorted(dist.items()) if p > 0.0}


def _estimate(state: State, seat: int, keys: list[str], deduction: GameDeduction,
              samples: int, rng: random.Random) -> dict[str, dict[str, float]]:
    """Each secret's distribution as counted over ``samples`` resamples for ``seat``."""
    counts: dict[str, dict[str, int]] = {k: {} for k in keys}
    draw = state.resampler(seat)
    for _ in range(samples):
        sample = draw(rng)
        values = {s.key: s.truth for s in deduction.secrets(sample, seat)}
        for k in keys:
            v = values.get(k)
            if v is not None:
                bucket = counts[k]
                bucket[v] = bucket.get(v, 0) + 1
    out = {}
    for k, bucket in counts.items():
        total = sum(bucket.values())
        out[k] = {v: c / total for v, c in bucket.items()} if total else {}
    return out


def _check(game: Game, actions: Any, seat: int | None, samples: int
           ) -> tuple[list[int], list[int]]:
    if isinstance(actions, (str, bytes, dict)) or not isinstance(actions, Iterable):
        raise DeductionError("actions must be a list of integers")
    actions = list(actions)
    if not all(type(a) is int for a in actions):
        raise DeductionError("actions must be a list of integers")
    if type(samples) is not int or not 1 <= samples <= MAX_SAMPLES:
        raise DeductionError(f"samples must be an integer from 1 to {MAX_SAMPLES}")
    if seat is None:
        seats = list(range(game.num_players))
    elif type(seat) is int and 0 <= seat < game.num_players:
        seats = [seat]
    else:
        raise DeductionError(f"seat must be 0-{game.num_players - 1} or None (every seat)")
    return actions, seats


def deduction_report(game: Game, actions: Iterable[int], seat: int | None = None,
                     samples: int = 200, seed: int = 0, method: str = "auto"
                     ) -> dict[str, Any]:
    """What ``seat`` (``None``: every seat) could infer at each step of the game ``actions``
    play, as JSON-able data.

    ``method="auto"`` uses the game's exact beliefs and counts ``samples`` resamples only for
    the secrets it has none for; ``"sample"`` counts every secret (to check the exact answers
    against). The same ``seed`` gives the same report. Bad input raises
    :class:`DeductionError` before anything is computed.
    """
    if method not in ("auto", "sample"):
        raise DeductionError("method must be 'auto' or 'sample'")
    actions, seats = _check(game, actions, seat, samples)
    deduction = deduction_for(game)
    try:  # every action must be legal: replay on a scratch state before any work
        final = game.replay(actions)
    except FieldcraftError as exc:
        raise DeductionError(f"the actions do not replay: {exc}") from None
    rng = random.Random(seed)
    timelines: dict[int, list[dict[str, Any]]] = {s: [] for s in seats}
    infos: dict[int, dict[str, dict[str, Any]]] = {s: {} for s in seats}
    certain: dict[int, dict[str, Any]] = {s: {} for s in seats}
    last: dict[int, Any] = {s: None for s in seats}
    sampled = 0
    state = game.new_initial_state()
    for step in range(len(actions) + 1):
        turn = deduction.turn(state)
        for s in seats:
            secrets, belief, dists, missing = _beliefs(state, s, deduction, method, samples,
                                                       rng)
            if missing:
                sampled = samples
            entries = _note_secrets(secrets, dists, missing, step, turn, infos[s], certain[s])
            point = _point(entries, belief)
            if point != last[s]:
                last[s] = point
                timelines[s].append({"step": step, "turn": turn, **point})
        if step < len(actions):
            state.apply_action(actions[step])
    return {
        "game": game.name,
        "players": game.num_players,
        "steps": len(actions),
        "finished": final.is_terminal(),
        "method": method,
        "samples": sampled,
        "turn_word": deduction.turn_word,
        "seats": _seat_reports(seats, timelines, infos, certain),
    }


def _beliefs(state: State, seat: int, deduction: GameDeduction, method: str, samples: int,
             rng: random.Random
             ) -> tuple[list[Secret], Belief, dict[str, dict[str, float]], list[str]]:
    """``seat``'s secrets at this step and its distribution over each: the game's exact
    belief where it gives one (unless ``method`` is ``"sample"``), counted over ``samples``
    resamples for the rest, which are returned as ``missing`` (the report marks them as
    estimates)."""
    secrets = deduction.secrets(state, seat)
    belief = deduction.belief(state, seat, secrets) if method == "auto" else Belief()
    dists = {k: v for k, v in belief.exact.items()}
    missing = [x.key for x in secrets if x.key not in dists]
    if missing:
        dists.update(_estimate(state, seat, missing, deduction, samples, rng))
    return secrets, belief, dists, missing


def _note_secrets(secrets: list[Secret], dists: dict[str, dict[str, float]],
                  missing: list[str], step: int, turn: Any, infos: dict[str, dict[str, Any]],
                  certain: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One seat's entries for this step (each secret's rounded distribution, and whether it is
    exact), updating what the seat's report keeps across steps: each secret's label, truth
    and steps seen (``infos``), and the step from which the seat has been certain of its
    current value (``certain``: reset to None whenever it is unsure again)."""
    entries = {}
    for x in secrets:
        dist = _rounded(dists.get(x.key, {}))
        entries[x.key] = {"dist": dist, "exact": x.key not in missing}
        info = infos.get(x.key)
        if info is None:
            infos[x.key] = {"label": x.label, "ns": x.ns, "truth": x.truth,
                            "first_step": step, "last_step": step}
        else:  # the last truth it had (an Under Current FLIP moves role cards)
            info["truth"], info["last_step"] = x.truth, step
        sure = len(dist) == 1
        mark = certain.get(x.key)
        if sure and (mark is None or mark["value"] not in dist):
            certain[x.key] = {"step": step, "turn": turn, "value": next(iter(dist))}
        elif not sure:
            certain[x.key] = None
    return entries


def _point(entries: dict[str, dict[str, Any]], belief: Belief) -> dict[str, Any]:
    """A timeline point's content: the seat's uncertainty (the joint entropy where the game
    gives it, else the marginals' sum), the entries and the game's extra data. The timeline
    only gets a point when this differs from the last one."""
    marginal = round(sum(entropy(e["dist"]) for e in entries.values()) + 0.0, PRECISION)
    joint = belief.joint_entropy
    return {
        "entropy": round(joint, PRECISION) if joint is not None else marginal,
        "marginal_entropy": marginal,
        "secrets": entries,
        **belief.extra,
    }


def _seat_reports(seats: list[int], timelines: dict[int, list[dict[str, Any]]],
                  infos: dict[int, dict[str, dict[str, Any]]],
                  certain: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each seat's part of the report, once the game is replayed: its timeline, and each
    secret with the step it was certain from (or None)."""
    seat_reports = []
    for s in seats:
        secrets_out = {}
        for key, info in infos[s].items():
            mark = certain[s].get(key)
            secrets_out[key] = {**info, "certain_from": mark}
        seat_reports.append({"seat": s, "timeline": timelines[s], "secrets": secrets_out})
    return seat_reports


def read_replay(doc: Any) -> tuple[Game, list[int]]:
    """The game and actions of a replay file: ``{"game", "players", "overrides", "actions"}``
    (what ``GET /api/tables/{id}/export`` gives), or a saved state (``State.to_json``), whose
    action list is the whole game. :class:`DeductionError` names what is wrong."""
    from fieldcraft.core.registry import load_game

    if not isinstance(doc, dict):
        raise DeductionError("a replay is a JSON object with game, players and actions")
    actions = doc.get("actions")
    if actions is None and isinstance(doc.get("state"), dict):
        actions = doc["state"].get("actions")
    name, players, overrides = doc.get("game"), doc.get("players"), doc.get("overrides") or {}
    if not isinstance(name, str) or type(players) is not int:
        raise DeductionError("a replay needs a game id and an integer player count")
    if not isinstance(overrides, dict):
        raise DeductionError("a replay's overrides must be an object")
    if not isinstance(actions, list) or not all(type(a) is int for a in actions):
        raise DeductionError("a replay's actions must be a list of integers")
    game = load_game(name, players=players, **overrides)
    return game, actions


def report_lines(report: dict[str, Any]) -> list[str]:
    """The report as short English lines for the terminal (seats shown from 1)."""
    lines = [f"{report['game']}, {report['players']} players, {report['steps']} steps"
             + (f" (estimates from {report['samples']} resamples)" if report["samples"] else "")]
    for seat_report in report["seats"]:
        seat = seat_report["seat"] + 1
        timeline = seat_report["timeline"]
        peak = max((p["entropy"] for p in timeline), default=0.0)
        lines.append(f"seat {seat}: uncertainty peaked at {peak:g} bits, "
                     f"{timeline[-1]['entropy'] if timeline else 0:g} at the end")
        for info in seat_report["secrets"].values():
            mark = info["certain_from"]
            if mark is None:
                continue
            what = f"  {_label_text(info['label'])}: {mark['value']}"
            if mark["step"] == report["steps"] and report["finished"]:
                lines.append(f"{what}, learned only at the end")
            elif mark["turn"] is not None:
                lines.append(f"{what}, certain from {report['turn_word']} {mark['turn']} "
                             f"(step {mark['step']})")
            else:
                lines.append(f"{what}, certain from step {mark['step']}")
    return lines


def _label_text(label: dict[str, Any]) -> str:
    key, params = label["key"], label.get("params", {})
    if key == "role_of":
        return f"seat {params['seat'] + 1}'s role"
    if key == "bid_true":
        return f"round {params['round']}'s bid {params['count']} x {params['trait']}"
    if key == "agent_back":
        where = ("in hand" if params.get("held") else f"on top of pile {params['pile']}"
                 if "pile" in params else f"at {chr(65 + params['x'])}{params['y'] + 1}")
        return f"the hidden face of the {params['colour']} Agent {where}"
    if key == "next_event":
        return f"the next event ({params['left']} left)"
    return key
