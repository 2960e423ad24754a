"""One event stream across every game a set of tokens holds (``GET /events/stream``).

Each holding (game and seat, see :mod:`app.service.holdings`) is read exactly as its own
``GET /games/{id}/events/stream`` would be -- the same per-reader filter, hidden events
redacted -- and interleaved as they come. The SSE ``id`` of each event is the cursor of the
whole stream: ``<game id>/<seat>=<seq>`` for every holding, comma-separated (``-`` is a
spectator's seat). An EventSource sends the last one back as ``Last-Event-ID`` when it
reconnects, and the stream resumes every game where it stopped: no gap, no duplicate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from app.db.uow import AbstractUnitOfWork
from app.service.errors import INT4_MAX, FieldError, InvalidInput
from app.service.holdings import holdings
from app.service.results import EventView
from app.service.stream import StreamReader, read_batch

FeedReaders = dict[str, StreamReader]
"""Holding key -> the reader of that game as that seat."""


def open_feed(uow: AbstractUnitOfWork, tokens: Sequence[str], *, limit: int) -> FeedReaders:
    """Who reads what: 401/422 before any byte is streamed."""
    with uow.begin():
        return {
            h.key: StreamReader(game_id=h.game.id, seat=h.seat)
            for h in holdings(uow, tokens, limit=limit)
        }


def _bad_cursor(message: str) -> InvalidInput:
    return InvalidInput(
        f"invalid stream cursor: {message}",
        [FieldError("/Last-Event-ID", message, "value_error", "header")],
        code="stream.invalid_cursor",
    )


def parse_cursor(value: str | None, readers: FeedReaders) -> dict[str, int]:
    """Sequence number reached per holding (0 = from the start). Holdings the cursor does not
    name start from the beginning; names of holdings not presented now are ignored."""
    cursor = dict.fromkeys(readers, 0)
    if value is None or not value.strip():
        return cursor
    for part in value.strip().split(","):
        key, sep, seq = part.strip().rpartition("=")
        if not sep or not key or not (seq.isascii() and seq.isdigit()) or len(seq) > 10:
            raise _bad_cursor(f"expected `<game>/<seat>=<seq>,…`, got {part[:80]!r}")
        if int(seq) > INT4_MAX:
            raise _bad_cursor(f"sequence number out of range in {part[:80]!r}")
        if key in cursor:
            cursor[key] = int(seq)
    return cursor


def format_cursor(cursor: Mapping[str, int]) -> str:
    return ",".join(f"{key}={seq}" for key, seq in sorted(cursor.items()))


def read_feed(
    uow: AbstractUnitOfWork, readers: FeedReaders, cursor: Mapping[str, int], *, limit: int
) -> list[tuple[str, EventView]]:
    """The next events of every holding after the cursor (at most ``limit`` per holding)."""
    out: list[tuple[str, EventView]] = []
    for key, reader in readers.items():
        for view in read_batch(uow, reader, after=cursor[key], limit=limit):
            out.append((key, view))
    return out


def sse_feed_event(reader: StreamReader, view: EventView, cursor: str) -> str:
    """``id`` = the whole stream's cursor, ``event`` = kind, ``data`` = ``{"game", "seat",
    "event"}`` (``event`` is the same JSON as an item of the game's events list)."""
    data = json.dumps(
        {"game": reader.game_id, "seat": reader.seat, "event": view.model_dump(mode="json")},
        separators=(",", ":"),
    )
    return f"id: {cursor}\nevent: {view.kind}\ndata: {data}\n\n"
