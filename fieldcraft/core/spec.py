"""What a game declares about itself, as data: its package's ``SPEC`` and its rules' metadata.

Two declarations, each where it belongs (OpenSpiel's ``GameType`` and ``GameInfo``):

* :class:`GameSpec`, in the game package's ``__init__.py``: everything the registry, the bots,
  the terminal and the web table need to find (id, title, player counts, the modules that hold
  the rules, notation, view, search, bot and terminal picture, the board assets, search
  defaults, test configurations). Module names are strings, relative to the package, so listing
  the games imports no engine, and a copied folder is a new game once its ``id`` changes.
* :class:`GameType` (fixed facts: chance mode, information, utility) at the top of the game's
  rules module, and :class:`GameInfo` (the numbers that depend on player count and ruleset),
  which the rules' ``Game`` computes. The conformance suite checks every declared number
  against random playouts.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

# -- GameType values (OpenSpiel's names, lower case) ---------------------------------------------
SEQUENTIAL = "sequential"
DETERMINISTIC = "deterministic"
EXPLICIT_STOCHASTIC = "explicit_stochastic"
PERFECT_INFORMATION = "perfect_information"
IMPERFECT_INFORMATION = "imperfect_information"
ZERO_SUM = "zero_sum"
CONSTANT_SUM = "constant_sum"
GENERAL_SUM = "general_sum"
TERMINAL_REWARDS = "terminal"


@dataclass(frozen=True)
class GameType:
    """Facts about a game that no ruleset value changes."""

    dynamics: str = SEQUENTIAL
    chance_mode: str = EXPLICIT_STOCHASTIC
    information: str = IMPERFECT_INFORMATION
    utility: str = GENERAL_SUM
    """``zero_sum`` or ``constant_sum`` (returns always add up to ``GameInfo.utility_sum``), or
    ``general_sum`` (e.g. several seats or nobody may win)."""
    reward_model: str = TERMINAL_REWARDS
    """``terminal``: returns are known only at the end (all zero before)."""


@dataclass(frozen=True)
class GameInfo:
    """The numbers of one game (player count and ruleset), each a true bound.

    Chance outcomes have their own id range: every outcome a chance node offers is an action
    ``chance_offset + k`` with ``0 <= k < max_chance_outcomes``, so an adapter can number them
    ``k`` as OpenSpiel does, while decisions are ids below ``num_distinct_actions``.
    """

    num_players: int
    num_distinct_actions: int
    max_chance_outcomes: int
    chance_offset: int
    min_utility: float
    max_utility: float
    utility_sum: float | None
    """What the returns always add up to (``None`` for a general-sum game)."""
    max_game_length: int | None
    """The most decisions (chance outcomes not counted, as in OpenSpiel) any game can take;
    ``None`` only for a ruleset under which a game can go on for ever."""
    max_chance_nodes: int | None
    """The most chance outcomes any game can draw (``None``: no bound)."""


@dataclass(frozen=True)
class SearchSettings:
    """Defaults the search bot uses for this game, each measured (see the game's ``search``
    module for the measurements); an agent option overrides any of them."""

    rollout_depth: int | None = None
    """Random decisions a rollout makes before asking ``heuristic_returns``; ``None`` plays
    rollouts to the end."""
    expand_after: int = 1
    """Visits a search node needs before it grows children (1: at once)."""
    c: float = 0.7
    """UCB exploration constant that suits this game's reward scale."""
    chance_nodes: int = 0
    """Chance events with at most this many outcomes (a die) are tree levels in search, so a
    choice made after a roll is judged per face; larger ones (a shuffle) stay open-loop."""
    opponents: str = "tree"
    """``"tree"``: the other seats' choices are searched in the shared tree (plain
    single-observer ISMCTS); ``"policy"``: they play the search model's ``policy_action``,
    which decides from their own cards."""


@dataclass(frozen=True)
class GameSpec:
    """One game's declaration: set as ``SPEC`` in its package's ``__init__.py``.

    ``package`` is the package's ``__name__``; the module fields are ``"module:attribute"``
    inside it (``None``: the game has none, and a generic stand-in is used).
    """

    id: str
    title: str
    package: str
    min_players: int
    max_players: int
    default_players: int
    hot: tuple[str, ...] = ()
    """The game's modules the compiled build compiles (its rules, notation and search: the
    ones a playout or a search runs), named inside the package (``"rules"``). Read by
    ``fieldcraft/build.py`` from the package's ``__init__.py`` without importing it, so write
    it as a literal tuple of strings. docs/performance.md."""
    rules: str = "rules:Game"
    state: str | None = None
    """``"module:Class"``: the game's state (what ``Game.new_initial_state`` makes), named here so
    that the module of the game's tables need not import the rules that import it."""
    notation: str = "notation:Notation"
    view: str = "view:View"
    search_model: str | None = None
    bot: str | None = None
    """``choose(view, rng) -> action``: the hand-written heuristic bot."""
    render: str | None = None
    """``render(observation) -> str``: the terminal picture (Rich markup)."""
    board: str | None = None
    """The browser board's script, a file in the package (registers itself with ``Boards``)."""
    board_css: str | None = None
    messages: str = "messages"
    """Folder of the game's text catalogues, ``<lang>.json`` each (its ``about`` and ``time``
    keys are the lobby's two-line description and playing time)."""
    icon: str | None = None
    """The lobby's picture of the game, an SVG file in the package."""
    rules_pages: str | None = None
    """Folder of the game's rules page, ``<lang>.md`` each (our own summary, shown in the app)."""
    deduction: str | None = None
    """``"module:Class"``: the game's secrets for the after-game deduction report
    (:mod:`fieldcraft.core.deduction`); ``None``: it has no report."""
    lobby_order: int = 100
    """Where the lobby lists the game (lower first; ties by id)."""
    search: SearchSettings = field(default_factory=SearchSettings)
    test_configs: tuple[dict[str, Any], ...] = ({},)
    """Ruleset overrides (variants) the conformance suite runs besides the defaults."""
    nullable_keys: tuple[str, ...] = ()
    """Ruleset keys that may also be set to ``null`` besides a value shaped like the default
    (``round_limit``: ``null`` is the rulebook's game without a limit)."""
    side_colours: tuple[tuple[str, str], ...] = ()
    """Chart colour of each side (faction, animal...) as ``(label, colour)`` pairs, for the
    study report (any matplotlib colour). A side not listed whose label names a colour ("Blue")
    is drawn in it; the rest get distinct colours in label order."""
    length_cap: int | None = None
    """For a game whose rules allow endless play (``max_game_length`` is ``None``): the seats'
    decisions after which a research adapter that needs a finite game (OpenSpiel) ends it as a
    draw. Not a rule: the table and the studies play on. Set well above the longest games
    random and searching players reach."""

    def __post_init__(self) -> None:
        if not self.min_players <= self.default_players <= self.max_players:
            raise ValueError(f"{self.id}: default_players must lie in the player range")

    @property
    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def resolve(self, target: str) -> Any:
        """The object a ``"module:attribute"`` field names, imported from this package."""
        module, _, attribute = target.partition(":")
        return getattr(importlib.import_module(f"{self.package}.{module}"), attribute)

    def optional(self, name: str) -> Any:
        """The object a module field names, or ``None`` if the game declares none."""
        target = getattr(self, name)
        return None if target is None else self.resolve(target)
