"""The compiled build: which modules it compiles, how, and when a compiled module may run.

The Python source is the one source of truth; the compiled build is the same hot modules turned
into extension modules by Cython at install (``hatch_build.py`` calls ``compile_in_place``),
beside their sources. Python's import system would load such a module before the ``.py`` beside
it even after the ``.py`` was edited, so ``install_guard`` (run by ``fieldcraft/__init__.py``)
puts a finder first that lets an extension module load only if the manifest says it was built
from the source as it is now (see ``module_states``), and not under ``FIELDCRAFT_PURE=1``.
``describe`` and ``active_build`` say which build runs (``fieldcraft --version``,
``bench --json``). docs/performance.md tells the whole story.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Any

CORE_MODULES: tuple[str, ...] = (
    "fieldcraft.core.api",
    "fieldcraft.core.fast",
    "fieldcraft.core.fields",
    "fieldcraft.core.search",
    "fieldcraft.core.view",
    "fieldcraft.core.notation",
    "fieldcraft.core.text",
    "fieldcraft.agents",
    "fieldcraft.agents.ismcts",
    "fieldcraft.agents.heuristic",
)
"""The hot modules outside the games: the core API, its field machinery and its fast paths,
and ISMCTS. Each game names its own (``GameSpec.hot``, see :func:`game_hot_modules`)."""


def declared_hot(init: Path) -> tuple[str, ...]:
    """The ``hot=(...)`` of the ``GameSpec(...)`` in a game package's ``__init__.py``, read
    from its source (the build cannot import the package: it may not be importable yet)."""
    for node in ast.walk(ast.parse(init.read_text(), str(init))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "GameSpec":
            for keyword in node.keywords:
                if keyword.arg == "hot":
                    return tuple(ast.literal_eval(keyword.value))
    return ()


def game_hot_modules(games_dir: Path, package: str = "fieldcraft.games") -> tuple[str, ...]:
    """The hot modules every game package in ``games_dir`` declares, as dotted names."""
    return tuple(f"{package}.{init.parent.name}.{name}"
                 for init in sorted(games_dir.glob("*/__init__.py"))
                 for name in declared_hot(init))


def hot_modules(package_dir: Path) -> tuple[str, ...]:
    """What a compiled build of the package in ``package_dir`` compiles."""
    return CORE_MODULES + game_hot_modules(package_dir / "games")


PACKAGE_DIR = Path(__file__).resolve().parent
"""The installed package's folder: the compiled modules live beside their sources in it."""

FIELDS_SOURCE = PACKAGE_DIR / "core" / "fields.py"
"""The field machinery the build derives a compiled module's declarations with (its text is
part of every module's source hash)."""

MANIFEST = "_compiled.json"
"""Written by the build beside this file: the source hash each extension module was compiled
from, or why the install is pure. Without it no extension module is trusted."""

PURE_ENV = "FIELDCRAFT_PURE"
"""``FIELDCRAFT_PURE=1`` at install: compile nothing (and remove earlier extension modules); at
run time: load every hot module from its ``.py`` whatever is compiled."""

HOT_MODULES: tuple[str, ...] = hot_modules(PACKAGE_DIR)
"""The modules this package's compiled build compiles: :data:`CORE_MODULES` and each game's
``GameSpec.hot``."""

_HOT = frozenset(HOT_MODULES)


class StaleBuildWarning(UserWarning):
    """An extension module is older than the source beside it, so the source runs instead."""


def module_path(name: str) -> str:
    """``fieldcraft.core.api`` -> ``fieldcraft/core/api.py`` (a package: its ``__init__.py``)."""
    parts = name.split(".")
    if name in ("fieldcraft.agents",):
        return "/".join(parts) + "/__init__.py"
    return "/".join(parts) + ".py"


def source_file(name: str, package_dir: Path = PACKAGE_DIR) -> Path:
    return package_dir.parent / module_path(name)


