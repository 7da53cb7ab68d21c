"""A game folder reads as rules, not as its build: its modules import one way (no circle, not even
one deferred into a function), and none holds a compiler branch or the C-API."""

from __future__ import annotations

import ast
from pathlib import Path

import fieldcraft.games

GAMES = Path(fieldcraft.games.__file__).parent


def _imports(source: str) -> set[str]:
    """The sibling modules a module imports when it runs (at the top or inside a function),
    leaving out what only a type checker reads (``if TYPE_CHECKING:``)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and child.level == 1 and child.module:
                found.add(child.module.split(".")[0])
            visit(child)

    visit(ast.parse(source))
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def walk(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = walk(nxt, path + [nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = walk(start, [start])
            if found:
                return found
    return None


def test_no_game_folder_has_an_import_circle() -> None:
    folders = [f for f in sorted(GAMES.iterdir()) if (f / "__init__.py").is_file()]
    assert len(folders) >= 4
    for folder in folders:
        graph = {py.stem: _imports(py.read_text()) for py in folder.glob("*.py")}
        assert _cycle(graph) is None, f"{folder.name}: {' -> '.join(_cycle(graph) or [])}"


def test_the_circle_finder_finds_a_deferred_circle() -> None:
    graph = {"game": _imports("def f():\n    from .rules import X\n"),
             "rules": _imports("from .game import G\n"),
             "view": _imports("from typing import TYPE_CHECKING\n"
                              "if TYPE_CHECKING:\n    from .game import G\n")}
    assert _cycle(graph) == ["game", "rules", "game"]
    del graph["rules"]
    assert _cycle(graph) is None


def test_game_folders_hold_no_compiler_branch_and_no_c_api() -> None:
    for py in GAMES.glob("*/*.py"):
        text = py.read_text()
        for word in ("cython.compiled", "cython.cimports", "PyList_New", "Py_INCREF"):
            assert word not in text, f"{py.relative_to(GAMES)} uses {word}"
