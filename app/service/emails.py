"""Email notifications a person receives (issue 24 items 3 and 4): a seat's address, its
confirmation and unsubscribe links, and the umpire's emailed invitation.

* A seat registers an address for its own seat (the seat comes from the token) and chooses
  notifications (:data:`EMAIL_EVENTS`). Nothing but the confirmation email is ever sent to it
  until the link in that email is followed: the link carries a single-use random token made
  when the email is sent; only its SHA-256 is stored, and it is cleared once used.
* Every email carries the subscription's unsubscribe link (in the body and in
  ``List-Unsubscribe`` with ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``): one POST,
  no login, stops every further email of that subscription.
* Emails go out through the outbox (``webhook_deliveries`` rows of the ``email``,
  ``email_confirm`` and ``email_invite`` channels, written in the write transaction like
  webhook deliveries) and the same worker, retries and attempts log
  (:mod:`app.service.delivery`, :mod:`app.service.mailer`).
* An email names the event and links to the game; it is built from the notification payload
  alone (:mod:`app.service.notify`), which never carries what the seat could not read.
* At most ``REFEREE_EMAIL_PER_ADDRESS_PER_HOUR`` emails go to one address in any hour
  (counted over every game and channel); past it a registration or invitation answers 429
  ``email.rate_limited`` and a notification is recorded ``skipped``, not sent.
"""

from __future__ import annotations

import re
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from email.headerregistry import Address
from typing import Any

from pydantic import BaseModel, Field

from app.config import Settings
from app.db.access import access
from app.db.models import EmailSubscriptionRow, WebhookDeliveryRow
from app.db.uow import AbstractUnitOfWork
from app.rules.base import UMPIRE
from app.service.access import writer_seat
from app.service.errors import (
    Conflict,
    FieldError,
    Forbidden,
    InvalidInput,
    NotFound,
    TooMany,
)
from app.service.notify import EMAIL_EVENTS
from app.service.pipeline import aware_utc, valid_game_id
from app.service.policies import cite
from app.service.tokens import hash_token, same_hash
from app.service.webhooks import Delivery, DeliveryLog, delivery_view

MAX_PER_SEAT = 3
"""Email subscriptions one seat may hold at one game (unsubscribed ones not counted)."""

EMAIL = "email"
CONFIRM = "email_confirm"
INVITE = "email_invite"
CHANNELS = (EMAIL, CONFIRM, INVITE)

_ADDRESS = re.compile(r"[^@\s<>()\[\],;:\"\\]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,63}")


class EmailSubscription(BaseModel):
    id: str
    game: str
    seat: str
    address: str
    events: list[str]
    status: str = Field(
        description="`unconfirmed` (only the confirmation email is sent), `confirmed`, or "
        "`unsubscribed` (its unsubscribe link was used)."
    )
    created_at: datetime
    confirmed_at: datetime | None


class EmailSubscriptionList(BaseModel):
    items: list[EmailSubscription]


class SentInvitation(BaseModel):
    delivery: str = Field(description="The outbox delivery of the email (retried like any).")
    game: str
    seat: str
    address: str
    status: str = Field(description="`pending`: the worker sends it after this answer.")


def configured(settings: Settings) -> None:
    """409 ``email.not_configured`` unless SMTP, the From address and the public URL (every
    link of an email) are set."""
    missing = [
        name
        for name, value in (
            ("REFEREE_SMTP_URL", settings.smtp_url),
            ("REFEREE_SMTP_FROM", settings.smtp_from),
            ("REFEREE_PUBLIC_URL", settings.public_url),
        )
        if not value
    ]
    if missing:
        raise Conflict(
            f"this server does not send email: {', '.join(missing)} not set "
            "(docs/OPERATIONS.md, Email)",
            code="email.not_configured",
            citations=cite("email"),
            missing=missing,
        )


def _bad(location: str, message: str, kind: str) -> InvalidInput:
    return InvalidInput(
        f"invalid email request: {message}",
        [FieldError(location, message, kind)],
        code="email.invalid",
        citations=cite("email"),
    )


def check_address(address: str, location: str = "/address") -> str:
    """One plain address (``name@example.org``: no display name, no comments), in lower
    case (so that the per-address cap cannot be dodged by changing the case of some letters;
    mail systems in use treat addresses without regard to case); 422 ``email.invalid``
    otherwise."""
    text = address.strip()
    if len(text) > 254 or not _ADDRESS.fullmatch(text):
        raise _bad(
            location, "not a plain email address (name@example.org)", "email.invalid_address"
        )
    local, _, domain = text.rpartition("@")
    try:
        Address(username=local, domain=domain.lower())
    except (ValueError, IndexError):
        raise _bad(location, "not a plain email address", "email.invalid_address") from None
    return f"{local}@{domain}".lower()


