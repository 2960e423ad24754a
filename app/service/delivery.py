"""The webhook delivery worker: sends the outbox (``webhook_deliveries``) after commit.

One :class:`DeliveryWorker` thread per server process. It wakes when this process commits an
event (an after-commit callback) and otherwise every ``poll`` seconds (deliveries written by
other processes, retries coming due). Each round it claims due deliveries for ``lease``
seconds in a short write transaction (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so several
processes share the outbox without sending one twice while the lease holds), then POSTs each
outside any transaction and records the attempt:

* a 2xx answer marks it ``delivered``;
* anything else (status, timeout, refused address) is logged and retried after
  ``backoff * 2**(attempt-1)`` seconds (capped at ``backoff_max``), until ``max_attempts``
  tries have failed: then ``failed``.

A request carries ``Referee-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret,
"<t>." + body)>`` -- the receiver recomputes it over the raw body with its secret and compares
in constant time -- plus ``Referee-Webhook-Id``, ``Referee-Delivery-Id`` (stable across retries:
receivers de-duplicate on it) and ``Referee-Notification``.

Delivery is at least once: a process that dies after sending but before recording sends again
once the lease runs out.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx

from app import __version__
from app.config import Settings
from app.db import notify as db_notify
from app.db.access import access
from app.db.uow import AbstractUnitOfWork
from app.service.notify import with_links

log = logging.getLogger("referee.webhooks")

SIGNATURE_HEADER = "Referee-Signature"


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
    batch: int = 20
    allow_private: bool = False
    public_url: str | None = None


def worker_config(settings: Settings) -> WorkerConfig:
    """The worker's configuration from the ``REFEREE_WEBHOOK_*`` settings."""
    return WorkerConfig(
        poll=settings.webhook_poll_seconds,
        timeout=settings.webhook_timeout_seconds,
        max_attempts=settings.webhook_max_attempts,
        backoff=settings.webhook_backoff_seconds,
        backoff_max=settings.webhook_backoff_max_seconds,
        allow_private=settings.webhook_allow_private_addresses,
        public_url=settings.public_url,
    )


def _address_allowed(url: str) -> str | None:
    """None when every address ``url``'s host resolves to is global; else why not."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        infos = socket.getaddrinfo(host, parts.port or 443, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        return f"cannot resolve {host}: {exc}"
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            return f"{host} resolves to a non-public address ({address})"
    return None


class DeliveryWorker:
    """Sends due webhook deliveries in a background thread (start/stop with the app)."""

    def __init__(
        self,
        uow_factory: Callable[[], AbstractUnitOfWork],
        config: WorkerConfig,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.uow_factory = uow_factory
        self.config = config
        self.clock = clock
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
        self._thread = threading.Thread(target=self._run, name="referee-webhooks", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        db_notify.remove_outbox_listener(self._on_commit)
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        with httpx.Client(timeout=self.config.timeout, follow_redirects=False) as http:
            while not self._stop.is_set():
                try:
                    sent = self.run_once(http)
                except Exception:  # the worker must outlive a database hiccup
                    log.exception("webhook delivery round failed")
                    sent = 0
                if sent == 0:
                    self._wake.wait(self.config.poll)
                    self._wake.clear()

    # -- one round --------------------------------------------------------------------------

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    def _claim(self) -> list[str]:
        now = self._now()
        uow = self.uow_factory()
        with uow.begin():  # cheap read first: most rounds find nothing
            if not access(uow).due(now, limit=1):
                return []
        with uow.begin(write=True):
            repo = access(uow)
            ids = [d.id for d in repo.due(now, limit=self.config.batch)]
            if ids:
                repo.claim(ids, now + timedelta(seconds=self.config.lease))
            uow.commit()
            return ids

    def run_once(self, http: httpx.Client) -> int:
        """Claim and send the due deliveries; how many were attempted."""
        ids = self._claim()
        for delivery_id in ids:
            self._send(http, delivery_id)
        return len(ids)

    def _send(self, http: httpx.Client, delivery_id: str) -> None:
        uow = self.uow_factory()
        with uow.begin():
            found = access(uow).delivery_with_hook(delivery_id)
            if found is None:
                return  # the webhook was deleted meanwhile
            delivery, hook = found
            url, secret = hook.url, hook.secret
            payload = with_links(dict(delivery.payload), self.config.public_url)
            hook_id, kind = hook.id, delivery.notification
        status, error = self._post(http, url, secret, hook_id, delivery_id, kind, payload)
        self._record(delivery_id, status, error)

    def _post(
        self,
        http: httpx.Client,
        url: str,
        secret: str,
        hook_id: str,
        delivery_id: str,
        kind: str,
        payload: dict[str, Any],
    ) -> tuple[int | None, str | None]:
        if not self.config.allow_private:
            refused = _address_allowed(url)
            if refused is not None:
                return None, refused
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": f"referee-webhooks/{__version__}",
            "Referee-Webhook-Id": hook_id,
            "Referee-Delivery-Id": delivery_id,
            "Referee-Notification": kind,
            SIGNATURE_HEADER: sign(secret, int(self.clock()), body),
        }
        try:
            response = http.post(url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            return None, f"{type(exc).__name__}: {exc}"[:500]
        if 200 <= response.status_code < 300:
            return response.status_code, None
        return response.status_code, f"HTTP {response.status_code}"

    def _record(self, delivery_id: str, status: int | None, error: str | None) -> None:
        now = self._now()
        uow = self.uow_factory()
        with uow.begin(write=True):
            found = access(uow).delivery_with_hook(delivery_id)
            if found is None:
                return
            row = found[0]
            row.attempts += 1
            row.attempts_log = [
                *row.attempts_log,
                {"attempt": row.attempts, "at": now.isoformat(), "status": status, "error": error},
            ]
            row.locked_until = None
            if error is None:
                row.status = "delivered"
                row.delivered_at = now
            elif row.attempts >= self.config.max_attempts:
                row.status = "failed"
            else:
                delay = min(self.config.backoff * 2 ** (row.attempts - 1), self.config.backoff_max)
                row.next_attempt_at = now + timedelta(seconds=delay)
            uow.commit()
