"""Engines and sessions: SQLite (WAL, foreign keys) and PostgreSQL (psycopg 3)."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import logging
import select
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from app.db.pgloop import LoopQueuePool, refuse_connect_on_loop

log = logging.getLogger("referee.db")
V = TypeVar("V")
_dumps = functools.partial(json.dumps, allow_nan=False)
_REUSE: contextvars.ContextVar[dict[int, tuple[Any, str]] | None] = contextvars.ContextVar(
    "json_reuse", default=None
)
"""The documents :func:`json_reuse` knows, per context: a worker thread's call and a loop
call (:mod:`app.db.pgloop`) each run in a context of their own -- several loop calls share
the loop's thread, and park inside their blocks, so a thread-local would be shared."""


def JSON_SERIALIZER(value: Any) -> str:
    """Every JSON column is written with this: ``NaN``/``Infinity`` raise instead of being
    stored (PostgreSQL would refuse them, SQLite would keep text no JSON reader accepts).
    Inside :func:`json_reuse`, a document written twice is encoded once."""
    if value is None:  # json.dumps' own texts, without its encoder: four columns of every
        return "null"  # submission's event are null, and its dice list is mostly empty
    if type(value) is list and not value:
        return "[]"
    texts = _REUSE.get()
    if texts is None:
        return _dumps(value)
    known = texts.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    text = _dumps(value)
    texts[id(value)] = (value, text)
    return text


@contextmanager
def json_reuse(*known: tuple[Any, str]) -> Iterator[None]:
    """Within the block (this context: a thread's, or a loop call's), the same document
    object written to several JSON columns is encoded once: a write stores the new state in
    the game row and as its event's snapshot. ``known`` are (document, its JSON text) pairs
    already encoded. The documents must not change inside the block."""
    outer = _REUSE.get()
    texts = {} if outer is None else outer
    for value, text in known:
        texts[id(value)] = (value, text)
    token = _REUSE.set(texts)
    try:
        yield
    finally:
        _REUSE.reset(token)


POOL_SIZE = 15
"""Connections each engine keeps open (``REFEREE_DB_POOL_SIZE``), and its most: SQLAlchemy's
default pool keeps 5 and opens up to 10 more on demand, closing each extra one as soon as it
is returned -- under 16 concurrent requests that opened and closed a connection (four
pragmas on SQLite, a backend on PostgreSQL) on most requests, 1.0 ms of CPU a request
on SQLite (docs/PERFORMANCE.md, issue 28). The same 15 at most, kept."""

DRIVER_TRANSACTION = "referee_driver_transaction"
"""Key of a SQLite connection's ``info``: the unit of work began a write transaction on the
driver (``app.db.uow._begin_write``); SQLAlchemy beginning on it takes that one over. Any
other transaction found open on the driver is not taken over: the ``BEGIN`` then fails, as
it always did."""

WRITE_OPTION = "referee_write"
"""Connection execution option: the transaction will write (SQLite takes the lock up front)."""


