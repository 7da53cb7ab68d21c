"""What people do with the rules: how often each kind of action is played, by winners and losers.

A balance table says who wins; this one says how they played. Every decision of a finished game
is classified through the game's notation (:meth:`Notation.choice` gives ``(kind, args)``), never
by reading its English label, so the table needs nothing from a game beyond what its boards
already use. Each decision counts under its kind (``bid``, ``pass``, ``place``) and, when one of
its args names a thing of the game (a card, a role, a terrain, a colour...), also under
``kind · thing``: "which cards get passed" is usually the question a designer has.

The tally is made once per game when it is played (:func:`tally`, from the game's action list
replayed on a fresh state; chance outcomes are skipped, they are nobody's choice) and kept in the
study row as counts per seat, so a report splits them by winners and losers without replaying
anything. :func:`summary` adds the rows up per player count; :func:`rules_in_play` says, for the
ruleset keys it can tie to something visible, in what share of games that rule came into play.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from fieldcraft.core.api import Game

# Choice args whose string value names a thing of the game worth counting on its own. Positions
# (x, y, space, seat, count) are left out on purpose: a table per board cell says nothing.
NAMING_ARGS = ("card", "role", "terrain", "animal", "boost", "pressure", "attribute", "colour",
               "faction", "event", "effect", "marker", "agent", "informer")

# Separator between an action's kind and the thing it names, in table keys.
SEP = " · "

# Ruleset keys tied to an action kind whose play shows the rule came into play (a few clear
# cases, declared here since the games do not say it themselves): (game, key) -> action keys.
RULE_ACTIONS: dict[tuple[str, str], tuple[str, ...]] = {
    # The Green players name the Informers only under this rule, whoever the naming helps.
    ("under-current", "green_declaration"): ("name",),
    ("spy-tracker", "bidder_chooses_next"): ("next",),
    ("spy-tracker", "spot_points"): ("spot",),
    ("undercover", "jokers_per_player"): ("joker",),
    ("undercover", "flip_steps"): ("flip",),
    ("against-the-current", "echolocation_change"): (f"boost{SEP}Echolocation",),
    ("against-the-current", "migration_burst_spaces"): (f"boost{SEP}Migration Burst",),
    ("against-the-current", "event_deck"): ("attempt",),
    # A Pressure ability places the terrain this key gives each animal.
    ("against-the-current", "pressure_terrain"): ("pressure",),
}

# Ruleset keys whose coming into play only the end of a game shows, as a count the game's
# outcome reports (0: it did not): (game, key) -> (outcome key, what the report calls it). The
# study keeps these counts in its row (``outcome_counts``, :func:`outcome_counts`).
OUTCOME_RULES: dict[tuple[str, str], tuple[str, str]] = {
    # A retired Informer takes its colour's cards out of the row when scoring starts.
    ("under-current", "informer_removal"): ("informer_removed", "an Informer's colour removed"),
}

SeatTally = dict[str, int]


def outcome_counts(game: str, outcome: dict[str, Any]) -> dict[str, int] | None:
    """The counts of ``outcome`` that :data:`OUTCOME_RULES` reads for ``game`` (``None``: the
    game has none), for a study's row."""
    keys = [okey for (name, _), (okey, _) in OUTCOME_RULES.items() if name == game]
    if not keys:
        return None
    return {k: int(outcome[k]) for k in keys if isinstance(outcome.get(k), int)}


def classify(kind: str, args: dict[str, Any]) -> list[str]:
    """The table keys one decision counts under: its kind, and ``kind · thing`` for the first
    arg that names a thing (one per decision, so the detailed rows of a kind sum to at most
    the kind's row)."""
    keys = [kind]
    for name in NAMING_ARGS:
        value = args.get(name)
        if isinstance(value, str) and value:
            keys.append(f"{kind}{SEP}{value}")
            break
    return keys


def tally(game: Game, actions: Iterable[int], trusted: bool = False) -> list[SeatTally]:
    """Counts per seat of every decision in ``actions`` (a whole game's action list, chance
    outcomes included), by the keys of :func:`classify`. The list is replayed on a fresh state
    because a choice is only named with the state before it in hand. ``trusted`` skips the
    legality check, for a list the engine itself just played (as :func:`play_game` does)."""
    notation = game.notation
    counts: list[Counter[str]] = [Counter() for _ in range(game.num_players)]
    state = game.new_initial_state()
    apply = state._apply if trusted else state.apply_action
    for action in actions:
        player = state.current_player()
        if player >= 0:
            kind, args = notation.choice(state, int(action))
            counts[player].update(classify(kind, args))
        apply(int(action))
    return [dict(sorted(c.items())) for c in counts]


