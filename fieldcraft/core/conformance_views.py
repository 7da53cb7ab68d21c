"""The conformance checks of what a seat is told: observations, resampling, tensors and the
game's text in every language (registered in :data:`fieldcraft.core.checklist.CHECKS` after
the rules checks of :mod:`fieldcraft.core.conformance`)."""

from __future__ import annotations

import json
import math
import random
import re
from typing import Any

from fieldcraft.core.api import Game, State
from fieldcraft.core.checklist import _points, _step, check
from fieldcraft.core.spec import IMPERFECT_INFORMATION


def _hidden_fields(state: State) -> dict[str, Any]:
    """State fields without the action list (a resample keeps the list it was made from)."""
    return {k: v for k, v in state.to_dict()["state"].items() if k not in ("actions", "history")}


# -- views and resampling -----------------------------------------------------------------------
@check
def observations_are_the_declared_pieces(game: Game) -> None:
    """Every observation is JSON and has only the keys its observer declares, and every one of
    them that is not optional (a seat's own pieces only in a seat's view), so nothing
    unannounced reaches a table."""
    observer = game.observer
    seats = [None, *range(game.num_players)]
    allowed = {seat: set(observer.piece_names(seat)) for seat in seats}
    required = {seat: set(observer.piece_names(seat, required=True)) for seat in seats}
    for state, _ in _points(game, 12, 2, games=2, decisions_only=False):
        for seat in seats:
            view = state.observation(seat)
            assert json.loads(json.dumps(view)) == view
            keys = set(view)
            assert keys <= allowed[seat], ("undeclared pieces", seat, keys - allowed[seat])
            assert keys >= required[seat], ("missing pieces", seat, required[seat] - keys)


@check
def resample_hides_only_hidden_information(game: Game) -> None:
    """For each seat, resampling must keep that seat's observation identical, give a playable
    state, and over a game actually vary the hidden information."""
    rng = random.Random(7)
    varied = [0] * game.num_players
    decisions = [0] * game.num_players
    for state, _ in _points(game, 7, 3):
        truth = _hidden_fields(state)
        for seat in range(game.num_players):
            view = state.observation(seat)
            decisions[seat] += 1
            sample = state
            for _ in range(3):
                sample = state.resample(seat, rng)
                assert sample.observation(seat) == view, f"resample({seat}) changed its view"
                assert sample.current_player() == state.current_player()
                sample.check_invariants()
                if _hidden_fields(sample) != truth:
                    varied[seat] += 1
            steps = 0
            while not sample.is_terminal() and steps < 200:
                sample.apply_action(_step(sample, rng))
                steps += 1
    for seat in range(game.num_players):
        assert decisions[seat] > 0
        if game.game_type.information == IMPERFECT_INFORMATION:
            assert varied[seat] > 0, f"resample({seat}) never changed any hidden information"


@check
def resampler_draws_what_resample_draws(game: Game) -> None:
    """Search draws through ``resampler``; a game that prepares it once per position must not
    drift from ``resample`` (same seed, same sample, field for field, history included)."""
    checked = 0
    for state, step in _points(game, 10, 3):
        seat = state.current_player()
        draw = state.resampler(seat)
        for k in range(2):
            a = draw(random.Random(step * 7 + k))
            b = state.resample(seat, random.Random(step * 7 + k))
            assert a.to_dict() == b.to_dict()
            checked += 1
    assert checked > 0


@check
def informed_draws_are_states_the_seat_cannot_tell_apart(game: Game) -> None:
    """Where a game weighs its resamples by the other seats' play (``informed_resampler``),
    each draw must still be a whole state the seat could be in: its view and its choices kept,
    the rules' invariants held. How the draws are weighted is the game's model; that they are
    worlds the seat cannot rule out is not."""
    for state, step in _points(game, 10, 5):
        seat = state.current_player()
        draw = state.informed_resampler(seat)
        if draw is None:
            continue
        view, legal = state.observation(seat), state.legal_actions()
        for k in range(2):
            world = draw(random.Random(step * 5 + k))
            world.check_invariants()
            assert world.observation(seat) == view
            assert world.legal_actions() == legal
        assert state.observation(seat) == view  # drawing leaves the real state alone


@check
def resample_depends_only_on_what_the_seat_knows(game: Game) -> None:
    """Two states a seat cannot tell apart must resample identically for the same seed; this
    is what makes a searching bot decide alike in both (it cannot peek at hidden cards)."""
    rng = random.Random(8)
    checked = 0
    for state, step in _points(game, 8, 4):
        seat = state.current_player()
        twin = state.resample(seat, rng)
        a = state.resample(seat, random.Random(step))
        b = twin.resample(seat, random.Random(step))
        assert _hidden_fields(a) == _hidden_fields(b)
        checked += 1
    assert checked > 0


