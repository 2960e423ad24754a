"""Tables handed on from one state of a game to the next without copying them: a
:class:`Layered` table looks up what it does not hold in the table of the state before,
except the keys the move invalidated.

A state is never changed once made, and the next state (``apply``: one unit moved) shares
most of what its look-up tables hold: the per-state indexes of ``zoc``
(:mod:`app.rules.zoc.index`) and ``zoi`` (:mod:`app.rules.zoi.search`) hand theirs on as
layers, so a move costs the keys it drops, not a copy of every table.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_ABSENT: Any = object()

LAYERS_KEPT = 8
"""How many layers a :class:`Layered` table may stand on before it is made flat again."""


class Layered(dict[K, V]):
    """A lazily filled table of the state after a move, over the table of the state before:
    what it does not hold yet is looked up in the tables below (and kept in this one), except
    the keys a move invalidated (each layer's ``dropped``), which are found again. Handing a
    table on thus costs the keys dropped, not a copy of everything found so far; every
    :data:`LAYERS_KEPT` moves the table is made flat (:meth:`flat`: one copy, in C), so the
    layers below can go.

    A look-up walks down the layers in one call (not a call per layer), and keeps what it
    found in the top layer only. Only ``t[key]``, ``get``, ``in`` and ``t[key] = value`` look
    below; nothing iterates these tables."""

    __slots__ = ("_below", "_dropped", "depth")
    depth: int

    def __init__(self, below: dict[K, V], dropped: Container[Any], depth: int = 0) -> None:
        """``depth``: how many layers ``below`` stands on, counting itself (0: found here).
        (The dict itself is made empty by ``dict.__new__``: nothing to pass on.)"""
        self._below = below
        self._dropped = dropped
        if not depth:
            depth = below.depth + 1 if isinstance(below, Layered) else 1
        self.depth = depth

    def _found_below(self, key: Any) -> Any:
        """The value the layers below hold for ``key`` (none dropped it on the way), or
        ``_ABSENT``."""
        table: Layered[Any, Any] = self
        while True:
            if key in table._dropped:
                return _ABSENT
            below = table._below
            value = dict.get(below, key, _ABSENT)
            if value is not _ABSENT or not isinstance(below, Layered):
                return value
            table = below

    def __missing__(self, key: K) -> V:
        value = self._found_below(key)
        if value is _ABSENT:
            raise KeyError(key)
        self[key] = value
        return value  # type: ignore[no-any-return]

    def get(self, key: K, default: Any = None) -> Any:
        # as ``self[key]`` (with :meth:`__missing__`) would find it
        value = dict.get(self, key, _ABSENT)
        if value is not _ABSENT:
            return value
        value = self._found_below(key)
        if value is _ABSENT:
            return default
        self[key] = value
        return value

    def __contains__(self, key: object) -> bool:
        return self.get(key, _ABSENT) is not _ABSENT  # type: ignore[arg-type]

    def flat(self) -> dict[K, V]:
        """Everything this table holds, as a plain dict: the bottom table copied once, then,
        layer by layer upwards, each layer's dropped keys taken out and its own entries put
        in (copies and updates in C: no pass over the entries in Python)."""
        chain: list[Layered[K, V]] = []
        table: dict[K, V] = self
        while isinstance(table, Layered):
            chain.append(table)
            table = table._below
        out = table.copy()
        for layer in reversed(chain):
            _drop(out, layer._dropped)
            out.update(dict.copy(layer))  # a copy first: another request may be filling it
        return out


def _drop(table: dict[Any, Any], dropped: Container[Any]) -> None:
    """Take the keys in ``dropped`` out of ``table``: one by one from a set, else by a pass
    over the table."""
    if isinstance(dropped, (set, frozenset)):
        pop = table.pop
        for key in dropped:
            pop(key, None)
    else:
        for key in [k for k in table if k in dropped]:
            del table[key]


def layered(below: dict[K, V], dropped: Container[Any]) -> dict[K, V]:
    """``below`` without the keys in ``dropped`` (a set, or a test of a key: it must hold for
    any key the table below may ever hold, also one it is given after this call, as the
    state before can still be asked), as a new table (see :class:`Layered`)."""
    if isinstance(below, Layered):
        depth = below.depth
        if depth < LAYERS_KEPT:
            return Layered(below, dropped, depth + 1)
        below = below.flat()
    return Layered(below, dropped, 1)
