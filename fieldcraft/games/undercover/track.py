"""Undercover's Information Track: how a meeting moves the active seat's Staffers, the two ways
a lane is played (standard Point Tokens, Classified column values), when the game is over and
how it is scored.

Lists are flat, one entry per seat and lane (``pos[seat * 6 + lane]``), or per lane and space
(``occ[lane * lane_size + space]``, space 0 being each seat's Information Center, which any
number of Staffers share). :class:`TrackRules` is a link of the state's class chain (see
``base``), between ``grid.GridRules`` and ``setup_steps.SetupRules``.
"""

from __future__ import annotations

from .grid import JOKER, N_COLOURS, NEIGHBOURHOODS, GridRules

MEETING_KEYS = len(NEIGHBOURHOODS) * (JOKER + 1) * 2
"""Keys of :func:`meeting_moves`: the placed cell's neighbourhood code, the placed tile's colour
code and whether it was flipped."""


def meeting_moves(key: int, flip_steps: int) -> tuple[tuple[int, int], ...]:
    """The (lane, steps) of every lane a meeting moves, in lane order, for ``key`` = (the placed
    cell's ``nmask`` code * 7 + the placed tile's colour code) * 2 + whether it was flipped.
    The Staffers of different lanes never meet, so the order does not matter; the rules cache
    these on the game."""
    code, colour, flipped = key // ((JOKER + 1) * 2), key // 2 % (JOKER + 1), key % 2
    moves = list(NEIGHBOURHOODS[code][:N_COLOURS])
    if colour < N_COLOURS:
        moves[colour] += flip_steps if flipped else 1
    return tuple((lane, m) for lane, m in enumerate(moves) if m)


def classified_landing(occ: list[int], base: int, p0: int, steps: int, end: int) -> int:
    """Where a Staffer on space ``p0`` (< ``end``) of a Classified lane lands after ``steps``.

    It stops at the last column and never shares a space, so when every space from its target
    onward is taken it halts on the last free space before them; ``p0`` means it cannot move.
    One function for the rules, the search evaluator and the heuristic bot, so they cannot
    disagree about a hop.
    """
    target = p0 + steps if p0 + steps < end else end
    t = target
    while t <= end and occ[base + t]:
        t += 1
    if t > end:
        t = target - 1
        while t > p0 and occ[base + t]:
            t -= 1
    return t


