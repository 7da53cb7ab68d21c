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

A state class is made by the metaclass (``class MyState(State, metaclass=StateMeta)``) in the
pure build. The compiled build makes the same class an extension type with C fields, which
cannot have a metaclass: there the build derives the same things from the same annotations
(:func:`derive_declarations`, run on a copy of the source that Cython compiles): the ``.pxd``
field block (a C type per annotation, :func:`c_type`), ``_fields``, ``_field_kinds`` and the
same ``clone``. A game's tables (its ``Game`` subclass declared as an extension type) get their
``.pxd`` field block from their annotations the same way. Nothing of it is written out in a game
folder; the conformance suite checks what either build made against the annotations.
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
    if text in _BOARDS:
        return LIST
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


_BOARDS = ("Board", "fast.Board")
"""``fieldcraft.core.fast.Board``: a list of small ints in the pure build, an ``array.array`` in
the compiled one; both copy by slicing."""

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
    annotations = namespace.get("__annotations__", {})
    return {name: copy_kind(annotations[name]) for name in field_names(namespace)}


def field_names(namespace: dict[str, Any]) -> list[str]:
    """The names :func:`own_fields` takes, without judging how a clone would copy them (a class
    that is not a state, a search tree's node say, is never cloned)."""
    out = []
    for name, annotation in namespace.get("__annotations__", {}).items():
        if name in namespace or name == "game":
            continue
        text = annotation if isinstance(annotation, str) else _type_text(annotation)
        if not text.startswith(("ClassVar", "typing.ClassVar")):
            out.append(name)
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


def class_annotations(node: Any) -> dict[str, str]:
    """The fields a class statement (an ``ast.ClassDef``) declares, as annotation texts in
    declaration order: annotated names without a value, less class variables, ``game`` and
    names the body also assigns or defines."""
    import ast

    namespace: dict[str, Any] = {"__annotations__": {}}
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
        elif isinstance(item, (ast.FunctionDef, ast.ClassDef)):
            namespace[item.name] = True
    return {name: namespace["__annotations__"][name] for name in field_names(namespace)}


def _class_node(source: str, class_name: str) -> Any:
    import ast

    return next((n for n in ast.parse(source).body
                 if isinstance(n, ast.ClassDef) and n.name == class_name), None)


def source_fields(source: str, class_name: str) -> dict[str, str] | None:
    """The fields (name -> copy kind) a class declares in its own body, read from its module's
    source text (the compiled build keeps no annotations on an extension type)."""
    node = _class_node(source, class_name)
    if node is None:
        return None
    return {name: copy_kind(text) for name, text in class_annotations(node).items()}


# -- the compiled build's declarations, derived from the same annotations ------------------------

_C_TYPES = {"int": "int", "bool": "bint", "float": "double", "str": "str", "bytes": "bytes",
            "list": "list", "tuple": "tuple", "dict": "dict", "set": "set",
            "Board": "cpython.array.array", "fast.Board": "cpython.array.array"}


def c_type(annotation: str) -> str:
    """The C type of a field in the compiled build, from its annotation: ``int`` is a C int,
    ``bool`` a ``bint``, ``float`` a double, a ``cython.<type>`` that type (``cython.long`` for a
    bitmask wider than 31 bits), ``list[...]``/``tuple[...]``/``dict[...]``/``str`` the Python
    type (so Cython reads it without a type check), a ``Board`` an ``array.array``; anything
    that may be ``None`` or is ``Shared`` an object."""
    text = annotation.replace(" ", "")
    if text.startswith("cython."):
        return text[len("cython."):]
    if text.startswith(("Shared[", "Annotated[")) or len(_top_level_union(text)) > 1:
        return "object"
    return _C_TYPES.get(text.split("[", 1)[0], "object")


class DeclarationError(ValueError):
    """A hot module's fields cannot be derived as declared (the build says where and why)."""


def pxd_classes(pxd: str) -> dict[str, str]:
    """``cdef class Name(Base):`` lines of a ``.pxd`` text: name -> base name (``object`` for
    a class without one)."""
    import re

    return {m.group(1): (m.group(2) or "object").rsplit(".", 1)[-1] for m in
            re.finditer(r"^cdef class (\w+)(?:\(([\w.]+)\))?\s*:", pxd, re.M)}


