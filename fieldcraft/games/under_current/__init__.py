"""Under Current: hidden roles, a Central File Row, one card passed a turn (3-8 players)."""

GAME_ID = "under-current"
GAME_CLASS = "fieldcraft.games.under_current.game:UnderCurrentGame"
