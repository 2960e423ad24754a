"""Per-seat webhooks: register, list, delete, and read the delivery log.

A seat registers a URL and the notifications it wants (``your_turn``, ``sealed_revealed``,
``game_finished``; default all). The answer shows the signing secret once; the service keeps
it (it must, to sign) like the dice seed, server-side only. Only the seat that registered a
webhook sees it and its deliveries; the umpire sees every webhook of the game.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from app.db.access import access
from app.db.models import WebhookDeliveryRow, WebhookRow
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.service import receivers
from app.service.access import writer_seat
from app.service.errors import Conflict, FieldError, Forbidden, InvalidInput, NotFound
from app.service.notify import NOTIFICATIONS
from app.service.pipeline import aware_utc, valid_game_id

MAX_PER_SEAT = 5
"""Webhooks one seat may register for one game."""


class Webhook(BaseModel):
    id: str
    game: str
    seat: str
    url: str
    events: list[str]
    created_at: datetime


class RegisteredWebhook(Webhook):
    secret: str = Field(
        description="HMAC-SHA256 key of the `Referee-Signature` header. Shown once."
    )


class WebhookList(BaseModel):
    items: list[Webhook]


class Attempt(BaseModel):
    attempt: int
    at: datetime
    status: int | None = Field(
        description="The receiver's HTTP status (webhooks) or the SMTP server's reply code "
        "(emails: 250 accepted); null if none."
    )
    error: str | None = None


class Delivery(BaseModel):
    id: str
    type: str
    status: str = Field(
        description="pending, delivered, failed (retries exhausted); for emails also skipped "
        "(over the per-address cap) or cancelled (unsubscribed or confirmed before it went)."
    )
    attempts: int
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    created_at: datetime
    payload: dict[str, Any]
    log: list[Attempt]


class DeliveryLog(BaseModel):
    items: list[Delivery] = Field(description="Newest first.")


def _view(row: WebhookRow) -> Webhook:
    return Webhook(
        id=row.id,
        game=row.game_id,
        seat=row.seat,
        url=row.url,
        events=list(row.events),
        created_at=aware_utc(row.created_at),
    )


def _bad(location: str, message: str, kind: str) -> InvalidInput:
    return InvalidInput(
        f"invalid webhook: {message}", [FieldError(location, message, kind)], code="webhook.invalid"
    )


def check_url(url: str, *, allow_private: bool) -> str:
    """An absolute http(s) URL the delivery worker can call (:func:`receivers.check_url`: a
    port in 1..65535, no control characters, whitespace or credentials, a canonical literal
    address); a literal address the policy refuses (or ``localhost``) only when
    ``allow_private``. (Names are resolved and judged again at each delivery attempt.)"""
    try:
        parts = receivers.check_url(url)
    except receivers.BadURL as exc:
        raise _bad("/url", str(exc), "webhook.invalid_url") from None
    refused = receivers.host_refusal(parts.hostname or "")
    if not allow_private and refused is not None:
        raise _bad("/url", refused, "webhook.address_refused")
    return url


def check_events(events: list[str] | None) -> list[str]:
    """The notifications chosen: all when ``events`` is omitted (None); an empty list would
    deliver nothing, so it is refused rather than read as "all"."""
    if events is None:
        return sorted(NOTIFICATIONS)
    if not events:
        raise _bad(
            "/events",
            "an empty list would deliver nothing: omit `events` for every notification",
            "webhook.no_events",
        )
    unknown = sorted({e for e in events if e not in NOTIFICATIONS})
    if unknown:
        raise _bad(
            "/events",
            f"unknown notifications {unknown}; known: {list(NOTIFICATIONS)}",
            "webhook.unknown_event",
        )
    return sorted(set(events))


def register(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    url: str,
    events: list[str] | None,
    allow_private: bool,
) -> RegisteredWebhook:
    chosen = check_events(events)
    check_url(url, allow_private=allow_private)
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "registering a webhook")
        repo = access(uow)
        if len(repo.webhooks(gid, seat)) >= MAX_PER_SEAT:
            raise Conflict(
                f"a seat may register at most {MAX_PER_SEAT} webhooks per game",
                code="webhook.limit",
            )
        row = WebhookRow(
            id=str(uuid.uuid4()),
            game_id=gid,
            seat=seat,
            url=url,
            secret=secrets.token_hex(32),
            events=chosen,
            created_at=datetime.now(UTC),
        )
        repo.add(row)
        registered = RegisteredWebhook(**_view(row).model_dump(), secret=row.secret)
        uow.commit()
        return registered


def list_webhooks(uow: AbstractUnitOfWork, game_id: str, *, token: str | None) -> WebhookList:
    with uow.begin():
        gid, seat = writer_seat(uow, game_id, token, "listing webhooks")
        rows = access(uow).webhooks(gid, None if seat == UMPIRE else seat)
        return WebhookList(items=[_view(r) for r in rows])


def _own(uow: AbstractUnitOfWork, gid: str, seat: str, webhook_id: str) -> WebhookRow:
    row = access(uow).webhook(gid, webhook_id) if valid_game_id(webhook_id) else None
    if row is None:
        raise NotFound(f"game {gid!r} has no webhook {webhook_id!r}", code="webhook.not_found")
    if seat not in (row.seat, UMPIRE):
        raise Forbidden("this webhook belongs to another seat", code="webhook.not_yours")
    return row


def delete_webhook(
    uow: AbstractUnitOfWork, game_id: str, webhook_id: str, *, token: str | None
) -> None:
    """Remove a webhook with its pending deliveries and log."""
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "deleting a webhook")
        row = _own(uow, gid, seat, webhook_id)
        access(uow).delete_webhook(row.id)
        uow.commit()


def delivery_view(row: WebhookDeliveryRow) -> Delivery:
    return Delivery(
        id=row.id,
        type=row.notification,
        status=row.status,
        attempts=row.attempts,
        next_attempt_at=aware_utc(row.next_attempt_at) if row.status == "pending" else None,
        delivered_at=None if row.delivered_at is None else aware_utc(row.delivered_at),
        created_at=aware_utc(row.created_at),
        payload=row.payload,
        log=[Attempt.model_validate(a) for a in row.attempts_log],
    )


def deliveries(
    uow: AbstractUnitOfWork, game_id: str, webhook_id: str, *, token: str | None, limit: int
) -> DeliveryLog:
    """A webhook's latest deliveries, each with every attempt."""
    with uow.begin():
        gid, seat = writer_seat(uow, game_id, token, "reading a delivery log")
        row = _own(uow, gid, seat, webhook_id)
        return DeliveryLog(
            items=[delivery_view(d) for d in access(uow).deliveries(row.id, limit=limit)]
        )
