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

from fieldcraft.core.api import shuffle
from fieldcraft.core.search import SearchModel

from .constants import BLUE, DECLARE_BLUE, DECLARE_RED, GREEN, OVER, RED, YELLOW
from .rules import UnderCurrentGame, UnderCurrentState
from .turns import balance_winner

PRIORS = {
    4: ((0.26, 0.12, 0.34, 0.34), 1.25),
    6: ((0.22, 0.05, 0.40, 0.37), 1.05),
}
"""Per player count: (each faction's win chance for a seat holding it before anything is known,
Blue, Red, Yellow, Green; the exponent ``a`` of the progress weight ``progress ** a``).

Fitted (Nelder-Mead, minimax over game stages) on 300 random-bot and 300 heuristic-bot games
per count (seed 1), so that the estimate beats each seat's base rate in both kinds of game at
every stage; checked on 300 more of each (seed 500000). The two kinds of game differ a lot
(random bots file Green cards half the time, so Green wins ~75%; heuristic bots use them, and
Yellow wins most), so the prior is a compromise and the current row soon outweighs it. Other
counts borrow the nearest measured table (5: their mean)."""


def _prior(n: int) -> tuple[tuple[float, ...], float]:
    if n in PRIORS:
        return PRIORS[n]
    if n == 5:
        (p4, a4), (p6, a6) = PRIORS[4], PRIORS[6]
        return tuple((x + y) / 2 for x, y in zip(p4, p6, strict=True)), (a4 + a6) / 2
    return PRIORS[4] if n < 5 else PRIORS[6]


class UnderCurrentSearch(SearchModel):
    game: UnderCurrentGame

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
            new.roles = sample_roles(new.role_masks[seat], g.num_roles, rng)
            public = new.role_masks[n]
            for w in range(n):  # others' private knowledge would contradict the new deal
                if w != seat:
                    masks = public[:]
                    masks[w] = 1 << new.roles[w]
                    new.role_masks[w] = masks
        return new

    def heuristic_returns(self, state: UnderCurrentState) -> list[float]:
        """Each seat's chance that its faction wins, read from the true state (hidden cards and
        roles included; the metrics' "perceived" variant averages it over resamples).

        A blend ``(1 - w) * prior + w * now`` per faction, where ``now`` is what the row would
        give if the game ended at once (a Green card: Green; else the Green declaration, each
        Green seat naming the Informers right with chance 1 / (positions it cannot rule out),
        already-made declarations counted as they are; else Yellow balancing or the larger
        colour), ``prior`` the fitted table in :data:`PRIORS`, and ``w = progress ** a`` with
        progress the share of turns played (the turns left are the draw pile plus the final
        round, or the final round's count once the pile is out). Each seat gets its current
        role's faction's value; at the end, the true returns. About 2-4 µs a call (under a
        state's clone).
        """
        if state.phase == OVER:
            return state.returns()
        g = self.game
        n = g.num_players
        prior, power = _prior(n)
        roles = state.roles
        faction = g.role_faction
        if len(roles) < n + g.num_reserve:  # roles not dealt yet: the same for every seat
            mean = sum(prior[f] for f in faction) / len(faction)
            return [mean] * n
        left = state.final_left if state.final_left >= 0 else len(state.deck) + n
        done = state.turn
        declaring = state.phase == DECLARE_RED or state.phase == DECLARE_BLUE
        w = 1.0 if declaring or not done + left else (done / (done + left)) ** power
        # what the row would give now
        colour = g.card_colour
        blue = red = yellow = green = 0
        for c in state.row:
            k = colour[c]
            if k == BLUE:
                blue += 1
            elif k == RED:
                red += 1
            elif k == YELLOW:
                yellow += 1
            else:
                green += 1
        now = [0.0, 0.0, 0.0, 0.0]
        if green:
            now[GREEN] = 1.0
        else:
            declared = self._declaration_chance(state) if g.green_declaration else 0.0
            now[GREEN] = declared
            now[balance_winner(blue, red, yellow)] += 1.0 - declared
        value = [(1.0 - w) * prior[f] + w * now[f] for f in range(4)]
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


def sample_roles(masks: list[int], num_roles: int, rng: random.Random) -> list[int]:
    """A random assignment of role ids to positions allowed by ``masks`` (one card each).

    Rejection sampling is uniform and usually accepts within a few tries; when knowledge is
    tight, a search (fewest candidates first, backtracking) finds a deal, and since the true deal
    is always a solution it never fails.
    """
    deal = list(range(num_roles))
    for _ in range(200):  # rejection sampling: uniform over consistent deals
        shuffle(deal, rng)
        if all(mask >> r & 1 for mask, r in zip(masks, deal, strict=True)):
            return deal[:]
    # Tight constraints: fall back to a randomised search (always succeeds, slightly biased).
    order = sorted(range(len(masks)), key=lambda p: (bin(masks[p]).count("1"), rng.random()))
    result = [-1] * len(masks)

    def place(k: int, used: int) -> bool:
        if k == len(order):
            return True
        p = order[k]
        options = [r for r in range(num_roles) if masks[p] >> r & 1 and not used >> r & 1]
        shuffle(options, rng)
        for r in options:
            result[p] = r
            if place(k + 1, used | (1 << r)):
                return True
        return False

    if not place(0, 0):
        raise AssertionError("role knowledge is inconsistent")
    return result
