"""The HTTP server: uvicorn with an httptools (or h11) protocol that times out slow clients.

uvicorn closes idle keep-alive connections by itself but never times out a client that sends
its request slowly, so idle, half-sent-head and half-sent-body connections would stay open for
ever and a flood of them exhausts the process's file descriptors. :class:`GuardedH11Protocol`
adds, per connection:

* a **head deadline** (``REFEREE_TIMEOUT_HEADERS_SECONDS``): from the connection's start, or
  from the first byte of a later request on a kept-alive connection, the whole request head
  must arrive in time; otherwise the server answers 408 problem+json and closes;
* a **body deadline** (``REFEREE_TIMEOUT_BODY_SECONDS``): from the end of the head, the whole
  body must arrive in time; otherwise the connection is closed (the application sees a
  disconnect and writes nothing);
* a **connection cap** (``REFEREE_MAX_CONNECTIONS``): past it, the oldest connection that has
  no request in progress is closed to make room; when every connection has one, the new one
  gets 503 problem+json and is closed -- so idle clients can never lock others out;
* **problem+json for malformed framing** (a bad or duplicate ``Content-Length``, chunked plus a
  length, a broken request line): 400 ``request.malformed`` instead of uvicorn's text/plain.

Idle keep-alive connections are closed after ``REFEREE_TIMEOUT_KEEP_ALIVE_SECONDS`` (uvicorn's
own timer). :class:`GuardedHttpToolsProtocol` does the same on uvicorn's httptools protocol
(llhttp), the default since session 11 (``REFEREE_HTTP_PROTOCOL``: ``httptools`` or ``h11``):
it costs less CPU a request. ``X-Forwarded-For`` is believed only from the proxies
``REFEREE_FORWARDED_ALLOW_IPS`` names (none by default): the client IP is otherwise the
socket peer. :func:`server_config` builds the uvicorn configuration ``referee serve`` (and
so the Docker image) runs with.
"""

from __future__ import annotations

import asyncio
import functools
import json
import resource
import time
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.api.problems import PROBLEM_MEDIA_TYPE, problem_body
from app.config import Settings


class _Guard:
    """What both guarded protocols share (see the module docstring): the settings, the
    deadline of the phase a request is in, the connection cap's eviction and the
    problem+json answer. Each protocol says where its parser is (``_idle``, ``_answerable``)
    and marks the phases from its own parser's callbacks."""

    head_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 1000
    problem_base: str = "https://referee.dev/problems/"

    # the protocol's own (uvicorn's H11Protocol / HttpToolsProtocol)
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    connections: set[Any]
    cycle: Any

    def _guard_opened(self) -> None:
        """A new connection: its clock and no deadline yet (before the protocol's own
        ``connection_made``)."""
        self._opened = time.monotonic()
        self._deadline: asyncio.TimerHandle | None = None
        self._phase: object = None

    def _guard_admitted(self, head: object) -> None:
        """Past the protocol's own ``connection_made``: the connection cap, then the head
        deadline (phase ``head``)."""
        if len(self.connections) > self.max_connections and not self._evict_idle():
            self._answer(503, "server.busy", "too many connections; retry shortly")
            return
        self._arm(head, self.head_timeout)

    def _arm(self, phase: object, timeout: float) -> None:
        if self._phase is phase and self._deadline is not None:
            return  # the deadline runs from the start of this phase
        self._disarm()
        self._phase = phase
        self._deadline = self.loop.call_later(timeout, self._expired, phase)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._phase = None

    def _expired(self, phase: object) -> None:
        raise NotImplementedError

    def _idle(self) -> bool:
        """No request in progress: nothing of one received, or the last one answered."""
        raise NotImplementedError

    def _evict_idle(self) -> bool:
        """Close the oldest other connection without a request in progress (True if any)."""
        idle = [
            c for c in self.connections if c is not self and isinstance(c, _Guard) and c._idle()
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c._opened)
        oldest._disarm()
        oldest.transport.close()
        return True

    def _answerable(self) -> bool:
        """Whether the parser's state still allows an answer of our own."""
        return not self.transport.is_closing()

    def _answer(self, status: int, code: str, detail: str) -> None:
        """A problem+json answer, then close (only if no response was started)."""
        self._disarm()
        cycle = self.cycle
        answering = cycle is not None and cycle.response_started and not cycle.response_complete
        if not answering and self._answerable():
            self.transport.write(_problem_bytes(status, code, detail, self.problem_base))
        self.transport.close()


class GuardedH11Protocol(_Guard, H11Protocol):
    """uvicorn's h11 protocol with head and body deadlines, a connection cap and problem+json
    answers to malformed framing (see the module docstring). Configured by subclassing
    through :func:`guarded_protocol`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._guard_opened()
        super().connection_made(transport)
        self._guard_admitted(h11.IDLE)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._track()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._track()

    def send_400_response(self, msg: str) -> None:
        self._answer(400, "request.malformed", f"malformed HTTP request: {msg}")

    def _track(self) -> None:
        """Arm the deadline that fits where the client is in its request: the body deadline
        while it sends a body, the head deadline while a head is incomplete (a fresh
        connection, or part of a later head buffered); none once a request is complete (the
        application has it) or between requests (uvicorn's keep-alive timer applies)."""
        if self.transport.is_closing():
            self._disarm()
            return
        theirs = self.conn.their_state
        if theirs is h11.SEND_BODY:
            self._arm(h11.SEND_BODY, self.body_timeout)
        elif theirs is h11.IDLE and (self.cycle is None or self.conn.trailing_data[0]):
            self._unset_keepalive_if_required()  # part of a head came: not idle any more
            self._arm(h11.IDLE, self.head_timeout)
        else:
            self._disarm()

    def _expired(self, phase: object) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state is not phase:
            return
        if phase is h11.IDLE and self.conn.our_state is h11.IDLE:
            self._answer(408, "request.timeout", "the request head did not arrive in time")
        else:
            self.transport.close()

    def _idle(self) -> bool:
        in_flight = self.cycle is not None and not self.cycle.response_complete
        return not in_flight and self.conn.their_state is h11.IDLE

    def _answerable(self) -> bool:
        return self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE)


