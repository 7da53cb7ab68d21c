"""What an Against the Current seat sees: all of it. The wheel, the markers, every token and
every ability are face up; only the order of the undrawn event pile is hidden, and it is hidden
from every seat and the spectator alike, so each observation differs from the spectator's only
in ``seat`` and in ``legal`` (the names of the seat's own choices while it is to decide).

The observation tensor (``P`` players, ``N`` wheel cards = river spaces, sanctuary ``N + 1``,
``C`` Currents, ``K`` markers, ``S`` die sides, ``T`` tributaries, ``D`` event cards in the
deck; tokens are indexed ``3 * seat + k`` for letter A, B, C), every value a plain float::

    viewer            [P]       one-hot: whose view this is
    current_player    [P+2]     one-hot: the seat to decide, then chance, then game over
    turn_seat         [P]       one-hot: whose turn it is (0s during setup)
    first_player      [P]       one-hot: who opened the first round (0s before it is drawn)
    phase             [14]      one-hot: deal terrain ... game over (layout.PHASE_NAMES)
    current           [C]       one-hot: the Current the wheel shows
    extra_wheel_steps [1]       extra steps (Current Shift) the wheel turns after this round
    space_dealt       [N]       1 if the card at river space 1..N is dealt (its card number
                                follows from the Current, so it is not repeated)
    space_printed     [N, 7]    one-hot: the printed terrain of the card at each space
    space_terrain     [N, 7]    one-hot: the terrain it resolves as (a marker overrides)
    space_marker      [N, K]    1 if marker m lies on the card at this space
    space_pressure    [N, P]    1 if seat o's Pressure Marker lies on the card at this space
    animal            [P, 4]    one-hot: each seat's animal (0s before it is picked)
    seat_flags        [P, 4]    boost left, pressure left, detour next turn, squeezed next turn
    score             [P]       each seat's points so far
    token_position    [3P, N+2] one-hot: each token's space, 0 Start .. N+1 River Sanctuary
    token_stop        [3P, 2]   one-hot: stopped on its owner's next turn / serving it now
    token_effects     [3P, 3]   Safe Shelter, River Support, Pressure Wave on the token
    token_tributary   [3P, T]   1 if the token claimed tributary i (so also who holds each)
    moving_token      [3P]      one-hot: the token moving this turn (0s if none)
    roll              [S]       one-hot: this turn's die roll (0s if none)
    turn_flags        [2]       the seat to move has used its ability; this is an Extra Roll
    event             [12]      one-hot: the event card drawn and not yet resolved
    deck_size         [1]       event cards left to draw (pile and a shuffle under way)
    unseen_events     [12]      cards of each event neither in the discard nor drawn (what the
                                pile and a shuffle under way hold between them)
    discard           [D, 12]   the discard pile oldest first, one event one-hot per slot;
                                every card is in the pile, the discard or the hand at once, so
                                the discard never holds more than the D slots
    finish_order      [P, P]    row i: one-hot of the seat whose third token arrived i-th
    legal             [32+K+T]  this seat's legal choices while it is to decide (else 0s):
                                action ids 0..31, then remove marker m, then tributary i

Ruleset constants (the number of Currents, River Sanctuary's position, the tributaries' points)
are left out: they fix the planes' shapes and never change within a game.
"""

from __future__ import annotations

from array import array
from typing import Any

from fieldcraft.core import fast
from fieldcraft.core.view import Observer, Piece, Plane, plane_offsets

