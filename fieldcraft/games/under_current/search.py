"""What search may use in Under Current: resampling the cards and roles a seat cannot see.

The game has no evaluation, no narrowed action list and no quick opponent policy, so search
plays rollouts to the end with every legal action, and when asked to model the other seats by
policy it falls back to the heuristic bot (from their own views). The search settings in the
package's ``SPEC`` are the library defaults: none was measured for this game (rollouts to the
end, children grown at once, exploration 0.7, chance open loop, opponents in the shared tree).
"""

from __future__ import annotations

import random

from fieldcraft.core.api import shuffle
from fieldcraft.core.search import SearchModel

from .rules import UnderCurrentGame, UnderCurrentState


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
