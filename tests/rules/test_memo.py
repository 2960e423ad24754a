"""``app.rules.memo.ByIdentity``: a value kept per live object, found by identity; what was
kept for an object that is gone is dropped (a game's older states do not wait for eviction)."""

from __future__ import annotations

import gc

from app.rules.memo import ByIdentity, adopt


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


def test_the_oldest_used_value_is_evicted_past_the_size() -> None:
    memo: ByIdentity[str] = ByIdentity(lambda obj: "computed", maxsize=2)
    a, b, c, d = Thing(), Thing(), Thing(), Thing()
    memo.put(a, "a")
    memo.put(b, "b")
    assert memo.peek(a) == "a"  # a is now the last used: b is the oldest
    memo.put(c, "c")
    assert (memo.peek(b), memo.peek(a), memo.peek(c)) == (None, "a", "c")
    assert memo(d) == "computed"  # a get keeps two too, dropping the oldest (a)
    assert (memo.peek(a), memo.peek(c), memo.peek(d)) == (None, "c", "computed")
    assert memo.pop(b) is None and memo.pop(c) == "c" and memo.peek(c) is None


def test_a_value_is_found_by_the_object_it_was_kept_for() -> None:
    memo: ByIdentity[str] = ByIdentity(maxsize=8)
    a, b = Thing(), Thing()
    memo.put(a, "a")
    assert memo.peek(b) is None and memo.pop(b) is None
    assert memo.get(b, lambda obj: "b") == "b" and memo.get(a, lambda obj: "x") == "a"
    memo.put(a, "a2")  # replaced
    assert memo.peek(a) == "a2" and len(memo._items) == 2


def test_a_collected_objects_entry_goes_at_the_next_put() -> None:
    memo: ByIdentity[str] = ByIdentity(maxsize=8)
    keep, gone, other = Thing(), Thing(), Thing()  # alive together: three addresses
    memo.put(keep, "keep")
    memo.put(gone, "gone")
    gone_id = id(gone)
    del gone
    gc.collect()
    assert memo._dead == [gone_id]  # the weak reference's callback names its key
    memo.put(other, "other")
    assert gone_id not in memo._items and memo.peek(keep) == "keep"


def test_adopt_keeps_for_an_equal_object_what_each_memo_keeps_for_the_made_one() -> None:
    # the service keeps a parsed state's index from the equal state a write made (issue 28)
    firsts: ByIdentity[str] = ByIdentity(lambda obj: "computed")
    seconds: ByIdentity[int] = ByIdentity(lambda obj: -1)
    empty: ByIdentity[str] = ByIdentity(lambda obj: "computed")
    made, equal, other = Thing(), Thing(), Thing()
    firsts.put(made, "index of made")
    seconds.put(made, 7)
    empty.put(other, "index of other")
    assert adopt(made, equal) == 2  # the two memos that kept something for `made`
    assert firsts.peek(equal) == "index of made" and seconds.peek(equal) == 7
    assert empty.peek(equal) is None and empty.peek(other) == "index of other"
    assert firsts.peek(made) == "index of made"  # still kept for `made` too
    assert adopt(Thing(), equal) == 0  # nothing kept for a new object: nothing adopted


def test_the_value_last_found_is_not_handed_out_once_replaced_popped_or_evicted() -> None:
    # the last entry found or kept is answered without the lock: only while it is kept
    counter = iter(range(100))
    memo: ByIdentity[int] = ByIdentity(lambda obj: next(counter), maxsize=1)
    a, b = Thing(), Thing()
    assert memo(a) == 0 and memo(a) == 0  # found, then found as the last one
    memo.put(a, 10)  # replaced
    assert memo(a) == 10
    assert memo.pop(a) == 10  # dropped
    assert memo(a) == 1 and memo(b) == 2  # b evicts a (one kept)
    assert memo(a) == 3
    memo.put(b, 20)  # kept last; a evicted
    assert memo.peek(a) is None and memo(a) == 4
    zero: ByIdentity[int] = ByIdentity(lambda obj: next(counter), maxsize=0)
    assert zero(a) == 5 and zero(a) == 6  # nothing kept, so nothing found again
