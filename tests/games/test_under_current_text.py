"""Under Current's game text: what each reader's log line says, the setup line, the end screen.

Positions are built with the rule tests' helpers (chosen chance outcomes), and the lines are
rendered with :class:`~fieldcraft.core.text.Text` from the game's own catalogues, so a wrong
parameter or a leaked card shows up as words.
"""

from __future__ import annotations

import re

from fieldcraft import load_game
from fieldcraft.core.registry import game_spec
from fieldcraft.core.text import Text, game_messages
from fieldcraft.games.under_current.render import render
from tests.games.test_under_current import HANDS_5, ROLES_5, act, put_in_row, setup

SPEC = game_spec("under-current")


def text(lang: str, seat: int | None) -> Text:
    return Text(game_messages(SPEC, lang), seat, strict=True)


def markup_free(rich: str) -> str:
    return re.sub(r"\[/?[a-z ]*\]", "", rich)


def told(state, action: str, seat: int | None, lang: str = "en") -> str:
    """The line ``seat`` reads when ``action`` is played (not applied)."""
    a = state.string_to_action(action)
    event = state.log_event(a, seat)
    return text(lang, seat).event(event) if event else ""


def test_a_passed_card_is_named_to_its_two_handlers_only():
    s = setup(5, ROLES_5, HANDS_5)
    card = s.game.card_names[s.hands[0][0]]
    action = f"pass {card} to seat 2"
    assert told(s, action, 0) == "You pass Blue RETIRE to Seat 3."
    assert told(s, action, 2) == "Seat 1 passes Blue RETIRE to you."
    for seat in (1, 3, None):
        assert told(s, action, seat) == "Seat 1 passes a card to Seat 3."
        event = s.log_event(s.string_to_action(action), seat)
        assert "card" not in event["params"]
    assert told(s, action, 2, "ja") == "1番席が青／引退をあなたに渡しました。"
    act(s, action)
    # filing it: the receiver and the passer know which card went into slot 1
    assert told(s, "file", 2) == "You file the Blue RETIRE from Seat 1 face down in slot 1."
    assert told(s, "file", 0) == "Seat 3 files the Blue RETIRE from you face down in slot 1."
    assert told(s, "file", 4) == "Seat 3 files the card from Seat 1 face down in slot 1."


def test_setup_is_one_line_per_reader_with_what_it_was_dealt():
    game = load_game("under-current", players=4)
    state = game.new_initial_state()
    lines: dict[int | None, list[str]] = {seat: [] for seat in (0, 1, 2, 3, None)}
    while state.phase_name != "pass":
        action = state.legal_actions()[0]
        for seat, out in lines.items():
            event = state.log_event(action, seat)
            if event:
                out.append(text("en", seat).event(event))
        state.apply_action(action)
    assert all(len(out) == 1 for out in lines.values()), lines
    start = state.start_seat
    for seat in range(4):
        obs = state.observation(seat)
        line = lines[seat][0]
        assert line.startswith("You are the ")
        assert game_messages(SPEC, "en")[f"role.{obs['role']}"] in line
        for card in obs["hand"]:
            assert game_messages(SPEC, "en")[f"card.{card}"] in line
        assert ("Identity check" in line) == (obs["identity_confirmation"] is not None)
        # the starting seat reads "first to play: you", never "you starts"
        who = "you" if seat == start else f"Seat {start + 1}"
        assert line.endswith(f"irst to play: {who}."), line
    assert lines[None] == [f"Role cards and hands are dealt; first to play: Seat {start + 1}."]


def test_scan_and_spy_show_the_active_seat_only():
    s = setup(5, ROLES_5, [["Blue/SCAN", "Blue/RETIRE"], *HANDS_5[1:]])
    act(s, "pass Blue/SCAN to seat 1", "use")
    target = sorted(s.game.card_names[c] for c in s.hands[3])
    line = told(s, "scan seat 3", 0)
    assert line.startswith("You see every card Seat 4 holds: ")
    assert all(game_messages(SPEC, "en")[f"card.{c}"] in line for c in target)
    assert told(s, "scan seat 3", 3) == "Seat 1 sees every card in your hand."
    assert told(s, "scan seat 3", None) == "Seat 1 sees every card Seat 4 holds."


def test_the_reason_names_the_rule_and_its_numbers_in_every_language():
    """The rulebook's example: 4 Blue, 5 Red, 2 Yellow; one Yellow evens them."""
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Blue/SWAP", "Blue/DROP", "Blue/SNATCH", "Blue/FETCH",
                   "Red/DROP", "Red/SNATCH", "Red/FETCH", "Red/BURN",
                   "Red/RETIRE", "Yellow/SWAP", "Yellow/FLIP"])
    assert told(s, "pass Blue/RETIRE to seat 1", 3) == "Seat 1 passes a card to Seat 2."
    act(s, "pass Blue/RETIRE to seat 1", "use")
    assert told(s, "retire seat 1 as Red", 0) == \
        "You name Seat 2 as Red: right. Seat 2 is out and the game ends."
    act(s, "retire seat 1 as Red")
    summary = s.final_summary()
    reason = summary["reason"]
    assert reason["key"] == "yellow_balance"
    assert text("en", None).render("end", reason["key"], reason["params"]) == \
        "Yellow wins: 4 Blue + 1 Yellow = 5 Red."
    assert text("ja", None).render("end", reason["key"], reason["params"]) == \
        "黄陣営の勝利：青 4 枚 + 黄 1 枚 = 赤 5 枚。"
    assert [row["values"] for row in summary["rows"]] == [
        {"role": "Blue Chief", "faction": "Blue", "row": 4},
        {"role": "Red Chief", "faction": "Red", "row": 5},
        {"role": "Yellow Agent", "faction": "Yellow", "row": 2},
        {"role": "Blue Informer", "faction": "Blue", "row": 4},
        {"role": "Red Informer", "faction": "Red", "row": 5}]
    assert [row["winner"] for row in summary["rows"]] == [False, False, True, False, False]


def test_nobody_wins_names_the_faction_that_had_the_balance():
    roles = ["Blue Chief", "Red Chief", "Blue Informer", "Green Agent", "Red Informer",
             "Yellow Agent"]  # Yellow sits in the reserve
    s = setup(5, roles, HANDS_5)
    put_in_row(s, ["Blue/DROP", "Red/DROP"])
    act(s, "pass Blue/RETIRE to seat 1", "use", "retire seat 1 as Red")
    assert told(s, "name seat 4 as Red Informer", 3) == \
        "You (Green) name Seat 5 as the Red Informer."
    act(s, "name seat 4 as Red Informer", "name seat 1 as Blue Informer")
    reason = s.final_summary()["reason"]
    assert text("en", 0).render("end", reason["key"], reason["params"]) == \
        "Nobody wins: 1 Blue = 1 Red gives Yellow the balance, but no seated player is Yellow."
    ja = text("ja", 0).render("end", reason["key"], reason["params"])
    assert ja.startswith("勝者なし") and "黄" in ja and not re.search("[A-Za-z]{3,}", ja)


def test_the_terminal_picture_speaks_the_readers_language():
    s = setup(5, ROLES_5, HANDS_5)
    put_in_row(s, ["Red/DROP"], face_up=False)
    english = markup_free(render(s.observation(0)))
    assert "Slot 1: ▒▒ Face down" in english and "Central File Row" in english
    japanese = markup_free(render(s.observation(0), text("ja", 0)))
    assert "中央ファイル列" in japanese and "1 番目: ▒▒ 裏向き" in japanese
    plain = japanese
    assert not re.search("[A-Za-z]{3,}", plain), plain
