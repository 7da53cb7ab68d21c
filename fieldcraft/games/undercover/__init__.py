"""Undercover: two-faced Agents, meetings on a growing grid, an Information Track (2-6 players)."""

GAME_ID = "undercover"
GAME_CLASS = "fieldcraft.games.undercover.game:UndercoverGame"
