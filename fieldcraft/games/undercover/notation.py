"""Undercover notation: "place 18,16", "take 17,16", "draw top A", "flip", "colour Red"...

Cells are written ``x,y`` in board coordinates (``a = y * width + x``), the same ``x``/``y`` the
observation gives each tile on the board. The only secret in the log is which Agent a deal put
into a pile; everything else, a flip included, happens in front of the table.

Structured choices (``choice``): every legal action's ``kind`` and ``args``, so a board never
reads a label.

=========  ===================================================  ================================
kind       args                                                 action
=========  ===================================================  ================================
place      ``x``, ``y``; ``diagonal``: it touches tiles only    put the held tile on cell x,y
           diagonally (no meeting, nothing is evaluated)
take       ``x``, ``y``, ``colour`` (the side it shows)         activate the Agent on cell x,y
draw       ``pile`` (letter), ``end`` ("top"/"bottom"),         activate a pile's top Agent (or
           ``colour`` (a top's visible side; null for a         its bottom one, when nothing
           bottom, which nobody has seen)                       else may be activated)
joker      ``seat``                                             activate the seat's Joker
flip       ``colour`` (the side the held Agent shows now)       turn the held Agent over
keep       ``colour``                                           place it as it is
colour     ``colour``, ``seat``                                 the seat plays that colour
deal       ``agent`` ("Official/Back"), ``pile``                (chance) an Agent into a pile
first      ``seat``                                             (chance) the starting player
token      ``value``, ``lane`` (colour), ``space``              (chance) a lane's next token
=========  ===================================================  ================================

``colour`` is a decision (of ``seat``) when the ruleset has players choose, a chance outcome
otherwise. No args ever name an Agent's id: it would tell which twin it is, and so its back.
"""

from __future__ import annotations

import re
from typing import Any

from fieldcraft.core.errors import MalformedActionError
from fieldcraft.core.notation import Notation, require_text

from .grid import HQ0, JOKER0, agent_faces, pile_letter
from .rules import ACTIVATE, FLIP, OVER, SETUP, UndercoverGame, UndercoverState
from .setup_steps import K_COLOUR, K_START, K_TOKEN


def _is_int(text: str) -> bool:
    """ASCII digits with an optional minus (``str.isdigit`` also accepts "²", which int() does
    not read, and ``lstrip`` accepted "--5")."""
    return re.fullmatch(r"-?[0-9]+", text) is not None


