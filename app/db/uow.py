"""Unit of work: one transaction around one use case (cosmicpython style)."""

from __future__ import annotations

import abc
import sqlite3
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Connection, Engine
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session, sessionmaker

from app.db import notify
from app.db.engine import (
    DRIVER_TRANSACTION,
    WRITE_OPTION,
    LoopConnections,
    LoopWriter,
    WriterLock,
    writer_lock,
)
from app.db.repository import DirectReads, GameRepository, InlineReads, WouldWait

WRITER_WAIT_SECONDS = 30.0
"""How long a write waits for this process's other writers before trying SQLite's lock
itself (whose busy timeout is the same 30 s)."""


class AbstractUnitOfWork(abc.ABC):
    """``with uow.begin(write=True): ...; uow.commit()`` -- rolled back unless committed."""

    games: GameRepository

    def begin(self, *, write: bool = False, direct: bool = False) -> Self:
        """Declare whether the coming transaction writes; use as ``with uow.begin(...)``.

        ``direct`` (reads only): the transaction reads one game only -- its row with a token's
        seat (``games.get``/``get_as``), its board and its state documents -- and does it
        with statements straight on the driver (:class:`app.db.repository.DirectReads`); it
        has no session (``games.session`` raises)."""
        self._write = write
        self._direct = direct and not write
        return self

    @property
    def writing(self) -> bool:
        return getattr(self, "_write", False)

    @abc.abstractmethod
    def __enter__(self) -> Self: ...

    @abc.abstractmethod
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    @abc.abstractmethod
    def commit(self) -> None: ...

    @abc.abstractmethod
    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once this transaction has committed (never if it does not):
        what the process may remember of a write, e.g. the state it stored."""

    @abc.abstractmethod
    def rollback(self) -> None: ...


class SqlAlchemyUnitOfWork(AbstractUnitOfWork):
    """A unit of work over a SQLAlchemy session factory.

    A write transaction begins on a ``Connection`` (SQLite's ``BEGIN IMMEDIATE``), not in an
    ORM session: a submission's statements run on that connection (the repository's Core and
    driver statements), and the session -- its transaction state machine, its begin and its
    commit were a sixth of a small submission's CPU (docs/PERFORMANCE.md, issue 28, session
    11) -- is made only when something asks for it (:attr:`session`: an Idempotency-Key's
    look-up, outbox rows, the match flows' ORM rows), bound to that connection and in
    control of its transaction (``join_transaction_mode="control_fully"``: its commit and
    rollback are the transaction's). Readers are woken after the commit either way."""

    def __init__(
        self,
        session_factory: sessionmaker[Session],
        inline: LoopConnections | None = None,
        writer: LoopWriter | None = None,
    ) -> None:
        """``inline``: the unit of work of an *inline read* (:mod:`app.api.fast`): its
        transactions are direct reads on the calling thread's own connection
        (:class:`app.db.repository.InlineReads`), and any other transaction -- a write, a
        session's read -- raises :class:`app.db.repository.WouldWait` as it begins.

        ``writer``: the unit of work of an *inline write* (:mod:`app.api.fast`): its write
        transactions run on the calling thread's kept connection
        (:class:`app.db.engine.LoopWriter`), never waiting -- the process's writer lock
        taken only if free and no worker thread is queued for it, ``BEGIN IMMEDIATE`` with a
        busy timeout of 0 -- and read the game's row and what a write writes, never a state
        document or a board (a cache miss: their reading and parsing belong in a worker
        thread); its direct reads are as any; anything else (a read through a session), a
        wait, or an error of the database before anything is written raises
        :class:`app.db.repository.WouldWait`, and the caller runs the request again in a
        worker thread."""
        self.session_factory = session_factory
        self._inline = inline
        self._writer = writer
        self._kept = False
        """The write's connection is the writer's, kept after the transaction."""
        self._committed = False
        """The write's transaction committed (an inline write is then never run again)."""
        self._session: Session | None = None
        self._conn: Connection | None = None
        self._reads: DirectReads | None = None
        self._held: WriterLock | None = None
        self._after_commit: list[Callable[[], None]] = []
        self._staged: list[tuple[str, int]] = []
        self._raw: Any = None
        """The driver's connection of a write transaction begun on it (SQLite's
        ``sqlite3.Connection``, PostgreSQL's ``psycopg.Connection``: :func:`_begin_write`),
        until it commits or rolls back."""

    @property
    def session(self) -> Session:
        if self._session is None:
            if self._conn is None:
                raise RuntimeError("unit of work used outside its `with` block")
            if self._raw is not None:
                _require_connected(self._conn)
            # a write's session, made on first use: on the write's connection, its transaction
            self._session = self.session_factory(
                bind=self._conn, join_transaction_mode="control_fully"
            )
        return self._session

    def _stage(self, game_id: str, seq: int) -> None:
        """An appended event, announced to this process once this write commits (see
        :mod:`app.db.notify`; the repository sends PostgreSQL's ``pg_notify`` itself, in
        the transaction)."""
        self._staged.append((game_id, seq))

    def __enter__(self) -> Self:
        inline = self._inline
        if inline is not None and not getattr(self, "_direct", False):
            raise WouldWait("a write, or a read through the session")
        if getattr(self, "_direct", False):
            bind = self.session_factory.kw["bind"]
            assert isinstance(bind, Engine)
            self._reads = DirectReads(bind) if inline is None else InlineReads(bind, inline)
            self.games = GameRepository(None, self._reads)
            return self
        if self.writing and self._writer is not None:
            return self._enter_inline_write(self._writer)
        if self._writer is not None:
            raise WouldWait("a read through the session")
        if self.writing:
            bind = self.session_factory.kw["bind"]
            assert isinstance(bind, Engine)
            lock = writer_lock(bind)
            # queue behind this process's other writers (SQLite; see engine.writer_lock)
            if lock is not None and lock.acquire(timeout=WRITER_WAIT_SECONDS):
                self._held = lock
            conn: Connection | None = None
            try:
                conn = bind.connect()
                if conn.dialect.name == "sqlite":
                    # SQLite's BEGIN IMMEDIATE for what SQLAlchemy begins (see engine.py)
                    conn.execution_options(**{WRITE_OPTION: True})
                self._raw = _begin_write(conn)
            except BaseException:
                if conn is not None:
                    conn.close()
                self._release()
                raise
            self._conn = conn
            self.games = GameRepository(
                None, connection=conn, session_of=lambda: self.session, stage=self._stage
            )
            self.games.in_driver_transaction = self._raw is not None
            return self
        session = self.session_factory()
        self._session = session
        self.games = GameRepository(session)
        return self

    def _enter_inline_write(self, writer: LoopWriter) -> Self:
        """An inline write's transaction (see :meth:`__init__`), or :class:`WouldWait`."""
        lock = writer_lock(writer.engine)
        if lock is not None:
            if not lock.try_acquire():
                raise WouldWait("another writer of this process")
            self._held = lock
        try:
            conn = writer.get()
            if conn is None:
                raise WouldWait("no connection to have without waiting")
            try:
                self._raw = _begin_write(conn)  # busy timeout 0: fails at once if locked
            except (sa_exc.DBAPIError, sqlite3.Error) as exc:  # (the driver's)
                if not _busy(exc):  # another process writing: the connection is fine
                    writer.drop()
                raise WouldWait("the database") from exc
        except BaseException:
            self._release()
            raise
        self._conn = conn
        self._kept = True
        self._committed = False
        self.games = GameRepository(
            None,
            connection=conn,
            session_of=lambda: self.session,
            stage=self._stage,
            inline=True,
        )
        self.games.in_driver_transaction = self._raw is not None
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        reads, self._reads = self._reads, None
        if reads is not None:
            self._direct = False
            reads.close()
            return
        conn = self._conn
        if conn is not None:
            session = self._session
            try:
                if session is not None:
                    if session.in_transaction():
                        session.rollback()  # anything not committed is discarded
                    session.close()
                if conn.in_transaction():  # (one a session made but never used left open)
                    conn.rollback()
                _end_on_driver(conn, self._raw, "ROLLBACK")  # begun on the driver
            except BaseException:
                if self._kept and self._writer is not None:
                    self._writer.drop()
                raise
            finally:
                kept, self._kept = self._kept, False
                if kept:
                    if self._writer is not None and (
                        conn.invalidated or (_broken(exc) and not _busy(exc))
                    ):
                        self._writer.drop()  # an error of the database: not kept
                else:
                    conn.close()
                self._conn = None
                self._session = None
                self._raw = None
                self._release()
                self._write = False
                self._after_commit = []
                self._staged = []
                self.games.detach()  # no cycle left through its callbacks (see detach)
            if kept and not self._committed and _broken(exc):
                # an inline write that failed on the database (busy at its commit, a file
                # not in WAL mode; or anything else of the loop's connection) wrote nothing:
                # a worker thread runs it again, as it would have run it
                raise WouldWait("the database") from exc
            return
        session = self.session
        try:
            if self.writing and session.in_transaction():
                session.rollback()  # anything not committed is discarded
            # a read transaction is ended by close() alone (the connection's transaction is
            # rolled back as it goes back to the pool): the ORM's rollback would first expire
            # every row it loaded, a third of a GET game's database time (issue 28)
        finally:
            session.close()
            self._release()
            self._session = None
            self._write = False
            self._after_commit = []

    def _release(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.release()

    def commit(self) -> None:
        conn = self._conn
        if conn is not None and self._session is None:
            conn.commit()  # (nothing to do when the transaction is the driver's alone)
        else:
            self.session.commit()  # a write's session commits its connection's transaction
            if conn is not None and conn.in_transaction():  # one it never took over (unused)
                conn.commit()
        raw = self._raw
        if raw is not None:  # begun on the driver: committed there unless taken over (done)
            assert conn is not None
            _require_connected(conn)
            _end_on_driver(conn, raw, "COMMIT")
            self._raw = None
            self.games.in_driver_transaction = False
        self._committed = True
        staged, self._staged = self._staged, []
        if staged:
            notify.committed(staged)
        pending, self._after_commit = self._after_commit, []
        for callback in pending:
            callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after_commit.append(callback)

    def rollback(self) -> None:
        conn = self._conn
        if conn is None:
            self.session.rollback()
        else:
            session = self._session
            if session is not None and session.in_transaction():
                session.rollback()
            if conn.in_transaction():  # (one a session made but never used left open)
                conn.rollback()
        raw, self._raw = self._raw, None
        if raw is not None:
            assert conn is not None
            _end_on_driver(conn, raw, "ROLLBACK")
            self.games.in_driver_transaction = False
        self._after_commit = []
        self._staged = []


def _begin_write(conn: Connection) -> Any:
    """Begin a write transaction on ``conn`` on the driver, returning the driver's connection
    -- SQLAlchemy's ``Connection.begin`` and ``commit`` (their transaction objects, events and
    logging) cost more CPU than the statements themselves, 0.02-0.03 ms of a submission's
    (docs/PERFORMANCE.md, issue 28, sessions 16 and 17). SQLite: ``BEGIN IMMEDIATE`` straight
    on ``sqlite3``. PostgreSQL (psycopg): nothing to send -- psycopg begins the transaction
    itself with its first statement, as it does under SQLAlchemy's ``begin``, whose ``BEGIN``
    is psycopg's too. The repository's statements run on the driver within it; anything that
    goes through SQLAlchemy (a Core statement, the ORM session) makes SQLAlchemy begin, which
    takes this transaction over (SQLite: the engine's begin hook, ``app.db.engine``;
    PostgreSQL: SQLAlchemy's begin sends nothing, so its commit or rollback is the driver's
    transaction's); :meth:`SqlAlchemyUnitOfWork.commit` commits it either way. Another driver:
    SQLAlchemy begins it, and None is returned."""
    driver = conn.dialect.driver
    if driver == "psycopg":
        return conn.connection.driver_connection
    if driver != "pysqlite":
        conn.begin()
        return None
    raw = conn.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    raw.execute("BEGIN IMMEDIATE")
    conn.info[DRIVER_TRANSACTION] = True
    return raw


def _end_on_driver(conn: Connection, raw: Any, statement: str) -> None:
    """``COMMIT`` or ``ROLLBACK`` a transaction begun on the driver, if still open there. A
    connection found lost (SQLAlchemy invalidated it: the driver's is closed) has none left:
    the database rolled it back. A ``COMMIT`` the driver refuses is raised as SQLAlchemy
    raises the driver's errors (its ``DBAPIError`` subclass: one refused for a deferred
    constraint is an ``IntegrityError``); so is a PostgreSQL ``ROLLBACK``'s, and a connection
    lost on the way there is invalidated, as SQLAlchemy does."""
    if raw is None or conn.invalidated or conn.closed:
        return
    if isinstance(raw, sqlite3.Connection):
        conn.info.pop(DRIVER_TRANSACTION, None)
        if raw.in_transaction:
            try:
                raw.execute(statement)
            except sqlite3.Error as exc:
                if statement != "COMMIT":
                    raise
                raise sa_exc.DBAPIError.instance(
                    "COMMIT", None, exc, sqlite3.Error, dialect=conn.dialect
                ) from exc
        return
    dialect = conn.dialect
    try:  # psycopg: nothing is sent when no transaction is open
        if statement == "COMMIT":
            raw.commit()
        else:
            raw.rollback()
    except dialect.loaded_dbapi.Error as exc:
        lost = dialect.is_disconnect(exc, raw, None)
        if lost:
            conn.invalidate(exc)
        raise sa_exc.DBAPIError.instance(
            statement,
            None,
            exc,
            dialect.loaded_dbapi.Error,
            connection_invalidated=lost,
            dialect=dialect,
        ) from exc


def _require_connected(conn: Connection) -> None:
    """A write begun on the driver whose connection was lost (invalidated) has no transaction
    left: nothing may run or commit as if it had (SQLAlchemy's own error for this)."""
    if conn.invalidated or conn.closed:
        raise sa_exc.PendingRollbackError(
            "the write's connection was lost: its transaction was rolled back"
        )


def _busy(exc: BaseException | None) -> bool:
    """SQLite's "database is locked" (``SQLITE_BUSY``, ``SQLITE_LOCKED``): another
    connection -- of another process -- holds the lock."""
    driver = exc.orig if isinstance(exc, sa_exc.DBAPIError) else exc
    code = getattr(driver, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _broken(exc: BaseException | None) -> bool:
    """An error of the database that may have left the connection unfit: any but a lost race
    on a unique index (``IntegrityError``, which the write's frame answers)."""
    if isinstance(exc, sa_exc.IntegrityError | sqlite3.IntegrityError):
        return False
    return isinstance(exc, sa_exc.DBAPIError | sqlite3.Error)
