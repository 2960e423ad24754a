"""Queries on tokens, webhooks and email subscriptions (tables ``seats``, ``access_tokens``,
``webhooks``, ``email_subscriptions``, ``webhook_deliveries``: the outbox of every channel),
through the unit of work's session; and the delivery worker's idle checks of the outbox,
which run past it (:func:`outbox_probe`, :func:`loop_outbox_probe`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    CursorResult,
    Engine,
    Table,
    bindparam,
    delete,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from app.db import notify
from app.db.engine import LoopConnections
from app.db.models import (
    AccessTokenRow,
    EmailSubscriptionRow,
    GameRow,
    ScenarioRow,
    SeatRow,
    WebhookDeliveryRow,
    WebhookRow,
)
from app.db.uow import AbstractUnitOfWork

SKIPPED = ("skipped", "cancelled")
"""Outbox statuses of deliveries that were never sent (not counted by the per-address cap)."""


def _due_at(now: Any) -> tuple[ColumnElement[bool], ...]:
    """What makes a delivery due at ``now`` (a time, or a bound parameter): pending, its
    time come, and no worker's claim on it still running -- one condition for the claim
    (:meth:`AccessRepository.due`) and the idle checks (:data:`_ANY_DUE`)."""
    return (
        WebhookDeliveryRow.status == "pending",
        WebhookDeliveryRow.next_attempt_at <= now,
        or_(
            WebhookDeliveryRow.locked_until.is_(None),
            WebhookDeliveryRow.locked_until <= now,
        ),
    )


class AccessRepository:
    """Seat tokens by hash, spectator tokens, webhooks and the delivery outbox."""

    def __init__(self, session: Session) -> None:
        self.session = session

    # -- tokens ---------------------------------------------------------------------------

    def seats_by_hashes(self, hashes: Collection[str]) -> list[tuple[SeatRow, GameRow, str]]:
        """Seats whose token hash is one of ``hashes``, with their games and board digests
        (index lookup)."""
        if not hashes:
            return []
        stmt = (
            select(SeatRow, GameRow, ScenarioRow.digest)
            .join(GameRow, GameRow.id == SeatRow.game_id)
            .join(ScenarioRow, ScenarioRow.id == GameRow.scenario_id)
            .where(SeatRow.token_hash.in_(list(hashes)))
        )
        return [(row[0], row[1], row[2]) for row in self.session.execute(stmt)]

    def spectators_by_hashes(
        self, hashes: Collection[str]
    ) -> list[tuple[AccessTokenRow, GameRow, str]]:
        """Live (unrevoked) spectator tokens among ``hashes``, with their games and board
        digests."""
        if not hashes:
            return []
        stmt = (
            select(AccessTokenRow, GameRow, ScenarioRow.digest)
            .join(GameRow, GameRow.id == AccessTokenRow.game_id)
            .join(ScenarioRow, ScenarioRow.id == GameRow.scenario_id)
            .where(AccessTokenRow.token_hash.in_(list(hashes)))
            .where(AccessTokenRow.revoked_at.is_(None))
        )
        return [(row[0], row[1], row[2]) for row in self.session.execute(stmt)]

    def live_tokens(self, game_id: str) -> list[AccessTokenRow]:
        """The game's unrevoked spectator tokens."""
        stmt = (
            select(AccessTokenRow)
            .where(AccessTokenRow.game_id == game_id, AccessTokenRow.revoked_at.is_(None))
            .order_by(AccessTokenRow.created_at, AccessTokenRow.id)
        )
        return list(self.session.execute(stmt).scalars())

    def tokens(self, game_id: str, created_by: str | None) -> list[AccessTokenRow]:
        """Spectator tokens of a game (all of them, or those one seat minted)."""
        stmt = select(AccessTokenRow).where(AccessTokenRow.game_id == game_id)
        if created_by is not None:
            stmt = stmt.where(AccessTokenRow.created_by == created_by)
        stmt = stmt.order_by(AccessTokenRow.created_at, AccessTokenRow.id)
        return list(self.session.execute(stmt).scalars())

    def token(self, game_id: str, token_id: str) -> AccessTokenRow | None:
        stmt = select(AccessTokenRow).where(
            AccessTokenRow.game_id == game_id, AccessTokenRow.id == token_id
        )
        return self.session.execute(stmt).scalars().first()

    def add_token(self, row: AccessTokenRow) -> None:
        self.session.add(row)
        self.session.flush()

    def set_seat_hash(self, game_id: str, seat: str, token_hash: str) -> None:
        """Replace a seat's token (rotation): the old token stops working at commit."""
        stmt = (
            update(SeatRow)
            .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
            .values(token_hash=token_hash)
            .execution_options(synchronize_session=False)
        )
        self.session.execute(stmt)

    def access_changed(self, game_id: str) -> None:
        """A credential of the game was revoked, rotated or reissued: bump the game's access
        epoch and announce it, so open streams re-check their credential once this commits
        (:func:`app.db.notify.stage_access_change`)."""
        stmt = (
            update(GameRow)
            .where(GameRow.id == game_id)
            .values(access_epoch=GameRow.access_epoch + 1)
            .execution_options(synchronize_session=False)
        )
        self.session.execute(stmt)
        notify.stage_access_change(self.session, game_id)

    def revoke_tokens_of(self, game_id: str, seat: str, now: datetime) -> int:
        """Revoke every live spectator token ``seat`` minted at the game; how many."""
        stmt = (
            update(AccessTokenRow)
            .where(
                AccessTokenRow.game_id == game_id,
                AccessTokenRow.created_by == seat,
                AccessTokenRow.revoked_at.is_(None),
            )
            .values(revoked_at=now)
            .execution_options(synchronize_session=False)
        )
        result = self.session.execute(stmt)
        assert isinstance(result, CursorResult)
        return int(result.rowcount or 0)

    # -- webhooks -------------------------------------------------------------------------

    def webhooks(self, game_id: str, seat: str | None = None) -> list[WebhookRow]:
        """Webhooks of a game (of one seat when ``seat`` is given), oldest first."""
        stmt = select(WebhookRow).where(WebhookRow.game_id == game_id)
        if seat is not None:
            stmt = stmt.where(WebhookRow.seat == seat)
        stmt = stmt.order_by(WebhookRow.created_at, WebhookRow.id)
        return list(self.session.execute(stmt).scalars())

    def webhook(self, game_id: str, webhook_id: str) -> WebhookRow | None:
        stmt = select(WebhookRow).where(WebhookRow.game_id == game_id, WebhookRow.id == webhook_id)
        return self.session.execute(stmt).scalars().first()

    def add(self, row: WebhookRow | WebhookDeliveryRow | EmailSubscriptionRow) -> None:
        """Stage a webhook, a subscription or a delivery (a delivery wakes the worker once
        committed)."""
        self.session.add(row)
        self.session.flush()
        if isinstance(row, WebhookDeliveryRow):
            notify.stage_outbox(self.session)

    def delete_webhooks_of(self, game_id: str, seat: str) -> int:
        """Remove every webhook ``seat`` registered at the game, with its pending and past
        deliveries; how many webhooks."""
        ids = [w.id for w in self.webhooks(game_id, seat)]
        for webhook_id in ids:
            self.delete_webhook(webhook_id)
        return len(ids)

    def delete_email_subscriptions_of(self, game_id: str, seat: str) -> int:
        """Remove every email subscription of ``seat`` at the game, with its deliveries."""
        ids = [e.id for e in self.email_subscriptions(game_id, seat)]
        for sub_id in ids:
            self.delete_email_subscription(sub_id)
        return len(ids)

    def delete_email_subscription(self, sub_id: str) -> None:
        self.session.execute(
            delete(WebhookDeliveryRow).where(WebhookDeliveryRow.subscription_id == sub_id)
        )
        self.session.execute(delete(EmailSubscriptionRow).where(EmailSubscriptionRow.id == sub_id))

    def delete_webhook(self, webhook_id: str) -> None:
        self.session.execute(
            delete(WebhookDeliveryRow).where(WebhookDeliveryRow.webhook_id == webhook_id)
        )
        self.session.execute(delete(WebhookRow).where(WebhookRow.id == webhook_id))

    def deliveries(self, webhook_id: str, *, limit: int) -> list[WebhookDeliveryRow]:
        """A webhook's deliveries, newest first."""
        stmt = (
            select(WebhookDeliveryRow)
            .where(WebhookDeliveryRow.webhook_id == webhook_id)
            .order_by(WebhookDeliveryRow.created_at.desc(), WebhookDeliveryRow.id)
            .limit(limit)
        )
        return list(self.session.execute(stmt).scalars())

    # -- email subscriptions --------------------------------------------------------------

    def email_subscriptions(
        self, game_id: str, seat: str | None = None, *, status: str | None = None
    ) -> list[EmailSubscriptionRow]:
        """Email subscriptions of a game (of one seat, of one status), oldest first."""
        stmt = select(EmailSubscriptionRow).where(EmailSubscriptionRow.game_id == game_id)
        if seat is not None:
            stmt = stmt.where(EmailSubscriptionRow.seat == seat)
        if status is not None:
            stmt = stmt.where(EmailSubscriptionRow.status == status)
        stmt = stmt.order_by(EmailSubscriptionRow.created_at, EmailSubscriptionRow.id)
        return list(self.session.execute(stmt).scalars())

    def email_subscription(self, game_id: str, sub_id: str) -> EmailSubscriptionRow | None:
        stmt = select(EmailSubscriptionRow).where(
            EmailSubscriptionRow.game_id == game_id, EmailSubscriptionRow.id == sub_id
        )
        return self.session.execute(stmt).scalars().first()

    def subscription_by(
        self, *, confirm_hash: str | None = None, unsubscribe_token: str | None = None
    ) -> EmailSubscriptionRow | None:
        """The subscription holding a confirmation hash or an unsubscribe token (by index)."""
        if confirm_hash is not None:
            cond = EmailSubscriptionRow.confirm_hash == confirm_hash
        elif unsubscribe_token is not None:
            cond = EmailSubscriptionRow.unsubscribe_token == unsubscribe_token
        else:
            return None
        return self.session.execute(select(EmailSubscriptionRow).where(cond)).scalars().first()

    def email_deliveries(self, sub_id: str, *, limit: int) -> list[WebhookDeliveryRow]:
        """A subscription's deliveries (confirmation and notifications), newest first."""
        stmt = (
            select(WebhookDeliveryRow)
            .where(WebhookDeliveryRow.subscription_id == sub_id)
            .order_by(WebhookDeliveryRow.created_at.desc(), WebhookDeliveryRow.id)
            .limit(limit)
        )
        return list(self.session.execute(stmt).scalars())

    def emails_to(
        self, address: str, since: datetime, before: WebhookDeliveryRow | None = None
    ) -> int:
        """Emails to ``address`` written since ``since`` (before the delivery ``before``,
        when given) that were or will be sent: the per-address cap counts these."""
        stmt = (
            select(func.count())
            .select_from(WebhookDeliveryRow)
            .where(
                WebhookDeliveryRow.address == address,
                WebhookDeliveryRow.created_at >= since,
                WebhookDeliveryRow.status.not_in(SKIPPED),
            )
        )
        if before is not None:
            stmt = stmt.where(
                or_(
                    WebhookDeliveryRow.created_at < before.created_at,
                    (WebhookDeliveryRow.created_at == before.created_at)
                    & (WebhookDeliveryRow.id < before.id),
                )
            )
        return int(self.session.execute(stmt).scalar_one())

    def delivery(self, delivery_id: str) -> WebhookDeliveryRow | None:
        return self.session.get(WebhookDeliveryRow, delivery_id)

    def delivery_target(
        self, delivery_id: str
    ) -> tuple[WebhookDeliveryRow, WebhookRow | None, EmailSubscriptionRow | None] | None:
        """A delivery with its webhook or its email subscription (whichever it has)."""
        stmt = (
            select(WebhookDeliveryRow, WebhookRow, EmailSubscriptionRow)
            .outerjoin(WebhookRow, WebhookRow.id == WebhookDeliveryRow.webhook_id)
            .outerjoin(
                EmailSubscriptionRow,
                EmailSubscriptionRow.id == WebhookDeliveryRow.subscription_id,
            )
            .where(WebhookDeliveryRow.id == delivery_id)
        )
        row = self.session.execute(stmt).first()
        return None if row is None else (row[0], row[1], row[2])

    # -- the outbox -----------------------------------------------------------------------

    def due(self, now: datetime, *, limit: int) -> list[WebhookDeliveryRow]:
        """Pending deliveries whose time has come and that no worker holds, oldest first
        (locked with SKIP LOCKED on PostgreSQL so processes share the outbox)."""
        stmt = (
            select(WebhookDeliveryRow)
            .where(*_due_at(now))
            .order_by(WebhookDeliveryRow.next_attempt_at, WebhookDeliveryRow.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return list(self.session.execute(stmt).scalars())

    def claim(self, ids: Collection[str], until: datetime) -> None:
        stmt = (
            update(WebhookDeliveryRow)
            .where(WebhookDeliveryRow.id.in_(list(ids)))
            .values(locked_until=until)
            .execution_options(synchronize_session=False)
        )
        result = self.session.execute(stmt)
        assert isinstance(result, CursorResult)


_ANY_DUE = select(WebhookDeliveryRow.id).where(*_due_at(bindparam("now"))).limit(1)
"""Whether :meth:`AccessRepository.due` would find anything, without locking it."""


def outbox_probe(engine: Engine) -> Callable[[datetime], bool]:
    """The delivery worker's idle check, answered on one pooled connection by one Core
    statement (:data:`_ANY_DUE`) instead of a unit of work and the ORM.

    The worker asks it every ``poll`` seconds and finds nothing nearly every time. Through
    the ORM that took 0.46 ms of CPU in the worker's thread in half a dozen pieces between
    the database's calls, each a hand-over of the interpreter lock with the event loop's
    thread: on a busy SQLite server a request stalled 5-9 ms once a second, a third of the
    submissions' p99 (docs/PERFORMANCE.md, issue 28, session 18)."""

    def probe(now: datetime) -> bool:
        with engine.connect() as conn:
            return conn.execute(_ANY_DUE, {"now": now}).first() is not None

    return probe


def loop_outbox_probe(
    engine: Engine, connections: LoopConnections | None
) -> Callable[[datetime], bool] | None:
    """The idle check run on the event loop itself (SQLite with inline reads; else None):
    :data:`_ANY_DUE` on the loop's own read connection (:class:`LoopConnections`), one
    statement in SQLite's autocommit, microseconds of a local file.

    From the worker's thread even the cheap :func:`outbox_probe` cost the loop: while a
    submission ran on the loop, the thread's statement and the loop's passed the
    interpreter lock to and fro, and a submission stalled 5-7 ms on it once every ``poll``
    seconds (docs/PERFORMANCE.md, issue 28, session 18). Run on the loop, nothing is
    handed over; the worker's thread wakes only when something may be due. A database
    error is raised (the connection dropped): the caller wakes the thread, which looks
    itself."""
    if connections is None or engine.dialect.name != "sqlite":
        return None
    compiled = _ANY_DUE.compile(dialect=engine.dialect)
    sql = str(compiled)
    names = list(compiled.positiontup or ())
    fixed = compiled.construct_params({"now": None})  # the status, the limit: as bound
    column = cast(Table, WebhookDeliveryRow.__table__).c.next_attempt_at
    # the dialect's own type (SQLite's DateTime: its stored text form), as SQLAlchemy binds it
    process = column.type.dialect_impl(engine.dialect).bind_processor(engine.dialect)
    source = connections

    def probe(now: datetime) -> bool:
        value = process(now) if process is not None else now
        if not source.available():
            raise sqlite3.OperationalError("the loop's read connection failed a moment ago")
        raw = source.get()
        try:
            row = raw.execute(sql, [value if n == "now" else fixed[n] for n in names]).fetchone()
        except sqlite3.Error:
            source.drop()
            raise
        return row is not None

    return probe


def access(uow: AbstractUnitOfWork) -> AccessRepository:
    """The token and webhook repository of an open unit of work (shares its transaction)."""
    return AccessRepository(uow.games.session)
