"""Under Current's secrets: every other seat's role, known exactly from the role masks.

The engine keeps, per viewer, the role cards still possible at each position (``role_masks``,
narrowed by every SCAN, SPY, FLIP and failed RETIRE the viewer saw). Every arrangement of the
role cards that fits those masks is one the seat cannot rule out, so its belief is uniform over
them: the number of arrangements left is a count of perfect matchings, and the chance that a
seat holds a role is the share of arrangements that put it there. Both come from one
forward-backward pass over subsets of the role cards (at most 2^9 subsets), cached per masks,
which change only a few times a game.

Values are role names without the copy number ("Green Agent", not "Green Agent 2"): two copies
of a role are the same role to whoever holds or guesses it. The joint entropy is
``log2(arrangements)`` of the role cards (copies counted apart, as the engine tracks them).
"""

from __future__ import annotations

import math
from typing import Any

from fieldcraft.core.deduction import Belief, GameDeduction, Secret

from .constants import DEAL_ROLES, OVER
from .game import UnderCurrentGame
from .rules import UnderCurrentState
from .view import deduce

CACHE = 10_000


class UnderCurrentDeduction(GameDeduction):
    game: UnderCurrentGame

    def __init__(self, game: UnderCurrentGame):
        super().__init__(game)
        n = game.num_players
        names = [r["name"] for r in game.ruleset["roles"] if r["from"] <= n]
        self.kind = names  # role id -> its name as a catalogue key (copies share it)
        self._cache: dict[tuple[int, ...], tuple[int, list[dict[str, float]]]] = {}

    def secrets(self, state: UnderCurrentState, seat: int) -> list[Secret]:
        g = self.game
        if state.phase == DEAL_ROLES or len(state.roles) < g.num_roles:
            return []
        return [Secret(f"role.{p}", {"key": "role_of", "params": {"seat": p}}, "role",
                       self.kind[state.roles[p]])
                for p in range(g.num_players) if p != seat]

    def belief(self, state: UnderCurrentState, seat: int, secrets: list[Secret]) -> Belief:
        if not secrets:
            return Belief()
        total, marginals = self.arrangements(tuple(deduce(state.role_masks[seat])))
        exact = {x.key: marginals[int(x.key.split(".")[1])] for x in secrets}
        return Belief(exact=exact, joint_entropy=math.log2(total) if total else 0.0,
                      extra={"assignments": total})

    def arrangements(self, masks: tuple[int, ...]) -> tuple[int, list[dict[str, float]]]:
        """(number of role arrangements fitting ``masks``, per position the chance of each role
        name), by counting matchings forwards and backwards over the sets of used roles."""
        hit = self._cache.get(masks)
        if hit is not None:
            return hit
        size = len(masks)
        forward: list[dict[int, int]] = [{0: 1}]
        for p in range(size):
            nxt: dict[int, int] = {}
            for used, ways in forward[p].items():
                free = masks[p] & ~used
                while free:
                    bit = free & -free
                    free ^= bit
                    nxt[used | bit] = nxt.get(used | bit, 0) + ways
            forward.append(nxt)
        full = (1 << size) - 1
        backward: list[dict[int, int]] = [{} for _ in range(size + 1)]
        backward[size] = {full: 1} if full in forward[size] else {}
        for p in range(size - 1, -1, -1):
            here: dict[int, int] = {}
            for used in forward[p]:
                free = masks[p] & ~used
                ways = 0
                while free:
                    bit = free & -free
                    free ^= bit
                    ways += backward[p + 1].get(used | bit, 0)
                if ways:
                    here[used] = ways
            backward[p] = here
        total = backward[0].get(0, 0)
        marginals: list[dict[str, float]] = []
        for p in range(size):
            counts: dict[str, int] = {}
            for used, ways in forward[p].items():
                free = masks[p] & ~used
                while free:
                    bit = free & -free
                    free ^= bit
                    after = backward[p + 1].get(used | bit, 0)
                    if after:
                        name = self.kind[bit.bit_length() - 1]
                        counts[name] = counts.get(name, 0) + ways * after
            marginals.append({k: c / total for k, c in counts.items()} if total else {})
        if len(self._cache) >= CACHE:
            self._cache.clear()
        self._cache[masks] = (total, marginals)
        return total, marginals

    def turn(self, state: UnderCurrentState) -> int | None:
        if state.phase == DEAL_ROLES:
            return None
        return state.turn if state.phase == OVER else state.turn + 1

    def unmask_turns(self, actions: list[int]) -> dict[str, Any] | None:
        """See :meth:`GameDeduction.unmask_turns`. Only a viewer whose role masks changed is
        looked at again, so a study pays a few list comparisons per step. A teammate who knows
        (a Chief's identity check) has not unmasked anyone: only another faction counts, by
        the roles held at that moment (a FLIP can change sides)."""
        g = self.game
        n = g.num_players
        state = g.new_initial_state()
        turns: list[int | None] = [None] * n
        last: list[tuple[int, ...] | None] = [None] * n
        final = 1
        for action in actions:
            state.apply_action(action)
            if state.phase == OVER:
                break  # the end shows every role: that is not deduction
            final = state.turn + 1
            if len(state.roles) < g.num_roles:
                continue
            for viewer in range(n):
                key = tuple(state.role_masks[viewer])
                if key == last[viewer]:
                    continue
                last[viewer] = key
                _, marginals = self.arrangements(tuple(deduce(list(key))))
                side = g.role_faction[state.roles[viewer]]
                for subject in range(n):
                    if turns[subject] is None and len(marginals[subject]) == 1 and \
                            g.role_faction[state.roles[subject]] != side:
                        turns[subject] = state.turn + 1
        labels = [state.seat_label(s) for s in range(n)]
        return {"turns": turns, "last_turn": final, "labels": labels}

    def subject(self, key: str) -> int | None:
        """The seat a secret is about (its role), for time-to-unmask."""
        return int(key.split(".")[1]) if key.startswith("role.") else None
