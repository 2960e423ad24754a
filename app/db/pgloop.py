"""*Loop calls* on PostgreSQL (issue 28): a fast request's service call run on the event
loop's own thread, in a greenlet, with psycopg's waits for the network handed to the loop.

Before, every fast request on PostgreSQL went to a worker thread (:mod:`app.api.workers`):
each of a submission's four round trips released the interpreter lock to wait in ``poll``
and took it back from the loop, and the thread and the loop woke each other at both ends.
Measured under ``wrk`` (``bench/writes.py http --db postgresql``), the hop and those
hand-overs were a sixth of a seed submission's CPU: 1.70-1.76 ms a submission in a worker
thread, 1.52-1.56 ms here (docs/PERFORMANCE.md, issue 28, session 19).

How it works. :func:`run_on_loop` runs the call in a :class:`LoopGreenlet`. The call is
the same synchronous service code that runs in a thread; its connections are
:class:`LoopConnection` (psycopg's connection, which the engine opens:
:func:`app.db.engine.make_engine`). psycopg runs every operation as a generator that says
what the socket must be ready for; where psycopg's own ``wait`` would block in ``poll``, a
:class:`LoopConnection` in a loop greenlet switches back to the loop with that wish. The
loop watches the socket (``add_reader`` / ``add_writer``), serves other requests meanwhile,
and switches back in when it is ready. Anywhere else -- a worker thread, a migration -- a
:class:`LoopConnection` is psycopg's connection, unchanged.

What a loop call never does is wait for anything but its own socket, since the loop it
would block is what every other call needs to go on:

- a pooled connection: none idle, or a worker thread asking for one, the pool
  (:class:`LoopQueuePool`) raises :class:`app.db.repository.WouldWait` instead of waiting
  (another loop call may hold it, and could not give it back while the loop waits);
- a new connection (the pool growing, or a connection replaced after a restart of the
  server): :func:`refuse_connect_on_loop` raises ``WouldWait`` (a connection is opened in a
  worker thread, where its TCP and authentication waits block only that thread);
- a state document or a board to read and parse (a cache miss: megabytes of JSON on a large
  map), which SQLite's inline reads and writes do not either
  (:class:`app.db.repository.GameRepository` raises ``WouldWait``).

``WouldWait`` reaches the fast route with the call's transaction rolled back (it is raised
before a write's statements, or ends its transaction), which runs the call again in a worker
thread, as every call went before. What the call committed before -- a clock that ran out,
recorded in a write of its own -- is not recorded twice: the call run again finds it
recorded. The call's locks (the board cache's, the commit listeners') are never held across
a statement, and what it keeps per thread is kept per context instead
(:func:`app.db.engine.json_reuse`): loop calls share the loop's thread."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import selectors
import threading
from collections.abc import Callable, Generator
from typing import Any, NamedTuple, TypeVar

import greenlet
import psycopg
from sqlalchemy.pool import QueuePool
from sqlalchemy.pool.base import ConnectionPoolEntry
from sqlalchemy.util import queue as sa_queue

_T = TypeVar("_T")
_READ = selectors.EVENT_READ
_WRITE = selectors.EVENT_WRITE


class LoopGreenlet(greenlet.greenlet):
    """A loop call's greenlet (:func:`run_on_loop`); its parent is the loop's."""


def on_loop() -> bool:
    """Whether this code runs in a loop call (a :class:`LoopGreenlet`)."""
    return type(greenlet.getcurrent()) is LoopGreenlet


def _would_wait(why: str) -> Exception:
    from app.db.repository import WouldWait  # (the repository imports the engine module)

    return WouldWait(why)


class _Park(NamedTuple):
    """What a loop call waits for: its connection's socket ready for ``events``."""

    fileno: int
    events: int


class LoopConnection(psycopg.Connection[Any]):
    """psycopg's connection, whose waits in a loop call are the loop's (module docstring)."""

    def wait(
        self,
        gen: Generator[Any, Any, _T],
        interval: float = 0.1,
        timeout: float | None = None,
    ) -> _T:
        current = greenlet.getcurrent()
        if type(current) is not LoopGreenlet or timeout is not None:
            return super().wait(gen, interval, timeout)
        loop_side = current.parent
        assert loop_side is not None
        fileno = self.pgconn.socket
        try:
            events = next(gen)
            while True:
                try:
                    ready = loop_side.switch(_Park(fileno, int(events)))
                except BaseException:
                    # thrown in by the loop side (never in normal use): the operation is
                    # half done, so the connection cannot be used again
                    self.close()
                    raise
                events = gen.send(ready)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


