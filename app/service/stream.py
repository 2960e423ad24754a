"""Live events: the per-reader event log as Server-Sent Events, woken by the database.

* :func:`open_stream` checks the reader (401/404 before any byte is streamed) and returns
  its seat; :func:`read_batch` reads the next events after a cursor, each filtered for that
  seat exactly as ``GET /games/{id}/events`` filters it (hidden events are redacted, so the
  stream's ids are gap-free). Each read is its own short transaction: nothing is held open
  while a stream is idle.
* **Every batch re-checks the credential** the stream was opened with, in the same
  transaction as the read: once the token is revoked, rotated or reissued, the batch raises
  :class:`StreamRevoked` and the stream ends (``event: revoked``) before it sends anything
  more. A revocation wakes the game's streams like a new event does (the access epoch, see
  :meth:`app.db.access.AccessRepository.access_changed`), so this happens at once.
* A read that fails because the database is away raises :class:`DatabaseAway`; the stream
  stays open, says so in a comment and reads again after a back-off (nothing is lost: the
  cursor did not move).
* :class:`EventHub` (one per application) wakes waiting streams: after-commit callbacks for
  writes made by this process, ``LISTEN referee_events`` on PostgreSQL for writes made by any
  process (see :mod:`app.db.notify`), and a poll interval as the fallback (the only cross-
  process mechanism on SQLite). A wake-up carries no content; the stream re-reads the log.
* :func:`sse_event` / :func:`sse_comment` format the wire protocol.
* :func:`settle` settles the game's clock (a ``clock_expired`` event when a side's time ran
  out): at the start of a stream and on every keep-alive tick, each time in its own short
  transaction, so a listener sees the expiry without waiting for another request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from app.db import notify
from app.db.uow import AbstractUnitOfWork
from app.service.boards import BoardCache
from app.service.errors import (
    INT4_MAX,
    FieldError,
    InvalidInput,
    ServiceError,
    Unauthenticated,
)
from app.service.events import event_view
from app.service.identity import identity_of
from app.service.pipeline import find_game, reader_seat, settle_clock
from app.service.results import EventView
from app.service.tokens import hash_token

log = logging.getLogger("referee.stream")

BATCH = 100
"""Events read per query while catching up."""


# -- reading -------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamReader:
    """One reader of one game's events: its seat (None: a spectator or an anonymous reader)
    and the hash of the token it presented (None: no token, a public game)."""

    game_id: str
    seat: str | None
    token_hash: str | None = None


class StreamRevoked(Exception):
    """The credential a stream was opened with no longer holds (revoked, rotated, reissued):
    the stream must end before it sends anything more."""

    def __init__(self, reader: StreamReader) -> None:
        super().__init__(f"the token of this stream no longer holds at {reader.game_id}")
        self.reader = reader


class DatabaseAway(Exception):
    """A stream's read failed because the database is unreachable (it retries later)."""


REVOKED_DETAIL = (
    "the token this stream was opened with was revoked, rotated or reissued: "
    "the stream ends here, and a new one with that token gets 401"
)


def open_stream(uow: AbstractUnitOfWork, game_id: str, *, token: str | None) -> StreamReader:
    """Who is reading: the same rules as every read (private games need a seat token)."""
    with uow.begin():
        row, _ = find_game(uow, game_id)
        seat = reader_seat(uow, row, token)
        token_hash = None if token is None else hash_token(token)
        return StreamReader(game_id=row.id, seat=seat, token_hash=token_hash)


def still_holds(uow: AbstractUnitOfWork, reader: StreamReader) -> bool:
    """Inside an open transaction: does the reader's token still hold the seat (or the
    spectator's read) it held when the stream opened? (An index look-up, as every read's.)"""
    if reader.token_hash is None:
        return True
    found = uow.games.holder(reader.game_id, reader.token_hash)
    if found is None:
        return False
    try:
        who = identity_of(reader.token_hash, found)
    except Unauthenticated:
        return False
    return who.seat == reader.seat


