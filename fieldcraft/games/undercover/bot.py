"""Undercover heuristic bot: play the turn worth the most points.

A turn is three decisions (activate, flip or keep, place) that make one plan, so at every one of
them the bot scores each whole turn still open to it and plays the first step of the best; the
model is the same at the next decision, so it follows its own plan through.

What a turn is worth. A placement moves this seat's Staffers: the tile's colour 1 space (2 if
flipped) and one per neighbouring Agent or Headquarters colour. Its worth is read off the track
by the expected-score model of :mod:`.estimate`, the one search's ``heuristic_returns`` reads too
(an open lane is worth the token its Staffer will probably end on, a Classified lane the column
it should end in). A token this seat takes is lost to everyone else and a Staffer in the way
makes others hop, so a move is rescored for every seat in each lane it touches. Expected scores
become a win chance, and the bot maximises its own, with a small margin term so that it still
prefers more points when the game looks won or lost. A move that ends the game (a sixth token,
or the sixth Staffer past the line) is scored as the end: open lanes then pay only what the
seats still to move this round can gain in one turn.

What a turn gives the opponents is mostly the office it leaves behind: a tile set down next to
three others is a big meeting for whoever moves next. So the few best turns are played out on
the resampled world and the next seat answers with its own best turn (same model, its point of
view); a turn is ranked by its own value plus its value after that answer. This one-reply look
wins about 60% of two-player games against the same bot without it.

The rules have no turn limit and two seats can each prefer the game not to end (the one ahead
waiting for a better token, the one behind never taking its sixth), so past a generous length
taking a token, and each step towards one, earns a growing bonus and every game finishes. (With
a bonus for tokens alone, two seats whose open lanes were all far from a token kept placing
tiles away from those colours for over 300 turns.)

Hidden information is only the back of an Agent nobody has flipped. Its two possible colours are
printed on its face and the twin rule narrows them: when the other Agent with the same official
face has been revealed, this one hides the other neighbour; otherwise each is equally likely. A
flip is scored as the average over those outcomes, each followed by its best placement. The
simulation runs on ``view.resample(rng)``, a world consistent with what the seat knows.
"""

from __future__ import annotations

import math
import random
from typing import Any

from .base import ACTIVATE, FLIP, OVER, PLACE
from .estimate import (
    END_TEMP,
    Totals,
    add_lane,
    blank,
    combine,
    last_turn_scores,
    open_scores,
    opposites,
    temperature,
    win_chances,
)
from .grid import ACCEPT, JOKER, N_AGENTS, N_COLOURS, agent_faces
from .track import classified_landing

STALL_TURNS = 40
STALL_BONUS = 0.05
"""From round STALL_TURNS on, each turn adds STALL_BONUS to the worth of taking a token, and a
third of that to each free step a Staffer makes towards one."""
REPLY_PLANS = 6
"""How many of the best turns are checked against the next seat's best answer."""
REPLY_KEEP = 0.5
"""Weight of a turn's own value beside its value after the answer."""
MARGIN = 0.003
"""Weight of the plain point margin beside the win chance."""


