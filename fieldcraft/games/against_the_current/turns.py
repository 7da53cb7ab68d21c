"""A turn of Against the Current: whose turn it is (finished and fully stopped seats are
passed over), the roll, the ability windows, the landing and its terrain result, arrival in
River Sanctuary and the tributary it claims, and the wheel turning after each round.

A base class of :class:`~.rules.AgainstTheCurrentState`: it works on the fields of
:class:`~.game.AgainstTheCurrentFields` and declares none of its own, and is kept apart from
the API and setup so the movement rules, the densest of the game, read on their own. The event
deck (:mod:`.events`) builds on it; the state class builds on that.
"""

from __future__ import annotations

from .game import AgainstTheCurrentFields
from .layout import (
    A_BURST,
    A_ECHO_DOWN,
    A_ECHO_UP,
    A_MOVE,
    A_NO_ABILITY,
    A_PRESSURE,
    A_REGEN,
    A_SLIP,
    AFTER_ROLL,
    AXOLOTL,
    END,
    FISHING_NETS,
    LAND,
    M_BOOST,
    M_PRESSURE,
    M_SUPPORT,
    M_WAVE,
    PORPOISE,
    R_AFTER_MOVE,
    STOP_RESULT,
    STURGEON,
    TERRAINS,
    TOKEN,
    TOKENS,
    TRIB,
)


