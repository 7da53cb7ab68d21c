"""The core's own random draws give exactly what ``random.Random`` would, so replacing a library
call by them changes no game: ``randbelow`` is ``randrange`` with one argument, and ``shuffle``
is the documented Fisher-Yates on ``rng.random()``."""

from __future__ import annotations

import random

import pytest

from fieldcraft.core.api import randbelow, shuffle


@pytest.mark.parametrize("seed", range(5))
def test_randbelow_draws_what_randrange_draws(seed: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    sizes = [1, 2, 3, 5, 6, 7, 8, 31, 32, 33, 100, 255, 256, 257, 1000, 2**31 - 1, 2**40 + 3]
    for _ in range(200):
        for n in sizes:
            assert randbelow(ours, n) == theirs.randrange(n)
    assert ours.getstate() == theirs.getstate()  # the same bits were used up


def test_randbelow_leaves_a_subclass_its_own_randrange() -> None:
    class Loaded(random.Random):
        def randrange(self, *args: int) -> int:  # type: ignore[override]
            return 0

    assert randbelow(Loaded(1), 1000) == 0


def test_shuffle_is_fisher_yates_on_random() -> None:
    rng, check = random.Random(7), random.Random(7)
    items = list(range(40))
    shuffle(items, rng)
    expected = list(range(40))
    for i in range(len(expected) - 1, 0, -1):
        j = int(check.random() * (i + 1))
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected and sorted(items) == list(range(40))
