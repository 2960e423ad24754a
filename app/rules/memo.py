"""Per-object memo of derived data for immutable inputs (boards): computed once, found by the
object's identity. Pure: a cached value is the value the function would compute again."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
_MEMOS: weakref.WeakSet[ByIdentity[Any]] = weakref.WeakSet()
"""Every memo made (see :func:`adopt`)."""


class ByIdentity(Generic[T]):
    """A small LRU from an object (by identity, held weakly) to a value derived from it.

    Only for objects that are not mutated once made (boards are frozen; rulesets never mutate
    a state they are given, ``apply`` returns a new one): the value is computed from the
    object the first time it is asked for and reused while that same object is alive."""

    def __init__(self, compute: Callable[[Any], T] | None = None, maxsize: int = 64) -> None:
        _MEMOS.add(self)
        self._compute = compute
        self._maxsize = maxsize
        self._items: OrderedDict[int, tuple[weakref.ref[Any], T]] = OrderedDict()
        self._lock = threading.Lock()
        self._computing = threading.Lock()
        self._dead: list[int] = []
        """Keys whose object was collected: dropped at the next put or get, so what was kept
        for a state no longer alive (a game's older version) does not wait to be evicted."""
        self._last: tuple[int, weakref.ref[Any], T] | None = None
        """The entry last found or kept -- the newest in ``_items``, so a hit on it needs no
        reordering -- as (key, reference, value): :meth:`get` answers it without the lock
        (a tuple read whole; the rules core asks the same board and state a few times per
        ruling). Cleared when its entry is dropped, replaced or evicted."""

    def _ref(self, obj: Any) -> weakref.ref[Any]:
        dead, key = self._dead, id(obj)  # not self: the callback must not keep the memo alive

        def gone(_ref: weakref.ref[Any]) -> None:
            dead.append(key)

        return weakref.ref(obj, gone)

    def _purge(self) -> None:
        """Drop the entries of collected objects (the lock held)."""
        while self._dead:
            key = self._dead.pop()
            entry = self._items.get(key)
            if entry is not None and entry[0]() is None:  # not a new object of the same id
                del self._items[key]
                self._forget(key)

    def _forget(self, key: int) -> None:
        """The entry of ``key`` is no longer kept: no longer the last one either."""
        last = self._last
        if last is not None and last[0] == key:
            self._last = None

    def _evict(self) -> None:
        """Drop the oldest entries past the size (the lock held)."""
        while len(self._items) > self._maxsize:
            self._forget(self._items.popitem(last=False)[0])

    def __call__(self, obj: Any) -> T:
        assert self._compute is not None
        return self.get(obj, self._compute)

    def peek(self, obj: Any) -> T | None:
        """The value kept for ``obj``, if any (nothing is computed; a value found is kept as
        if it had been asked for)."""
        with self._lock:
            entry = self._items.get(id(obj))
            if entry is not None and entry[0]() is obj:
                self._items.move_to_end(id(obj))
                self._last = (id(obj), *entry)
                return entry[1]
        return None

    def put(self, obj: Any, value: T) -> None:
        """Keep ``value`` for ``obj`` (replacing what was kept)."""
        with self._lock:
            self._purge()
            entry = self._items[id(obj)] = (self._ref(obj), value)
            self._items.move_to_end(id(obj))
            self._last = (id(obj), *entry)
            self._evict()

    def pop(self, obj: Any) -> T | None:
        """The value kept for ``obj``, if any, no longer kept."""
        with self._lock:
            entry = self._items.get(id(obj))
            if entry is not None and entry[0]() is obj:
                del self._items[id(obj)]
                self._forget(id(obj))
                return entry[1]
        return None

    def get(self, obj: Any, compute: Callable[[Any], T]) -> T:
        """The value kept for ``obj``, or ``compute(obj)`` kept from now on."""
        key = id(obj)
        last = self._last
        if last is not None and last[0] == key and last[1]() is obj:
            return last[2]  # the newest entry: nothing to reorder
        with self._lock:
            entry = self._items.get(key)
            if entry is not None and entry[0]() is obj:
                self._items.move_to_end(key)
                self._last = (key, *entry)
                return entry[1]
        with self._computing:  # one computation at a time: concurrent first requests wait
            with self._lock:
                entry = self._items.get(key)
                if entry is not None and entry[0]() is obj:
                    return entry[1]
            value = compute(obj)
        with self._lock:
            self._purge()
            entry = self._items[key] = (self._ref(obj), value)
            self._items.move_to_end(key)
            self._last = (key, *entry)
            self._evict()
        return value


def adopt(made: Any, equal: Any) -> int:
    """Keep for ``equal`` what every memo keeps for ``made``, an equal object (the caller
    checks ``made == equal``): the values were derived from ``made`` and are the values the
    memos would derive from ``equal`` (each memo's values are functions of the object's
    value). What an adopted value holds of ``made`` (its unit objects, in a state's index) is
    equal to ``equal``'s own. Returns how many entries were kept.

    A state a write made and the same state parsed back from the database (PostgreSQL's
    ``jsonb`` orders keys its own way, so the service keeps the parsed one): the index
    ``apply`` handed on from the state before is kept for the parsed one, instead of being
    built again at the next ask (docs/PERFORMANCE.md, issue 28)."""
    kept = 0
    for memo in list(_MEMOS):
        value = memo.peek(made)
        if value is not None:
            memo.put(equal, value)
            kept += 1
    return kept
