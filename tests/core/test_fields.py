"""A state class that writes its field table and clone out (a compiled extension type cannot be
made by StateMeta) is held to exactly what the metaclass would have made from its annotations."""

from __future__ import annotations

from pathlib import Path

import fieldcraft.games.spy_tracker.rules as spy_tracker_rules
from fieldcraft.core.fields import StateMeta, clone_lines, own_fields, written_out_problems

SOURCE = '''
class Good(State):
    hands: list[list[int]]
    phase: int
    bids: list[int]
    LIMIT: int = 3
    __slots__ = ("hands", "phase", "bids")
    _fields = __slots__

    def clone(self):
        cls = type(self)
        new = cls.__new__(cls)
        new.game = self.game
        new.hands = [x[:] for x in self.hands]
        new.phase = self.phase
        new.bids = self.bids[:]
        return new
'''


def test_a_faithful_written_out_class_passes() -> None:
    assert written_out_problems(SOURCE, "Good") == []


def test_spy_trackers_written_out_state_matches_its_annotations() -> None:
    source = Path(spy_tracker_rules.__file__.split(".", 1)[0] + ".py").read_text()
    assert written_out_problems(source, "SpyTrackerState") == []


def test_each_kind_of_slip_is_caught() -> None:
    slips = {
        "a field not copied": SOURCE.replace("        new.phase = self.phase\n", ""),
        "a list shared, not sliced": SOURCE.replace("self.bids[:]", "self.bids"),
        "inner lists shared": SOURCE.replace("[x[:] for x in self.hands]", "self.hands[:]"),
        "copied in another order": SOURCE.replace(
            "        new.phase = self.phase\n        new.bids = self.bids[:]\n",
            "        new.bids = self.bids[:]\n        new.phase = self.phase\n"),
        "a field left out of the slots": SOURCE.replace('("hands", "phase", "bids")',
                                                        '("hands", "phase")'),
        "a new annotation not written out": SOURCE.replace("    bids: list[int]\n",
                                                           "    bids: list[int]\n    extra: int\n"),
        "no clone": SOURCE.split("    def clone")[0],
    }
    for what, source in slips.items():
        assert written_out_problems(source, "Good"), what


def test_the_metaclass_clones_with_the_same_lines() -> None:
    namespace = {"__annotations__": {"hands": "list[list[int]]", "phase": "int"}}
    kinds = own_fields(namespace)
    assert clone_lines(kinds) == ["new.game = self.game", "new.hands = [x[:] for x in self.hands]",
                                  "new.phase = self.phase"]
    made = StateMeta("Made", (), dict(namespace))
    assert made._fields == ("hands", "phase") and made.__slots__ == ("hands", "phase")


def test_the_metaclass_refuses_to_extend_a_written_out_state() -> None:
    # it cannot know the written-out class's copy kinds, and would make a clone and a field
    # table without them (the pure build would then fail on a missing field, the compiled one
    # read a zeroed C field)
    import pytest

    with pytest.raises(TypeError, match="writes its fields out"):
        StateMeta("Sub", (spy_tracker_rules.SpyTrackerState,),
                  {"__annotations__": {"extra": "int"}})
