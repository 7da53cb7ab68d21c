"""What search may use in Under Current: resampling the cards and roles a seat cannot see, and
a cheap per-seat estimate of the result (``heuristic_returns``).

The game has no narrowed action list and no quick opponent policy, so search plays every legal
action, and when asked to model the other seats by policy it falls back to the heuristic bot
(from their own views). Its ``rollout_depth`` is ``None``: rollouts play to the end and never
read ``heuristic_returns``, which exists for the designer's metrics (``fieldcraft.sim.metrics``)
and the generic lookahead bot. The search settings in the package's ``SPEC`` are the library
defaults: none was measured for this game (rollouts to the end, children grown at once,
exploration 0.7, chance open loop, opponents in the shared tree).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from math import erf, sqrt
from typing import Any

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

from fieldcraft.core.api import shuffle
from fieldcraft.core.search import SearchModel

from .constants import (
    BLUE,
    DECLARE_BLUE,
    DECLARE_RED,
    FLIP,
    GREEN,
    OVER,
    RECEIVE,
    RED,
    RETIRE,
    TARGET,
    YELLOW,
)
from .game import UnderCurrentGame
from .rules import UnderCurrentState
from .turns import TurnRules, TurnTables, balance_winner

PRIORS = {
    4: ((0.27, 0.10, 0.31, 0.40), 0.60, 0.62),
    6: ((0.23, 0.03, 0.38, 0.41), 0.54, 0.49),
}
"""Per player count: (each faction's win chance for a seat holding it before anything is known,
Blue, Red, Yellow, Green; the exponent ``a`` of the progress weight ``progress ** a``; the share
of the turns left expected to file a card).

