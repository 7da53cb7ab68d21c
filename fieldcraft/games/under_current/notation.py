"""Under Current notation: "pass Blue/SCAN to seat 2", "file", "use", "scan seat 1", "give
Red/SPY", "fetch row 0", "retire seat 3 as Red", "name reserve 0 as Blue Informer".

Some names read the state (the verb of a target or a row pick follows the pending effect), but
every name reads back to its id whatever the state, so a log can be replayed. A seat's log line
never shows a card or a role that seat has not seen: a passed card is named only to the two
seats that handle it, a draw only to the drawer, a role deal only to its receiver.

Structured choices (``choice``): the kind says which piece a board puts the choice on.

============  ===================================================  ================================
kind          args                                                 when
============  ===================================================  ================================
``pass``      ``card`` (name), ``card_id``, ``to`` (seat)          the active seat passes a card
``file``      ``card``, ``card_id``, ``from`` (the passer)         the receiver archives the card
``use``       ``card``, ``card_id``, ``from``                      the receiver lets it be used
``target``    ``seat``, ``effect`` (SCAN, SPY, FLIP, SWAP, SNATCH) naming a seat for an effect
``reserve``   ``reserve`` (slot), ``position``, ``effect`` (FLIP)  FLIP with a reserve card
``give``      ``card``, ``card_id``, ``with`` (the other seat)     a SWAP pick from one's hand
``drop``      ``card``, ``card_id``                                DROP's card from one's hand
``row``       ``index`` (0 = oldest), ``effect`` (FETCH, BURN)     a row card to take or burn
``retire``    ``seat``, ``faction``                                a RETIRE guess
``name``      ``informer`` (Red, Blue), ``position``, and          a Green declaration
              ``seat`` or ``reserve``
``draw``      ``card``, ``card_id``, ``seat``                      chance: a card from the pile
``deal``      ``role``, ``role_id``, ``position``                  chance: a role card
``start``     ``seat``                                             chance: the starting seat
``snatch``    ``card``, ``card_id``, ``seat``                      chance: the card SNATCH takes
============  ===================================================  ================================

``position`` is an index into the observation's ``roles`` list (seats, then reserve slots).
Every card a decision's args name is one the deciding seat holds or has just been handed.
"""

from __future__ import annotations

import re
from typing import Any

from fieldcraft.core.errors import MalformedActionError
from fieldcraft.core.notation import Notation, require_text
from fieldcraft.core.text import Event

from . import events
from .constants import (
    BURN,
    CHOOSE_START,
    DEAL_CARDS,
    DEAL_ROLES,
    DRAW,
    DROP_CHOICE,
    EFFECTS,
    FACTIONS,
    FETCH,
    FLIP,
    PASS,
    RECEIVE,
    RETIRE_CHOICE,
    ROW_CHOICE,
    SCAN,
    SNATCH,
    SNATCH_DRAW,
    SNATCH_PICK,
    SPY,
    SWAP,
    SWAP_OWN,
    SWAP_THEIRS,
    TARGET,
)
from .game import UnderCurrentGame
from .rules import UnderCurrentState

_TARGET_VERBS = {SCAN: "scan", SPY: "spy on", FLIP: "flip with", SWAP: "swap with",
                 SNATCH: "snatch from"}

_CARD = r"[a-z]+/[a-z]+(?:\(\d\+\))?(?:#\d+)?"
_PATTERNS = re.compile(
    rf"(?P<pass>pass (?P<pcard>{_CARD}) to seat (?P<pseat>\d+))"
    r"|(?P<file>file)|(?P<use>use)"
    r"|(?P<target>(?:scan|spy on|flip with|swap with|snatch from|target) seat (?P<tseat>\d+))"
    r"|(?P<reserve>flip with reserve (?P<rnum>\d+))"
    rf"|(?P<own>(?:drop|give) (?P<ocard>{_CARD}))"
    r"|(?P<row>(?:fetch|burn|take) row (?P<rindex>\d+))"
    r"|(?P<retire>retire seat (?P<xseat>\d+) as (?P<xfaction>blue|red|yellow|green))"
    r"|(?P<name>name (?P<npos>(?:seat|reserve) \d+) as (?P<nfaction>red|blue) informer)"
    rf"|(?P<draw>draw (?P<dcard>{_CARD}))"
    r"|(?P<deal>deal (?P<drole>[a-z]+ [a-z]+(?: \d+)?) to (?:seat \d+|reserve \d+|a position))"
    r"|(?P<start>seat (?P<sseat>\d+) starts)"
    rf"|(?P<snatch>snatch picks (?P<scard>{_CARD}))"
)


