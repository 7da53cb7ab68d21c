"""Planted faults: the conformance suite must fail each of them, and pass the sound game.

Each case takes Spy Tracker at three players, plants one fault of the kind a new game could
have (a view that leaks, a clone that shares a list, a rejected action that still changes the
state, a bound that is not true...) and checks that the named check fails it. A suite that
passed a stub or a leak would be worth nothing; this is what shows it does not.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import pytest

from fieldcraft.core import load_game
from fieldcraft.core.conformance import CHECKS, check_game
from fieldcraft.games.spy_tracker.notation import SpyTrackerNotation
from fieldcraft.games.spy_tracker.rules import CALL, SpyTrackerState
from fieldcraft.games.spy_tracker.search import SpyTrackerSearch
from fieldcraft.games.spy_tracker.view import SpyTrackerView


def sound() -> Any:
    return load_game("spy-tracker", players=3)


# -- the faults ------------------------------------------------------------------------------------
class LeakyView(SpyTrackerView):
    """Shows every seat's hand under a declared key."""

    def observation(self, state: Any, seat: int | None) -> dict[str, Any]:
        obs = super().observation(state, seat)
        obs["hand_sizes"] = [h[:] for h in state.hands]
        return obs


class ChattyView(SpyTrackerView):
    """Sends a key its observer never declared."""

    def observation(self, state: Any, seat: int | None) -> dict[str, Any]:
        obs = super().observation(state, seat)
        obs["debug_pool_size"] = len(state.pool)
        return obs


class PeekingTensor(SpyTrackerView):
    """Writes the next seat's hand into the viewer's hand plane."""

    def tensor(self, state: Any, seat: int) -> list[float]:
        t = super().tensor(state, seat)
        at = self._offsets["hand"]
        for card in state.hands[(seat + 1) % self.game.num_players]:
            t[at + card] += 0.5
        return t


class ForgetfulTensor(SpyTrackerView):
    """Leaves the seat's own hand out of its tensor."""

    def tensor(self, state: Any, seat: int) -> list[float]:
        t = super().tensor(state, seat)
        at = self._offsets["hand"]
        t[at:at + self.game.num_cards] = [0.0] * self.game.num_cards
        return t


class SharingState(SpyTrackerState):
    """A hand-written clone that forgets to copy the hands."""

    def clone(self) -> SpyTrackerState:
        new = SpyTrackerState.clone(self)
        new.hands = self.hands
        return new


class UnclonedFieldState(SpyTrackerState):
    """Adds a field, and a clone of its own that copies every field but that one."""

    seen: list[int]

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.seen = []

    def clone(self) -> UnclonedFieldState:
        twin = type(self).__new__(type(self))
        twin.game = self.game
        for name in SpyTrackerState._fields:
            value = getattr(self, name)
            setattr(twin, name, copy.deepcopy(value) if isinstance(value, list) else value)
        return twin


class LaxState(SpyTrackerState):
    """Accepts a call before anyone has bid."""

    def _is_legal(self, action: int) -> bool:
        return action == CALL or super()._is_legal(action)

    def _apply(self, action: int) -> None:
        if action == CALL and self.bid_count < 0:
            self.actions.append(action)
            return
        super()._apply(action)


class MeddlingState(SpyTrackerState):
    """Changes the state while deciding that an action is illegal."""

    def _is_legal(self, action: int) -> bool:
        ok = super()._is_legal(action)
        if not ok:
            self.round += 1
        return ok


class RandomState(SpyTrackerState):
    """Draws from a random source outside the action list, so a replay is not the game."""

    def _apply(self, action: int) -> None:
        super()._apply(action)
        if random.random() < 0.2:
            self.points = self.points[:]
            self.round += 1


class GenerousState(SpyTrackerState):
    """Lets every seat win."""

    def returns(self) -> list[float]:
        if self.winner < 0:
            return [0.0] * len(self.sources)
        return [1.0] * len(self.sources)


class LateCountState(SpyTrackerState):
    """Counts its actions wrongly."""

    def ply(self) -> int | None:
        return len(self.actions) // 2


class MisreadNotation(SpyTrackerNotation):
    """Reads "call" back as "spot"."""

    def string_to_action(self, state: Any, text: str) -> int:
        action = super().string_to_action(state, text)
        return 1 if action == CALL else action


