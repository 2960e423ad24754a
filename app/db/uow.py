"""Unit of work: one transaction around one use case (cosmicpython style)."""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.db.engine import WRITE_OPTION, writer_lock
from app.db.repository import DirectReads, GameRepository

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
    """A unit of work over a SQLAlchemy session factory."""

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self.session_factory = session_factory
        self._session: Session | None = None
        self._reads: DirectReads | None = None
        self._held: threading.RLock | None = None
        self._after_commit: list[Callable[[], None]] = []

    @property
    def session(self) -> Session:
        if self._session is None:
            raise RuntimeError("unit of work used outside its `with` block")
        return self._session

    def __enter__(self) -> Self:
        if getattr(self, "_direct", False):
            bind = self.session_factory.kw["bind"]
            assert isinstance(bind, Engine)
            self._reads = DirectReads(bind)
            self.games = GameRepository(None, self._reads)
            return self
        session = self.session_factory()
        connection = None
        if self.writing:
            bind = session.get_bind()
            lock = writer_lock(bind) if isinstance(bind, Engine) else None
            # queue behind this process's other writers (SQLite; see engine.writer_lock)
            if lock is not None and lock.acquire(timeout=WRITER_WAIT_SECONDS):
                self._held = lock
            try:
                # Marks the connection so SQLite begins with BEGIN IMMEDIATE (see engine.py).
                connection = session.connection(execution_options={WRITE_OPTION: True})
            except BaseException:
                session.close()
                self._release()
                raise
        self._session = session
        self.games = GameRepository(session, connection=connection)
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
        self.session.commit()
        pending, self._after_commit = self._after_commit, []
        for callback in pending:
            callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after_commit.append(callback)

    def rollback(self) -> None:
        self.session.rollback()
        self._after_commit = []
