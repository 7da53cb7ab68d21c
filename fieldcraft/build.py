"""Which build of fieldcraft is running: the pure-Python modules, or some compiled ones.

The Python source is the one source of truth; a compiled build is the same modules turned into
extension modules (Cython, see docs/performance.md), found by Python's import system before the
``.py`` beside them. This module names the hot modules a compiled build compiles and tells, by
asking the import system where each would load from (without importing the games), which of
them are extension modules now.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from typing import Any

HOT_MODULES: tuple[str, ...] = (
    "fieldcraft.core.api",
    "fieldcraft.core.fields",
    "fieldcraft.core.search",
    "fieldcraft.core.view",
    "fieldcraft.core.notation",
    "fieldcraft.core.text",
    "fieldcraft.agents",
    "fieldcraft.agents.ismcts",
    "fieldcraft.agents.heuristic",
    "fieldcraft.games.against_the_current.events",
    "fieldcraft.games.against_the_current.notation",
    "fieldcraft.games.against_the_current.rules",
    "fieldcraft.games.against_the_current.search",
    "fieldcraft.games.against_the_current.turns",
    "fieldcraft.games.spy_tracker.game",
    "fieldcraft.games.spy_tracker.notation",
    "fieldcraft.games.spy_tracker.rules",
    "fieldcraft.games.spy_tracker.search",
    "fieldcraft.games.under_current.constants",
    "fieldcraft.games.under_current.events",
    "fieldcraft.games.under_current.notation",
    "fieldcraft.games.under_current.rules",
    "fieldcraft.games.under_current.search",
    "fieldcraft.games.under_current.turns",
    "fieldcraft.games.undercover.grid",
    "fieldcraft.games.undercover.notation",
    "fieldcraft.games.undercover.rules",
    "fieldcraft.games.undercover.search",
    "fieldcraft.games.undercover.setup_steps",
    "fieldcraft.games.undercover.track",
)
"""The modules a compiled build compiles: the core API and its field machinery, ISMCTS, and
each game's rules, notation and search."""


def module_path(name: str) -> str:
    """``fieldcraft.core.api`` -> ``fieldcraft/core/api.py`` (a package: its ``__init__.py``)."""
    parts = name.split(".")
    if name in ("fieldcraft.agents",):
        return "/".join(parts) + "/__init__.py"
    return "/".join(parts) + ".py"


def compiled_modules() -> list[str]:
    """The hot modules that load from an extension module in this interpreter."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    out = []
    for name in HOT_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and spec.origin.endswith(suffixes):
            out.append(name)
    return out


def active_build() -> dict[str, object]:
    """``{"build": "pure" | "compiled" | "partly compiled", "compiled": k, "hot_modules": n}``."""
    done = compiled_modules()
    kind = "pure" if not done else "compiled" if len(done) == len(HOT_MODULES) else \
        "partly compiled"
    return {"build": kind, "compiled": len(done), "hot_modules": len(HOT_MODULES)}


def describe() -> str:
    """One line for ``fieldcraft --version``."""
    from fieldcraft import __version__

    info = active_build()
    if info["build"] == "pure":
        return f"fieldcraft {__version__} (pure Python build)"
    return (f"fieldcraft {__version__} ({info['build']} build: {info['compiled']} of "
            f"{info['hot_modules']} hot modules are extension modules)")


_SETUP = """
import sys
from setuptools import setup
from Cython.Build import cythonize
setup(ext_modules=cythonize(sys.argv[1:], language_level=3, nthreads=2, quiet=True,
                            compiler_directives={"binding": True, "annotation_typing": False}),
      script_args=["build_ext", "--inplace", "-j", "2"])
"""


def make_compiled_copy(dest: Any, modules: list[str] | None = None) -> float:
    """Copy the ``fieldcraft`` package into ``dest`` and compile ``modules`` (dotted names;
    default: every hot module) there with Cython, the source unchanged: pure-Python mode with
    ``annotation_typing=False``, so annotations keep their Python meaning (Cython would
    otherwise refuse a ``type`` subclass where ``cls: type`` is written). Returns the build's
    seconds. Nothing is written beside the package's own source. Needs Cython, setuptools and a
    C compiler."""
    import os
    import shutil
    import subprocess
    import sys
    import time
    from pathlib import Path

    dest = Path(dest)
    source = Path(__file__).resolve().parent
    shutil.copytree(source, dest / "fieldcraft", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c"))
    (dest / "_setup_compiled.py").write_text(_SETUP)
    files = [module_path(name) for name in (modules or HOT_MODULES)]
    env = dict(os.environ, CFLAGS=os.environ.get("CFLAGS", "-O2 -g0"))
    start = time.perf_counter()
    subprocess.run([sys.executable, "_setup_compiled.py", *files], cwd=dest, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start