class _Model:
    """Every seat's expected score per lane in one world, and the effect of moving this seat's
    Staffers (``value`` of a move, cached by the move since many placements share one)."""

    def __init__(self, state: Any, me: int, still: list[int] | None = None):
        g = state.game
        self.state = state
        self.g = g
        self.me = me
        self.n = n = g.num_players
        self.classified = g.classified
        self.opposite = opposites(state.colour)
        # Seats that still play, after the move being scored, before a triggered end comes.
        if still is None:
            left = n - 1 - state.turn % n
            still = [(state.cur + k) % n for k in range(1, left + 1)]
        self.after_me = still
        self.lanes = [self._lane_stats(lane, state.pos, state.occ, state.tokens,
                                       state.last_tok, state.frozen, state.taken)
                      for lane in range(N_COLOURS)]
        self.cache: dict[tuple[int, ...], float] = {}
        # Two seats can each prefer the game not to end (the one ahead waits for a better token,
        # the one behind never takes its sixth); the rules have no turn limit, so past a
        # generous length every token (or Staffer over the line) taken earns a growing bonus.
        # So does every step towards one: a seat whose open lanes are all far from a token
        # would otherwise place tiles away from those colours for hundreds of turns.
        self.stall = max(0, state.turn - STALL_TURNS * n) * STALL_BONUS
        self.done_before = sum(lane[4][me] for lane in self.lanes)
        self.work_before = sum(lane[3][me] for lane in self.lanes)

    # -- lanes -----------------------------------------------------------------------------------
    def _lane_stats(self, lane: int, pos: list[int], occ: list[int], tokens: list[int],
                    last_tok: list[int], frozen: list[int], taken: list[int]) -> Totals:
        """One lane's :data:`~.estimate.Totals`, kept per lane so a move rescores only the
        lanes it touches."""
        out = blank(self.n)
        add_lane(self.g, lane, self.opposite, pos, occ, tokens, last_tok, frozen, taken, out)
        return out

    def _lane_after(self, lane: int, steps: int) -> Totals:
        """The lane's per-seat stats once this seat's Staffer has moved ``steps`` spaces."""
        st = self.state
        g = self.g
        pos = st.pos[:]
        occ = st.occ[:]
        tokens = st.tokens
        last_tok = st.last_tok
        frozen = st.frozen
        taken = st.taken
        i = self.me * N_COLOURS + lane
        base = lane * g.lane_size
        p0 = pos[i]
        if self.classified:
            end = g.track_len
            if p0 >= end:
                return self.lanes[lane]
            t = classified_landing(occ, base, p0, steps, end)
            if t == p0:
                return self.lanes[lane]
        else:
            last = last_tok[lane]
            if frozen[i] or last <= p0:
                return self.lanes[lane]
            t = min(p0 + steps, last)
            while occ[base + t]:
                t += 1
            v = tokens[base + t]
            if v >= 0:
                tokens = tokens[:]
                tokens[base + t] = -1
                frozen = frozen[:]
                frozen[i] = 1
                taken = taken[:]
                taken[i] = v
                if t == last:
                    last_tok = last_tok[:]
                    s = last - 1
                    while s > 0 and tokens[base + s] < 0:
                        s -= 1
                    last_tok[lane] = s
        if p0:
            occ[base + p0] -= 1
        occ[base + t] += 1
        pos[i] = t
        return self._lane_stats(lane, pos, occ, tokens, last_tok, frozen, taken)

    # -- scoring a move ----------------------------------------------------------------------------
    def value(self, moves: tuple[int, ...]) -> float:
        """Utility for this seat after its Staffers move ``moves[lane]`` spaces per lane."""
        cached = self.cache.get(moves)
        if cached is not None:
            return cached
        lanes = [self._lane_after(lane, m) if m else self.lanes[lane]
                 for lane, m in enumerate(moves)] if moves else self.lanes
        result = self._utility(lanes)
        self.cache[moves] = result
        return result

    def _utility(self, lanes: list[Totals]) -> float:
        g = self.g
        n = self.n
        me = self.me
        bank, open_, grabs, work, done = combine(lanes, n)
        need = g.past_line_to_end if self.classified else g.tokens_to_end
        if self.state.end_trig or done[me] >= need:  # this move ends the game, or it is ending
            scores = last_turn_scores(bank, grabs, self.after_me, gains_only=True)
            temp = END_TEMP
        else:
            lead = min(work)
            scores = open_scores(self.classified, bank, open_, work, lead)
            temp = temperature(lead)
        best_other = max(scores[s] for s in range(n) if s != me)
        value = win_chances(scores, temp)[me] + MARGIN * (scores[me] - best_other)
        if self.stall > 0:
            value += self.stall * (done[me] - self.done_before
                                   + (self.work_before - work[me]) / 3)
        return value


# -- the decisions -------------------------------------------------------------------------------
def _flip_outcomes(state: Any, tile: int) -> list[tuple[int, float]]:
    """Colours the held Agent may show after a flip, with their chances (public knowledge)."""
    c = state.tcol[tile]
    if state.revealed[tile]:
        off, back = agent_faces(tile)
        return [(off if state.up[tile] else back, 1.0)]
    left, right = (c - 1) % N_COLOURS, (c + 1) % N_COLOURS
    if state.revealed[2 * c]:  # its twin hides the left neighbour, so this one the right
        return [(right, 1.0)]
    if state.revealed[2 * c + 1]:
        return [(left, 1.0)]
    return [(left, 0.5), (right, 0.5)]


def _moves(state: Any, y: int, colour: int, flipped: bool) -> tuple[int, ...]:
    """Steps per lane this seat's Staffers make when the held tile of ``colour`` goes on ``y``."""
    g = state.game
    if not state.nmask[y]:
        return ()  # diagonal placement: no evaluation
    if state.turn < g.num_players and not g.evaluate_first_round:
        return ()
    moves = [0] * N_COLOURS
    if colour < N_COLOURS:
        moves[colour] = g.flip_steps if flipped else 1
    gcol = state.gcol
    w2 = g.w2
    for z in (y - 1, y + 1, y - w2, y + w2):
        k = gcol[z]
        if k < N_COLOURS:
            moves[k] += 1
    return tuple(moves)


def _candidate_cells(state: Any, colour: int, flipped: bool) -> list[int]:
    if colour == JOKER:
        cells = state.frontier[:]
    else:
        ok = ACCEPT[colour]
        nmask = state.nmask
        cells = [y for y in state.frontier if ok[nmask[y]]]
    if not flipped and state.origin >= 0 and state.origin in cells:
        cells.remove(state.origin)
    return cells


def _best_placement(state: Any, model: _Model, colour: int, flipped: bool
                    ) -> tuple[float, int]:
    """(value, padded cell) of the best placement; cell -1 when only a diagonal one is left."""
    cells = _candidate_cells(state, colour, flipped)
    if not cells:
        return model.value(()), -1  # diagonal placement: no evaluation
    best, best_cell = -math.inf, -1
    for y in cells:
        value = model.value(_moves(state, y, colour, flipped))
        if value > best:
            best, best_cell = value, y
    return best, best_cell