from .layout import (
    A_FIRST,
    ANIMALS,
    BOOSTS,
    END,
    EVENTS,
    IS_CHANCE,
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
        Piece("game", "the game id", tensor=False),
        Piece("seat", "whose view this is (null: a spectator)"),
        Piece("phase", "the phase's name (deal terrain ... game over)"),
        Piece("current_player", "the seat to decide, -1 while chance acts, -4 once over"),
        Piece("turn_seat", "whose turn it is (null during setup)"),
        Piece("first_player", "who opened the first round (null before it is drawn)"),
        Piece("current", "the Current the wheel shows, from 1"),
        Piece("currents", "how many Currents the wheel has (fixed by the ruleset: the size of "
                          "the tensor's current plane)", tensor=False),
        Piece("extra_wheel_steps", "extra steps (Current Shift) the wheel turns after the round"),
        Piece("sanctuary", "River Sanctuary's position (river spaces are 1 .. sanctuary - 1; "
                           "fixed by the ruleset: the tensor's token_position width - 1)",
              tensor=False),
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

    def __init__(self, game: AgainstTheCurrentGame):
        super().__init__(game)
        g = game
        p, n, k = g.num_players, g.cards, len(g.marker_terrain)
        tokens, tribs, nt, ne = TOKENS * p, len(g.tributaries), len(TERRAINS), len(EVENTS)
        self._planes = planes = (
            Plane("viewer", (p,), "one-hot: whose view this is"),
            Plane("current_player", (p + 2,),
                  "one-hot: the seat to decide, then chance acting, then the game over"),
            Plane("turn_seat", (p,), "one-hot: whose turn it is (0s during setup)"),
            Plane("first_player", (p,), "one-hot: who opened the first round (0s before)"),
            Plane("phase", (len(PHASE_NAMES),), "one-hot: " + ", ".join(PHASE_NAMES)),
            Plane("current", (g.wheel_currents,), "one-hot: the Current the wheel shows"),
            Plane("extra_wheel_steps", (1,), "extra steps the wheel turns after this round"),
            Plane("space_dealt", (n,), "1 if the card at river space 1..N is dealt (its number "
                                       "follows from the Current)"),
            Plane("space_printed", (n, nt), "one-hot: the printed terrain at each space"),
            Plane("space_terrain", (n, nt), "one-hot: the terrain each space resolves as"),
            Plane("space_marker", (n, k), "1 if marker m lies on the card at this space"),
            Plane("space_pressure", (n, p), "1 if seat o's Pressure Marker lies at this space"),
            Plane("animal", (p, len(ANIMALS)), "one-hot: each seat's animal (0s before a pick)"),
            Plane("seat_flags", (p, 4),
                  "boost left, pressure left, detour next turn, squeezed next turn"),
            Plane("score", (p,), "each seat's points so far"),
            Plane("token_position", (tokens, n + 2),
                  "one-hot: each token's space, 0 Start .. N+1 River Sanctuary"),
            Plane("token_stop", (tokens, 2), "one-hot: stopped next turn / serving it now"),
            Plane("token_effects", (tokens, 3), "Safe Shelter, River Support, Pressure Wave"),
            Plane("token_tributary", (tokens, tribs), "1 if the token claimed tributary i"),
            Plane("moving_token", (tokens,), "one-hot: the token moving this turn"),
            Plane("roll", (g.die_sides,), "one-hot: this turn's die roll (0s if none)"),
            Plane("turn_flags", (2,), "ability used this turn, this is an Extra Roll"),
            Plane("event", (ne,), "one-hot: the drawn, unresolved event card"),
            Plane("deck_size", (1,), "event cards left to draw"),
            Plane("unseen_events", (ne,), "cards of each event neither discarded nor drawn"),
            Plane("discard", (g.deck_size, ne),
                  "the discard pile oldest first, an event one-hot per slot (it never holds "
                  "more cards than the deck)"),
            Plane("finish_order", (p, p), "row i: one-hot of the seat that finished i-th"),
            Plane("legal", (A_FIRST + k + tribs,),
                  "this seat's legal choices while it decides: ids 0..31, remove marker m, "
                  "tributary i"),
        )
        offsets = plane_offsets(planes)
        self._size = sum(plane.size for plane in planes)
        self._offsets = offsets
        self._o = tuple(offsets[plane.name] for plane in planes)
        # Where each decision id lands in the legal plane (ids 0..31 as they are, the Cleanup
        # Crew removals and the tributaries packed after them).
        legal_at = [-1] * g.n_actions
        for a in range(A_FIRST):
            legal_at[a] = a
        for m in range(k):
            legal_at[g.a_remove + m] = A_FIRST + m
        for i in range(tribs):
            legal_at[g.a_trib + i] = A_FIRST + k + i
        self._legal_at = tuple(legal_at)
        self._rivers: dict[tuple, tuple[list[int], list[float]]] = {}
        self._deck = [float(c) for c in g.deck_counts]

    def _river(self, ring: list[int], rot: int, markers: list[int]
               ) -> tuple[list[int], list[float]]:
        """The space_dealt .. space_marker planes for one wheel layout, as their nonzero
        entries (offsets from space_dealt, values): a few dozen of some hundreds. Cached
        (cleared once it holds many layouts, so a long run of games keeps it small)."""
        g = self.game
        n, k = g.cards, len(g.marker_terrain)
        o = self._offsets
        base = o["space_dealt"]
        o_printed, o_terrain = o["space_printed"] - base, o["space_terrain"] - base
        o_marker = o["space_marker"] - base
        block = [0.0] * (o["space_pressure"] - base)
        turn = g.wheel_shift * rot
        dealt = len(ring)
        for sp in range(n):  # the card at space sp + 1 is slot (sp - shift * rot) mod N
            slot = (sp - turn) % n
            if slot < dealt:
                block[sp] = 1.0
                block[o_printed + 7 * sp + ring[slot]] = 1.0
                block[o_terrain + 7 * sp + ring[slot]] = 1.0
        for m, slot in enumerate(markers):
            if slot >= 0:
                sp = (slot + turn) % n
                block[o_marker + k * sp + m] = 1.0
                block[o_terrain + 7 * sp + ring[slot]] = 0.0
                block[o_terrain + 7 * sp + g.marker_terrain[m]] = 1.0
        rivers = self._rivers
        if len(rivers) >= 4096:
            rivers.clear()
        where = [i for i, x in enumerate(block) if x]
        entry = (where, [block[i] for i in where])
        rivers[(rot, tuple(markers), tuple(ring))] = entry
        return entry

    def planes(self) -> tuple[Plane, ...]:
        return self._planes

    def tensor(self, state: AgainstTheCurrentState, seat: int) -> list[float]:
        buffer = array("d", bytes(8 * self._size))
        self.write_tensor(state, seat, buffer, 0)
        return fast.float_list(buffer)

    def write_tensor(self, state: AgainstTheCurrentState, seat: int, buffer: array,
                     at: int) -> None:
        """:meth:`tensor` written over ``buffer[at:at + size]`` (an ``array.array("d")``) with
        no list in between (a batched env's one write per decision): read from the state's
        fields, all public but the pile's order (only its length is read, as ``deck_size``
        does), a group of planes at a time in plane order: who acts and when, the river, the
        seats, their tokens, the event cards. C functions on the state's C fields in the
        compiled build."""
        fast.zero_doubles(buffer, at, self._size)  # checks that the tensor fits
        t = fast.doubles(buffer, at)
        o = self._o
        p = self.game.num_players
        _put_turn(t, o, self._legal_at, state, seat, p)
        _put_river(t, o, self, state, p)
        _put_seats(t, o, state, p)
        _put_tokens(t, o, self.game.tributaries, state, p, self.game.cards)
        _put_events(t, o, self._deck, state, p)

    def observation(self, state: AgainstTheCurrentState, seat: int | None) -> dict[str, Any]:
        """Everything on the table is face up; only the order of the undrawn event pile is
        hidden, and it is the same for every seat and the spectator."""
        g = self.game
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
            "spaces": self._spaces_view(state),
            "players": self._players_view(state),
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

    def _spaces_view(self, state: AgainstTheCurrentState) -> list[dict[str, Any]]:
        """Each river space: its card (None until dealt), printed and resolved terrain, the
        marker on it, the Pressure Markers and the tokens there."""
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
        return spaces

    def _players_view(self, state: AgainstTheCurrentState) -> list[dict[str, Any]]:
        """Each seat: its animal and abilities (and whether they are left), the effects on
        it, its tokens and its score."""
        pressure = state.pressure
        scores = state.scores()
        players = []
        for s in range(self.game.num_players):
            a = state.animal[s]
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
                "tokens": self._tokens_view(state, s),
                "score": scores[s],
            })
        return players

    def _tokens_view(self, state: AgainstTheCurrentState, s: int) -> list[dict[str, Any]]:
        """Seat ``s``'s tokens: where each is, what stops, shelters, supports or presses it,
        and the tributary it claimed."""
        tokens = []
        for k in range(TOKENS):
            t = TOKENS * s + k
            stop = state.stop[t]
            tokens.append({
                "token": LETTERS[k],
                "position": state.pos[t],
                "arrived": state.pos[t] >= self.game.sanctuary,
                "stop": _STOP[stop - 1] if stop else None,
                "safe_shelter": bool(state.shelter[t]),
                "river_support": bool(state.support[t]),
                "pressure_wave": bool(state.wave[t]),
                "tributary": state.trib_of[t] + 1 if state.trib_of[t] >= 0 else None,
            })
        return tokens


