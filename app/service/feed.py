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

from sqlalchemy.exc import DBAPIError

from app.db.access import access
from app.db.uow import AbstractUnitOfWork
from app.service.errors import INT4_MAX, FieldError, InvalidInput
from app.service.holdings import holdings
from app.service.results import EventView
from app.service.stream import DatabaseAway, StreamReader, views

FeedReaders = dict[str, StreamReader]
"""Holding key -> the reader of that game as that seat."""


def open_feed(uow: AbstractUnitOfWork, tokens: Sequence[str], *, limit: int) -> FeedReaders:
    """Who reads what: 401/422 before any byte is streamed."""
    with uow.begin():
        return {
            h.key: StreamReader(game_id=h.game.id, seat=h.seat, token_hash=h.token_hash)
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


def revoked(uow: AbstractUnitOfWork, readers: FeedReaders) -> list[str]:
    """Inside an open transaction: the holdings whose token no longer holds them (revoked,
    rotated or reissued), found for every holding at once (two index look-ups)."""
    hashes = {r.token_hash for r in readers.values() if r.token_hash}
    repo = access(uow)
    held: set[tuple[str, str | None, str]] = set()
    for seat, game, _ in repo.seats_by_hashes(hashes):
        held.add((game.id, seat.seat, seat.token_hash))
    for token, game, _ in repo.spectators_by_hashes(hashes):
        held.add((game.id, None, token.token_hash))
    return [
        key
        for key, r in readers.items()
        if r.token_hash is not None and (r.game_id, r.seat, r.token_hash) not in held
    ]


def read_feed(
    uow: AbstractUnitOfWork, readers: FeedReaders, cursor: Mapping[str, int], *, limit: int
) -> tuple[list[tuple[str, EventView]], list[str]]:
    """The next events of every holding after the cursor (at most ``limit`` per holding),
    and the holdings whose credential no longer holds (read nothing of them), in one short
    transaction; :class:`DatabaseAway` when the database cannot be read."""
    out: list[tuple[str, EventView]] = []
    try:
        with uow.begin():
            gone = revoked(uow, readers)
            for key, reader in readers.items():
                if key in gone:
                    continue
                for view in views(uow, reader, after=cursor[key], limit=limit):
                    out.append((key, view))
    except DBAPIError as exc:
        raise DatabaseAway(str(exc.orig or exc)) from exc
    return out, gone


def sse_feed_event(reader: StreamReader, view: EventView, cursor: str) -> str:
    """``id`` = the whole stream's cursor, ``event`` = kind, ``data`` = ``{"game", "seat",
    "event"}`` (``event`` is the same JSON as an item of the game's events list)."""
    data = json.dumps(
        {"game": reader.game_id, "seat": reader.seat, "event": view.model_dump(mode="json")},
        separators=(",", ":"),
    )
    return f"id: {cursor}\nevent: {view.kind}\ndata: {data}\n\n"
