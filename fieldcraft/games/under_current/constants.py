"""Under Current's vocabulary: factions, card effects, role symbols and the phases of a turn.

Kept apart from the rules so that the turn logic (``turns.py``), the rules core and the other
concerns can all import the same names without importing each other. Phase numbers are stored in
saved states (``to_json``), so they never change.
"""

from __future__ import annotations

FACTIONS = ("Blue", "Red", "Yellow", "Green")
BLUE, RED, YELLOW, GREEN = range(4)
EFFECTS = ("SWAP", "SCAN", "PEEK", "SPY", "FLIP", "DROP", "SNATCH", "FETCH", "BURN", "RETIRE")
SWAP, SCAN, PEEK, SPY, FLIP, DROP, SNATCH, FETCH, BURN, RETIRE = range(10)
SYMBOLS = ("", "Eye", "Thumb")
NO_SYMBOL, EYE, THUMB = range(3)

# Phases. DEAL_ROLES, DEAL_CARDS, CHOOSE_START, SNATCH_PICK, SNATCH_DRAW and DRAW are chance nodes.
(
    DEAL_ROLES,
    DEAL_CARDS,
    CHOOSE_START,
    PASS,
    RECEIVE,
    TARGET,
    RETIRE_CHOICE,
    SWAP_OWN,
    SWAP_THEIRS,
    DROP_CHOICE,
    ROW_CHOICE,
    SNATCH_PICK,
    SNATCH_DRAW,
    DRAW,
    DECLARE_RED,
    DECLARE_BLUE,
    OVER,
) = range(17)
PHASE_NAMES = (
    "deal_roles", "deal_cards", "choose_start", "pass", "receive", "target", "retire",
    "swap_own", "swap_theirs", "drop", "row_choice", "snatch_pick", "snatch_draw", "draw",
    "declare_red", "declare_blue", "over",
)
CHANCE_PHASES = frozenset({DEAL_ROLES, DEAL_CARDS, CHOOSE_START, SNATCH_PICK, SNATCH_DRAW, DRAW})
IS_CHANCE = tuple(phase in CHANCE_PHASES for phase in range(len(PHASE_NAMES)))
"""``IS_CHANCE[phase]``: one index instead of a set lookup in the hottest test of a playout."""
DECK_PHASES = frozenset({DEAL_CARDS, DRAW, SNATCH_DRAW})
"""Chance phases whose outcomes are the cards left in the draw pile."""

# What the knowledge step (``TurnRules._learn``) is told: each event shows some seats a card or a
# role, or shows everyone something about a role (see ``rules.py`` for the ``known`` bitmasks and
# role masks they update). Never stored, so their numbers may change.
(
    FILED,
    ROW_TAKEN,
    PEEKED,
    SCANNED,
    SPIED,
    FLIPPED,
    RETIRED,
    ROLES_DEALT,
    ROW_REVEALED,
    INFORMER_CHECKED,
    GREENS_REVEALED,
    ROLES_REVEALED,
) = range(12)