def _put_turn(t: Any, o: tuple[int, ...], legal_at: tuple[int, ...],
              state: AgainstTheCurrentState, seat: int, p: int) -> None:
    """The ``viewer`` .. ``extra_wheel_steps`` planes, and ``legal`` (which is only this seat's
    while it is the one to decide). ``t`` is a C pointer in the compiled build, a memoryview
    in the pure one."""
    o_player, o_turn, o_first, o_phase, o_current, o_steps = o[1], o[2], o[3], o[4], o[5], o[6]
    o_legal = o[27]
    t[seat] = 1.0
    phase = state.phase
    t[o_phase + phase] = 1.0
    if phase == END:
        t[o_player + p + 1] = 1.0
    elif IS_CHANCE[phase]:
        t[o_player + p] = 1.0
    else:
        t[o_player + state.seat] = 1.0
        if state.seat == seat:
            options = state.options
            for i in range(len(options)):
                t[o_legal + legal_at[options[i]]] = 1.0
    if phase >= TOKEN:
        t[o_turn + state.seat] = 1.0
    if state.first >= 0:
        t[o_first + state.first] = 1.0
    t[o_current + state.rot] = 1.0
    t[o_steps] = state.shift_pending


def _put_river(t: Any, o: tuple[int, ...], view: AgainstTheCurrentView,
               state: AgainstTheCurrentState, p: int) -> None:
    """The ``space_*`` planes. The river (dealt, printed, resolved terrain, markers) only
    changes with the deal, the wheel and the markers: one block per such layout, cached; the
    Pressure Markers, which come and go within a round, are written afresh."""
    g = view.game
    n = g.cards
    o_dealt = o[7]
    o_pressure = o[11]
    rot = state.rot
    ring, markers = state.ring, state.markers
    entry = view._rivers.get((rot, tuple(markers), tuple(ring)))
    if entry is None:
        entry = view._river(ring, rot, markers)
    where, values = entry
    for i in range(len(where)):
        t[o_dealt + where[i]] = values[i]
    turn = g.wheel_shift * rot
    pressure = state.pressure
    for s in range(len(pressure)):
        slot = pressure[s]
        if slot >= 0:
            t[o_pressure + p * ((slot + turn) % n) + s] = 1.0


