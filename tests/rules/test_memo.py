"""``app.rules.memo.ByIdentity``: a value kept per live object, found by identity; what was
kept for an object that is gone is dropped (a game's older states do not wait for eviction)."""

from __future__ import annotations

import gc

from app.rules.memo import ByIdentity


class Thing:
    pass


def test_a_value_is_computed_once_per_object() -> None:
    calls: list[object] = []

    def compute(obj: object) -> int:
        calls.append(obj)
        return len(calls)

    memo: ByIdentity[int] = ByIdentity(compute)
    a, b = Thing(), Thing()
    assert memo(a) == 1 and memo(a) == 1 and memo(b) == 2
    assert len(calls) == 2
    assert memo.peek(a) == 1 and memo.pop(a) == 1 and memo.peek(a) is None


def test_what_was_kept_for_a_collected_object_is_dropped() -> None:
    memo: ByIdentity[list[int]] = ByIdentity(lambda obj: [0] * 1000, maxsize=64)
    things = [Thing() for _ in range(10)]
    for thing in things:
        memo(thing)
    assert len(memo._items) == 10
    del things, thing
    gc.collect()
    memo(keep := Thing())  # the next use drops the dead entries
    assert len(memo._items) == 1 and memo.peek(keep) is not None


def test_a_new_object_with_a_dead_ones_id_gets_its_own_value() -> None:
    memo: ByIdentity[int] = ByIdentity()
    first = Thing()
    memo.put(first, 1)
    old_id = id(first)
    del first
    gc.collect()
    for _ in range(1000):  # try to get the same address again
        again = Thing()
        if id(again) == old_id:
            break
    assert memo.peek(again) is None
    memo.put(again, 2)
    assert memo.peek(again) == 2