def check_events(events: list[str] | None) -> list[str]:
    if events is None:
        return sorted(EMAIL_EVENTS)
    if not events:
        raise _bad(
            "/events", "an empty list would send nothing: omit `events` for all", "email.no_events"
        )
    unknown = sorted({e for e in events if e not in EMAIL_EVENTS})
    if unknown:
        raise _bad(
            "/events",
            f"unknown notifications {unknown}; known: {list(EMAIL_EVENTS)}",
            "email.unknown_event",
        )
    return sorted(set(events))


def _check_cap(uow: AbstractUnitOfWork, address: str, settings: Settings, now: datetime) -> None:
    cap = settings.email_per_address_per_hour
    if access(uow).emails_to(address, now - timedelta(hours=1)) >= cap:
        raise TooMany(
            f"{address} already got {cap} emails in the last hour "
            "(REFEREE_EMAIL_PER_ADDRESS_PER_HOUR); try later",
            code="email.rate_limited",
            citations=cite("email"),
            retry_after=3600,
            limit=cap,
        )


def outbox_row(
    *,
    channel: str,
    game_id: str,
    address: str,
    kind: str,
    payload: dict[str, Any],
    now: datetime,
    subscription_id: str | None = None,
    delivery_id: str | None = None,
) -> WebhookDeliveryRow:
    return WebhookDeliveryRow(
        id=delivery_id or str(uuid.uuid4()),
        webhook_id=None,
        channel=channel,
        subscription_id=subscription_id,
        game_id=game_id,
        address=address,
        notification=kind,
        payload=payload,
        status="pending",
        attempts=0,
        next_attempt_at=now,
        attempts_log=[],
        created_at=now,
    )


def _view(row: EmailSubscriptionRow) -> EmailSubscription:
    return EmailSubscription(
        id=row.id,
        game=row.game_id,
        seat=row.seat,
        address=row.address,
        events=list(row.events),
        status=row.status,
        created_at=aware_utc(row.created_at),
        confirmed_at=None if row.confirmed_at is None else aware_utc(row.confirmed_at),
    )


def register(
    uow: AbstractUnitOfWork,
    game_id: str,
    *,
    token: str | None,
    address: str,
    events: list[str] | None,
    settings: Settings,
) -> EmailSubscription:
    """Register ``address`` for the presented seat; the confirmation email is staged."""
    chosen = check_events(events)
    addr = check_address(address)
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "registering an email address")
        configured(settings)
        repo = access(uow)
        live = [s for s in repo.email_subscriptions(gid, seat) if s.status != "unsubscribed"]
        if any(s.address.lower() == addr.lower() for s in live):
            raise Conflict(
                f"{addr} is already registered for this seat (delete it to register again)",
                code="email.already_registered",
                citations=cite("email"),
            )
        if len(live) >= MAX_PER_SEAT:
            raise Conflict(
                f"a seat may register at most {MAX_PER_SEAT} addresses per game",
                code="email.limit",
                citations=cite("email"),
            )
        now = datetime.now(UTC)
        _check_cap(uow, addr, settings, now)
        row = EmailSubscriptionRow(
            id=str(uuid.uuid4()),
            game_id=gid,
            seat=seat,
            address=addr,
            events=chosen,
            status="unconfirmed",
            confirm_hash=None,
            unsubscribe_token=secrets.token_urlsafe(32),
            created_at=now,
        )
        repo.add(row)
        delivery_id = str(uuid.uuid4())
        repo.add(
            outbox_row(
                channel=CONFIRM,
                game_id=gid,
                address=addr,
                kind="confirm",
                payload={"id": delivery_id, "type": "confirm", "game": gid, "seat": seat},
                now=now,
                subscription_id=row.id,
                delivery_id=delivery_id,
            )
        )
        view = _view(row)
        uow.commit()
        return view


def list_subscriptions(
    uow: AbstractUnitOfWork, game_id: str, *, token: str | None
) -> EmailSubscriptionList:
    """The presented seat's subscriptions (only its own, the umpire's included: an address
    is personal)."""
    with uow.begin():
        gid, seat = writer_seat(uow, game_id, token, "listing email addresses")
        return EmailSubscriptionList(
            items=[_view(r) for r in access(uow).email_subscriptions(gid, seat)]
        )


