"""Undercover's game text: the events each reader is told, the final-scores summary and how
they read in English and Japanese (docs/game-text.md)."""

from __future__ import annotations

import random
import re

from fieldcraft.core import load_game
from fieldcraft.core.registry import game_spec
from fieldcraft.core.text import Text, game_messages
from fieldcraft.games.undercover.render import render
from tests.games.test_undercover import (
    five_tokens_state,
    new_state,
    piles_with_tops,
    play,
    purple_example_state,
)

SPEC = game_spec("undercover")


def text(lang: str, viewer: int | None) -> Text:
    return Text(game_messages(SPEC, lang), viewer, strict=True)


def event(state, words: str, seat):
    return state.log_event(state.string_to_action(words), seat)


def test_setup_is_one_line_with_the_readers_colour():
    game = load_game("undercover", players=2, starting_player="seat0")
    state = game.new_initial_state()
    seen = {0: [], 1: [], None: []}
    rng = random.Random(1)
    while state.is_chance_node():
        action = rng.choice(state.legal_actions())
        for seat in seen:
            e = state.log_event(action, seat)
            if e is not None:
                seen[seat].append(e)
        state.apply_action(action)
    assert [len(v) for v in seen.values()] == [1, 1, 1]
    mine = seen[0][0]
    colour = state.seat_label(0)
    assert mine["key"] == "setup" and mine["params"]["colour"] == colour
    assert seen[None][0]["key"] == "setup_watch" and "colour" not in seen[None][0]["params"]
    line = text("en", 0).event(mine)
    assert line.startswith(f"Setup: you play {colour}; your Opposite Side is ")
    assert "First to play: you." in line
    other = text("en", 1).event(seen[1][0])
    assert other.startswith("Setup: you play ") and "First to play: Seat 1." in other
    ja = text("ja", 0).event(mine)
    assert ja.startswith("準備：あなたの色は") and not re.search("[A-Za-z]{3,}", ja)


def test_a_turn_is_told_with_cells_as_the_board_labels_them():
    state = purple_example_state()  # seat 0 Purple; the Blue/Green Agent tops pile A
    draw = event(state, "draw top A", 3)
    assert draw == {"key": "draw", "params": {"seat": 0, "pile": "A", "colour": "Blue"}}
    assert text("en", 3).event(draw) == "Seat 1 draws the Blue Agent from pile A."
    assert text("en", 0).event(draw) == "You draw the Blue Agent from pile A."
    play(state, "draw top A")
    flip = event(state, "flip", None)
    assert flip["params"] == {"seat": 0, "colour": "Blue", "now": "Green"}
    assert text("ja", None).event(flip) == "1番席は青のエージェントを裏返した：正体は緑。"
    assert event(state, "keep", None) is None  # the placement line names the colour
    play(state, "flip")
    # Below the Blue Agent (20,17) and right of the Yellow HQ (19,18): a Green, a Blue and a
    # Yellow lane move.
    place = event(state, "place 20,18", 1)
    assert place["key"] in ("meet", "meet_token") and place["params"]["x"] == 20
    line = text("en", 1).event(place)
    assert line.startswith("Seat 1 places the Green Agent at U19; the meeting moves their "
                           "Staffers in ")
    assert "Green" in place["params"]["lanes"] and "Yellow" in place["params"]["lanes"]


def test_choice_labels_name_cells_in_letters_and_numbers():
    state = purple_example_state()
    play(state, "draw top A", "keep")
    choices = state.choices()
    labels = [text("en", 0).choice(c) for c in choices]
    # Right of the Blue Agent on cell 20,17 (column U, row 18): column V, row 18.
    assert choices[labels.index("Place it at V18")]["args"] == {"x": 21, "y": 17,
                                                                 "diagonal": False}
    ja = [text("ja", 0).choice(c) for c in choices]
    assert "V18に置く" in ja and not any(re.search("[A-Za-z]{3,}", s) for s in ja)


def test_a_sixth_token_starts_the_last_round_in_the_log_and_the_summary():
    state = five_tokens_state()  # seat 1 (Blue) holds five tokens
    play(state, "draw top A", "keep")
    place = event(state, "place 18,16", 0)
    assert place["key"] == "meet_token_last" and place["params"]["took"] == ["Blue"]
    assert place["params"]["why"] == "tokens"
    line = text("en", 1).event(place)
    assert line.startswith("You place the Blue Agent at S17; the meeting moves your Staffers "
                           "in Blue, and you take the Blue Point Token (")
    assert line.endswith("the game ends when this round is over.")
    play(state, "place 18,16")
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    summary = state.final_summary()
    assert [c["key"] for c in summary["columns"]] == ["colour", "score", "tokens", "tiebreak"]
    scores = state.outcome()["scores"]
    for row in summary["rows"]:
        assert row["values"]["score"] == scores[row["seat"]]
        assert row["values"]["tokens"] == state.ntaken[row["seat"]]
        assert row["winner"] == (row["seat"] in state.winners())
    assert summary["rows"][1]["values"]["colour"] == "Blue"
    reason = summary["reason"]
    assert reason["key"] == "tokens" and reason["params"]["trigger"] == [1]
    en = text("en", None).render("end", reason["key"], reason["params"])
    assert en == (f"The game ended when Seat 2 reached 6 Point Tokens and the round was played "
                  f"out. Most points ({scores[1]}): Seat 2.")
    ja = text("ja", 1).render("end", reason["key"], reason["params"])
    assert ja == (f"あなたの得点トークンが6枚に達し、そのラウンドの終わりでゲーム終了。"
                  f"最多得点（{scores[1]}点）：あなた。")


def test_a_bottom_draw_names_the_agent_only_as_it_shows_to_all():
    state = new_state(2, ["Purple", "Blue"], piles=piles_with_tops(
        "Yellow/Green", "Yellow/Orange", bottom_a="Green/Blue"))
    # Both tops show Yellow, Purple's Opposite Side, and there is no Joker with 2 players:
    # only the bottoms are left, and nobody has seen them.
    assert state.legal_actions() == [state.string_to_action("draw bottom A"),
                                     state.string_to_action("draw bottom B")]
    bottom = event(state, "draw bottom A", 1)
    assert bottom["key"] == "draw_bottom" and bottom["params"]["colour"] == "Green"
    assert "agent" not in bottom["params"]  # never which twin it is


def test_render_speaks_the_readers_language_with_a_legend():
    state = purple_example_state()
    play(state, "draw top A")
    en = render(state.observation(0), Text(game_messages(SPEC, "en"), 0))
    assert "Legend:" in en and "Opposite Side" in en and "you:" in en
    assert "Y = Yellow" in re.sub(r"\[[^\]]*\]", "", en)
    ja = render(state.observation(0), Text(game_messages(SPEC, "ja"), 0))
    assert "凡例" in ja and "宿敵" in ja and "情報トラック" in ja
    # no English word outside the markup, the grid and the track (one ASCII letter a colour)
    plain = re.sub(r"\[[^\]]*\]", "", ja)
    plain = plain[plain.index("凡例"):]
    assert not re.search("[A-Za-z]{3,}", plain), plain
