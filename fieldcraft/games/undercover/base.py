"""What every part of Undercover's rules builds on, declared once: the fields of a position and
the tables of a game that the rules read at every step.

The state follows the rulebook's parts, one module each, each building on the one before:
what a position is (:class:`UndercoverFields`, here) -> the board, its tiles and where they may
go (``grid.GridRules``) -> the Information Track, its evaluation and the end (``track.TrackRules``)
-> the setup (``setup_steps.SetupRules``) -> a turn (``rules.UndercoverState``).

:class:`UndercoverTables` is the base of ``rules.UndercoverGame``, which fills it: the game's
geometry, action bases and caches that the rules read at every step, declared so that the
compiled rules read them as C fields too. Everything else a game holds stays an ordinary
attribute.

This module imports nothing else of the game, so every other module can build on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fieldcraft.core import fast
from fieldcraft.core.api import Game, State
from fieldcraft.core.fields import StateMeta

if TYPE_CHECKING:
    from .rules import UndercoverGame


# Phases (``UndercoverFields.phase``). Defined here, not in rules.py, because the compiled
# build makes them C constants of rules (rules.pxd), which are then not its attributes: the
# other modules of the game import them from here.
SETUP = 0
ACTIVATE = 1
FLIP = 2
PLACE = 3
OVER = 4
PHASE_NAMES = ("setup", "activate", "flip", "place", "over")

BOARD_TYPECODES = {"grid": "b", "gcol": "b", "nmask": "h"}
"""The ``array`` typecodes of the board fields (one entry per padded cell) in the compiled
build: ``grid`` holds tile ids (0-23, -1 for an empty cell) and ``gcol`` colour codes (0-8), so
signed bytes; ``nmask`` holds neighbourhood codes (0-329, ``grid.NEIGHBOURHOODS``), so shorts."""


def new_board(name: str, items: Iterable[int]) -> list[int]:
    """A value for the board field ``name`` (``grid``, ``gcol`` or ``nmask``) holding ``items``
    (:func:`fieldcraft.core.fast.board`: an ``array.array`` of :data:`BOARD_TYPECODES` in the
    compiled build, whose copy at every search iteration is one ``memcpy``; a list in the pure
    build). The rules index it through ``fast.cells8``/``fast.cells16``."""
    return fast.board(BOARD_TYPECODES[name], items)


class UndercoverTables(Game):
    """The tables of one game that the rules read at every step (``rules.UndercoverGame``
    computes them from the ruleset; what each means is documented there)."""

    # -- board geometry (padded by one wall cell on every side) --
    w2: int
    a2p: list[int]
    p2a: list[int]
    take_of: list[int]
    diag: tuple[int, ...]
    # -- rules switches and numbers --
    classified: bool
    has_jokers: bool
    tokens_distinct: bool
    end_when_stuck: bool
    bottom_ignores_ban: bool
    diag_agents_only: bool
    evaluate_first_round: bool
    first_evaluated_turn: int
    flip_steps: int
    multiplier: int
    lane_size: int
    track_len: int
    black_line: int
    past_line_to_end: int
    tokens_to_end: int
    last_turn: int
    blocked_last: bool
    column_values: list[int]
    token_values: list[int]
    faces: list[tuple[int, int]]
    meetings: list[Any]
    # -- action bases --
    TAKE: int
    DRAW_TOP: int
    DRAW_BOTTOM: int
    TAKE_JOKER: int
    FLIP: int
    KEEP: int
    DEAL: int
    COLOUR: int
    FIRST: int
    TOKEN: int
    # -- the setup script and its caches --
    setup_steps: list[tuple[int, int, int]]
    setup_choosers: list[int]
    laid_slices: list[tuple[int, int]]
    deal_odds: dict[tuple[int, ...], Any]
    token_odds: dict[tuple[int, ...], Any]


class UndercoverFields(State, metaclass=StateMeta):
    """Every field of a position, in the order saved states list them. Lists are flat
    (``pos[seat * 6 + lane]``) so that ``clone`` is slicing.

    ``grid``/``gcol`` are tile ids and colour codes per padded cell; ``tcell``/``tcol`` are the
    cell and visible colour per tile; ``up[a]`` is 1 when Agent ``a`` shows its undercover side
    and ``revealed[a]`` is 1 once it has been flipped in front of everyone.

    The three fields with an entry per padded cell (``grid``, ``gcol``, ``nmask``: 1,521 on the
    default board) are made by :func:`new_board`: lists in the pure build, ``array.array``s in
    the compiled one (a clone copies them with one ``memcpy``). Saved states hold lists.
    """

    actions: list[int]
    """Every action applied, chance included."""
    setup_i: int
    """The next step of the setup script (``game.setup_steps``)."""
    start: int
    colour: list[int]
    cur: int
    phase: int
    turn: int
    end_trig: bool
    ended_by: str
    grid: fast.Board  # these three: new_board (an array.array in the compiled build)
    gcol: fast.Board
    nmask: fast.Board
    frontier: list[int]
    tcol: list[int]
    tcell: list[int]
    up: list[int]
    revealed: list[int]
    piles: list[list[int]]
    """Agent ids, bottom first."""
    held: int
    origin: int
    """The cell the held tile was taken from (-1: it came from a pile or the supply)."""
    flipped: bool
    files: list[int]
    """The tile each seat's Instructions File lies on (-1: none yet)."""
    pos: list[int]
    frozen: list[int]
    occ: list[int]
    tokens: list[int]
    taken: list[int]
    ntaken: list[int]
    last_tok: list[int]
    final_scores: list[int]
    final_winners: list[int]
    tiebreak_used: bool
    agent_cells: list[int]
    """The cells holding Agents that no Instructions File lies on, in order: what a seat may
    take from the board, bar its Opposite Side colour."""

    game: UndercoverGame

    def _load_fields(self, fields: dict[str, Any]) -> None:
        """A saved state (``to_json``) holds the board as lists: make them boards again
        (:func:`new_board`)."""
        fields = dict(fields)
        for name in BOARD_TYPECODES:
            if name in fields:
                fields[name] = new_board(name, fields[name])
        State._load_fields(self, fields)

