"""Against the Current's fixed vocabulary: animals, terrains, event cards, phases, action ids.

Kept apart from the rules so every module of the game (the game's tables, the rules and their
two base classes, the notation, the view, the search model, the bot) reads the same numbers from
one leaf module without importing one another in a circle. Nothing here depends on a ruleset;
the ids that do (rolls, markers, tributaries) are laid out by
:class:`~.game.AgainstTheCurrentGame`.
"""

from __future__ import annotations

ANIMALS = ("Axolotl", "Yangtze Porpoise", "European Eel", "Chinese Sturgeon")
AXOLOTL, PORPOISE, EEL, STURGEON = range(4)
BOOSTS = ("Regeneration", "Echolocation", "Slip Through", "Migration Burst")
PRESSURES = ("Plant Tangle", "Turbine Wake", "Net Drift", "Strong Current")
TERRAINS = (
    "Open Water", "Pollution", "Fishing Nets", "Water Plants", "Rapids", "Dam", "Turbine",
)
OPEN_WATER, POLLUTION, FISHING_NETS, WATER_PLANTS, RAPIDS, DAM, TURBINE = range(7)
RESULT_CODES = {"+1": 1, "PASS": 0, "-1": -1, "-2": -2, "STOP": -3}
RESULT_NAMES = {v: k for k, v in RESULT_CODES.items()}
STOP_RESULT = -3
EVENTS = (
    "Extra Roll", "Tail Current", "Backwash", "Detour", "Second Chance", "Cleanup Crew",
    "Current Shift", "Safe Shelter", "River Support", "Habitat Squeeze", "Pressure Wave",
    "Migration Push",
)
(EXTRA_ROLL, TAIL_CURRENT, BACKWASH, DETOUR, SECOND_CHANCE, CLEANUP_CREW, CURRENT_SHIFT,
 SAFE_SHELTER, RIVER_SUPPORT, HABITAT_SQUEEZE, PRESSURE_WAVE, MIGRATION_PUSH) = range(12)
MODIFIERS = ("boost", "river_support", "pressure_marker", "pressure_wave", "safe_shelter")
M_BOOST, M_SUPPORT, M_PRESSURE, M_WAVE, M_SHELTER = range(5)
TOKENS = 3
LETTERS = "ABC"
MAX_PLAYERS = 4

# Phases. Chance phases are DEAL, MARKER, SHUFFLE, FIRST, ROLL and CHALLENGE.
(DEAL, MARKER, SHUFFLE, PICK, FIRST, TOKEN, ROLL, AFTER_ROLL, LAND, TRIB, ATTEMPT, CHALLENGE,
 TARGET, END) = range(14)
PHASE_NAMES = (
    "deal terrain", "place markers", "shuffle events", "pick animals", "choose first player",
    "choose token", "roll", "after roll", "landed", "choose tributary", "event challenge",
    "challenge", "event target", "game over",
)
IS_CHANCE = (True, True, True, False, True, False, True, False, False, False, False, True,
             False, False)

# Where play continues after a tributary is claimed.
R_AFTER_MOVE, R_END_TURN = 0, 1
# What a token/seat target does in the TARGET phase.
(E_FWD1, E_FWD2, E_BACK1, E_UNSTOP, E_SHELTER, E_SUPPORT, E_WAVE, E_DETOUR,
 E_SQUEEZE) = range(9)

# Fixed part of the action space; the tail (rolls, markers, tributaries) depends on the ruleset.
A_MOVE = 0  # 3: move token A/B/C
A_NO_ABILITY = 3
A_ECHO_UP = 4
A_ECHO_DOWN = 5
A_BURST = 6
A_REGEN = 7
A_SLIP = 8
A_PRESSURE = 9
A_ATTEMPT = 10
A_SKIP = 11
A_PICK = 12  # 4 animals
A_TARGET_SEAT = 16  # 4 seats
A_TARGET_TOKEN = 20  # 12 tokens
A_FIRST = 32  # 4 seats (chance)
A_CH_PASS = 36  # chance
A_CH_FAIL = 37  # chance
A_DEAL = 38  # 7 terrains (chance)
A_SHUFFLE = 45  # 12 event kinds (chance)
A_ROLL = 57  # die_sides outcomes (chance), then the ruleset-sized tail