class ForgivingNotation(SpyTrackerNotation):
    """Reads any unknown text as a call instead of refusing it."""

    def string_to_action(self, state: Any, text: str) -> int:
        try:
            return super().string_to_action(state, text)
        except Exception:  # noqa: BLE001 - the planted fault
            return CALL


class NamelessChoices(SpyTrackerNotation):
    """Gives every choice an empty kind."""

    def choice(self, state: Any, action: int) -> tuple[str, dict[str, Any]]:
        return "", {}


class PeekingSearch(SpyTrackerSearch):
    """Re-deals from the true hands in their true order (no canonical sort first), so what a
    resample draws depends on cards the seat cannot see."""

    def resample(self, state: Any, seat: int, rng: random.Random) -> Any:
        sample = state.clone()
        hidden = []
        for other, hand in enumerate(sample.hands):
            if other != seat:
                hidden += hand
        rng.shuffle(hidden)
        used = 0
        for other, hand in enumerate(sample.hands):
            if other != seat:
                sample.hands[other] = hidden[used:used + len(hand)]
                used += len(hand)
        return sample


class FrozenSearch(SpyTrackerSearch):
    """Never re-deals anything."""

    def resample(self, state: Any, seat: int, rng: random.Random) -> Any:
        return state.clone()


class SloppySearch(SpyTrackerSearch):
    """Changes the player to move in a resample."""

    def resample(self, state: Any, seat: int, rng: random.Random) -> Any:
        sample = super().resample(state, seat, rng)
        if sample.player >= 0:
            sample.player = (sample.player + 1) % len(sample.sources)
        return sample


class DriftingSearch(SpyTrackerSearch):
    """A resampler that draws differently from resample."""

    def resampler(self, state: Any, seat: int) -> Any:
        return lambda rng: self.resample(state, seat, random.Random(rng.random()))


class CarelessInformedSearch(SpyTrackerSearch):
    """An informed resampler that draws for the next seat instead of the one asking, so its
    worlds re-deal the asking seat's own hand: states the seat can tell from the real one."""

    def informed_resampler(self, state: Any, seat: int) -> Any:
        other = (seat + 1) % self.game.num_players
        return lambda rng: self.resample(state, other, rng)


class SilentDealState(SpyTrackerState):
    """Deals the rest of a round without writing the cards into the history."""

    def play_chance(self, rng: random.Random) -> None:
        before = len(self.actions)
        super().play_chance(rng)
        if len(self.actions) > before + 1:
            del self.actions[before + 1:]


class UnwrittenEvent(SpyTrackerNotation):
    """Tells a move under a key no catalogue has."""

    def event(self, state: Any, action: int, seat: int | None) -> Any:
        told = super().event(state, action, seat)
        return None if told is None else {"key": "no_such_line", "params": told["params"]}


class EnglishInEvent(SpyTrackerNotation):
    """Puts an English word where a number belongs, so every language shows it as is."""

    def event(self, state: Any, action: int, seat: int | None) -> Any:
        told = super().event(state, action, seat)
        if told is not None and "count" in told["params"]:
            told = {"key": told["key"], "params": {**told["params"], "count": "several"}}
        return told


class WrongWinner(SpyTrackerNotation):
    """Marks every seat but the winners as winning on the end screen."""

    def summary(self, state: Any) -> Any:
        out = super().summary(state)
        if out is not None:
            for row in out["rows"]:
                row["winner"] = not row["winner"]
        return out


def with_state(cls: type) -> Any:
    game = sound()
    game.state_class = cls
    return game


def with_part(name: str, cls: type) -> Any:
    game = sound()
    setattr(game, name, cls(game))
    return game


def with_type(**changes: Any) -> Any:
    game = sound()
    game.game_type = replace(game.game_type, **changes)
    return game


def unshared() -> Any:
    """A game that pickles as a fresh copy each time, so every helper process would build its
    tables and caches again for every view."""
    game = sound()
    game._reduce = (load_game, ("spy-tracker", 3))
    return game


def with_info(**changes: Any) -> Any:
    game = sound()
    game.__dict__["_cached_info"] = replace(game.info(), **changes)
    return game


