"""Loop calls (app/db/pgloop.py) on a real PostgreSQL server: a call runs on the loop's own
thread and its statements' waits are the loop's (other work goes on meanwhile, and two calls
overlap); its result, its exception and its context are the caller's; a caller cancelled
while its call runs is cancelled once the call has ended; and a loop call never waits for a
pooled connection nor opens one (``WouldWait``, nothing written), while outside one the
engine's connections are psycopg's as before."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, text

from app.db.engine import JSON_SERIALIZER, json_reuse, loop_calls, make_engine
from app.db.pgloop import LoopConnection, on_loop, run_on_loop
from app.db.repository import WouldWait

pytestmark = [pytest.mark.anyio, pytest.mark.pg]
WAIT = 10.0
"""Seconds a test waits for what happens at once (a loop blocked by a call hangs instead)."""

_seen: contextvars.ContextVar[str] = contextvars.ContextVar("_seen", default="unset")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:
    engine = make_engine(pg_url, pool_size=2)
    try:
        yield engine
    finally:
        engine.dispose()


def _scalar(engine: Engine, sql: str, **params: Any) -> Any:
    with engine.connect() as conn:
        return conn.execute(text(sql), params).scalar_one()


async def test_a_call_runs_on_the_loops_thread_and_waits_on_the_loop(engine: Engine) -> None:
    _scalar(engine, "SELECT 1")  # a pooled connection, opened outside a loop call
    ticks: list[int] = []
    stop = asyncio.Event()

    async def ticking() -> None:
        while not stop.is_set():
            ticks.append(1)
            await asyncio.sleep(0.01)

    ticker = asyncio.ensure_future(ticking())
    await asyncio.sleep(0)
    here = threading.get_ident()

    def call() -> tuple[int, int, bool, type]:
        with engine.connect() as conn:
            value = conn.execute(text("SELECT pg_sleep(0.3), 7")).one()[1]
            raw = conn.connection.driver_connection
        return value, threading.get_ident(), on_loop(), type(raw)

    before = len(ticks)
    value, ident, inside, kind = await asyncio.wait_for(run_on_loop(call), WAIT)
    stop.set()
    await ticker
    assert (value, ident, inside, kind) == (7, here, True, LoopConnection)
    assert len(ticks) - before >= 3  # the loop went on while the statement waited
    assert not on_loop()


async def test_two_calls_at_once_overlap(engine: Engine) -> None:
    with engine.connect(), engine.connect():  # two pooled connections, opened here
        pass
    ended: list[str] = []

    def slow() -> None:
        _scalar(engine, "SELECT pg_sleep(0.4)")
        ended.append("slow")

    def quick() -> None:
        _scalar(engine, "SELECT 1")
        ended.append("quick")

    first = asyncio.ensure_future(run_on_loop(slow))
    await asyncio.sleep(0.05)  # the slow one is waiting for its answer
    await asyncio.wait_for(asyncio.gather(first, run_on_loop(quick)), WAIT)
    assert ended == ["quick", "slow"]  # the quick one was not queued behind it


async def test_an_exception_and_the_context_are_the_callers(engine: Engine) -> None:
    _scalar(engine, "SELECT 1")
    _seen.set("the caller's")

    def refused() -> None:
        _scalar(engine, "SELECT no_such_column FROM no_such_table")

    with pytest.raises(Exception, match="no_such_table"):
        await run_on_loop(refused)

    def changes() -> str:
        seen = _seen.get()
        _seen.set("changed in the call")
        return seen

    assert await run_on_loop(changes) == "the caller's"
    assert _seen.get() == "the caller's"  # (the call ran in a copy)
    assert await run_on_loop(lambda: _scalar(engine, "SELECT 2")) == 2  # the pool serves on


async def test_a_cancelled_caller_waits_for_its_call_to_end(engine: Engine) -> None:
    _scalar(engine, "SELECT 1")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE written (n int)"))
    started = asyncio.Event()

    def write() -> str:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO written VALUES (1)"))
            asyncio.get_running_loop().call_soon(started.set)
            conn.execute(text("SELECT pg_sleep(1.0)"))
            conn.execute(text("INSERT INTO written VALUES (2)"))
        return "written"

    task = asyncio.ensure_future(run_on_loop(write))
    await asyncio.wait_for(started.wait(), WAIT)
    task.cancel()
    await asyncio.sleep(0.05)
    assert not task.done()  # cancelled, but its call still runs: the task waits for it
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    assert _scalar(engine, "SELECT count(*) FROM written") == 2  # committed whole


async def test_a_call_never_waits_for_a_pooled_connection(engine: Engine) -> None:
    held = [engine.connect(), engine.connect()]  # the pool's two, opened and held here
    try:
        with pytest.raises(WouldWait):
            await asyncio.wait_for(run_on_loop(lambda: _scalar(engine, "SELECT 1")), WAIT)
    finally:
        held.pop().close()
    # one idle again: the call takes it
    assert await run_on_loop(lambda: _scalar(engine, "SELECT 3")) == 3
    held.pop().close()


async def test_a_call_never_takes_a_connection_a_thread_is_asking_for(engine: Engine) -> None:
    """A thread waiting for the pool is woken by a connection given back, but must have
    the interpreter lock back first: a loop call asking meanwhile leaves it to the thread."""
    held = [engine.connect(), engine.connect()]
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(_scalar(engine, "SELECT 7")))
    thread.start()
    for _ in range(500):  # the thread is in its checkout, waiting
        if engine.pool._asking:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.01)
    held.pop().close()  # one given back; the loop asks at once, before the thread can run
    with pytest.raises(WouldWait):
        await run_on_loop(lambda: _scalar(engine, "SELECT 1"))
    thread.join(WAIT)
    assert out == [7]
    held.pop().close()
    assert await run_on_loop(lambda: _scalar(engine, "SELECT 8")) == 8  # nobody asking


def test_has_idle_says_whether_a_loop_call_would_find_a_connection(engine: Engine) -> None:
    """The fast routes' look before starting a loop call (a busy pool: straight to a worker
    thread, no call started and thrown away): a connection idle and no thread asking."""
    pool: Any = engine.pool
    assert not pool.has_idle()  # none opened yet (a loop call would have to open one)
    with engine.connect():
        assert not pool.has_idle()  # the one opened is in use
    assert pool.has_idle()
    held = [engine.connect(), engine.connect()]
    assert not pool.has_idle()  # both in use
    held.pop().close()
    assert pool.has_idle()
    pool._asking += 1  # a worker thread in its checkout
    try:
        assert not pool.has_idle()
    finally:
        pool._asking -= 1
    held.pop().close()


async def test_a_call_never_reconnects(engine: Engine) -> None:
    """A pooled connection found gone (invalidated: a server restarted) is replaced in a
    worker thread, never in a loop call."""
    with engine.connect(), engine.connect():
        pass
    for _ in range(2):
        conn = engine.connect()
        conn.invalidate()  # (its record now opens a new connection at its next checkout)
        conn.close()
    with pytest.raises(WouldWait):
        await run_on_loop(lambda: _scalar(engine, "SELECT 1"))
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]  # (none held)
    assert _scalar(engine, "SELECT 9") == 9  # replaced here, outside a loop call


async def test_json_reuse_is_each_calls_own(engine: Engine) -> None:
    """Two loop calls' ``json_reuse`` blocks interleave on the loop's one thread (each parks
    on a statement inside its block): neither leaves its documents to the calls after it,
    which would give an old text for a document changed since."""
    with engine.connect(), engine.connect():
        pass

    def write(seconds: float) -> None:
        doc = {"written": seconds}
        with json_reuse():
            JSON_SERIALIZER(doc)  # known in this block
            _scalar(engine, f"SELECT pg_sleep({seconds})")  # parked inside the block

    first = asyncio.ensure_future(run_on_loop(lambda: write(0.2)))
    await asyncio.sleep(0.05)  # inside its block
    second = asyncio.ensure_future(run_on_loop(lambda: write(0.5)))
    await asyncio.wait_for(asyncio.gather(first, second), WAIT)  # the first ends first

    def fresh() -> tuple[str, str]:
        doc = {"n": 1}
        before = JSON_SERIALIZER(doc)
        doc["n"] = 2
        return before, JSON_SERIALIZER(doc)

    assert await run_on_loop(fresh) == ('{"n": 1}', '{"n": 2}')
    assert fresh() == ('{"n": 1}', '{"n": 2}')


async def test_a_call_never_opens_a_connection(pg_url: str) -> None:
    engine = make_engine(pg_url, pool_size=2)
    try:
        with pytest.raises(WouldWait):  # none pooled yet: it would have to open one
            await run_on_loop(lambda: _scalar(engine, "SELECT 1"))
        assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]  # (none held)
        assert _scalar(engine, "SELECT 4") == 4  # outside a loop call it is opened
        assert await run_on_loop(lambda: _scalar(engine, "SELECT 5")) == 5  # then pooled
    finally:
        engine.dispose()


def test_outside_a_loop_call_the_connection_is_psycopgs(engine: Engine) -> None:
    """In a thread (as in a worker, a migration), statements wait as psycopg waits."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(_scalar(engine, "SELECT 6")))
    thread.start()
    thread.join(WAIT)
    assert out == [6] and not on_loop()
    raw = engine.raw_connection()
    try:
        assert type(raw.driver_connection) is LoopConnection
    finally:
        raw.close()


def test_loop_calls_are_postgresqls(engine: Engine, tmp_path: Any) -> None:
    assert loop_calls(engine, True) and not loop_calls(engine, False)
    sqlite = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        assert not loop_calls(sqlite, True)  # SQLite has its inline reads and writes
    finally:
        sqlite.dispose()
