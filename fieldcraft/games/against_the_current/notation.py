"""Against the Current notation: "move token A", "roll 4", "echolocation +1", "tributary 3
(10 pts)" and the rest, one fixed name per action id, read back by one dictionary lookup.

Everything on the table is public, so every action is logged for every seat except the
shuffle's chance outcomes (the order of the face-down pile); a drawn card shows up when it is
attempted or skipped.

Structured choices (``choice(state, action) -> (kind, args)``); ``seat`` is a seat number,
``token`` a letter A-C of that seat, ``space`` a river space (0 Start, Sanctuary = cards + 1),
``card`` a wheel card's number (its setup space)::

    kind       args                                           actions
    move       seat, token, space (where it stands)           move token A/B/C
    decline    {}                                             no ability (any ability window)
    boost      boost (name), change (die +/-, Echolocation    echolocation +1/-1, migration
               and Migration Burst) or space/card (the        burst, regeneration, slip
               landing, Regeneration and Slip Through)        through
    pressure   pressure (name), space, card (where the        place pressure
               marker goes)
    attempt    event                                          attempt challenge
    skip       event                                          skip challenge
    target     event, seat, and for a token: token, space     target seat S [token X]
    remove     marker (terrain), space, card                  remove <terrain> marker
    tributary  number (1-based), points                       tributary N (P pts)
    pick       animal                                         pick <animal>

Chance outcomes have kinds too (``first`` {seat}, ``challenge`` {passed}, ``deal`` {terrain,
card}, ``marker`` {marker, card}, ``shuffle`` {event}, ``roll`` {value}), though only decisions
are shown to people.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.core.errors import MalformedActionError
from fieldcraft.core.notation import Notation, normalize, require_text

from .layout import (
    A_ATTEMPT,
    A_BURST,
    A_CH_FAIL,
    A_CH_PASS,
    A_DEAL,
    A_ECHO_DOWN,
    A_ECHO_UP,
    A_FIRST,
    A_MOVE,
    A_NO_ABILITY,
    A_PICK,
    A_PRESSURE,
    A_REGEN,
    A_ROLL,
    A_SHUFFLE,
    A_SKIP,
    A_SLIP,
    A_TARGET_SEAT,
    A_TARGET_TOKEN,
    ANIMALS,
    ATTEMPT,
    AXOLOTL,
    BOOSTS,
    CHALLENGE,
    DEAL,
    EEL,
    EVENTS,
    FIRST,
    LETTERS,
    MARKER,
    PORPOISE,
    PRESSURES,
    ROLL,
    SHUFFLE,
    STURGEON,
    TERRAINS,
    TOKEN,
    TOKENS,
)
from .rules import AgainstTheCurrentGame, AgainstTheCurrentState

_FIXED = {
    A_NO_ABILITY: "no ability", A_ECHO_UP: "echolocation +1",
    A_ECHO_DOWN: "echolocation -1", A_BURST: "migration burst",
    A_REGEN: "regeneration", A_SLIP: "slip through", A_PRESSURE: "place pressure",
    A_ATTEMPT: "attempt challenge", A_SKIP: "skip challenge",
    A_CH_PASS: "challenge passed", A_CH_FAIL: "challenge failed",
}


def _name(g: AgainstTheCurrentGame, a: int) -> str:
    """The one readable name of each action (context-free, so it always reads back)."""
    if a < A_NO_ABILITY:
        return f"move token {LETTERS[a]}"
    if a in _FIXED:
        return _FIXED[a]
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
    if A_ROLL <= a < g.a_remove:
        return f"roll {a - A_ROLL + 1}"
    if g.a_remove <= a < g.a_marker:
        return f"remove {TERRAINS[g.marker_terrain[a - g.a_remove]]} marker"
    if g.a_marker <= a < g.a_trib:
        m, slot = divmod(a - g.a_marker, g.cards)
        return f"{TERRAINS[g.marker_terrain[m]]} marker on space {slot + 1}"
    i = a - g.a_trib
    return f"tributary {i + 1} ({g.tributaries[i]} pts)"


class AgainstTheCurrentNotation(Notation):
    game: AgainstTheCurrentGame

    def __init__(self, game: AgainstTheCurrentGame):
        super().__init__(game)
        self.names: tuple[str, ...] = tuple(_name(game, a) for a in range(game.n_actions))
        self.index: dict[str, int] = {normalize(n): a for a, n in enumerate(self.names)}

    def action_to_string(self, state: Any, action: int) -> str:
        names = self.names
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(names):
            raise MalformedActionError(f"{action!r} is not an action of against-the-current")
        return names[action]

    def string_to_action(self, state: Any, text: str) -> int:
        action = self.index.get(normalize(require_text(text)))
        if action is None:
            raise MalformedActionError(
                f"{text!r} is not an against-the-current action (e.g. 'move token A', 'roll 4', "
                "'echolocation +1', 'attempt challenge', 'tributary 1 (12 pts)')"
            )
        return action

    # -- log lines -------------------------------------------------------------------------------
    def describe_action(self, state: AgainstTheCurrentState, action: int,
                        seat: int | None) -> str | None:
        """Public log line. Everything is public except the shuffled event pile, so only the
        shuffle's chance outcomes are withheld; a drawn card shows up when it is attempted."""
        if not 0 <= action < self.game.n_actions:
            return None
        phase = state.phase
        text = self.names[action]
        if phase == SHUFFLE:
            return None
        if phase == DEAL:
            return f"space {len(state.ring) + 1}: {TERRAINS[action - A_DEAL]}"
        if phase in (MARKER, FIRST):
            return text
        who = _who(state, state.seat)
        if phase == ROLL:
            return f"{who} rolls {action - A_ROLL + 1}"
        if phase == CHALLENGE:
            return f"{who}: {text}"
        if phase == ATTEMPT:
            verb = "attempts" if action == A_ATTEMPT else "skips"
            return f"{who} draws {EVENTS[state.event]} and {verb} the challenge"
        if phase == TOKEN:
            t = TOKENS * state.seat + action - A_MOVE
            return f"{who}: {text} (from {self.place(state.pos[t])})"
        if state.is_terminal():
            return None
        return f"{who}: {text}"

    def place(self, p: int) -> str:
        """A position as people say it."""
        if p == 0:
            return "Start"
        if p >= self.game.sanctuary:
            return "River Sanctuary"
        return f"space {p}"

    # -- structured choices ---------------------------------------------------------------------
    def choice(self, state: AgainstTheCurrentState, action: int) -> tuple[str, dict[str, Any]]:
        g = self.game
        seat = state.seat
        if action < A_NO_ABILITY:
            t = TOKENS * seat + action - A_MOVE
            return "move", {"seat": seat, "token": LETTERS[action - A_MOVE],
                            "space": state.pos[t]}
        if action == A_NO_ABILITY:
            return "decline", {}
        if action in (A_ECHO_UP, A_ECHO_DOWN):
            change = g.echo_change if action == A_ECHO_UP else -g.echo_change
            return "boost", {"boost": BOOSTS[PORPOISE], "change": change}
        if action == A_BURST:
            return "boost", {"boost": BOOSTS[STURGEON], "change": g.burst}
        if action in (A_REGEN, A_SLIP, A_PRESSURE):
            where = {"space": state.pos[state.mover], "card": state.land + 1}
            if action == A_PRESSURE:
                return "pressure", {"pressure": PRESSURES[state.animal[seat]], **where}
            return "boost", {"boost": BOOSTS[AXOLOTL if action == A_REGEN else EEL], **where}
        if action in (A_ATTEMPT, A_SKIP):
            return ("attempt" if action == A_ATTEMPT else "skip"), {"event": EVENTS[state.event]}
        if A_PICK <= action < A_TARGET_SEAT:
            return "pick", {"animal": ANIMALS[action - A_PICK]}
        if A_TARGET_SEAT <= action < A_FIRST:
            return "target", self._target(state, action)
        if A_FIRST <= action < A_CH_PASS:
            return "first", {"seat": action - A_FIRST}
        if action in (A_CH_PASS, A_CH_FAIL):
            return "challenge", {"passed": action == A_CH_PASS}
        if A_DEAL <= action < A_SHUFFLE:
            return "deal", {"terrain": TERRAINS[action - A_DEAL], "card": len(state.ring) + 1}
        if A_SHUFFLE <= action < A_ROLL:
            return "shuffle", {"event": EVENTS[action - A_SHUFFLE]}
        if A_ROLL <= action < g.a_remove:
            return "roll", {"value": action - A_ROLL + 1}
        if g.a_remove <= action < g.a_marker:
            m = action - g.a_remove
            slot = state.markers[m]
            return "remove", {"marker": TERRAINS[g.marker_terrain[m]],
                              "space": state._space_of(slot), "card": slot + 1}
        if g.a_marker <= action < g.a_trib:
            m, slot = divmod(action - g.a_marker, g.cards)
            return "marker", {"marker": TERRAINS[g.marker_terrain[m]], "card": slot + 1}
        i = action - g.a_trib
        return "tributary", {"number": i + 1, "points": g.tributaries[i]}

    def _target(self, state: AgainstTheCurrentState, action: int) -> dict[str, Any]:
        event = EVENTS[state.event] if state.event >= 0 else None
        if action < A_TARGET_TOKEN:
            return {"event": event, "seat": action - A_TARGET_SEAT}
        t = action - A_TARGET_TOKEN
        return {"event": event, "seat": t // TOKENS, "token": LETTERS[t % TOKENS],
                "space": state.pos[t]}


def _who(state: AgainstTheCurrentState, s: int) -> str:
    a = state.animal[s] if 0 <= s < len(state.animal) else -1
    return f"seat {s} ({ANIMALS[a]})" if a >= 0 else f"seat {s}"
