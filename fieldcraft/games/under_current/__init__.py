"""Under Current: hidden roles, a Central File Row, one card passed a turn (3-8 players)."""

from fieldcraft.core.spec import GameSpec, SearchSettings

SPEC = GameSpec(
    id="under-current",
    title="Under Current",
    package=__name__,
    hot=("constants", "events", "notation", "rules", "search", "turns", "view"),
    min_players=3,
    max_players=8,
    default_players=5,
    rules="game:UnderCurrentGame",
    state="rules:UnderCurrentState",
    notation="notation:UnderCurrentNotation",
    view="view:UnderCurrentView",
    search_model="search:UnderCurrentSearch",
    bot="bot:choose",
    render="render:render",
    board="board.js",
    board_css="board.css",
    icon="icon.svg",
    deduction="deduction:UnderCurrentDeduction",
    rules_pages="rules",
    lobby_order=1,
    search=SearchSettings(),
    test_configs=({},),
)