FAULTS = {
    "event key missing from the catalogues": (lambda: with_part("notation", UnwrittenEvent),
                                              "game_text_is_in_every_language"),
    "English word in a Japanese line": (lambda: with_part("notation", EnglishInEvent),
                                        "game_text_is_in_every_language"),
    "end screen marks the wrong winner": (lambda: with_part("notation", WrongWinner),
                                          "game_text_is_in_every_language"),
    "leaky view": (lambda: with_part("observer", LeakyView),
                   "resample_hides_only_hidden_information"),
    "undeclared observation key": (lambda: with_part("observer", ChattyView),
                                   "observations_are_the_declared_pieces"),
    "tensor reads a hidden hand": (lambda: with_part("observer", PeekingTensor),
                                   "tensors_hide_what_the_view_hides"),
    "tensor drops the hand": (lambda: with_part("observer", ForgetfulTensor),
                              "tensors_encode_exactly_the_view"),
    "clone shares a list": (lambda: with_state(SharingState), "clones_are_independent"),
    "a field no clone copies": (lambda: with_state(UnclonedFieldState),
                                "state_fields_are_declared_once"),
    "illegal action accepted": (lambda: with_state(LaxState),
                                "every_step_keeps_invariants_and_api_contracts"),
    "rejection changes the state": (lambda: with_state(MeddlingState),
                                    "illegal_actions_are_rejected_and_change_nothing"),
    "randomness outside the actions": (lambda: with_state(RandomState),
                                       "replay_json_and_seed_are_exact"),
    "returns break the declared sum": (lambda: with_state(GenerousState),
                                       "random_playouts_end_within_the_declared_bounds"),
    "ply miscounted": (lambda: with_state(LateCountState),
                       "every_step_keeps_invariants_and_api_contracts"),
    "name read back wrongly": (lambda: with_part("notation", MisreadNotation),
                               "every_step_keeps_invariants_and_api_contracts"),
    "malformed text accepted": (lambda: with_part("notation", ForgivingNotation),
                                "malformed_strings_are_rejected"),
    "choices without a kind": (lambda: with_part("notation", NamelessChoices),
                               "every_step_keeps_invariants_and_api_contracts"),
    "resample peeks at hidden cards": (lambda: with_part("search_model", PeekingSearch),
                                       "resample_depends_only_on_what_the_seat_knows"),
    "resample changes nothing": (lambda: with_part("search_model", FrozenSearch),
                                 "resample_hides_only_hidden_information"),
    "resample moves the turn": (lambda: with_part("search_model", SloppySearch),
                                "resample_hides_only_hidden_information"),
    "resampler drifts": (lambda: with_part("search_model", DriftingSearch),
                         "resampler_draws_what_resample_draws"),
    "informed draws the seat could tell apart": (
        lambda: with_part("search_model", CarelessInformedSearch),
        "informed_draws_are_states_the_seat_cannot_tell_apart"),
    "deals left out of the history": (lambda: with_state(SilentDealState),
                                      "play_chance_appends_a_run_of_legal_outcomes"),
    "zero-sum declared for a game won by one seat": (
        lambda: with_type(utility="zero_sum"), "declared_metadata_is_well_formed"),
    "a game pickled as a copy each time": (unshared, "pickled_states_share_one_game_per_ruleset"),
    "game length bound too small": (lambda: with_info(max_game_length=20),
                                    "random_playouts_end_within_the_declared_bounds"),
    "chance bound too small": (lambda: with_info(max_chance_nodes=10),
                               "random_playouts_end_within_the_declared_bounds"),
    "chance ids outside their range": (lambda: with_info(max_chance_outcomes=5),
                                       "every_step_keeps_invariants_and_api_contracts"),
    "utility range too narrow": (lambda: with_info(max_utility=0.5, utility_sum=0.5),
                                 "random_playouts_end_within_the_declared_bounds"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_suite_fails_a_planted_fault(fault: str) -> None:
    make, expected = FAULTS[fault]
    with pytest.raises(AssertionError, match=expected):
        check_game(make(), only=[expected])


@pytest.mark.parametrize("name", sorted({check for _, check in FAULTS.values()}))
def test_the_sound_game_passes_each_check_that_catches_a_fault(name: str) -> None:
    check_game(sound(), only=[name])


def test_every_check_is_shown_to_catch_a_planted_fault() -> None:
    assert set(CHECKS) == {check for _, check in FAULTS.values()}
