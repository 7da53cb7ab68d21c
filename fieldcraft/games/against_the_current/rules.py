"""Against the Current: the rules core (no I/O).

Three tokens per animal race from Start (0) over river spaces 1..N to River Sanctuary (N+1).
The terrain cards sit on a wheel that turns after every round, so the same space changes meaning
as the game goes on. All randomness (terrain deal, marker placement, event deck shuffles, first
player, dice, challenges) is a chance node, so a game is exactly its action list.

The only hidden information is the order of the face-down event pile: it is dealt by chance nodes
when the deck is shuffled, then drawn from the top without further chance, which is what lets
``resample`` re-deal it for a bot that must not peek.

State is flat lists of ints indexed by token (``3 * seat + k``) or seat, so ``clone`` is a
handful of slices. Rules defaults that the rulebook leaves open (RULINGS.md section 3) are read
from ``ruleset.json``; see ``docs/rules/against-the-current.md``. This module holds the state's API
and setup; the ruleset's tables and the state's fields are in :mod:`.game`, a turn (who moves,
the roll, the landing, the wheel) in :mod:`.turns` and the event cards in :mod:`.events` (base
classes of the state), the numbers in :mod:`.layout`.

Action ids (``S`` die sides, ``K`` markers, ``N`` wheel cards)::

    0-2       move token A/B/C                   32-35     first player seat s (chance)
    3         no ability                         36, 37    challenge passed / failed (chance)
    4, 5      echolocation +1 / -1               38-44     deal a terrain (chance)
    6         migration burst                    45-56     next card of a pile (chance)
    7, 8      regeneration / slip through        57..      roll 1..S (chance)
    9         place pressure                     a_remove  + m: remove marker m (Cleanup Crew)
    10, 11    attempt / skip challenge           a_marker  + m*N + s: marker m on slot s (chance)
    12-15     pick an animal                     a_trib    + i: claim tributary i
    16-19     target seat s
    20-31     target token 3s+k                  a_remove = 57 + S, a_marker = a_remove + K,
                                                 a_trib = a_marker + K*N

Every chance outcome lies in ``[32, a_trib)`` (``GameInfo.chance_offset`` and
``max_chance_outcomes``); the Cleanup Crew removals inside that range are decisions.
"""

from __future__ import annotations

import random
from typing import Any

from fieldcraft.core.api import CHANCE, TERMINAL, randbelow, sample_chance

from .events import EventDeck
from .game import GAME_TYPE, AgainstTheCurrentGame
from .layout import (
    A_DEAL,
    A_FIRST,
    A_MOVE,
    A_PICK,
    A_ROLL,
    A_SHUFFLE,
    AFTER_ROLL,
    ANIMALS,
    ATTEMPT,
    CHALLENGE,
    DEAL,
    END,
    EVENTS,
    FIRST,
    IS_CHANCE,
    LAND,
    MARKER,
    PICK,
    R_AFTER_MOVE,
    ROLL,
    SHUFFLE,
    TERRAINS,
    TOKEN,
    TOKENS,
    TRIB,
)

__all__ = ["GAME_TYPE", "AgainstTheCurrentGame", "AgainstTheCurrentState"]


