"""Request body limit: 413 problem+json on a declared Content-Length over the limit, and on a
streamed (chunked) body that grows past it. The body is read up front, so the application
never sees a partial body; a refused body is read to its end (up to :data:`DRAIN_BYTES`)
before the answer, so the answer is not lost to a connection reset."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body


class BodySizeLimitMiddleware:
    """Pure ASGI middleware enforcing ``max_bytes`` on every HTTP request body."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, problem_base: str) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.problem_base = problem_base

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared == -1:
            await self._reject(
                scope,
                send,
                400,
                "request.malformed",
                "invalid framing: a bad Content-Length, or Content-Length with Transfer-Encoding",
            )
            return
        if declared is not None and declared > self.max_bytes:
            if declared <= DRAIN_BYTES:
                await _drain(receive, 0)
            await self._too_large(scope, send)
            return

        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            total += len(body)
            if total > self.max_bytes:
                if message.get("more_body", False):
                    await _drain(receive, total)
                await self._too_large(scope, send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break

        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, send: Send) -> None:
        await self._reject(
            scope,
            send,
            413,
            "request.too_large",
            f"the request body is larger than {self.max_bytes} bytes",
            limit=self.max_bytes,
        )

    async def _reject(
        self, scope: Scope, send: Send, status: int, code: str, detail: str, **extra: Any
    ) -> None:
        body = problem_body(
            status,
            code,
            detail,
            instance=str(scope.get("path", "")),
            base=self.problem_base,
            **extra,
        )
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                    (b"content-length", str(len(payload)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


DRAIN_BYTES = 4 * 1024 * 1024
"""A body refused as too large is read (and dropped) up to this many bytes before the 413 is
sent, so the connection is closed with nothing unread. Closed with a body still unread, the
kernel resets the connection, and a reverse proxy still writing that body (Caddy, which sends
bodies it has read whole: docs/OPERATIONS.md) loses the 413 with it and answers 502. Larger
bodies are refused at once; the server's body timeout bounds a slow one."""


async def _drain(receive: Receive, total: int) -> None:
    """Read the rest of a request's body, dropping it, up to :data:`DRAIN_BYTES` in all."""
    while total <= DRAIN_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return
        total += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _content_length(scope: Scope) -> int | None:
    """The declared Content-Length; None if absent, -1 if malformed or sent together with
    Transfer-Encoding (ambiguous framing, the mark of request smuggling: RFC 9112 6.3)."""
    headers = scope.get("headers", [])
    if any(name == b"transfer-encoding" for name, _ in headers) and any(
        name == b"content-length" for name, _ in headers
    ):
        return -1
    for name, value in headers:
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                return -1
            return length if length >= 0 else -1
    return None
