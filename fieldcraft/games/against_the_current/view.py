"""What an Against the Current seat sees: all of it. The wheel, the markers, every token and
every ability are face up; only the order of the undrawn event pile is hidden, and it is hidden
from every seat and the spectator alike, so each observation differs from the spectator's only
in ``seat`` and in ``legal`` (the names of the seat's own choices while it is to decide)."""

from __future__ import annotations

from typing import Any

from fieldcraft.core.view import Observer, Piece

from .layout import (
    ANIMALS,
    BOOSTS,
    EVENTS,
    LETTERS,
    PHASE_NAMES,
    PRESSURES,
    TERRAINS,
    TOKEN,
    TOKENS,
)
from .rules import AgainstTheCurrentGame, AgainstTheCurrentState

_STOP = ("next turn", "this turn")


class AgainstTheCurrentView(Observer):
    game: AgainstTheCurrentGame

    pieces = (
        Piece("game", "the game id"),
        Piece("seat", "whose view this is (null: a spectator)"),
        Piece("phase", "the phase's name (deal terrain ... game over)"),
        Piece("current_player", "the seat to decide, -1 while chance acts, -4 once over"),
        Piece("turn_seat", "whose turn it is (null during setup)"),
        Piece("first_player", "who opened the first round (null before it is drawn)"),
        Piece("current", "the Current the wheel shows, from 1"),
        Piece("currents", "how many Currents the wheel has"),
        Piece("extra_wheel_steps", "extra steps (Current Shift) the wheel turns after the round"),
        Piece("sanctuary", "River Sanctuary's position (river spaces are 1 .. sanctuary - 1)"),
        Piece("spaces", "each river space: its card, printed and resolved terrain, marker, "
                        "Pressure Markers and tokens"),
        Piece("players", "each seat: animal, abilities left, effects on it, tokens, score"),
        Piece("moving_token", "[seat, letter] of the token moving this turn, or null"),
        Piece("roll", "this turn's die roll, or null"),
        Piece("ability_used_this_turn", "whether the seat to move has used its one ability"),
        Piece("extra_roll", "whether this roll is an Extra Roll (it draws no card)"),
        Piece("event", "the event card drawn and not yet resolved, or null"),
        Piece("deck_size", "event cards left to draw (pile and a shuffle under way)"),
        Piece("discard", "the event discard pile, oldest first"),
        Piece("tributaries", "each tributary: number, points, who claimed it"),
        Piece("finish_order", "seats in the order their third token arrived"),
        Piece("legal", "names of this seat's legal choices while it is to decide, else []"),
    )

    def observation(self, state: AgainstTheCurrentState, seat: int | None) -> dict[str, Any]:
        """Everything on the table is face up; only the order of the undrawn event pile is
        hidden, and it is the same for every seat and the spectator."""
        g = self.game
        n = g.num_players
        ring, markers, pressure, pos = state.ring, state.markers, state.pressure, state.pos
        spaces = []
        for sp in range(1, g.cards + 1):
            slot = state._slot_at(sp)
            if slot >= len(ring):
                spaces.append({"space": sp, "card": None})
                continue
            marker = None
            for m, card in enumerate(markers):
                if card == slot:
                    marker = TERRAINS[g.marker_terrain[m]]
            spaces.append({
                "space": sp,
                "card": slot + 1,
                "printed": TERRAINS[ring[slot]],
                "terrain": TERRAINS[state._terrain(slot)],
                "marker": marker,
                "pressure": [o for o in range(n) if pressure[o] == slot],
                "tokens": [t for t in range(TOKENS * n) if pos[t] == sp],
            })
        scores = state.scores()
        players = []
        for s in range(n):
            a = state.animal[s]
            tokens = []
            for k in range(TOKENS):
                t = TOKENS * s + k
                stop = state.stop[t]
                tokens.append({
                    "token": LETTERS[k],
                    "position": pos[t],
                    "arrived": pos[t] >= g.sanctuary,
                    "stop": _STOP[stop - 1] if stop else None,
                    "safe_shelter": bool(state.shelter[t]),
                    "river_support": bool(state.support[t]),
                    "pressure_wave": bool(state.wave[t]),
                    "tributary": state.trib_of[t] + 1 if state.trib_of[t] >= 0 else None,
                })
            players.append({
                "seat": s,
                "animal": ANIMALS[a] if a >= 0 else None,
                "boost": BOOSTS[a] if a >= 0 else None,
                "boost_left": not state.boost_used[s],
                "pressure": PRESSURES[a] if a >= 0 else None,
                "pressure_left": not state.pressure_used[s],
                "pressure_marker_on_space": (
                    state._space_of(pressure[s]) if pressure[s] >= 0 else None),
                "detour_next_turn": bool(state.detour[s]),
                "squeezed_next_turn": bool(state.squeeze[s]),
                "tokens": tokens,
                "score": scores[s],
            })
        mover = state.mover
        player = state.current_player()
        names = g.notation.names
        claimed = state.claimed
        return {
            "game": g.name,
            "seat": seat,
            "phase": PHASE_NAMES[state.phase],
            "current_player": player,
            "turn_seat": state.seat if state.phase >= TOKEN else None,
            "first_player": state.first if state.first >= 0 else None,
            "current": state.rot + 1,
            "currents": g.wheel_currents,
            "extra_wheel_steps": state.shift_pending,
            "sanctuary": g.sanctuary,
            "spaces": spaces,
            "players": players,
            "moving_token": [mover // TOKENS, LETTERS[mover % TOKENS]] if mover >= 0 else None,
            "roll": state.roll or None,
            "ability_used_this_turn": state.used_ability,
            "extra_roll": state.extra,
            "event": EVENTS[state.event] if state.event >= 0 else None,
            "deck_size": len(state.pile) - state.pile_top + state.pool_left,
            "discard": [EVENTS[e] for e in state.discard],
            "tributaries": [
                {"number": i + 1, "value": v,
                 "seat": claimed[i] // TOKENS if claimed[i] >= 0 else None,
                 "token": LETTERS[claimed[i] % TOKENS] if claimed[i] >= 0 else None}
                for i, v in enumerate(g.tributaries)
            ],
            "finish_order": state.finish[:],
            "legal": ([names[a] for a in state.options]
                      if seat is not None and seat == player else []),
        }