def read_batch(
    uow: AbstractUnitOfWork, reader: StreamReader, *, after: int, limit: int = BATCH
) -> list[EventView]:
    """The next events after ``after`` as the reader may see them (one short transaction),
    after checking that the reader's credential still holds (:class:`StreamRevoked`)."""
    try:
        with uow.begin():
            if not still_holds(uow, reader):
                raise StreamRevoked(reader)
            return views(uow, reader, after=after, limit=limit)
    except DBAPIError as exc:
        raise DatabaseAway(str(exc.orig or exc)) from exc


def views(
    uow: AbstractUnitOfWork, reader: StreamReader, *, after: int, limit: int
) -> list[EventView]:
    """Inside an open transaction: the next events after ``after`` as the reader sees them
    (the caller has checked the reader's credential in the same transaction)."""
    rows = uow.games.events(reader.game_id, after=after, limit=limit)
    return [event_view(r, reader.seat) for r in rows]


def settle(
    uow: AbstractUnitOfWork, game_id: str, *, now: float, boards: BoardCache, strict: bool
) -> None:
    """Settle the game's clock as any read does (see ``games.settle_clock``). ``strict``
    (before the stream starts) lets errors through as problem answers; on a keep-alive tick
    a failure (e.g. another write won the race) is left for the next tick."""
    try:
        settle_clock(uow, game_id, now=now, boards=boards)
    except ServiceError:
        if strict:
            raise
    except DBAPIError:
        if strict:
            raise
        log.warning("a stream could not settle the clock of %s: database away", game_id)


def parse_cursor(last_event_id: str | None, after: int | None) -> int:
    """Where to resume: ``Last-Event-ID`` (sent by a reconnecting EventSource) wins over
    ``?after=``; both absent = from the start. Ids are event sequence numbers."""
    if last_event_id is not None and last_event_id.strip() != "":
        value = last_event_id.strip()
        in_range = value.isascii() and value.isdigit() and len(value) <= 10
        if not (in_range and int(value) <= INT4_MAX):
            raise InvalidInput(
                "Last-Event-ID must be an event sequence number",
                [
                    FieldError(
                        "/Last-Event-ID",
                        f"not an integer from 0 to {INT4_MAX}",
                        "int",
                        "header",
                    )
                ],
                code="stream.invalid_cursor",
            )
        return int(value)
    return after or 0


# -- wire format ---------------------------------------------------------------------------


def sse_event(view: EventView) -> str:
    """One event: ``id`` = seq, ``event`` = kind (``redacted`` when hidden), ``data`` = the
    JSON of the events-list item (one line)."""
    return f"id: {view.seq}\nevent: {view.kind}\ndata: {view.model_dump_json()}\n\n"


def sse_comment(text: str) -> str:
    """A comment line: ignored by EventSource, keeps proxies and clients from timing out."""
    return f": {text}\n\n"


def sse_retry(milliseconds: int) -> str:
    return f"retry: {milliseconds}\n\n"


def sse_revoked(reader: StreamReader) -> str:
    """The last message of a stream whose credential no longer holds: ``event: revoked``, no
    ``id`` (the client's cursor stays where it was), ``data`` naming the game and seat."""
    data = json.dumps(
        {
            "code": "auth.revoked",
            "game": reader.game_id,
            "seat": reader.seat,
            "detail": REVOKED_DETAIL,
        },
        separators=(",", ":"),
    )
    return f"event: revoked\ndata: {data}\n\n"


# -- wake-ups ------------------------------------------------------------------------------


