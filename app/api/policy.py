"""API policy middleware: the version prefix and per-process rate limits.

* :class:`ApiVersionMiddleware` -- the API is versioned by path: ``/v1/...`` is version 1, and
  the unversioned paths are kept as aliases of the current version (so existing clients keep
  working). A request under ``/v1`` is served by the same route with the prefix stripped;
  a relative ``Location`` it answers gets the prefix back. Every answer carries
  ``Referee-API-Version: 1``. A path prefix (rather than a version header) works for plain
  links and ``EventSource`` (which cannot send headers), needs no CORS preflight, shows in
  access logs and is a natural cache key.
* :class:`RateLimitMiddleware` -- token buckets per bearer token and per client IP, in this
  process's memory (several processes each allow the full rate). Over the limit: 429
  ``rate_limited`` problem+json with ``Retry-After`` (whole seconds until a request would
  pass). ``/healthz`` is exempt.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body

API_VERSION = "1"
PREFIX = "/v1"
VERSION_HEADER = b"referee-api-version"
EXEMPT = frozenset({"/healthz"})
MAX_BUCKETS = 100_000
"""Buckets kept per kind (least recently used dropped first): bounds memory."""


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
            scope = dict(scope)
            scope["path"] = path[len(PREFIX) :] or "/"
            raw = scope.get("raw_path")
            if isinstance(raw, bytes) and raw.startswith(PREFIX.encode()):
                scope["raw_path"] = raw[len(PREFIX) :] or b"/"

        async def tagged(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (
                        k,
                        PREFIX.encode() + v
                        if versioned and k == b"location" and v[:1] == b"/"
                        else v,
                    )
                    for k, v in message.get("headers", [])
                ]
                headers.append((VERSION_HEADER, API_VERSION.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, tagged)


@dataclass
class Bucket:
    tokens: float
    stamp: float


class TokenBuckets:
    """``rate`` requests per second with bursts of ``burst``, per key (LRU-bounded)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, key: str) -> float:
        """Spend one request for ``key``: 0 if allowed, else seconds until one would be."""
        now = self.clock()
        bucket = self.buckets.pop(key, None) or Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        self.buckets[key] = bucket
        if len(self.buckets) > MAX_BUCKETS:
            self.buckets.popitem(last=False)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate


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
    def __init__(
        self,
        app: ASGIApp,
        *,
        per_token: float,
        token_burst: int,
        per_ip: float,
        ip_burst: int,
        problem_base: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.problem_base = problem_base
        self.by_token = TokenBuckets(per_token, token_burst, clock) if per_token > 0 else None
        self.by_ip = TokenBuckets(per_ip, ip_burst, clock) if per_ip > 0 else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in EXEMPT:
            await self.app(scope, receive, send)
            return
        wait, which = 0.0, ""
        if self.by_ip is not None:
            client = scope.get("client")
            wait, which = self.by_ip.take(client[0] if client else "-"), "IP address"
        if wait == 0.0 and self.by_token is not None:
            for token in dict.fromkeys(_tokens(scope)):
                key = hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
                wait, which = self.by_token.take(key), "token"
                if wait > 0:
                    break
        if wait > 0:
            await self._too_many(scope, send, which, max(1, math.ceil(wait)))
            return
        await self.app(scope, receive, send)

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
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                    (b"content-length", str(len(payload)).encode()),
                    (b"retry-after", str(retry).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