class TrackRules(GridRules):
    """Evaluation (step 4 of a turn), Staffer moves, the end conditions and the scores."""

    def _evaluate(self, y: int, t: int) -> None:
        """Step 4: the activated colour (2 if flipped) and every orthogonal neighbour's colour
        advance the active player's Staffers; Jokers only pass the meeting on.

        The neighbours' colours are read off ``nmask[y]`` (which tiles touch the cell), and
        the lanes that move with their steps come from a table on the game
        (:func:`meeting_moves`), so only the lanes that move are visited."""
        g = self.game
        code = self.nmask[y]
        colour = self.tcol[t]
        key = (code * 7 + colour) * 2
        if self.flipped:
            key += 1
        moves = g.meetings[key]
        if moves is None:
            moves = g.meetings[key] = meeting_moves(key, g.flip_steps)
        p = self.cur
        if g.classified:
            changed = 0
            for lane, m in moves:
                changed |= self._advance_classified(p, lane, m)
            if changed & 2:  # someone crossed the black line: count again
                line = g.black_line
                past = 0
                for v in self.pos[p * N_COLOURS:p * N_COLOURS + N_COLOURS]:
                    if v > line:
                        past += 1
                if past >= g.past_line_to_end and not self.end_trig:
                    self.end_trig = True
                    self.ended_by = "line"
        else:
            frozen = self.frozen
            pos = self.pos
            last_tok = self.last_tok
            occ = self.occ
            i = p * N_COLOURS
            changed = False
            for lane, m in moves:
                # A frozen Staffer never moves again; one with no token ahead stops at once.
                j = i + lane
                last = last_tok[lane]
                pos0 = pos[j]
                if last <= pos0 or frozen[j]:
                    continue
                # Move it: on ``m`` spaces, no further than the last token, past the others.
                base = lane * g.lane_size
                target = pos0 + m if pos0 + m < last else last
                while occ[base + target]:
                    target += 1  # collision: on to the next free space (a token space is free)
                if pos0:
                    occ[base + pos0] -= 1
                occ[base + target] += 1
                pos[j] = target
                if self.tokens[base + target] >= 0:
                    self._take_token(p, lane, target)
                    changed = True
            if changed and self.ntaken[p] >= g.tokens_to_end and not self.end_trig:
                self.end_trig = True
                self.ended_by = "tokens"
        if changed and not self.end_trig and g.end_when_stuck and not self._anyone_can_move():
            self.end_trig = True
            self.ended_by = "stuck"

    def _take_token(self, p: int, lane: int, space: int) -> None:
        """Seat ``p``'s Staffer, just arrived on ``space``, takes the token there and freezes."""
        i = p * N_COLOURS + lane
        base = lane * self.game.lane_size
        tokens = self.tokens
        self.taken[i] = tokens[base + space]
        tokens[base + space] = -1
        self.frozen[i] = 1
        self.ntaken[p] += 1
        last = self.last_tok[lane]
        if space == last:
            s = last - 1
            while s > 0 and tokens[base + s] < 0:
                s -= 1
            self.last_tok[lane] = s

    def _advance_classified(self, p: int, lane: int, steps: int) -> int:
        """Move one Staffer on the Classified track; it stops at the last column and never
        shares a space, so when every space from its target onward is taken it halts on the
        last free space before them (or does not move at all). Returns 0 if it stayed, 1 if it
        moved, 3 if it moved across the black line (so the end check runs only then)."""
        g = self.game
        i = p * N_COLOURS + lane
        pos0 = self.pos[i]
        end = g.track_len
        if pos0 >= end:
            return 0
        base = lane * g.lane_size
        occ = self.occ
        t = classified_landing(occ, base, pos0, steps, end)
        if t == pos0:
            return 0
        if pos0:
            occ[base + pos0] -= 1
        occ[base + t] += 1
        self.pos[i] = t
        return 3 if pos0 <= g.black_line < t else 1

    def _anyone_can_move(self) -> bool:
        """False once no Staffer anywhere can ever move again (the fallback end)."""
        g = self.game
        n = g.num_players
        pos = self.pos
        if not g.classified:
            frozen = self.frozen
            for lane in range(N_COLOURS):
                last = self.last_tok[lane]
                if last:
                    for s in range(n):
                        i = s * N_COLOURS + lane
                        if not frozen[i] and pos[i] < last:
                            return True
            return False
        end = g.track_len
        # Quick answer for most of the game: a Staffer with more spaces ahead than there are
        # other Staffers (and a blocker) in its lane surely has a free space to go to.
        if min(pos) < end - n + 1 - g.blocked_last:
            return True
        occ = self.occ
        for lane in range(N_COLOURS):
            base = lane * g.lane_size
            rear = min(pos[s * N_COLOURS + lane] for s in range(n))
            for sp in range(rear + 1, end + 1):
                if not occ[base + sp]:
                    return True
        return False

    def scores(self) -> list[int]:
        """Current points of each seat as the final scoring would count them."""
        g = self.game
        out = []
        for s in range(g.num_players):
            opp = (self.colour[s] + 3) % N_COLOURS if self.colour[s] >= 0 else -1
            total = 0
            for lane in range(N_COLOURS):
                i = s * N_COLOURS + lane
                if g.classified:
                    p = self.pos[i]
                    v = g.column_values[p - 1] if p > 0 else 0
                else:
                    v = max(self.taken[i], 0)
                total += v * g.multiplier if lane == opp else v
            out.append(total)
        return out

    def _tiebreak(self, tied: list[int]) -> list[int]:
        """Most Staffers on the rightmost occupied column wins; the column is the rightmost one
        holding a tied player's Staffer (ruleset ``tiebreak_column`` = "tied") or anyone's
        ("any"). Neutral blockers never count. Seats still level after it share the win."""
        g = self.game
        seats = tied if g.tiebreak_tied else range(g.num_players)
        column = 0
        for s in seats:
            for lane in range(N_COLOURS):
                column = max(column, self.pos[s * N_COLOURS + lane])
        if column == 0:
            return tied
        counts = {s: sum(1 for lane in range(N_COLOURS) if self.pos[s * N_COLOURS + lane]
                         == column) for s in tied}
        best = max(counts.values())
        return [s for s in tied if counts[s] == best]

    def _check_track(self) -> None:
        """One Staffer per seat and lane, never two on a space (the Information Centre aside),
        the occupancy cache in step, and every lane's Point Tokens on the track or taken."""
        g = self.game
        n = g.num_players
        count = [0] * (N_COLOURS * g.lane_size)
        if g.blocked_last:
            for lane in range(N_COLOURS):
                count[lane * g.lane_size + g.track_len] += 1
        for s in range(n):
            for lane in range(N_COLOURS):
                i = s * N_COLOURS + lane
                p = self.pos[i]
                assert 0 <= p <= g.track_len
                if p:
                    count[lane * g.lane_size + p] += 1
                assert bool(self.frozen[i]) == (self.taken[i] >= 0)
        assert count == self.occ, "occupancy cache out of step"
        assert all(c <= 1 for i, c in enumerate(count) if i % g.lane_size), "Staffers stacked"
        if g.classified or self.setup_i < len(g.setup_steps):
            return
        for lane in range(N_COLOURS):
            base = lane * g.lane_size
            on_track = [v for v in self.tokens[base:base + g.lane_size] if v >= 0]
            took = [self.taken[s * N_COLOURS + lane] for s in range(n)]
            took = [v for v in took if v >= 0]
            assert sorted(on_track + took) == g.token_values, f"lane {lane} tokens"
            spaces = [sp for sp in range(g.lane_size) if self.tokens[base + sp] >= 0]
            assert self.last_tok[lane] == (max(spaces) if spaces else 0)
            for sp in spaces:
                assert not self.occ[base + sp], "a Staffer stands on a token"
        for s in range(n):
            assert self.ntaken[s] == sum(
                1 for lane in range(N_COLOURS) if self.taken[s * N_COLOURS + lane] >= 0)
