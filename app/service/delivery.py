"""The delivery worker: sends the outbox (``webhook_deliveries``) after commit -- webhooks,
and emails (channels ``email``, ``email_confirm``, ``email_invite``: :mod:`app.service.mailer`
makes each attempt; claims, leases, retries, back-off and the attempts log are this module's,
the same for every channel).

One :class:`DeliveryWorker` thread per server process. It wakes when this process commits an
event (an after-commit callback), when an attempt ends, and otherwise every ``poll`` seconds
(deliveries written by other processes, retries coming due). It claims due deliveries for
``lease`` seconds in a short write transaction (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so
several processes share the outbox without sending one twice while the lease holds) -- at most
as many as it has free senders -- and hands each to a bounded pool of ``concurrency`` sender
threads, which POST outside any transaction and record the attempt:

* a 2xx answer marks it ``delivered``;
* anything else (status, deadline passed, refused address, a URL that cannot be called, any
  error at all) is logged and retried after ``backoff * 2**(attempt-1)`` seconds (capped at
  ``backoff_max``), until ``max_attempts`` tries have failed: then ``failed``.

Each attempt has a deadline of ``timeout`` seconds from its start covering the connection, the
request and the response head: every socket operation gets at most what is left of it (a
receiver that answers one byte a second is cut off at the deadline, not after each byte). The
body of the answer is never read. A slow receiver occupies one sender for at most that long;
the other deliveries go on through the other senders.

A request carries ``Referee-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret,
"<t>." + body)>`` -- the receiver recomputes it over the raw body with its secret and compares
in constant time -- plus ``Referee-Webhook-Id``, ``Referee-Delivery-Id`` (stable across retries:
receivers de-duplicate on it) and ``Referee-Notification``.

Delivery is at least once: a process that dies after sending but before recording sends again
once the lease runs out.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import math
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import httpcore
import httpx

from app import __version__
from app.config import Settings
from app.db import notify as db_notify
from app.db.access import access
from app.db.uow import AbstractUnitOfWork
from app.service import mailer, receivers
from app.service.notify import with_links

log = logging.getLogger("referee.webhooks")

SIGNATURE_HEADER = "Referee-Signature"

_T = TypeVar("_T")


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``Referee-Signature`` value of ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret: str, header: str, body: bytes) -> bool:
    """What a receiver does: recompute the signature and compare in constant time."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    stamp = fields.get("t", "")
    if not stamp.isdigit():
        return False
    return hmac.compare_digest(sign(secret, int(stamp), body), header)


@dataclass(frozen=True)
class WorkerConfig:
    poll: float = 1.0
    timeout: float = 5.0
    max_attempts: int = 8
    backoff: float = 2.0
    backoff_max: float = 3600.0
    lease: float = 60.0
    concurrency: int = 8
    allow_private: bool = False
    public_url: str | None = None
    mail: mailer.MailConfig = field(default_factory=mailer.MailConfig)


def worker_config(settings: Settings) -> WorkerConfig:
    """The worker's configuration from the ``REFEREE_WEBHOOK_*`` settings."""
    return WorkerConfig(
        poll=settings.webhook_poll_seconds,
        timeout=settings.webhook_timeout_seconds,
        max_attempts=settings.webhook_max_attempts,
        backoff=settings.webhook_backoff_seconds,
        backoff_max=settings.webhook_backoff_max_seconds,
        concurrency=settings.webhook_concurrency,
        allow_private=settings.webhook_allow_private_addresses,
        public_url=settings.public_url,
        mail=mailer.mail_config(settings),
    )


class DeadlinePassed(httpcore.TimeoutException):
    """The attempt's deadline passed before the receiver answered."""


class _Deadline(threading.local):
    at: float = math.inf
    seconds: float = math.inf


_deadline = _Deadline()
"""The deadline (``time.monotonic``) of the attempt the current sender thread is making."""


def _passed() -> DeadlinePassed:
    return DeadlinePassed(f"no answer within the attempt's deadline ({_deadline.seconds:g} s)")


def _left(timeout: float | None) -> float:
    """What is left of the current attempt's deadline (at most ``timeout``)."""
    left = _deadline.at - time.monotonic()
    if left <= 0:
        raise _passed()
    return left if timeout is None else min(timeout, left)