_REASONS = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}
_HEAD = "head"
_BODY = "body"


class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):
    """uvicorn's httptools protocol with the same guard as :class:`GuardedH11Protocol`:
    head and body deadlines, the connection cap, problem+json for a request the parser
    refuses (llhttp, strict: a duplicate or malformed ``Content-Length``, one with
    ``Transfer-Encoding``, a broken request line). The parser's callbacks mark the phases: the
    head runs from the connection's start, or from the first byte of a later request
    (``on_message_begin``), to ``on_headers_complete``; the body from there to
    ``on_message_complete``. Half the CPU of h11 a request (docs/PERFORMANCE.md, session 11)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._guard_opened()
        self._in_message = False
        super().connection_made(transport)
        self._guard_admitted(_HEAD)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_message = True
        self._arm(_HEAD, self.head_timeout)  # kept if the connection's own is running

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        if self.transport.is_closing():
            self._disarm()
        else:
            self._arm(_BODY, self.body_timeout)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_message = False
        self._disarm()

    def send_400_response(self, msg: str) -> None:
        self._answer(400, "request.malformed", f"malformed HTTP request: {msg}")

    def handle_websocket_upgrade(self) -> None:
        self._disarm()  # the connection is the WebSocket protocol's from here
        super().handle_websocket_upgrade()

    def _expired(self, phase: object) -> None:
        self._deadline = None
        if self.transport.is_closing() or self._phase is not phase:
            return
        self._phase = None
        if phase is _HEAD:
            self._answer(408, "request.timeout", "the request head did not arrive in time")
        else:
            self.transport.close()

    def _idle(self) -> bool:
        in_flight = self.cycle is not None and not self.cycle.response_complete
        return not in_flight and not self._in_message


def _problem_bytes(status: int, code: str, detail: str, base: str) -> bytes:
    body = json.dumps(problem_body(status, code, detail, instance="", base=base)).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
        f"content-type: {PROBLEM_MEDIA_TYPE}\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    return head + body


def guarded_protocol(settings: Settings) -> type[GuardedH11Protocol | GuardedHttpToolsProtocol]:
    """The protocol class (``REFEREE_HTTP_PROTOCOL``) configured with ``settings``' timeouts
    and connection cap."""
    base: type[GuardedH11Protocol | GuardedHttpToolsProtocol] = (
        GuardedHttpToolsProtocol if settings.http_protocol == "httptools" else GuardedH11Protocol
    )
    return type(
        f"Configured{base.__name__}",
        (base,),
        {
            "head_timeout": settings.timeout_headers_seconds,
            "body_timeout": settings.timeout_body_seconds,
            "max_connections": settings.max_connections,
            "problem_base": settings.problem_base,
        },
    )


class SettingsH11Protocol(GuardedH11Protocol):
    """The guarded protocol configured from the environment's settings when a connection is
    made, for ``referee serve --workers N``: its worker processes receive the protocol by
    import path, so the class built by :func:`guarded_protocol` cannot reach them."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        configured = _settings_protocol()
        self.head_timeout = configured.head_timeout
        self.body_timeout = configured.body_timeout
        self.max_connections = configured.max_connections
        self.problem_base = configured.problem_base
        super().connection_made(transport)


class SettingsHttpToolsProtocol(GuardedHttpToolsProtocol):
    """:class:`SettingsH11Protocol` for the httptools protocol."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        configured = _settings_protocol()
        self.head_timeout = configured.head_timeout
        self.body_timeout = configured.body_timeout
        self.max_connections = configured.max_connections
        self.problem_base = configured.problem_base
        super().connection_made(transport)


def settings_protocol_path(settings: Settings) -> str:
    """The import path of the protocol ``referee serve --workers N`` gives its workers."""
    if settings.http_protocol == "httptools":
        return "app.server:SettingsHttpToolsProtocol"
    return "app.server:SettingsH11Protocol"


@functools.cache
def _settings_protocol() -> type[GuardedH11Protocol | GuardedHttpToolsProtocol]:
    from app.config import get_settings

    return guarded_protocol(get_settings())


def raise_file_limit(wanted: int) -> None:
    """Raise the soft open-files limit towards ``wanted`` (the hard limit caps it), so the
    connection cap, not the kernel, decides when connections are refused."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy-header options from ``REFEREE_FORWARDED_ALLOW_IPS``: proxy headers are
    read only when the setting names proxies, and only from those. uvicorn's own defaults
    (``proxy_headers`` on, ``forwarded_allow_ips`` 127.0.0.1 or ``$FORWARDED_ALLOW_IPS``) would
    let any local client pick the IP its per-IP rate limit is charged to."""
    allowed = list(settings.forwarded_allow_ips)
    return {"proxy_headers": bool(allowed), "forwarded_allow_ips": allowed}


def server_config(app: Any, settings: Settings, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app``: the guarded h11 protocol, the keep-alive timeout,
    proxy headers believed only from ``REFEREE_FORWARDED_ALLOW_IPS`` and a file limit with
    room for the connection cap plus the database and the process."""
    raise_file_limit(settings.max_connections + 256)
    options.setdefault("http", guarded_protocol(settings))
    for name, value in proxy_options(settings).items():
        options.setdefault(name, value)
    return uvicorn.Config(
        app,
        timeout_keep_alive=settings.timeout_keep_alive_seconds,  # type: ignore[arg-type]
        **options,
    )
