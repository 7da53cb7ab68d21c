"""A game's search model: what a search bot may use beyond the rules.

One class per game (its folder's ``search.py``). Only ``resample`` is required (every bot that
imagines hidden cards uses it, and the conformance suite checks it); the rest are optional and
make search stronger or cheaper. Every method is given the state it is about; none may read a
hidden card of a seat other than the one it is asked for (the conformance suite and the agent
tests check the ones that could).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


class SearchModel:
    """The defaults: no evaluation, every legal action searched, no opponent policy, uniform
    beliefs."""

    def __init__(self, game: Any):
        self.game = game

    def resample(self, state: Any, seat: int, rng: random.Random) -> Any:
        """A full state ``seat`` cannot tell from ``state``: its observation and the player to
        move kept, every card it cannot see re-dealt at random (and the history rewritten to
        match, so the sample cannot be read for the true cards)."""
        raise NotImplementedError(f"{self.game.name} has no resample")

    def resampler(self, state: Any, seat: int) -> Callable[[random.Random], Any]:
        """A function drawing ``resample(state, seat, rng)``, valid while ``state`` is unchanged.

        Search draws thousands of resamples from one position. A game whose ``resample`` spends
        much of its time working out what the seat can know (the same for every draw) can work
        it out once here; its draws must equal ``resample``'s for the same ``rng``.
        """
        return lambda rng: state.resample(seat, rng)

    def informed_resampler(self, state: Any, seat: int
                           ) -> Callable[[random.Random], Any] | None:
        """A function drawing resamples in proportion to how plausible what the other seats did
        makes them (a model of how they choose), valid while ``state`` is unchanged; ``None``
        (the default) where the game has no such model or nothing was seen yet.

        ``resample`` draws what the seat cannot see uniformly: in a hidden-role game a seat
        that let a card of its supposed colour be used is as likely to hold that colour as
        any other. Search asks for this once a decision (it may replay the public record) and
        then draws as it would from ``resampler``. It must read only what ``seat`` was told.
        """
        return None

    def heuristic_returns(self, state: Any) -> list[float] | None:
        """A cheap estimate of each seat's return from here, for cutting search rollouts short
        in long games; ``None`` means rollouts play on to the end."""
        return None

    def search_actions(self, state: Any) -> list[int]:
        """The legal actions worth searching here (default: all of them).

        A game may leave out actions that are almost never better than one it keeps (a bid far
        above the lowest one on the same trait), so a search budget is not spread over hundreds
        of near-copies. Agents still play only legal actions; this only narrows what they try.
        """
        return state.legal_actions()

    def policy_action(self, state: Any, rng: random.Random) -> int | None:
        """A cheap, sensible action for the seat to move, using only what that seat could know
        (its own cards and public facts); ``None`` if the game has no such policy.

        Search can use it as its model of the other players (``SearchSettings.opponents``); it
        must never read another seat's hidden cards, or the model would play with open hands.
        """
        return None

    def belief_weight(self, state: Any, seat: int) -> float | None:
        """How plausible ``state``'s hidden part is to ``seat``, given what the other seats did
        in public (up to a constant factor); ``None`` means every resample is equally likely.

        ``resample`` draws hidden cards uniformly, ignoring that an opponent's bids or passes
        say something about its hand. Search agents weight their determinisations by this, so
        a game can add inference from a simple model of how people play without touching its
        sampler (which must stay canonical for the conformance checks). Whether the answer is
        ``None`` must depend on public facts only (search asks one resample to decide).
        """
        return None
