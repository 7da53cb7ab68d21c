"""Spy Tracker: bluff about the spies in everyone's hands, call or spot the bid (2-4 players)."""

from fieldcraft.core.spec import GameSpec, SearchSettings

SPEC = GameSpec(
    id="spy-tracker",
    title="Spy Tracker",
    package=__name__,
    hot=("game", "notation", "rules", "search", "view"),
    min_players=2,
    max_players=4,
    default_players=3,
    rules="rules:SpyTrackerGame",
    state="rules:SpyTrackerState",
    notation="notation:SpyTrackerNotation",
    view="view:SpyTrackerView",
    search_model="search:SpyTrackerSearch",
    bot="bot:choose",
    render="render:render",
    board="board.js",
    board_css="board.css",
    icon="icon.svg",
    deduction="deduction:SpyTrackerDeduction",
    rules_pages="rules",
    lobby_order=2,
    search=SearchSettings(rollout_depth=0, expand_after=5, c=0.7, opponents="policy"),
    length_cap=3000,
    test_configs=(
        {},
        {
            "first_bidder": "seat 0",
            "bidder_chooses_next": False,
            "negative_counts": False,
            "max_bid": "deck",
            "opener_if_loser_eliminated": "next_seat",
        },
        {"no_repeat_bids": False},
    ),
)
