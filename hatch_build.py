"""The build hook: compile the hot modules with Cython when an install can, else install pure.

hatchling runs it for ``pip install .`` and ``pip install -e .``. It compiles the hot modules
(``fieldcraft/build.py``'s ``CORE_MODULES`` and each game's ``GameSpec.hot``) next to their
sources (an editable install has nowhere else to put them), only those missing or changed
since they were last compiled, and records each one's source hash in
``fieldcraft/_compiled.json``: at import, ``fieldcraft`` loads a module whose source changed
since from the ``.py`` (with a warning), never the stale extension module.
With ``FIELDCRAFT_PURE=1``, without Cython or without a C compiler, or when compiling fails
(unless ``FIELDCRAFT_REQUIRE_COMPILED=1``, as in CI), it compiles nothing, removes earlier
extension modules and records why; ``fieldcraft --version`` says which build it is.
See docs/performance.md.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _build_module(root: Path) -> Any:
    """fieldcraft/build.py on its own (the package itself is not importable while building)."""
    spec = importlib.util.spec_from_file_location("_fieldcraft_build", root / "fieldcraft" /
                                                  "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class CompiledCoreHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        build = _build_module(root)
        package = root / "fieldcraft"
        why = build.why_not_compile()
        if why:
            # pip shows a backend's output only with -v: the Makefile repeats this after install
            # (``fieldcraft.build --report``), and ``fieldcraft --version`` says it too.
            print(f"fieldcraft: warning: installing the pure-Python build ({why})",
                  file=sys.stderr)
            build.remove_compiled(package)
            build.write_pure_manifest(f"{why} at install", package)
            return
        try:
            build.compile_in_place(package, log=lambda line: print(line, file=sys.stderr))
        except Exception as error:  # a broken toolchain: install pure rather than not at all
            if os.environ.get("FIELDCRAFT_REQUIRE_COMPILED") == "1":
                raise
            why = f"compiling failed: {str(error).strip().splitlines()[-1][:160]}"
            print(f"fieldcraft: warning: installing the pure-Python build ({why})",
                  file=sys.stderr)
            build.remove_compiled(package)
            build.write_pure_manifest(why, package)
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            for name in build.HOT_MODULES:
                ext = build.extension_file(name, package)
                build_data["force_include"][str(ext)] = str(ext.relative_to(root))
            build_data["force_include"][str(package / build.MANIFEST)] = \
                f"fieldcraft/{build.MANIFEST}"
