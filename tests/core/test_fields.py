"""A field is declared once, as an annotation: the pure build's metaclass and the compiled
build's derived declarations (``derive_declarations``) both make ``_fields``, ``_field_kinds``
and the same ``clone`` from it, and the compiled build's ``.pxd`` field block too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fieldcraft.games.spy_tracker.rules as spy_tracker_rules
from fieldcraft.core.fields import (
    DeclarationError,
    StateMeta,
    c_type,
    class_annotations,
    clone_lines,
    derive_declarations,
    derive_folder,
    own_fields,
)

SOURCE = '''from fieldcraft.core.fields import StateMeta


class Good(State, metaclass=StateMeta):
    hands: list[list[int]]
    phase: int
    mask: cython.long
    bids: list[int]
    board: fast.Board
    reveal: Shared[dict[str, int] | None]
    LIMIT: int = 3

    def legal(self):
        return self.bids


def after():
    return 1
'''

PXD = '''cimport cython
from fieldcraft.core.api cimport State

cdef class Good(State):
    cpdef legal(self)
'''


def derived() -> tuple[str, str]:
    return derive_declarations(SOURCE, PXD, {"Good": "State"}, where="good.py")


def test_the_pxd_gets_a_c_field_per_annotation_and_the_clone() -> None:
    _, pxd = derived()
    block = pxd.split("cdef class Good(State):\n")[1].splitlines()
    assert block[:8] == [
        "    cdef public list hands", "    cdef public int phase", "    cdef public long mask",
        "    cdef public list bids", "    cdef public cpython.array.array board",
        "    cdef public object reveal", "    @cython.locals(cls=type, new=Good)",
        "    cpdef clone(self)"]
    assert pxd.startswith("cimport cpython.array\n") and "cpdef legal(self)" in pxd


def test_the_source_gets_the_metaclass_s_clone_and_keeps_its_line_numbers() -> None:
    source, _ = derived()
    assert "metaclass" not in source.split("class Good")[1].split("\n")[0]
    before, after = SOURCE.splitlines(), source.splitlines()
    assert after.index("def after():") == before.index("def after():"), "lines moved"
    tree = ast.parse(source)
    good = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Good")
    clone = next(n for n in good.body if isinstance(n, ast.FunctionDef) and n.name == "clone")
    said = [ast.unparse(s) for s in clone.body if isinstance(s, ast.Assign)
            and ast.unparse(s.targets[0]).startswith("new.")]
    kinds = own_fields({"__annotations__": {
        "hands": "list[list[int]]", "phase": "int", "mask": "cython.long", "bids": "list[int]",
        "board": "fast.Board", "reveal": "Shared[dict[str, int] | None]"}})
    assert said == clone_lines(kinds)
    namespace: dict = {}
    exec(compile(ast.Module([n for n in good.body if isinstance(n, ast.Assign)], []),  # noqa: S102
                 "derived", "exec"), namespace)
    assert namespace["_fields"] == ("hands", "phase", "mask", "bids", "board", "reveal")
    assert namespace["_field_kinds"]["board"] == "list"
    assert namespace["_field_kinds"]["hands"] == "lists"


def test_what_either_build_would_declare_twice_is_refused() -> None:
    with pytest.raises(DeclarationError, match="declared in the .pxd as well"):
        derive_declarations(SOURCE, PXD + "    cdef public int phase\n", {"Good": "State"})
    with pytest.raises(DeclarationError, match="clone is declared"):
        derive_declarations(SOURCE, PXD + "    cpdef clone(self)\n", {"Good": "State"})
    with pytest.raises(DeclarationError, match="not made with metaclass=StateMeta"):
        derive_declarations(SOURCE.replace(", metaclass=StateMeta", ""), PXD, {"Good": "State"})


def test_c_types_follow_the_annotations() -> None:
    assert [c_type(t) for t in ("int", "bool", "float", "str", "list[int]", "tuple[int, ...]",
                                "dict[str, int]", "cython.long", "str | None", "list[int] | None",
                                "Shared[list[int]]", "frozenset[int]", "fast.Board")] == [
        "int", "bint", "double", "str", "list", "tuple", "dict", "long", "object", "object",
        "object", "object", "cpython.array.array"]


def test_a_game_table_class_gets_fields_and_no_clone() -> None:
    source = "class Tables(Game):\n    w: int\n    rows: list[int]\n"
    pxd = "cdef class Tables(Game):\n    pass\n"
    same, declarations = derive_declarations(source, pxd, {"Tables": "Game"})
    assert same == source
    assert declarations.splitlines()[1:3] == ["    cdef public int w", "    cdef public list rows"]
    assert "clone" not in declarations


def test_spy_trackers_folder_derives_the_fields_the_pure_build_makes() -> None:
    folder = Path(spy_tracker_rules.__file__).parent
    modules = {p.name: (p.read_text(), p.with_suffix(".pxd").read_text())
               for p in (folder / "rules.py", folder / "game.py")}
    derived_rules = derive_folder(modules)["rules.py"][0]
    node = next(n for n in ast.parse(derived_rules).body
                if isinstance(n, ast.ClassDef) and n.name == "SpyTrackerState")
    fields_line = next(n for n in node.body if isinstance(n, ast.Assign)
                       and ast.unparse(n.targets[0]) == "_fields")
    assert ast.literal_eval(fields_line.value) == spy_tracker_rules.SpyTrackerState._fields
    assert "    cdef public long taken" in derive_folder(modules)["rules.py"][1]
    assert "    cdef public list answers" in derive_folder(modules)["game.py"][1]


def test_the_metaclass_clones_with_the_same_lines() -> None:
    namespace = {"__annotations__": {"hands": "list[list[int]]", "phase": "int"}}
    kinds = own_fields(namespace)
    assert clone_lines(kinds) == ["new.game = self.game", "new.hands = [x[:] for x in self.hands]",
                                  "new.phase = self.phase"]
    made = StateMeta("Made", (), dict(namespace))
    assert made._fields == ("hands", "phase") and made.__slots__ == ("hands", "phase")


def test_the_metaclass_extends_a_game_state_in_either_build() -> None:
    # Spy Tracker's state is an extension type in the compiled build: the build gave it the
    # same field kinds, so a subclass made by the metaclass clones the inherited fields too
    from fieldcraft.core.registry import load_game

    sub = StateMeta("Sub", (spy_tracker_rules.SpyTrackerState,),
                    {"__annotations__": {"extra": "list[int]"}})
    assert sub._fields == spy_tracker_rules.SpyTrackerState._fields + ("extra",)
    state = sub(load_game("spy-tracker", players=2))
    state.extra = [1]
    twin = state.clone()
    assert type(twin) is sub and twin.extra == [1] and twin.extra is not state.extra
    assert twin.hands == state.hands and twin.hands is not state.hands


def test_the_metaclass_refuses_a_state_whose_kinds_it_cannot_know() -> None:
    class WrittenOut:
        _fields = ("phase",)

    with pytest.raises(TypeError, match="writes its fields out"):
        StateMeta("Sub", (WrittenOut,), {"__annotations__": {"extra": "int"}})


def test_a_class_without_a_base_gets_its_fields_and_loses_its_slots_line() -> None:
    """A search tree's node (no base, never cloned, a field that may be None) declares its fields
    once too: the compiled build's C fields from the annotations, the pure build's slots from
    the same names, which Cython cannot evaluate, so the build blanks that line."""
    source = ("class Node:\n    n: list[int]\n    visits: cython.Py_ssize_t\n"
              "    chance: dict[int, Node] | None\n    __slots__ = tuple(__annotations__)\n\n"
              "    def add(self):\n        return 1\n")
    pxd = "cdef class Node:\n    cpdef add(self)\n"
    code, declarations = derive_declarations(source, pxd, {"Node": "object"})
    assert declarations.splitlines()[1:4] == ["    cdef public list n",
                                              "    cdef public Py_ssize_t visits",
                                              "    cdef public object chance"]
    assert "__slots__" not in code and len(code.splitlines()) == len(source.splitlines())
    namespace: dict = {"cython": None}
    exec(source.replace("cython.Py_ssize_t", "int"), namespace)  # noqa: S102 - the pure build
    assert namespace["Node"].__slots__ == ("n", "visits", "chance")


def test_the_search_node_is_declared_once() -> None:
    """ISMCTS's node: the .pxd declares no field of it; both builds have the annotated ones."""
    from fieldcraft.agents import ismcts

    folder = Path(ismcts.__file__).parent
    assert "cdef public" not in (folder / "ismcts.pxd").read_text()
    tree = ast.parse((folder / "ismcts.py").read_text())
    names = list(class_annotations(next(n for n in tree.body if isinstance(n, ast.ClassDef)
                                         and n.name == "_Node")))
    node = ismcts._Node()
    assert len(names) == 11 and all(hasattr(node, name) for name in names)
    with pytest.raises(AttributeError):
        node.not_a_field = 1  # slots (pure) or C fields (compiled): no __dict__