def refuse_connect_on_loop(
    dialect: Any, record: Any, cargs: tuple[Any, ...], cparams: dict[str, Any]
) -> LoopConnection:
    """The engine's ``do_connect``: a :class:`LoopConnection`, opened outside a loop call
    only (in one, ``WouldWait``: its waits would block the loop)."""
    if on_loop():
        raise _would_wait("a new connection is opened in a worker thread")
    return LoopConnection.connect(*cargs, **cparams)


class LoopQueuePool(QueuePool):
    """SQLAlchemy's ``QueuePool``, which a loop call never waits on: with no idle
    connection it raises ``WouldWait`` (module docstring). Nor does it take a connection
    ahead of a thread asking for one: a thread woken by a connection given back must first
    have the interpreter lock back from the loop, whose next call would otherwise take that
    connection every time, and the thread's wait could end in the pool's timeout. Elsewhere,
    the pool as it was."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._asking = 0
        """Threads in a checkout now (waiting for a connection, or about to have one)."""
        self._asking_guard = threading.Lock()

    def has_idle(self) -> bool:
        """Whether a loop call starting now would find a connection (a look, no promise):
        one idle, and no thread asking. Without one, starting it would be work thrown away."""
        return not self._asking and not self._pool.empty()

    def _do_get(self) -> ConnectionPoolEntry:
        if not on_loop():
            with self._asking_guard:
                self._asking += 1
            try:
                return super()._do_get()
            finally:
                with self._asking_guard:
                    self._asking -= 1
        if self._asking:
            raise _would_wait("a worker thread is asking for a connection")
        try:
            return self._pool.get(False)
        except sa_queue.Empty:
            raise _would_wait("no idle pooled connection") from None


class _Ready(asyncio.Future[None]):
    """The loop's wait for a loop call's socket. It refuses to be cancelled, so the call is
    never abandoned half way (a task cancelled while awaiting it is cancelled once it is
    done, and :func:`run_on_loop` lets the call finish before it says so)."""

    events = 0

    def cancel(self, msg: Any = None) -> bool:
        return False

    def wake(self, events: int) -> None:
        self.events |= events
        if not self.done():
            self.set_result(None)


async def run_on_loop(call: Callable[[], _T]) -> _T:
    """``call()`` in a :class:`LoopGreenlet` on this loop: its result or its exception.

    It runs in a copy of the caller's context variables, as a worker thread's call does;
    a caller cancelled while it runs is cancelled once it has ended, never before (a write
    is never left half done, as with :func:`app.api.workers.run_in_worker`)."""
    loop = asyncio.get_running_loop()
    child = LoopGreenlet(call)
    child.gr_context = contextvars.copy_context()
    cancelled = False
    value: Any = child.switch()
    while not child.dead:
        park: _Park = value
        ready = _Ready(loop=loop)
        try:
            if park.events & _READ:
                loop.add_reader(park.fileno, ready.wake, _READ)
            if park.events & _WRITE:
                loop.add_writer(park.fileno, ready.wake, _WRITE)
        except BaseException as exc:  # (a socket the loop cannot watch): the call is ended
            with contextlib.suppress(Exception):
                loop.remove_reader(park.fileno)
                loop.remove_writer(park.fileno)
            child.throw(exc)  # its connection closed, its transaction rolled back
            raise
        try:
            while not ready.done():
                try:
                    await ready
                except asyncio.CancelledError:
                    cancelled = True  # (ready is done: it cannot be cancelled)
        finally:
            if park.events & _READ:
                loop.remove_reader(park.fileno)
            if park.events & _WRITE:
                loop.remove_writer(park.fileno)
        try:
            value = child.switch(ready.events)
        except BaseException:
            if cancelled:
                raise asyncio.CancelledError from None
            raise
    if cancelled:
        raise asyncio.CancelledError
    return value  # type: ignore[no-any-return]