def _bounded(operation: Callable[[float], _T], timeout: float | None) -> _T:
    """``operation(seconds)`` given at most what is left of the deadline; a timeout once the
    deadline has passed is reported as :class:`DeadlinePassed`."""
    try:
        return operation(_left(timeout))
    except httpcore.TimeoutException:
        if time.monotonic() >= _deadline.at:
            raise _passed() from None
        raise


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write gets at most what is left of the deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _bounded(lambda left: self._inner.read(max_bytes, left), timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        _bounded(lambda left: self._inner.write(buffer, left), timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(
            _bounded(
                lambda left: self._inner.start_tls(ssl_context, server_hostname, left), timeout
            )
        )

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """Plain sockets (httpcore's own backend) under the current attempt's deadline."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = _bounded(
            lambda left: self._inner.connect_tcp(host, port, left, local_address, socket_options),
            timeout,
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("webhooks are sent over TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def connection_pool(concurrency: int) -> httpcore.ConnectionPool:
    """The senders' HTTP/1.1 connections (kept alive between deliveries to a receiver)."""
    return httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(),
        max_connections=2 * concurrency,
        max_keepalive_connections=concurrency,
        keepalive_expiry=30.0,
        network_backend=_DeadlineBackend(),
    )


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


BACKSTOP_SECONDS = 60.0
"""The worker thread's own idle look while the event loop's task looks every ``poll``
seconds (see :class:`DeliveryWorker`)."""


class DeliveryWorker:
    """Sends due webhook deliveries in a background thread (start/stop with the app)."""

    def __init__(
        self,
        uow_factory: Callable[[], AbstractUnitOfWork],
        config: WorkerConfig,
        *,
        clock: Callable[[], float] = time.time,
        probe: Callable[[datetime], bool] | None = None,
        loop_probe: Callable[[datetime], bool] | None = None,
    ) -> None:
        """``probe(now)``: whether anything may be due, asked in the worker's thread before
        the claim's write transaction (``app.db.access.outbox_probe``; None: a unit of
        work's read). ``loop_probe(now)``: the same asked on the event loop
        (``app.db.access.loop_outbox_probe``, SQLite): when given and :meth:`start` runs on
        a loop, a task there asks it every ``poll`` seconds and wakes the thread only when
        something may be due, and the thread's own look comes every
        :data:`BACKSTOP_SECONDS` only."""
        self.uow_factory = uow_factory
        self.config = config
        self.clock = clock
        self.probe = probe
        self.loop_probe = loop_probe
        self._watch: asyncio.Task[None] | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def _on_commit(self) -> None:
        """Deliveries were committed in this process: send them now, not at the next poll
        (writes that stage none -- a game without webhooks -- never wake the worker)."""
        self._wake.set()

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        db_notify.add_outbox_listener(self._on_commit)
        if self.loop_probe is not None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # started outside a loop: the thread polls, as without one
                loop = None
            if loop is not None:
                self._watch = loop.create_task(self._watch_outbox(), name="outbox-watch")
        self._thread = threading.Thread(target=self._run, name="referee-webhooks", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        db_notify.remove_outbox_listener(self._on_commit)
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    async def _watch_outbox(self) -> None:
        """Every ``poll`` seconds, the idle check on the loop (``loop_probe``): the thread is
        woken when something may be due, or when the check failed (it then looks itself)."""
        probe = self.loop_probe
        assert probe is not None
        while True:
            await asyncio.sleep(self.config.poll)
            try:
                due = probe(self._now())
            except Exception:  # the thread's own look, through the pool, decides
                log.debug("the outbox's idle check on the loop failed", exc_info=True)
                due = True
            if due:
                self._wake.set()

    @property
    def idle_seconds(self) -> float:
        """How long the thread sleeps when nothing is due: ``poll``, or, while the loop's
        task looks every ``poll`` seconds, :data:`BACKSTOP_SECONDS` (should it have died)."""
        watch = self._watch
        if watch is None or watch.done():
            return self.config.poll
        return max(self.config.poll, BACKSTOP_SECONDS)

    def _run(self) -> None:
        senders = ThreadPoolExecutor(
            max_workers=self.config.concurrency, thread_name_prefix="referee-webhook-send"
        )
        pool = connection_pool(self.config.concurrency)
        in_flight: dict[str, Future[None]] = {}
        try:
            while not self._stop.is_set():
                self._wake.clear()  # a wake-up from here on is not lost
                for delivery_id in [d for d, f in in_flight.items() if f.done()]:
                    del in_flight[delivery_id]
                free = self.config.concurrency - len(in_flight)
                claimed: list[str] = []
                if free > 0:
                    try:
                        claimed = self._claim(free)
                    except Exception:  # the worker must outlive a database hiccup
                        log.exception("claiming webhook deliveries failed")
                for delivery_id in claimed:
                    if delivery_id in in_flight:
                        continue  # still being sent (its lease ran out first): not twice
                    future = senders.submit(self.attempt, pool, delivery_id)
                    future.add_done_callback(lambda _: self._wake.set())
                    in_flight[delivery_id] = future
                if len(claimed) < free or free == 0:  # nothing more due, or every sender busy
                    self._wake.wait(self.idle_seconds)
        finally:
            senders.shutdown(wait=True, cancel_futures=True)
            pool.close()

    # -- one delivery -----------------------------------------------------------------------

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    def _may_be_due(self, now: datetime) -> bool:
        """The cheap look before the claim's write transaction (most rounds find nothing):
        ``probe``, else a unit of work's read."""
        if self.probe is not None:
            return self.probe(now)
        uow = self.uow_factory()
        with uow.begin():
            return bool(access(uow).due(now, limit=1))

    def _claim(self, limit: int) -> list[str]:
        now = self._now()
        if not self._may_be_due(now):
            return []
        uow = self.uow_factory()
        with uow.begin(write=True):
            repo = access(uow)
            ids = [d.id for d in repo.due(now, limit=limit)]
            if ids:
                repo.claim(ids, now + timedelta(seconds=self.config.lease))
            uow.commit()
            return ids

    def attempt(self, pool: httpcore.ConnectionPool, delivery_id: str) -> None:
        """One attempt at a claimed delivery, recorded. Whatever goes wrong stays with this
        delivery: it is logged and recorded as a failed attempt (retried per the policy)."""
        final: str | None = None
        try:
            uow = self.uow_factory()
            with uow.begin():
                found = access(uow).delivery_target(delivery_id)
                if found is None:
                    return  # the webhook or subscription was deleted meanwhile
                delivery, hook, _ = found
                channel = delivery.channel
                if channel == "webhook" and hook is None:
                    return  # its webhook is gone (its rows go with it)
                if hook is not None:
                    url, secret = hook.url, hook.secret
                    payload = with_links(dict(delivery.payload), self.config.public_url)
                    hook_id, kind = hook.id, delivery.notification
            if channel == "webhook":
                status, error = self._post(pool, url, secret, hook_id, delivery_id, kind, payload)
            else:
                outcome = mailer.attempt(self.uow_factory, self.config.mail, delivery_id)
                if outcome.final == "gone":
                    return
                status, error, final = outcome.status, outcome.error, outcome.final
        except Exception as exc:
            log.exception("delivery %s failed unexpectedly", delivery_id)
            status, error = None, _error(exc)
        try:
            self._record(delivery_id, status, error, final)
        except Exception:  # its lease runs out and it is tried again
            log.exception("recording the attempt at delivery %s failed", delivery_id)

    def _post(
        self,
        pool: httpcore.ConnectionPool,
        url: str,
        secret: str,
        hook_id: str,
        delivery_id: str,
        kind: str,
        payload: dict[str, Any],
    ) -> tuple[int | None, str | None]:
        _deadline.at = time.monotonic() + self.config.timeout
        _deadline.seconds = self.config.timeout
        try:
            if self.config.allow_private:
                receivers.check_url(url)  # a stored URL the registration would refuse now
            else:
                refused = receivers.resolved_refusal(url)
                if refused is not None:
                    return None, refused
            target = httpx.URL(url)
            body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
            headers = {
                "Host": target.netloc.decode("ascii"),
                "Content-Type": "application/json",
                "User-Agent": f"referee-webhooks/{__version__}",
                "Referee-Webhook-Id": hook_id,
                "Referee-Delivery-Id": delivery_id,
                "Referee-Notification": kind,
                SIGNATURE_HEADER: sign(secret, int(self.clock()), body),
            }
            timeout = self.config.timeout
            with pool.stream(
                "POST",
                httpcore.URL(
                    scheme=target.raw_scheme,
                    host=target.raw_host,
                    port=target.port,
                    target=target.raw_path,
                ),
                headers=list(headers.items()),
                content=body,
                extensions={
                    "timeout": dict.fromkeys(("connect", "read", "write", "pool"), timeout)
                },
            ) as response:  # the status is all it takes: the body is never read
                status = response.status
        except receivers.BadURL as exc:
            return None, f"BadURL: {exc}"
        except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError) as exc:
            return None, _error(exc)
        finally:
            _deadline.at = math.inf
        if 200 <= status < 300:
            return status, None
        return status, f"HTTP {status}"

    def _record(
        self, delivery_id: str, status: int | None, error: str | None, final: str | None = None
    ) -> None:
        """Record an attempt: ``delivered`` on success, else retried after the back-off or
        ``failed`` after the last try; ``final`` (``skipped``, ``cancelled``) ends it unsent.
        An invitation's seat token is erased from the outbox once its delivery has ended."""
        now = self._now()
        uow = self.uow_factory()
        with uow.begin(write=True):
            row = access(uow).delivery(delivery_id)
            if row is None:
                return
            row.attempts += 1
            row.attempts_log = [
                *row.attempts_log,
                {"attempt": row.attempts, "at": now.isoformat(), "status": status, "error": error},
            ]
            row.locked_until = None
            if final is not None:
                row.status = final
            elif error is None:
                row.status = "delivered"
                row.delivered_at = now
            elif row.attempts >= self.config.max_attempts:
                row.status = "failed"
            else:
                delay = min(self.config.backoff * 2 ** (row.attempts - 1), self.config.backoff_max)
                row.next_attempt_at = now + timedelta(seconds=delay)
            if row.status != "pending" and row.channel == "email_invite":
                row.payload = {**row.payload, "token": None}
            uow.commit()
