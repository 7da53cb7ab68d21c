"""A learned win-probability model for Against the Current, fitted to heuristic self-play.

Why: every search tried for the Strong level scored its leaves by the hand-made race model
(``heuristic_returns``), and none beat the heuristic bot, which uses the same model. This module
is the other yardstick: a conditional-logit model over per-seat features read off the board,
one of which is the race model's own log chance, so the fit can only keep, reweigh or correct
it (with a weight of 1 on that feature and 0 elsewhere it *is* the race model). The weights
are fitted offline with numpy by ``benchmarks/atc_value.py`` and stored as plain numbers in
``value.json``; the runtime here is plain Python, so numpy stays out of the core dependencies.

A seat's chance is ``exp(w . x_s) / sum_o exp(w . x_o)`` over the seats, so the chances sum to
one (in two-player games the min/max search of ``bot._expectimax`` stays exact) and any feature
that is the same for every seat cancels: only differences between seats count.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from .layout import AFTER_ROLL, ANIMALS, END, ROLL, TOKEN, TOKENS

WEIGHTS_FILE = Path(__file__).with_name("value.json")
FEATURES = (
    "log_race",  # log of the race model's chance for the seat
    "log_race_late",  # the same, times the share of tokens home (the model sharpens late)
    "score",  # tributary points already claimed, over the best tributary's value
    "home",  # tokens arrived
    "turns_left",  # race-model turns its unarrived tokens still need, all together
    "rear",  # turns the rearmost token still needs
    "front",  # turns the leading token still needs
    "boost",  # Boost unused
    "pressure",  # Pressure unused
    "stops",  # STOP marks on its tokens
    "wait",  # share of a round before the seat moves again (0: its move is pending)
    "marks",  # Detour and Pressure Wave marks, less Safe Shelter and River Support
    "order",  # its place in the round's seat order, from the round's first seat (0 first)
    "axolotl",  # its animal (the race model prices an animal's terrain and Boost by hand)
    "porpoise",
    "eel",
    "sturgeon",
)
RACE_FLOOR = 1e-6


@cache
def weights(players: int) -> tuple[float, ...]:
    """The fitted weights for a table of ``players`` (read once from ``value.json``)."""
    table = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    if table.get("features") != list(FEATURES):
        raise ValueError(f"{WEIGHTS_FILE.name} was fitted for other features: refit it with "
                         "benchmarks/atc_value.py")
    found = table["weights"].get(str(players))
    if found is None:
        raise ValueError(f"{WEIGHTS_FILE.name} has no weights for {players} players")
    return tuple(float(w) for w in found)


def features(state: Any) -> list[list[float]]:
    """One feature row per seat (:data:`FEATURES`), from a state with a turn under way."""
    g = state.game
    n = g.num_players
    race = state.heuristic_returns()
    eta = g.search_model.race_model()[0]
    sanct = g.sanctuary
    best = float(max(g.tributaries)) or 1.0
    scores = state.scores()
    pos, stop, animal = state.pos, state.stop, state.animal
    cur = state.seat
    pending = state.phase in (TOKEN, ROLL, AFTER_ROLL)
    late = state.arrived / (TOKENS * n)
    first = state.first if state.first >= 0 else 0
    rows = []
    for s in range(n):
        left = [eta[animal[s]][pos[t]] for t in range(TOKENS * s, TOKENS * s + TOKENS)
                if pos[t] < sanct]
        marks = 0
        for t in range(TOKENS * s, TOKENS * s + TOKENS):
            marks += state.wave[t] - state.shelter[t] - state.support[t]
        marks += state.detour[s]
        log_race = math.log(max(race[s], RACE_FLOOR))
        rows.append([
            log_race,
            log_race * late,
            scores[s] / best,
            float(TOKENS - len(left)),
            sum(left),
            max(left, default=0.0),
            min(left, default=0.0),
            float(not state.boost_used[s]),
            float(not state.pressure_used[s]),
            float(sum(stop[TOKENS * s:TOKENS * s + TOKENS])),
            0.0 if (s == cur and pending) else ((s - cur) % n or n) / n,
            float(marks),
            ((s - first) % n) / n,
            *(float(animal[s] == a) for a in range(len(ANIMALS))),
        ])
    return rows


def learned_returns(state: Any) -> list[float]:
    """Every seat's win chance by the learned model: exact at the end, uniform before a turn
    has begun (as the race model), else the fitted conditional logit."""
    if state.phase == END:
        return state.returns()
    n = state.game.num_players
    if state.phase < TOKEN:
        return [1.0 / n] * n
    w = weights(n)
    logits = [sum(wi * xi for wi, xi in zip(w, row, strict=True)) for row in features(state)]
    top = max(logits)
    exps = [math.exp(z - top) for z in logits]
    total = sum(exps)
    return [e / total for e in exps]


__all__ = ["FEATURES", "WEIGHTS_FILE", "features", "learned_returns", "weights"]