def normalize_url(url: str | URL) -> URL:
    """Parse a database URL; bare ``postgres://``/``postgresql://`` use psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def sqlite_file(url: URL) -> Path | None:
    """The database file of a SQLite URL, or None (memory or not SQLite)."""
    if not url.drivername.startswith("sqlite"):
        return None
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database)


def make_engine(url: str | URL, *, echo: bool = False, pool_size: int = POOL_SIZE) -> Engine:
    """Create an engine configured for this service.

    SQLite: the file's directory is created on first connect, WAL journal, foreign keys on,
    a busy timeout, and write transactions start with ``BEGIN IMMEDIATE`` so a writer never
    fails half-way on a stale snapshot. PostgreSQL: psycopg 3, a connection the server dropped
    -- a restart -- replaced at checkout (:func:`_ping_if_not_quiet`: pinged only when its
    socket is not quiet), and a 5 s connect timeout (unless the URL sets
    ``connect_timeout``), its connections :class:`app.db.pgloop.LoopConnection` (psycopg's,
    whose waits in a loop call are the event loop's) and never opened or waited for in a
    loop call. Both keep ``pool_size`` connections and open no more (a request finding them
    all busy waits for one, as it did at SQLAlchemy's 5 + 10; a loop call goes to a worker
    thread instead).
    """
    parsed = normalize_url(url)
    if parsed.drivername.startswith("sqlite"):
        return _sqlite_engine(parsed, echo=echo, pool_size=pool_size)
    # a connection attempt to an unreachable server gives up (503 service.database_unavailable)
    # instead of holding a worker thread for the TCP timeout
    connect_args = {} if "connect_timeout" in parsed.query else {"connect_timeout": 5}
    engine = create_engine(
        parsed,
        echo=echo,
        poolclass=LoopQueuePool,  # never waited on by a loop call (app/db/pgloop.py)
        pool_size=pool_size,
        max_overflow=0,
        connect_args=connect_args,
        json_serializer=JSON_SERIALIZER,
    )
    if parsed.get_driver_name() == "psycopg":  # psycopg's connections, loop calls' waits
        event.listen(engine, "do_connect", refuse_connect_on_loop)
    event.listen(engine, "checkout", _ping_if_not_quiet)
    return engine


def socket_quiet(dbapi_connection: Any) -> bool:
    """True when an idle pooled connection's socket has nothing to read: the server has
    neither closed it nor said anything since the connection was last used (a server that
    shuts down or restarts ends each session with a message and closes its socket). False
    when it cannot tell."""
    if getattr(dbapi_connection, "closed", False) or getattr(dbapi_connection, "broken", False):
        return False
    if not hasattr(select, "poll"):
        return False
    try:
        fd = dbapi_connection.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLPRI)
        return not poller.poll(0)
    except (OSError, ValueError, AttributeError):
        return False
    except Exception:  # the driver refuses (e.g. psycopg on a closed connection)
        return False


def _ping_if_not_quiet(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """PostgreSQL's checkout check, instead of SQLAlchemy's pre-ping (a ``SELECT 1`` round
    trip on every checkout: a third of a GET game's wait on PostgreSQL, issue 28). A pooled
    connection whose socket is quiet (:func:`socket_quiet`) is handed out as it is; one the
    server has written to or closed -- after a restart every pooled connection has its
    server's goodbye waiting -- is pinged, and if the ping fails the whole pool is
    invalidated and a new connection opened (``tests/reliability/test_database_restart.py``).
    What this cannot see, as the pre-ping could not either, is a server gone between the
    check and the statement: that request is answered 503 and the pool replaces the
    connection."""
    if socket_quiet(dbapi_connection):
        return
    try:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT 1")
        finally:
            cursor.close()
        if not dbapi_connection.autocommit:
            dbapi_connection.rollback()
    except Exception as exc:
        raise sa_exc.InvalidatePoolError(f"the connection failed its ping: {exc}") from exc


def _sqlite_engine(url: URL, *, echo: bool, pool_size: int, unpooled: bool = False) -> Engine:
    """``unpooled``: each connection opened and closed as asked, and never waiting on a lock
    (driver timeout 0; :class:`LoopWriter`'s)."""
    pool: dict[str, Any] = {}
    if unpooled:
        pool = {"poolclass": NullPool}
    elif sqlite_file(url) is not None:  # a memory database has its own (single) pool
        pool = {"pool_size": pool_size, "max_overflow": 0}
    engine = create_engine(
        url,
        echo=echo,
        **pool,
        connect_args={"check_same_thread": False, "timeout": 0 if unpooled else 30},
        json_serializer=JSON_SERIALIZER,
    )
    path = sqlite_file(url)

    @event.listens_for(engine, "do_connect")
    def _make_dir(dialect: Any, conn_rec: Any, cargs: Any, cparams: Any) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, connection_record: Any) -> None:
        # Let SQLAlchemy (not the driver) decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA synchronous=NORMAL")
            if engine in _CHECKPOINTED:  # a WalCheckpointer runs: commits never checkpoint
                cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_BACKSTOP_PAGES}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # straight to the driver: through exec_driver_sql, SQLAlchemy's statement machinery
        # cost more than the BEGIN itself (0.05 ms of every request's CPU; issue 28)
        raw = conn.connection.driver_connection
        assert raw is not None
        if raw.in_transaction and conn.info.pop(DRIVER_TRANSACTION, False):
            return  # a write's, begun on the driver by app.db.uow: taken over, not begun again
        if conn.get_execution_options().get(WRITE_OPTION):
            raw.execute("BEGIN IMMEDIATE")
        else:
            raw.execute("BEGIN")

    return engine


class WriterLock:
    """This process's writers of one SQLite file, one at a time (see :func:`writer_lock`).

    A writer in a worker thread queues (:meth:`acquire`); an *inline* writer on the event loop
    (:class:`LoopWriter`) only ever tries (:meth:`try_acquire`), and leaves the lock to the
    threads while any is queued: the loop, which runs again the moment a write ends, would
    otherwise take the lock back before a woken thread gets to it, and starve it."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._queued = 0
        self._count = threading.Lock()

    def acquire(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the lock (False: not had)."""
        if self._lock.acquire(blocking=False):
            return True
        with self._count:
            self._queued += 1
        try:
            return self._lock.acquire(timeout=timeout)
        finally:
            with self._count:
                self._queued -= 1

    def try_acquire(self) -> bool:
        """The lock if it is free and no writer is queued for it; never waits."""
        return self._queued == 0 and self._lock.acquire(blocking=False)

    def release(self) -> None:
        self._lock.release()


class EngineTable(Generic[V]):
    """A value per engine, held weakly by the engine (a ``WeakKeyDictionary``), with the
    engine last asked for and its value kept aside: a process has one engine, and every
    look-up in the dictionary makes a weak reference to the key (four a write).
    Thread-safe: the last pair is replaced whole."""

    def __init__(self) -> None:
        self._table: weakref.WeakKeyDictionary[Engine, V] = weakref.WeakKeyDictionary()
        self._last: tuple[weakref.ref[Engine], V] | None = None

    def get(self, engine: Engine) -> V | None:
        last = self._last
        if last is not None and last[0]() is engine:
            return last[1]
        value = self._table.get(engine)
        if value is not None:
            self._last = (weakref.ref(engine), value)
        return value

    def setdefault(self, engine: Engine, value: V) -> V:
        found = self._table.setdefault(engine, value)
        self._last = (weakref.ref(engine), found)
        return found

    def __contains__(self, engine: Engine) -> bool:
        return self.get(engine) is not None


_WRITERS_GUARD = threading.Lock()
_LOCKS: EngineTable[tuple[WriterLock | None]] = EngineTable()
"""Each engine's writer lock as :func:`writer_lock` found it: ``(None,)`` for an engine whose
writers take no lock of the process (PostgreSQL, SQLite in memory)."""


def writer_lock(engine: Engine) -> WriterLock | None:
    """The lock this process's write transactions on a SQLite file take before
    ``BEGIN IMMEDIATE`` (None for PostgreSQL, whose writers queue on their game's row).

    SQLite lets one writer in at a time; a second one's ``BEGIN IMMEDIATE`` fails busy and
    SQLite's busy handler *sleeps* and retries (1, 2, 5, 10 ... 100 ms), however soon the lock
    is free: the writer that just committed, starting its next request at once, took the lock
    again and again while the other slept -- submissions from two clients ran at a p50 of
    3 ms and a p99 of 100-140 ms (issue 28). Queued on a lock of the process instead, a
    waiting writer is woken when the lock is released. The busy timeout still covers writers
    of other processes (``referee`` commands)."""
    found = _LOCKS.get(engine)  # asked by every write: the URL is looked at once an engine
    if found is not None:
        return found[0]
    if sqlite_file(engine.url) is None:
        return _LOCKS.setdefault(engine, (None,))[0]
    with _WRITERS_GUARD:  # one lock per engine, whichever thread asks first
        found = _LOCKS.get(engine)
        return (found if found is not None else _LOCKS.setdefault(engine, (WriterLock(),)))[0]


WAL_BACKSTOP_PAGES = 20_000
"""With a :class:`WalCheckpointer` running, a commit checkpoints only past this many WAL pages
(80 MB at 4 KiB pages): a backstop should the checkpointer fall behind."""

_CHECKPOINTED: weakref.WeakSet[Engine] = weakref.WeakSet()


class WalCheckpointer:
    """SQLite checkpoints in a thread of their own instead of in the request that commits.

    In WAL mode SQLite copies the log back into the database file (a *checkpoint*, with an
    ``fsync`` of the file) in whichever commit takes the log past 1,000 pages; once the log
    cannot be restarted from its start it stays past that mark and **every** commit
    checkpoints. A submission on the 100x100 map writes about 170 KB (state in the game row
    and the event): submissions ran at a p50 of 12 ms and a p99 of 72 ms with their own
    checkpoints, 2.7 ms and 14 ms without (docs/PERFORMANCE.md, issue 28). Here one thread
    runs a ``PASSIVE`` checkpoint (it never waits for, nor blocks, readers or the writer)
    every ``interval`` seconds on a connection of its own; request connections checkpoint only
    past :data:`WAL_BACKSTOP_PAGES`. Started and stopped with the application
    (``app.main``); a no-op for PostgreSQL and in-memory databases."""

    def __init__(self, engine: Engine, interval: float = 0.5) -> None:
        self.engine = engine
        self.path = sqlite_file(engine.url)
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.path is None or self._thread is not None:
            return
        _CHECKPOINTED.add(self.engine)
        self.engine.pool.dispose()  # connections opened before now checkpoint on commit
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        thread.join(timeout=10)
        _CHECKPOINTED.discard(self.engine)

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        while not self._stop.wait(self.interval):
            try:
                if conn is None:
                    conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False)
                    conn.execute("PRAGMA busy_timeout=30000")
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error as exc:  # e.g. the file went away; try again next time
                log.warning("WAL checkpoint failed: %s", exc)
                if conn is not None:
                    conn.close()
                    conn = None
        if conn is not None:
            conn.close()


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded attributes after commit (responses are built after it)."""
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=False)


class LoopConnections:
    """The connections of *inline reads* (issue 28): per thread -- in practice the event
    loop's -- one connection of its own to the SQLite file, outside the engine's pool.

    A plain GET game or small dry run of a game whose board and state the process keeps reads
    one row by primary key; on SQLite that is microseconds of a local file (in the page
    cache), while handing the request to a worker thread and back cost more than the rest of
    the request (0.06-0.13 ms of CPU, docs/PERFORMANCE.md "session 12"). :mod:`app.api.fast`
    therefore runs such a read on the event loop itself
    (:class:`app.db.repository.InlineReads`), on one of these connections, and hands the
    request to a worker thread the moment it would need more.

    Each connection never waits on a lock: its busy timeout is 0, so a lock it cannot have
    (a WAL recovery under way after a crash, another process holding the file in exclusive
    locking mode) fails at once instead of holding the loop, and the request goes to a
    worker thread, which waits as before. It is read only (``query_only``) and never creates
    the file. A connection that failed is closed, and for :attr:`RETRY_SECONDS` the thread's
    reads go straight to worker threads (a database that keeps failing is not reopened on
    the loop at every request). Its first statement reads the schema (and, after a crash, may
    recover the WAL) on the loop: once per process."""

    RETRY_SECONDS = 1.0

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def available(self) -> bool:
        """False for a while after this thread's connection failed (see above)."""
        failed: float | None = getattr(self._local, "failed", None)
        return failed is None or time.monotonic() - failed >= self.RETRY_SECONDS

    def get(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            # mode=rw: never create the file (the engine's connections do, with the schema);
            # isolation_level None: the reads send their own BEGIN; check_same_thread (the
            # default): only the thread that opened it may use it
            uri = f"{self.path.resolve().as_uri()}?mode=rw"
            try:
                conn = sqlite3.connect(uri, timeout=0, isolation_level=None, uri=True)
                try:
                    conn.execute("PRAGMA query_only=ON")
                except BaseException:
                    conn.close()
                    raise
            except sqlite3.Error:
                self._local.failed = time.monotonic()
                raise
            self._local.conn = conn
            self._local.failed = None
        return conn

    def drop(self, failed: bool = True) -> None:
        """Close this thread's connection -- it failed (``failed``), or the application
        shuts down; the next read opens a new one."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        self._local.conn = None
        if failed:
            self._local.failed = time.monotonic()
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()


def loop_connections(engine: Engine, enabled: bool) -> LoopConnections | None:
    """Inline reads' connections for ``engine`` (None: no inline reads -- turned off, a
    PostgreSQL engine, whose every statement is a network round trip, or a SQLite database
    in memory, which no second connection can open, or a SQLite driver other than
    the standard library's)."""
    path = sqlite_file(engine.url) if enabled and engine.dialect.driver == "pysqlite" else None
    return None if path is None else LoopConnections(path)


class LoopWriter:
    """The connection of *inline writes* (issue 28): one connection to the SQLite file that
    the thread of the event loop keeps, so a submission runs on the loop itself
    (:mod:`app.api.fast`) instead of going to a worker thread and back.

    On SQLite a submission is CPU-bound: its statements are microseconds of a local file, and
    with ``synchronous=NORMAL`` in WAL mode a commit does not wait for the disk (the
    checkpoints, which do, run in a thread of their own: :class:`WalCheckpointer`). The
    hand-off to a thread and back, and the loop and the thread passing the GIL back and
    forth at every ``sqlite3`` call, were a third of a small submission's CPU
    (docs/PERFORMANCE.md, issue 28, session 13).

    The connection never waits: it is opened outside the engine's pool (no checkout to wait
    for; an engine of its own with the same connect and ``BEGIN IMMEDIATE`` hooks, whose
    statements the application engine's statement observers see too) with a driver timeout
    and a busy timeout of 0, so a lock another process holds fails at once and the write goes
    to a worker thread, which waits as before. Its commits checkpoint where the pool's would
    (with a :class:`WalCheckpointer` running, only past :data:`WAL_BACKSTOP_PAGES` of WAL not
    yet copied back: should the checkpointer fall behind). Inline writes are off for good on
    a file not in WAL mode (there a commit would wait for readers). One thread keeps it (the
    loop's): another asks in vain while that thread lives. It is closed at shutdown, and on
    an error of the database, after which writes go to worker threads for
    :attr:`RETRY_SECONDS`."""

    RETRY_SECONDS = 1.0

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        """The application's engine (its statement observers see the writes)."""
        self.off = False
        """The file is not in WAL mode: no inline writes."""
        self._own: Engine | None = None
        self._conn: Connection | None = None
        self._owner: threading.Thread | None = None
        self._failed: float | None = None
        self._guard = threading.Lock()

    def available(self) -> bool:
        """False when off, and for a while after the connection failed (see above)."""
        failed = self._failed
        return not self.off and (failed is None or time.monotonic() - failed >= self.RETRY_SECONDS)

    def get(self) -> Connection | None:
        """The calling thread's connection (opened on first use); None when it cannot be had
        without waiting: another live thread keeps it, the file is not in WAL mode, or
        opening it failed."""
        me = threading.current_thread()
        with self._guard:
            conn = self._conn
            if conn is not None:
                if self._owner is me and not conn.invalidated and not conn.closed:
                    return conn
                owner = self._owner
                if owner is not me and owner is not None and owner.is_alive():
                    return None  # another thread's loop keeps it
                self._discard()  # broken, or its thread ended
            if self.off:
                return None
            try:
                conn = self._open()
            except Exception:
                self._failed = time.monotonic()
                return None
            if conn is None:
                self.off = True
                return None
            self._conn, self._owner, self._failed = conn, me, None
            return conn

    def _open(self) -> Connection | None:
        own = self._own
        if own is None:
            own = self._own = _sqlite_engine(
                self.engine.url, echo=bool(self.engine.echo), pool_size=1, unpooled=True
            )
            observers = self.engine.dispatch

            @event.listens_for(own, "before_cursor_execute")
            def _observed(conn: Connection, cursor: Any, sql: str, *rest: Any) -> None:
                if observers.before_cursor_execute:
                    observers.before_cursor_execute(conn, cursor, sql, *rest)

        conn = own.connect()
        try:
            raw = conn.connection.driver_connection
            assert raw is not None
            if str(raw.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.close()
                return None
            raw.execute("PRAGMA busy_timeout=0")
            if self.engine in _CHECKPOINTED:  # as the pool's connections (see _sqlite_engine)
                raw.execute(f"PRAGMA wal_autocheckpoint={WAL_BACKSTOP_PAGES}")
            conn.execution_options(**{WRITE_OPTION: True})
        except BaseException:
            conn.close()
            raise
        return conn

    def drop(self, failed: bool = True) -> None:
        """Close the connection -- it failed (``failed``: then no inline writes for
        :attr:`RETRY_SECONDS`), or the application shuts down; the next inline write opens
        a new one."""
        with self._guard:
            self._discard()
            if failed:
                self._failed = time.monotonic()
            elif self._own is not None:
                self._own.dispose()
                self._own = None

    def _discard(self) -> None:
        conn, self._conn, self._owner = self._conn, None, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def loop_calls(engine: Engine, enabled: bool) -> bool:
    """Whether the fast routes run their service calls on the event loop (*loop calls*,
    :mod:`app.db.pgloop`): turned on, and a PostgreSQL engine on psycopg (SQLite has its
    inline reads and writes instead)."""
    return enabled and engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg"


def loop_writer(engine: Engine, enabled: bool) -> LoopWriter | None:
    """Inline writes' connection for ``engine`` (None: no inline writes -- turned off, a
    PostgreSQL engine, whose every statement is a network round trip, a SQLite database in
    memory, which no second connection can open, or a SQLite driver other than the standard
    library's)."""
    if not enabled or engine.dialect.driver != "pysqlite":
        return None
    return None if sqlite_file(engine.url) is None else LoopWriter(engine)
