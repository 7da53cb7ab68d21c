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
from fieldcraft.core.text import Event

from .base import ACTIVATE, FLIP, OVER, PLACE, SETUP
from .grid import HQ0, JOKER0, N_COLOURS, agent_faces, pile_letter
from .rules import UndercoverGame, UndercoverState
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

    # -- game text for people (docs/game-text.md) --------------------------------------------------
    def event(self, state: UndercoverState, action: int, seat: int | None) -> Event | None:
        """What ``seat`` is told of ``action``, as a catalogue key and its parameters.

        Everything in a turn happens in front of the table (the face an Agent shows, its back
        once flipped, where it goes, the Staffers it moves, the tokens taken), so every reader
        is told the same but for the voice; the one secret, which twin a deal put where, is
        never a parameter (no Agent id, only colours). The setup is one line at its last step.
        Cells are ``x``/``y`` (rendered as a column letter and a row number, as the board's
        edges are labelled)."""
        g = self.game
        if state.phase == SETUP:
            kind = g.setup_steps[state.setup_i][0]
            if kind == K_COLOUR and not state.is_chance_node():
                return {"key": "colour_chosen",
                        "params": {"seat": state.cur, "colour": g.colour_names[action - g.COLOUR]}}
            if state.setup_i + 1 < len(g.setup_steps):
                return None
            return self._setup_event(state, action, seat)
        if state.phase == OVER:
            return None
        p = state.cur
        names = g.colour_names
        if state.phase == ACTIVATE:
            if action == g.TAKE_JOKER:
                return {"key": "joker", "params": {"seat": p}}
            if g.TAKE <= action < g.DRAW_TOP:
                a = action - g.TAKE
                t = state.grid[g.a2p[a]]
                return {"key": "take", "params": {
                    "seat": p, "colour": names[state.tcol[t]], "x": a % g.width,
                    "y": a // g.width}}
            if g.DRAW_TOP <= action < g.TAKE_JOKER:
                top = action < g.DRAW_BOTTOM
                k = action - (g.DRAW_TOP if top else g.DRAW_BOTTOM)
                pile = state.piles[k]
                # A bottom Agent is seen by all once drawn (it shows its official side).
                return {"key": "draw" if top else "draw_bottom", "params": {
                    "seat": p, "pile": pile_letter(k),
                    "colour": names[state.tcol[pile[-1] if top else pile[0]]]}}
            return None
        if state.phase == FLIP:
            if action != g.FLIP:
                return None  # keeping it as it is: the placement line names its colour
            t = state.held
            off, back = agent_faces(t)
            return {"key": "flip", "params": {
                "seat": p, "colour": names[state.tcol[t]],
                "now": names[off if state.up[t] else back]}}
        if state.phase == PLACE and g.PLACE <= action < g.TAKE:
            return self._place_event(state, action)
        return None

    def _setup_event(self, state: UndercoverState, action: int, seat: int | None) -> Event:
        """The whole setup in one line: the seats' colours in seat order, who starts, and for a
        seated reader its own colour and Opposite Side (which it may never activate)."""
        g = self.game
        names = g.colour_names
        colours = [names[c] for c in state.colour]
        start = state.start
        if start < 0:  # (a random start would have been drawn before the colours)
            start = 0
        params: dict[str, Any] = {"colours": colours, "start": start}
        if seat is None:
            return {"key": "setup_watch", "params": params}
        c = state.colour[seat]
        params.update(seat=seat, colour=names[c], opposite=names[(c + 3) % N_COLOURS])
        return {"key": "setup", "params": params}

    def _place_event(self, state: UndercoverState, action: int) -> Event:
        """The placement and what its meeting did: the lanes where the seat's Staffers moved,
        the Point Tokens taken, and whether that began the last round. Played out on a clone
        (only when a table asks, never in a playout)."""
        g = self.game
        names = g.colour_names
        p = state.cur
        t = state.held
        y = g.a2p[action]
        params: dict[str, Any] = {
            "seat": p, "x": action % g.width, "y": action // g.width,
            "tile": "joker" if t >= JOKER0 else names[state.tcol[t]],
        }
        if not state.nmask[y]:
            return {"key": "place_diagonal", "params": params}
        if state.turn < g.first_evaluated_turn:
            return {"key": "place_first_round", "params": params}
        after = state.clone()
        after.apply_action(action)
        i = p * N_COLOURS
        lanes = [names[c] for c in range(N_COLOURS) if after.pos[i + c] != state.pos[i + c]]
        took = [c for c in range(N_COLOURS) if after.taken[i + c] != state.taken[i + c]]
        params["lanes"] = lanes
        key = "meet" if lanes else "meet_still"
        if took:
            params["took"] = [names[c] for c in took]
            params["values"] = "+".join(str(after.taken[i + c]) for c in took)
            key = "meet_token" if len(took) == 1 else "meet_tokens"
        if after.end_trig and not state.end_trig:
            key += "_last"
            params["why"] = after.ended_by
        return {"key": key, "params": params}

    def summary(self, state: UndercoverState) -> dict[str, Any] | None:
        """Colour, points, Point Tokens taken (Classified: Staffers past the black line) and the
        tie-break figure, Staffers on the rightmost occupied column, for every seat; the reason
        says what ended the game and who won with how many points."""
        if not state.is_terminal():
            return None
        g = self.game
        n = g.num_players
        names = g.colour_names
        scores = state.final_scores
        winners = set(state.final_winners)
        best = max(scores)
        top = [s for s in range(n) if scores[s] == best]
        pos = state.pos
        seats = top if g.tiebreak_tied else range(n)
        column = max((pos[s * N_COLOURS + c] for s in seats for c in range(N_COLOURS)),
                     default=0)
        figure = "past_line" if g.classified else "tokens"
        rows = []
        for s in range(n):
            mine = pos[s * N_COLOURS:(s + 1) * N_COLOURS]
            count = sum(1 for v in mine if v > g.black_line) if g.classified else state.ntaken[s]
            rows.append({"seat": s, "winner": s in winners, "values": {
                "colour": names[state.colour[s]], "score": scores[s], figure: count,
                "tiebreak": sum(1 for v in mine if column and v == column)}})
        ended = state.ended_by or "stuck"
        if ended == "line":
            trigger = [s for s in range(n) if rows[s]["values"][figure] >= g.past_line_to_end]
            need = g.past_line_to_end
        elif ended == "tokens":
            trigger = [s for s in range(n) if state.ntaken[s] >= g.tokens_to_end]
            need = g.tokens_to_end
        elif ended == "round_limit":
            trigger, need = [], state.turn // n  # the rounds played
        else:
            trigger, need = [], 0
        key = ended + ("_tie" if state.tiebreak_used else "")
        return {
            "columns": [{"key": "colour", "ns": "colour"}, {"key": "score"}, {"key": figure},
                        {"key": "tiebreak"}],
            "rows": rows,
            "reason": {"key": key, "params": {
                "trigger": trigger, "n": need, "winners": sorted(winners), "score": best,
                "tied": top}},
        }
