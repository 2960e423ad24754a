"""A small Server-Sent Events client for tests: reads a stream in a thread, parses it as an
EventSource would, and lets the test wait (bounded in time) for what it expects."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass(frozen=True)
class SseEvent:
    id: str | None
    event: str
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


@dataclass
class SseStream:
    """``with SseStream(base_url, path, headers=...) as s: s.next_event(5)``."""

    base_url: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    raw: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    error: BaseException | None = None
    body: str = ""

    def __post_init__(self) -> None:
        self._events: queue.Queue[SseEvent] = queue.Queue()
        self._opened = threading.Event()
        self._stop = threading.Event()
        self._response: httpx.Response | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SseStream:
        self._thread.start()
        if not self._opened.wait(20):
            raise AssertionError(f"GET {self.path}: no response headers within 20 s")
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        try:
            with (
                httpx.Client(base_url=self.base_url, timeout=httpx.Timeout(60, connect=10)) as c,
                c.stream("GET", self.path, headers=self.headers, params=self.params) as r,
            ):
                self._response = r
                self.status = r.status_code
                self.response_headers = dict(r.headers)
                if r.status_code != 200:
                    self.body = r.read().decode()
                    self._opened.set()
                    return
                self._opened.set()
                self._parse(r)
        except BaseException as exc:  # reported by the waiting test, never swallowed
            if not self._stop.is_set():
                self.error = exc
        finally:
            self._opened.set()

    def _parse(self, r: httpx.Response) -> None:
        event_id: str | None = None
        kind = "message"
        data: list[str] = []
        for line in r.iter_lines():
            if self._stop.is_set():
                return
            self.raw.append(line)
            if line == "":
                if data:
                    self._events.put(SseEvent(event_id, kind, "\n".join(data)))
                kind, data = "message", []
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "id":
                event_id = value
            elif name == "event":
                kind = value
            elif name == "data":
                data.append(value)

    def next_event(self, timeout: float) -> SseEvent:
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no event on {self.path} within {timeout} s (error: {self.error!r}; "
                f"last lines: {self.raw[-5:]})"
            ) from None

    def events(self, count: int, timeout: float) -> list[SseEvent]:
        """Exactly the next ``count`` events, all within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        out = []
        for _ in range(count):
            out.append(self.next_event(max(0.01, deadline - time.monotonic())))
        return out

    def quiet(self, seconds: float) -> bool:
        """True if no event arrives for ``seconds``."""
        try:
            event = self._events.get(timeout=seconds)
        except queue.Empty:
            return True
        self._events.put(event)
        return False

    def wait_comment(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.comments:
                return
            time.sleep(0.02)
        raise AssertionError(f"no `: {text}` comment within {timeout} s: {self.comments}")

    def wait_closed(self, timeout: float) -> None:
        """Wait for the server to end the stream."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise AssertionError(f"{self.path} still open after {timeout} s: {self.raw[-3:]}")

    def close(self) -> None:
        self._stop.set()
        response = self._response
        if response is not None:
            # shutdown() wakes the reader thread blocked in recv(); close() alone may not
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=10)
        if self._thread.is_alive():
            raise AssertionError(f"the reader of {self.path} did not stop")
