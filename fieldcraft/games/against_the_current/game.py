"""What a game of Against the Current is made of, without its rules: the ruleset resolved into
the tables the rules read (:class:`AgainstTheCurrentGame`) and the fields of a position
(:class:`AgainstTheCurrentFields`, the base of the state class).

Both are extension types in the compiled build (``game.pxd``), so the rules in :mod:`.turns`,
:mod:`.events` and :mod:`.rules` read a table or a field as a C value: they live in this leaf
module, which every one of those imports, because a compiled class can only build on (and
read the C fields of) a class compiled before it. The state class is a chain of single
inheritance, ``AgainstTheCurrentFields -> Turns -> EventDeck -> AgainstTheCurrentState``, with
every field declared once, here; see docs/performance.md.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.api import Game, RulesetError, State
from fieldcraft.core.fields import StateMeta
from fieldcraft.core.spec import CONSTANT_SUM, GameInfo, GameType

from .bounds import length_bounds
from .layout import (
    A_CH_FAIL,
    A_CH_PASS,
    A_FIRST,
    A_ROLL,
    ANIMALS,
    EVENTS,
    MODIFIERS,
    RESULT_CODES,
    TERRAINS,
    TOKENS,
)

GAME_TYPE = GameType(utility=CONSTANT_SUM)
"""Sequential, explicit chance (deal, markers, shuffles, first player, dice, challenges) and
imperfect information (the order of the event pile). The returns always add up to 1: a tie on
points goes to the seat with more tokens arrived, then to the one whose last token arrived first
(at the rulebook's end, when every token has arrived, the third), and seats still level (only
possible at the round limit, with no token home) share the 1."""


SIZE_LIMIT = 1 << 15
"""Bound on the size of the numbers a ruleset feeds the rules (die sides, the wheel, the deck):
the compiled rules compute with 32-bit C ints (``wheel_shift`` times the Current among them),
so anything larger is refused in both builds rather than overflowing in one."""


def _rerr(message: str) -> RulesetError:
    return RulesetError(f"against-the-current: {message}")


def _check_sizes(r: dict[str, Any]) -> None:
    sizes = {
        "terrain_counts (their sum)": sum(r["terrain_counts"].values()),
        "event_deck (its sum)": sum(r["event_deck"].values()),
        "die_sides": r["die_sides"],
        "event_roll": r["event_roll"],
        "wheel_shift": r["wheel_shift"],
        "wheel_currents": r["wheel_currents"],
        "echolocation_change": r["echolocation_change"],
        "migration_burst_spaces": r["migration_burst_spaces"],
    }
    for name, value in sizes.items():
        if not -SIZE_LIMIT < value < SIZE_LIMIT:
            raise _rerr(f"{name} must be between {-SIZE_LIMIT} and {SIZE_LIMIT}")


class AgainstTheCurrentGame(Game):
    """Holds the resolved ruleset as flat tuples so the state's hot path never parses data."""

    game_type = GAME_TYPE

    # The tables the rules read at every step (C fields of this class in the compiled build,
    # derived from these annotations; everything else stays in the instance dict).
    cards: int
    sanctuary: int
    terrain_counts: tuple[int, ...]
    table: tuple[tuple[int, ...], ...]
    pass_terrains: tuple[tuple[bool, ...], ...]
    pressure_terrain: tuple[int, ...]
    echo_change: int
    echo_floor: int
    burst: int
    marker_terrain: tuple[int, ...]
    marker_host: int
    setup_mix: tuple[int, ...]
    tributaries: tuple[int, ...]
    wheel_shift: int
    wheel_currents: int
    die_sides: int
    event_roll: int
    event_modified: bool
    deck_counts: tuple[int, ...]
    deck_size: int
    challenge_outcomes: tuple[tuple[int, float], ...]
    challenge_ids: frozenset[int]
    modifier_order: tuple[int, ...]
    second_chance_served: bool
    skip_uses_effects: bool
    last_round: int
    seat_animals: tuple[int, ...]
    a_remove: int
    a_marker: int
    a_trib: int
    n_actions: int
    roll_actions: tuple[int, ...]
    roll_outcomes: tuple[tuple[int, float], ...]

    def __init__(self, spec: Any, players: int, ruleset: dict[str, Any],
                 overrides: dict[str, Any]):
        super().__init__(spec, players, ruleset, overrides)
        r = ruleset
        _check_sizes(r)
        self._read_river(r)
        self._read_markers(r, players)
        self._read_chance(r)
        self._read_turn_rules(r, players)
        self._lay_out_actions()

    def _read_river(self, r: dict[str, Any]) -> None:
        """Read and check the wheel's terrain cards and what each terrain does to each animal
        (the results table, Boost's pass terrains, Pressure's terrain, Echolocation and
        Migration Burst), turning names into indexed tuples the rules read by number."""
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

    def _read_markers(self, r: dict[str, Any], players: int) -> None:
        """Read and check the setup pieces placed on the wheel (markers on their host cards, the
        tributaries), after the terrain counts they are checked against."""
        markers = r["markers"]
        if any(m not in TERRAINS for m in markers) or len(set(markers)) != len(markers):
            raise _rerr("markers must be distinct terrain names")
        self.marker_terrain = tuple(TERRAINS.index(m) for m in markers)
        if r["marker_start_terrain"] not in TERRAINS:
            raise _rerr("marker_start_terrain must be a terrain name")
        self.marker_host = TERRAINS.index(r["marker_start_terrain"])
        if self.terrain_counts[self.marker_host] < len(markers):
            raise _rerr("not enough marker_start_terrain cards for every marker")
        mix = list(self.terrain_counts)
        for m in self.marker_terrain:
            if mix[self.marker_host] > 0:
                mix[self.marker_host] -= 1
                mix[m] += 1
        self.setup_mix = tuple(mix)
        """How many cards resolve as each terrain once every marker sits on a host card (the
        same for every deal): the river's mix, which the race model and the bot both read."""

        self.tributaries = tuple(r["tributaries"])
        if len(self.tributaries) < TOKENS * players:
            raise _rerr(f"{players} players need at least {TOKENS * players} tributaries")

    def _read_chance(self, r: dict[str, Any]) -> None:
        """Read and check what chance draws from (the wheel's turns, the die, the event deck, a
        challenge's odds), and make the challenge's outcome list, leaving out an outcome the
        odds make impossible so that no chance node offers a zero-probability outcome."""
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
        self.challenge_ids = frozenset(a for a, _ in self.challenge_outcomes)

    def _read_turn_rules(self, r: dict[str, Any], players: int) -> None:
        """Read and check the rulings on how a turn and the game run (the order modifiers apply
        in, how stops and skipped turns count, the round limit, fixed animals per seat)."""
        order = r["modifier_order"]
        if sorted(order) != sorted(MODIFIERS):
            raise _rerr(f"modifier_order must be an ordering of {', '.join(MODIFIERS)}")
        self.modifier_order = tuple(MODIFIERS.index(m) for m in order)
        self.second_chance_served = r["second_chance_counts_served_stop"]
        self.skip_uses_effects = r["skipped_turn_uses_up_effects"]
        limit = r["round_limit"]
        if limit is not None and not 1 <= limit < 1 << 31:  # a C int in the compiled build
            raise _rerr("round_limit must be a whole number of rounds >= 1, or null for none")
        self.round_limit: int | None = limit
        """The rounds after which the game ends whoever has arrived (RULINGS section 3); ``None``:
        the rulebook's game, which only ends when every token has arrived."""
        self.last_round = -1 if limit is None else limit
        """``round_limit`` as the rules compare it with the rounds played (-1: never)."""

        seat_animals = r["seat_animals"]
        if seat_animals:
            if (len(seat_animals) != players or any(a not in ANIMALS for a in seat_animals)
                    or len(set(seat_animals)) != players):
                raise _rerr(f"seat_animals must be {players} different animal names, or []")
        self.seat_animals = tuple(ANIMALS.index(a) for a in seat_animals)

    def _lay_out_actions(self) -> None:
        """The ruleset-sized tail of the action space (see the module docstring), once the die,
        the markers, the wheel and the tributaries it is sized by are read; and the die's
        outcomes, made once."""
        self.a_remove = A_ROLL + self.die_sides
        self.a_marker = self.a_remove + len(self.marker_terrain)
        self.a_trib = self.a_marker + len(self.marker_terrain) * self.cards
        self.n_actions = self.a_trib + len(self.tributaries)
        self.roll_actions = tuple(range(A_ROLL, A_ROLL + self.die_sides))
        self.roll_outcomes = tuple((a, 1.0 / self.die_sides) for a in self.roll_actions)

    def _info(self) -> GameInfo:
        """Chance ids run from the first player's (32) to the last marker placement, the
        Cleanup Crew removals among them; the length bounds are argued in :mod:`.bounds`
        (``None`` under the default rules: a token can be kept on Start for ever)."""
        decisions, chance = length_bounds(self)
        return GameInfo(
            num_players=self.num_players,
            num_distinct_actions=self.n_actions,
            max_chance_outcomes=self.a_trib - A_FIRST,
            chance_offset=A_FIRST,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=decisions,
            max_chance_nodes=chance,
        )



