"""Bot levels as data: what "Easy", "Normal", "Strong" and "Expert" mean in each game.

Why a table: one search bot for every game was not a ladder. ISMCTS at 1,000 iterations was the
web's "Strong" everywhere, yet in Against the Current it won only 28% of two-player games
against the heuristic bot that was "Normal" (it judges the token choice as if it knew the die
roll that follows). So each game names its own agent for each level, chosen by measurement
(``benchmarks/levels.py``; the figures are in ``docs/bots.md``), and everything that makes a bot
of a level (the web table, the benchmark) reads it here.

Rules of the table:

* ``easy < normal < strong`` is the order by design, each pair measured with seats rotated;
  Strong is *shown* above Normal only where docs/bots.md's goal table says so (not in Against
  the Current, where the dice leave it level). ``expert`` is a level of its own only in Spy
  Tracker, where more time leaned its way on every run (58.5% of 200 games against Strong,
  then 52.9% of 240 on a confirming run: not shown) and is no weaker; elsewhere the same spec
  as ``strong`` (so picking it never gives a weaker bot), and the lobby does not offer it there
  (:func:`offered_levels`).
* A level is an agent spec as :func:`fieldcraft.agents.make_agent` takes it; budgets are
  iteration counts, not seconds, so a seeded game repeats, sized so that Strong thinks about a
  second a move or less on the compiled build of a small two-core machine (a person is waiting),
  Expert a few seconds at most.
* A search's cost grows with the table, so a game may give a level another spec from some
  player count up (:data:`BY_COUNT`).

The web keeps the bot names it has always stored and shown (``random``, ``heuristic``,
``ismcts``; tables saved before this table existed name their bots so) as the ids of the first
three levels, and ``expert`` for the fourth: :data:`WEB_IDS`. The level names themselves are
accepted too.
"""

from __future__ import annotations

from typing import Any

from fieldcraft.agents import Agent, make_agent

LEVELS: tuple[str, ...] = ("easy", "normal", "strong", "expert")
"""The levels, weakest first."""

LEVEL_TABLE: dict[str, dict[str, str]] = {
    # Bidding with hidden hands: ISMCTS with belief-weighted deals and modelled opponents beats
    # the hand-written bidder: 66% of 80 games at 1,000 iterations, 73% of 60 at 4,000. Skill
    # still rises with time: 16,000 (about a second a move) beat 4,000 in 58.5% of 200.
    "spy-tracker": {
        "easy": "random",
        "normal": "heuristic",
        "strong": "ismcts(iterations=4000)",
        "expert": "ismcts(iterations=16000)",
    },
    # A dice race: the token is chosen before the roll, so Strong is an expectimax over the dice
    # (``bot.search_choose``) through three turns (two-player: this one, the other seat's, its
    # own next). ISMCTS, which determinises the roll first, lost to the heuristic here (28%);
    # the expectimax plays level with it (the dice decide nearly every game: docs/bots.md):
    # on 1,000 deals 50.6% at two players and 24.9% alone at four against Normal's 25.0%,
    # 4.7 and 4.4 points below a player who foresees its own next roll on the same deals
    # (Normal is as close: 5.3 and 4.3), so it is not shown stronger than Normal there; at
    # three, alone at every seat of 1,000 deals, 34.7% against 33.3% (p = 0.0002): a little.
    "against-the-current": {
        "easy": "random",
        "normal": "heuristic",
        "strong": "expectimax(turns=3)",
        "expert": "expectimax(turns=3)",  # an alias: the dice leave no room (docs/bots.md)
    },
    # Tile placement, several decisions a turn: ISMCTS scored by the game's estimate. At 1,000
    # iterations it did not beat the heuristic (43% of 60 games); at 8,000 it won 75% of 44.
    "undercover": {
        "easy": "random",
        "normal": "heuristic",
        "strong": "ismcts(iterations=8000)",
        "expert": "ismcts(iterations=8000)",  # an alias: more was not shown to pay
    },
    # Hidden roles in teams: ISMCTS (rollouts to the end, the other seats in its tree); alone
    # among heuristic bots it wins far more often than a heuristic bot among it (three
    # players, 1,000 iterations: 44% against 16% of 45 games each); 4,000 did a little better
    # on the same deals and still answers well inside a second. Its role deals are weighed by
    # the receiving choices seen (``infer=1``): 50.0% against Normal's 30.0% in the same seats
    # on a planned 160-deal run (p < 0.0001), where uniform deals gave 45.6% on those deals.
    "under-current": {
        "easy": "random",
        "normal": "heuristic",
        "strong": "ismcts(iterations=4000, infer=1)",
        "expert": "ismcts(iterations=4000, infer=1)",  # an alias: 16,000 was not shown to pay
    },
}
"""Game id -> level -> agent spec, at two players (Under Current: three)."""