@check
def tensors_encode_exactly_the_view(game: Game) -> None:
    """The observation tensor has the size its planes declare, holds finite numbers, is a
    function of the seat's observation (two points with one view, one tensor) and loses none
    of it (two views that differ in an encoded piece, two tensors), so a learner sees exactly
    what a player sees: a stub of zeros and a tensor that drops the hand both fail."""
    observer = game.observer
    planes = observer.planes()
    assert planes and len({p.name for p in planes}) == len(planes), "planes need unique names"
    size = observer.tensor_size()
    assert size > 0
    encoded = [p.name for p in observer.pieces if p.tensor]
    for seat in range(game.num_players):
        by_view: dict[str, tuple[float, ...]] = {}
        by_tensor: dict[tuple[float, ...], str] = {}
        for state, step in _points(game, 13 + seat, 2, games=2, decisions_only=False):
            tensor = observer.tensor(state, seat)
            assert len(tensor) == size, (step, len(tensor), size)
            for x in tensor:
                assert isinstance(x, (int, float)) and math.isfinite(x), (step, x)
            view = state.observation(seat)
            key = json.dumps({k: view.get(k) for k in encoded}, sort_keys=True)
            t = tuple(tensor)
            assert by_view.setdefault(key, t) == t, f"seat {seat}: one view, two tensors"
            other = by_tensor.setdefault(t, key)
            if other != key:
                a, b = json.loads(other), json.loads(key)
                lost = sorted(k for k in encoded if a.get(k) != b.get(k))
                raise AssertionError(f"seat {seat}: the tensor loses {lost}")
        assert len(by_tensor) > 1, f"seat {seat}: the tensor never changes"


@check
def tensors_hide_what_the_view_hides(game: Game) -> None:
    """A resample keeps the seat's view, so it must keep the seat's tensor: a tensor read from
    a hidden hand differs and is caught."""
    rng = random.Random(11)
    observer = game.observer
    checked = 0
    for state, _ in _points(game, 11, 3):
        for seat in range(game.num_players):
            truth = observer.tensor(state, seat)
            for _ in range(2):
                assert observer.tensor(state.resample(seat, rng), seat) == truth, (
                    f"resample({seat}) changed its tensor")
                checked += 1
    assert checked > 0


# -- running ---------------------------------------------------------------------------------------
_ENGLISH = re.compile(r"[A-Za-z]{3,}")


@check
def game_text_is_in_every_language(game: Game) -> None:
    """Every log event any reader is told, every choice label and the end screen render from
    the game's own catalogue in every language with no key or parameter missing, and Japanese
    and Chinese text holds no English word: a page never falls back to the engine's English."""
    from fieldcraft.core.text import MissingText

    try:
        _render_all_text(game)
    except MissingText as exc:
        raise AssertionError(f"a catalogue lacks {exc}") from None


def _render_all_text(game: Game) -> None:
    from fieldcraft.core.registry import game_spec
    from fieldcraft.core.text import LANGUAGES, Text, game_messages

    spec = game_spec(game.name)
    readers = [None, *range(game.num_players)]
    texts = {lang: {seat: Text(game_messages(spec, lang), seat, strict=True) for seat in readers}
             for lang in LANGUAGES}

    def said(lang: str, what: str, where: Any) -> None:
        if lang != "en" and _ENGLISH.search(what):
            raise AssertionError(f"English in {lang} text {what!r} ({where})")

    events = choices = 0
    for state, _ in _points(game, 23, 2, games=2, decisions_only=False):
        if state.is_terminal():
            summary = state.final_summary()
            assert summary is not None, "a finished game has a final-scores summary"
            assert json.loads(json.dumps(summary)) == summary
            assert [row["seat"] for row in summary["rows"]] == list(range(game.num_players))
            assert {s for s, row in enumerate(summary["rows"]) if row["winner"]} == \
                set(state.winners())
            for lang, by_seat in texts.items():
                text = by_seat[None]
                said(lang, text.render("end", summary["reason"]["key"],
                                       summary["reason"]["params"]), "end")
                for column in summary["columns"]:
                    said(lang, text.lookup(f"col.{column['key']}"), "column")
                    for row in summary["rows"]:
                        value = row["values"].get(column["key"])
                        if column.get("ns") and value is not None:
                            said(lang, text.name(column["ns"], value), column["key"])
            continue
        assert state.final_summary() is None
        action = _step(state, random.Random(state.ply() or 0))
        for seat in readers:
            event = state.log_event(action, seat)
            if event is None:
                continue
            assert json.loads(json.dumps(event)) == event
            events += 1
            for lang, by_seat in texts.items():
                said(lang, by_seat[seat].event(event), event)
        if not state.is_chance_node():
            for choice in state.choices():
                choices += 1
                for lang, by_seat in texts.items():
                    said(lang, by_seat[state.current_player()].choice(choice), choice)
    assert events and choices, "no event or choice was rendered"