def source_hash(path: Path) -> str:
    """The hash an extension module is checked against: its ``.py``, the compiler settings, and
    the ``.pxd`` beside it with every ``.pxd`` that one cimports (a module compiled against an
    older declaration of a type it uses, ``State`` from ``api.pxd`` say, must not load: its idea
    of the layout would be wrong)."""
    digest = hashlib.sha256(path.read_bytes())
    digest.update(_SETUP.encode())
    digest.update(FIELDS_SOURCE.read_bytes())  # what derives its declarations
    for pxd in _declarations(path.with_suffix(".pxd")):
        digest.update(b"\0" + pxd.name.encode() + b"\0" + pxd.read_bytes())
    return digest.hexdigest()


_CIMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+cimport[ \t]+(?:\(([^)]*)\)|([\w \t,]+))"
                      r"|cimport[ \t]+([\w.]+))", re.M)


def _declarations(pxd: Path, seen: set[Path] | None = None) -> list[Path]:
    """``pxd`` (if it exists) and the package's ``.pxd`` files it cimports, transitively:
    ``from fieldcraft.core cimport fast`` (a module) as well as ``from .rules cimport X`` (a
    name in a module, here relative to ``pxd``'s own package)."""
    seen = set() if seen is None else seen
    if pxd in seen or not pxd.is_file():
        return []
    seen.add(pxd)
    out = [pxd]
    root = pxd.parent
    while (root / "__init__.py").is_file():
        root = root.parent
    for match in _CIMPORT.finditer(pxd.read_text()):
        dotted = match.group(1) or match.group(4)
        if dotted.startswith("."):  # relative: one dot is pxd's own package
            level = len(dotted) - len(dotted.lstrip("."))
            base = pxd.parent
            for _ in range(level - 1):
                base = base.parent
            module = base.joinpath(*[p for p in dotted.lstrip(".").split(".") if p])
        elif dotted.split(".")[0] == PACKAGE_DIR.name:  # (from a game folder outside the
            base = root if (root / PACKAGE_DIR.name).is_dir() else PACKAGE_DIR.parent  # package)
            module = base.joinpath(*dotted.split("."))
        else:
            continue
        out += _declarations(module.with_suffix(".pxd") if module.name else module, seen)
        for name in (match.group(2) or match.group(3) or "").split(","):
            name = name.split()[0] if name.split() else ""  # (``X as Y``: X)
            if name.isidentifier():  # ``from package cimport module``
                out += _declarations(module / f"{name}.pxd", seen)
    return out


