"""Balance studies on Ray: the same seed gives the same rows as local workers, Ctrl-C keeps the
chunks in flight, and ``fieldcraft study --ray auto`` works end to end.

One Ray instance (2 CPUs) is started for the whole module, since starting one takes seconds;
the CLI test runs in a subprocess so that ``--ray auto`` starts and stops its own instance, as it
does for a user. ``make`` installs the ray extra, so in CI these tests run rather than skip.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")
ray = pytest.importorskip("ray", reason="the ray extra is not installed (make installs it)")

from fieldcraft.sim import study  # noqa: E402
from fieldcraft.sim.study import STUDY, load_results, run_study  # noqa: E402


def _meta(out: Path) -> dict[str, Any]:
    return json.loads((out / STUDY).read_text())


def test_cli_ray_auto_end_to_end(tmp_path: Path) -> None:
    # Before the module's instance exists (tests run in file order), so only the one that
    # `--ray auto` starts is up. --workers 1 must reach Ray as num_cpus: the machine has 2.
    out = tmp_path / "ray"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "fieldcraft.cli", "study", "under-current", "--players", "3-4",
         "--agents", "random,heuristic", "--games", "40", "--seed", "7", "--ray", "auto",
         "--workers", "1", "--robustness-games", "0", "--out", str(out)],
        capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (out / "report.html").exists() and (out / "report.md").exists()
    meta = _meta(out)
    assert meta["backend"] == "ray" and meta["ray_address"] == "auto"
    assert meta["ray_cpus"] == 1 and meta["workers"] == 1
    assert meta["games_played"] == 80 and not meta["interrupted"]
    run_study("under-current", [3, 4], ["random", "heuristic"], 40, 7, {}, 1, tmp_path / "local")
    assert load_results(out)[0] == load_results(tmp_path / "local")[0]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A private local Ray instance with 2 CPUs for this module: ``address="local"`` so that a
    cluster already running on the machine is never joined; a small object store because the
    rows are small and CI containers have little /dev/shm."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(address="local", num_cpus=2, include_dashboard=False,
                 object_store_memory=128 * 1024 * 1024, logging_level=logging.WARNING)
        try:
            yield ray
        finally:
            ray.shutdown()


def test_same_seed_same_rows_on_ray_as_locally(ray_cluster: Any, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    run_study("under-current", [3, 5], ["random", "heuristic"], 60, 11, {}, 1, tmp_path / "one")
    # The driver's game cache stays empty only if the games were played in Ray's workers.
    monkeypatch.setattr(study, "_GAMES", {})
    progress: list[tuple[int, int]] = []
    run_study("under-current", [3, 5], ["random", "heuristic"], 60, 11, {}, None,
              tmp_path / "ray", progress=lambda d, t: progress.append((d, t)), ray_address="auto")
    assert study._GAMES == {}
    # A cap of 1 chunk in flight makes different chunks (and order) from the default of 2.
    run_study("under-current", [3, 5], ["random", "heuristic"], 60, 11, {}, 1,
              tmp_path / "ray1", ray_address="auto")
    run_study("under-current", [3, 5], ["random", "heuristic"], 60, 12, {}, None,
              tmp_path / "other", ray_address="auto")
    one, local_meta = load_results(tmp_path / "one")
    on_ray, meta = load_results(tmp_path / "ray")
    assert len(one) == 120
    assert on_ray == one
    assert load_results(tmp_path / "ray1")[0] == one
    assert [r["length"] for r in load_results(tmp_path / "other")[0]] != [r["length"] for r in one]
    assert progress[0] == (0, 120) and progress[-1] == (120, 120)
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert local_meta["backend"] == "local" and "ray_address" not in local_meta
    assert meta["backend"] == "ray" and meta["ray_address"] == "auto"
    assert meta["ray_cpus"] == 2 and meta["workers"] == 2
    assert _meta(tmp_path / "ray1")["workers"] == 1
    # A connection this process made itself is left open for it.
    assert ray.is_initialized()


def test_ctrl_c_on_ray_keeps_finished_and_running_chunks(ray_cluster: Any,
                                                         tmp_path: Path) -> None:
    full = tmp_path / "full"
    run_study("spy-tracker", [2, 3], "random", 300, 5, {}, 1, full)
    seen: list[int] = []

    def ctrl_c(done: int, total: int) -> None:
        if done:  # the first chunk back: the other one is still running on Ray
            seen.append(done)
            raise KeyboardInterrupt

    out = tmp_path / "cut"
    run_study("spy-tracker", [2, 3], "random", 300, 5, {}, 2, out, progress=ctrl_c,
              ray_address="auto")
    rows, meta = load_results(out)
    assert meta["interrupted"] and meta["backend"] == "ray"
    assert meta["games_played"] == len(rows)
    # The chunk running when Ctrl-C came was waited for and kept; the rest never ran.
    assert seen[0] < len(rows) < 600
    full_rows = {(r["players"], r["index"]): r for r in load_results(full)[0]}
    assert all(full_rows[(r["players"], r["index"])] == r for r in rows)
    assert len({(r["players"], r["index"]) for r in rows}) == len(rows)
