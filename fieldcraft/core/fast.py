"""The few things only the compiled build does differently, in one place, so that a game's rules
read the same in both builds.

A game calls them as ``fast.<name>`` after ``from fieldcraft.core import fast`` (and its ``.pxd``
says ``from fieldcraft.core cimport fast``): in the compiled build Cython then calls the C
function declared in ``fast.pxd`` (or inlines it), in the pure build Python calls the function
below, which is the library's own where the library has one. Both give the same answer; only
the compiled build needs the difference, because there a Python call on a boxed int, or a list's
item-by-item reference counting, costs more than the work around it.

What is here:

- ``gather(table, keys)``: ``[table[k] for k in keys]``, the list made at its full size and
  filled in C;
- ``bisect_left``, ``insort``, ``remove``: the library's operations on a short list of ints,
  as C loops on C ints (the library's would compare Python ints through the object protocol);
- ``board(typecode, items)``, ``cells8(board)``, ``cells16(board)``: a large board of small
  ints, which a search copies at every iteration: an ``array.array`` in the compiled build (one
  ``memcpy`` to copy) whose items the rules read through a C pointer, a list in the pure build
  (which the interpreter indexes fastest); ``cells8``/``cells16`` give the pointer, or the list;
- ``accepted_sorted(cells, codes, accept, barred)``: a filter and a sort of a short list of
  cells on C ints, reading a ``bytes`` table through a C pointer;
- ``row_sums(table, keys)``: the column sums of a table's rows picked by keys (a
  :class:`RowSums`), summed in C, or cached;
- ``exp``, ``sqrt``: C's libm functions (the ones ``math`` calls) on C doubles;
- ``doubles(buffer, at)``, ``put_doubles(buffer, at, values)``: an observation tensor written
  straight into an ``array.array("d")`` (a batch of them, rows end to end, which numpy reads
  without a copy): a C pointer at item ``at`` in the compiled build, a memoryview from ``at`` in
  the pure one; and a list of floats copied in at ``at`` (a C loop, no argument tuple);
  ``zero_doubles(buffer, at, n)`` clears ``n`` of them (``memset``); ``float_list(buffer)``
  reads one back as a list (the zeros all one shared ``0.0``, as ``[0.0] * n`` makes them);
- ``put_flags(buffer, at, width, items)``: a legal-action mask row, an ``array.array("b")``,
  marked 1 at each of ``items`` (a C loop instead of numpy's conversion of the list);
- ``advance``, ``write_rows``, ``first_illegal``: the vector env's per-game loops (apply the
  actions and play chance; write every row's seat, tensor and mask; check a batch of actions
  against the masks), one call per batch, so the compiled build loops in C.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any

try:
    import cython
except ImportError:  # pure build without Cython installed
    from fieldcraft.core import _cython_shim as cython

if cython.compiled:  # a list made at its full size and filled item by item (gather)
    from cython.cimports.cpython.list import PyList_New, PyList_SET_ITEM
    from cython.cimports.cpython.ref import Py_INCREF
    from cython.cimports.libc.string import memset  # zero_doubles

Board = list
"""A field annotated ``fast.Board`` holds what :func:`board` makes: a list in the pure build, an
``array.array`` in the compiled one (its C field type there, see ``fieldcraft.core.fields``)."""

__all__ = ["Board", "RowSums", "accepted_sorted", "advance", "bisect_left", "board", "cells8",
           "cells16", "doubles", "exp", "first_illegal", "float_list", "gather", "insort",
           "put_doubles", "put_flags", "remove", "row_sums", "sqrt", "write_rows",
           "zero_doubles"]

MAX_SORTED = 256
"""The longest list ``accepted_sorted`` sorts in a C array; a longer one is sorted by Python."""


@cython.boundscheck(False)  # i runs over range(len(keys)); the caller's keys index its table
@cython.wraparound(False)  # (a card id, a cell): no negative or outside index
def gather(table: list, keys: list[int]) -> list:
    """``[table[k] for k in keys]``, the list made at its full size and filled with the table's
    own objects (a comprehension grows it as it goes)."""
    n = len(keys)
    out = PyList_New(n)
    for i in range(n):
        key = keys[i]
        item = table[key]
        Py_INCREF(item)  # the list takes over this reference
        PyList_SET_ITEM(out, i, item)
    return out


@cython.boundscheck(False)  # mid stays in range(len(items)), which does not change meanwhile
@cython.wraparound(False)
def bisect_left(items: list[int], x: int) -> int:
    """Where ``x`` is (or would go) in the sorted ``items``, as ``bisect.bisect_left`` says."""
    lo = 0
    hi = len(items)
    while lo < hi:
        mid = (lo + hi) >> 1
        item = items[mid]
        if item < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def insort(items: list[int], x: int) -> None:
    """``bisect.insort(items, x)``, scanning from the end: for a short sorted list (a dozen
    cells) a Python call of ``insort`` cost the compiled build more than the whole scan."""
    i = len(items)
    while i > 0:
        item = items[i - 1]
        if item <= x:
            break
        i -= 1
    items.insert(i, x)


@cython.boundscheck(False)  # i runs over range(len(items)), and the list does not change
@cython.wraparound(False)  # before the loop ends: every index is in range and non-negative
def remove(items: list[int], x: int) -> None:
    """``items.remove(x)`` on C ints: ``list.remove`` compares Python ints one by one through
    the object protocol."""
    for i in range(len(items)):
        item = items[i]
        if item == x:
            del items[i]
            return
    raise ValueError(f"{x} is not in the list")


@cython.boundscheck(False)  # cells are board cells (inside codes); codes are below len(accept)
@cython.wraparound(False)  # and values is a table of every cell
def accepted_sorted(cells: list[int], codes: list[int], accept: bytes, barred: int,
                    values: list) -> list:
    """``values[y]`` for the cells ``y`` of ``cells``, but ``barred``, whose code ``codes[y]``
    the table ``accept`` accepts, in increasing order of ``y`` (``values`` grows with ``y``).
    ``codes`` is a board of shorts (:func:`board`): the compiled build inserts the accepted
    cells into a C array in order, where sorting a list would compare Python ints through the
    object protocol."""
    if len(cells) > MAX_SORTED:
        return _accepted_sorted(cells, codes, accept, barred, values)
    at = cells16(codes)
    ok = accept
    keys = cython.declare(cython.int[256])  # MAX_SORTED
    n = 0
    for y in cells:
        if y != barred and ok[at[y]]:
            i = n
            while i > 0 and keys[i - 1] > y:
                keys[i] = keys[i - 1]
                i -= 1
            keys[i] = y
            n += 1
    out = []
    for i in range(n):
        out.append(values[keys[i]])
    return out


def _accepted_sorted(cells: list[int], codes: list[int], accept: bytes, barred: int,
                     values: list) -> list:
    """:func:`accepted_sorted` in Python: one plain loop (on a few dozen cells a comprehension's
    own setup costs more), then a sort of the values, which grow with the cell, so they come
    out in the same order."""
    out = []
    for y in cells:
        if accept[codes[y]] and y != barred:
            out.append(values[y])
    out.sort()
    return out


def board(typecode: str, items: Iterable[int]) -> list[int]:
    """A board holding ``items``: an ``array.array`` of ``typecode`` (``"b"``: signed bytes,
    ``"h"``: shorts) in the compiled build, a list in the pure one. Either reads as ints and
    slices the same; a saved state (``State.to_json``) writes both as lists, and ``==`` compares
    those."""
    if cython.compiled:
        return array(typecode, items)  # type: ignore[return-value]
    return list(items)


class RowSums:
    """A table of rows of ints whose column sums over some of its rows are asked for again
    and again (a hand's count of each trait: the sum of its cards' rows): see
    :func:`row_sums`."""

    def __init__(self, rows: list[tuple[int, ...]], cache_size: int) -> None:
        self.rows = rows
        self.width = len(rows[0]) if rows else 0
        self.flat = array("i", [v for row in rows for v in row])
        self.out = array("i", [0] * self.width)
        self.cache: dict[tuple[int, ...], tuple[int, ...]] = {}
        self.cache_size = cache_size

    def cached_sums(self, keys: list[int]) -> tuple[int, ...]:
        """:func:`row_sums` as a tuple, kept in a dict of at most ``cache_size`` keys."""
        key = tuple(keys)
        sums = self.cache.get(key)
        if sums is None:
            if len(self.cache) >= self.cache_size:
                self.cache.clear()
            rows = self.rows
            sums = tuple(map(sum, zip(*[rows[k] for k in keys], strict=True))) if keys \
                else (0,) * self.width
            self.cache[key] = sums
        return sums


@cython.boundscheck(False)  # the keys are row numbers
@cython.wraparound(False)
def row_sums(table: RowSums, keys: list[int]) -> tuple[int, ...]:
    """The column sums of ``table.rows[k]`` for ``k`` in ``keys``, read as ``sums[column]``.
    In the compiled build a C pointer to the table's own buffer (valid until the next call),
    summed in C at each call: the keys seldom repeat exactly in a search, and a dict lookup on
    a fresh key cost a third of the caller. In the pure build a tuple, cached
    (:meth:`RowSums.cached_sums`): there the sum costs ten times the lookup."""
    width = table.width
    flat = cython.cast(cython.p_int, table.flat.data.as_ints)
    acc = cython.cast(cython.p_int, table.out.data.as_ints)
    for a in range(width):
        acc[a] = 0
    for k in keys:
        row = flat + k * width
        for a in range(width):
            acc[a] += row[a]
    return acc


def _board_itself(board: list[int]) -> list[int]:
    """A board of signed bytes or shorts (:func:`board`) to index in a hot loop: a C pointer to
    its items in the compiled build (``cells8``/``cells16`` in ``fast.pxd``; no bounds check, so
    only for indexes the caller knows are inside it), the board itself here."""
    return board


def _doubles_view(buffer: array, at: int) -> memoryview:
    """A tensor buffer (an ``array.array("d")``) to write from item ``at`` on: a C pointer there
    in the compiled build (``doubles`` in ``fast.pxd``; no bounds check, so the caller checks
    that the whole tensor fits), a memoryview of the rest here (which takes floats by index)."""
    return memoryview(buffer)[at:]


@cython.boundscheck(False)  # i < n, and at + n <= len(buffer) is checked first
@cython.wraparound(False)
def put_doubles(buffer: array, at: int, values: list[float]) -> None:
    """``buffer[at:at + len(values)] = values`` for an ``array.array("d")``: a tensor built as a
    list, copied into a batch's buffer without the argument tuple ``struct`` would need."""
    n = len(values)
    if at < 0 or at + n > len(buffer):
        raise IndexError(f"{n} values at {at} do not fit in a buffer of {len(buffer)}")
    if cython.compiled:
        p = doubles(buffer, at)
        for i in range(n):
            p[i] = values[i]
    else:
        buffer[at:at + n] = array("d", values)


