"""The event cards: shuffling the face-down pile, drawing on a 6, the challenge and each card's
effect and target.

A base class of :class:`~.rules.AgainstTheCurrentState`, built on the turn rules
(:class:`~.turns.Turns`); it works on the fields of :class:`~.game.AgainstTheCurrentFields` and
declares none of its own. The pile is the game's only hidden information: it is dealt by
chance actions (``deck card X``) when shuffled and then drawn from the top without chance, so
``resample`` can re-deal the undrawn part and rewrite those actions.
"""

from __future__ import annotations

from .layout import (
    A_ATTEMPT,
    A_CH_PASS,
    A_SHUFFLE,
    A_SKIP,
    A_TARGET_SEAT,
    A_TARGET_TOKEN,
    ATTEMPT,
    BACKWASH,
    CHALLENGE,
    CLEANUP_CREW,
    CURRENT_SHIFT,
    DETOUR,
    E_BACK1,
    E_DETOUR,
    E_FWD1,
    E_FWD2,
    E_SHELTER,
    E_SQUEEZE,
    E_SUPPORT,
    E_UNSTOP,
    E_WAVE,
    EVENTS,
    EXTRA_ROLL,
    HABITAT_SQUEEZE,
    MIGRATION_PUSH,
    PRESSURE_WAVE,
    R_END_TURN,
    RIVER_SUPPORT,
    ROLL,
    SAFE_SHELTER,
    SECOND_CHANCE,
    SHUFFLE,
    TAIL_CURRENT,
    TARGET,
    TOKENS,
)
from .turns import Turns

_TOKEN_MODES = {TAIL_CURRENT: E_FWD1, SAFE_SHELTER: E_SHELTER, RIVER_SUPPORT: E_SUPPORT}


