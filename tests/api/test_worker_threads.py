"""The fast paths' worker threads (app/api/workers.py): a call runs in another thread and its
result or exception comes back; the calling task's context variables are seen; threads are
kept and reused, started when every one is busy (two calls at once run at once), never more
than the pool's size (the rest wait in order); a task cancelled while its call runs is
cancelled only once the call has ended."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from app.api.workers import WorkerThreads

pytestmark = pytest.mark.anyio
WAIT = 10.0
"""Seconds a test waits for something that happens at once (a broken pool hangs instead)."""

_seen: contextvars.ContextVar[str] = contextvars.ContextVar("_seen", default="unset")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_call_runs_in_another_thread_with_the_callers_context() -> None:
    pool = WorkerThreads()
    _seen.set("the caller's")

    def call(a: int, *, b: int) -> tuple[int, str, int]:
        _seen.set("changed in the thread")  # (the caller's own stays as it was)
        return a + b, _seen.get(), threading.get_ident()

    total, seen, ident = await pool.run(call, 1, b=2)
    assert total == 3 and seen == "changed in the thread"
    assert ident != threading.get_ident()
    assert _seen.get() == "the caller's"
    assert await pool.run(_seen.get) == "the caller's"


async def test_an_exception_is_raised_to_the_caller() -> None:
    pool = WorkerThreads()

    def refuse() -> None:
        raise LookupError("no such game")

    with pytest.raises(LookupError, match="no such game"):
        await pool.run(refuse)
    assert await pool.run(lambda: "still serving") == "still serving"


async def test_one_after_another_reuse_one_thread() -> None:
    pool = WorkerThreads()
    idents = {await pool.run(threading.get_ident) for _ in range(20)}
    assert len(idents) == 1 and pool.threads == 1


async def test_calls_at_once_each_get_a_thread() -> None:
    """Two calls that can only end together (each waits for the other) both run: the second
    is not queued behind the first, though a thread was idle when it came."""
    pool = WorkerThreads(size=4)
    await pool.run(lambda: None)  # one thread, idle
    both = threading.Barrier(2, timeout=WAIT)
    ends = await asyncio.wait_for(
        asyncio.gather(pool.run(both.wait), pool.run(both.wait)), timeout=WAIT
    )
    assert sorted(ends) == [0, 1] and pool.threads == 2


@pytest.mark.parametrize("size", [1, 2])
async def test_no_more_threads_than_the_size_and_the_rest_wait_in_order(size: int) -> None:
    pool = WorkerThreads(size=size)
    release = threading.Event()
    started: list[int] = []
    guard = threading.Lock()

    def call(n: int) -> int:
        with guard:
            started.append(n)
        release.wait(WAIT)
        return n

    calls = [asyncio.ensure_future(pool.run(call, n)) for n in range(6)]
    await asyncio.sleep(0.05)
    assert pool.threads == size and not any(c.done() for c in calls)
    assert sorted(started) == list(range(size))  # the first ones; the others wait
    release.set()
    assert await asyncio.wait_for(asyncio.gather(*calls), timeout=WAIT) == list(range(6))
    assert pool.threads == size
    if size == 1:
        assert started == list(range(6))  # in the order they came


async def test_a_cancelled_caller_waits_for_its_call_to_end() -> None:
    pool = WorkerThreads()
    started, release = threading.Event(), threading.Event()
    ended: list[str] = []

    def write() -> str:
        started.set()
        release.wait(WAIT)
        ended.append("written")
        return "written"

    task = asyncio.ensure_future(pool.run(write))
    await asyncio.get_running_loop().run_in_executor(None, started.wait, WAIT)
    task.cancel()
    await asyncio.sleep(0.05)
    assert not task.done()  # cancelled, but its call still runs: the task waits for it
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=WAIT)
    assert ended == ["written"]
    assert await pool.run(lambda: "next") == "next"  # the thread serves on


async def test_a_thread_that_cannot_start_fails_its_call_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Starting a thread fails (the process's limit): that call is refused and never run
    later, and the pool still counts only the threads it has (the next call starts one)."""
    pool = WorkerThreads(size=1)
    ran: list[str] = []

    class Refused(threading.Thread):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading, "Thread", Refused)  # (undone before anything awaits)
    with pytest.raises(RuntimeError, match="can't start"):
        await pool.run(ran.append, "refused")
    monkeypatch.undo()
    assert pool.threads == 0  # (counted as started, the next call would wait for it forever)
    assert await pool.run(lambda: "served") == "served"
    assert ran == [] and pool.threads == 1
