"""`make serve` (issue 34, item 8): it takes a port and a database, and says what it is doing
at each step of a first install instead of minutes of silence."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def dry_run(tmp_path: Path, *args: str) -> str:
    if shutil.which("make") is None:
        pytest.fail("make is needed (the README's commands are make targets)")
    # a venv that does not exist yet: the dry run lists every step of a first install
    return subprocess.run(["make", "-n", "serve", f"VENV={tmp_path / 'venv'}", *args], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout


def test_make_serve_takes_a_port_and_a_database(tmp_path: Path) -> None:
    out = dry_run(tmp_path, "PORT=8080", "DB=postgresql://user:pw@127.0.0.1/fieldcraft")
    serve = out[out.index("fieldcraft serve"):]
    assert "--port '8080'" in serve
    assert "--db 'postgresql://user:pw@127.0.0.1/fieldcraft'" in serve
    plain = dry_run(tmp_path)
    serve = plain[plain.index("fieldcraft serve"):]
    assert "--port" not in serve and "--db" not in serve and "--host" not in serve


def test_a_first_install_says_each_step(tmp_path: Path) -> None:
    out = dry_run(tmp_path)
    steps = [line for line in out.splitlines() if line.startswith('echo "==>')]
    assert len(steps) >= 4, out  # the venv, pip, the install, the start
    install = next(line for line in out.splitlines() if "pip install --progress-bar off" in line)
    assert "--quiet" not in install and "Collecting" in install and "install-deps.log" in install


def test_the_dependencies_install_while_the_engines_compile(tmp_path: Path) -> None:
    """A cold install fetched its dependencies only after the Cython compile had finished; now
    the two run at once (issue 34, item 8): one pip run for the requirements read from
    pyproject.toml, in the background, one for fieldcraft alone, then ``pip check``."""
    out = dry_run(tmp_path)
    install = next(line for line in out.splitlines() if "pip install --progress-bar off" in line)
    deps = install.index("-r ")
    background = install.index("& deps=$!", deps)
    build = install.index("--no-deps -e .", background)
    assert install.index("wait $deps", build) < install.index("pip check")
    # the requirements are pyproject.toml's, with the serve extras and not the test ones
    listed = install[:deps]
    assert "tomllib" in listed and "web,postgres,study" in listed and "ray" not in listed