def derive_declarations(py: str, pxd: str, bases: dict[str, str],
                        inherited: dict[str, dict[str, str]] | None = None,
                        where: str = "module") -> tuple[str, str]:
    """The source and declarations Cython compiles a hot module from, derived from the module's
    own ``py`` and ``pxd`` texts: for each extension type the ``pxd`` declares whose class in
    ``py`` has field annotations, its ``cdef public`` field block goes into the ``pxd``; a state
    (its chain reaches ``State``, by ``bases``: class -> base over the game's ``.pxd`` files)
    also gets ``_fields``, ``_field_kinds`` and ``clone`` in the source, exactly what
    :class:`StateMeta` makes in the pure build, and loses the metaclass, which an extension type
    cannot have. The source keeps its line numbers (the two added lines take the blank lines
    after the class where there are two), so a traceback points into the real file.
    ``inherited``: the fields (name -> annotation) of state classes of other modules that a
    class here extends."""
    import ast
    import re

    tree = ast.parse(py)
    nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    lines = py.splitlines()
    pxd_lines = pxd.splitlines()
    inherited = dict(inherited or {})
    inserts: list[tuple[int, list[str]]] = []
    needs: set[str] = set()
    states: list[tuple[Any, str, dict[str, str]]] = []
    for name in pxd_classes(pxd):
        node = nodes.get(name)
        own = class_annotations(node) if node is not None else {}
        is_state = _reaches(name, bases, "State")
        inherited[name] = {**inherited.get(bases.get(name, ""), {}), **own}
        if not own:
            continue
        for field in own:
            if re.search(rf"^\s+cdef\s[^(]*\b{field}\b", pxd, re.M):
                raise DeclarationError(f"{where}: {name}.{field} is declared in the .pxd as well "
                                       "as annotated: the build derives the .pxd field from the "
                                       "annotation; remove it from the .pxd")
        block = [f"    cdef public {c_type(text)} {field}" for field, text in own.items()]
        _drop_slots(lines, node)
        needs.update(t.rsplit(".", 1)[0] for t in map(c_type, own.values()) if "." in t)
        if is_state:
            if re.search(r"^\s+cpdef\s+clone\b", pxd, re.M):
                raise DeclarationError(f"{where}: {name}.clone is declared in the .pxd: the "
                                       "build derives it from the annotations")
            block += [f"    @cython.locals(cls=type, new={name})", "    cpdef clone(self)"]
            needs.add("cython")
            states.append((node, name, inherited[name]))
        header = next(i for i, line in enumerate(pxd_lines)
                      if re.match(rf"cdef class {name}\b", line))
        inserts.append((header + 1, block))
    for node, name, fields in sorted(states, key=lambda item: -item[0].lineno):
        _derive_state(lines, node, name, fields, where)  # the last first: lines move below
    for at, block in sorted(inserts, reverse=True):
        pxd_lines[at:at] = block
    for module in sorted(needs):
        if not re.search(rf"^cimport {re.escape(module)}\b", pxd, re.M):
            pxd_lines.insert(0, f"cimport {module}")
    return "\n".join(lines) + "\n", "\n".join(pxd_lines) + "\n"


def _drop_slots(lines: list[str], node: Any) -> None:
    """Blank a ``__slots__ = ...`` statement of a class the compiled build makes an extension
    type: its C fields are its slots, and the pure build's spelling of them (the annotations'
    names, ``tuple(__annotations__)``) is not something Cython can evaluate. Blanked, not
    removed, so the line numbers stay."""
    import ast

    for item in node.body:
        if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                for t in item.targets):
            for i in range(item.lineno - 1, item.end_lineno):
                lines[i] = ""


def derive_folder(modules: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """:func:`derive_declarations` over the hot modules of one folder (a game's, say), given
    as name -> (source, ``.pxd`` text): a state class's chain may run across its modules (each
    class's base read from the ``.pxd`` files), and a subclass's clone copies the fields of the
    classes above it too."""
    import ast

    bases: dict[str, str] = {}
    own: dict[str, dict[str, str]] = {}
    for py, pxd in modules.values():
        declared = pxd_classes(pxd)
        bases.update(declared)
        for node in ast.parse(py).body:
            if isinstance(node, ast.ClassDef) and node.name in declared:
                own[node.name] = class_annotations(node)

    def chain(name: str, seen: frozenset[str]) -> dict[str, str]:
        base = bases.get(name, "")
        above = chain(base, seen | {name}) if base in own and base not in seen else {}
        return {**above, **own.get(name, {})}

    inherited = {name: chain(name, frozenset()) for name in own}
    return {where: derive_declarations(py, pxd, bases, inherited, where)
            for where, (py, pxd) in modules.items()}


def _reaches(name: str, bases: dict[str, str], root: str) -> bool:
    seen = set()
    while name in bases and name not in seen:
        seen.add(name)
        name = bases[name]
        if name == root:
            return True
    return False


def _derive_state(lines: list[str], node: Any, name: str, fields: dict[str, str],
                  where: str) -> None:
    """Rewrite ``lines`` (the module source) in place for the state class ``node``: its header
    without ``metaclass=StateMeta``, and ``_fields``, ``_field_kinds`` and ``clone`` after its
    body (in the two blank lines that follow it, or inserted)."""
    import re

    kinds = {field: copy_kind(text) for field, text in fields.items()}
    first, last = node.lineno - 1, node.body[0].lineno - 1
    header = "\n".join(lines[first:last])
    stripped = re.sub(r",\s*metaclass\s*=\s*StateMeta\b",
                      lambda m: "\n" * m.group(0).count("\n"), header)
    if stripped == header:
        raise DeclarationError(f"{where}: {name} declares fields but is not made with "
                               "metaclass=StateMeta, so the pure build would not clone them")
    lines[first:last] = stripped.split("\n")
    clone = "; ".join(["cls = type(self)", "new = cls.__new__(cls)", *clone_lines(kinds),
                       "return new"])
    added = [f"    _fields = {tuple(kinds)!r}; _field_kinds = {kinds!r}",
             f"    def clone(self): {clone}"]
    end = node.end_lineno
    blank = 0
    while end + blank < len(lines) and not lines[end + blank].strip() and blank < 2:
        blank += 1
    lines[end:end + blank] = added


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
