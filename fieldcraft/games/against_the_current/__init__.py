"""Against the Current: river race of four animals on a rotating terrain wheel (2-4 players)."""

from fieldcraft.core.spec import GameSpec, SearchSettings

SPEC = GameSpec(
    id="against-the-current",
    title="Against the Current",
    package=__name__,
    min_players=2,
    max_players=4,
    default_players=4,
    rules="rules:AgainstTheCurrentGame",
    notation="notation:AgainstTheCurrentNotation",
    view="view:AgainstTheCurrentView",
    search_model="search:AgainstTheCurrentSearch",
    bot="bot:choose",
    render="render:render",
    board="board.js",
    board_css="board.css",
    search=SearchSettings(rollout_depth=0),
    length_cap=1000,
    test_configs=({}, {"challenge_success": 0.5}),
)
