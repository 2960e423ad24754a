"""Wake-ups when events are appended: PostgreSQL LISTEN/NOTIFY across processes, and
after-commit callbacks within one process.

* :func:`stage` is called by ``GameRepository.append_event`` inside the writing transaction.
  On PostgreSQL it issues ``SELECT pg_notify('referee_events', '<game id>:<seq>')``, which the
  database delivers to every listening connection -- every server process -- only if and when
  the transaction commits. On every database it also remembers ``(game id, seq)`` in the
  session, and once the session commits, the callbacks registered with
  :func:`add_commit_listener` are called in the committing thread (so a stream in the same
  process wakes at once, even on SQLite, which has no notification mechanism; other SQLite
  processes poll). A write of the unit of work has no session to begin with: its repository
  sends ``pg_notify`` itself (on the driver, or within the one statement that moves the game
  on and appends the event, ``GameRepository.advance_with_event``) and the unit of work
  notes the event and calls :func:`committed` once the transaction commits.
* :class:`PgListener` holds one dedicated autocommit psycopg connection per process that
  ``LISTEN``\\ s on the channel and hands each payload to a callback. It reconnects with back-off
  and calls ``on_reset`` whenever notifications may have been missed, so readers re-check the
  database. It never holds a transaction open.

A notification carries no event content: readers always fetch events from the database
through the per-reader filter, so nothing secret ever travels on the channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable

from sqlalchemy import Engine, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.db.models import GameRow

log = logging.getLogger("referee.notify")

CHANNEL = "referee_events"
_PG_NOTIFY = text("SELECT pg_notify(:channel, :payload)")
"""The PostgreSQL notification channel; payload ``<game id>:<seq>``."""

_PENDING = "referee_appended_events"
_OUTBOX = "referee_outbox_staged"
_listeners: list[Callable[[str, int], None]] = []
_outbox_listeners: list[Callable[[], None]] = []
_lock = threading.Lock()


def payload(game_id: str, seq: int) -> str:
    return f"{game_id}:{seq}"


def message(game_id: str, seq: int) -> dict[str, str]:
    """The parameters of ``pg_notify`` for an appended event (``channel``, ``payload``)."""
    return {"channel": CHANNEL, "payload": payload(game_id, seq)}


def parse_payload(text_: str) -> tuple[str, int] | None:
    """``(game id, seq)`` from a notification payload, or None if it is not one of ours."""
    game_id, _, seq = text_.rpartition(":")
    if not game_id or not seq.isdigit():
        return None
    return game_id, int(seq)


def stage(session: Session, game_id: str, seq: int) -> None:
    """Announce an appended event; it is delivered only if the transaction commits."""
    session.info.setdefault(_PENDING, []).append((game_id, seq))
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        session.execute(_PG_NOTIFY, message(game_id, seq))


def committed(staged: list[tuple[str, int]]) -> None:
    """Wake this process's listeners for events a transaction without a session committed:
    a write of the unit of work, whose repository sends ``pg_notify`` on PostgreSQL itself
    (on the driver, or in the statement that appends the event; see
    ``GameRepository.advance_with_event``) and whose unit of work notes each event and calls
    this once it commits."""
    _deliver(staged, False)


def stage_access_change(session: Session, game_id: str) -> None:
    """Announce that a credential of the game was revoked, rotated or reissued: delivered like
    an appended event (``<game id>:0``: no event), only if the transaction commits, so every
    open stream of the game wakes and re-checks its credential at once."""
    stage(session, game_id, 0)


def add_commit_listener(callback: Callable[[str, int], None]) -> None:
    """Call ``callback(game_id, seq)`` after any session of this process commits an event."""
    with _lock:
        _listeners.append(callback)


def remove_commit_listener(callback: Callable[[str, int], None]) -> None:
    with _lock:
        if callback in _listeners:
            _listeners.remove(callback)


def stage_outbox(session: Session) -> None:
    """Announce outbox rows (webhook deliveries) staged in this transaction: the callbacks
    of :func:`add_outbox_listener` are called once it commits (and not at all otherwise)."""
    session.info[_OUTBOX] = True


def add_outbox_listener(callback: Callable[[], None]) -> None:
    """Call ``callback()`` after any session of this process commits outbox rows."""
    with _lock:
        _outbox_listeners.append(callback)


def remove_outbox_listener(callback: Callable[[], None]) -> None:
    with _lock:
        if callback in _outbox_listeners:
            _outbox_listeners.remove(callback)


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    _deliver(session.info.pop(_PENDING, None), session.info.pop(_OUTBOX, False))


def _deliver(pending: list[tuple[str, int]] | None, outbox: bool) -> None:
    if not pending and not outbox:
        return
    with _lock:
        callbacks = list(_listeners)
        outbox_callbacks = list(_outbox_listeners) if outbox else []
    for game_id, seq in pending or ():
        for callback in callbacks:
            try:
                callback(game_id, seq)
            except Exception:  # a broken listener must never fail a committed write
                log.exception("event commit listener failed")
    for wake in outbox_callbacks:
        try:
            wake()
        except Exception:
            log.exception("outbox commit listener failed")


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)
    session.info.pop(_OUTBOX, None)


def psycopg_conninfo(database_url: str) -> str:
    """The libpq URI of a SQLAlchemy PostgreSQL URL (driver suffix removed)."""
    url = make_url(database_url).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


def is_postgres(database_url: str) -> bool:
    return make_url(database_url).drivername.startswith(("postgresql", "postgres"))


class PgListener:
    """One ``LISTEN referee_events`` connection, run as an asyncio task."""

    def __init__(
        self,
        database_url: str,
        on_notify: Callable[[str, int], None],
        on_reset: Callable[[], None],
        *,
        max_backoff: float = 5.0,
    ) -> None:
        self._conninfo = psycopg_conninfo(database_url)
        self._on_notify = on_notify
        self._on_reset = on_reset
        self._max_backoff = max_backoff
        self._task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        """Set while the LISTEN is active (streams wait for it before their first read)."""

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="pg-listen")

    async def _run(self) -> None:
        import psycopg

        backoff = 0.2
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._conninfo, autocommit=True
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    backoff = 0.2
                    self._on_reset()  # anything committed while we were away: re-read
                    async for note in conn.notifies():
                        parsed = parse_payload(note.payload)
                        if parsed is not None:
                            self._on_notify(*parsed)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("LISTEN %s connection lost (%s); retrying", CHANNEL, exc)
            self.listening.clear()
            self._on_reset()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self._max_backoff)

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


VERSIONS_CHUNK = 500
"""Game ids per ``IN (...)`` of :func:`game_versions` (SQLite allows 999 parameters)."""


def game_versions(engine: Engine, game_ids: list[str]) -> dict[str, tuple[int, int]]:
    """The current version and access epoch of each game (one short read; the shared
    poller's only query): a change of either wakes the game's streams -- a new event, or a
    credential revoked, rotated or reissued (the streams then re-check their credential)."""
    out: dict[str, tuple[int, int]] = {}
    with engine.connect() as conn:
        for i in range(0, len(game_ids), VERSIONS_CHUNK):
            chunk = game_ids[i : i + VERSIONS_CHUNK]
            stmt = select(GameRow.id, GameRow.version, GameRow.access_epoch).where(
                GameRow.id.in_(chunk)
            )
            rows = conn.execute(stmt)
            out.update({str(r[0]): (int(r[1]), int(r[2])) for r in rows})
    return out
