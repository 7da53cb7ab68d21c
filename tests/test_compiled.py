"""Which build runs is reported and guarded, and the compiled build plays exactly as the pure one.

- ``--version`` and ``bench --json`` name the build; every hot module loads from an extension
  module exactly when one was compiled from its current source (CI sets
  ``FIELDCRAFT_REQUIRE_COMPILED=1``: there the install must have compiled every hot module).
- The guard: in a scratch copy with one module compiled, the extension module loads; after its
  source is edited the ``.py`` loads with one warning; ``FIELDCRAFT_PURE=1`` loads the ``.py``;
  compiling again rebuilds that module only.
- Identity: the same sample (every seat's observations and log lines of seeded games, the
  heuristic bots' games, ISMCTS decisions at a fixed budget and seed) played in a subprocess on
  the installed compiled build and on the pure modules (``FIELDCRAFT_PURE=1``) gives the same
  digests, under the default rulesets; the golden tests check both builds against the recordings
  (``make test`` runs them on each).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fieldcraft.build import (
    HOT_MODULES,
    active_build,
    compiled_modules,
    describe,
    module_path,
    module_state,
    pure_requested,
)
from fieldcraft.cli import main

ROOT = Path(__file__).resolve().parent.parent
REQUIRED = os.environ.get("FIELDCRAFT_REQUIRE_COMPILED") == "1"


def test_version_names_the_active_build(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == describe()
    expected = "(pure Python build" if not compiled_modules() else "compiled build"
    assert expected in out


def test_bench_json_says_which_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--json", "--games", "3", "--runs", "1", "--no-ismcts",
                 "--game", "spy-tracker"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["build"] for r in rows] == [active_build()["build"]]
    assert rows[0]["compiled_modules"] == len(compiled_modules())


def test_every_hot_module_exists_as_a_file() -> None:
    for name in HOT_MODULES:
        assert (ROOT / module_path(name)).is_file(), name


def test_each_game_names_its_hot_modules_and_the_build_names_none() -> None:
    """The build reads each game's ``GameSpec.hot`` from its source; it names no game module."""
    from fieldcraft.build import CORE_MODULES, declared_hot
    from fieldcraft.core.registry import game_spec, list_games

    games = []
    for name in list_games():
        spec = game_spec(name)
        init = Path(importlib.import_module(spec.package).__file__)
        assert declared_hot(init) == spec.hot, name
        games += [f"{spec.package}.{m}" for m in spec.hot]
    assert set(HOT_MODULES) == set(CORE_MODULES) | set(games)
    source = (ROOT / "fieldcraft" / "build.py").read_text()
    assert not re.search(r"fieldcraft\.games\.\w+\.", source)
    for pxd in (ROOT / "fieldcraft" / "games").glob("*/*.pxd"):
        assert "cimport" not in re.sub(r"from (\.\w+|fieldcraft\.core[\w.]*) cimport|"
                                       r"cimport cython|cimport cpython\.array", "",
                                       pxd.read_text()), pxd


def test_the_makefile_rebuilds_when_a_hot_module_changes() -> None:
    if shutil.which("make") is None:
        pytest.fail("make is needed (the README's commands are make targets)")
    dump = subprocess.run(["make", "-pn", "-f", "Makefile", "help-does-not-exist"], cwd=ROOT,
                          capture_output=True, text=True).stdout
    line = next(x for x in dump.splitlines() if x.startswith("HOT_SOURCES :="))
    listed = set(line.split(":=", 1)[1].split())
    assert {module_path(n) for n in HOT_MODULES} <= listed


def test_each_hot_module_loads_from_what_its_state_says() -> None:
    for name in HOT_MODULES:
        module = importlib.import_module(name)
        is_ext = not str(module.__file__).endswith(".py")
        assert is_ext == (module_state(name) == "compiled"), (name, module.__file__)
    if pure_requested():
        assert compiled_modules() == []
    elif REQUIRED:
        assert active_build()["build"] == "compiled", describe()


_PROBE = r"""
import json, sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as seen:
    import fieldcraft.games.under_current.constants as m
    import fieldcraft.core.search as other
print(json.dumps({"file": m.__file__, "other": other.__file__,
                  "warnings": [str(w.message) for w in seen]}))
"""

_SMALL = "fieldcraft.games.under_current.constants"
_OTHER = "fieldcraft.core.search"
_NEW = "fieldcraft.games.undercover.setup_steps"


@pytest.mark.skipif(importlib.util.find_spec("Cython") is None or shutil.which("cc") is None,
                    reason="needs Cython and a C compiler (the test extra installs Cython)")
