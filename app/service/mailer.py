"""One attempt at an email delivery of the outbox: what the delivery worker's senders run for
the ``email``, ``email_confirm`` and ``email_invite`` channels (:mod:`app.service.emails`).

Before anything is sent, in one short transaction:

* a notification to a subscription no longer ``confirmed`` (unsubscribed, deleted), a
  confirmation of one no longer ``unconfirmed`` and an invitation whose token was erased are
  ``cancelled``;
* an email past the per-address cap is ``skipped``: fewer than
  ``REFEREE_EMAIL_PER_ADDRESS_PER_HOUR`` emails to the address written in the hour before
  this one (and not skipped or cancelled) lets it go. Counting by the order the rows were
  written makes the decision the same in every process and on every retry;
* a confirmation gets a fresh single-use token: only its SHA-256 is stored (replacing the one
  of an earlier attempt), the token itself exists only in the email.

The message is built from the delivery's payload alone -- the notification payload, which
never holds what the seat could not read -- plus the links: the game's console page, the
confirmation or invitation link, and the subscription's unsubscribe link (in the body and in
``List-Unsubscribe`` / ``List-Unsubscribe-Post``). The SMTP server's answer is the
attempt's status (250) or its error; any failure is retried by the worker like a webhook's.
"""

from __future__ import annotations

import secrets
import smtplib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any
from urllib.parse import quote

from app.config import Settings
from app.db.access import access
from app.db.models import EmailSubscriptionRow, WebhookDeliveryRow
from app.db.uow import AbstractUnitOfWork
from app.links import game_links, invitation_link
from app.service import smtp
from app.service.emails import CONFIRM, EMAIL, INVITE
from app.service.notify import (
    APPEAL,
    APPEAL_DECIDED,
    GAME_FINISHED,
    SEALED_DECISION,
    SEALED_REVEALED,
    YOUR_TURN,
)
from app.service.pipeline import aware_utc
from app.service.tokens import hash_token


@dataclass(frozen=True)
class MailConfig:
    smtp_url: str | None = None
    sender: str | None = None
    public_url: str | None = None
    timeout: float = 10.0
    per_hour: int = 6


def mail_config(settings: Settings) -> MailConfig:
    return MailConfig(
        smtp_url=settings.smtp_url,
        sender=settings.smtp_from,
        public_url=settings.public_url,
        timeout=settings.smtp_timeout_seconds,
        per_hour=settings.email_per_address_per_hour,
    )


@dataclass(frozen=True)
class Outcome:
    status: int | None
    error: str | None
    final: str | None = None
    """``skipped`` or ``cancelled``: not sent, and never will be; ``gone``: the row is gone."""


def confirm_url(base: str, token: str) -> str:
    return f"{base}/v1/email/confirm/{quote(token, safe='')}"


def unsubscribe_url(base: str, token: str) -> str:
    return f"{base}/v1/email/unsubscribe/{quote(token, safe='')}"


def _short(game: str) -> str:
    return game[:8]


def _position(payload: dict[str, Any]) -> str:
    position = payload.get("position")
    if not isinstance(position, dict):
        return ""
    parts = [f"turn {position.get('turn')}", f"phase {position.get('phase')}"]
    if position.get("phasing_side"):
        parts.append(f"phasing side {position.get('phasing_side')}")
    return "Now: " + ", ".join(parts) + "."


def _content(row: WebhookDeliveryRow, base: str, confirm_token: str | None) -> tuple[str, str]:
    """Subject and body of a delivery (no links of the subscription: added by the caller)."""
    p = row.payload
    game, seat = str(p.get("game")), str(p.get("seat"))
    console = game_links(base, game)["console"]
    short = _short(game)
    if row.channel == CONFIRM:
        assert confirm_token is not None
        return (
            f"Confirm email notifications for game {short}",
            f"Someone asked for notifications of seat {seat} in game {game} to be sent to "
            "this address.\n\nTo confirm, open this link and press the button (it works "
            f"once):\n{confirm_url(base, confirm_token)}\n\nIf it was not you, ignore this "
            "email: nothing else is sent to an address that was not confirmed.",
        )
    if row.channel == INVITE:
        link = invitation_link(base, game, seat, str(p.get("token")))
        return (
            f"Your invitation to play {seat} in game {short}",
            f"The umpire of game {game} invites you to play seat {seat}.\n\nOpen your seat "
            f"in the console:\n{link}\n\nThis link holds your seat's secret token: whoever "
            "has it plays the seat. Do not forward it; if it leaks, ask the umpire for a new "
            "one.",
        )
    kind = row.notification
    where = _position(p)
    if kind == YOUR_TURN:
        subject = f"Your turn: {seat} in game {short}"
        text = f"It is your turn (seat {seat}) in game {game}. {where}"
    elif kind == SEALED_DECISION:
        decisions = ", ".join(str(d) for d in p.get("decisions") or [])
        subject = f"Your orders are awaited: {seat} in game {short}"
        text = f"Seat {seat} is asked to decide in game {game}: sealed decision {decisions}."
    elif kind == SEALED_REVEALED:
        subject = f"Orders revealed in game {short}"
        text = f"The sealed orders of decision {p.get('decision')} were revealed in game {game}."
    elif kind == GAME_FINISHED:
        subject = f"Game over: game {short}"
        text = f"Game {game} is over."
    elif kind == APPEAL:
        subject = f"A ruling is appealed in game {short}"
        text = f"A side appealed the ruling of event {p.get('appealed_event')} in game {game}."
    elif kind == APPEAL_DECIDED:
        subject = f"Your appeal was decided in game {short}"
        text = f"The umpire decided appeal {p.get('appeal')} in game {game}: {p.get('outcome')}."
    else:
        subject = f"{kind} in game {short}"
        text = f"{kind} in game {game}."
    return subject, f"{text.strip()}\n\nOpen the game: {console}"


