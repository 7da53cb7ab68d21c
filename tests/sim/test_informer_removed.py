"""Under Current's ``informer_removal`` seen in play: a retired Informer's colour leaves the row
at scoring, the outcome counts the cards it took (``informer_removed``), a study row keeps the
count and "rules in play" shares the games where it happened (issue #33, item 5)."""

from __future__ import annotations

from typing import Any

import pytest

from fieldcraft.core.registry import load_game
from fieldcraft.sim.actions import OUTCOME_RULES, rules_in_play
from fieldcraft.sim.simulate import play_game
from fieldcraft.sim.study import _row, study_seed
from tests.games.test_under_current import HANDS_5, ROLES_5, act, put_in_row, setup

ROW = ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Red/DROP", "Red/FETCH"]


def _retire(seat: int, faction: str, row: list[str] = ROW, **rules: Any) -> Any:
    """The 5-player set-up (seat 3 Blue Informer, seat 1 Red Chief) with ``row`` in the row,
    ended by a right RETIRE of ``seat`` as ``faction``."""
    s = setup(5, ROLES_5, HANDS_5, **rules)
    put_in_row(s, row)
    act(s, "pass Blue/RETIRE to seat 1", "use", f"retire seat {seat} as {faction}")
    assert s.is_terminal() and s.eliminated == seat
    return s


def test_a_retired_informer_with_its_colour_in_the_row_is_counted() -> None:
    s = _retire(3, "Blue")
    assert s.outcome()["informer_removed"] == 3  # the three Blue cards of ROW
    assert s.outcome()["row"]["Blue"] == 0


@pytest.mark.parametrize(("seat", "faction", "row", "rules"), [
    (3, "Blue", ROW, {"informer_removal": False}),  # the rule is off: the cards stay
    (1, "Red", ROW, {}),  # the Red Chief, not an Informer: its colour stays
    (3, "Blue", ["Red/DROP", "Red/FETCH"], {}),  # an Informer with no card of its colour
])
def test_no_removal_is_counted_as_none(seat: int, faction: str, row: list[str],
                                       rules: dict[str, Any]) -> None:
    s = _retire(seat, faction, row, **rules)
    assert s.outcome()["informer_removed"] == 0


def test_a_state_saved_before_the_count_existed_loads_with_none() -> None:
    s = setup(5, ROLES_5, HANDS_5)
    doc = s.to_dict()
    del doc["state"]["informer_removed"]
    loaded = s.game.state_from_json(doc)
    assert loaded.informer_removed == 0 and loaded.to_dict() == s.to_dict()


def _expected(game: Any, history: list[int]) -> int:
    """The cards the eliminated seat's colour had in the row just before the RETIRE that
    eliminated it (scoring follows at once; Green declarations may come after), if that seat
    is an Informer and the rule is on: worked out from the positions, not from the count under
    test."""
    state = game.new_initial_state()
    for action in history:
        row = list(state.row)
        state.apply_action(action)
        if state.eliminated >= 0:
            break
    else:
        return 0
    role = state.roles[state.eliminated]
    if not game.informer_removal or game.role_rank[role] != "Informer":
        return 0
    return sum(game.card_colour[c] == game.role_faction[role] for c in row)


def test_seeded_games_record_the_removal_and_rules_in_play_counts_them() -> None:
    """Thirty seeded 5-player random games: every game's count matches the position before
    its last move; some games have a removal and some retire games none; "rules in play"
    shares exactly the games with a removal."""
    game = load_game("under-current", players=5)
    rows = []
    for k in range(30):
        seed = study_seed(0, 5, k)
        row = _row(game, "under-current", 5, k, seed, ["random"] * 5, "")
        state = play_game(game, ["random"] * 5, seed, trusted=True)  # the row's game again
        assert len(state.history()) == row["length"] and state.winners() == row["winners"]
        assert row["outcome_counts"] == {"informer_removed": _expected(game, state.history())}
        rows.append(row)
    removed = [r for r in rows if r["outcome_counts"]["informer_removed"] > 0]
    retired_only = [r for r in rows if r["ending"] == "retire" and r not in removed]
    assert removed and retired_only  # both kinds are in the sample
    rules = {"5": game.ruleset}
    found = rules_in_play("under-current", rows, rules)[5]["informer_removal"]
    assert found == {"games": len(removed), "of": 30, "share": len(removed) / 30,
                     "seen_as": OUTCOME_RULES[("under-current", "informer_removal")][1]}
    # without the rule, the same deals record no removal
    off = load_game("under-current", players=5, informer_removal=False)
    rows_off = [_row(off, "under-current", 5, r["index"], r["seed"], ["random"] * 5, "")
                for r in removed]
    assert all(r["outcome_counts"] == {"informer_removed": 0} for r in rows_off)
    counted = rules_in_play("under-current", rows_off, {"5": off.ruleset})[5]
    assert counted["informer_removal"]["games"] == 0


def test_a_study_keeps_the_count_and_its_report_names_the_rule(tmp_path: Any) -> None:
    """Through the parquet file and back: the rows keep the counts, ``study.json`` and the
    report's "rules in play" table (its section, without the slow charts) name the rule with
    what it was seen as."""
    pytest.importorskip("pyarrow")
    from fieldcraft.sim.actions import section
    from fieldcraft.sim.metrics import MetricsOptions
    from fieldcraft.sim.study import load_results, run_study

    out = tmp_path / "uc"
    run_study("under-current", [5], "random", 30, 0, {}, 1, out,
              metrics=MetricsOptions(samples=0))
    rows, meta = load_results(out)
    game = load_game("under-current", players=5)
    again = [_row(game, "under-current", 5, k, study_seed(0, 5, k), ["random"] * 5, "")
             for k in range(30)]
    assert [r["outcome_counts"] for r in rows] == [r["outcome_counts"] for r in again]
    n = sum(r["outcome_counts"]["informer_removed"] > 0 for r in again)
    assert n > 0
    assert meta["rules_in_play"]["5"]["informer_removal"]["games"] == n
    text = "\n".join(section({}, rules_in_play("under-current", rows, {"5": game.ruleset})))
    assert f"| `informer_removal` | 5 | {n} | 30 | {100 * n / 30:.0f}% | an Informer's colour " \
        "removed |" in text
