"""The build in use is reported, and a Cython-compiled copy of the same source plays identically.

The identity test compiles two hot modules (the core API and Spy Tracker's rules) into a
scratch copy of the package and runs a sample of the golden replays
there: every seat's observations and log lines, heuristic-bot games and ISMCTS decisions at a
fixed budget and seed, all compared to the digests the pure build is checked against. It needs
Cython and a C compiler and is skipped without them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fieldcraft.build import HOT_MODULES, active_build, compiled_modules, describe, module_path
from fieldcraft.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_version_names_the_active_build(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == describe()
    expected = "(pure Python build)" if not compiled_modules() else "compiled build"
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


_SAMPLE = r"""
import json, sys
from fieldcraft.build import compiled_modules
from tests.golden.golden import check_game
print(json.dumps({"compiled": compiled_modules(),
                  "differ": check_game("spy-tracker", 3, {"no_repeat_bids": False})}))
"""

_COMPILE = ["fieldcraft.core.api", "fieldcraft.games.spy_tracker.rules"]
"""The public API and one game's rules: each module compiled costs the suite 10-15 s of C
compilation; benchmarks/compiled.py compiles and checks all the hot modules."""


@pytest.mark.skipif(importlib.util.find_spec("Cython") is None or shutil.which("cc") is None,
                    reason="needs Cython and a C compiler")
def test_compiled_copy_plays_the_golden_replays_identically(tmp_path: Path) -> None:
    from fieldcraft.build import make_compiled_copy

    make_compiled_copy(tmp_path, _COMPILE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run([sys.executable, "-c", _SAMPLE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert sorted(result["compiled"]) == sorted(_COMPILE)  # the copy really ran compiled
    assert result["differ"] == []
