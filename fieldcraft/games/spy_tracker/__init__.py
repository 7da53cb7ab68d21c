"""Spy Tracker: bluff about the spies in everyone's hands, call or spot the bid (2-4 players)."""

GAME_ID = "spy-tracker"
GAME_CLASS = "fieldcraft.games.spy_tracker.game:SpyTrackerGame"