BY_COUNT: dict[str, dict[int, dict[str, str]]] = {
    # ISMCTS's work per iteration grows with the seats (longer games, more to deal), so at
    # the largest tables the two-player budgets took several seconds a move, and the budgets
    # that fit a second were not shown to beat Normal there (48 deals each: docs/bots.md).
    # Undercover from three players: rollouts of the heuristic instead, 16 paired rounds of the
    # four best candidates, each playout 18 decisions of the Normal bot's turn model without
    # its reply look (``choose_fast``, a tenth of the cost) and then the game's estimate.
    # Alone among Normal seats it won 31.3% of a 144-deal confirming run at six players
    # against Normal's 11.1% in the same seats (p = 0.0001; all 204 deals +16.2 points), and
    # 46.7% against 25.0% of 60 at five (p = 0.019); about 0.2 s of CPU a move. At three and
    # four, where ISMCTS was not shown above Normal, the same rollouts won planned 120-deal
    # runs: 60.0% against Normal's 33.3% in the same seats at three (48 deals better, 16
    # worse) and 50.8% against 25.8% at four (46 better, 16 worse), p < 0.001 each.
    "undercover": {3: {"strong": "rollout(rollouts=16, depth=18, top=4, policy=choose_fast)",
                       "expert": "rollout(rollouts=16, depth=18, top=4, policy=choose_fast)"}},
    # Under Current at four and from six players: rollouts of the heuristic (every seat on Normal
    # from each candidate to the end, 32 paired rounds); it files for its faction as Normal does
    # (97% of its own colour, 3% of the enemy's, at eight; informed, 98.7% and 4.4%), where ISMCTS
    # at these counts did not. At four, alone among Normal seats against Normal in the same seats, a
    # 120-deal screen and a 160-deal confirming run each +12.5 points (the latter 43.8% against
    # 31.2%, p = 0.012), where ISMCTS at 4,000 was level (40 deals, 5 better, 4 worse). Five keeps
    # ISMCTS: +13.8 points on a 160-deal confirming run (p = 0.0009), the rollout bot +8.1 on the
    # same deals. Every search starts from role deals weighed by the receiving choices seen
    # (``infer=1``: a seat that used a Blue card is rarely Blue), where uniform deals had left the
    # rollouts at +8.2 (six), level (seven) and +4.7 (eight): with them, on confirming runs, +10.4
    # at eight (480 deals, 27.9% against 17.5%, p < 0.0001), +13.1 at six and +8.1 at seven (320
    # deals each, p < 0.001); on 160-deal planned runs +20.0 at five (ISMCTS) and +16.9 at four (p <
    # 0.0001, 0.001). All among Normal bots, whose receiving rule is the model: a best case. About
    # 0.07-0.3 s of CPU a move: docs/bots.md.
    "under-current": {4: {"strong": "rollout(rollouts=32, infer=1)",
                          "expert": "rollout(rollouts=32, infer=1)"},
                      5: {"strong": "ismcts(iterations=4000, infer=1)",
                          "expert": "ismcts(iterations=4000, infer=1)"},
                      6: {"strong": "rollout(rollouts=32, infer=1)",
                          "expert": "rollout(rollouts=32, infer=1)"}},
}
"""Game id -> smallest player count -> the levels whose spec differs from
:data:`LEVEL_TABLE`'s from that count up (the largest key not above the count applies)."""

WEB_IDS: dict[str, str] = {"random": "easy", "heuristic": "normal", "ismcts": "strong",
                           "expert": "expert"}
"""The web's bot names (stored in its tables, shown by ``bot.level.<name>``) -> level."""

GENERIC: dict[str, str] = {"easy": "random", "normal": "heuristic",
                           "strong": "ismcts(iterations=1000)",
                           "expert": "ismcts(iterations=1000)"}
"""What a game missing from the table plays (a new game before it is measured)."""


WEB_BOTS: tuple[str, ...] = tuple(sorted(WEB_IDS, key=lambda name: LEVELS.index(WEB_IDS[name])))
"""The bot choices the web offers, weakest first: one per level."""


def is_bot_name(name: str) -> bool:
    """Whether the web may seat a bot called ``name``: a level, a level's web id, or (as before
    levels existed, for the API) the name of an agent with its default options."""
    from fieldcraft.agents import AGENTS

    return level_of(name) is not None or name in AGENTS


