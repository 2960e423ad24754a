"""Rate-limit token buckets held in PostgreSQL, shared by every process on the database.

The in-process buckets (:class:`app.api.policy.TokenBuckets`) let N processes allow N times
the limit. Here each charge is **one atomic statement**: an ``INSERT … ON CONFLICT … DO
UPDATE … RETURNING`` on ``rate_buckets`` that refills the stored level from its timestamp on
the database's clock, spends one request if a whole one is there, and answers whether it did.
PostgreSQL locks the row for the update and re-reads its latest version, so two processes (or
threads) charging one key queue on its row and never both spend the last token. The arithmetic
is the in-process bucket's, in SQL:

    refilled = min(burst, tokens + max(0, now - stamp) * rate)
    allowed  = refilled >= 1;  tokens = refilled - 1 if allowed else refilled
    full_at  = now + (burst - tokens) / rate;  wait = (1 - tokens) / rate when refused

A new key starts full (``burst - 1`` after its first request). The table is **bounded** as the
in-process one is: a full bucket is the same as no bucket, so a periodic cleanup (every
:data:`CLEANUP_SECONDS` per process, and as soon as the process has created ``slack`` new
buckets since its last one) deletes the buckets that are full by now and, past ``max_keys``
buckets of a kind, the ones closest to full -- a drained bucket is the last to go, so junk keys
cannot flush it. Between cleanups a kind holds at most ``max_keys`` + processes * ``slack``
rows.

The charges run on the limiter's own small pool of autocommit connections (at most
:data:`POOL_SIZE` + :data:`POOL_OVERFLOW` per process), as prepared statements straight on
psycopg: SQLAlchemy's statement layer cost more than the statement itself.

While the database cannot be reached, each charge falls back to the process's own in-process
buckets (the limit then holds per process, as before this module) and one warning is logged
per outage; the request itself goes on (it gets 503 from its route if it needs the database).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import psycopg
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.db.engine import normalize_url

log = logging.getLogger("referee.ratelimit")

CLEANUP_SECONDS = 10.0
"""How often each process deletes full buckets (and trims a kind over its key cap)."""
WARN_SECONDS = 60.0
"""At most one warning this often while the database cannot be reached."""
POOL_SIZE, POOL_OVERFLOW, POOL_TIMEOUT = 2, 4, 2.0
"""The limiter's own connections per process (a charge holds one for a round trip or two):
kept open 2, at most 6; a charge that waits 2 s for one falls back to the in-process buckets."""

_NOW = "EXTRACT(EPOCH FROM clock_timestamp())::float8"
_REFILLED = "LEAST(%(burst)s, b.tokens + GREATEST(0.0, excluded.stamp - b.stamp) * %(rate)s)"
_LEFT = f"CASE WHEN {_REFILLED} >= 1.0 THEN {_REFILLED} - 1.0 ELSE {_REFILLED} END"
CHARGE = (
    "INSERT INTO rate_buckets AS b (kind, key, tokens, stamp, full_at, allowed) "
    "SELECT %(kind)s, %(key)s, %(burst)s - 1.0, t.now, t.now + 1.0 / %(rate)s, true "
    f"FROM (SELECT {_NOW} AS now) AS t "
    "ON CONFLICT (kind, key) DO UPDATE SET "
    f"tokens = {_LEFT}, "
    "stamp = excluded.stamp, "
    f"full_at = excluded.stamp + (%(burst)s - ({_LEFT})) / %(rate)s, "
    f"allowed = {_REFILLED} >= 1.0 "
    "RETURNING b.allowed, b.tokens, (b.xmax = 0) AS created"
)
"""Charge one request to (kind, key): allowed, the requests left, whether the row is new."""
DROP_FULL = f"DELETE FROM rate_buckets WHERE kind = %(kind)s AND full_at <= {_NOW}"
"""A bucket back to its burst is the same as no bucket (the row is re-checked if it moved)."""
TRIM = (
    "DELETE FROM rate_buckets WHERE kind = %(kind)s AND key IN ("
    "SELECT key FROM rate_buckets WHERE kind = %(kind)s "
    "ORDER BY full_at DESC OFFSET %(max_keys)s)"
)
"""Past ``max_keys`` buckets of a kind, drop those that are full soonest (never a drained one
while fuller ones remain)."""


def limiter_engine(url: str | URL) -> Engine:
    """The limiter's own small pool: autocommit (each charge is one statement, its own
    transaction), no pre-ping (a connection a restart broke fails one charge, which falls back,
    and is replaced)."""
    parsed = normalize_url(url)
    connect_args = {} if "connect_timeout" in parsed.query else {"connect_timeout": 5}
    return create_engine(
        parsed,
        isolation_level="AUTOCOMMIT",
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        pool_timeout=POOL_TIMEOUT,
        connect_args=connect_args,
    )


class LocalBuckets(Protocol):
    """The in-process buckets (:class:`app.api.policy.TokenBuckets`): the rate, the burst, and
    the fallback while the database is away."""

    rate: float
    burst: int

    def take(self, key: str) -> float: ...


class SharedRateLimits:
    """The shared buckets of one database: the connection a request's charges use, the
    cleanup, and the fallback bookkeeping. :meth:`buckets` gives one kind's buckets."""

    def __init__(
        self,
        url: str | URL,
        max_keys: int,
        *,
        cleanup_seconds: float = CLEANUP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = limiter_engine(url)
        self.max_keys = max_keys
        self.slack = max(64, max_keys // 100)
        """New buckets this process may create before it trims the table again."""
        self.cleanup_seconds = cleanup_seconds
        self.clock = clock
        self.kinds: list[str] = []
        self._local = threading.local()
        self._created = 0
        self._next_cleanup = clock() + cleanup_seconds
        self._cleaning = threading.Lock()
        self._fallback = threading.Lock()
        self._warned_at: float | None = None

    def buckets(self, kind: str, local: LocalBuckets) -> SharedBuckets:
        self.kinds.append(kind)
        return SharedBuckets(self, kind, local)

    def dispose(self) -> None:
        self.engine.dispose()

    @contextmanager
    def charging(self) -> Iterator[None]:
        """One pooled connection for the charges of one request; then the cleanup, when it is
        due."""
        try:
            raw: Any = self.engine.raw_connection()
        except (DBAPIError, PoolTimeout, psycopg.Error) as exc:
            self.unreachable(exc)
            raw = None
        self._local.raw = raw
        try:
            yield
        finally:
            held, self._local.raw = self._local.raw, None
            if held is not None:
                try:
                    self._maybe_clean(held)
                finally:
                    held.close()

    def connection(self) -> psycopg.Connection[Any] | None:
        raw = getattr(self._local, "raw", None)
        return None if raw is None else raw.driver_connection

    def unreachable(self, exc: BaseException) -> None:
        """The database failed a charge: this request falls back to the in-process buckets."""
        raw = getattr(self._local, "raw", None)
        if raw is not None:
            raw.invalidate()
            raw.close()
            self._local.raw = None
        now = self.clock()
        if self._warned_at is None or now - self._warned_at >= WARN_SECONDS:
            self._warned_at = now
            log.warning(
                "rate limits: the database cannot be reached (%s); limiting per process "
                "until it is back",
                type(exc).__name__,
            )

    def reached(self) -> None:
        if self._warned_at is not None:
            self._warned_at = None
            log.warning("rate limits: the database is back; limits are shared again")

    def created(self) -> None:
        self._created += 1

    def _maybe_clean(self, raw: Any) -> None:
        due = self._created >= self.slack or self.clock() >= self._next_cleanup
        if not due or not self._cleaning.acquire(blocking=False):
            return
        try:
            self._created = 0
            self._next_cleanup = self.clock() + self.cleanup_seconds
            self.clean(raw.driver_connection)
        except psycopg.Error as exc:  # a deadlock with another process's cleanup, an outage
            log.warning("rate limits: cleanup failed (%s); retried later", type(exc).__name__)
            raw.invalidate()
        finally:
            self._cleaning.release()

    def clean(self, conn: psycopg.Connection[Any]) -> None:
        """Delete full buckets, then trim each kind to ``max_keys`` buckets."""
        for kind in self.kinds:
            conn.execute(DROP_FULL, {"kind": kind})
            conn.execute(TRIM, {"kind": kind, "max_keys": self.max_keys})

    def clean_now(self) -> None:
        """Run the cleanup at once on a connection of its own (tests, tools)."""
        raw: Any = self.engine.raw_connection()
        try:
            self.clean(raw.driver_connection)
        finally:
            raw.close()


class SharedBuckets:
    """One kind's buckets in ``rate_buckets``, with :class:`app.api.policy.TokenBuckets`'s
    ``take``: 0 if allowed, else seconds until a request would be. Used inside
    :meth:`SharedRateLimits.charging`."""

    def __init__(self, limits: SharedRateLimits, kind: str, local: LocalBuckets) -> None:
        self.limits = limits
        self.kind = kind
        self.local = local
        self.rate = local.rate
        self.burst = local.burst

    def take(self, key: str) -> float:
        conn = self.limits.connection()
        if conn is not None:
            stored = key if len(key) <= 128 else hashlib.sha256(key.encode()).hexdigest()
            params = {"kind": self.kind, "key": stored, "burst": float(self.burst)}
            params["rate"] = self.rate
            try:
                row = conn.execute(CHARGE, params, prepare=True).fetchone()
            except psycopg.Error as exc:
                self.limits.unreachable(exc)
            else:
                assert row is not None
                allowed, tokens, created = row
                self.limits.reached()
                if created:
                    self.limits.created()
                return 0.0 if allowed else (1.0 - tokens) / self.rate
        with self.limits._fallback:  # the in-process table is not thread-safe
            return self.local.take(key)
