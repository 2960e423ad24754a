"""What the sync and async live streams share: the reconnect policy, the request and what a
stream keeps across reconnections (:class:`StreamState`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from app.client.operations import Call, game_path
from app.client.sse import SseParser


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


CallFactory = Callable[[str | None], Call]
"""Builds the request that opens a stream, resuming after the given Last-Event-ID."""


def _sse(path: str, token: str | None, last_event_id: str | None, **headers: str) -> Call:
    headers["Accept"] = "text/event-stream"
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    return Call("GET", path, token, headers=headers)


def game_stream(game_id: str, token: str | None) -> CallFactory:
    """``GET /games/{id}/events/stream``: one game's events."""
    return lambda last: _sse(game_path(game_id, "/events/stream"), token, last)


def messages_stream(game_id: str, token: str | None) -> CallFactory:
    """``GET /games/{id}/messages/stream``: one game's table talk (``event: message``)."""
    return lambda last: _sse(game_path(game_id, "/messages/stream"), token, last)


def feed_stream(tokens: Sequence[str]) -> CallFactory:
    """``GET /events/stream``: the events of every game the tokens hold, interleaved."""
    first, more = tokens_headers(tokens)
    return lambda last: _sse("/events/stream", first, last, **more)


def tokens_headers(tokens: Sequence[str]) -> tuple[str | None, dict[str, str]]:
    """The first token (for Authorization) and ``Referee-Tokens`` with the others."""
    if not tokens:
        return None, {}
    rest = {"Referee-Tokens": ",".join(tokens[1:])} if len(tokens) > 1 else {}
    return tokens[0], rest


ClientT = TypeVar("ClientT")


class StreamState(Generic[ClientT]):
    """What a live stream (sync or async) keeps across reconnections: its client, how to open
    it again (``factory``, given the last event id), the policy, the SSE parser (the last
    event id, the server's retry hint) and how often it reconnected."""

    def __init__(
        self,
        client: ClientT,
        factory: CallFactory,
        last_event_id: str | None,
        policy: StreamPolicy,
    ) -> None:
        self.client = client
        self.factory = factory
        self.policy = policy
        self.parser = SseParser(last_event_id=last_event_id)
        self.reconnects = 0

    @property
    def last_event_id(self) -> str | None:
        return self.parser.last_event_id