def compose(
    row: WebhookDeliveryRow,
    sub: EmailSubscriptionRow | None,
    config: MailConfig,
    confirm_token: str | None = None,
) -> EmailMessage:
    base = config.public_url or ""
    sender = config.sender or ""
    subject, body = _content(row, base, confirm_token)
    message = EmailMessage()
    message["From"] = sender
    message["To"] = str(row.address)
    message["Subject"] = subject
    message["Date"] = format_datetime(aware_utc(row.created_at))
    message["Message-ID"] = make_msgid("referee", domain=smtp.domain_of(sender))
    message["Auto-Submitted"] = "auto-generated"
    message["Referee-Delivery-Id"] = row.id
    message["Referee-Notification"] = row.notification
    if sub is not None:
        unsubscribe = unsubscribe_url(base, sub.unsubscribe_token)
        message["List-Unsubscribe"] = f"<{unsubscribe}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        body += (
            f"\n\n--\nYou get this because {row.address} was registered for notifications "
            f"of seat {sub.seat} in this game.\nUnsubscribe (one click, no login): "
            f"{unsubscribe}\n"
        )
    else:
        body += "\n"
    message.set_content(body)
    return message


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def attempt(
    uow_factory: Callable[[], AbstractUnitOfWork], config: MailConfig, delivery_id: str
) -> Outcome:
    """Prepare (in one short transaction) and send one claimed email delivery."""
    if not (config.smtp_url and config.sender and config.public_url):
        return Outcome(
            None,
            "email is not configured (REFEREE_SMTP_URL, REFEREE_SMTP_FROM, REFEREE_PUBLIC_URL)",
        )
    try:
        target = smtp.parse_url(config.smtp_url)
    except smtp.BadSmtpURL as exc:
        return Outcome(None, str(exc))
    uow = uow_factory()
    with uow.begin(write=True):
        repo = access(uow)
        found = repo.delivery_target(delivery_id)
        if found is None:
            return Outcome(None, None, "gone")
        row, _, sub = found
        if row.channel == EMAIL and (sub is None or sub.status != "confirmed"):
            return Outcome(None, "not sent: the address was unsubscribed", "cancelled")
        if row.channel == CONFIRM and (sub is None or sub.status != "unconfirmed"):
            return Outcome(
                None, "not sent: the address is no longer awaiting confirmation", "cancelled"
            )
        if row.channel == INVITE and not row.payload.get("token"):
            return Outcome(None, "not sent: the invitation's token was erased", "cancelled")
        address = str(row.address)
        earlier = repo.emails_to(address, row.created_at - timedelta(hours=1), before=row)
        if earlier >= config.per_hour:
            return Outcome(
                None,
                f"not sent: {address} already had {earlier} emails in the hour "
                "(REFEREE_EMAIL_PER_ADDRESS_PER_HOUR)",
                "skipped",
            )
        confirm_token = None
        if row.channel == CONFIRM and sub is not None:
            confirm_token = secrets.token_urlsafe(32)
            sub.confirm_hash = hash_token(confirm_token)
        message = compose(row, sub, config, confirm_token)
        uow.commit()
    try:
        status = smtp.send(target, message, timeout=config.timeout)
    except smtplib.SMTPResponseException as exc:
        text = (
            exc.smtp_error.decode("utf-8", "replace")
            if isinstance(exc.smtp_error, bytes)
            else str(exc.smtp_error)
        )
        return Outcome(exc.smtp_code, f"SMTP {exc.smtp_code}: {text}"[:500])
    except (smtplib.SMTPException, OSError) as exc:
        return Outcome(None, _error(exc))
    return Outcome(status, None)
