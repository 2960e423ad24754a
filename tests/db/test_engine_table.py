"""``EngineTable`` (the per-engine statement plans and writer locks) answers each engine its
own value, however the look-ups of several engines interleave, and holds no engine alive."""

from __future__ import annotations

import gc
import weakref

from sqlalchemy import create_engine

from app.db.engine import EngineTable, writer_lock


def test_each_engine_gets_its_own_value() -> None:
    table: EngineTable[list[str]] = EngineTable()
    a, b = create_engine("sqlite://"), create_engine("sqlite://")
    assert table.get(a) is None and a not in table
    first = table.setdefault(a, ["a"])
    assert table.setdefault(a, ["again"]) is first  # kept: setdefault
    assert table.get(b) is None  # the last one looked up is a's: not b's
    table.setdefault(b, ["b"])
    for engine, value in [(a, "a"), (b, "b"), (a, "a"), (a, "a"), (b, "b")]:
        assert table.get(engine) == [value]
        assert engine in table


def test_no_engine_is_held_alive() -> None:
    table: EngineTable[list[str]] = EngineTable()
    engine = create_engine("sqlite://")
    table.setdefault(engine, ["x"])
    assert table.get(engine) == ["x"]
    gone = weakref.ref(engine)
    del engine
    gc.collect()
    assert gone() is None
    assert len(table._table) == 0


def test_writer_locks_per_engine(tmp_path: object) -> None:
    memory = create_engine("sqlite://")
    one = create_engine(f"sqlite:///{tmp_path}/one.db")
    two = create_engine(f"sqlite:///{tmp_path}/two.db")
    assert writer_lock(memory) is None and writer_lock(memory) is None
    lock_one, lock_two = writer_lock(one), writer_lock(two)
    assert lock_one is not None and lock_two is not None and lock_one is not lock_two
    assert writer_lock(one) is lock_one and writer_lock(memory) is None
    assert writer_lock(two) is lock_two