def summary(rows: Sequence[dict[str, Any]]) -> dict[int, dict[str, dict[str, Any]]]:
    """Per player count, per action key: plays in all, by winning and by losing seats, the
    winners' and losers' plays per seat-game (their numbers of seats differ, so raw counts
    would not compare), and the share of games where it was played at all.

    Rows without an ``actions`` tally (studies written before it existed) are skipped.
    """
    plays: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    seat_games: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # winner, loser seat-games
    games: Counter[int] = Counter()
    for row in rows:
        seats = row.get("actions")
        if not seats:
            continue
        p = row["players"]
        games[p] += 1
        winners = set(row["winners"])
        seen: set[str] = set()
        for seat, counts in enumerate(seats):
            won = seat in winners
            seat_games[p][0 if won else 1] += 1
            for key, n in counts.items():
                cell = plays[p][key]
                cell[0 if won else 1] += n
                if key not in seen:
                    seen.add(key)
                    cell[2] += 1
    out: dict[int, dict[str, dict[str, Any]]] = {}
    for p in sorted(plays):
        wsg, lsg = seat_games[p]
        out[p] = {key: {"total": w + lo, "winners": w, "losers": lo,
                        "per_winner": w / wsg if wsg else None,
                        "per_loser": lo / lsg if lsg else None,
                        "games": g, "game_share": g / games[p]}
                  for key, (w, lo, g) in sorted(plays[p].items())}
    return out


def rules_in_play(game: str, rows: Sequence[dict[str, Any]],
                  rulesets: dict[str, dict[str, Any]]) -> dict[int, dict[str, dict[str, Any]]]:
    """Per player count, per ruleset key the engine can tie to something seen in play: the share
    of games in which that rule came into play.

    Three sources, all read from what the games record rather than from English: a key the
    outcome names as how the game ended or was decided (``decided_by: green_declaration``), the
    actions :data:`RULE_ACTIONS` ties to a key, and the outcome counts :data:`OUTCOME_RULES`
    ties to one (rows without them, from older studies, are left out of that share). Only keys
    of the resolved ruleset count. "Came into play" is not a counterfactual: a game where a
    joker was taken might have gone the same way without it, so this bounds from above the
    share where the rule changed the result.
    """
    by_count: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_count[row["players"]].append(row)
    out: dict[int, dict[str, dict[str, Any]]] = {}
    for p, games in sorted(by_count.items()):
        keys = set(rulesets.get(str(p), {}))
        found: dict[str, dict[str, Any]] = {}
        decided = Counter(k for r in games for k in {r.get("ending"), r.get("decided_by")}
                          if k in keys)
        for key, n in sorted(decided.items()):
            found[key] = {"games": n, "of": len(games), "share": n / len(games),
                          "seen_as": "how the game ended"}
        tallied = [r for r in games if r.get("actions")]
        for (name, key), kinds in RULE_ACTIONS.items():
            if name != game or key not in keys or not tallied:
                continue
            n = sum(any(k in seat for seat in r["actions"] for k in kinds) for r in tallied)
            found[key] = {"games": n, "of": len(tallied), "share": n / len(tallied),
                          "seen_as": "played: " + ", ".join(kinds)}
        counted = [r for r in games if r.get("outcome_counts") is not None]
        for (name, key), (okey, seen) in OUTCOME_RULES.items():
            if name != game or key not in keys or not counted:
                continue
            n = sum(r["outcome_counts"].get(okey, 0) > 0 for r in counted)
            found[key] = {"games": n, "of": len(counted), "share": n / len(counted),
                          "seen_as": seen}
        if found:
            out[p] = dict(sorted(found.items()))
    return out


def section(table: dict[int, dict[str, dict[str, Any]]], in_play: dict[int, dict[str, Any]]
            ) -> list[str]:
    """The report's Markdown lines for the action table and the rules in play."""
    def num(x: float | None) -> str:
        return "–" if x is None else f"{x:.2f}"

    body = [[f"`{key}`", str(p), str(c["total"]),
             str(c["winners"]), str(c["losers"]), num(c["per_winner"]), num(c["per_loser"]),
             f"{100 * c['game_share']:.0f}%"]
            for p, keys in table.items() for key, c in keys.items()]
    head = ["action", "players", "plays", "by winners", "by losers", "per winner-seat",
            "per loser-seat", "games played in"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    lines += ["", f"Decisions by kind, and by kind{SEP}card, role, terrain or colour where the "
                  "game's notation names one (chance is left out). Per winner-seat and per "
                  "loser-seat divide by how many winning or losing seats there were, so the "
                  "two compare even though losers outnumber winners."]
    if in_play:
        lines += ["", "Rules in play (the share of games where a rule visibly came into play; "
                      "an upper bound on where it changed the result):", ""]
        head = ["rule", "players", "games", "of", "share", "seen as"]
        lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += [f"| `{key}` | {p} | {c['games']} | {c['of']} | {100 * c['share']:.0f}% | "
                  f"{c['seen_as']} |" for p, keys in in_play.items() for key, c in keys.items()]
    return lines
