"""Table talk (issue 26 item 4): per-game messages between the seats, never part of the log.

* A seat posts a message ``to`` ``all`` (every reader of the game), one side, or ``umpire``;
  the sender is the seat of the token (a spectator token is 403 ``token.read_only``, no token
  401). A side may write to all, to the umpire, or **privately to another side** (multi-side
  games negotiate); the umpire may write to anyone. Writing to oneself is 422.
* Who reads a message (:func:`visible`): a public one (``to: all``) every seat, and every
  other reader of the game (spectators, anonymous readers of a public game) unless the game's
  ``match.spectators_read_chat`` is false (default true); a private one only its sender, its
  recipient and the umpire (**the umpire reads every private message**: table talk happens
  under the umpire's eye). The same filter serves the list, the live stream and the export.
* A message is text of at most :data:`MAX_TEXT` characters, newlines and tabs allowed but no
  other control character, unpaired surrogate or line separator (422 naming ``/text``).
* At most ``REFEREE_MESSAGES_PER_MINUTE`` messages per seat and game in any minute, counted
  in the database in the write transaction (so every process enforces one limit): 429
  ``message.rate_limited`` with ``Retry-After``.
* Messages are numbered per game (``seq`` 1, 2, ...; a reader's view has gaps where private
  messages of others were) and stored in ``messages``; a message wakes the game's streams
  (:func:`app.db.notify.stage` with seq 0: no event) so ``GET /games/{id}/messages/stream``
  delivers it at once.

Messages hold text only: nothing in a message comes from an order, a sealed order, the
state or the seed, so no read of messages can leak one.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, Field
from sqlalchemy import Select, false, func, or_, select

from app.config import Settings
from app.db import notify
from app.db.models import GameFields, MessageRow
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.service import match as mt
from app.service.access import writer_seat
from app.service.errors import FieldError, InvalidInput, TooMany
from app.service.jsonsafe import bad_line
from app.service.pipeline import aware_utc, find_game, reader_seat
from app.service.policies import cite

ALL = "all"
MAX_TEXT = 2000
"""Longest message, in characters."""
WINDOW_SECONDS = 60
PAGE_MAX = 200
"""Largest page of ``GET /games/{id}/messages``."""


class Message(BaseModel):
    seq: int = Field(description="The message's number in its game (ids of the stream).")
    sender: str = Field(description="The seat that wrote it.")
    to: str = Field(description="`all`, a side, or `umpire`.")
    private: bool = Field(description="Not to `all`: only sender, recipient and umpire read it.")
    text: str
    created_at: datetime


class MessagePage(BaseModel):
    items: list[Message]
    next: int | None = Field(
        description="Pass as `after` to get the next page; null when this page is the last."
    )


def message_view(row: MessageRow) -> Message:
    return Message(
        seq=row.seq,
        sender=row.sender,
        to=row.recipient,
        private=row.recipient != ALL,
        text=row.text,
        created_at=aware_utc(row.created_at),
    )


def visible(row: MessageRow, seat: str | None, *, spectators_read: bool) -> bool:
    """Whether a reader (``seat`` None: a spectator or anonymous reader) reads ``row``."""
    if row.recipient == ALL:
        return seat is not None or spectators_read
    return seat is not None and seat in (UMPIRE, row.sender, row.recipient)


def spectators_read(game: GameFields) -> bool:
    return mt.options_of(game).spectators_read_chat


def check_text(text: str) -> str:
    """The text guard of single-line fields, newlines and tabs allowed (422 naming /text)."""
    problem = None
    if not text.strip():
        problem = "a message may not be empty"
    elif len(text) > MAX_TEXT:
        problem = f"a message may be at most {MAX_TEXT} characters long"
    else:
        problem = bad_line(text.replace("\n", " ").replace("\t", " ").replace("\r", " "))
    if problem:
        raise InvalidInput(
            f"invalid message: {problem}",
            [FieldError("/text", problem, "text.unsupported")],
            code="message.invalid",
            citations=cite("messages"),
        )
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _select_visible(game_id: str, seat: str | None, spectators: bool) -> Select[MessageRow]:
    stmt = select(MessageRow).where(MessageRow.game_id == game_id)
    if seat == UMPIRE:
        return stmt
    if seat is None:
        if not spectators:
            return stmt.where(false())  # the game keeps its talk from spectators
        return stmt.where(MessageRow.recipient == ALL)
    return stmt.where(
        or_(MessageRow.recipient == ALL, MessageRow.sender == seat, MessageRow.recipient == seat)
    )


def visible_messages(
    uow: AbstractUnitOfWork, game: GameFields, seat: str | None, *, after: int, limit: int | None
) -> list[MessageRow]:
    """Inside an open transaction: the messages after ``after`` the reader may read."""
    stmt = _select_visible(game.id, seat, spectators_read(game))
    stmt = stmt.where(MessageRow.seq > after).order_by(MessageRow.seq)
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(uow.games.session.execute(stmt).scalars())


def post_message(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    to: str,
    text: str,
    settings: Settings,
) -> Message:
    body = check_text(text)
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "posting a message")
        uow.games.get(gid, lock=True)  # one writer at a time per game: seq and the limit
        seats = [s.seat for s in uow.games.seats(gid)]
        if to != ALL and to not in seats:
            raise _bad_recipient(f"no seat {to!r} at this game; write to {[ALL, *seats]}")
        if to == seat:
            raise _bad_recipient("a seat cannot write to itself")
        session = uow.games.session
        now = datetime.now(UTC)
        since = now - timedelta(seconds=WINDOW_SECONDS)
        recent = list(
            session.execute(
                select(MessageRow.created_at)
                .where(
                    MessageRow.game_id == gid,
                    MessageRow.sender == seat,
                    MessageRow.created_at > since,
                )
                .order_by(MessageRow.created_at)
            ).scalars()
        )
        cap = settings.messages_per_minute
        if len(recent) >= cap:
            oldest = aware_utc(recent[len(recent) - cap])
            wait = (oldest + timedelta(seconds=WINDOW_SECONDS) - now).total_seconds()
            raise TooMany(
                f"a seat may post {cap} messages a minute to one game "
                "(REFEREE_MESSAGES_PER_MINUTE); try later",
                code="message.rate_limited",
                citations=cite("messages"),
                retry_after=max(1, math.ceil(wait)),
                limit=cap,
            )
        last = session.execute(
            select(func.max(MessageRow.seq)).where(MessageRow.game_id == gid)
        ).scalar()
        row = MessageRow(
            game_id=gid,
            seq=(last or 0) + 1,
            sender=seat,
            recipient=to,
            text=body,
            created_at=now,
        )
        session.add(row)
        session.flush()
        notify.stage(session, gid, 0)  # wakes the game's streams once this commits
        view = message_view(row)
        uow.commit()
        return view


def _bad_recipient(message: str) -> InvalidInput:
    return InvalidInput(
        f"invalid message: {message}",
        [FieldError("/to", message, "message.recipient")],
        code="message.invalid_recipient",
        citations=cite("messages"),
    )


def list_messages(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None, after: int, limit: int
) -> MessagePage:
    """The messages after ``after`` the bearer may read, oldest first."""
    with uow.begin():
        row, _ = find_game(uow, game_id)
        seat = reader_seat(uow, row, token)
        rows = visible_messages(uow, row, seat, after=after, limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        return MessagePage(
            items=[message_view(r) for r in rows], next=rows[-1].seq if more else None
        )


def read_stream_batch(
    uow: AbstractUnitOfWork, game: GameFields, seat: str | None, *, after: int, limit: int | None
) -> list[Message]:
    """Inside an open transaction: the next messages for a stream's reader."""
    return [message_view(r) for r in visible_messages(uow, game, seat, after=after, limit=limit)]
