"""A probe, not wired in: a hatchling build hook that compiles the hot modules with Cython.

Skipped, with one warning, when FIELDCRAFT_PURE=1, when Cython cannot be imported, or when there
is no C compiler: the pure-Python modules then run, unchanged. To try it (docs/performance.md)::

    cp benchmarks/hatch_build_probe.py hatch_build.py
    # pyproject.toml:
    #   [build-system] requires = ["hatchling", "cython>=3.0", "setuptools"]
    #   [tool.hatch.build.targets.wheel.hooks.custom]
    #   path = "hatch_build.py"

A fresh ``pip install -e .`` with it took 3 min 30 s here (2 shared cores) and gave the compiled
build. It is not committed as the install path because an editable install compiles in place,
and an extension module beside an edited ``.py`` silently shadows the edit; and because the
source unchanged compiles to only x1.0-1.6 (docs/performance.md).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _build_module():
    path = Path(__file__).parent / "fieldcraft" / "build.py"
    spec = importlib.util.spec_from_file_location("_fieldcraft_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiler() -> str:
    return os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]


class CompiledCoreHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        why = None
        if os.environ.get("FIELDCRAFT_PURE") == "1":
            why = "FIELDCRAFT_PURE=1"
        elif importlib.util.find_spec("Cython") is None:
            why = "Cython is not installed"
        elif shutil.which(_compiler()) is None:
            why = "no C compiler"
        if why:
            warnings.warn(f"fieldcraft: installing the pure-Python build ({why})", stacklevel=1)
            return
        build = _build_module()
        files = [build.module_path(name) for name in build.HOT_MODULES]
        root = Path(self.root)
        (root / "build").mkdir(exist_ok=True)
        setup = root / "build" / "_setup_compiled.py"
        setup.write_text(build._SETUP)
        env = dict(os.environ, CFLAGS=os.environ.get("CFLAGS", "-O2 -g0"))
        subprocess.run([sys.executable, str(setup), *files], cwd=root, env=env, check=True)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            suffix = sysconfig.get_config_var("EXT_SUFFIX")
            for f in files:
                so = f[:-3] + suffix
                build_data["force_include"][str(root / so)] = so
