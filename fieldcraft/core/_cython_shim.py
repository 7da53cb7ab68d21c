"""Stands in for Cython's ``cython`` module where Cython is not installed (a pure-Python build
without the test tools): typed-locals decorators become no-ops and the type names plain
markers, so the same source runs. The compiled build never imports this file: Cython reads
``import cython`` itself."""

from __future__ import annotations

from typing import Any

compiled = False
int = "int"  # noqa: A001 - the names Cython gives its C types
long = "long"
longlong = "longlong"
uint = "uint"
ulong = "ulong"
double = "double"
Py_ssize_t = "Py_ssize_t"
bint = "bint"
p_schar = "p_schar"  # pointers (to signed and unsigned chars, shorts)
p_uchar = "p_uchar"
p_short = "p_short"
p_int = "p_int"


def _same(function: Any) -> Any:
    return function


def locals(**_types: Any) -> Any:  # noqa: A001 - Cython's decorator name
    return _same


def returns(_type: Any) -> Any:
    return _same


def exceptval(*_args: Any, **_kwargs: Any) -> Any:
    return _same


cfunc = ccall = inline = final = _same


def _directive(*_args: Any, **_kwargs: Any) -> Any:
    """A compiler directive used as a decorator (``@cython.cpow(True)``)."""
    return _same


cpow = boundscheck = wraparound = cdivision = infer_types = _directive


def cast(_type: Any, value: Any, typecheck: bool = False) -> Any:
    """``cython.cast``: the value itself in Python (a C cast in the compiled build)."""
    return value


def declare(_type: Any = None, value: Any = None, **_kwargs: Any) -> Any:
    return value
