"""Stands in for Cython's ``cython`` module where Cython is not installed (a pure-Python build
without the test tools): typed-locals decorators become no-ops and the type names plain
markers, so the same source runs. The compiled build never imports this file: Cython reads
``import cython`` itself."""

from __future__ import annotations

from typing import Any

compiled = False
int = "int"  # noqa: A001 - the names Cython gives its C types
double = "double"
Py_ssize_t = "Py_ssize_t"
bint = "bint"


def locals(**_types: Any) -> Any:  # noqa: A001 - Cython's decorator name
    return lambda function: function