class AgainstTheCurrentState(EventDeck):
    """One position: the API and the setup. Its fields are declared in
    :class:`~.game.AgainstTheCurrentFields`, the turn rules in :class:`~.turns.Turns` and the
    event cards in :class:`~.events.EventDeck`, the chain of classes this one ends."""

    def __init__(self, game: AgainstTheCurrentGame):
        self.game = game
        n = game.num_players
        self.phase = DEAL
        self.seat = 0
        self.first = -1
        self.animal = list(game.seat_animals) if game.seat_animals else [-1] * n
        self.ring = []
        self.deal_pool = list(game.terrain_counts)
        self.markers = [-1] * len(game.marker_terrain)
        self.marker_i = 0
        self.pile = []
        self.pile_top = 0
        self.pile_hist = 0
        self.pool = list(game.deck_counts)  # the boxed deck, shuffled once the wheel is set
        self.pool_left = game.deck_size
        self.shuffle_setup = True
        self.discard = []
        self.event = -1
        self.pos = [0] * (TOKENS * n)
        self.stop = [0] * (TOKENS * n)
        self.shelter = [0] * (TOKENS * n)
        self.support = [0] * (TOKENS * n)
        self.wave = [0] * (TOKENS * n)
        self.trib_of = [-1] * (TOKENS * n)
        self.claimed = [-1] * len(game.tributaries)
        self.left = [TOKENS] * n
        self.arrived = 0
        self.finish = []
        self.boost_used = [0] * n
        self.pressure_used = [0] * n
        self.pressure = [-1] * n
        self.detour = [0] * n
        self.squeeze = [0] * n
        self.rot = 0
        self.rounds = 0
        self.shift_pending = 0
        self.mover = -1
        self.roll = 0
        self.dist = 0
        self.used_ability = False
        self.turn_detour = False
        self.turn_squeeze = False
        self.extra = False
        self.land = -1
        self.resume = R_AFTER_MOVE
        self.mode = 0
        self.options = []
        self.actions = []

    # -- API ------------------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase == END:
            return TERMINAL
        if IS_CHANCE[phase]:
            return CHANCE
        return self.seat

    def is_terminal(self) -> bool:
        return self.phase == END

    def is_chance_node(self) -> bool:
        return IS_CHANCE[self.phase]

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == ROLL:
            g = self.game
            return list(g.roll_actions)
        if not IS_CHANCE[phase]:
            return self.options[:]
        return [a for a, _ in self.chance_outcomes()]

    def _is_legal(self, action: int) -> bool:
        """One comparison per phase instead of a list: a decision is one of ``options`` (empty
        once the game is over), a chance outcome is checked against what is left to draw."""
        phase = self.phase
        g = self.game
        if phase == ROLL:
            return A_ROLL <= action < g.a_remove
        if not IS_CHANCE[phase]:
            return action in self.options
        if phase == SHUFFLE:
            e = action - A_SHUFFLE
            return 0 <= e < len(EVENTS) and self.pool[e] > 0
        if phase == CHALLENGE:
            return action in g.challenge_ids
        if phase == DEAL:
            t = action - A_DEAL
            return 0 <= t < len(TERRAINS) and self.deal_pool[t] > 0
        if phase == MARKER:
            s = action - g.a_marker - self.marker_i * g.cards
            return 0 <= s < g.cards and self.ring[s] == g.marker_host and s not in self.markers
        return 0 <= action - A_FIRST < g.num_players  # FIRST

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        g = self.game
        if phase == ROLL:
            return list(g.roll_outcomes)
        if phase == SHUFFLE:
            total = self.pool_left
            return [(A_SHUFFLE + e, c / total) for e, c in enumerate(self.pool) if c]
        if phase == CHALLENGE:
            return list(g.challenge_outcomes)
        if phase == DEAL:
            total = g.cards - len(self.ring)
            return [(A_DEAL + t, c / total) for t, c in enumerate(self.deal_pool) if c]
        if phase == MARKER:
            host = g.marker_host
            free = [s for s, t in enumerate(self.ring) if t == host and s not in self.markers]
            base = g.a_marker + self.marker_i * g.cards
            return [(base + s, 1.0 / len(free)) for s in free]
        if phase == FIRST:
            n = g.num_players
            return [(A_FIRST + s, 1.0 / n) for s in range(n)]
        return []

    def play_chance(self, rng: random.Random) -> None:
        """One chance outcome, drawn exactly as ``sample_chance`` draws it (the same ``rng``
        calls), so search plays the same games; a die roll, most of the chance a search meets,
        is drawn without building its list of equally likely outcomes first."""
        if self.phase == ROLL:
            g = self.game
            sides = g.die_sides
            self._apply(A_ROLL if sides == 1 else A_ROLL + randbelow(rng, sides))
        else:
            self._apply(sample_chance(self, rng))

    def _apply(self, action: int) -> None:
        self.actions.append(action)
        phase = self.phase
        if phase == ROLL:
            self.roll = action - A_ROLL + 1
            self._after_roll()
        elif phase == TOKEN:
            self.mover = TOKENS * self.seat + action - A_MOVE
            self.phase = ROLL
        elif phase == AFTER_ROLL:
            self._apply_after_roll(action)
        elif phase == LAND:
            self._apply_land(action)
        elif phase == TRIB:
            self._apply_trib(action)
        elif phase >= ATTEMPT:  # ATTEMPT, CHALLENGE, TARGET (nothing is legal at END)
            self._apply_event(action)
        elif phase == SHUFFLE:
            self._apply_shuffle(action)
        else:
            self._apply_setup(action)

    # -- setup ----------------------------------------------------------------------------------
    def _apply_setup(self, action: int) -> None:
        g = self.game
        phase = self.phase
        if phase == DEAL:
            t = action - A_DEAL
            self.ring.append(t)
            self.deal_pool[t] -= 1
            if len(self.ring) == g.cards:
                if self.markers:
                    self.phase = MARKER
                else:
                    self._start_shuffle(list(g.deck_counts))
        elif phase == MARKER:
            self.markers[self.marker_i] = (action - g.a_marker) % g.cards
            self.marker_i += 1
            if self.marker_i == len(self.markers):
                self._start_shuffle(list(g.deck_counts))
        elif phase == PICK:
            self.animal[self.seat] = action - A_PICK
            self.seat += 1
            if self.seat == g.num_players:
                self.seat = 0
                self.phase = FIRST
            else:
                self.options = self._pick_options()
        else:  # FIRST
            self.first = self.seat = action - A_FIRST
            self._begin_turn()

    def _start_picks(self) -> None:
        self.seat = 0
        if self.animal[0] >= 0:  # animals fixed by the ruleset
            self.phase = FIRST
        else:
            self.phase = PICK
            self.options = self._pick_options()

    def _pick_options(self) -> list[int]:
        taken = self.animal
        return [A_PICK + a for a in range(len(ANIMALS)) if a not in taken]

    # -- results --------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        g = self.game
        out = [0] * g.num_players
        for t, i in enumerate(self.trib_of):
            if i >= 0:
                out[t // TOKENS] += g.tributaries[i]
        return out

    def _ranked(self) -> tuple[list[int], str | None]:
        """The winners and the rule that settled a tie on points (``None``: no tie).

        Highest total wins; a tie goes to the seat with more tokens arrived, then to the one
        whose last token arrived first. When every token has arrived (the rulebook's end) the
        first test never decides and the second is "whose third token arrived first". Only at
        the round limit can seats be level on both (none of them has a token home), and they
        share the win. The order of arrivals is read off the tributary claims in ``actions``,
        as each arrival claims its tributary at once, so the state keeps no list for a rule
        that only the rare game cut off by ``round_limit`` needs."""
        scores = self.scores()
        best = max(scores)
        tied = [s for s, v in enumerate(scores) if v == best]
        if len(tied) == 1:
            return tied, None
        left = self.left
        fewest = min([left[s] for s in tied])
        more = [s for s in tied if left[s] == fewest]
        if len(more) == 1:
            return more, "more tokens arrived"
        if fewest == TOKENS:
            return more, "shared"
        if fewest == 0:
            return [min(more, key=self.finish.index)], "third token arrived first"
        g = self.game
        trib = g.a_trib
        claimed = self.claimed
        last = [-1] * g.num_players
        for i, a in enumerate(self.actions):
            if a >= trib:
                last[claimed[a - trib] // TOKENS] = i
        return [min(more, key=last.__getitem__)], "last token arrived first"

    def returns(self) -> list[float]:
        """1 to the winner; seats that share the win at the round limit share the 1."""
        g = self.game
        out = [0.0] * g.num_players
        if self.phase == END:
            winners = self._ranked()[0]
            share = 1.0 / len(winners)
            for s in winners:
                out[s] = share
        return out

    def seat_label(self, seat: int) -> str | None:
        a = self.animal[seat]
        return ANIMALS[a] if a >= 0 else None

    def outcome(self) -> dict[str, Any]:
        """A summary for reports; ``ended_by`` is added only when ``round_limit`` ended the
        game, so the rulebook's games keep the summary they always had."""
        g = self.game
        scores = self.scores()
        out = {
            "winners": self.winners(),
            "scores": scores,
            "animals": [ANIMALS[a] if a >= 0 else None for a in self.animal],
            "finish_order": self.finish[:],
            "rounds": self.rounds,  # rounds the whole table finished (a study's length unit)
            "tie_break": self._ranked()[1] if self.phase == END else None,
            "tributaries": [
                [g.tributaries[self.trib_of[t]] for t in range(TOKENS * s, TOKENS * s + TOKENS)
                 if self.trib_of[t] >= 0]
                for s in range(g.num_players)
            ],
        }
        if self.phase == END and self.arrived < TOKENS * g.num_players:
            out["ended_by"] = f"round limit ({self.rounds} rounds)"
        return out

    def check_invariants(self) -> None:
        g = self.game
        n = g.num_players
        sanct = g.sanctuary
        # Terrain: dealt cards plus the undealt pool is exactly the configured wheel.
        assert len(self.ring) + sum(self.deal_pool) == g.cards
        dealt = [self.ring.count(t) for t in range(len(TERRAINS))]
        assert [d + p for d, p in zip(dealt, self.deal_pool, strict=True)] == list(
            g.terrain_counts)
        if self.phase > DEAL:
            assert len(self.ring) == g.cards
        # Markers sit on distinct start-terrain cards (or are removed).
        placed = [m for m in self.markers if m >= 0]
        assert len(placed) == len(set(placed))
        assert all(self.ring[m] == g.marker_host for m in placed)
        # Event cards: pile + discard + in hand + shuffle pool is the deck.
        counts = [0] * len(EVENTS)
        for e in self.pile[self.pile_top:]:
            counts[e] += 1
        for e in self.discard:
            counts[e] += 1
        if self.event >= 0:
            counts[self.event] += 1
        counts = [c + p for c, p in zip(counts, self.pool, strict=True)]
        assert counts == list(g.deck_counts), (counts, g.deck_counts)
        assert self.pool_left == sum(self.pool) >= 0
        # Tokens: on the path or arrived; every arrived token holds exactly one tributary.
        assert len(self.pos) == TOKENS * n
        arrived = 0
        for t, p in enumerate(self.pos):
            assert 0 <= p <= sanct
            if p == sanct:
                arrived += 1
                assert not self.stop[t]
                if not (self.phase == TRIB and t == self.mover):
                    assert self.trib_of[t] >= 0 and self.claimed[self.trib_of[t]] == t
            else:
                assert self.trib_of[t] < 0
        assert arrived == self.arrived
        assert [TOKENS - sum(1 for t in range(TOKENS * s, TOKENS * s + TOKENS)
                             if self.pos[t] == sanct) for s in range(n)] == self.left
        owners = [c for c in self.claimed if c >= 0]
        assert len(owners) == len(set(owners))
        assert all(self.trib_of[c] == i for i, c in enumerate(self.claimed) if c >= 0)
        assert len(self.finish) == len(set(self.finish))
        assert sorted(self.finish) == sorted(s for s in range(n) if self.left[s] == 0)
        # Abilities: a Pressure Marker is only out if that ability was used.
        for s in range(n):
            assert self.pressure[s] < 0 or self.pressure_used[s]
        assert 0 <= self.rot < g.wheel_currents
        assert self.rounds >= 0 and (g.round_limit is None or self.rounds <= g.round_limit)
        if self.phase > PICK:
            assert all(a >= 0 for a in self.animal)
        assert len(set(a for a in self.animal if a >= 0)) == sum(1 for a in self.animal if a >= 0)
        # The legal decisions are listed ascending (the API promises sorted legal lists).
        assert self.options == sorted(set(self.options))