class AgainstTheCurrentFields(State, metaclass=StateMeta):
    """A position's fields, declared once for the whole state class (the rules are in its
    subclasses). Token fields are indexed ``3 * seat + k``; slot = a card's setup space - 1."""

    phase: int
    seat: int
    first: int
    animal: list[int]
    ring: list[int]
    """The wheel's printed terrains by slot, in the order dealt."""
    deal_pool: list[int]
    markers: list[int]
    """The slot each marker lies on (-1: removed)."""
    marker_i: int
    pile: list[int]
    pile_top: int
    pile_hist: int
    """Where in ``actions`` the current pile's shuffle began (``resample`` rewrites it)."""
    pool: list[int]
    pool_left: int
    shuffle_setup: bool
    discard: list[int]
    event: int
    pos: list[int]
    stop: list[int]
    """1: stopped on the owner's next turn; 2: serving it now."""
    shelter: list[int]
    support: list[int]
    wave: list[int]
    trib_of: list[int]
    claimed: list[int]
    left: list[int]
    arrived: int
    finish: list[int]
    boost_used: list[int]
    pressure_used: list[int]
    pressure: list[int]
    """The slot each seat's Pressure Marker lies on (-1: none); cleared when the wheel turns."""
    detour: list[int]
    squeeze: list[int]
    rot: int
    rounds: int
    """Rounds completed: every seat has had its turn (or been passed over) once more."""
    shift_pending: int
    mover: int
    roll: int
    dist: int
    used_ability: bool
    turn_detour: bool
    turn_squeeze: bool
    extra: bool
    land: int
    resume: int
    mode: int
    options: list[int]
    """The legal decisions while a seat is to decide (ascending)."""
    actions: list[int]

    game: AgainstTheCurrentGame