def _put_seats(t: Any, o: tuple[int, ...], state: AgainstTheCurrentState, p: int) -> None:
    """The ``animal`` and ``seat_flags`` planes (``score`` is summed with the tokens'
    tributaries)."""
    o_animal, o_flags = o[12], o[13]
    animal, boost_used, pressure_used = state.animal, state.boost_used, state.pressure_used
    detour, squeeze = state.detour, state.squeeze
    for s in range(p):
        if animal[s] >= 0:
            t[o_animal + 4 * s + animal[s]] = 1.0
        at = o_flags + 4 * s
        if not boost_used[s]:
            t[at] = 1.0
        if not pressure_used[s]:
            t[at + 1] = 1.0
        if detour[s]:
            t[at + 2] = 1.0
        if squeeze[s]:
            t[at + 3] = 1.0


def _put_tokens(t: Any, o: tuple[int, ...], values: list[int], state: AgainstTheCurrentState,
                p: int, n: int) -> None:
    """The ``score`` and ``token_*`` planes through ``turn_flags``: where each token is, what
    holds or helps it, the tributaries claimed (and the points they make), and the turn's
    moving token, roll and flags. The rarely set planes are skipped when empty."""
    o_score, o_pos, o_stop, o_effects, o_trib = o[14], o[15], o[16], o[17], o[18]
    o_mover, o_roll, o_turn_flags = o[19], o[20], o[21]
    width = n + 2
    tribs = len(values)
    pos, stop, trib_of = state.pos, state.stop, state.trib_of
    shelter, support, wave = state.shelter, state.support, state.wave
    for tk in range(len(pos)):
        t[o_pos + width * tk + pos[tk]] = 1.0
    for tk in range(len(stop)):
        x = stop[tk]
        if x:
            t[o_stop + 2 * tk + x - 1] = 1.0
    for tk in range(TOKENS * p):
        at = o_effects + 3 * tk
        if shelter[tk]:
            t[at] = 1.0
        if support[tk]:
            t[at + 1] = 1.0
        if wave[tk]:
            t[at + 2] = 1.0
    if state.arrived:
        for tk in range(len(trib_of)):
            i = trib_of[tk]
            if i >= 0:
                t[o_trib + tribs * tk + i] = 1.0
                t[o_score + tk // TOKENS] += values[i]
    if state.mover >= 0:
        t[o_mover + state.mover] = 1.0
    if state.roll:
        t[o_roll + state.roll - 1] = 1.0
    if state.used_ability:
        t[o_turn_flags] = 1.0
    if state.extra:
        t[o_turn_flags + 1] = 1.0


def _put_events(t: Any, o: tuple[int, ...], deck: list[float], state: AgainstTheCurrentState,
                p: int) -> None:
    """The event card planes (the drawn card, cards left to draw, the unseen counts, the
    discard) and ``finish_order``."""
    o_event, o_deck, o_unseen, o_discard, o_finish = o[22], o[23], o[24], o[25], o[26]
    ne = len(EVENTS)
    for i in range(ne):
        t[o_unseen + i] = deck[i]
    if state.event >= 0:
        t[o_event + state.event] = 1.0
        t[o_unseen + state.event] -= 1.0
    t[o_deck] = len(state.pile) - state.pile_top + state.pool_left
    discard = state.discard
    for i in range(len(discard)):
        e = discard[i]
        t[o_discard + ne * i + e] = 1.0
        t[o_unseen + e] -= 1.0
    finish = state.finish
    for i in range(len(finish)):
        t[o_finish + p * i + finish[i]] = 1.0