def test_an_edited_source_never_runs_its_stale_extension_module(tmp_path: Path) -> None:
    from fieldcraft.build import compile_in_place, make_compiled_copy

    make_compiled_copy(tmp_path, [_SMALL, _OTHER])
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("FIELDCRAFT_PURE", None)

    def probe(**extra: str) -> dict:
        done = subprocess.run([sys.executable, "-c", _PROBE], cwd=tmp_path, check=True,
                              env={**env, **extra}, capture_output=True, text=True)
        return json.loads(done.stdout)

    fresh = probe()
    assert fresh["file"].endswith(".so") and fresh["other"].endswith(".so")
    assert fresh["warnings"] == []
    forced = probe(FIELDCRAFT_PURE="1")
    assert forced["file"].endswith("constants.py") and forced["other"].endswith("search.py")
    manifest_path = tmp_path / "fieldcraft" / "_compiled.json"
    manifest = manifest_path.read_text()
    doc = json.loads(manifest)  # as if another Python had compiled this source last
    doc["modules"][_SMALL]["ext"] = "constants.cpython-399-other.so"
    manifest_path.write_text(json.dumps(doc))
    other_python = probe()
    assert other_python["file"].endswith("constants.py")
    assert other_python["other"].endswith("search.py")
    manifest_path.write_text(manifest)
    source = tmp_path / module_path(_SMALL)
    source.write_text(source.read_text() + "\nEDITED = True\n")
    stale = probe()
    # the edited module runs from its source, and so does the up-to-date one beside it (a
    # compiled module may rely on another's compiled types): the whole build waits for a rebuild
    assert stale["file"].endswith("constants.py") and stale["other"].endswith("search.py")
    assert len(stale["warnings"]) == 1 and "older than their source" in stale["warnings"][0]
    assert compile_in_place(tmp_path / "fieldcraft", [_SMALL, _OTHER]) == [_SMALL]
    assert compile_in_place(tmp_path / "fieldcraft", [_SMALL, _OTHER]) == []  # nothing to do
    again = probe()
    assert again["file"].endswith(".so") and again["other"].endswith(".so")
    assert again["warnings"] == []
    # a module new to the list (no extension module, nothing recorded) is compiled, not taken
    # for one that is up to date
    assert compile_in_place(tmp_path / "fieldcraft", [_SMALL, _OTHER, _NEW]) == [_NEW]
    assert json.loads(manifest_path.read_text())["modules"][_NEW]["ext"].endswith(".so")


_SAMPLE = r"""
import json
from fieldcraft.build import active_build
from fieldcraft.core import load_game
from tests.golden.golden import bot_games, digest, search_decisions, stream
out = {"build": active_build()["build"], "games": {}}
for name, players in (("under-current", 5), ("spy-tracker", 3), ("against-the-current", 3),
                      ("undercover", 3)):
    game = load_game(name, players=players)
    out["games"][name] = {"streams": [digest(stream(game, seed)) for seed in range(3)],
                          "bots": bot_games(name, players, {}, 2),
                          "search": search_decisions(name, players)}
print(json.dumps(out))
"""


def _sample(pure: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("FIELDCRAFT_PURE", None)
    if pure:
        env["FIELDCRAFT_PURE"] = "1"
    done = subprocess.run([sys.executable, "-c", _SAMPLE], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def test_compiled_and_pure_builds_play_identically() -> None:
    if not compiled_modules() and not pure_requested():
        if REQUIRED:
            pytest.fail(f"no compiled build installed: {describe()}")
        pytest.skip(f"the installed build is pure ({describe()}); nothing to compare")
    if pure_requested():
        pytest.skip("this run is the pure build's (FIELDCRAFT_PURE=1); the compiled run compares")
    compiled, pure = _sample(pure=False), _sample(pure=True)
    assert compiled["build"] == "compiled" and pure["build"] == "pure"
    assert compiled["games"] == pure["games"]
    for games in compiled["games"].values():  # a real sample, not empty lists
        assert len(games["streams"]) == 3 and games["search"]
        assert all(re.fullmatch(r"[0-9a-f]{16,}", d) for d in games["streams"])


_WITHOUT_CYTHON = r"""
import sys
sys.modules["cython"] = None  # as in a `make serve` install, which has no Cython
from fieldcraft.build import active_build
from fieldcraft.core import load_game
from fieldcraft.core.api import random_playout
from fieldcraft.agents import View
from fieldcraft.agents.ismcts import ISMCTSAgent
import random
for name in ("spy-tracker", "under-current", "against-the-current", "undercover"):
    state = load_game(name).new_initial_state()
    random_playout(state.clone(), random.Random(1))
    state.play_chance(random.Random(2)) if state.is_chance_node() else None
    rng = random.Random(3)
    while state.is_chance_node():  # the typed search code runs too (its decorators, math)
        state.play_chance(rng)
    ISMCTSAgent(iterations=30, seed=4).act(View(state, state.current_player()))
print(active_build()["build"], sys.modules["fieldcraft.core._cython_shim"].compiled)
"""


def test_the_pure_build_runs_without_cython_installed() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), FIELDCRAFT_PURE="1")
    done = subprocess.run([sys.executable, "-c", _WITHOUT_CYTHON], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["pure", "False"]