class Turns(AgainstTheCurrentFields):
    """The turn rules of the state (see the module docstring).

    The methods read the game's tables through a local ``g = self.game``: ``turns.pxd`` types
    it, so in the compiled build each table read is a C field read, not a dict lookup."""

    def _begin_turn(self) -> None:
        """Start ``self.seat``'s turn, skipping finished players and players whose every token
        is stopped, until someone has a token to move (or the game is over: every token has
        arrived, or round ``round_limit`` has been completed)."""
        g = self.game
        n = g.num_players
        stop = self.stop
        pos = self.pos
        sanct = g.sanctuary
        while True:
            if self.arrived == TOKENS * n or self.rounds == g.last_round:
                self.phase = END
                self.options = []
                return
            s = self.seat
            if self.left[s]:
                base = TOKENS * s
                detour, squeeze = self.detour, self.squeeze
                turn_detour = self.turn_detour = bool(detour[s])
                self.turn_squeeze = bool(squeeze[s])
                detour[s] = squeeze[s] = 0
                self.used_ability = False
                self.extra = False
                free = []
                for t in range(base, base + TOKENS):
                    if stop[t]:
                        stop[t] = 2
                    elif pos[t] < sanct:
                        free.append(A_MOVE + t - base)
                if free:
                    if turn_detour and len(free) > 1:
                        first = base - A_MOVE
                        low = min([pos[first + a] for a in free])
                        free = [a for a in free if pos[first + a] == low]
                    self.options = free
                    self.phase = TOKEN
                    return
                # Every unfinished token is stopped: the turn is skipped, its marks clear.
                for t in range(base, base + TOKENS):
                    if stop[t] == 2:
                        stop[t] = 0
                if not g.skip_uses_effects:
                    detour[s] = int(turn_detour)
                    squeeze[s] = int(self.turn_squeeze)
                self.turn_detour = self.turn_squeeze = False
            self._next_seat()

    def _next_seat(self) -> None:
        g = self.game
        self.seat = (self.seat + 1) % g.num_players
        if self.seat == self.first:  # every seat has had its turn: the round is over
            self.rounds += 1
            self._rotate(1 + self.shift_pending)
            self.shift_pending = 0

    def _rotate(self, steps: int) -> None:
        """Turn the wheel: cards (and the markers on them) move, tokens stay, Pressure clears."""
        g = self.game
        self.rot = (self.rot + steps) % g.wheel_currents
        self.pressure = [-1] * g.num_players

    def _end_turn(self) -> None:
        stop = self.stop
        base = TOKENS * self.seat
        for t in range(base, base + TOKENS):
            if stop[t] == 2:
                stop[t] = 0
        self.turn_detour = self.turn_squeeze = False
        self.used_ability = False
        self.extra = False
        self.mover = -1
        self.roll = self.dist = 0
        self.land = -1
        self._next_seat()
        self._begin_turn()

    # -- the move -------------------------------------------------------------------------------
    def _can_boost(self) -> bool:
        return not (self.boost_used[self.seat] or self.used_ability or self.turn_squeeze)

    def _after_roll(self) -> None:
        a = self.animal[self.seat]
        if (a == PORPOISE or a == STURGEON) and self._can_boost():
            g = self.game
            if a == PORPOISE:
                opts = [A_NO_ABILITY, A_ECHO_UP]
                if self.roll - g.echo_change >= g.echo_floor:
                    opts.append(A_ECHO_DOWN)
            else:
                opts = [A_NO_ABILITY, A_BURST]
            self.options = opts
            self.phase = AFTER_ROLL
        else:
            self._move(self.roll)

    def _apply_after_roll(self, action: int) -> None:
        d = self.roll
        if action != A_NO_ABILITY:
            self.boost_used[self.seat] = 1
            self.used_ability = True
            g = self.game
            if action == A_ECHO_UP:
                d += g.echo_change
            elif action == A_ECHO_DOWN:
                d -= g.echo_change
            else:
                d += g.burst
        self._move(d)

    def _slot_at(self, space: int) -> int:
        g = self.game
        return (space - 1 - g.wheel_shift * self.rot) % g.cards

    def _space_of(self, slot: int) -> int:
        g = self.game
        return (slot + g.wheel_shift * self.rot) % g.cards + 1

    def _terrain(self, slot: int) -> int:
        """The terrain a card resolves as: a marker on it overrides the printed terrain."""
        printed = self.ring[slot]
        g = self.game
        if printed == g.marker_host:  # markers are only ever placed on host cards
            markers = self.markers
            if slot in markers:  # and on distinct ones
                return g.marker_terrain[markers.index(slot)]
        return printed

    def current_number(self) -> int:
        """The Current (1-based) the wheel shows now."""
        return self.rot + 1

    def space_terrain(self, space: int) -> str | None:
        """Terrain name the card now at ``space`` resolves as (None before it is dealt)."""
        slot = self._slot_at(space)
        return TERRAINS[self._terrain(slot)] if slot < len(self.ring) else None

    def _move(self, d: int) -> None:
        self.dist = d
        if d <= 0:  # Echolocation down to 0: no move and no terrain
            self._after_move()
            return
        g = self.game
        t = self.mover
        np = self.pos[t] + d
        if np >= g.sanctuary:
            self._arrive(t, R_AFTER_MOVE)
            return
        self.pos[t] = np
        slot = self.land = (np - 1 - g.wheel_shift * self.rot) % g.cards  # _slot_at(np)
        if self.used_ability:
            self._resolve(False)
            return
        terr = self._terrain(slot)
        s = self.seat
        a = self.animal[s]
        opts = []
        if g.pass_terrains[a][terr] and self._can_boost():
            opts.append(A_REGEN if a == AXOLOTL else A_SLIP)
        if g.pressure_terrain[a] == terr and not self.pressure_used[s]:
            opts.append(A_PRESSURE)
        if opts:
            self.options = [A_NO_ABILITY, *opts]
            self.phase = LAND
        else:
            self._resolve(False)

    def _apply_land(self, action: int) -> None:
        if action == A_PRESSURE:
            s = self.seat
            self.pressure[s] = self.land
            self.pressure_used[s] = 1
            self.used_ability = True
            self._resolve(False)
        elif action == A_NO_ABILITY:
            self._resolve(False)
        else:
            self.boost_used[self.seat] = 1
            self.used_ability = True
            self._resolve(True)

    def terrain_result(self, token: int, slot: int, boosted: bool) -> int:
        """The result code for ``token`` landing on the card in ``slot`` (no side effects).

        Applies the modifiers in ``modifier_order`` (RULINGS section 3); public so tests and
        screens can show what a landing would do.
        """
        return self._result(token, slot, boosted, False)

    def _result(self, t: int, slot: int, boosted: bool, consume: bool) -> int:
        g = self.game
        owner = t // TOKENS
        terr = self._terrain(slot)
        r = g.table[self.animal[owner]][terr]
        if not (self.support[t] or self.wave[t] or self.shelter[t] or slot in self.pressure):
            return 0 if boosted else r  # no modifier but the Boost applies: order is moot
        for m in g.modifier_order:
            if m == M_BOOST:
                if boosted:
                    r = 0
            elif m == M_SUPPORT:
                if terr == FISHING_NETS and self.support[t]:
                    r = 0
                    if consume:
                        self.support[t] = 0
            elif m == M_PRESSURE:
                for o, card in enumerate(self.pressure):
                    if card == slot and o != owner and -3 < r < 1:
                        r -= 1
            elif m == M_WAVE:
                if self.wave[t]:
                    if -3 < r < 1:
                        r -= 1
                    if consume:
                        self.wave[t] = 0
            elif r < 0 and self.shelter[t]:
                r += 1
                if consume:
                    self.shelter[t] = 0
        return r

    def _resolve(self, boosted: bool) -> None:
        t = self.mover
        r = self._result(t, self.land, boosted, True)
        if r:
            if r == 1:
                np = self.pos[t] + 1
                g = self.game
                if np >= g.sanctuary:
                    self._arrive(t, R_AFTER_MOVE)
                    return
                self.pos[t] = np
            elif r == STOP_RESULT:
                self.stop[t] = 1
            else:
                np = self.pos[t] + r
                self.pos[t] = np if np > 0 else 0
        self._after_move()

    def _draw_event(self) -> None:
        """Draw an event card: the event deck's step (:mod:`.events`, a subclass), declared
        here so that a turn hands over to it as a C call in the compiled build."""
        raise NotImplementedError

    def _after_move(self) -> None:
        g = self.game
        if not self.extra and (self.dist if g.event_modified else self.roll) == g.event_roll:
            self._draw_event()
        else:
            self._end_turn()

    def _arrive(self, t: int, resume: int) -> None:
        """Put a token in River Sanctuary; its owner then picks an unclaimed tributary."""
        g = self.game
        self.pos[t] = g.sanctuary
        self.stop[t] = self.shelter[t] = self.support[t] = self.wave[t] = 0
        owner = t // TOKENS
        self.left[owner] -= 1
        if not self.left[owner]:
            self.finish.append(owner)
        self.arrived += 1
        self.mover = t
        self.resume = resume
        base = g.a_trib
        self.options = [base + i for i, c in enumerate(self.claimed) if c < 0]
        self.phase = TRIB

    def _apply_trib(self, action: int) -> None:
        g = self.game
        i = action - g.a_trib
        t = self.mover
        self.claimed[i] = t
        self.trib_of[t] = i
        if self.arrived == TOKENS * g.num_players:
            self.phase = END
            self.options = []
            return
        if self.resume == R_AFTER_MOVE:
            self._after_move()
        else:
            self._end_turn()