def extension_file(name: str, package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The extension module beside a hot module's source built for this interpreter, if any."""
    source = source_file(name, package_dir)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_name(source.stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def read_manifest(package_dir: Path = PACKAGE_DIR) -> dict[str, Any]:
    try:
        doc = json.loads((package_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return {"modules": {}}
    return doc if isinstance(doc, dict) and isinstance(doc.get("modules"), dict) else \
        {"modules": {}}


def pure_requested() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def _record(name: str, package_dir: Path) -> dict[str, str] | None:
    """What the manifest must say of a module for its extension module to be trusted: the
    source hash and the extension file's name (so a build for another interpreter, which writes
    another file beside the same source, does not vouch for this one's)."""
    ext = extension_file(name, package_dir)
    if ext is None:
        return None
    return {"hash": source_hash(source_file(name, package_dir)), "ext": ext.name}


def _own_state(name: str, manifest: dict[str, Any], package_dir: Path = PACKAGE_DIR) -> str:
    record = _record(name, package_dir)
    if record is None:
        return "pure"
    if pure_requested():
        return "forced"
    return "compiled" if manifest["modules"].get(name) == record else "stale"


def module_states(manifest: dict[str, Any] | None = None) -> dict[str, str]:
    """Each hot module's state: ``compiled`` (an extension module built from the source as it
    is now), ``stale`` (built from an older source), ``held`` (up to date, but another hot
    module is stale), ``forced`` (built, but ``FIELDCRAFT_PURE`` is set) or ``pure`` (none built
    for this interpreter).

    One stale module holds the whole build back: compiled modules rely on each other's compiled
    types (Spy Tracker's search on its compiled state), so a compiled module next to a module
    running from its edited ``.py`` could fail to import or mismatch; until it is rebuilt, every
    hot module runs as Python."""
    manifest = manifest or read_manifest()
    states = {n: _own_state(n, manifest) for n in HOT_MODULES}
    if "stale" in states.values():
        states = {n: "held" if s == "compiled" else s for n, s in states.items()}
    return states


def module_state(name: str) -> str:
    """One hot module's state (see :func:`module_states`)."""
    return module_states()[name]


def stale_modules(manifest: dict[str, Any] | None = None) -> list[str]:
    """Hot modules whose extension module was built from an older source."""
    return [n for n, s in module_states(manifest).items() if s == "stale"]


class _SourceGuard(importlib.abc.MetaPathFinder):
    """Loads a hot module from its ``.py`` when its extension module must not run: when the
    source was edited after compiling (an editable install compiles in place, and Python would
    otherwise load the old extension module and silently ignore the edit), or when
    ``FIELDCRAFT_PURE`` is set. Everything else goes to the normal finders."""

    def __init__(self) -> None:
        self._warned = False
        self._states: dict[str, str] | None = None

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in _HOT:
            return self._foreign(fullname, path)
        if self._states is None:  # once a process: every later import gets the same answer
            self._states = module_states()
        state = self._states[fullname]
        if state not in ("stale", "held", "forced"):
            return None
        if state != "forced" and not self._warned:
            self._warned = True
            stale = [module_path(n) for n, s in self._states.items() if s == "stale"]
            warnings.warn(
                f"fieldcraft: {len(stale)} compiled module(s) are older than their source "
                f"({', '.join(stale[:3])}{', …' if len(stale) > 3 else ''}); running the "
                "engines as Python until they are compiled again (`make test`, `make serve` or "
                "`pip install -e .`).", StaleBuildWarning, stacklevel=2)
        source = source_file(fullname)
        search = [str(source.parent)] if source.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(fullname, source,
                                                      submodule_search_locations=search)


    def _foreign(self, fullname: str, path: Any) -> Any:
        """Any other fieldcraft module found as an extension module was compiled for some other
        module (a game folder copied with its build products, the way a new game starts): its
        ``.py`` runs instead."""
        if not fullname.startswith("fieldcraft.") or path is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        origin = spec.origin if spec is not None else None
        if not origin or not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            return None
        ext = Path(origin)
        source = ext.with_name(ext.name.split(".", 1)[0] + ".py")
        if not source.is_file():
            return None
        if self._trusted(fullname, ext, source):
            return None
        search = [str(source.parent)] if source.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(fullname, source,
                                                      submodule_search_locations=search)


    def _trusted(self, fullname: str, ext: Path, source: Path) -> bool:
        """A game folder outside the package compiled by :func:`compile_game_folder`: its
        extension module loads if its folder's manifest says it was built from the source as
        it is now, and the package's own compiled build runs (its types are what it was
        compiled against)."""
        if self._states is None:
            self._states = module_states()
        if set(self._states.values()) != {"compiled"}:
            return False
        record = read_manifest(ext.parent)["modules"].get(fullname)
        return record == {"hash": source_hash(source), "ext": ext.name}


_GUARD = _SourceGuard()


def install_guard() -> None:
    """Put the guard first on ``sys.meta_path`` (once), before any hot module is imported."""
    if _GUARD not in sys.meta_path:
        sys.meta_path.insert(0, _GUARD)


def compiled_modules(loaded: bool = True) -> list[str]:
    """The hot modules that load (or, not imported yet, would load) from an extension module;
    ``loaded=False``: that a fresh process would load, whatever this one has imported."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    states = module_states()
    out = []
    for name in HOT_MODULES:
        module = sys.modules.get(name) if loaded else None
        if module is not None:
            if str(getattr(module, "__file__", "") or "").endswith(suffixes):
                out.append(name)
        elif states[name] == "compiled":
            out.append(name)
    return out


def active_build(loaded: bool = True) -> dict[str, object]:
    """``{"build": "pure" | "compiled" | "partly compiled", "compiled": k, "hot_modules": n}``."""
    done = compiled_modules(loaded)
    kind = "pure" if not done else "compiled" if len(done) == len(HOT_MODULES) else \
        "partly compiled"
    return {"build": kind, "compiled": len(done), "hot_modules": len(HOT_MODULES)}


def pure_reason() -> str | None:
    """Why this build is pure, when it is: ``FIELDCRAFT_PURE`` now, or what the install said."""
    if pure_requested():
        return f"{PURE_ENV}=1"
    return read_manifest().get("pure_reason")


def describe(loaded: bool = True) -> str:
    """One line for ``fieldcraft --version``."""
    from fieldcraft import __version__

    info = active_build(loaded)
    stale = stale_modules()
    if info["build"] == "pure" and stale and not pure_requested():
        return (f"fieldcraft {__version__} (pure Python build: {len(stale)} hot module(s) "
                "changed since compiling; `pip install -e .` compiles them again)")
    if info["build"] == "pure":
        why = pure_reason()
        return f"fieldcraft {__version__} (pure Python build{': ' + why if why else ''})"
    line = (f"fieldcraft {__version__} ({info['build']} build: {info['compiled']} of "
            f"{info['hot_modules']} hot modules are extension modules")
    return line + ")"


def why_not_compile() -> str | None:
    """Why an install cannot compile here (``None``: it can): asked by the build hook."""
    if pure_requested():
        return f"{PURE_ENV}=1"
    if importlib.util.find_spec("Cython") is None:
        return "Cython is not installed"
    compiler = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler} not found)"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return "no Python headers (Python.h)"
    return None


def remove_compiled(package_dir: Path = PACKAGE_DIR) -> int:
    """Delete the hot modules' extension modules (an install asked to be pure). Returns how many."""
    gone = 0
    for name in hot_modules(package_dir):
        ext = extension_file(name, package_dir)
        if ext is not None:
            ext.unlink()
            gone += 1
    return gone


def write_pure_manifest(why: str, package_dir: Path = PACKAGE_DIR) -> None:
    (package_dir / MANIFEST).write_text(json.dumps({"modules": {}, "pure_reason": why},
                                                   indent=1) + "\n")


def compile_in_place(package_dir: Path = PACKAGE_DIR, modules: list[str] | None = None,
                     force: bool = False, log: Any = None) -> list[str]:
    """Compile the hot modules whose extension module is missing or older than the source, next
    to their sources in ``package_dir`` (C files under ``build/cython`` beside the package), and
    record what each was compiled from. Everything is compiled again when Cython's version or
    ``CFLAGS`` changed (modules sharing a compiled type must agree on it). Returns the modules
    compiled. Needs Cython, setuptools and a C compiler."""
    import Cython

    names = list(modules or hot_modules(package_dir))
    manifest = read_manifest(package_dir)
    recorded = dict(manifest["modules"])
    cflags = os.environ.get("CFLAGS", "-O2 -g0")
    if manifest.get("cython") != Cython.__version__ or manifest.get("cflags") != cflags:
        force = True
    hashes = {n: source_hash(source_file(n, package_dir)) for n in names}
    # A module with no extension module yet (new to HOT_MODULES, or deleted) has no record.
    todo = [n for n in names if force or recorded.get(n) is None
            or recorded.get(n) != _record(n, package_dir)]
    if todo:
        root = package_dir.parent
        scratch = root / "build" / "cython"
        scratch.mkdir(parents=True, exist_ok=True)
        if log:
            log(f"fieldcraft: compiling {len(todo)} hot module(s) with Cython "
                f"(about {max(1, round(len(todo) * 2 / 60))} min on two cores)")
        for n in todo:
            recorded.pop(n, None)
        staged = scratch / "src"
        _stage(package_dir, staged / package_dir.name)
        _run_setup(staged, [module_path(n) for n in todo], cflags)
        for n in todo:
            _take_extension(staged / module_path(n), source_file(n, package_dir))
    for n in names:
        ext = extension_file(n, package_dir)
        if ext is None:
            raise RuntimeError(f"Cython built no extension module for {n}")
        recorded[n] = {"hash": hashes[n], "ext": ext.name}
    (package_dir / MANIFEST).write_text(json.dumps(
        {"cython": Cython.__version__, "cflags": cflags,
         "modules": dict(sorted(recorded.items()))}, indent=1) + "\n")
    return todo


# Cython and then the C compiler run on every core the process may use (at least two): each
# module is translated and compiled on its own, so the compile takes about CPU time / cores.
_SETUP = """
import os
import sys
from setuptools import setup
from Cython.Build import cythonize
jobs = max(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
           else os.cpu_count() or 2)
setup(ext_modules=cythonize(sys.argv[1:], language_level=3, nthreads=jobs, quiet=True,
                            build_dir="build/cython", force=True,
                            compiler_directives={"binding": True, "annotation_typing": False,
                                                 "auto_pickle": False}),
      script_args=["build_ext", "--inplace", "--force", "-j", str(jobs), "--build-temp",
                   "build/cython/temp"])
"""


def _fields_module() -> Any:
    """``fieldcraft/core/fields.py`` on its own: the build derives the compiled build's
    declarations with it, and may run where the package is not importable (hatch_build.py)."""
    spec = importlib.util.spec_from_file_location("_fieldcraft_fields", FIELDS_SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _stage(source: Path, dest: Path) -> None:
    """Copy the ``.py`` and ``.pxd`` files of the package ``source`` to ``dest`` and derive, in
    the copy, what the compiled build needs from the annotations (each extension type's field
    block, a state's clone: :func:`fieldcraft.core.fields.derive_declarations`). Cython compiles
    the copy; the package's own files stay as written."""
    fields = _fields_module()
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=lambda folder, names: [
        n for n in names if not (n.endswith((".py", ".pxd", ".pxi"))
                                 or (Path(folder) / n).is_dir()) or n in ("__pycache__", "build")])
    for folder in sorted({p.parent for p in dest.rglob("*.pxd")}):
        pairs = {str(py.relative_to(dest.parent)): (py.read_text(), py.with_suffix(".pxd")
                                                    .read_text())
                 for py in sorted(p.with_suffix(".py") for p in folder.glob("*.pxd"))
                 if py.is_file()}
        for where, (text, declarations) in fields.derive_folder(pairs).items():
            (dest.parent / where).write_text(text)
            (dest.parent / where).with_suffix(".pxd").write_text(declarations)


def _run_setup(cwd: Path, paths: list[str], cflags: str) -> None:
    """Cython and the C compiler on ``paths`` (relative to ``cwd``), extension modules beside."""
    setup = cwd / "_setup_compiled.py"
    setup.write_text(_SETUP)
    done = subprocess.run([sys.executable, str(setup), *paths], cwd=cwd,
                          env=dict(os.environ, CFLAGS=cflags), capture_output=True, text=True)
    if done.returncode != 0:  # setuptools' own chatter is shown only when it failed
        raise RuntimeError(f"compiling failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}")


def _take_extension(staged: Path, source: Path) -> None:
    """Move the extension module built beside ``staged`` (a ``.py`` in the staged copy) beside
    the real ``source``, replacing an older one."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = staged.with_name(staged.stem + suffix)
        if built.is_file():
            for old in (source.with_name(source.stem + s)
                        for s in importlib.machinery.EXTENSION_SUFFIXES):
                old.unlink(missing_ok=True)
            shutil.copyfile(built, source.with_name(built.name))
            return


def compile_game_folder(folder: Path, log: Any = None) -> list[str]:
    """Compile the hot modules (``GameSpec.hot``) of the game package in ``folder``, a folder
    outside this package that ``FIELDCRAFT_GAMES_PATH`` names the parent of (a new game copied
    from another), in place, against this package's compiled core, and record them in the
    folder's own manifest (the guard loads them only as long as that says they are current).
    Its ``.pxd`` files cimport each other relatively, so the copy's modules use the copy's
    types. Returns the modules compiled."""
    import tempfile

    folder = Path(folder).resolve()
    package = f"{PACKAGE_DIR.name}.games.{folder.name}"
    names = [f"{package}.{name}" for name in declared_hot(folder / "__init__.py")]
    with tempfile.TemporaryDirectory() as scratch:
        # The folder seen where its dotted name says (so that Cython names its modules
        # fieldcraft.games.<folder>.*) beside this package's core declarations.
        tree = Path(scratch) / PACKAGE_DIR.name
        (tree / "games").mkdir(parents=True)
        (tree / "__init__.py").touch()
        (tree / "games" / "__init__.py").touch()
        _stage(PACKAGE_DIR / "core", tree / "core")
        _stage(folder, tree / "games" / folder.name)
        if log:
            log(f"fieldcraft: compiling {len(names)} module(s) of {folder.name}")
        _run_setup(Path(scratch), [module_path(n) for n in names],
                   os.environ.get("CFLAGS", "-O2 -g0"))
        for n in names:
            _take_extension(Path(scratch) / module_path(n),
                            folder / f"{n.rsplit('.', 1)[1]}.py")
    modules = {}
    for n in names:
        source = folder / f"{n.rsplit('.', 1)[1]}.py"
        ext = next((source.with_name(source.stem + suffix) for suffix in
                    importlib.machinery.EXTENSION_SUFFIXES
                    if source.with_name(source.stem + suffix).is_file()), None)
        if ext is None:
            raise RuntimeError(f"Cython built no extension module for {n}")
        modules[n] = {"hash": source_hash(source), "ext": ext.name}
    (folder / MANIFEST).write_text(json.dumps({"modules": modules}, indent=1) + "\n")
    return names


def make_compiled_copy(dest: Any, modules: list[str] | None = None) -> float:
    """Copy the ``fieldcraft`` package into ``dest`` and compile ``modules`` (dotted names;
    default: every hot module) there, as an install would. Returns the build's seconds.
    Nothing is written beside the package's own source. Needs Cython, setuptools and a C
    compiler."""
    import time

    dest = Path(dest)
    shutil.copytree(PACKAGE_DIR, dest / "fieldcraft", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", MANIFEST))
    start = time.perf_counter()
    compile_in_place(dest / "fieldcraft", modules, force=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Compile what is missing or stale in this checkout (``--compile``), or say which build is
    installed (``--report``: on stderr, as a warning, when pure). Run as
    ``python -c 'from fieldcraft.build import main; main()' --report`` (the Makefile does)."""
    import argparse

    parser = argparse.ArgumentParser(prog="fieldcraft.build", description=main.__doc__)
    parser.add_argument("--compile", action="store_true",
                        help="compile missing or stale hot modules in place")
    parser.add_argument("--report", action="store_true",
                        help="one line: which build is installed (a warning when pure)")
    parser.add_argument("--sources", action="store_true",
                        help="the hot modules' source files, one a line (the Makefile's inputs)")
    args = parser.parse_args(argv)
    if args.sources:  # run as ``python fieldcraft/build.py --sources``: imports no fieldcraft
        print("\n".join(module_path(n) for n in HOT_MODULES))
        return 0
    if args.compile:
        why = why_not_compile()
        if why:
            print(f"fieldcraft: not compiling ({why})", file=sys.stderr)
            return 1
        compile_in_place(log=lambda line: print(line, file=sys.stderr))
    line = describe(loaded=False)  # what the next process runs
    if active_build(loaded=False)["build"] == "pure":
        print(f"warning: {line}: everything works; bots and studies run slower "
              "(docs/performance.md)", file=sys.stderr)
    else:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
