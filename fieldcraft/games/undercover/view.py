"""What an Undercover seat sees: the whole table, which is public but for the Agents' hidden
faces. Every seat sees the same thing; an Agent's back is shown only once it has been flipped in
front of everyone, and a pile only shows its top (after the deal)."""

from __future__ import annotations

from typing import Any

from fieldcraft.core.view import Observer, Piece

from .grid import (
    HQ0,
    JOKER0,
    LOC_ABSENT,
    LOC_HELD,
    LOC_SUPPLY,
    N_COLOURS,
    N_TILES,
    agent_faces,
    pile_letter,
    ring_neighbours,
)
from .rules import OVER, PHASE_NAMES, SETUP, UndercoverGame, UndercoverState


class UndercoverView(Observer):
    game: UndercoverGame

    pieces = (
        Piece("game", "the game id"),
        Piece("variant", "standard or classified"),
        Piece("seat", "whose view this is (null: a spectator)"),
        Piece("players", "number of seats"),
        Piece("colours", "each seat's colour (null until dealt or chosen)"),
        Piece("opposite", "each seat's Opposite Side colour (x2 when scoring; may not be taken)"),
        Piece("starting_seat", "the starting player (null until drawn)"),
        Piece("to_act", "the seat to decide, or null while chance acts or at the end"),
        Piece("phase", "setup, activate, flip, place or over"),
        Piece("turn", "turns played so far"),
        Piece("round", "the round number, from 1"),
        Piece("evaluation_this_round", "whether meetings move Staffers this round"),
        Piece("end_triggered", "the end is triggered: the round is being finished"),
        Piece("ended_by", "what triggered the end: tokens, line or stuck (null before)"),
        Piece("board_size", "[width, height] of the grid"),
        Piece("board", "tiles on the board, each with its x, y and what is visible of it"),
        Piece("piles", "each pile's letter, size and visible top"),
        Piece("held", "the tile being played this turn (null when none)"),
        Piece("held_from", "the [x, y] it was taken from (null: from a pile or the supply)"),
        Piece("flipped", "whether the held Agent was flipped this turn"),
        Piece("jokers", "each seat's Joker: unused, held, placed, or null without one"),
        Piece("track_length", "spaces on each lane of the Information Track"),
        Piece("lanes", "per colour: tokens by space, each seat's Staffer, frozen Staffers"),
        Piece("taken", "each seat's token per lane (null: none)"),
        Piece("scores", "each seat's points as the final scoring would count them now"),
        Piece("column_values", "Classified: points of each column", optional=True),
        Piece("black_line_after", "Classified: the column the black line follows",
              optional=True),
        Piece("tokens_to_end", "standard: tokens one seat needs to end the game", optional=True),
        Piece("winners", "seats that won (only at the end)", optional=True),
    )

    def tile_view(self, state: UndercoverState, t: int) -> dict[str, Any]:
        """What anyone at the table can see of a tile: never the hidden face of an Agent that
        has not been flipped, only the two colours printed on its visible face."""
        g = self.game
        names = g.colour_names
        c = state.tcol[t]
        owner = next((s for s, f in enumerate(state.files) if f == t), None)
        if t >= JOKER0:
            return {"kind": "joker", "owner": t - JOKER0, "file": owner}
        if t >= HQ0:
            return {"kind": "hq", "colour": names[c], "city": g.city_names[c], "file": owner}
        off, back = agent_faces(t)
        view: dict[str, Any] = {
            "kind": "agent",
            "colour": names[c],
            "others": [names[n] for n in ring_neighbours(c)],
            "back": None,
            "official_up": not state.up[t],
            "file": owner,
        }
        if state.revealed[t]:
            view["back"] = names[off if state.up[t] else back]
        return view

    def observation(self, state: UndercoverState, seat: int | None) -> dict[str, Any]:
        g = self.game
        names = g.colour_names
        board = []
        for t in range(N_TILES):
            y = state.tcell[t]
            if y >= 0:
                x0, y0 = g.cell_xy(y)
                view = self.tile_view(state, t)
                view["x"], view["y"] = x0, y0
                board.append(view)
        board.sort(key=lambda v: (v["y"], v["x"]))
        piles = []
        for k, pile in enumerate(state.piles):
            top = self.tile_view(state, pile[-1]) if pile and state.phase != SETUP else None
            piles.append({"name": pile_letter(k), "count": len(pile), "top": top})
        n = g.num_players
        lanes = []
        for lane in range(N_COLOURS):
            base = lane * g.lane_size
            lanes.append({
                "colour": names[lane],
                "tokens": [state.tokens[base + s] if state.tokens[base + s] >= 0 else None
                           for s in range(1, g.track_len + 1)],
                "staffers": [state.pos[s * N_COLOURS + lane] for s in range(n)],
                "frozen": [bool(state.frozen[s * N_COLOURS + lane]) for s in range(n)],
                "blocked_last": g.blocked_last,
            })
        jokers = []
        for s in range(n):
            loc = state.tcell[JOKER0 + s]
            jokers.append(None if loc == LOC_ABSENT else
                          "unused" if loc == LOC_SUPPLY else "held" if loc == LOC_HELD
                          else "placed")
        colour = [names[c] if c >= 0 else None for c in state.colour]
        obs: dict[str, Any] = {
            "game": g.name,
            "variant": "classified" if g.classified else "standard",
            "seat": seat,
            "players": n,
            "colours": colour,
            "opposite": [names[(c + 3) % N_COLOURS] if c >= 0 else None for c in state.colour],
            "starting_seat": state.start if state.start >= 0 else None,
            "to_act": state.cur if state.cur >= 0 else None,
            "phase": PHASE_NAMES[state.phase],
            "turn": state.turn,
            "round": state.turn // n + 1,
            "evaluation_this_round": state.turn >= n or g.evaluate_first_round,
            "end_triggered": state.end_trig,
            "ended_by": state.ended_by or None,
            "board_size": [g.width, g.height],
            "board": board,
            "piles": piles,
            "held": self.tile_view(state, state.held) if state.held >= 0 else None,
            "held_from": list(g.cell_xy(state.origin)) if state.origin >= 0 else None,
            "flipped": state.flipped,
            "jokers": jokers,
            "track_length": g.track_len,
            "lanes": lanes,
            "taken": [[v if v >= 0 else None
                       for v in state.taken[s * N_COLOURS:(s + 1) * N_COLOURS]]
                      for s in range(n)],
            "scores": state.scores(),
        }
        if g.classified:
            obs["column_values"] = g.column_values[:]
            obs["black_line_after"] = g.black_line
        else:
            obs["tokens_to_end"] = g.tokens_to_end
        if state.phase == OVER:
            obs["winners"] = state.final_winners[:]
        return obs
