"""The golden replays recorded before the games were reorganised still play out identically.

A sample of each recording runs here (the first games of every game, player count and variant,
plus the heuristic-bot games and search decisions); ``python -m tests.golden.golden check``
compares all of them.
"""

from __future__ import annotations

import pytest

from tests.golden.golden import CONFIGS, check_game

SAMPLE = 4


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_golden_replays_are_unchanged(name: str) -> None:
    # Spy Tracker's ruling ``no_repeat_bids`` (default true) came later and changes random
    # games; with it off the recorded games must replay exactly.
    extra = {"no_repeat_bids": False} if name == "spy-tracker" else None
    assert check_game(name, SAMPLE, extra) == []
