"""Undercover: two-faced Agents, meetings on a growing grid, an Information Track (2-6 players)."""

from fieldcraft.core.spec import GameSpec, SearchSettings

SPEC = GameSpec(
    id="undercover",
    title="Undercover",
    package=__name__,
    hot=("base", "estimate", "grid", "notation", "rules", "search", "setup_steps", "track", "view"),
    min_players=2,
    max_players=6,
    default_players=4,
    rules="rules:UndercoverGame",
    state="rules:UndercoverState",
    notation="notation:UndercoverNotation",
    view="view:UndercoverView",
    search_model="search:UndercoverSearch",
    bot="bot:choose",
    render="render:render",
    board="board.js",
    board_css="board.css",
    icon="icon.svg",
    deduction="deduction:UndercoverDeduction",
    rules_pages="rules",
    lobby_order=3,
    search=SearchSettings(rollout_depth=0, expand_after=1, c=0.1),
    length_cap=3000,
    nullable_keys=("round_limit",),
    test_configs=({}, {"variant": "classified"}),
)