def zero_doubles(buffer: array, at: int, n: int) -> None:
    """``buffer[at:at + n] = 0.0`` for an ``array.array("d")`` (a tensor's range, before a
    writer that writes only the nonzero entries)."""
    if at < 0 or n < 0 or at + n > len(buffer):
        raise IndexError(f"{n} items at {at} do not fit in a buffer of {len(buffer)}")
    if cython.compiled:
        memset(doubles(buffer, at), 0, n * 8)
    else:
        buffer[at:at + n] = array("d", bytes(8 * n))


@cython.boundscheck(False)  # i < len(buffer)
@cython.wraparound(False)
def float_list(buffer: array) -> list[float]:
    """``buffer.tolist()`` for an ``array.array("d")`` holding a tensor, mostly zeros: the
    compiled build makes a float object only for each nonzero item (``tolist`` makes one for
    every item), the zeros sharing one."""
    if not cython.compiled:
        return buffer.tolist()
    n = len(buffer)
    p = doubles(buffer, 0)
    zero = 0.0
    out = PyList_New(n)
    for i in range(n):
        if p[i] == 0.0:
            item = zero
        else:
            item = p[i]
        Py_INCREF(item)  # the list takes over this reference
        PyList_SET_ITEM(out, i, item)
    return out


@cython.boundscheck(False)  # every item is checked against width, and at + width against len
@cython.wraparound(False)
def put_flags(buffer: array, at: int, width: int, items: list[int]) -> None:
    """``buffer[at + a] = 1`` for each ``a`` of ``items`` (each in ``range(width)``), for an
    ``array.array("b")``: a mask row marked from a legal-action list, the row already 0s."""
    if at < 0 or at + width > len(buffer):
        raise IndexError(f"a row of {width} at {at} does not fit in a buffer of {len(buffer)}")
    if cython.compiled:
        row = buffer.data.as_schars + at
        for i in range(len(items)):
            a = items[i]
            if a < 0 or a >= width:
                raise IndexError(f"action {a} outside a mask of {width}")
            row[a] = 1
    else:
        for a in items:
            if not 0 <= a < width:
                raise IndexError(f"action {a} outside a mask of {width}")
            buffer[at + a] = 1



