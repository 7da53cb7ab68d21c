"""Against the Current: river race of four animals on a rotating terrain wheel (2-4 players)."""

from fieldcraft.core.spec import GameSpec, SearchSettings

SPEC = GameSpec(
    id="against-the-current",
    title="Against the Current",
    package=__name__,
    hot=("events", "game", "notation", "rules", "search", "turns", "view"),
    min_players=2,
    max_players=4,
    default_players=4,
    rules="rules:AgainstTheCurrentGame",
    state="rules:AgainstTheCurrentState",
    notation="notation:AgainstTheCurrentNotation",
    view="view:AgainstTheCurrentView",
    search_model="search:AgainstTheCurrentSearch",
    bot="bot:choose",
    render="render:render",
    board="board.js",
    board_css="board.css",
    icon="icon.svg",
    deduction="deduction:AgainstTheCurrentDeduction",
    rules_pages="rules",
    lobby_order=4,
    search=SearchSettings(rollout_depth=0),
    length_cap=1000,
    # Report colours, after the animals: a pink axolotl, a grey porpoise, an olive eel, a brown
    # sturgeon.
    side_colours=(("Axolotl", "#e377c2"), ("Yangtze Porpoise", "#7f7f7f"),
                  ("European Eel", "#a8a81e"), ("Chinese Sturgeon", "#8c564b")),
    nullable_keys=("round_limit",),
    test_configs=({}, {"challenge_success": 0.5}),
)
