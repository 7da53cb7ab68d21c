"""A kept bots' prediction is reused only while the bots are the same: its cache key holds the
bots' version (the package version, every level's spec per count, the agents' and the game's
source), so a changed level table, a new release or an edited bot plays it again."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import fieldcraft
from fieldcraft.agents import levels
from fieldcraft.server.playtest import Playtest
from fieldcraft.sim import playtest_report as R


def _playtest(bot: str = "heuristic") -> Playtest:
    return Playtest("cache", "undercover", 4, 5, {"variant": "classified"}, bot, "x", "open",
                    datetime.now(UTC))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FIELDCRAFT_CACHE", str(tmp_path / "cache"))
    folder = R.cache_dir()
    folder.mkdir(parents=True)
    (folder / f"{R.prediction_key(_playtest())}.json").write_text(
        json.dumps({"run": True, "agent": "heuristic"}), encoding="utf-8")
    return folder


def test_the_same_bots_reuse_the_prediction(cache: Path) -> None:
    assert R.cached_baseline(_playtest())["agent"] == "heuristic"
    assert R.prediction_key(_playtest()) == R.prediction_key(_playtest())
    assert R.cached_baseline(_playtest("random")) is None  # another bot: another key


def test_a_changed_level_spec_at_a_played_count_is_another_prediction(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = R.prediction_key(_playtest())
    # Strong at 5 players (the second mix's search bot there) gets another budget
    monkeypatch.setitem(levels.BY_COUNT, "undercover",
                        {5: {"strong": "ismcts(iterations=3000)",
                             "expert": "ismcts(iterations=3000)"}})
    assert R.prediction_key(_playtest()) != before
    assert R.cached_baseline(_playtest()) is None


def test_a_level_change_at_a_count_not_played_keeps_it(cache: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    before = R.prediction_key(_playtest())
    monkeypatch.setitem(levels.BY_COUNT, "undercover",
                        {**levels.BY_COUNT["undercover"], 6: {"strong": "random"}})
    assert R.prediction_key(_playtest()) == before  # the playtest seats 4-5


def test_a_new_package_version_or_edited_bot_source_is_another_prediction(
        cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    before = R.prediction_key(_playtest())
    with monkeypatch.context() as m:
        m.setattr(fieldcraft, "__version__", fieldcraft.__version__ + ".post1")
        assert R.prediction_key(_playtest()) != before
    assert R.prediction_key(_playtest()) == before
    # the same tree with one agent source edited: the package is read from its folder
    copy = tmp_path / "tree"
    root = Path(fieldcraft.__file__).parent
    (copy / "fieldcraft" / "agents").mkdir(parents=True)
    (copy / "fieldcraft" / "games").mkdir()
    for source in (root / "agents").glob("*.py"):
        (copy / "fieldcraft" / "agents" / source.name).write_bytes(source.read_bytes())
    game_dir = root / "games" / "undercover"
    (copy / "fieldcraft" / "games" / "undercover").mkdir()
    for source in game_dir.glob("*.py"):
        (copy / "fieldcraft" / "games" / "undercover" / source.name).write_bytes(
            source.read_bytes())
    monkeypatch.setattr(fieldcraft, "__file__", str(copy / "fieldcraft" / "__init__.py"))
    assert R.prediction_key(_playtest()) == before  # same sources, same key
    heuristic = copy / "fieldcraft" / "agents" / "heuristic.py"
    heuristic.write_text(heuristic.read_text(encoding="utf-8") + "\n# tuned\n",
                         encoding="utf-8")
    assert R.prediction_key(_playtest()) != before
