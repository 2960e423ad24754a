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
from typing import Protocol

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError

log = logging.getLogger("referee.ratelimit")

CLEANUP_SECONDS = 10.0
"""How often each process deletes full buckets (and trims a kind over its key cap)."""
WARN_SECONDS = 60.0
"""At most one warning this often while the database cannot be reached."""

_NOW = "EXTRACT(EPOCH FROM clock_timestamp())::float8"
_REFILLED = "LEAST(:burst, b.tokens + GREATEST(0.0, excluded.stamp - b.stamp) * :rate)"
_LEFT = f"CASE WHEN {_REFILLED} >= 1.0 THEN {_REFILLED} - 1.0 ELSE {_REFILLED} END"
CHARGE = text(
    "INSERT INTO rate_buckets AS b (kind, key, tokens, stamp, full_at, allowed) "
    f"SELECT :kind, :key, :burst - 1.0, t.now, t.now + 1.0 / :rate, true "
    f"FROM (SELECT {_NOW} AS now) AS t "
    "ON CONFLICT (kind, key) DO UPDATE SET "
    f"tokens = {_LEFT}, "
    "stamp = excluded.stamp, "
    f"full_at = excluded.stamp + (:burst - ({_LEFT})) / :rate, "
    f"allowed = {_REFILLED} >= 1.0 "
    "RETURNING b.allowed, b.tokens, (b.xmax = 0) AS created"
)
"""Charge one request to (kind, key): allowed, the requests left, whether the row is new."""
DROP_FULL = text(f"DELETE FROM rate_buckets WHERE kind = :kind AND full_at <= {_NOW}")
"""A bucket back to its burst is the same as no bucket (the row is re-checked if it moved)."""
TRIM = text(
    "DELETE FROM rate_buckets WHERE kind = :kind AND key IN ("
    "SELECT key FROM rate_buckets WHERE kind = :kind ORDER BY full_at DESC OFFSET :max_keys)"
)
"""Past ``max_keys`` buckets of a kind, drop those that are full soonest (never a drained one
while fuller ones remain)."""


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
        engine: Engine,
        max_keys: int,
        *,
        cleanup_seconds: float = CLEANUP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
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

    @contextmanager
    def charging(self) -> Iterator[None]:
        """One connection (autocommit: each charge is its own statement and transaction) for
        the charges of one request; then the cleanup, when it is due."""
        try:
            conn: Connection | None = self.engine.connect().execution_options(
                isolation_level="AUTOCOMMIT"
            )
        except DBAPIError as exc:
            self.unreachable(exc)
            conn = None
        self._local.conn = conn
        try:
            yield
        finally:
            self._local.conn = None
            if conn is not None:
                try:
                    self._maybe_clean(conn)
                finally:
                    conn.close()

    def connection(self) -> Connection | None:
        return getattr(self._local, "conn", None)

    def unreachable(self, exc: BaseException) -> None:
        """The database failed a charge: this request falls back to the in-process buckets."""
        conn = self.connection()
        if conn is not None:
            conn.invalidate()
            self._local.conn = None
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

    def _maybe_clean(self, conn: Connection) -> None:
        due = self._created >= self.slack or self.clock() >= self._next_cleanup
        if not due or not self._cleaning.acquire(blocking=False):
            return
        try:
            self._created = 0
            self._next_cleanup = self.clock() + self.cleanup_seconds
            self.clean(conn)
        except DBAPIError as exc:  # a deadlock with another process's cleanup, an outage
            log.warning("rate limits: cleanup failed (%s); retried later", type(exc).__name__)
        finally:
            self._cleaning.release()

    def clean(self, conn: Connection) -> None:
        """Delete full buckets, then trim each kind to ``max_keys`` buckets."""
        for kind in self.kinds:
            conn.execute(DROP_FULL, {"kind": kind})
            conn.execute(TRIM, {"kind": kind, "max_keys": self.max_keys})


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
            try:
                allowed, tokens, created = conn.execute(
                    CHARGE,
                    {
                        "kind": self.kind,
                        "key": stored,
                        "burst": float(self.burst),
                        "rate": self.rate,
                    },
                ).one()
            except DBAPIError as exc:
                self.limits.unreachable(exc)
            else:
                self.limits.reached()
                if created:
                    self.limits.created()
                return 0.0 if allowed else (1.0 - tokens) / self.rate
        with self.limits._fallback:  # the in-process table is not thread-safe
            return self.local.take(key)