@cython.boundscheck(False)  # i < n, and n * w <= len(flags) is checked first
@cython.wraparound(False)
@cython.locals(n=cython.Py_ssize_t, w=cython.Py_ssize_t, i=cython.Py_ssize_t,
               a=cython.Py_ssize_t, row=cython.p_schar)
def first_illegal(flags: array, width: int, actions: list) -> int:
    """The first ``i`` whose ``actions[i]`` is not marked 1 in row ``i`` of ``flags`` (an
    ``array.array("b")`` of rows of ``width``, end to end, as :func:`put_flags` marks them), or
    -1: a batch of actions checked against its legal-action masks in one loop, where numpy
    takes half a dozen calls. An action too large for a C integer raises ``OverflowError`` in
    the compiled build (it is illegal, and the caller says so)."""
    n = len(actions)
    w = width
    if w < 0 or n * w > len(flags):
        raise IndexError(f"{n} rows of {w} do not fit in a buffer of {len(flags)}")
    row = cells8(flags)
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= w or row[i * w + a] != 1:
            return i
    return -1


@cython.boundscheck(False)  # i < n <= len(states), len(seats); the buffers' fit is checked
@cython.wraparound(False)
@cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, size=cython.Py_ssize_t,
               width=cython.Py_ssize_t, at=cython.Py_ssize_t, row=cython.Py_ssize_t,
               states=list, seats=list)