def _own(uow: AbstractUnitOfWork, gid: str, seat: str, sub_id: str) -> EmailSubscriptionRow:
    row = access(uow).email_subscription(gid, sub_id) if valid_game_id(sub_id) else None
    if row is None:
        raise NotFound(
            f"game {gid!r} has no email address {sub_id!r}",
            code="email.not_found",
            citations=cite("email"),
        )
    if row.seat != seat:
        raise Forbidden(
            "this address belongs to another seat", code="email.not_yours", citations=cite("email")
        )
    return row


def delete_subscription(
    uow: AbstractUnitOfWork, game_id: str, sub_id: str, *, token: str | None
) -> None:
    """Remove a subscription with its pending emails and log."""
    with uow.begin(write=True):
        gid, seat = writer_seat(uow, game_id, token, "deleting an email address")
        row = _own(uow, gid, seat, sub_id)
        access(uow).delete_email_subscription(row.id)
        uow.commit()


def deliveries(
    uow: AbstractUnitOfWork, game_id: str, sub_id: str, *, token: str | None, limit: int
) -> DeliveryLog:
    """A subscription's latest emails (confirmation included), each with every attempt."""
    with uow.begin():
        gid, seat = writer_seat(uow, game_id, token, "reading an email delivery log")
        row = _own(uow, gid, seat, sub_id)
        items: list[Delivery] = [
            delivery_view(d) for d in access(uow).email_deliveries(row.id, limit=limit)
        ]
        return DeliveryLog(items=items)


def confirm(uow: AbstractUnitOfWork, link_token: str) -> EmailSubscription | None:
    """Follow a confirmation link: the subscription it confirms, or None (unknown token, or
    already used: the token is single-use)."""
    if not link_token or len(link_token) > 200:
        return None
    with uow.begin(write=True):
        row = access(uow).subscription_by(confirm_hash=hash_token(link_token))
        if row is None or row.status != "unconfirmed" or row.confirm_hash is None:
            return None
        if not same_hash(row.confirm_hash, hash_token(link_token)):
            return None
        row.status = "confirmed"
        row.confirm_hash = None
        row.confirmed_at = datetime.now(UTC)
        view = _view(row)
        uow.commit()
        return view


def unsubscribe(uow: AbstractUnitOfWork, link_token: str) -> EmailSubscription | None:
    """Follow an unsubscribe link (one POST, no login): the subscription, now
    ``unsubscribed`` (again, if it already was), or None for an unknown token."""
    if not link_token or len(link_token) > 200:
        return None
    with uow.begin(write=True):
        row = access(uow).subscription_by(unsubscribe_token=link_token)
        if row is None or not secrets.compare_digest(row.unsubscribe_token, link_token):
            return None
        row.status = "unsubscribed"
        row.confirm_hash = None
        view = _view(row)
        uow.commit()
        return view


def invite(
    uow: AbstractUnitOfWork,
    game_id: str,
    seat: str,
    *,
    token: str | None,
    address: str,
    seat_token: str,
    settings: Settings,
) -> SentInvitation:
    """The umpire emails a seat's invitation link. The link carries the seat's token, which
    the service only holds hashed: the umpire sends it (``seat_token``), it must be the seat's
    current token, and the outbox keeps it only until the email is sent or given up."""
    addr = check_address(address)
    with uow.begin(write=True):
        gid, caller = writer_seat(uow, game_id, token, "emailing an invitation")
        if caller != UMPIRE:
            raise Forbidden(
                "only the umpire may email an invitation",
                code="email.umpire_only",
                citations=cite("email"),
            )
        configured(settings)
        seats = {r.seat: r for r in uow.games.seats(gid)}
        if seat not in seats:
            raise NotFound(f"game {gid!r} has no seat {seat!r}", code="seat.not_found")
        if not same_hash(seats[seat].token_hash, hash_token(seat_token)):
            raise _bad(
                "/token", f"not the current token of seat {seat!r}", "email.wrong_seat_token"
            )
        now = datetime.now(UTC)
        _check_cap(uow, addr, settings, now)
        delivery_id = str(uuid.uuid4())
        access(uow).add(
            outbox_row(
                channel=INVITE,
                game_id=gid,
                address=addr,
                kind="invitation",
                payload={
                    "id": delivery_id,
                    "type": "invitation",
                    "game": gid,
                    "seat": seat,
                    "token": seat_token,
                },
                now=now,
                delivery_id=delivery_id,
            )
        )
        uow.commit()
        return SentInvitation(
            delivery=delivery_id, game=gid, seat=seat, address=addr, status="pending"
        )