def level_of(name: str) -> str | None:
    """The level a bot name stands for (a level name or a web id), else ``None``."""
    if name in LEVELS:
        return name
    return WEB_IDS.get(name)


def level_spec(game_id: str, level: str, players: int | None = None) -> str:
    """The agent spec of ``level`` (a level name or web id) in ``game_id`` with ``players``
    seats (``None``: the table's base row, two players or the game's smallest count)."""
    resolved = level_of(level)
    if resolved is None:
        raise KeyError(f"unknown bot level {level!r}; levels: {', '.join(LEVELS)}")
    if players is not None:
        rows = BY_COUNT.get(game_id, {})
        fits = [count for count in rows if count <= players]
        if fits and resolved in rows[max(fits)]:
            return rows[max(fits)][resolved]
    return LEVEL_TABLE.get(game_id, GENERIC)[resolved]


def offered_levels(game_id: str) -> list[str]:
    """The web ids the lobby offers for ``game_id``, weakest first: every level but one whose
    spec is the level below's at every player count (Expert where it is an alias of Strong).

    A menu entry is a claim that it is a bot of its own: "Expert" beside "Strong" says it plays
    better, and where it is the same search it does not (it only may think longer on a busy
    server). A stored table or an API request naming such a level still gets its bot."""
    from fieldcraft.core.registry import game_spec

    spec = game_spec(game_id)
    counts = range(spec.min_players, spec.max_players + 1)
    out: list[str] = []
    below: str | None = None
    for web_id in WEB_BOTS:
        if below is None or any(level_spec(game_id, web_id, n) != level_spec(game_id, below, n)
                                for n in counts):
            out.append(web_id)
        below = web_id
    return out


WEB_TIME_CAP = 1.0
"""Seconds a level's search may think at a web table at most. The table's budgets are
iterations (measured, repeatable); on a busy server the same iterations take longer, and a
person is waiting, so the web stops a search at this cap if its iterations are not done by
then (ISMCTS stops at whichever limit comes first). Benchmarks play the uncapped specs."""

TIME_CAPS: dict[str, float] = {"expert": 3.0}
"""Levels allowed longer than :data:`WEB_TIME_CAP`: whoever picks Expert has asked for a bot
that thinks (a few seconds a move is what a person accepts for a stronger opponent)."""


def time_cap(level: str) -> float:
    """Seconds the web lets ``level`` (a level name or web id) think at most."""
    return TIME_CAPS.get(level_of(level) or "", WEB_TIME_CAP)


class CountedLevelAgent:
    """A level whose spec depends on the player count (:data:`BY_COUNT`), made when the count
    is known: the web names a seat's bot before it hands over a view of the game."""

    def __init__(self, game_id: str, name: str, seed: int | None = None):
        self.game_id, self.name, self.seed = game_id, name, seed
        self._agents: dict[int, Any] = {}

    def agent_for(self, players: int) -> Agent:
        """The level's capped agent at ``players`` seats (one per count, kept)."""
        agent = self._agents.get(players)
        if agent is None:
            agent = self._agents[players] = _capped(
                make_agent(level_spec(self.game_id, self.name, players), self.seed), self.name)
        return agent

    def act(self, view: Any) -> int:
        return self.agent_for(view.game.num_players).act(view)


def _capped(agent: Any, name: str) -> Any:
    if getattr(agent, "time", False) is None:  # an iteration-budget search
        agent.time = time_cap(name)
    agent.name = name  # the web compares it with the seat's stored bot name to keep the agent
    return agent


def make_level_agent(game_id: str, name: str, seed: int | None = None,
                     players: int | None = None) -> Agent:
    """The bot the web seats for ``name``: a level (or web id) becomes the game's spec for it
    at ``players`` seats, its search capped at :func:`time_cap`; anything else is taken as an
    agent spec, as before levels existed. Without ``players``, a game whose levels differ by
    count gets a :class:`CountedLevelAgent`, which reads the count off the first view."""
    if level_of(name) is None:
        agent: Any = make_agent(name, seed)
        agent.name = name
        return agent
    if players is None and game_id in BY_COUNT:
        return CountedLevelAgent(game_id, name, seed)
    return _capped(make_agent(level_spec(game_id, name, players), seed), name)


__all__ = ["BY_COUNT", "GENERIC", "LEVELS", "LEVEL_TABLE", "TIME_CAPS", "WEB_BOTS", "WEB_IDS",
           "WEB_TIME_CAP", "CountedLevelAgent", "is_bot_name", "level_of", "level_spec",
           "make_level_agent", "offered_levels", "time_cap"]
