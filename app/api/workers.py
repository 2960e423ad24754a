"""Worker threads for the fast paths' blocking work (:mod:`app.api.fast`): a request's
service call handed from the event loop to a thread and its outcome handed back, with less
machinery than ``starlette.concurrency.run_in_threadpool``.

anyio's worker threads (what ``run_in_threadpool`` uses) take 38 us of CPU a call on uvloop
-- a capacity limiter acquired and released around each call (two more passes of the event
loop for its checkpoints), a shielded cancel scope, a ``queue.Queue`` -- where handing the
call to an idle thread on a ``SimpleQueue`` and waking the loop with its result takes 9 us
(docs/PERFORMANCE.md, issue 28, session 17). On PostgreSQL every fast request goes to a
worker thread (each statement is a network round trip), so this is on every one of them.

What the calls see is what anyio gives them: the call runs in a copy of the calling task's
context variables; an exception it raises is raised to the caller; at most
:data:`MAX_THREADS` threads of this process (anyio's default for its pool) run calls at a
time, the rest wait their turn in order; and a caller cancelled while its call runs is
cancelled once the call has ended, never before (a write is never left running unseen by
its request: anyio's worker threads are shielded the same way)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import queue
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

MAX_THREADS = 40
"""Threads that run calls at a time (more calls wait in order): anyio's default limit."""

_T = TypeVar("_T")
_P = ParamSpec("_P")


class _Outcome(asyncio.Future[Any]):
    """The outcome of a call running in a worker thread. It refuses to be cancelled: a task
    cancelled while awaiting it is cancelled when it is done (``Task.cancel`` then marks the
    task, and throws the ``CancelledError`` in once the outcome is in)."""

    def cancel(self, msg: Any = None) -> bool:
        return False


def _settle(outcome: _Outcome, result: Any, error: BaseException | None) -> None:
    if outcome.done():  # (never cancelled: only for a loop closed under it)
        return
    if error is None:
        outcome.set_result(result)
    else:
        outcome.set_exception(error)


class WorkerThreads:
    """A process's worker threads (see the module docstring). Threads are started as calls
    need them, up to ``size``, and then kept (daemon threads, idle between calls)."""

    def __init__(self, size: int = MAX_THREADS) -> None:
        self.size = size
        self._queue: queue.SimpleQueue[
            tuple[asyncio.AbstractEventLoop, _Outcome, Callable[[], Any], contextvars.Context]
        ] = queue.SimpleQueue()
        self._guard = threading.Lock()
        self._threads = 0
        self._idle = 0
        """Threads waiting for a call that no call has been handed to yet."""

    @property
    def threads(self) -> int:
        """Threads started so far."""
        return self._threads

    async def run(self, func: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``func(*args, **kwargs)`` in a worker thread; its result (or its exception)."""
        loop = asyncio.get_running_loop()
        outcome = _Outcome(loop=loop)
        call = functools.partial(func, *args, **kwargs) if args or kwargs else func
        start = False
        with self._guard:
            if self._idle:
                self._idle -= 1  # an idle thread takes it
            elif self._threads < self.size:
                self._threads += 1
                start = True
            # else: every thread is busy; the first to finish takes the oldest call waiting
        if start:  # started before the call is queued: a thread that cannot start (the
            # process's limit) fails this request alone, and nothing is left queued for
            # a thread that is not there, to run unseen later
            try:
                threading.Thread(target=self._work, name="referee-worker", daemon=True).start()
            except BaseException:
                with self._guard:
                    self._threads -= 1
                raise
        self._queue.put((loop, outcome, call, contextvars.copy_context()))
        return await outcome  # type: ignore[no-any-return]

    def _work(self) -> None:
        get = self._queue.get
        while True:
            loop, outcome, call, context = get()
            result: Any = None
            error: BaseException | None = None
            try:
                result = context.run(call)
            except BaseException as exc:  # handed to the caller, as anyio hands it
                error = exc
            with self._guard:  # idle before the caller hears: its next call finds it so
                self._idle += 1
            with contextlib.suppress(RuntimeError):  # a loop closed: nobody waits any more
                loop.call_soon_threadsafe(_settle, outcome, result, error)
            del loop, outcome, call, context, result, error


THREADS = WorkerThreads()
"""The process's worker threads for the fast paths."""


async def run_in_worker(func: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``func(*args, **kwargs)`` in one of the process's worker threads (:data:`THREADS`)."""
    return await THREADS.run(func, *args, **kwargs)