class UnderCurrentNotation(Notation):
    game: UnderCurrentGame

    def __init__(self, game: UnderCurrentGame):
        super().__init__(game)
        self._card_lookup = {name.lower(): i for i, name in enumerate(game.card_names)}
        self._role_lookup = {name.lower(): i for i, name in enumerate(game.role_names)}

    def action_to_string(self, state: UnderCurrentState, action: int) -> str:
        g = self.game
        n = g.num_players
        if not isinstance(action, int) or not 0 <= action < g.num_actions:
            raise MalformedActionError(f"action {action!r} is outside 0..{g.num_actions - 1}")
        if action < g.A_FILE:
            card, to = divmod(action - g.A_PASS, n)
            return f"pass {g.card_names[card]} to seat {to}"
        if action == g.A_FILE:
            return "file"
        if action == g.A_USE:
            return "use"
        if action < g.A_RESERVE:
            verb = _TARGET_VERBS.get(state.effect, "target")
            return f"{verb} seat {action - g.A_TARGET}"
        if action < g.A_OWN:
            return f"flip with reserve {action - g.A_RESERVE}"
        if action < g.A_ROW:
            verb = "drop" if state.phase == DROP_CHOICE else "give"
            return f"{verb} {g.card_names[action - g.A_OWN]}"
        if action < g.A_RETIRE:
            verb = {FETCH: "fetch", BURN: "burn"}.get(state.effect, "take")
            return f"{verb} row {action - g.A_ROW}"
        if action < g.A_NAME_RED:
            seat, faction = divmod(action - g.A_RETIRE, 4)
            return f"retire seat {seat} as {FACTIONS[faction]}"
        if action < g.A_NAME_BLUE:
            return f"name {g.position_name(action - g.A_NAME_RED)} as Red Informer"
        if action < g.A_DRAW:
            return f"name {g.position_name(action - g.A_NAME_BLUE)} as Blue Informer"
        if action < g.A_ROLE:
            return f"draw {g.card_names[action - g.A_DRAW]}"
        if action < g.A_START:
            where = g.position_name(len(state.roles)) if state.phase == DEAL_ROLES \
                else "a position"
            return f"deal {g.role_names[action - g.A_ROLE]} to {where}"
        if action < g.A_SNATCH:
            return f"seat {action - g.A_START} starts"
        return f"snatch picks {g.card_names[action - g.A_SNATCH]}"

    def string_to_action(self, state: UnderCurrentState, text: str) -> int:
        g = self.game
        s = " ".join(require_text(text).strip().lower().split())
        m = _PATTERNS.fullmatch(s)
        if not m:
            raise MalformedActionError(f"cannot read {text!r} as an Under Current action")
        kind = m.lastgroup
        n = g.num_players
        seat, card, position = self._seat, self._card, self._position
        if kind == "pass":
            return g.A_PASS + card(m["pcard"]) * n + seat(m["pseat"])
        if kind == "file":
            return g.A_FILE
        if kind == "use":
            return g.A_USE
        if kind == "target":
            return g.A_TARGET + seat(m["tseat"])
        if kind == "reserve":
            return position("reserve " + m["rnum"]) - n + g.A_RESERVE
        if kind == "own":
            return g.A_OWN + card(m["ocard"])
        if kind == "row":
            index = int(m["rindex"])
            if not 0 <= index < g.num_cards:
                raise MalformedActionError(f"row index {index} is out of range")
            return g.A_ROW + index
        if kind == "retire":
            return g.A_RETIRE + seat(m["xseat"]) * 4 + FACTIONS.index(m["xfaction"].title())
        if kind == "name":
            base = g.A_NAME_RED if m["nfaction"] == "red" else g.A_NAME_BLUE
            return base + position(m["npos"])
        if kind == "draw":
            return g.A_DRAW + card(m["dcard"])
        if kind == "deal":
            role = m["drole"]
            if role not in self._role_lookup:
                raise MalformedActionError(f"no role named {role!r} in this game")
            return g.A_ROLE + self._role_lookup[role]
        if kind == "start":
            return g.A_START + seat(m["sseat"])
        return g.A_SNATCH + card(m["scard"])

    def _seat(self, value: str) -> int:
        number = int(value)
        n = self.game.num_players
        if not 0 <= number < n:
            raise MalformedActionError(f"no seat {number} in a {n}-player game")
        return number

    def _card(self, value: str) -> int:
        if value not in self._card_lookup:
            raise MalformedActionError(f"no card named {value!r} in this game")
        return self._card_lookup[value]

    def _position(self, value: str) -> int:
        """``seat N`` or ``reserve N`` as a role position (seats, then the reserve)."""
        g = self.game
        where, number = value.split()
        if where == "seat":
            return self._seat(number)
        r = int(number)
        if not 0 <= r < g.num_reserve:
            raise MalformedActionError(f"no reserve {r} (there are {g.num_reserve})")
        return g.num_players + r

    def choice(self, state: UnderCurrentState, action: int) -> tuple[str, dict[str, Any]]:
        g = self.game
        n = g.num_players
        names = g.card_names

        def card(c: int) -> dict[str, Any]:
            return {"card": names[c], "card_id": c}

        if action < g.A_FILE:
            c, to = divmod(action - g.A_PASS, n)
            return "pass", {**card(c), "to": to}
        if action == g.A_FILE or action == g.A_USE:
            kind = "file" if action == g.A_FILE else "use"
            return kind, {**card(state.pending), "from": state.active}
        effect = EFFECTS[state.effect] if state.effect >= 0 else None
        if action < g.A_RESERVE:
            return "target", {"seat": action - g.A_TARGET, "effect": effect}
        if action < g.A_OWN:
            slot = action - g.A_RESERVE
            return "reserve", {"reserve": slot, "position": n + slot, "effect": effect}
        if action < g.A_ROW:
            c = action - g.A_OWN
            if state.phase == DROP_CHOICE:
                return "drop", card(c)
            other = state.target if state.phase == SWAP_OWN else state.active
            return "give", {**card(c), "with": other}
        if action < g.A_RETIRE:
            return "row", {"index": action - g.A_ROW, "effect": effect}
        if action < g.A_NAME_RED:
            seat, faction = divmod(action - g.A_RETIRE, 4)
            return "retire", {"seat": seat, "faction": FACTIONS[faction]}
        if action < g.A_DRAW:
            red = action < g.A_NAME_BLUE
            pos = action - (g.A_NAME_RED if red else g.A_NAME_BLUE)
            where = {"seat": pos} if pos < n else {"reserve": pos - n}
            return "name", {"informer": "Red" if red else "Blue", "position": pos, **where}
        if action < g.A_ROLE:
            who = {DEAL_CARDS: state.draw_seat, DRAW: state.active,
                   SNATCH_DRAW: state.target}.get(state.phase, -1)
            return "draw", {**card(action - g.A_DRAW), "seat": who}
        if action < g.A_START:
            role = action - g.A_ROLE
            return "deal", {"role": g.role_names[role], "role_id": role,
                            "position": len(state.roles)}
        if action < g.A_SNATCH:
            return "start", {"seat": action - g.A_START}
        return "snatch", {**card(action - g.A_SNATCH), "seat": state.target}

    def event(self, state: UnderCurrentState, action: int, seat: int | None) -> Event | None:
        """What ``seat`` is told of ``action``, for people (``events.py``: leak-free, setup in
        one line); ``describe_action`` stays the compact English notation."""
        return events.event(state, action, seat)

    def summary(self, state: UnderCurrentState) -> dict[str, Any] | None:
        """The end screen: role, faction and row count per seat, and the deciding rule."""
        return events.summary(state)

    def describe_action(self, state: UnderCurrentState, action: int,
                        seat: int | None) -> str | None:
        """A seat's log line; what that seat has not seen is left out (see the module text)."""
        g = self.game
        phase = state.phase
        a = state.active

        def you(s: int) -> str:
            return "you" if s == seat else f"seat {s}"

        if phase == DEAL_ROLES:
            pos = len(state.roles)
            if pos == seat:
                return f"you are dealt the role {g.role_names[action - g.A_ROLE]}"
            return None
        if phase in (DEAL_CARDS, DRAW, SNATCH_DRAW):
            who = {DEAL_CARDS: state.draw_seat, DRAW: a, SNATCH_DRAW: state.target}[phase]
            if who == seat:
                return f"you draw {g.card_names[action - g.A_DRAW]}"
            return f"seat {who} draws a card"
        if phase == CHOOSE_START:
            return f"{you(action - g.A_START)} start" + ("" if action - g.A_START == seat else "s")
        if phase == PASS:
            card, to = divmod(action - g.A_PASS, g.num_players)
            what = g.card_names[card] if seat in (a, to) else "a card"
            return f"{you(a)} pass{'' if a == seat else 'es'} {what} to {you(to)}"
        if phase == RECEIVE:
            r = state.receiver
            if action == g.A_FILE:
                seen = seat in (a, r)
                what = g.card_names[state.pending] if seen else "the card"
                return f"{you(r)} file{'' if r == seat else 's'} {what} face down"
            used = g.card_names[state.pending]
            return f"{you(r)} let{'' if r == seat else 's'} {you(a)} use {used}"
        return self._describe_effect(state, action, seat)

    def _describe_effect(self, state: UnderCurrentState, action: int,
                         seat: int | None) -> str | None:
        """The log line of an effect's choices (``describe_action`` for those phases)."""
        g = self.game
        phase = state.phase
        a = state.active

        def you(s: int) -> str:
            return "you" if s == seat else f"seat {s}"

        if phase == SNATCH_PICK:
            t = state.target
            if t == seat:
                taken = g.card_names[action - g.A_SNATCH]
                return f"{taken} is snatched from your hand into the row"
            return f"a random card of seat {t} goes face down into the row"
        if phase == SWAP_OWN:
            return f"you pick {g.card_names[action - g.A_OWN]} to swap" if seat == a else None
        if phase == SWAP_THEIRS:
            if seat in (a, state.target):
                mine = g.card_names[state.hands[a][state.swap_index]]
                theirs = g.card_names[action - g.A_OWN]
                return f"swap done: seat {a} gave {mine}, seat {state.target} gave {theirs}"
            return f"seat {a} and seat {state.target} swap a card"
        if phase == DROP_CHOICE:
            what = g.card_names[action - g.A_OWN] if seat == a else "a card"
            return f"{you(a)} drop{'' if a == seat else 's'} {what} face down into the row"
        if phase == TARGET and state.effect == SCAN and seat == a:
            t = action - g.A_TARGET
            # sorted, as the view shows known cards: the hand's order is the order its cards
            # came in, which the scanner has not seen (found by tests/server/test_leak_audit)
            cards = ", ".join(sorted(g.card_names[c] for c in state.hands[t]))
            return f"you scan seat {t}: {cards}"
        if phase == TARGET and state.effect == SPY and seat == a:
            t = action - g.A_TARGET
            return f"you spy on seat {t}: {g.role_names[state.roles[t]]}"
        if phase == RETIRE_CHOICE:
            t, f = divmod(action - g.A_RETIRE, 4)
            right = g.role_faction[state.roles[t]] == f
            verdict = "correct: eliminated, the game ends" if right else "wrong: nothing happens"
            return f"seat {a} retires seat {t} as {FACTIONS[f]} ({verdict})"
        if phase == ROW_CHOICE:
            i = action - g.A_ROW
            viewer = g.num_players if seat is None else seat
            shown = state.row_known[i] & ((1 << g.num_players) | (1 << viewer))
            if state.effect == FETCH and seat == a:
                shown = 1
            what = g.card_names[state.row[i]] if shown else "a face-down card"
            verb = "fetches" if state.effect == FETCH else "burns"
            return f"seat {a} {verb} row {i}: {what}"
        return f"seat {state.current_player()}: {self.action_to_string(state, action)}"
