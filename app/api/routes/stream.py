"""The live event stream: ``GET /games/{id}/events/stream`` as Server-Sent Events."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from anyio import to_thread
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from app.api.deps import BoardsDep, SeatDep, SettingsDep, UowDep
from app.api.problems import responses
from app.config import Settings
from app.db.uow import AbstractUnitOfWork
from app.match.clock import TimeSource
from app.service import stream as svc
from app.service.boards import BoardCache
from app.service.errors import INT4_MAX
from app.service.stream import EventHub, StreamReader

router = APIRouter(tags=["events"])

RETRY_MS = 1000
"""Sent as ``retry:``: how long an EventSource waits before reconnecting."""

SSE_HEADERS = {
    "Cache-Control": "no-cache, no-transform",
    "X-Accel-Buffering": "no",
    "Vary": "Authorization",
}
"""Headers of every live stream: never cached or buffered by proxies; per token."""

LISTEN_WAIT_SECONDS = 5.0
"""How long a new stream waits for the PostgreSQL LISTEN to be up before its first read."""

DB_RETRY_FIRST_SECONDS = 0.25
DB_RETRY_MAX_SECONDS = 5.0
"""While the database is away an open stream reads again after 0.25 s, doubling up to 5 s."""


@router.get(
    "/games/{game_id}/events/stream",
    summary="Stream the event log live (Server-Sent Events)",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "`text/event-stream`: one SSE event per log event -- `id` = seq, "
            "`event` = kind (`redacted` when hidden from this reader), `data` = the same JSON "
            "as an item of GET /games/{id}/events -- and `: keep-alive` comments when idle.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **responses(401, 404, 422, 503),
    },
)
async def stream_events(
    game_id: str,
    request: Request,
    uow: UowDep,
    token: SeatDep,
    settings: SettingsDep,
    boards: BoardsDep,
    after: Annotated[
        int | None,
        Query(ge=0, le=INT4_MAX, description="Start after this seq (Last-Event-ID wins)."),
    ] = None,
    access_token: Annotated[
        str | None,
        Query(
            description="A seat token, for clients that cannot send headers (EventSource). "
            "Prefer the Authorization header: URLs end up in logs."
        ),
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(alias="Last-Event-ID", description="Resume after this seq (sent on reconnect)."),
    ] = None,
) -> Any:
    """Every event of the game, from the cursor on, then live as they are committed (by any
    server process), each filtered for the reader like the events list. Resume with
    `Last-Event-ID` (or `?after=`): no gap, no duplicate. The game's clock is settled when
    the stream opens and on every keep-alive tick, so a `clock_expired` event reaches a
    listener within one keep-alive interval even if nobody else touches the game."""
    cursor = svc.parse_cursor(last_event_id, after)
    presented = token if token is not None else (access_token or None)
    clock: TimeSource = request.app.state.clock
    reader = await to_thread.run_sync(_open, uow, game_id, presented)
    await to_thread.run_sync(_settle, uow, game_id, clock, boards, True)
    hub: EventHub = request.app.state.events_hub

    def catch_up() -> tuple[list[str], bool]:
        nonlocal cursor
        batch = svc.read_batch(uow, reader, after=cursor)
        if batch:
            cursor = batch[-1].seq
        return [svc.sse_event(view) for view in batch], len(batch) == svc.BATCH

    return StreamingResponse(
        live(
            hub,
            [reader.game_id],
            catch_up,
            lambda: _settle(uow, reader.game_id, clock, boards, False),
            Pacing.of(settings),
        ),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


def _open(uow: AbstractUnitOfWork, game_id: str, token: str | None) -> StreamReader:
    return svc.open_stream(uow, game_id, token=token)


def _settle(
    uow: AbstractUnitOfWork, game_id: str, clock: TimeSource, boards: BoardCache, strict: bool
) -> None:
    svc.settle(uow, game_id, now=float(clock()), boards=boards, strict=strict)


@dataclass(frozen=True)
class Pacing:
    """How a live stream paces itself (``REFEREE_SSE_*`` settings)."""

    keepalive: float
    poll: float
    lifetime: float

    @classmethod
    def of(cls, settings: Settings) -> Pacing:
        return cls(
            settings.sse_keepalive_seconds, settings.sse_poll_seconds, settings.sse_max_seconds
        )


async def live(
    hub: EventHub,
    game_ids: list[str],
    catch_up: Callable[[], tuple[list[str], bool]],
    settle: Callable[[], None],
    pacing: Pacing,
    *,
    own_poll: bool = False,
) -> AsyncIterator[str]:
    """The SSE loop of every live stream (one game, or several): announce the stream open,
    then forever send what ``catch_up()`` (run in a worker thread; it returns the next wire
    events and whether more may be waiting) finds, sleep until a commit of one of
    ``game_ids`` wakes it, keep idle connections alive, settle clocks on keep-alive ticks and
    end after ``pacing.lifetime`` (the client resumes with Last-Event-ID).

    ``catch_up`` re-checks the stream's credential with every read: when it no longer holds
    (:class:`~app.service.stream.StreamRevoked`; a revocation wakes the stream like a commit)
    the stream sends ``event: revoked`` and ends. While the database is away
    (:class:`~app.service.stream.DatabaseAway`) the stream stays open, says so in a comment
    and reads again after a back-off, up to ``DB_RETRY_MAX_SECONDS`` apart.

    ``own_poll``: the stream reads what the shared poller does not watch (table talk changes
    no game version), so only LISTEN spares it its own re-read every ``pacing.poll``."""
    keepalive, poll = pacing.keepalive, pacing.poll
    with hub.subscribe_many(game_ids) as sub:
        # `stream open` means live: from here on, no commit by any process is missed
        await hub.ready(LISTEN_WAIT_SECONDS)
        yield svc.sse_retry(RETRY_MS) + svc.sse_comment("stream open")
        last_write = time.monotonic()
        end = last_write + pacing.lifetime
        away = 0.0
        while True:
            more = True
            try:
                while more:  # catch up, a batch at a time
                    texts, more = await to_thread.run_sync(catch_up)
                    for text in texts:
                        yield text
                        last_write = time.monotonic()
                away = 0.0
            except svc.StreamRevoked as revoked:
                yield svc.sse_revoked(revoked.reader)
                return
            except svc.DatabaseAway:
                # the cursor did not move: read again once the database is back
                away = min(DB_RETRY_MAX_SECONDS, away * 2 if away else DB_RETRY_FIRST_SECONDS)
                if time.monotonic() >= end:
                    yield svc.sse_comment("stream end: reconnect with Last-Event-ID")
                    return
                yield svc.sse_comment("database unavailable: retrying")
                last_write = time.monotonic()
                await sub.wait(away)
                continue
            # Notifications wake us at once; without them (SQLite across processes, or while
            # the LISTEN connection is down) the hub's one shared poller does; only a hub
            # with neither makes this stream re-read every `poll` seconds itself.
            now = time.monotonic()
            if now >= end:
                # bounded lifetime: the client reconnects with Last-Event-ID, losing nothing
                yield svc.sse_comment("stream end: reconnect with Last-Event-ID")
                return
            shared = hub.listening if own_poll else hub.shared_wakeups
            wait = keepalive if shared else min(poll, keepalive)
            wait = max(0.01, min(wait, keepalive - (now - last_write), end - now))
            await sub.wait(wait)
            if time.monotonic() - last_write >= keepalive:
                yield svc.sse_comment("keep-alive")
                last_write = time.monotonic()
                # a clock that ran out while nobody wrote: settle it now (short transactions;
                # its event wakes this stream like any other commit)
                await to_thread.run_sync(settle)