def write_rows(states: list, seats: list, write: Any, tensor: Any, flat: array, size: int,
               flags: array, width: int) -> None:
    """A batch of games written into its buffers, game ``i`` into row ``i``: ``seats[i]`` the
    seat to move, its observation tensor into ``flat`` (``write(state, seat, flat, at)`` where
    the game has a writer, else ``tensor(state, seat)``'s list copied in) and its legal actions
    marked in ``flags``, cleared first. One loop for the whole batch, so the compiled build
    pays the interpreter's dispatch once per batch instead of per game."""
    n = len(states)
    if len(seats) < n or size < 0 or width < 0 or n * size > len(flat) or n * width > len(flags):
        raise IndexError(f"{n} games do not fit in the buffers given")
    if cython.compiled:
        memset(cells8(flags), 0, n * width)
    else:
        flags[:n * width] = array("b", bytes(n * width))
    at = 0
    row = 0
    for i in range(n):
        state = states[i]
        seat = state.current_player()
        seats[i] = seat
        if write is None:
            put_doubles(flat, at, tensor(state, seat))
        else:
            write(state, seat, flat, at)
        put_flags(flags, row, width, state.legal_actions())
        at += size
        row += width


@cython.boundscheck(False)  # i < n <= len of every list, checked first
@cython.wraparound(False)
@cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, d=cython.Py_ssize_t,
               c=cython.Py_ssize_t, player=cython.Py_ssize_t, chance=cython.Py_ssize_t,
               terminal=cython.Py_ssize_t, states=list, actions=list, rngs=list,
               decisions=list, ended=list)
def advance(states: list, actions: list, rngs: list, decisions: list, cap: int, chance: int,
            terminal: int) -> list:
    """``states[i]._apply(actions[i])`` for each game of a batch, then its chance outcomes
    drawn with ``rngs[i]`` up to the next decision (``play_chance``), ``decisions[i]`` counted
    up. Returns, in order, the games now over: at ``terminal``, or (``cap`` > 0) having made
    ``cap`` decisions. The vector env's step as one loop (see :func:`write_rows`)."""
    n = len(states)
    if len(actions) < n or len(rngs) < n or len(decisions) < n:
        raise IndexError(f"actions, generators and counts for {n} games expected")
    c = cap
    ended = []
    for i in range(n):
        state = states[i]
        state._apply(actions[i])
        d = decisions[i]
        d += 1
        decisions[i] = d
        player = state.current_player()
        if player == chance:
            rng = rngs[i]
            while player == chance:
                state.play_chance(rng)
                player = state.current_player()
        if player == terminal or (c > 0 and d >= c):
            ended.append(i)
    return ended

if cython.compiled:
    # What a module running as Python beside this compiled one (a game folder copied to start
    # a new game, say) calls where the compiled rules get a C pointer.
    globals().update(cells8=_board_itself, cells16=_board_itself, doubles=_doubles_view,
                     row_sums=RowSums.cached_sums)
else:  # the library's own functions (C themselves), and the board itself
    from bisect import bisect_left, insort  # noqa: F811
    from math import exp, sqrt
    from operator import itemgetter

    def gather(table: list, keys: list[int]) -> list:  # noqa: F811
        """``[table[k] for k in keys]``, gathered in C by ``itemgetter``."""
        if len(keys) > 1:
            return list(itemgetter(*keys)(table))
        return [table[keys[0]]] if keys else []

    cells8 = cells16 = _board_itself
    doubles = _doubles_view
    row_sums = RowSums.cached_sums  # noqa: F811
    accepted_sorted = _accepted_sorted  # noqa: F811
    remove = list.remove  # noqa: F811
