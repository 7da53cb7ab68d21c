"""The benchmark scripts as modules, for the tests that check them or share their games.

Why a helper: ``benchmarks/`` is a folder of scripts, not a package, so a test loads one by its
path; each call makes a fresh module, so a test may patch one without touching another's.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str) -> Any:
    """``benchmarks/<name>.py`` as a new module."""
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", FOLDER / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