Fitted (Nelder-Mead, minimax over game stages) on 300 random-bot and 300 heuristic-bot games
per count (seed 1), so that the estimate beats each seat's base rate in both kinds of game at
every stage; checked on 300 more of each (seed 500000) and 1,000 more (seed 2000000). The two
kinds of game differ a lot (random bots file Green cards half the time, so Green wins ~75%;
heuristic bots use them, and Yellow wins most), so the prior is a compromise and the row soon
outweighs it. Other counts borrow the nearest measured table (5: the mean of 4 and 6)."""


def _prior(n: int) -> tuple[tuple[float, ...], float, float]:
    if n in PRIORS:
        return PRIORS[n]
    if n == 5:
        (p4, a4, f4), (p6, a6, f6) = PRIORS[4], PRIORS[6]
        return (tuple((x + y) / 2 for x, y in zip(p4, p6, strict=True)), (a4 + a6) / 2,
                (f4 + f6) / 2)
    return PRIORS[4] if n < 5 else PRIORS[6]


def _phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1.0 + erf(x * 0.7071067811865476))


class UnderCurrentSearch(SearchModel):
    game: UnderCurrentGame

    @cython.locals(seat=cython.int, g=TurnTables, n=cython.int, new=TurnRules, bit=cython.int,
                   slots=list, s=cython.int, hand=list, known=list, i=cython.Py_ssize_t,
                   pool=list, where=list, k=cython.Py_ssize_t, pending_hidden=cython.bint,
                   w=cython.int)
    def resample(self, state: UnderCurrentState, seat: int, rng: random.Random
                 ) -> UnderCurrentState:
        """A full state ``seat`` cannot tell from ``state``: unknown cards and roles re-dealt.

        Every card slot the seat cannot identify (its ``known`` bit and the public bit both
        clear), the pending card if hidden, and the draw pile form one pool, sorted so the draw
        depends only on what the seat knows, then shuffled back into those slots. Roles are
        re-dealt within the seat's role masks; the other seats' private knowledge is replaced by
        the public view plus their own (new) role, since what they knew belonged to the old
        deal. The history is dropped: the real one would tell the true cards.
        """
        g = self.game
        n = g.num_players
        new = state.clone()
        bit = (1 << seat) | (1 << n)
        # Cards: every slot the seat cannot identify, plus the deck, is one shuffled pool.
        slots: list[tuple[list[int], int]] = []
        for s in range(n):
            hand, known = new.hands[s], new.hand_known[s]
            for i in range(len(hand)):
                if not known[i] & bit:
                    slots.append((hand, i))
        for i in range(len(new.row)):
            if not new.row_known[i] & bit:
                slots.append((new.row, i))
        for i in range(len(new.removed)):
            if not new.removed_known[i] & bit:
                slots.append((new.removed, i))
        pool = [where[i] for where, i in slots] + new.deck
        pending_hidden = new.pending >= 0 and not new.pending_known & bit
        if pending_hidden:
            pool.append(new.pending)
        pool.sort()  # canonical: depends on what the seat knows, not on the true deal
        shuffle(pool, rng)
        for k, (where, i) in enumerate(slots):
            where[i] = pool[k]
        k = len(slots)
        if pending_hidden:
            new.pending = pool[k]
            k += 1
        new.deck = sorted(pool[k:])
        new.sampled = True
        new.actions = []
        new.eye_record = [record if w == seat else None
                          for w, record in enumerate(new.eye_record)]
        if new.roles and len(new.roles) == n + g.num_reserve:
            deal_roles(new, sample_roles(new.role_masks[seat], g.num_roles, rng), seat)
        return new

    def informed_resampler(self, state: UnderCurrentState, seat: int
                           ) -> Callable[[random.Random], UnderCurrentState] | None:
        """``resampler``'s draws with the roles re-dealt in proportion to how well each deal
        explains the receiving choices ``seat`` saw (:func:`receipts`, :func:`role_weights`),
        exactly (:func:`weighted_roles`); ``None`` before the roles are dealt, on a state
        without its history (a resample), or when no choice has been seen."""
        g = self.game
        n = g.num_players
        if state.sampled or len(state.roles) != n + g.num_reserve:
            return None
        seen = receipts(state, seat)
        if not seen:
            return None
        draw_roles = weighted_roles(state.role_masks[seat], role_weights(g, seen))
        if draw_roles is None:
            return None
        resample = self.resampler(state, seat)

        def draw(rng: random.Random) -> UnderCurrentState:
            new = resample(rng)
            deal_roles(new, draw_roles(rng), seat)
            return new
        return draw

    def heuristic_returns(self, state: UnderCurrentState) -> list[float]:
        """Each seat's chance that its faction wins, read from the true state (hidden cards and
        roles included; the metrics' "perceived" variant averages it over resamples).

        Per faction, a blend ``(1 - w) * prior + w * soft`` with ``w = progress ** a``
        (progress: the share of turns played; the turns left are the draw pile plus the final
        round, or the final round's count once the pile is out) and ``prior`` and ``a`` the
        fitted table in :data:`PRIORS`. ``soft`` is the row's result projected to the end:

        * a Green card in the row: Green;
        * otherwise the Green declaration wins with the chance that every Green seat names
          both Informers right (each guessing among the positions it cannot rule out; names
          already given count as they are), and the rest goes to Yellow balancing: the turns
          left times a filing share (``PRIORS``) are expected to file cards in the colours of
          the cards still in hands and the pile, so Blue minus Red at the end is taken as
          normal around its expected value, and the chance it lands within the Yellow count
          (Yellow), above it (Blue) or below (Red) is read off. With no turns left this is the
          exact balancing rule.

        The chance that a Green card is still filed is left to the prior (it depends on how
        people play far more than on the cards). Each seat gets its current role's faction's
        value; a finished game gives the true returns. About 3-7 µs a call.
        """
        if state.phase == OVER:
            return state.returns()
        g = self.game
        n = g.num_players
        prior, power, filing = _prior(n)
        roles = state.roles
        faction = g.role_faction
        if len(roles) < n + g.num_reserve:  # roles not dealt yet: the same for every seat
            mean = sum(prior[f] for f in faction) / len(faction)
            return [mean] * n
        declaring = state.phase == DECLARE_RED or state.phase == DECLARE_BLUE
        left = 0 if declaring else (state.final_left if state.final_left >= 0
                                    else len(state.deck) + n)
        done = state.turn
        w = 1.0 if not left else (done / (done + left)) ** power
        colour = g.card_colour
        counts = [0, 0, 0, 0]
        for c in state.row:
            counts[colour[c]] += 1
        soft = [0.0, 0.0, 0.0, 0.0]
        if counts[GREEN]:
            soft[GREEN] = 1.0
        else:
            declared = self._declaration_chance(state) if g.green_declaration else 0.0
            soft[GREEN] = declared
            rest = 1.0 - declared
            if left:
                _projected_balance(state, counts, left, filing, rest, soft)
            else:
                soft[balance_winner(counts[BLUE], counts[RED], counts[YELLOW])] += rest
        value = [(1.0 - w) * prior[f] + w * soft[f] for f in range(4)]
        return [value[faction[roles[s]]] for s in range(n)]

    def _declaration_chance(self, state: UnderCurrentState) -> float:
        """The chance every Green seat names both Informers right (0 when one is not in play)."""
        g = self.game
        n = g.num_players
        roles = state.roles
        reds, blues = g.red_informers, g.blue_informers
        if not reds or not blues:
            return 0.0
        red_mask = sum(1 << r for r in reds)
        blue_mask = sum(1 << r for r in blues)
        made = {}
        for seat, red, blue in state.declarations:
            made[seat] = (red, blue)
        chance = 1.0
        faction = g.role_faction
        for s in range(n):
            if faction[roles[s]] != GREEN:
                continue
            red, blue = made.get(s, (-1, -1))
            if red >= 0 and roles[red] not in reds:
                return 0.0
            if blue >= 0:
                if roles[blue] not in blues:
                    return 0.0
                continue
            masks = state.role_masks[s]
            if red < 0:
                count = sum(1 for p, m in enumerate(masks) if p != s and m & red_mask)
                chance /= count or 1
            count = sum(1 for p, m in enumerate(masks) if p != s and p != red and m & blue_mask)
            chance /= count or 1
        return chance


def deal_roles(new: UnderCurrentState, roles: list[int], seat: int) -> None:
    """Give the resample ``new`` the role deal ``roles``: every other seat then knows its own
    role and the public facts, since what it knew belonged to the old deal (``seat``'s own
    knowledge, which the deal fits, stays)."""
    n = new.game.num_players
    new.roles = roles
    public = new.role_masks[n]
    for w in range(n):
        if w != seat:
            masks = public[:]
            masks[w] = 1 << roles[w]
            new.role_masks[w] = masks


def sample_roles(masks: list[int], num_roles: int, rng: random.Random) -> list[int]:
    """A random assignment of role ids to positions allowed by ``masks`` (one card each).

    Rejection sampling is uniform and usually accepts within a few tries (a search draws one
    deal per iteration, so this loop is written for speed: a deal is dropped at its first
    misfit); when knowledge is tight, a search (``_search_roles``) finds a deal.
    """
    deal = list(range(num_roles))
    size = len(deal)
    if len(masks) != size:
        raise ValueError(f"{len(masks)} role masks for {size} role cards")
    for _ in range(200):  # rejection sampling: uniform over consistent deals
        shuffle(deal, rng)
        for p in range(size):
            mask = masks[p]
            role = deal[p]
            if not mask >> role & 1:
                break
        else:
            return deal[:]
    return _search_roles(masks, num_roles, rng)


def _search_roles(masks: list[int], num_roles: int, rng: random.Random) -> list[int]:
    """``sample_roles`` under tight constraints: a randomised search, fewest candidates first
    with backtracking (slightly biased). The true deal is always a solution, so it never
    fails."""
    order = sorted(range(len(masks)), key=lambda p: (bin(masks[p]).count("1"), rng.random()))
    result = [-1] * len(masks)
    if not _place(order, masks, num_roles, rng, result, 0, 0):
        raise AssertionError("role knowledge is inconsistent")
    return result


def _place(order: list[int], masks: list[int], num_roles: int, rng: random.Random,
           result: list[int], k: int, used: int) -> bool:
    """Give positions ``order[k:]`` roles not in ``used``, backtracking. A module function and
    not a closure: a recursive closure refers to itself, a reference cycle per call that only
    the cyclic collector frees, and searches hold that collector off (``ismcts._pause_gc``)."""
    if k == len(order):
        return True
    p = order[k]
    options = [r for r in range(num_roles) if masks[p] >> r & 1 and not used >> r & 1]
    shuffle(options, rng)
    for r in options:
        result[p] = r
        if _place(order, masks, num_roles, rng, result, k + 1, used | (1 << r)):
            return True
    return False


INFER_SLIP = 0.1
"""The chance that a seat chooses against the receiving model (:func:`receipts`): people, and
bots other than Normal, do not always file what their colour wants, so no choice rules a
faction out; it makes it nine times less likely than one the model expects (0.1 against 0.9).
Not tuned: the one value measured (docs/bots.md, *Informed role draws*)."""


def _colour_value(faction: int, colour: int, blue: int, red: int) -> float:
    """What a card of ``colour`` in the row is worth to ``faction`` with ``blue`` and ``red``
    cards known there: the Normal bot's own valuation (``bot._Reader.colour_value``)."""
    if colour == GREEN:
        return 3.0 if faction == GREEN else -2.0
    if faction == GREEN:
        return 0.0
    if faction == YELLOW:
        if colour == YELLOW:
            return 1.0
        mine, other = (blue, red) if colour == BLUE else (red, blue)
        return 0.5 if mine < other else -0.5
    if colour == faction:
        return 1.0
    if colour == YELLOW:
        mine, other = (blue, red) if faction == BLUE else (red, blue)
        return -0.5 if mine > other else 0.0
    return -1.0


def files(faction: int, colour: int, blue: int, red: int, live_retire: bool) -> bool:
    """Whether Normal, holding ``faction`` and seeing ``blue`` and ``red`` cards in the row,
    files a passed card of ``colour`` (else it lets it be used); ``live_retire``: the card is a
    RETIRE that could name it now, which it rather files."""
    value = _colour_value(faction, colour, blue, red)
    return value >= -value - (1.0 if live_retire else 0.0)


def receipts(state: UnderCurrentState, seat: int) -> list[tuple[int, tuple[bool, ...]]]:
    """The receiving choices of the other seats that ``seat`` saw with the card known to it,
    as (role position now, per faction whether its choice is the one the model expects).

    The model is the Normal bot's rule: file a card whose colour helps the faction, use one
    that hurts it, and file a live RETIRE more readily (used, it would let the passer name the
    receiver; Normal skips that care for a passer it knows to be a teammate, which the seat
    cannot tell, so the model always takes it). Only what ``seat`` was told is read, by
    replaying the game's record: who received, whether the card was filed or used, the card if
    the seat knew it (it passed it, or knew it before) or once it was used (shown to all), and
    which positions a FLIP exchanged (a FLIP is public; the role cards moved are not), so a
    choice follows the role card that made it to where that card lies now. The Blue and Red
    counts that Yellow's and the main colours' values turn on are the row cards the seat could
    see, which the receiver may know better: a source of misfits the slip absorbs. A record
    that does not replay to the state (an edited save) gives no choices.
    """
    g = state.game
    n = g.num_players
    bit = (1 << seat) | (1 << n)
    colour_of, effect_of = g.card_colour, g.card_effect
    replay = g.new_initial_state()
    seen: list[list[Any]] = []
    for action in state.actions:
        phase = replay.phase
        if phase == RECEIVE and replay.receiver != seat:
            card = replay.pending
            used = action != g.A_FILE
            if used or replay.pending_known & bit:
                blue = red = 0
                for i, c in enumerate(replay.row):
                    if replay.row_known[i] & bit:
                        blue += colour_of[c] == BLUE
                        red += colour_of[c] == RED
                colour = colour_of[card]
                live = effect_of[card] == RETIRE and len(replay.row) >= g.retire_min_row
                fits = tuple(files(f, colour, blue, red, live) != used for f in range(4))
                seen.append([replay.receiver, fits])
        elif phase == TARGET and replay.effect == FLIP and seen:
            a = replay.active
            b = n + action - g.A_RESERVE if action >= g.A_RESERVE else action - g.A_TARGET
            for record in seen:  # the role cards at a and b change places
                record[0] = b if record[0] == a else a if record[0] == b else record[0]
        replay._apply(action)
    if (replay.phase, replay.turn, replay.row, replay.roles) != (state.phase, state.turn,
                                                                  state.row, state.roles):
        return []  # the record is not this state's: nothing it says can be trusted
    return [(p, fits) for p, fits in seen]


def role_weights(g: UnderCurrentGame, seen: list[tuple[int, tuple[bool, ...]]]
                 ) -> list[list[float]]:
    """Per role position, per role id, the likelihood of the choices ``seen`` there if that
    role's card lies there (:data:`INFER_SLIP` for each choice against the model)."""
    size = g.num_players + g.num_reserve
    by_faction = [[1.0] * 4 for _ in range(size)]
    for position, fits in seen:
        row = by_faction[position]
        for f in range(4):
            row[f] *= (1.0 - INFER_SLIP) if fits[f] else INFER_SLIP
    faction = g.role_faction
    return [[row[faction[r]] for r in range(g.num_roles)] for row in by_faction]


def weighted_roles(masks: list[int], weights: list[list[float]]
                   ) -> Callable[[random.Random], list[int]] | None:
    """A sampler of role deals (role id per position) allowed by ``masks``, each drawn with
    chance proportional to the product of ``weights[position][role]``: exact, by summing the
    weights of every completion over the sets of roles used so far (at most 2^9 of them, once a
    decision) and then choosing position by position. ``None`` if no allowed deal has weight.
    """
    size = len(masks)
    full = (1 << size) - 1
    if len(weights) != size or any(m & ~full for m in masks):
        raise ValueError(f"{size} positions need masks of {size} roles and a weight row each")
    levels: list[set[int]] = [{0}]
    for p in range(size):
        nxt: set[int] = set()
        for used in levels[p]:
            free = masks[p] & ~used & full
            while free:
                low = free & -free
                free ^= low
                nxt.add(used | low)
        levels.append(nxt)
    later: list[dict[int, float]] = [{} for _ in range(size + 1)]
    later[size][full] = 1.0
    for p in range(size - 1, -1, -1):
        row, after, here = weights[p], later[p + 1], later[p]
        for used in levels[p]:
            total = 0.0
            free = masks[p] & ~used & full
            while free:
                low = free & -free
                free ^= low
                rest = after.get(used | low)
                if rest:
                    total += row[low.bit_length() - 1] * rest
            if total > 0.0:
                here[used] = total
    if 0 not in later[0]:
        return None

    def draw(rng: random.Random) -> list[int]:
        used = 0
        deal = []
        for p in range(size):
            row, after = weights[p], later[p + 1]
            x = rng.random() * later[p][used]
            free = masks[p] & ~used & full
            chosen = 0
            while free:
                low = free & -free
                free ^= low
                rest = after.get(used | low)
                if rest:
                    chosen = low
                    x -= row[low.bit_length() - 1] * rest
                    if x < 0.0:
                        break
            used |= chosen
            deal.append(chosen.bit_length() - 1)
        return deal
    return draw


def _projected_balance(state: UnderCurrentState, counts: list[int], left: int, filing: float,
                       rest: float, soft: list[float]) -> None:
    """Share ``rest`` among Blue, Red and Yellow in ``soft`` by where Blue minus Red is
    expected to end (see ``heuristic_returns``): the row's ``counts`` plus ``left`` turns'
    filings drawn from the colours still in hands and the pile, taken as normal."""
    colour = state.game.card_colour
    blue, red, yellow = counts[BLUE], counts[RED], counts[YELLOW]
    pool = [0, 0, 0, 0]
    for c in state.deck:
        pool[colour[c]] += 1
    for hand in state.hands:
        for c in hand:
            pool[colour[c]] += 1
    if state.pending >= 0 and state.phase == RECEIVE:
        pool[colour[state.pending]] += 1
    total = pool[0] + pool[1] + pool[2] + pool[3] or 1
    m = left * filing / total
    pb, pr = pool[BLUE] * m, pool[RED] * m  # expected Blue and Red cards filed
    mu = blue - red + pb - pr
    var = pb + pr - (pb - pr) ** 2 / (left * filing) if pb + pr else 0.0
    top = yellow + pool[YELLOW] * m + 0.5  # D within +-top: Yellow
    if var > 1e-9:
        sd = sqrt(var)
        above, below = _phi((top - mu) / sd), _phi((-top - mu) / sd)
        soft[BLUE] = rest * (1.0 - above)
        soft[RED] = rest * below
        soft[YELLOW] = rest * (above - below)
    else:
        soft[YELLOW if -top <= mu <= top else BLUE if mu > 0 else RED] = rest
