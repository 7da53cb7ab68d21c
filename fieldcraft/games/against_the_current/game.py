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
from ``ruleset.json``; see ``docs/rules/against-the-current.md``.
"""

from __future__ import annotations

import random
from typing import Any

from fieldcraft.core.api import (
    CHANCE,
    TERMINAL,
    Game,
    MalformedActionError,
    RulesetError,
    State,
    shuffle,
)

ANIMALS = ("Axolotl", "Yangtze Porpoise", "European Eel", "Chinese Sturgeon")
AXOLOTL, PORPOISE, EEL, STURGEON = range(4)
BOOSTS = ("Regeneration", "Echolocation", "Slip Through", "Migration Burst")
PRESSURES = ("Plant Tangle", "Turbine Wake", "Net Drift", "Strong Current")
TERRAINS = (
    "Open Water", "Pollution", "Fishing Nets", "Water Plants", "Rapids", "Dam", "Turbine",
)
OPEN_WATER, POLLUTION, FISHING_NETS, WATER_PLANTS, RAPIDS, DAM, TURBINE = range(7)
RESULT_CODES = {"+1": 1, "PASS": 0, "-1": -1, "-2": -2, "STOP": -3}
RESULT_NAMES = {v: k for k, v in RESULT_CODES.items()}
STOP_RESULT = -3
EVENTS = (
    "Extra Roll", "Tail Current", "Backwash", "Detour", "Second Chance", "Cleanup Crew",
    "Current Shift", "Safe Shelter", "River Support", "Habitat Squeeze", "Pressure Wave",
    "Migration Push",
)
(EXTRA_ROLL, TAIL_CURRENT, BACKWASH, DETOUR, SECOND_CHANCE, CLEANUP_CREW, CURRENT_SHIFT,
 SAFE_SHELTER, RIVER_SUPPORT, HABITAT_SQUEEZE, PRESSURE_WAVE, MIGRATION_PUSH) = range(12)
MODIFIERS = ("boost", "river_support", "pressure_marker", "pressure_wave", "safe_shelter")
M_BOOST, M_SUPPORT, M_PRESSURE, M_WAVE, M_SHELTER = range(5)
TOKENS = 3
LETTERS = "ABC"
MAX_PLAYERS = 4

# Phases. Chance phases are DEAL, MARKER, SHUFFLE, FIRST, ROLL and CHALLENGE.
(DEAL, MARKER, SHUFFLE, PICK, FIRST, TOKEN, ROLL, AFTER_ROLL, LAND, TRIB, ATTEMPT, CHALLENGE,
 TARGET, END) = range(14)
PHASE_NAMES = (
    "deal terrain", "place markers", "shuffle events", "pick animals", "choose first player",
    "choose token", "roll", "after roll", "landed", "choose tributary", "event challenge",
    "challenge", "event target", "game over",
)
_IS_CHANCE = (True, True, True, False, True, False, True, False, False, False, False, True,
              False, False)

# Where play continues after a tributary is claimed.
R_AFTER_MOVE, R_END_TURN = 0, 1
# What a token/seat target does in the TARGET phase.
(E_FWD1, E_FWD2, E_BACK1, E_UNSTOP, E_SHELTER, E_SUPPORT, E_WAVE, E_DETOUR,
 E_SQUEEZE) = range(9)

# Fixed part of the action space; the tail (rolls, markers, tributaries) depends on the ruleset.
A_MOVE = 0  # 3: move token A/B/C
A_NO_ABILITY = 3
A_ECHO_UP = 4
A_ECHO_DOWN = 5
A_BURST = 6
A_REGEN = 7
A_SLIP = 8
A_PRESSURE = 9
A_ATTEMPT = 10
A_SKIP = 11
A_PICK = 12  # 4 animals
A_TARGET_SEAT = 16  # 4 seats
A_TARGET_TOKEN = 20  # 12 tokens
A_FIRST = 32  # 4 seats (chance)
A_CH_PASS = 36  # chance
A_CH_FAIL = 37  # chance
A_DEAL = 38  # 7 terrains (chance)
A_SHUFFLE = 45  # 12 event kinds (chance)
A_ROLL = 57  # die_sides outcomes (chance), then the ruleset-sized tail


def _rerr(message: str) -> RulesetError:
    return RulesetError(f"against-the-current: {message}")


class AgainstTheCurrentGame(Game):
    """Holds the resolved ruleset as flat tuples so the state's hot path never parses data."""

    # Search scores a leaf by ``heuristic_returns`` at once: at equal time this won 64.7% of
    # 150 2-player games against rollouts played to the end, and 57% of 100 against rollouts
    # cut after 5 random decisions (each leaf is also 2-2.5 times cheaper).
    search_rollout_depth: int | None = 0
    # Letting the die branch the tree (ismcts ``chance_nodes=6``) lost 8 of 9 two-player games
    # to open-loop search at equal iterations: six subtrees per move share too few visits.

    def __init__(self, spec: Any, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        super().__init__(spec, players, ruleset, overrides)
        r = ruleset
        counts = r["terrain_counts"]
        if set(counts) != set(TERRAINS):
            raise _rerr(f"terrain_counts must name exactly {', '.join(TERRAINS)}")
        if any(c < 0 for c in counts.values()):
            raise _rerr("terrain_counts must not be negative")
        self.terrain_counts = tuple(counts[t] for t in TERRAINS)
        self.cards = sum(self.terrain_counts)
        if self.cards < 1:
            raise _rerr("the wheel needs at least one terrain card")
        self.sanctuary = self.cards + 1

        table = r["terrain_table"]
        if set(table) != set(ANIMALS):
            raise _rerr(f"terrain_table must have one row per animal: {', '.join(ANIMALS)}")
        rows = []
        for animal in ANIMALS:
            row = table[animal]
            if set(row) != set(TERRAINS) or any(v not in RESULT_CODES for v in row.values()):
                raise _rerr(
                    f"terrain_table[{animal!r}] must map every terrain to one of "
                    f"{', '.join(RESULT_CODES)}"
                )
            rows.append(tuple(RESULT_CODES[row[t]] for t in TERRAINS))
        self.table = tuple(rows)

        passes = r["boost_pass_terrains"]
        if not set(passes) <= {"Axolotl", "European Eel"}:
            raise _rerr("boost_pass_terrains only applies to Axolotl and European Eel")
        pass_rows = []
        for animal in ANIMALS:
            names = passes.get(animal, [])
            if any(n not in TERRAINS for n in names):
                raise _rerr(f"boost_pass_terrains[{animal!r}] names an unknown terrain")
            pass_rows.append(tuple(t in names for t in TERRAINS))
        self.pass_terrains = tuple(pass_rows)

        pressure = r["pressure_terrain"]
        if set(pressure) != set(ANIMALS) or any(v not in TERRAINS for v in pressure.values()):
            raise _rerr("pressure_terrain must give every animal one terrain")
        self.pressure_terrain = tuple(TERRAINS.index(pressure[a]) for a in ANIMALS)

        self.echo_change = r["echolocation_change"]
        self.echo_floor = 0 if r["echolocation_allows_zero"] else 1
        self.burst = r["migration_burst_spaces"]
        if self.echo_change < 1 or self.burst < 0:
            raise _rerr("echolocation_change must be >= 1 and migration_burst_spaces >= 0")

        markers = r["markers"]
        if any(m not in TERRAINS for m in markers) or len(set(markers)) != len(markers):
            raise _rerr("markers must be distinct terrain names")
        self.marker_terrain = tuple(TERRAINS.index(m) for m in markers)
        if r["marker_start_terrain"] not in TERRAINS:
            raise _rerr("marker_start_terrain must be a terrain name")
        self.marker_host = TERRAINS.index(r["marker_start_terrain"])
        if self.terrain_counts[self.marker_host] < len(markers):
            raise _rerr("not enough marker_start_terrain cards for every marker")

        self.tributaries = tuple(r["tributaries"])
        if len(self.tributaries) < TOKENS * players:
            raise _rerr(f"{players} players need at least {TOKENS * players} tributaries")

        self.wheel_shift = r["wheel_shift"]
        self.wheel_currents = r["wheel_currents"]
        if self.wheel_currents < 1:
            raise _rerr("wheel_currents must be >= 1")
        self.die_sides = r["die_sides"]
        if self.die_sides < 1:
            raise _rerr("die_sides must be >= 1")
        self.event_roll = r["event_roll"]
        self.event_modified = r["event_uses_modified_roll"]

        deck = r["event_deck"]
        if not set(deck) <= set(EVENTS) or any(c < 0 for c in deck.values()):
            raise _rerr(f"event_deck counts must be >= 0 and name only: {', '.join(EVENTS)}")
        self.deck_counts = tuple(deck.get(e, 0) for e in EVENTS)
        self.deck_size = sum(self.deck_counts)
        if self.deck_size < 1:
            raise _rerr("event_deck must hold at least one card")

        p = float(r["challenge_success"])
        if not 0.0 <= p <= 1.0:
            raise _rerr("challenge_success must be between 0 and 1")
        self.challenge_success = p
        if p >= 1.0:
            self.challenge_outcomes = ((A_CH_PASS, 1.0),)
        elif p <= 0.0:
            self.challenge_outcomes = ((A_CH_FAIL, 1.0),)
        else:
            self.challenge_outcomes = ((A_CH_PASS, p), (A_CH_FAIL, 1.0 - p))

        order = r["modifier_order"]
        if sorted(order) != sorted(MODIFIERS):
            raise _rerr(f"modifier_order must be an ordering of {', '.join(MODIFIERS)}")
        self.modifier_order = tuple(MODIFIERS.index(m) for m in order)
        self.second_chance_served = r["second_chance_counts_served_stop"]
        self.skip_uses_effects = r["skipped_turn_uses_up_effects"]

        seat_animals = r["seat_animals"]
        if seat_animals:
            if (len(seat_animals) != players or any(a not in ANIMALS for a in seat_animals)
                    or len(set(seat_animals)) != players):
                raise _rerr(f"seat_animals must be {players} different animal names, or []")
        self.seat_animals = tuple(ANIMALS.index(a) for a in seat_animals)

        # The ruleset-sized tail of the action space.
        self.a_remove = A_ROLL + self.die_sides
        self.a_marker = self.a_remove + len(self.marker_terrain)
        self.a_trib = self.a_marker + len(self.marker_terrain) * self.cards
        self.n_actions = self.a_trib + len(self.tributaries)
        self.roll_actions = tuple(range(A_ROLL, A_ROLL + self.die_sides))
        self.roll_outcomes = tuple((a, 1.0 / self.die_sides) for a in self.roll_actions)
        self.action_names = tuple(self._name(a) for a in range(self.n_actions))
        self.action_index = {" ".join(n.lower().split()): a
                             for a, n in enumerate(self.action_names)}

    def _name(self, a: int) -> str:
        """The one readable name of each action (context-free, so it always reads back)."""
        if a < A_NO_ABILITY:
            return f"move token {LETTERS[a]}"
        fixed = {
            A_NO_ABILITY: "no ability", A_ECHO_UP: "echolocation +1",
            A_ECHO_DOWN: "echolocation -1", A_BURST: "migration burst",
            A_REGEN: "regeneration", A_SLIP: "slip through", A_PRESSURE: "place pressure",
            A_ATTEMPT: "attempt challenge", A_SKIP: "skip challenge",
            A_CH_PASS: "challenge passed", A_CH_FAIL: "challenge failed",
        }
        if a in fixed:
            return fixed[a]
        if A_PICK <= a < A_TARGET_SEAT:
            return f"pick {ANIMALS[a - A_PICK]}"
        if A_TARGET_SEAT <= a < A_TARGET_TOKEN:
            return f"target seat {a - A_TARGET_SEAT}"
        if A_TARGET_TOKEN <= a < A_FIRST:
            t = a - A_TARGET_TOKEN
            return f"target seat {t // TOKENS} token {LETTERS[t % TOKENS]}"
        if A_FIRST <= a < A_CH_PASS:
            return f"first player seat {a - A_FIRST}"
        if A_DEAL <= a < A_SHUFFLE:
            return f"deal {TERRAINS[a - A_DEAL]}"
        if A_SHUFFLE <= a < A_ROLL:
            return f"deck card {EVENTS[a - A_SHUFFLE]}"
        if A_ROLL <= a < self.a_remove:
            return f"roll {a - A_ROLL + 1}"
        if self.a_remove <= a < self.a_marker:
            return f"remove {TERRAINS[self.marker_terrain[a - self.a_remove]]} marker"
        if self.a_marker <= a < self.a_trib:
            m, slot = divmod(a - self.a_marker, self.cards)
            return f"{TERRAINS[self.marker_terrain[m]]} marker on space {slot + 1}"
        i = a - self.a_trib
        return f"tributary {i + 1} ({self.tributaries[i]} pts)"

    def num_distinct_actions(self) -> int:
        return self.n_actions

    def max_chance_outcomes(self) -> int:
        return max(self.die_sides, len(TERRAINS), len(EVENTS), self.cards, MAX_PLAYERS, 2)


class AgainstTheCurrentState(State):
    """One position. Token fields are indexed ``3 * seat + k``; slot = a card's setup space - 1."""

    __slots__ = (
        "phase", "seat", "first", "animal", "ring", "deal_pool", "markers", "marker_i",
        "pile", "pile_top", "pile_hist", "pool", "pool_left", "shuffle_setup", "discard", "event",
        "pos", "stop", "shelter", "support", "wave", "trib_of", "claimed", "left", "arrived",
        "finish", "boost_used", "pressure_used", "pressure", "detour", "squeeze", "rot",
        "shift_pending", "mover", "roll", "dist", "used_ability", "turn_detour", "turn_squeeze",
        "extra", "land", "resume", "mode", "options", "actions",
    )

    game: AgainstTheCurrentGame

    def __init__(self, game: AgainstTheCurrentGame):
        self.game = game
        n = game.num_players
        self.phase = DEAL
        self.seat = 0
        self.first = -1
        self.animal = list(game.seat_animals) if game.seat_animals else [-1] * n
        self.ring: list[int] = []
        self.deal_pool = list(game.terrain_counts)
        self.markers = [-1] * len(game.marker_terrain)
        self.marker_i = 0
        self.pile: list[int] = []
        self.pile_top = 0
        self.pile_hist = 0
        self.pool = list(game.deck_counts)  # the boxed deck, shuffled once the wheel is set
        self.pool_left = game.deck_size
        self.shuffle_setup = True
        self.discard: list[int] = []
        self.event = -1
        self.pos = [0] * (TOKENS * n)
        self.stop = [0] * (TOKENS * n)  # 1: stopped on owner's next turn; 2: serving it now
        self.shelter = [0] * (TOKENS * n)
        self.support = [0] * (TOKENS * n)
        self.wave = [0] * (TOKENS * n)
        self.trib_of = [-1] * (TOKENS * n)
        self.claimed = [-1] * len(game.tributaries)
        self.left = [TOKENS] * n
        self.arrived = 0
        self.finish: list[int] = []
        self.boost_used = [0] * n
        self.pressure_used = [0] * n
        self.pressure = [-1] * n
        self.detour = [0] * n
        self.squeeze = [0] * n
        self.rot = 0
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
        self.options: list[int] = []
        self.actions: list[int] = []

    # -- API ------------------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase == END:
            return TERMINAL
        if _IS_CHANCE[phase]:
            return CHANCE
        return self.seat

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == ROLL:
            return list(self.game.roll_actions)
        if not _IS_CHANCE[phase]:
            return self.options[:]
        return [a for a, _ in self.chance_outcomes()]

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
        elif phase == ATTEMPT:
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
        elif phase == TARGET:
            self._apply_target(action)
        elif phase == SHUFFLE:
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
        elif phase == FIRST:
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

    def _start_shuffle(self, counts: list[int]) -> None:
        """Deal a face-down pile by chance nodes; ``pile_hist`` remembers where in the history
        its cards were dealt so that ``resample`` can keep history and pile consistent."""
        self.pool = counts
        self.pool_left = sum(counts)
        self.pile = []
        self.pile_top = 0
        self.pile_hist = len(self.actions)
        self.phase = SHUFFLE

    # -- turn flow ------------------------------------------------------------------------------
    def _begin_turn(self) -> None:
        """Start ``self.seat``'s turn, skipping finished players and players whose every token
        is stopped, until someone has a token to move (or the game is over)."""
        g = self.game
        n = g.num_players
        stop = self.stop
        pos = self.pos
        sanct = g.sanctuary
        while True:
            if self.arrived == TOKENS * n:
                self.phase = END
                self.options = []
                return
            s = self.seat
            if self.left[s]:
                base = TOKENS * s
                self.turn_detour = bool(self.detour[s])
                self.turn_squeeze = bool(self.squeeze[s])
                self.detour[s] = self.squeeze[s] = 0
                self.used_ability = False
                self.extra = False
                free = []
                for t in range(base, base + TOKENS):
                    if stop[t]:
                        stop[t] = 2
                    elif pos[t] < sanct:
                        free.append(t)
                if free:
                    if self.turn_detour and len(free) > 1:
                        low = min(pos[t] for t in free)
                        free = [t for t in free if pos[t] == low]
                    self.options = [A_MOVE + t - base for t in free]
                    self.phase = TOKEN
                    return
                # Every unfinished token is stopped: the turn is skipped, its marks clear.
                for t in range(base, base + TOKENS):
                    if stop[t] == 2:
                        stop[t] = 0
                if not g.skip_uses_effects:
                    self.detour[s] = int(self.turn_detour)
                    self.squeeze[s] = int(self.turn_squeeze)
                self.turn_detour = self.turn_squeeze = False
            self._next_seat()

    def _next_seat(self) -> None:
        g = self.game
        self.seat = (self.seat + 1) % g.num_players
        if self.seat == self.first:
            self._rotate(1 + self.shift_pending)
            self.shift_pending = 0

    def _rotate(self, steps: int) -> None:
        """Turn the wheel: cards (and the markers on them) move, tokens stay, Pressure clears."""
        self.rot = (self.rot + steps) % self.game.wheel_currents
        self.pressure = [-1] * self.game.num_players

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

    def _terrain(self, slot: int) -> int:
        """The terrain a card resolves as: a marker on it overrides the printed terrain."""
        markers = self.markers
        for m in range(len(markers)):
            if markers[m] == slot:
                return self.game.marker_terrain[m]
        return self.ring[slot]

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
        slot = self.land = self._slot_at(np)
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
                if np >= self.game.sanctuary:
                    self._arrive(t, R_AFTER_MOVE)
                    return
                self.pos[t] = np
            elif r == STOP_RESULT:
                self.stop[t] = 1
            else:
                np = self.pos[t] + r
                self.pos[t] = np if np > 0 else 0
        self._after_move()

    def _after_move(self) -> None:
        g = self.game
        if not self.extra and (self.dist if g.event_modified else self.roll) == g.event_roll:
            self._draw_event()
        else:
            self._end_turn()

    def _arrive(self, t: int, resume: int) -> None:
        """Put a token in River Sanctuary; its owner then picks an unclaimed tributary."""
        self.pos[t] = self.game.sanctuary
        self.stop[t] = self.shelter[t] = self.support[t] = self.wave[t] = 0
        owner = t // TOKENS
        self.left[owner] -= 1
        if not self.left[owner]:
            self.finish.append(owner)
        self.arrived += 1
        self.mover = t
        self.resume = resume
        self.options = [self.game.a_trib + i for i, c in enumerate(self.claimed) if c < 0]
        self.phase = TRIB

    def _apply_trib(self, action: int) -> None:
        i = action - self.game.a_trib
        t = self.mover
        self.claimed[i] = t
        self.trib_of[t] = i
        if self.arrived == TOKENS * self.game.num_players:
            self.phase = END
            self.options = []
            return
        if self.resume == R_AFTER_MOVE:
            self._after_move()
        else:
            self._end_turn()

    # -- events ---------------------------------------------------------------------------------
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

    def _discard(self) -> None:
        self.discard.append(self.event)
        self.event = -1

    def _own_unfinished(self, s: int) -> list[int]:
        sanct = self.game.sanctuary
        pos = self.pos
        return [t for t in range(TOKENS * s, TOKENS * s + TOKENS) if pos[t] < sanct]

    def _rearmost(self, s: int) -> list[int]:
        tokens = self._own_unfinished(s)
        if not tokens:
            return []
        low = min(self.pos[t] for t in tokens)
        return [t for t in tokens if self.pos[t] == low]

    def _effect(self) -> None:
        """Carry out the drawn card after a passed challenge: either at once or by asking the
        player for a target (a choice is always asked, even with one option, so the log shows
        it)."""
        ev = self.event
        s = self.seat
        n = self.game.num_players
        opts: list[int] = []
        mode = 0
        if ev == EXTRA_ROLL:
            self._discard()
            if self.pos[self.mover] < self.game.sanctuary:
                self.extra = True
                self.phase = ROLL
            else:
                self._end_turn()
            return
        if ev == CURRENT_SHIFT:
            self.shift_pending += 1
        elif ev in (TAIL_CURRENT, SAFE_SHELTER, RIVER_SUPPORT):
            opts = [A_TARGET_TOKEN + t for t in self._own_unfinished(s)]
            mode = {TAIL_CURRENT: E_FWD1, SAFE_SHELTER: E_SHELTER, RIVER_SUPPORT: E_SUPPORT}[ev]
        elif ev == MIGRATION_PUSH:
            opts = [A_TARGET_TOKEN + t for t in self._rearmost(s)]
            mode = E_FWD2
        elif ev == BACKWASH:
            mode = E_BACK1
            for o in range(n):
                if o != s and self.left[o]:
                    tokens = self._own_unfinished(o)
                    high = max(self.pos[t] for t in tokens)
                    opts.extend(A_TARGET_TOKEN + t for t in tokens if self.pos[t] == high)
        elif ev == PRESSURE_WAVE:
            mode = E_WAVE
            for o in range(n):
                if o != s:
                    opts.extend(A_TARGET_TOKEN + t for t in self._own_unfinished(o))
        elif ev == DETOUR or ev == HABITAT_SQUEEZE:
            mode = E_DETOUR if ev == DETOUR else E_SQUEEZE
            opts = [A_TARGET_SEAT + o for o in range(n) if o != s and self.left[o]]
        elif ev == SECOND_CHANCE:
            limit = 2 if self.game.second_chance_served else 1
            stopped = [t for t in self._own_unfinished(s) if 0 < self.stop[t] <= limit]
            if stopped:
                opts = [A_TARGET_TOKEN + t for t in stopped]
                mode = E_UNSTOP
            else:
                opts = [A_TARGET_TOKEN + t for t in self._rearmost(s)]
                mode = E_FWD1
        elif ev == CLEANUP_CREW:
            g = self.game
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

    # -- strings --------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        names = self.game.action_names
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(names):
            raise MalformedActionError(f"{action!r} is not an action of against-the-current")
        return names[action]

    def string_to_action(self, text: str) -> int:
        key = " ".join(str(text).lower().split())
        try:
            return self.game.action_index[key]
        except KeyError:
            raise MalformedActionError(
                f"{text!r} is not an against-the-current action (e.g. 'move token A', 'roll 4', "
                "'echolocation +1', 'attempt challenge', 'tributary 1 (12 pts)')"
            ) from None

    def _who(self, s: int) -> str:
        a = self.animal[s] if 0 <= s < len(self.animal) else -1
        return f"seat {s} ({ANIMALS[a]})" if a >= 0 else f"seat {s}"

    def describe_action(self, action: int, seat: int | None) -> str | None:
        """Public log line. Everything is public except the shuffled event pile, so only the
        shuffle's chance outcomes are withheld; a drawn card shows up when it is attempted."""
        if not 0 <= action < self.game.n_actions:
            return None
        phase = self.phase
        text = self.game.action_names[action]
        if phase == SHUFFLE:
            return None
        if phase == DEAL:
            return f"space {len(self.ring) + 1}: {TERRAINS[action - A_DEAL]}"
        if phase in (MARKER, FIRST):
            return text
        if phase == ROLL:
            return f"{self._who(self.seat)} rolls {action - A_ROLL + 1}"
        if phase == CHALLENGE:
            return f"{self._who(self.seat)}: {text}"
        if phase == ATTEMPT:
            verb = "attempts" if action == A_ATTEMPT else "skips"
            return f"{self._who(self.seat)} draws {EVENTS[self.event]} and {verb} the challenge"
        if phase == TOKEN:
            t = TOKENS * self.seat + action - A_MOVE
            return f"{self._who(self.seat)}: {text} (from {self._place(self.pos[t])})"
        if self.is_terminal():
            return None
        return f"{self._who(self.seat)}: {text}"

    def _place(self, p: int) -> str:
        if p == 0:
            return "Start"
        if p >= self.game.sanctuary:
            return "River Sanctuary"
        return f"space {p}"

    # -- results --------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        g = self.game
        out = [0] * g.num_players
        for t, i in enumerate(self.trib_of):
            if i >= 0:
                out[t // TOKENS] += g.tributaries[i]
        return out

    def _winner(self) -> int:
        scores = self.scores()
        best = max(scores)
        tied = [s for s, v in enumerate(scores) if v == best]
        if len(tied) == 1:
            return tied[0]
        return min(tied, key=self.finish.index)

    def returns(self) -> list[float]:
        out = [0.0] * self.game.num_players
        if self.phase == END:
            out[self._winner()] = 1.0
        return out

    def heuristic_returns(self) -> list[float] | None:
        """Each seat's win chance guessed from the race, so search can stop rollouts early.

        Why a race model: a random rollout of this game runs for hundreds of steps and picks
        tributaries at random, so its result says little; the race itself is easy to read.
        Each token on the river needs ``eta[animal][position]`` more of its owner's turns (a
        table solved once per game over the river's terrain mix, a little milder than the raw
        mix because a player picks the token with the kinder landing). A player moves one
        token a turn, so its tokens arrive one after another, nearest first; seat order turns
        those turn counts into times. Pairwise chances that one token beats another give each
        token's expected place in the arrival order, hence the tributary it will claim, hence
        expected scores; their spread gives the chance of finishing on top. Unused abilities
        count as a little progress; STOP, Detour, Pressure Wave and a live Pressure Marker on
        the next landing squares as a little lost progress.
        """
        if self.phase == END:
            return self.returns()
        g = self.game
        n = g.num_players
        if self.phase < TOKEN:
            return [1.0 / n] * n
        from math import exp, sqrt

        sanct = g.sanctuary
        model = g.__dict__.get("_race_model")
        if model is None:
            # Terrain mix as set up: each marker turns one host card into its terrain.
            counts = list(g.terrain_counts)
            for m in g.marker_terrain:
                if counts[g.marker_host] > 0:
                    counts[g.marker_host] -= 1
                    counts[m] += 1
            avoid = 0.35  # share of bad landings a player sidesteps by choosing the token
            sides = g.die_sides
            eta = []
            for a in range(len(ANIMALS)):
                dist: dict[int, float] = {}
                for terr, c in enumerate(counts):
                    r = g.table[a][terr]
                    w = c / g.cards * (1.0 - avoid if r < 0 else 1.0)
                    dist[r] = dist.get(r, 0.0) + w
                    if r < 0:
                        dist[0] = dist.get(0, 0.0) + c / g.cards * avoid
                e = [0.0] * (sanct + 1)
                for _ in range(40):  # value iteration; backward steps make it a fixed point
                    for p in range(sanct - 1, -1, -1):
                        total = 0.0
                        for d in range(1, sides + 1):
                            x = p + d
                            if x >= sanct:
                                continue
                            for r, q in dist.items():
                                if r == 1:
                                    total += q * (e[x + 1] if x + 1 < sanct else 0.0)
                                elif r == STOP_RESULT:
                                    total += q * (e[x] + 0.3)
                                else:
                                    total += q * e[x + r if x + r > 0 else 0]
                        e[p] = 1.0 + total / sides
                eta.append(tuple(e))
            speed = [sanct / e[0] for e in eta]  # spaces per turn, to price bonuses in turns
            # Spaces an unused Boost is worth at its best use: Regeneration and Slip Through
            # turn a -2 into PASS when one comes up; Echolocation sidesteps a -2 or a STOP;
            # Migration Burst always moves 2 more and can sidestep too.
            boost = (1.5, 2.5, 1.5, 3.5)
            model = (eta, speed, boost)
            g.__dict__["_race_model"] = model
        eta, speed, boost = model

        pos, stop, animal = self.pos, self.stop, self.animal
        cur = self.seat
        pending = self.phase in (TOKEN, ROLL, AFTER_ROLL)  # the mover has not moved yet
        first = self.first if self.first >= 0 else 0
        to_move = (cur - first) % n + (0 if pending else 1)  # seats of this round still to go
        # Tributaries left, best first; a token waiting to claim one takes the best.
        free = sorted((v for i, v in enumerate(g.tributaries) if self.claimed[i] < 0),
                      reverse=True)
        score = [float(x) for x in self.scores()]
        if self.phase == TRIB and self.trib_of[self.mover] < 0 and free:
            score[self.mover // TOKENS] += free.pop(0)

        times: list[float] = []  # per unarrived token: expected arrival time (rounds)
        var: list[float] = []
        owner: list[int] = []
        order: list[int] = []  # place in its owner's queue
        # When each seat's third token arrives (for the tie-break); finished seats first.
        last = [-10.0 + self.finish.index(s) if s in self.finish else 0.0 for s in range(n)]
        for s in range(n):
            a = animal[s]
            base = TOKENS * s
            mine = [t for t in range(base, base + TOKENS) if pos[t] < sanct]
            if not mine:
                continue
            sp = speed[a]
            rs = []
            for t in mine:
                r = eta[a][pos[t]]
                if stop[t] == 1:
                    r += 0.3 if len(mine) > 1 else 1.0
                if self.wave[t]:
                    r += 0.8 / sp
                if self.shelter[t]:
                    r -= 0.7 / sp
                if self.support[t]:
                    r -= 0.2 / sp
                rs.append(r)
            rs.sort()
            # A live Pressure Marker may worsen a landing of this seat later in this round.
            if (s - first) % n >= to_move or (s == cur and pending):
                for o in range(n):
                    card = self.pressure[o]
                    if card < 0 or o == s:
                        continue
                    ahead = (card + g.wheel_shift * self.rot) % g.cards + 1
                    hit = sum(1 for t in mine if 1 <= ahead - pos[t] <= g.die_sides)
                    rs[0] += hit / (g.die_sides * len(mine)) / sp
            total = sum(rs)
            bonus = 0.0
            if not self.boost_used[s]:
                bonus += boost[a] * (0.85 if self.squeeze[s] else 1.0)
            if not self.pressure_used[s]:
                bonus += 0.15
            # Mostly the leading token is moved, so that is where the ability will be used;
            # its worth fades with the turns left to use it in.
            rs[0] -= bonus * min(1.0, total / 8.0) / sp
            if self.detour[s] and len(rs) > 1:  # next turn goes to the rearmost token
                rs[0] += 1.0
                rs[-1] -= 1.0
            if s == cur and pending:
                offset = 0.0
            else:
                offset = ((s - cur) % n or n) / n
            c = 0.0
            for k, r in enumerate(rs):
                c += r if r > 0.2 else 0.2  # a token still needs part of a turn at least
                times.append(c - 1.0 + offset)
                var.append(1.2 * c + 0.05)  # fitted to heuristic self-play outcomes
                owner.append(s)
                order.append(k)
            last[s] = c - 1.0 + offset

        m = len(times)
        spread = [0.0] * n  # variance of each seat's score
        before = [0.0] * m  # expected number of unarrived tokens arriving earlier
        for i in range(m):
            ti, vi, oi = times[i], var[i], owner[i]
            for j in range(i + 1, m):
                if owner[j] == oi:
                    if order[j] < order[i]:
                        before[i] += 1.0
                    else:
                        before[j] += 1.0
                    continue
                x = 1.7 * (times[j] - ti) / sqrt(vi + var[j])
                p = 1.0 / (1.0 + exp(-x)) if x > -30.0 else 0.0  # i arrives before j
                before[j] += p
                before[i] += 1.0 - p
                pq = p * (1.0 - p)
                spread[oi] += pq
                spread[owner[j]] += pq
        if free:
            step = (free[0] - free[-1]) / (len(free) - 1) if len(free) > 1 else 1.0
            top = len(free) - 1
            for i in range(m):
                rank = before[i]
                k = int(rank)
                if k >= top:
                    value = float(free[top])
                else:
                    frac = rank - k
                    value = free[k] * (1.0 - frac) + free[k + 1] * frac
                score[owner[i]] += value
        else:
            step = 1.0
        # Pairs of seats are not independent: every other seat's tokens shuffle their places
        # too, so the spread of a score difference grows with the table (fitted, as above).
        spread_k = 1.5 * n
        win = []
        for s in range(n):
            w = 1.0
            for o in range(n):
                if o == s:
                    continue
                diff = score[s] - score[o] + (0.3 if last[s] < last[o] else -0.3)
                floor = 0.25 if self.left[s] or self.left[o] else 1e-4
                sd = sqrt(spread_k * step * step * (spread[s] + spread[o]) + floor)
                x = 1.7 * diff / sd
                w *= 1.0 / (1.0 + exp(-x)) if x > -30.0 else 0.0
            win.append(w)
        total = sum(win)
        if total <= 0.0:
            return [1.0 / n] * n
        return [w / total for w in win]

    def seat_label(self, seat: int) -> str | None:
        a = self.animal[seat]
        return ANIMALS[a] if a >= 0 else None

    def outcome(self) -> dict[str, Any]:
        g = self.game
        scores = self.scores()
        tied = self.phase == END and scores.count(max(scores)) > 1
        return {
            "winners": self.winners(),
            "scores": scores,
            "animals": [ANIMALS[a] if a >= 0 else None for a in self.animal],
            "finish_order": self.finish[:],
            "tie_break": "third token arrived first" if tied else None,
            "tributaries": [
                [g.tributaries[self.trib_of[t]] for t in range(TOKENS * s, TOKENS * s + TOKENS)
                 if self.trib_of[t] >= 0]
                for s in range(g.num_players)
            ],
        }

    # -- views ----------------------------------------------------------------------------------
    def current_number(self) -> int:
        """The Current (1-based) the wheel shows now."""
        return self.rot + 1

    def space_terrain(self, space: int) -> str | None:
        """Terrain name the card now at ``space`` resolves as (None before it is dealt)."""
        slot = self._slot_at(space)
        return TERRAINS[self._terrain(slot)] if slot < len(self.ring) else None

    def observation(self, seat: int | None) -> dict[str, Any]:
        """Everything on the table is face up; only the order of the undrawn event pile is
        hidden, and it is the same for every seat and the spectator."""
        g = self.game
        n = g.num_players
        spaces = []
        for sp in range(1, g.cards + 1):
            slot = self._slot_at(sp)
            if slot >= len(self.ring):
                spaces.append({"space": sp, "card": None})
                continue
            marker = None
            for m, card in enumerate(self.markers):
                if card == slot:
                    marker = TERRAINS[g.marker_terrain[m]]
            spaces.append({
                "space": sp,
                "card": slot + 1,
                "printed": TERRAINS[self.ring[slot]],
                "terrain": TERRAINS[self._terrain(slot)],
                "marker": marker,
                "pressure": [o for o in range(n) if self.pressure[o] == slot],
                "tokens": [t for t in range(TOKENS * n) if self.pos[t] == sp],
            })
        players = []
        for s in range(n):
            a = self.animal[s]
            tokens = []
            for k in range(TOKENS):
                t = TOKENS * s + k
                tokens.append({
                    "token": LETTERS[k],
                    "position": self.pos[t],
                    "arrived": self.pos[t] >= g.sanctuary,
                    "stop": ("next turn", "this turn")[self.stop[t] - 1] if self.stop[t] else None,
                    "safe_shelter": bool(self.shelter[t]),
                    "river_support": bool(self.support[t]),
                    "pressure_wave": bool(self.wave[t]),
                    "tributary": self.trib_of[t] + 1 if self.trib_of[t] >= 0 else None,
                })
            players.append({
                "seat": s,
                "animal": ANIMALS[a] if a >= 0 else None,
                "boost": BOOSTS[a] if a >= 0 else None,
                "boost_left": not self.boost_used[s],
                "pressure": PRESSURES[a] if a >= 0 else None,
                "pressure_left": not self.pressure_used[s],
                "pressure_marker_on_space": (
                    self._space_of(self.pressure[s]) if self.pressure[s] >= 0 else None),
                "detour_next_turn": bool(self.detour[s]),
                "squeezed_next_turn": bool(self.squeeze[s]),
                "tokens": tokens,
                "score": self.scores()[s],
            })
        return {
            "game": g.name,
            "seat": seat,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "turn_seat": self.seat if self.phase >= TOKEN else None,
            "first_player": self.first if self.first >= 0 else None,
            "current": self.rot + 1,
            "currents": g.wheel_currents,
            "extra_wheel_steps": self.shift_pending,
            "sanctuary": g.sanctuary,
            "spaces": spaces,
            "players": players,
            "moving_token": (
                [self.mover // TOKENS, LETTERS[self.mover % TOKENS]] if self.mover >= 0 else None),
            "roll": self.roll or None,
            "ability_used_this_turn": self.used_ability,
            "extra_roll": self.extra,
            "event": EVENTS[self.event] if self.event >= 0 else None,
            "deck_size": len(self.pile) - self.pile_top + self.pool_left,
            "discard": [EVENTS[e] for e in self.discard],
            "tributaries": [
                {"number": i + 1, "value": v,
                 "seat": self.claimed[i] // TOKENS if self.claimed[i] >= 0 else None,
                 "token": LETTERS[self.claimed[i] % TOKENS] if self.claimed[i] >= 0 else None}
                for i, v in enumerate(g.tributaries)
            ],
            "finish_order": self.finish[:],
            "legal": ([self.action_to_string(a) for a in self.options]
                      if seat is not None and seat == self.current_player() else []),
        }

    def _space_of(self, slot: int) -> int:
        g = self.game
        return (slot + g.wheel_shift * self.rot) % g.cards + 1

    def resample(self, seat: int, rng: random.Random) -> AgainstTheCurrentState:
        """Re-deal the undrawn event pile (nobody has seen it), rewriting the shuffle's chance
        outcomes in the history so the sample still replays to itself."""
        c = self.clone()
        top = c.pile_top
        rest = sorted(c.pile[top:])  # canonical: the sample depends on what is known, not on
        shuffle(rest, rng)  # the true order, so bots decide alike in indistinguishable states
        c.pile[top:] = rest
        start = c.pile_hist + top
        for j, e in enumerate(rest):
            c.actions[start + j] = A_SHUFFLE + e
        return c

    def clone(self) -> AgainstTheCurrentState:
        c = AgainstTheCurrentState.__new__(AgainstTheCurrentState)
        c.game = self.game
        c.phase = self.phase
        c.seat = self.seat
        c.first = self.first
        c.animal = self.animal[:]
        c.ring = self.ring[:]
        c.deal_pool = self.deal_pool[:]
        c.markers = self.markers[:]
        c.marker_i = self.marker_i
        c.pile = self.pile[:]
        c.pile_top = self.pile_top
        c.pile_hist = self.pile_hist
        c.pool = self.pool[:]
        c.pool_left = self.pool_left
        c.shuffle_setup = self.shuffle_setup
        c.discard = self.discard[:]
        c.event = self.event
        c.pos = self.pos[:]
        c.stop = self.stop[:]
        c.shelter = self.shelter[:]
        c.support = self.support[:]
        c.wave = self.wave[:]
        c.trib_of = self.trib_of[:]
        c.claimed = self.claimed[:]
        c.left = self.left[:]
        c.arrived = self.arrived
        c.finish = self.finish[:]
        c.boost_used = self.boost_used[:]
        c.pressure_used = self.pressure_used[:]
        c.pressure = self.pressure[:]
        c.detour = self.detour[:]
        c.squeeze = self.squeeze[:]
        c.rot = self.rot
        c.shift_pending = self.shift_pending
        c.mover = self.mover
        c.roll = self.roll
        c.dist = self.dist
        c.used_ability = self.used_ability
        c.turn_detour = self.turn_detour
        c.turn_squeeze = self.turn_squeeze
        c.extra = self.extra
        c.land = self.land
        c.resume = self.resume
        c.mode = self.mode
        c.options = self.options[:]
        c.actions = self.actions[:]
        return c

    def history(self) -> list[int]:
        """Every action applied so far, chance outcomes included (kept in the ``actions``
        field, since a slot cannot share the method's name)."""
        return self.actions[:]

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
        if self.phase >= PICK and self.phase != PICK:
            assert all(a >= 0 for a in self.animal)
        assert len(set(a for a in self.animal if a >= 0)) == sum(1 for a in self.animal if a >= 0)


AgainstTheCurrentGame.state_class = AgainstTheCurrentState
