"""Under Current heuristic bot, from the rules' logic.

Everything is judged from the seat's observation: its own faction, the role candidates it has
narrowed down for each position, and the row cards it can see.

* A colour's worth in the row depends on the faction: Blue and Red want their own colour and
  not the other; Yellow wants Blue and Red level and its own cards; Green wants any Green card;
  a Green card is a disaster for everyone else.
* Passing: a receiver tends to file cards of its own faction's colour and use the rest, so a card
  is worth its colour's value times the chance it is filed plus its effect's value otherwise.
* Receiving: file a card whose colour helps, use one whose colour hurts (unless its effect is a
  live RETIRE in the passer's hands).
* RETIRE only on certain evidence (a single faction left for that seat) and only when ending the
  game now gives the win to this seat's faction; otherwise it names a faction the seat is known
  not to have, which changes nothing.
* Green declaration: name the positions most likely to hold each Informer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .constants import FACTIONS
from .turns import balance_winner


def _colour(card_name: str) -> str:
    return card_name.split("/")[0]


def _effect(card_name: str) -> str:
    return card_name.split("/")[1].split("(")[0].split("#")[0]


class _Reader:
    """Facts the policy needs, read once from the observation."""

    def __init__(self, view: Any):
        self.g = view.game
        self.obs = view.observation()
        self.me = view.seat
        self.role_faction = {
            name: FACTIONS[f] for name, f in zip(self.g.role_names, self.g.role_faction,
                                                 strict=True)
        }
        self.faction = self.role_faction[self.obs["role"]]
        counts = {f: 0 for f in FACTIONS}
        unknown = 0
        for entry in self.obs["row"]:
            if entry["card"] is None:
                unknown += 1
            else:
                counts[_colour(entry["card"])] += 1
        self.counts = counts
        self.unknown_row = unknown

    def factions_at(self, position: int) -> set[str]:
        return {self.role_faction[r] for r in self.obs["roles"][position]}

    def share(self, position: int, faction: str) -> float:
        roles = self.obs["roles"][position]
        return sum(self.role_faction[r] == faction for r in roles) / len(roles)

    def winner(self, counts: dict[str, int]) -> str:
        """Who would win on these row counts (ignoring a Green declaration)."""
        if counts["Green"]:
            return "Green"
        return FACTIONS[balance_winner(counts["Blue"], counts["Red"], counts["Yellow"])]

    def colour_value(self, colour: str) -> float:
        me, c = self.faction, self.counts
        if colour == "Green":
            return 3.0 if me == "Green" else -2.0
        if me == "Green":
            return 0.0
        if me == "Yellow":
            if colour == "Yellow":
                return 1.0
            other = "Red" if colour == "Blue" else "Blue"
            return 0.5 if c[colour] < c[other] else -0.5
        if colour == me:
            return 1.0
        if colour == "Yellow":
            other = "Red" if me == "Blue" else "Blue"
            return -0.5 if c[me] > c[other] else 0.0
        return -1.0

    def certain_targets(self) -> list[tuple[int, str]]:
        """Seats whose faction is known for sure (other than this seat)."""
        out = []
        for seat in range(self.obs["players"]):
            if seat != self.me:
                factions = self.factions_at(seat)
                if len(factions) == 1:
                    out.append((seat, next(iter(factions))))
        return out

    def retire_gain(self, seat: int, faction: str) -> bool:
        """Would a correct RETIRE now end the game in this seat's faction's favour?"""
        counts = dict(self.counts)
        roles = self.obs["roles"][seat]
        if len(roles) == 1 and "Informer" in roles[0]:
            counts[faction] = 0  # that colour leaves the row
        if self.unknown_row > 1:
            return False  # too much unseen to be sure
        return self.winner(counts) == self.faction

    def effect_value(self, effect: str) -> float:
        if effect == "RETIRE":
            live = len(self.obs["row"]) + 1 >= self.g.retire_min_row
            good = any(self.retire_gain(s, f) for s, f in self.certain_targets())
            return 1.0 if live and good else 0.1
        if effect in ("SPY", "SCAN", "PEEK"):
            return 0.3
        if effect in ("FETCH", "BURN"):
            bad = [e for e in self.obs["row"] if e["card"] and self.colour_value(
                _colour(e["card"])) < 0]
            return 0.5 if bad else 0.0
        if effect == "DROP":
            return 0.3 if any(self.colour_value(_colour(c)) > 0 for c in self.obs["hand"]) \
                else 0.0
        return 0.1


def choose(view: Any, rng: random.Random) -> int:
    r = _Reader(view)
    g = r.g
    legal = view.legal_actions()
    phase = r.obs["phase"]

    def jitter() -> float:  # breaks ties at random so equal options do not favour low seats
        return rng.random() * 1e-3

    if phase == "pass":
        return _pass_choice(r, legal, jitter)

    if phase == "receive":
        card = r.obs["pending"]["card"]
        passer = r.obs["pending"]["passer"]
        file_value = r.colour_value(_colour(card))
        use_value = -file_value
        if _effect(card) == "RETIRE" and len(r.obs["row"]) >= g.retire_min_row \
                and r.share(passer, r.faction) < 1.0:
            use_value -= 1.0  # the passer might retire this seat
        return g.A_FILE if file_value >= use_value else g.A_USE

    if phase == "target":
        return _target_choice(r, legal, rng, jitter)

    if phase in ("swap_own", "swap_theirs", "drop"):
        def worth(a: int) -> float:
            return r.colour_value(_colour(g.card_names[a - g.A_OWN])) + jitter()
        return max(legal, key=worth) if phase == "drop" else min(legal, key=worth)

    if phase == "row_choice":
        def badness(a: int) -> float:
            entry = r.obs["row"][a - g.A_ROW]
            value = 0.0 if entry["card"] is None else r.colour_value(_colour(entry["card"]))
            return value + jitter()
        return min(legal, key=badness)

    if phase == "retire":
        for seat, faction in r.certain_targets():
            if r.retire_gain(seat, faction):
                return g.A_RETIRE + seat * 4 + FACTIONS.index(faction)
        harmless = [a for a in legal
                    if FACTIONS[(a - g.A_RETIRE) % 4] not in
                    r.factions_at((a - g.A_RETIRE) // 4)]
        pool = harmless or legal
        return pool[int(rng.random() * len(pool))]

    if phase in ("declare_red", "declare_blue"):
        wanted = "Red Informer" if phase == "declare_red" else "Blue Informer"
        base = g.A_NAME_RED if phase == "declare_red" else g.A_NAME_BLUE

        def chance(a: int) -> float:
            roles = r.obs["roles"][a - base]
            return (wanted in roles) / len(roles) + jitter()
        return max(legal, key=chance)

    return legal[int(rng.random() * len(legal))]


def _pass_choice(r: _Reader, legal: list[int], jitter: Callable[[], float]) -> int:
    """The pass worth most: filed (more likely the more the receiver shares the card's colour)
    its colour counts for us, used its effect does."""
    g = r.g
    best, best_value = legal[0], -1e9
    for action in legal:
        card, target = divmod(action - g.A_PASS, g.num_players)
        name = g.card_names[card]
        share = r.share(target, _colour(name)) if _colour(name) in FACTIONS else 0.0
        p_file = 0.2 + 0.6 * share
        value = p_file * r.colour_value(_colour(name)) \
            + (1 - p_file) * r.effect_value(_effect(name)) + jitter()
        if value > best_value:
            best, best_value = action, value
    return best


def _target_choice(r: _Reader, legal: list[int], rng: random.Random,
                   jitter: Callable[[], float]) -> int:
    """Whom SPY or SCAN learns most about, whom FLIP takes the winning faction from (or keeps
    ours with); otherwise a random seat."""
    g = r.g
    effect = r.obs["pending"]["effect"]
    seats = [a for a in legal if a < g.A_RESERVE]
    if effect in ("SPY", "SCAN"):  # learn most where least is known
        return max(seats, key=lambda a: len(r.obs["roles"][a - g.A_TARGET]) + jitter())
    if effect == "FLIP":
        current = r.winner(r.counts)
        if current != r.faction:
            for a in seats:
                if r.factions_at(a - g.A_TARGET) == {current}:
                    return a
        reserves = [a for a in legal if a >= g.A_RESERVE]
        if reserves and current != r.faction:
            return reserves[0]
        # keep what we have as far as possible: flip with a seat known to share our faction
        for a in seats:
            if r.factions_at(a - g.A_TARGET) == {r.faction}:
                return a
    return legal[int(rng.random() * len(legal))]
