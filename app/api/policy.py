"""API policy middleware: the version prefix and the rate limits.

* :class:`ApiVersionMiddleware` -- the API is versioned by path: ``/v1/...`` is version 1, and
  the unversioned paths are kept as aliases of the current version (so existing clients keep
  working). A request under ``/v1`` is served by the same route with the prefix stripped;
  a relative ``Location`` it answers gets the prefix back. Every answer carries
  ``Referee-API-Version: 1``. A path prefix (rather than a version header) works for plain
  links and ``EventSource`` (which cannot send headers), needs no CORS preflight, shows in
  access logs and is a natural cache key.
* :class:`RateLimitMiddleware` -- token buckets per bearer token and per client IP, in this
  process's memory, or on PostgreSQL shared by every process (``REFEREE_RATE_LIMIT_SHARED``,
  :mod:`app.db.ratelimit`: N processes then enforce one limit). Over the limit: 429
  ``rate_limited`` problem+json with ``Retry-After`` (whole seconds until a request would
  pass). ``/healthz`` is exempt. The IP is charged first; a request presenting more tokens
  than ``GET /games`` accepts is refused (422) before any is charged, and the bucket tables
  drop the bucket closest to full first, so junk keys cannot flush a drained bucket.
"""

from __future__ import annotations

import heapq
import json
import math
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body
from app.service.holdings import too_many_tokens
from app.service.tokens import hash_token

API_VERSION = "1"
PREFIX = "/v1"
VERSION_HEADER = b"referee-api-version"
VERSION_PAIR = (VERSION_HEADER, API_VERSION.encode())
PREFIX_BYTES = PREFIX.encode()
EXEMPT = frozenset({"/healthz"})
MAX_BUCKETS = 100_000
"""Buckets kept per kind by default (``REFEREE_RATE_LIMIT_MAX_KEYS``): bounds memory."""
TOO_MANY_TOKENS = "too many tokens"
"""What :meth:`RateLimitMiddleware._charge` answers for a request over the token cap."""

if TYPE_CHECKING:
    from app.db.ratelimit import SharedRateLimits


class Buckets(Protocol):
    """Token buckets of one kind: :class:`TokenBuckets` (in-process) or
    :class:`app.db.ratelimit.SharedBuckets` (in the database, shared by every process)."""

    def take(self, key: str) -> float:
        """Spend one request for ``key``: 0 if allowed, else seconds until one would be."""
        ...


class ApiVersionMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        versioned = path == PREFIX or path.startswith(PREFIX + "/")
        if versioned:
            scope = unversioned(scope)

        async def tagged(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": tag_headers(message.get("headers", []), versioned)}
            await send(message)

        await self.app(scope, receive, tagged)


def unversioned(scope: Scope) -> Scope:
    """A copy of the scope of a request under ``/v1`` with the prefix stripped."""
    scope = dict(scope)
    scope["path"] = scope["path"][len(PREFIX) :] or "/"
    raw = scope.get("raw_path")
    if isinstance(raw, bytes) and raw.startswith(PREFIX.encode()):
        scope["raw_path"] = raw[len(PREFIX) :] or b"/"
    return scope


def tag_headers(headers: Any, versioned: bool) -> list[tuple[bytes, bytes]]:
    """An answer's headers as :class:`ApiVersionMiddleware` sends them: a relative
    ``Location`` given the prefix back when the request was ``versioned``, and
    ``Referee-API-Version`` last (also used by :mod:`app.api.fast`)."""
    out = [
        (k, PREFIX_BYTES + v if versioned and k == b"location" and v[:1] == b"/" else v)
        for k, v in headers
    ]
    out.append(VERSION_PAIR)
    return out


@dataclass
class Bucket:
    tokens: float
    stamp: float
    full_at: float
    """When the bucket is back to ``burst`` if the key sends nothing more."""


class TokenBuckets:
    """``rate`` requests per second with bursts of ``burst``, per key; at most ``max_keys``
    buckets.

    When the table is full, a new key displaces the bucket that refills soonest: a bucket
    refilled to ``burst`` is the same as no bucket, so dropping one costs nothing, and when
    none is full the one closest to full goes. A drained bucket is therefore the last to go:
    to push it out, a client would have to drain ``max_keys`` other buckets at least as
    deeply -- a flood of fresh junk keys (each charged once) cannot reset a limited key.
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        clock: Callable[[], float],
        max_keys: int = MAX_BUCKETS,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.max_keys = max_keys
        self.buckets: dict[str, Bucket] = {}
        self._by_full_at: list[tuple[float, str]] = []
        """A heap of (full_at, key); entries whose bucket changed since are skipped."""

    def take(self, key: str) -> float:
        """Spend one request for ``key``: 0 if allowed, else seconds until one would be."""
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            while len(self.buckets) >= self.max_keys:
                self._evict()
            bucket = Bucket(float(self.burst), now, now)
            self.buckets[key] = bucket
        else:
            elapsed = max(0.0, now - bucket.stamp)
            bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.rate)
            bucket.stamp = now
        wait = 0.0
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
        else:
            wait = (1.0 - bucket.tokens) / self.rate
        bucket.full_at = now + (self.burst - bucket.tokens) / self.rate
        heapq.heappush(self._by_full_at, (bucket.full_at, key))
        if len(self._by_full_at) > 2 * len(self.buckets) + 64:
            self._by_full_at = [(b.full_at, k) for k, b in self.buckets.items()]
            heapq.heapify(self._by_full_at)
        return wait

    def _evict(self) -> None:
        """Drop the bucket that is (or will be) full soonest."""
        while self._by_full_at:
            full_at, key = heapq.heappop(self._by_full_at)
            bucket = self.buckets.get(key)
            if bucket is not None and bucket.full_at == full_at:
                del self.buckets[key]
                return
        self.buckets.clear()  # unreachable: every bucket has a current heap entry


def _tokens(scope: Scope) -> list[str]:
    """Every bearer token of a request: Authorization, Referee-Tokens, ?access_token=."""
    out: list[str] = []
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and credentials.strip():
                out.append(credentials.strip())
        elif name == b"referee-tokens":
            out += [t.strip() for t in value.decode("latin-1").split(",") if t.strip()]
    query = scope.get("query_string", b"").decode("latin-1")
    out += [v for k, v in parse_qsl(query) if k == "access_token" and v]
    return out


class RateLimitMiddleware:
    """The per-IP bucket is charged first, so a flood from one address is stopped before any
    of its tokens is looked at; then each distinct token the request presents (at most
    ``max_tokens``, the limit ``GET /games`` applies: more is refused with the same 422
    ``auth.too_many_tokens``, before any is charged).

    With ``shared`` (:class:`app.db.ratelimit.SharedRateLimits`, PostgreSQL) the buckets are
    rows every process charges atomically, so N processes enforce one limit; the charges then
    run in a worker thread (they wait for the database), on one connection per request, and
    the in-process buckets are what a charge falls back to while the database is away. The
    order of charges, the token cap and the answers are the same either way
    (:meth:`_charge`)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        per_token: float,
        token_burst: int,
        per_ip: float,
        ip_burst: int,
        problem_base: str,
        max_tokens: int = 100,
        max_keys: int = MAX_BUCKETS,
        clock: Callable[[], float] = time.monotonic,
        shared: SharedRateLimits | None = None,
    ) -> None:
        self.app = app
        self.problem_base = problem_base
        self.max_tokens = max_tokens
        self.by_token: Buckets | None = (
            TokenBuckets(per_token, token_burst, clock, max_keys) if per_token > 0 else None
        )
        self.by_ip: Buckets | None = (
            TokenBuckets(per_ip, ip_burst, clock, max_keys) if per_ip > 0 else None
        )
        self.charging: Callable[[], AbstractContextManager[None]] = nullcontext
        self.shared = shared
        if shared is not None:
            if self.by_ip is not None:
                self.by_ip = shared.buckets("ip", self.by_ip)
            if self.by_token is not None:
                self.by_token = shared.buckets("token", self.by_token)
            self.charging = shared.charging

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in EXEMPT:
            await self.app(scope, receive, send)
            return
        if await self.refused(scope, send):
            return
        await self.app(scope, receive, send)

    async def refused(self, scope: Scope, send: Send) -> bool:
        """Charge the request and answer it if it is refused (429, or 422 for too many
        tokens): True when answered. (Also called by :mod:`app.api.fast` for the requests it
        serves, which never reach this middleware.)"""
        # the peer as the server reports it: the socket's, or the one a trusted proxy
        # named (REFEREE_FORWARDED_ALLOW_IPS; app/server.py proxy_options)
        client = scope.get("client")
        ip = client[0] if client else "-"
        tokens = list(dict.fromkeys(_tokens(scope))) if self.by_token is not None else []
        if self.shared is not None:
            wait, which = await run_in_threadpool(self._charge, ip, tokens)
        else:
            wait, which = self._charge(ip, tokens)
        if which == TOO_MANY_TOKENS:
            refusal = too_many_tokens(self.max_tokens)
            await self._answer(
                scope,
                send,
                problem_body(
                    422,
                    refusal.code,
                    refusal.detail,
                    instance=str(scope.get("path", "")),
                    base=self.problem_base,
                    errors=[e.as_json() for e in refusal.errors],
                ),
            )
            return True
        if wait > 0:
            await self._too_many(scope, send, which, max(1, math.ceil(wait)))
            return True
        return False

    def _charge(self, ip: str, tokens: list[str]) -> tuple[float, str]:
        """Charge the request: the IP first, then (if it passed) each token in turn until one
        is refused. (seconds to wait, which bucket refused); ``TOO_MANY_TOKENS`` when the
        request presents more than ``max_tokens`` tokens (none of them charged)."""
        wait, which = 0.0, ""
        with self.charging():
            if self.by_ip is not None:
                wait, which = self.by_ip.take(ip), "IP address"
            if wait == 0.0 and self.by_token is not None:
                if len(tokens) > self.max_tokens:
                    return 0.0, TOO_MANY_TOKENS
                for token in tokens:
                    key = hash_token(token)
                    wait, which = self.by_token.take(key), "token"
                    if wait > 0:
                        break
        return wait, which

    async def _too_many(self, scope: Scope, send: Send, which: str, retry: int) -> None:
        body: dict[str, Any] = problem_body(
            429,
            "rate_limited",
            f"too many requests for this {which}; retry in {retry} s",
            instance=str(scope.get("path", "")),
            base=self.problem_base,
            title="Too many requests",
            limit=which,
            retry_after=retry,
        )
        await self._answer(scope, send, body, [(b"retry-after", str(retry).encode())])

    async def _answer(
        self,
        scope: Scope,
        send: Send,
        body: dict[str, Any],
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": body["status"],
                "headers": [
                    (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                    (b"content-length", str(len(payload)).encode()),
                    *(headers or []),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