class EventDeck(Turns):
    """The event-card rules of the state (see the module docstring). As in :class:`Turns`, the
    game's tables are read through a local ``g = self.game`` that ``events.pxd`` types."""

    def _start_shuffle(self, counts: list[int]) -> None:
        """Deal a face-down pile by chance nodes; ``pile_hist`` remembers where in the history
        its cards were dealt so that ``resample`` can keep history and pile consistent."""
        self.pool = counts
        self.pool_left = sum(counts)
        self.pile = []
        self.pile_top = 0
        self.pile_hist = len(self.actions)
        self.phase = SHUFFLE

    def _apply_shuffle(self, action: int) -> None:
        e = action - A_SHUFFLE
        self.pile.append(e)
        self.pool[e] -= 1
        self.pool_left -= 1
        if self.pool_left == 0:
            if self.shuffle_setup:
                self.shuffle_setup = False
                self._start_picks()
            else:
                self._draw_event()

    def _draw_event(self) -> None:
        if self.pile_top == len(self.pile):
            if not self.discard:  # every card is out of play: nothing to draw
                self._end_turn()
                return
            counts = [0] * len(EVENTS)
            for e in self.discard:
                counts[e] += 1
            self.discard = []
            self.shuffle_setup = False
            self._start_shuffle(counts)
            return
        self.event = self.pile[self.pile_top]
        self.pile_top += 1
        self.options = [A_ATTEMPT, A_SKIP]
        self.phase = ATTEMPT

    def _apply_event(self, action: int) -> None:
        """An attempt or skip (ATTEMPT), the challenge's outcome (CHALLENGE) or a target."""
        phase = self.phase
        if phase == ATTEMPT:
            if action == A_ATTEMPT:
                self.phase = CHALLENGE
            else:
                self._discard()
                self._end_turn()
        elif phase == CHALLENGE:
            if action == A_CH_PASS:
                self._effect()
            else:
                self._discard()
                self._end_turn()
        else:
            self._apply_target(action)

    def _discard(self) -> None:
        self.discard.append(self.event)
        self.event = -1

    def _own_unfinished(self, s: int) -> list[int]:
        g = self.game
        sanct = g.sanctuary
        pos = self.pos
        return [t for t in range(TOKENS * s, TOKENS * s + TOKENS) if pos[t] < sanct]

    def _rearmost(self, s: int) -> list[int]:
        tokens = self._own_unfinished(s)
        if not tokens:
            return []
        pos = self.pos
        low = min([pos[t] for t in tokens])
        return [t for t in tokens if pos[t] == low]

    def _effect(self) -> None:
        """Carry out the drawn card after a passed challenge: either at once or by asking the
        player for a target (a choice is always asked, even with one option, so the log shows
        it)."""
        ev = self.event
        s = self.seat
        g = self.game
        n = g.num_players
        opts: list[int] = []
        mode = 0
        if ev == EXTRA_ROLL:
            self._discard()
            if self.pos[self.mover] < g.sanctuary:
                self.extra = True
                self.phase = ROLL
            else:
                self._end_turn()
            return
        if ev == CURRENT_SHIFT:
            self.shift_pending += 1
        elif ev in _TOKEN_MODES:
            opts = [A_TARGET_TOKEN + t for t in self._own_unfinished(s)]
            mode = _TOKEN_MODES[ev]
        elif ev == MIGRATION_PUSH:
            opts = [A_TARGET_TOKEN + t for t in self._rearmost(s)]
            mode = E_FWD2
        elif ev == BACKWASH:
            mode = E_BACK1
            for o in range(n):
                if o != s and self.left[o]:
                    tokens = self._own_unfinished(o)
                    high = max([self.pos[t] for t in tokens])
                    opts.extend([A_TARGET_TOKEN + t for t in tokens if self.pos[t] == high])
        elif ev == PRESSURE_WAVE:
            mode = E_WAVE
            for o in range(n):
                if o != s:
                    opts.extend([A_TARGET_TOKEN + t for t in self._own_unfinished(o)])
        elif ev == DETOUR or ev == HABITAT_SQUEEZE:
            mode = E_DETOUR if ev == DETOUR else E_SQUEEZE
            opts = [A_TARGET_SEAT + o for o in range(n) if o != s and self.left[o]]
        elif ev == SECOND_CHANCE:
            limit = 2 if g.second_chance_served else 1
            stopped = [t for t in self._own_unfinished(s) if 0 < self.stop[t] <= limit]
            if stopped:
                opts = [A_TARGET_TOKEN + t for t in stopped]
                mode = E_UNSTOP
            else:
                opts = [A_TARGET_TOKEN + t for t in self._rearmost(s)]
                mode = E_FWD1
        elif ev == CLEANUP_CREW:
            opts = [g.a_remove + m for m, card in enumerate(self.markers) if card >= 0]
            if not opts:
                opts = [A_TARGET_TOKEN + t for t in self._own_unfinished(s)]
                mode = E_FWD1
        if not opts:
            self._discard()
            self._end_turn()
            return
        self.options = opts
        self.mode = mode
        self.phase = TARGET

    def _apply_target(self, action: int) -> None:
        self._discard()
        g = self.game
        if action >= g.a_remove:
            self.markers[action - g.a_remove] = -1
        elif action < A_TARGET_TOKEN:
            o = action - A_TARGET_SEAT
            if self.mode == E_DETOUR:
                self.detour[o] = 1
            else:
                self.squeeze[o] = 1
        else:
            t = action - A_TARGET_TOKEN
            mode = self.mode
            if mode == E_FWD1 or mode == E_FWD2:
                np = self.pos[t] + (1 if mode == E_FWD1 else 2)
                if np >= g.sanctuary:
                    self._arrive(t, R_END_TURN)
                    return
                self.pos[t] = np
            elif mode == E_BACK1:
                self.pos[t] = max(0, self.pos[t] - 1)
            elif mode == E_UNSTOP:
                self.stop[t] = 0
            elif mode == E_SHELTER:
                self.shelter[t] = 1
            elif mode == E_SUPPORT:
                self.support[t] = 1
            else:
                self.wave[t] = 1
        self._end_turn()