Plan = tuple[float, int, int, int]
"""(value, activation action or -1, FLIP/KEEP action or -1, padded cell or -1). A flip plan's
cell is -1: where it goes is decided once the back is seen."""


def _plans(state: Any, model: _Model, rng: random.Random) -> list[Plan]:
    """Every way to finish the current turn, each with its best placement and its value."""
    g = state.game
    plans: list[Plan] = []

    def held_plans(after: Any, activation: int) -> None:
        tile = after.held
        value, cell = _best_placement(after, model, after.tcol[tile], False)
        if tile >= N_AGENTS:
            plans.append((value + rng.random() * 1e-9, activation, -1, cell))
            return
        plans.append((value + rng.random() * 1e-9, activation, g.KEEP, cell))
        flip = sum(p * _best_placement(after, model, c, True)[0]
                   for c, p in _flip_outcomes(after, tile))
        plans.append((flip + rng.random() * 1e-9, activation, g.FLIP, -1))

    if state.phase == ACTIVATE:
        for action in state.legal_actions():
            after = state.clone()
            after._apply(action)
            held_plans(after, action)
    elif state.phase == FLIP:
        held_plans(state, -1)
    else:
        colour = state.tcol[state.held]
        for action in state.legal_actions():
            y = g.a2p[action]
            value = model.value(_moves(state, y, colour, state.flipped))
            plans.append((value + rng.random() * 1e-9, -1, -1, y))
    return plans


def _play_plan(state: Any, model: _Model, plan: Plan) -> None:
    """Carry a plan out on a world (a flip shows that world's back, then the best cell)."""
    _, activation, flip, y = plan
    if activation >= 0:
        state._apply(activation)
    if flip >= 0:
        state._apply(flip)
    if state.phase != PLACE:
        return
    if y < 0:
        _, y = _best_placement(state, model, state.tcol[state.held], state.flipped)
    state._apply(state.game.p2a[y] if y >= 0 else state.legal_actions()[0])


def _first_action(state: Any, plan: Plan) -> int:
    _, activation, flip, y = plan
    if activation >= 0:
        return activation
    if flip >= 0:
        return flip
    return state.game.p2a[y]


def _final_value(state: Any, me: int) -> float:
    """A finished game on the same scale as ``_Model.value``: the result plus the margin."""
    scores = state.final_scores
    best_other = max(scores[s] for s in range(len(scores)) if s != me)
    return state.returns()[me] + MARGIN * (scores[me] - best_other)


def _after_reply(state: Any, me: int, plan: Plan, model: _Model, rng: random.Random) -> float:
    """This seat's value once the plan is played and the next seat answers with its own best
    turn (by the same model from its side): what the move leaves open to the opponent."""
    world = state.clone()
    _play_plan(world, model, plan)
    if world.phase == OVER:
        return _final_value(world, me)
    opponent = world.cur
    theirs = _Model(world, opponent)
    reply = max(_plans(world, theirs, rng))
    _play_plan(world, theirs, reply)
    if world.phase == OVER:
        return _final_value(world, me)
    n = world.game.num_players
    still = [(world.cur + k) % n for k in range(n - world.turn % n)]
    return _Model(world, me, still).value(())


def choose(view: Any, rng: random.Random) -> int:
    """The first step of the best whole turn, from a world resampled for this seat."""
    return _choose(view, rng, REPLY_PLANS)


def choose_fast(view: Any, rng: random.Random) -> int:
    """:func:`choose` without the one-reply look: the best whole turn by its own value.

    Why: a rollout plays every seat to the end of the game, and at six seats the reply look
    (about nine tenths of :func:`choose`'s time) made one playout cost 0.3-0.4 s, too slow for
    the search to play enough of them in a second. Without it a decision is several times
    cheaper; the rollout agent offers it as ``rollout(policy=choose_fast)``. The Normal bot
    itself stays :func:`choose`."""
    return _choose(view, rng, 1)


def _choose(view: Any, rng: random.Random, reply_plans: int) -> int:
    """The first step of the best whole turn; the ``reply_plans`` best are rescored after the
    next seat's answer (1: no reply look)."""
    legal = view.legal_actions()
    world = view.resample(rng)
    if world.phase not in (ACTIVATE, FLIP, PLACE):  # choosing a colour: all are symmetric
        return legal[int(rng.random() * len(legal))]
    me = view.seat
    model = _Model(world, me)
    plans = _plans(world, model, rng)
    plans.sort(reverse=True)
    best = plans[0]
    if reply_plans > 1 and world.turn >= world.game.num_players - 1:
        scored = [(_after_reply(world, me, plan, model, rng) + REPLY_KEEP * plan[0], plan)
                  for plan in plans[:reply_plans]]
        best = max(scored)[1]
    return _first_action(world, best)
