"""State fields declared once, as annotations, with ``__slots__`` and ``clone`` made from them.

A game's state class lists its fields as annotations without values, the way a dataclass does::

    class SpyTrackerState(State):
        actions: list[int]          # copied by slicing
        hands: list[list[int]]      # each inner list sliced
        phase: int                  # shared (immutable, or replaced and never mutated)

From that one list :class:`StateMeta` makes ``__slots__`` and a ``clone()`` written out as
straight-line code (generated with ``exec``, as ``dataclasses`` does), so a clone costs exactly
what a hand-written one did, and a new field cannot be forgotten in it. The copy kind is read
from the annotation: ``list[list[...]]`` copies each inner list, ``list[...]`` slices,
``dict[...]`` makes a shallow copy, anything else (and ``Shared[...]``) is shared by reference.
A field that may be ``None`` or a list would need a branch in the hot path and is refused unless
it is ``Shared``; an annotated name with a
value in the class body is a class constant, not a field, as are ``ClassVar`` annotations.

A state class is made by the metaclass (``class MyState(State, metaclass=StateMeta)``). A state
compiled as an extension type (a ``.pxd`` declares its fields as C types, docs/performance.md)
cannot have a metaclass, so it writes ``__slots__``, ``_fields`` and ``clone`` out;
:func:`written_out_problems` checks they say exactly what the metaclass would have made.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

_T = TypeVar("_T")
Shared = Annotated[_T, "shared"]
"""``Shared[T]``: a field of type ``T`` that clones share, because it is only ever replaced,
never changed in place (a reveal record, a table written once)."""

VALUE = "value"
LIST = "list"
LISTS = "lists"
DICT = "dict"


def copy_kind(annotation: Any) -> str:
    """The copy kind of one field from its annotation (a string under postponed annotations)."""
    text = (annotation if isinstance(annotation, str) else _type_text(annotation)).replace(" ", "")
    if text.startswith(("Shared[", "Annotated[")):
        return VALUE
    alternatives = _top_level_union(text)
    if len(alternatives) > 1:
        if any(a.startswith(_CONTAINERS) for a in alternatives):
            raise TypeError(f"field annotation {text!r}: a list or dict field cannot also be "
                            "something else (None, say); give it one type, or mark it "
                            "Shared[...] if it is replaced and never changed in place")
        return VALUE
    if text.startswith(("list[list[", "List[List[", "list[List[", "List[list[")):
        return LISTS
    if text.startswith(("list[", "List[")):
        return LIST
    if text.startswith(("dict[", "Dict[")):
        return DICT
    return VALUE


_CONTAINERS = ("list[", "List[", "dict[", "Dict[", "Optional[list", "Optional[dict")


def _top_level_union(text: str) -> list[str]:
    """``"list[int]|None"`` -> ``["list[int]", "None"]``; a ``|`` inside brackets stays."""
    if text.startswith("Optional["):
        return [text[len("Optional["):-1], "None"]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _type_text(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None)
    if text and not getattr(annotation, "__args__", None):
        return text
    return str(annotation).replace("typing.", "")


def own_fields(namespace: dict[str, Any]) -> dict[str, str]:
    """Fields a class body declares: annotated names without a value, minus class variables."""
    out = {}
    for name, annotation in namespace.get("__annotations__", {}).items():
        if name in namespace or name == "game":
            continue
        text = annotation if isinstance(annotation, str) else _type_text(annotation)
        if text.startswith(("ClassVar", "typing.ClassVar")):
            continue
        out[name] = copy_kind(annotation)
    return out


_TEMPLATES = {
    VALUE: "    new.{0} = self.{0}\n",
    LIST: "    new.{0} = self.{0}[:]\n",
    LISTS: "    new.{0} = [x[:] for x in self.{0}]\n",
    DICT: "    new.{0} = self.{0}.copy()\n",
}


def clone_lines(kinds: dict[str, str]) -> list[str]:
    """The copying lines of a clone, one per field in declaration order, ``game`` first:
    what ``make_clone`` generates and what a written-out clone must say."""
    return ["new.game = self.game"] + [_TEMPLATES[kind].format(name).strip()
                                       for name, kind in kinds.items()]


def make_clone(cls: type, kinds: dict[str, str]) -> Any:
    """A ``clone`` for ``cls``: a new instance with every field copied by its kind."""
    body = "".join(f"    {line}\n" for line in clone_lines(kinds))
    source = (
        "def clone(self):\n"
        "    new = _new(_cls)\n"
        f"{body}"
        "    return new\n"
    )
    # ``cls.__new__``, not ``object.__new__``: under a compiled (extension type) State the
    # latter refuses to make the subclass.
    scope: dict[str, Any] = {"_new": cls.__new__, "_cls": cls}
    exec(source, scope)  # noqa: S102 - generated from field names checked to be identifiers
    clone = scope["clone"]
    clone.__qualname__ = f"{cls.__qualname__}.clone"
    clone.__doc__ = "An independent copy of this state (generated from its declared fields)."
    return clone


def _parse_class(source: str, class_name: str) -> tuple[dict[str, str], dict[str, Any]] | None:
    """A class body read from source text: its fields (as ``own_fields`` gives them) and the
    values it writes out (``__slots__``, ``_fields``, ``clone``...), as syntax trees."""
    import ast

    tree = ast.parse(source)
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name),
                None)
    if node is None:
        return None
    namespace: dict[str, Any] = {"__annotations__": {}}
    written: dict[str, Any] = {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if item.value is None:
                namespace["__annotations__"][item.target.id] = ast.unparse(item.annotation)
            else:
                namespace[item.target.id] = True
        elif isinstance(item, ast.Assign):
            for target in item.targets:
                if isinstance(target, ast.Name):
                    namespace[target.id] = True
                    written[target.id] = item.value
        elif isinstance(item, ast.FunctionDef):
            namespace[item.name] = True
            written[item.name] = item
    for name in ("__slots__", "_fields", "clone"):
        namespace.pop(name, None)
    return own_fields(namespace), written


def source_fields(source: str, class_name: str) -> dict[str, str] | None:
    """The fields a class declares in its own body, read from its module's source text (the
    compiled build keeps no annotations on an extension type)."""
    parsed = _parse_class(source, class_name)
    return None if parsed is None else parsed[0]


def written_out_problems(source: str, class_name: str) -> list[str]:
    """What is wrong with a state class that writes ``__slots__``, ``_fields`` and ``clone``
    out instead of being made by :class:`StateMeta` (a compiled extension type cannot be): each
    must say exactly what the metaclass would make from the class's annotations. Read from
    the module's source text, so it checks the compiled build's class as well."""
    import ast

    parsed = _parse_class(source, class_name)
    if parsed is None:
        return [f"no class {class_name}"]
    kinds, written = parsed
    problems = []
    for name in ("__slots__", "_fields"):
        value = written.get(name)
        try:
            listed = ast.literal_eval(value) if isinstance(value, ast.expr) else None
        except ValueError:
            listed = ast.unparse(value) if isinstance(value, ast.expr) else None
        if name == "_fields" and listed == "__slots__":
            listed = ast.literal_eval(written["__slots__"])
        if listed != tuple(kinds):
            problems.append(f"{class_name}.{name} is {listed!r}, the annotations give "
                            f"{tuple(kinds)!r}")
    clone = written.get("clone")
    if not isinstance(clone, ast.FunctionDef):
        return problems + [f"{class_name} has no clone"]
    said = [ast.unparse(s) for s in clone.body
            if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]).startswith("new.")]
    if said != clone_lines(kinds):
        missing = [x for x in clone_lines(kinds) if x not in said]
        extra = [x for x in said if x not in clone_lines(kinds)]
        problems.append(f"{class_name}.clone differs from its fields: missing {missing}, "
                        f"extra {extra}" if missing or extra else
                        f"{class_name}.clone copies its fields in another order")
    return problems


class StateMeta(type):
    """Makes ``__slots__``, the ordered field table and ``clone`` of every state class."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any],
                **kwargs: Any) -> StateMeta:
        own = own_fields(namespace)
        for field in own:
            if not field.isidentifier():
                raise TypeError(f"{name}: field name {field!r} is not an identifier")
        if "__slots__" not in namespace:  # only the base State spells its slot ("game") out
            namespace["__slots__"] = tuple(own)
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        kinds: dict[str, str] = {}
        for base in reversed(cls.__mro__[1:]):
            if "_fields" in vars(base) and "_field_kinds" not in vars(base):
                # a written-out state (a compiled extension type): its kinds are not known here
                raise TypeError(f"{name}: {base.__name__} writes its fields out, so a subclass "
                                "cannot be made by StateMeta; subclass it without the "
                                "metaclass and without new fields, or write yours out too")
            kinds.update(getattr(base, "_field_kinds", {}))
        kinds.update(own)
        cls._field_kinds = kinds  # type: ignore[attr-defined]
        cls._fields = tuple(kinds)  # type: ignore[attr-defined]
        if "clone" not in namespace:
            cls.clone = make_clone(cls, kinds)  # type: ignore[attr-defined]
        return cls