@dataclass(eq=False)
class Subscription:
    """One stream's interest in one game: ``woken`` is set by any new event of the game."""

    game_id: str
    woken: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self, timeout: float) -> bool:
        """Wait for a wake-up (True) or the timeout (False); clears the flag."""
        try:
            await asyncio.wait_for(self.woken.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self.woken.clear()


class EventHub:
    """Wakes the streams of one application when events of their game are committed.

    Started lazily by the first subscription (an app that never streams opens no LISTEN
    connection); :meth:`aclose` stops it at shutdown. Writes by other processes are seen
    through ``LISTEN`` on PostgreSQL and, where there is none (SQLite, or while the LISTEN
    connection is down), through **one shared poller per process**: every ``poll_seconds`` it
    reads the versions of the games being streamed in one query and wakes the streams of the
    games that moved -- so a thousand idle streams cost one small read a second, not a
    thousand log reads.
    """

    def __init__(
        self, database_url: str, engine: Engine | None = None, poll_seconds: float = 1.0
    ) -> None:
        self.database_url = database_url
        self.postgres = notify.is_postgres(database_url)
        self.engine = engine
        self.poll_seconds = poll_seconds
        self._subs: dict[str, set[Subscription]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: notify.PgListener | None = None
        self._poller: asyncio.Task[None] | None = None
        self._versions: dict[str, tuple[int, int]] = {}
        self.polls = 0

    # called from any thread (the committing one, or the listener task)
    def _local_commit(self, game_id: str, seq: int) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # loop shutting down
            loop.call_soon_threadsafe(self._wake, game_id)

    def _wake(self, game_id: str) -> None:
        for sub in self._subs.get(game_id, ()):
            sub.woken.set()

    def _wake_all(self) -> None:
        for subs in self._subs.values():
            for sub in subs:
                sub.woken.set()

    def _on_notify(self, game_id: str, seq: int) -> None:
        self._wake(game_id)

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        # first use, or the old loop is gone (its listener task died with it)
        self._loop = loop
        self._listener = None
        notify.remove_commit_listener(self._local_commit)
        notify.add_commit_listener(self._local_commit)
        if self.postgres:
            self._listener = notify.PgListener(self.database_url, self._on_notify, self._wake_all)
            self._listener.start()
        if self.engine is not None:
            self._poller = loop.create_task(self._poll())

    async def _poll(self) -> None:
        """The shared poller (see the class docstring); a first sight of a game wakes its
        streams too, so a write between a stream's catch-up and that sight is not missed."""
        assert self.engine is not None
        while True:
            await asyncio.sleep(self.poll_seconds)
            if self.listening or not self._subs:
                self._versions.clear()  # notifications flow: start afresh if they stop
                continue
            games = list(self._subs)
            try:
                versions = await asyncio.to_thread(notify.game_versions, self.engine, games)
            except Exception:  # the database is away: streams keep waiting, try again
                log.warning("the stream poller could not read game versions", exc_info=True)
                continue
            self.polls += 1
            for game_id, version in versions.items():
                if self._versions.get(game_id) != version:
                    self._versions[game_id] = version
                    self._wake(game_id)
            for gone in set(self._versions) - set(games):
                del self._versions[gone]

    @property
    def shared_wakeups(self) -> bool:
        """True when something wakes streams on other processes' writes (LISTEN or the shared
        poller), so a stream need not re-read the log on its own."""
        return self.listening or (self._poller is not None and not self._poller.done())

    @contextlib.contextmanager
    def subscribe(self, game_id: str) -> Iterator[Subscription]:
        """Register interest in a game for the duration of a stream."""
        with self.subscribe_many([game_id]) as sub:
            yield sub

    @contextlib.contextmanager
    def subscribe_many(self, game_ids: Sequence[str]) -> Iterator[Subscription]:
        """One subscription woken by an event of any of ``game_ids`` (multi-game streams)."""
        self._start()
        sub = Subscription(game_ids[0] if len(game_ids) == 1 else "*")
        for game_id in set(game_ids):
            self._subs.setdefault(game_id, set()).add(sub)
        try:
            yield sub
        finally:
            for game_id in set(game_ids):
                subs = self._subs.get(game_id)
                if subs is not None:
                    subs.discard(sub)
                    if not subs:
                        del self._subs[game_id]

    async def ready(self, timeout: float) -> bool:
        """True once cross-process notifications flow (at once without PostgreSQL)."""
        if self._listener is None:
            return True
        try:
            await asyncio.wait_for(self._listener.listening.wait(), timeout)
            return True
        except TimeoutError:
            return False

    @property
    def listening(self) -> bool:
        return self._listener is not None and self._listener.listening.is_set()

    async def aclose(self) -> None:
        notify.remove_commit_listener(self._local_commit)
        poller, self._poller = self._poller, None
        if poller is not None:
            poller.cancel()
            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                await poller
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.aclose()
        self._wake_all()
        self._loop = None
