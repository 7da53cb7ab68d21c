"""Against the Current: river race of four animals on a rotating terrain wheel (2-4 players)."""

GAME_ID = "against-the-current"
GAME_CLASS = "fieldcraft.games.against_the_current.game:AgainstTheCurrentGame"
