"""What a tuning trial really plays, so equivalent trials are played once, and how sure a loss is.

Many rule values mean the same game at the player counts a search plays: ``roles.5.from`` 3 and 4
both put the sixth role in every game of a 4-5 player search, and ``jokers_per_player.6`` does
nothing in a 3-player one. TPE proposes such twins freely, and each used to cost a full trial of
games that could only repeat the first one's results (the same deals, seeds and agents give the
same games). :func:`effective_key` names the rules a trial plays, so ``tune`` reuses a result.

The key is the resolved ruleset of each player count played, reduced by the conventions the
rulesets follow for player-count-dependent entries (and nothing game-specific):

- a dict keyed only by player counts (``{"2": 6, "3": 4}``) keeps only the entry of the count
  played (absent stays absent);
- an item of a list with an integer ``from`` (a role or card that joins from that many players)
  is dropped when it is not in play at that count, and its ``from`` is dropped when it is (the
  value no longer matters);
- a list of player counts under a key ending in ``_players`` becomes whether the count is in it.

Everything else stays as resolved, so a key can only be too fine (two equivalent rulesets kept
apart, costing a re-play) and not too coarse, as long as a game reads those entries only for its
own player count. A digest of the tables each Game builds would catch more twins, but the
compiled build keeps them in C fields Python cannot list, so it would work in one build only.

:func:`loss_interval` puts a bootstrap interval on a re-played loss: the re-play decides which
ruleset is best, and without an interval a designer cannot tell a real lead from noise.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from typing import Any

from fieldcraft.sim.stats import bootstrap_strata
from fieldcraft.sim.tune_space import Measure, Target

_ABSENT = "(absent)"
# Resamples of a loss interval: a tuning run makes a handful, each over a few hundred games.
LOSS_RESAMPLES = 1000


def effective_ruleset(ruleset: Any, players: int, key: str = "") -> Any:
    """``ruleset`` reduced to what differs at ``players`` players (see the module text)."""
    if isinstance(ruleset, dict):
        if ruleset and all(isinstance(k, str) and k.isdigit() for k in ruleset):
            value = ruleset.get(str(players), _ABSENT)
            return {"@players": effective_ruleset(value, players)}
        return {k: effective_ruleset(v, players, k) for k, v in ruleset.items()}
    if isinstance(ruleset, list):
        if key.endswith("_players") and ruleset and all(
                isinstance(v, int) and not isinstance(v, bool) for v in ruleset):
            return players in ruleset
        out = []
        for item in ruleset:
            joins = item.get("from") if isinstance(item, dict) else None
            if isinstance(joins, int) and not isinstance(joins, bool):
                if joins > players:
                    continue
                item = {k: v for k, v in item.items() if k != "from"}
            out.append(effective_ruleset(item, players))
        return out
    return ruleset


def effective_key(rulesets: dict[int, dict[str, Any]]) -> str:
    """sha256 (first 16 hex digits) of the effective rulesets of every player count played:
    equal keys mean the same games are played at every count."""
    doc = {str(p): effective_ruleset(r, p) for p, r in sorted(rulesets.items())}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def loss_interval(rows: Sequence[dict[str, Any]], counts: Sequence[int], target: Target,
                  seed: int = 0, resamples: int = LOSS_RESAMPLES
                  ) -> tuple[float, float, float] | None:
    """``target``'s loss over ``rows`` (one evaluation's games) with a 95% percentile-bootstrap
    interval, games resampled within each player count (:func:`stats.bootstrap_strata`).

    Sides are measured as :func:`tune_space.game_metrics` measures them (labels, or seats in a
    game without labels), so the value is the loss ``tune`` reports for the same rows.
    """
    import numpy as np

    per: list[tuple[int, dict[str, tuple[Any, Any]], Any]] = []
    for p in counts:
        games = [r for r in rows if r["players"] == p]
        labels = sorted({lab for r in games for lab in r["labels"] if lab is not None})
        sides: dict[str, tuple[Any, Any]] = {}
        if labels and not all(lab.startswith("seat ") for lab in labels):
            for lab in labels:
                sides[lab] = (np.array([lab in r["labels"] for r in games], dtype=float),
                              np.array([lab in (r["winning_labels"] or []) for r in games],
                                       dtype=float))
        else:
            for seat in range(p):
                sides[f"seat {seat}"] = (np.ones(len(games)), np.array(
                    [seat in r["winners"] for r in games], dtype=float))
        per.append((p, sides, np.array([r["length"] for r in games], dtype=float)))

    def stat(indices: list[Any]) -> Any:
        rates: list[dict[str, Any]] = []
        lengths = []
        for (_, sides, length), idx in zip(per, indices, strict=True):
            with np.errstate(invalid="ignore", divide="ignore"):
                rates.append({lab: won[idx].sum(axis=1) / played[idx].sum(axis=1)
                              for lab, (played, won) in sides.items()})
            lengths.append(length[idx].mean(axis=1))
        out = []
        for i in range(indices[0].shape[0]):
            measure: Measure = {"players": list(counts), "rates": {}, "gap": {},
                                "mean_length": {}}
            for (p, _, _), r, m in zip(per, rates, lengths, strict=True):
                row = {lab: float(v[i]) for lab, v in r.items() if math.isfinite(v[i])}
                measure["rates"][str(p)] = row
                measure["gap"][str(p)] = max(row.values()) - min(row.values()) \
                    if len(row) > 1 else 0.0
                measure["mean_length"][str(p)] = float(m[i])
            out.append(target.loss(measure))
        return out

    return bootstrap_strata(stat, [len(length) for _, _, length in per], seed, resamples)
