"""How long a game of Against the Current can last, derived from the rules as implemented.

The bounds count every legal game, whatever the dice and the players choose (OpenSpiel's
``max_game_length``: decisions only; ``max_chance_nodes``: chance outcomes).

**With a round limit (``round_limit`` = ``L``, default 100) the bound is the limit's.** A round
gives each of the ``P`` seats at most one turn (the seat moves on by one after every turn or
pass, and the round ends when it is back at the first player), so a game has at most ``P L``
turns. A turn holds at most 6 decisions besides tributary claims: the token choice, two ability
windows per roll (after the roll, on landing) and at most two rolls (a second one only from an
Extra Roll, whose own 6 draws nothing), one event attempt (one card a turn) and, for a card that
is not Extra Roll, one target: ``1 + 2 + 1 + max(2, 1)``. Without drawable events a turn is the
token choice and one roll's two windows (3). Every arrival claims one tributary (``3 P`` in all)
and every seat may pick its animal (``P``): ``max_game_length = P + 6 P L + 3 P``. Chance: the
setup (the deal, the markers, the first shuffle, the first player), then per turn at most two
dice and one challenge, and the reshuffles: a reshuffle deals the discards, every discard is a
card drawn earlier, and it empties the discard pile, so reshuffled cards number at most the
draws, one a turn: ``setup + 4 P L`` (``setup + P L`` without events). When no setback is
possible either (below), the smaller of the two bounds is declared. ``round_limit`` = ``null``
is the rulebook's game, for which the rest of this docstring holds.

**With no round limit and the default rules there is no bound.** A roll of 1 from Start lands
on space 1, and a card there that gives the token's animal -1 or -2 puts it straight back on
Start (never behind it). Nothing else has to happen in that turn: every ability window may be
declined and every event card skipped, so the wheel turns exactly one step a round and the card
under space 1 runs through the same few cards (slots ``-wheel_shift * k mod cards``, ``k = 0 ..
wheel_currents - 1``) for ever. One seat stalled like that is enough, since the game only ends
when every token has arrived (finished seats are passed over and the wheel keeps turning). The
default river holds Pollution and Dam cards, bad for every animal, and the wheel shows only 4
different cards at space 1, so a deal exists that stalls any animal; :func:`start_stall` checks
this (with rolls of 2 onto a -2 card too) for any ruleset, and a test plays such a stall round
after round.
Such a game has probability zero, but it is a legal game, so ``max_game_length`` and
``max_chance_nodes`` are ``None``. The rulebook has no round limit (the ruling of 2026-12-04
adds ``round_limit`` for that reason); results that can never leave a token on or behind the
space its move started from (together with no Backwash) would bound it too.

**A finite bound exists when no token can ever lose ground** (:func:`setback_possible` is false:
no -1/-2 result for any animal that may be in play on any terrain the wheel may show, no
Pressure or Pressure Wave that could worsen a PASS, no Safe Shelter that could soften a STOP into
-2, no Backwash). Then every die roll moves its token at least one space on, except once an
Echolocation down to 0 (one Porpoise, one Boost), so a game has at most ``R = 3 P S + z`` rolls
(``P`` players, ``S`` = Sanctuary's position, ``z`` that one roll). A turn with a move has at
least one roll, and holds at most: the token choice, an event attempt and an event target (3),
plus two ability windows per roll (after the roll and on landing); every arrival claims one
tributary (``3 P``) and every seat may pick its animal (``P``). Chance: the deal, the markers,
the first shuffle and the first player, then per roll one die, and per drawn card one challenge
and at most one later reshuffle of it.

Between the two (a setback is possible but no stall from Start is) a game may or may not be
endless (stalls further up the river, setbacks that only Pressure or events bring); no bound is
derived for those rulesets and they also report ``None``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .layout import (
    ANIMALS,
    BACKWASH,
    FISHING_NETS,
    PORPOISE,
    PRESSURE_WAVE,
    RIVER_SUPPORT,
    SAFE_SHELTER,
    STOP_RESULT,
    STURGEON,
    TOKENS,
)

if TYPE_CHECKING:
    from .rules import AgainstTheCurrentGame

_GOOD, _BAD, _BAD2 = range(3)  # a card's class for a stall: harmless, -1 (or -2), -2


def animals_in_play(game: AgainstTheCurrentGame) -> tuple[int, ...]:
    """Animals some seat can play: the fixed ones, or any (seat 0 picks from all four)."""
    return game.seat_animals or tuple(range(len(ANIMALS)))


def start_stall(game: AgainstTheCurrentGame) -> int | None:
    """An animal that can stay on Start for ever under some deal, or ``None``.

    At its ``k``-th turn the wheel is at Current ``k mod wheel_currents``; the token rolls 1
    onto a card with -1 or -2 for it, or 2 onto a -2 card, and is back on Start. A deal that
    offers one of the two at every Current is a placement of the resolved card mix on the
    circle of slots (any layout of ``setup_mix`` is a legal deal and marker placement, since
    a marked card is a host card wherever it lies); whether one exists is a small dynamic
    programme over the slots."""
    cards = game.cards
    need = {(-game.wheel_shift * k) % cards for k in range(game.wheel_currents)}
    two = game.die_sides >= 2 and cards >= 2  # a roll of 2 lands on a river space
    counts = game.setup_mix
    for a in animals_in_play(game):
        row = game.table[a]
        bad2 = sum(c for t, c in enumerate(counts) if row[t] == -2)
        bad = bad2 + sum(c for t, c in enumerate(counts) if row[t] == -1)
        if _coverable(cards, need, bad, bad2 if two else 0):
            return a
    return None


def _coverable(cards: int, need: set[int], bad: int, bad2: int) -> bool:
    """Whether ``bad`` cards (``bad2`` of them -2) can lie on a circle of ``cards`` slots so
    that every slot ``j`` in ``need`` holds a bad card or slot ``j + 1`` a -2 card."""
    if bad2 == 0:
        return len(need) <= bad
    inf = cards + 1
    for c0 in (_GOOD, _BAD, _BAD2):
        # (class of the last slot placed, -2 cards used) -> fewest bad cards used
        dp = {(c0, int(c0 == _BAD2)): int(c0 != _GOOD)}
        for j in range(1, cards):
            new: dict[tuple[int, int], int] = {}
            for (prev, used2), used in dp.items():
                for c in (_GOOD, _BAD, _BAD2):
                    if j - 1 in need and prev == _GOOD and c != _BAD2:
                        continue
                    u2, u = used2 + (c == _BAD2), used + (c != _GOOD)
                    if u2 <= bad2 and u <= bad and new.get((c, u2), inf) > u:
                        new[(c, u2)] = u
            dp = new
        for (last, used2), used in dp.items():
            if used2 <= bad2 and used <= bad and not (
                    cards - 1 in need and last == _GOOD and c0 != _BAD2):
                return True
    return False


def events_drawable(game: AgainstTheCurrentGame) -> bool:
    """Whether any move can ever draw an event card (the die face, or the final move with
    ``event_uses_modified_roll``, must equal ``event_roll``)."""
    rolls = set(range(1, game.die_sides + 1))
    if game.event_modified:
        animals = animals_in_play(game)
        for r in list(rolls):
            if PORPOISE in animals:
                rolls.add(r + game.echo_change)
                if r - game.echo_change >= game.echo_floor:
                    rolls.add(r - game.echo_change)
            if STURGEON in animals:
                rolls.add(r + game.burst)
    return game.event_roll in rolls


def setback_possible(game: AgainstTheCurrentGame) -> bool:
    """Whether some legal game can move a token back (or leave it where its roll started,
    beyond the one Echolocation to 0): the condition under which no bound is derived."""
    animals = animals_in_play(game)
    counts = game.setup_mix
    terrains = {t for t, c in enumerate(game.terrain_counts) if c} | {
        t for t, c in enumerate(counts) if c}  # printed (Cleanup Crew) or as marked
    drawable = events_drawable(game)

    def deck(event: int) -> bool:
        return drawable and game.deck_counts[event] > 0

    results = {game.table[a][t] for a in animals for t in terrains}
    if results & {-1, -2} or deck(BACKWASH):
        return True
    if deck(SAFE_SHELTER) and STOP_RESULT in results:
        return True  # Safe Shelter softens a STOP into -2
    worsen = deck(PRESSURE_WAVE) or any(game.pressure_terrain[b] in terrains for b in animals)
    zero = 0 in results or any(game.pass_terrains[a][t] for a in animals for t in terrains) or (
        deck(RIVER_SUPPORT) and FISHING_NETS in terrains)
    return worsen and zero  # a PASS worsened to -1


def round_limit_bounds(game: AgainstTheCurrentGame, limit: int) -> tuple[int, int]:
    """``(max_game_length, max_chance_nodes)`` of a game cut off after ``limit`` rounds; see
    the module docstring for the argument."""
    players = game.num_players
    turns = players * limit
    drawable = events_drawable(game)
    # token choice + two windows a roll, two rolls (Extra Roll), an attempt; or one roll
    per_turn = 6 if drawable else 3
    picks = 0 if game.seat_animals else players
    decisions = picks + turns * per_turn + TOKENS * players
    setup = game.cards + len(game.marker_terrain) + game.deck_size + 1
    chance = setup + turns * (4 if drawable else 1)  # two dice, a challenge, a reshuffled card
    return decisions, chance


def length_bounds(game: AgainstTheCurrentGame) -> tuple[int | None, int | None]:
    """``(max_game_length, max_chance_nodes)``; see the module docstring for the argument."""
    limited = None if game.round_limit is None else round_limit_bounds(game, game.round_limit)
    if setback_possible(game):
        return limited if limited is not None else (None, None)
    players = game.num_players
    animals = animals_in_play(game)
    zero_roll = int(PORPOISE in animals and game.echo_floor == 0
                    and game.echo_change <= game.die_sides)
    rolls = TOKENS * players * game.sanctuary + zero_roll
    drawable = events_drawable(game)
    per_turn = 3 if drawable else 1  # token choice, event attempt, event target
    picks = 0 if game.seat_animals else players
    decisions = picks + rolls * (per_turn + 2) + TOKENS * players
    setup = game.cards + len(game.marker_terrain) + game.deck_size + 1
    chance = setup + rolls * (3 if drawable else 1)  # a die; a challenge and a reshuffle a card
    if limited is not None:
        return min(decisions, limited[0]), min(chance, limited[1])
    return decisions, chance