class UndercoverNotation(Notation):
    game: UndercoverGame

    # -- names -----------------------------------------------------------------------------------
    def action_to_string(self, state: UndercoverState, action: int) -> str:
        g = self.game
        names = g.colour_names
        if not 0 <= action < g.num_actions:
            raise MalformedActionError(f"action {action} is outside 0..{g.num_actions - 1}")
        if action < g.TAKE:
            return f"place {action % g.width},{action // g.width}"
        if action < g.DRAW_TOP:
            a = action - g.TAKE
            return f"take {a % g.width},{a // g.width}"
        if action < g.DRAW_BOTTOM:
            return f"draw top {pile_letter(action - g.DRAW_TOP)}"
        if action < g.TAKE_JOKER:
            return f"draw bottom {pile_letter(action - g.DRAW_BOTTOM)}"
        if action == g.TAKE_JOKER:
            return "take joker"
        if action == g.FLIP:
            return "flip"
        if action == g.KEEP:
            return "keep"
        if action < g.COLOUR:
            off, back = agent_faces(action - g.DEAL)
            return f"deal {names[off]}/{names[back]}"
        if action < g.FIRST:
            return f"colour {names[action - g.COLOUR]}"
        if action < g.TOKEN:
            return f"first seat {action - g.FIRST}"
        return f"token {action - g.TOKEN}"

    def string_to_action(self, state: UndercoverState, text: str) -> int:
        g = self.game
        words = require_text(text).strip().lower().split()
        bad = MalformedActionError(f"not an Undercover action: {text!r}")
        if not words:
            raise bad
        head = words[0]
        if len(words) == 1:
            if head == "flip":
                return g.FLIP
            if head == "keep":
                return g.KEEP
            raise bad
        if head in ("place", "take") and len(words) == 2:
            if head == "take" and words[1] == "joker":
                return g.TAKE_JOKER
            xy = words[1].split(",")
            if len(xy) != 2 or not all(_is_int(v) for v in xy):
                raise bad
            x, y = int(xy[0]), int(xy[1])
            if not (0 <= x < g.width and 0 <= y < g.height):
                raise MalformedActionError(f"{text!r}: cell {x},{y} is off the board")
            cell = y * g.width + x
            return (g.PLACE if head == "place" else g.TAKE) + cell
        if head == "draw" and len(words) == 3 and words[1] in ("top", "bottom"):
            letter = words[2].upper()
            k = ord(letter) - ord("A") if len(letter) == 1 and letter.isascii() else -1
            if not 0 <= k < g.num_piles:
                raise bad
            return (g.DRAW_TOP if words[1] == "top" else g.DRAW_BOTTOM) + k
        if head == "deal" and len(words) == 2:
            faces = words[1].split("/")
            if len(faces) != 2:
                raise bad
            off, back = g.colour_of(faces[0]), g.colour_of(faces[1])
            for a in (2 * off, 2 * off + 1):
                if agent_faces(a) == (off, back):
                    return g.DEAL + a
            raise bad
        if head == "colour" and len(words) == 2:
            return g.COLOUR + g.colour_of(words[1])
        if head == "first" and len(words) == 3 and words[1] == "seat" and _is_int(words[2]):
            s = int(words[2])
            if not 0 <= s < g.num_players:
                raise bad
            return g.FIRST + s
        if head == "token" and len(words) == 2 and _is_int(words[1]):
            v = int(words[1])
            if not 0 <= v <= g.max_token_value:
                raise bad
            return g.TOKEN + v
        raise bad

    # -- structured choices ------------------------------------------------------------------------
    def choice(self, state: UndercoverState, action: int) -> tuple[str, dict[str, Any]]:
        g = self.game
        names = g.colour_names
        if 0 <= action < g.TAKE:
            y = g.a2p[action]
            return "place", {"x": action % g.width, "y": action // g.width,
                             "diagonal": not state.nmask[y]}
        if g.TAKE <= action < g.DRAW_TOP:
            a = action - g.TAKE
            t = state.grid[g.a2p[a]]
            return "take", {"x": a % g.width, "y": a // g.width,
                            "colour": names[state.tcol[t]] if t >= 0 else None}
        if g.DRAW_TOP <= action < g.TAKE_JOKER:
            top = action < g.DRAW_BOTTOM
            k = action - (g.DRAW_TOP if top else g.DRAW_BOTTOM)
            pile = state.piles[k]
            seen = top and pile and state.phase != SETUP
            return "draw", {"pile": pile_letter(k), "end": "top" if top else "bottom",
                            "colour": names[state.tcol[pile[-1]]] if seen else None}
        if action == g.TAKE_JOKER:
            return "joker", {"seat": state.cur}
        if action == g.FLIP or action == g.KEEP:
            held = state.held
            return ("flip" if action == g.FLIP else "keep"), {
                "colour": names[state.tcol[held]] if held >= 0 else None}
        if g.DEAL <= action < g.COLOUR:
            off, back = agent_faces(action - g.DEAL)
            step = g.setup_steps[state.setup_i] if state.phase == SETUP else None
            return "deal", {"agent": f"{names[off]}/{names[back]}",
                            "pile": pile_letter(step[1]) if step else None}
        if g.COLOUR <= action < g.FIRST:
            step = g.setup_steps[state.setup_i] if state.phase == SETUP else None
            seat = (state.start + step[1]) % g.num_players \
                if step and step[0] == K_COLOUR and state.start >= 0 else None
            return "colour", {"colour": names[action - g.COLOUR], "seat": seat}
        if g.FIRST <= action < g.TOKEN:
            return "first", {"seat": action - g.FIRST}
        if g.TOKEN <= action < g.num_actions:
            step = g.setup_steps[state.setup_i] if state.phase == SETUP else None
            lane = step[1] if step and step[0] == K_TOKEN else None
            return "token", {"value": action - g.TOKEN,
                             "lane": names[lane] if lane is not None else None,
                             "space": step[2] if lane is not None else None}
        raise MalformedActionError(f"{action!r} is not an action of {g.name}")

    # -- the log -----------------------------------------------------------------------------------
    def _tile_name(self, state: UndercoverState, t: int) -> str:
        g = self.game
        c = state.tcol[t]
        if t >= JOKER0:
            return "Joker"
        if t >= HQ0:
            return f"{g.colour_names[c]} Headquarters"
        return f"{g.colour_names[c]} Agent"

    def describe_action(self, state: UndercoverState, action: int,
                        seat: int | None) -> str | None:
        """Public log line. Everything but the identity of a dealt Agent is seen by all (the
        flip is shown to the table before it happens), so the only secret is the deal."""
        g = self.game
        names = g.colour_names
        if state.phase == SETUP:
            kind, k, space = g.setup_steps[state.setup_i]
            if kind == K_START:
                return f"seat {action - g.FIRST} is the starting player"
            if kind == K_COLOUR:
                who = (state.start + k) % g.num_players
                return f"seat {who} plays {names[action - g.COLOUR]}"
            if kind == K_TOKEN:
                return f"{names[k]} lane, space {space}: Point Token {action - g.TOKEN}"
            return f"an Agent is dealt into pile {pile_letter(k)}"
        if state.phase == OVER:
            return None
        p = state.cur
        who = f"{names[state.colour[p]]} (seat {p})"
        if state.phase == FLIP:
            t = state.held
            if action == g.FLIP:
                off, back = agent_faces(t)
                new = off if state.up[t] else back
                return f"{who} flips the {names[state.tcol[t]]} Agent: it is {names[new]}"
            if action == g.KEEP:
                return f"{who} keeps the {names[state.tcol[t]]} Agent as it is"
            return None
        if state.phase == ACTIVATE:
            if action == g.TAKE_JOKER:
                return f"{who} activates their Joker"
            if g.TAKE <= action < g.DRAW_TOP:
                y = g.a2p[action - g.TAKE]
                if state.grid[y] < 0:
                    return None
                x0, y0 = g.cell_xy(y)
                return f"{who} activates the {self._tile_name(state, state.grid[y])} at {x0},{y0}"
            if g.DRAW_TOP <= action < g.DRAW_BOTTOM:
                pile = state.piles[action - g.DRAW_TOP]
                top = f"the {self._tile_name(state, pile[-1])}" if pile else "nothing"
                return f"{who} draws {top} from pile {pile_letter(action - g.DRAW_TOP)}"
            if g.DRAW_BOTTOM <= action < g.TAKE_JOKER:
                k = action - g.DRAW_BOTTOM
                pile = state.piles[k]
                got = f"the {self._tile_name(state, pile[0])}" if pile else "nothing"
                return f"{who} has no Agent to take and draws {got} from the bottom of pile " \
                       f"{pile_letter(k)}"
            return None
        if g.PLACE <= action < g.TAKE:
            y = g.a2p[action]
            x0, y0 = g.cell_xy(y)
            note = "" if state.nmask[y] else " (touching only diagonally: no evaluation)"
            return f"{who} places the {self._tile_name(state, state.held)} at {x0},{y0}{note}"
        return None
