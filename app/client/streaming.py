"""What the sync and async live streams share: the reconnect policy and the request."""

from __future__ import annotations

from dataclasses import dataclass

from app.client.operations import Call, game_path


@dataclass(frozen=True)
class StreamPolicy:
    """How a live stream survives drops.

    ``reconnect``: reconnect (with Last-Event-ID) when the connection drops or the server
    ends the stream (it does after ``REFEREE_SSE_MAX_SECONDS``). ``max_failures``: give up
    (re-raise the transport error) after this many failed connections in a row; None: never.
    ``read_timeout``: a connection silent this long is dropped and resumed (the server sends
    a keep-alive every ``REFEREE_SSE_KEEPALIVE_SECONDS``, 15 by default). Between attempts the
    stream waits the server's ``retry:`` delay (or ``min_delay``), doubled per failure up to
    ``max_delay``."""

    reconnect: bool = True
    max_failures: int | None = None
    read_timeout: float = 60.0
    min_delay: float = 0.1
    max_delay: float = 30.0

    def may_retry(self, failures: int) -> bool:
        return self.reconnect and (self.max_failures is None or failures < self.max_failures)

    def delay(self, retry_ms: int | None, failures: int) -> float:
        base = max(self.min_delay, (retry_ms or 0) / 1000)
        return float(min(self.max_delay, base * (2 ** max(0, failures - 1))))


def stream_call(game_id: str, token: str | None, last_event_id: str | None) -> Call:
    """The request that opens (or resumes after ``last_event_id``) a game's event stream."""
    headers = {"Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    return Call("GET", game_path(game_id, "/events/stream"), token, headers=headers)
