"""Reading the event log: pages of events and single events, as the reader's seat may see them.

Hidden events are redacted, never dropped, so sequence numbers stay gap-free for every
reader (see :class:`app.service.results.EventView`); the live stream (``stream``) and the
match-flow commands (``flow``) read the log through :func:`event_view` and :func:`all_events`.
"""

from __future__ import annotations

from app.db.models import EventRow
from app.db.uow import AbstractUnitOfWork
from app.rules.ruling import Ruling
from app.service import match as mt
from app.service.errors import EventNotFound
from app.service.pipeline import aware_utc, find_game, reader_seat
from app.service.results import EventPage, EventView


def all_events(uow: AbstractUnitOfWork, game_id: str) -> list[EventRow]:
    """Inside an open transaction: every event of a game, oldest first (read by pages)."""
    out: list[EventRow] = []
    after = 0
    while True:
        page = uow.games.events(game_id, after=after, limit=1000)
        out += page
        if len(page) < 1000:
            return out
        after = page[-1].seq


def event_view(row: EventRow, seat: str | None = None) -> EventView:
    """An event as ``seat`` (None = anonymous) may see it; hidden events are redacted, never
    dropped, so sequence numbers stay gap-free for every reader (see EventView)."""
    if not mt.event_visible(row, seat):  # the umpire reads every event
        return EventView(
            seq=row.seq,
            seat=None,
            kind="redacted",
            action={},
            ruling=None,
            dice=[],
            version=row.version,
            created_at=aware_utc(row.created_at),
            redacted=True,
        )
    return EventView(
        seq=row.seq,
        seat=row.seat,
        kind=row.kind,
        action=row.action,
        ruling=Ruling.model_validate(row.ruling),
        dice=list(row.dice),
        version=row.version,
        created_at=aware_utc(row.created_at),
        payload=row.payload,
        visible_to=row.visible_to,
        ruleset_version=row.ruleset_version,
    )


def list_events(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    after: int = 0,
    limit: int = 50,
) -> EventPage:
    """A page of the event log as the bearer's seat may see it, oldest first, after sequence
    number ``after``."""
    with uow.begin():
        found = find_game(uow, game_id)
        seat = reader_seat(uow, found[0], token)
        return _event_page(uow, game_id, seat, after=after, limit=limit)


def _event_page(
    uow: AbstractUnitOfWork, game_id: str, seat: str | None, *, after: int, limit: int
) -> EventPage:
    """Inside an open transaction: one page of events filtered for ``seat``."""
    rows = uow.games.events(game_id, after=after, limit=limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    return EventPage(
        items=[event_view(r, seat) for r in rows],
        next=rows[-1].seq if more and rows else None,
    )


def get_event(uow: AbstractUnitOfWork, game_id: str, seq: int, *, token: str | None) -> EventView:
    """One event of the log, as the bearer's seat may see it (redacted if hidden from it)."""
    with uow.begin():
        found = find_game(uow, game_id)
        seat = reader_seat(uow, found[0], token)
        row = uow.games.event(game_id, seq)
        if row is None:
            raise EventNotFound(f"game {game_id!r} has no event {seq}", seq=seq)
        return event_view(row, seat)
