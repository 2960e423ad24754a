"""SQLAlchemy models. The schema is created only by the Alembic migrations in ``migrations/``.

* ``scenarios`` -- the immutable part of a game: the scenario as submitted, the board the
  ruleset derived from it, and a SHA-256 digest of the board (the in-process board cache key).
* ``games`` -- one row per game: ruleset id, the version it is pinned to and the version it
  was created with, options, the current state, a version counter for optimistic
  concurrency, status, public-read flag, timestamps.
* ``seats`` -- one per side plus the umpire; only a SHA-256 hash of each token is stored.
* ``events`` -- append-only log of accepted actions with their ruling, dice, the version
  they produced and the ruleset version that judged them; the idempotency key (unique per
  game and seat) and the stored response make retries safe. The state each event left is a
  snapshot every N events (``REFEREE_SNAPSHOT_EVERY``, by default by weight) and a delta in
  between (migration 0012, :mod:`app.db.deltas`).
* ``access_tokens`` -- read-only (spectator) tokens minted by a seat or the umpire; hashed.
* ``webhooks`` / ``webhook_deliveries`` -- per-seat webhooks and their outbox: a delivery row
  is written in the same transaction as the event that caused it and sent after commit by
  the in-process worker (:mod:`app.service.notify`), so deliveries survive a restart. The
  outbox has channels (migration 0009): ``webhook`` rows belong to a webhook, ``email`` and
  ``email_confirm`` rows to an email subscription, ``email_invite`` rows to their game only.
* ``email_subscriptions`` -- a seat's email address for its notifications (issue 24): the
  confirmation token's hash until confirmed, the unsubscribe token (kept: every email
  carries it).
* ``messages`` -- table talk (issue 26 item 4): one row per message, numbered per game
  (``seq``), with its sender seat and recipient (``all``, a side or ``umpire``).
* ``rate_buckets`` -- the rate limits' token buckets shared by every process on one
  PostgreSQL database (:mod:`app.db.ratelimit`); not used on SQLite (one process).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

JsonType = JSON().with_variant(JSONB(), "postgresql")
NullableJsonType = JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
"""A JSON column whose Python None is SQL ``NULL`` (``JsonType`` writes JSON ``null``), so
that ``IS NULL`` finds the rows without a document."""
DocumentType = JSON()
"""A state document's column: ``json`` on PostgreSQL (not ``jsonb``), so the text is kept as
written and read back in its own key order, on both databases (migration 0014): what a
write made is what a reader parses, with no re-parse in ``jsonb``'s order (issue 28)."""
NullableDocumentType = JSON(none_as_null=True)
""":data:`DocumentType` whose Python None is SQL ``NULL`` (see :data:`NullableJsonType`)."""


INITIAL_VERSION = 1
"""A new game's version; each accepted event adds one, so event ``seq`` = version - 1."""


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class ScenarioRow(Base):
    """The immutable scenario and board of one game."""

    __tablename__ = "scenarios"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    ruleset_id: Mapped[str] = mapped_column(String(64))
    ruleset_version: Mapped[str] = mapped_column(String(32))
    digest: Mapped[str] = mapped_column(String(64), index=True)
    scenario: Mapped[dict[str, Any]] = mapped_column(JsonType)
    board: Mapped[dict[str, Any]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameRow(Base):
    """A game's current row; loading a game reads this, never the event log."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    ruleset_id: Mapped[str] = mapped_column(String(64), index=True)
    ruleset_version: Mapped[str] = mapped_column(String(32))
    scenario_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("scenarios.id", ondelete="RESTRICT"), index=True
    )
    options: Mapped[dict[str, Any]] = mapped_column(JsonType)
    state: Mapped[dict[str, Any]] = mapped_column(DocumentType)
    """The game's state at version ``version`` -- or, when ``state_seq`` is set, at an earlier
    one. Read it through the repository (``GameRecord.state``), which rebuilds the current
    state; this column alone is current only where ``state_seq`` is null."""
    state_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Null: ``state`` is the current state. Otherwise ``state`` is the state event
    ``state_seq`` left (0: the initial state), and the current one is that plus the deltas
    of the events after it (``events.state_delta``). A write whose event stores a delta does
    not rewrite the (state-sized) ``state``; one that stores a snapshot writes it and sets
    this back to null (migration 0013, issue 28 item 3)."""
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="active")
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    dice_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """Secret dice seed (hex). Never leaves the service until revealed."""
    dice_commitment: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """SHA-256 (hex) of the seed, published at creation."""
    dice_counter: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Number of dice rolled so far (the next roll's counter)."""
    seed_revealed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    match: Mapped[dict[str, Any] | None] = mapped_column(JsonType, nullable=True)
    """Match options: time control, physical dice, take-backs."""
    clock: Mapped[dict[str, Any] | None] = mapped_column(JsonType, nullable=True)
    """Clock state (remaining time per side, running side and since when)."""
    initial_state: Mapped[dict[str, Any] | None] = mapped_column(DocumentType, nullable=True)
    """The state at creation: where audit replay and a rollback to version 1 start."""
    winner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The winning side of a finished game, when there is one (e.g. after a clock forfeit)."""
    access_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Incremented by every revocation, rotation or reissue of one of the game's credentials
    (the streams' shared poller reads it, so open streams re-check their credential)."""
    created_version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The ruleset version the game was created with (``ruleset_version`` is the version it
    is pinned to now: the umpire may upgrade it, ``POST /games/{id}/upgrade``)."""


class GameFields(Protocol):
    """What the service reads of a game's row: a :class:`GameRow` (a write's locked read) or a
    plain :class:`app.db.repository.GameRecord` (a read's Core statement, issue 28). Read
    only: a game row changes by the repository's statements, never by setting attributes."""

    @property
    def id(self) -> str: ...
    @property
    def ruleset_id(self) -> str: ...
    @property
    def ruleset_version(self) -> str: ...
    @property
    def scenario_id(self) -> str: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def state(self) -> dict[str, Any]: ...
    @property
    def version(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def public(self) -> bool: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def dice_seed(self) -> str | None: ...
    @property
    def dice_commitment(self) -> str | None: ...
    @property
    def dice_counter(self) -> int: ...
    @property
    def seed_revealed(self) -> bool: ...
    @property
    def match(self) -> dict[str, Any] | None: ...
    @property
    def clock(self) -> dict[str, Any] | None: ...
    @property
    def initial_state(self) -> dict[str, Any] | None: ...
    @property
    def winner(self) -> str | None: ...
    @property
    def access_epoch(self) -> int: ...
    @property
    def created_version(self) -> str | None: ...


class SeatRow(Base):
    """A seat at a game: a side name or ``umpire``, and the SHA-256 of its bearer token."""

    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        Index("ix_seats_game_id_token_hash", "game_id", "token_hash"),
        Index("ix_seats_token_hash", "token_hash"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(36), ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EventRow(Base):
    """One accepted action. Append-only."""

    __tablename__ = "events"
    __table_args__ = (
        UniqueConstraint("game_id", "seq"),
        UniqueConstraint("game_id", "seat", "idempotency_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(36), ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(64))
    action: Mapped[dict[str, Any]] = mapped_column(JsonType)
    ruling: Mapped[dict[str, Any]] = mapped_column(JsonType)
    dice: Mapped[list[Any]] = mapped_column(JsonType)
    """The rolls the ruling used, each ``Roll.to_json()`` (n, sides, value, client_seed…)."""
    version: Mapped[int] = mapped_column(Integer)
    idempotency_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    request_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    response: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The exact JSON text answered when the event was accepted, replayed byte for byte to a
    retry with the same Idempotency-Key; null when the request carried no key (nothing can
    replay it)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    payload: Mapped[dict[str, Any] | None] = mapped_column(JsonType, nullable=True)
    """Details of a non-action event (phase reached, rollback target, commitment…)."""
    state_after: Mapped[dict[str, Any] | None] = mapped_column(DocumentType, nullable=True)
    """Snapshot of the state this event produced (rollbacks restore it; never served raw);
    null when the event stores a delta instead (``state_delta``) or kept no state. Read the
    state of an event with :meth:`app.db.repository.GameRepository.state_after`, never this
    column alone (:mod:`app.db.deltas`)."""
    state_delta: Mapped[dict[str, Any] | None] = mapped_column(NullableDocumentType, nullable=True)
    """The change from the state before this event to its own (:mod:`app.db.deltas`), when
    ``state_after`` holds no snapshot (migration 0012); SQL ``NULL`` otherwise (what finds
    the nearest snapshot)."""
    visible_to: Mapped[list[str] | None] = mapped_column(JsonType, nullable=True)
    """Seats that may read this event; None = every reader of the game."""
    ruleset_version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The version of the ruleset that judged (appended) this event; None for events written
    before migration 0007 (not recorded)."""


@dataclass(slots=True)
class NewEvent:
    """An event being appended (``events`` columns but the id): what a write builds and
    :meth:`app.db.repository.GameRepository.append_event` inserts with one Core statement,
    without the ORM's instrumented :class:`EventRow` (55 us a write; issue 28, session 9).
    Read like an :class:`EventRow` by the code that answers and notifies the write."""

    game_id: str
    seq: int
    seat: str
    kind: str
    action: dict[str, Any]
    ruling: Any
    """The ruling's document, or (a submission's) the :class:`app.service.jsonsafe.StoredText`
    of its JSON text, encoded from the model and written as it is."""
    dice: list[Any]
    version: int
    idempotency_key: str | None
    request_digest: str | None
    response: str | None
    created_at: datetime
    payload: dict[str, Any] | None
    state_after: Any
    state_delta: Any
    visible_to: list[str] | None
    ruleset_version: str | None

    def values(self) -> dict[str, Any]:
        """The row's column values."""
        return {name: getattr(self, name) for name in NewEvent.__slots__}


class SealedOrderRow(Base):
    """One side's sealed order for a simultaneous secret decision.

    Only ``commitment`` (SHA-256 of nonce + canonical order JSON) and the receipt time are
    published before every side has submitted; then order and nonce are revealed.
    """

    __tablename__ = "sealed_orders"
    __table_args__ = (UniqueConstraint("game_id", "decision", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(36), ForeignKey("games.id", ondelete="CASCADE"))
    decision: Mapped[str] = mapped_column(String(128))
    seat: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    nonce: Mapped[str] = mapped_column(String(64))
    order: Mapped[dict[str, Any]] = mapped_column(JsonType)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revealed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class MessageRow(Base):
    """One table-talk message (migration 0011). Never part of the log: no ruling reads it."""

    __tablename__ = "messages"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(36), ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    sender: Mapped[str] = mapped_column(String(64))
    recipient: Mapped[str] = mapped_column(String(64))
    """``all``, a side, or ``umpire``."""
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AccessTokenRow(Base):
    """A read-only token of one game (scope ``spectator``): reads like an anonymous reader of
    a public game, even when the game is private; never writes. Only its SHA-256 is stored.
    Revoked tokens keep their row (``revoked_at``) so the minting seat can list them."""

    __tablename__ = "access_tokens"
    __table_args__ = (Index("ix_access_tokens_token_hash", "token_hash"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(36), ForeignKey("games.id", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64))
    scope: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[str] = mapped_column(String(64))
    """The seat that minted it (a side or ``umpire``)."""
    label: Mapped[str | None] = mapped_column(String(100), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class WebhookRow(Base):
    """A seat's webhook: notifications of its game are POSTed to ``url``, signed with
    HMAC-SHA256 under ``secret`` (shown once at registration; kept to sign)."""

    __tablename__ = "webhooks"
    __table_args__ = (Index("ix_webhooks_game_id_seat", "game_id", "seat"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(36), ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(String(2048))
    secret: Mapped[str] = mapped_column(String(64))
    events: Mapped[list[str]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EmailSubscriptionRow(Base):
    """A seat's email address for notifications of its game. ``status``: ``unconfirmed``
    until the confirmation link is followed (only the confirmation email is ever sent
    before), then ``confirmed``; ``unsubscribed`` once its unsubscribe link is used."""

    __tablename__ = "email_subscriptions"
    __table_args__ = (Index("ix_email_subscriptions_game_id_seat", "game_id", "seat"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(36), ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[str] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(320))
    events: Mapped[list[str]] = mapped_column(JsonType)
    status: Mapped[str] = mapped_column(String(16), default="unconfirmed")
    confirm_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    """SHA-256 of the single-use confirmation token of the latest confirmation email (made
    when that email is sent; the token itself is never stored); null once confirmed."""
    unsubscribe_token: Mapped[str] = mapped_column(String(64), unique=True)
    """Carried by every email of the subscription (kept, like a webhook's signing secret);
    it can only stop this subscription's emails."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class WebhookDeliveryRow(Base):
    """One notification for one webhook (the outbox): ``pending`` until a 2xx answer
    (``delivered``) or the last retry (``failed``). ``attempts_log`` records every try."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_status_next_attempt_at", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_address_created_at", "address", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    webhook_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("webhooks.id", ondelete="CASCADE"), index=True, nullable=True
    )
    """The webhook of a ``webhook`` delivery (null for the email channels)."""
    channel: Mapped[str] = mapped_column(String(16), default="webhook", server_default="webhook")
    """``webhook``, ``email`` (a notification), ``email_confirm`` or ``email_invite``."""
    subscription_id: Mapped[str | None] = mapped_column(
        String(36),
        ForeignKey("email_subscriptions.id", ondelete="CASCADE"),
        index=True,
        nullable=True,
    )
    """The email subscription of an ``email`` or ``email_confirm`` delivery."""
    game_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("games.id", ondelete="CASCADE"), nullable=True
    )
    """The game of an email delivery."""
    address: Mapped[str | None] = mapped_column(String(320), nullable=True)
    """The recipient of an email delivery (the per-address cap counts these)."""
    notification: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JsonType)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """A worker claimed it until then (several processes may share the outbox)."""
    attempts_log: Mapped[list[Any]] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class RateBucketRow(Base):
    """One rate-limit token bucket (``kind`` ``token`` or ``ip``; ``key`` a token's SHA-256 or
    an address), shared by the processes on one PostgreSQL database. Times are seconds since
    the epoch on the database's clock. Only :mod:`app.db.ratelimit` reads or writes it."""

    __tablename__ = "rate_buckets"

    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    tokens: Mapped[float] = mapped_column(Double)
    """Requests left after the last charge."""
    stamp: Mapped[float] = mapped_column(Double)
    """When ``tokens`` was computed."""
    full_at: Mapped[float] = mapped_column(Double)
    """When the bucket is back to its burst if the key sends nothing more (not indexed: a
    charge then changes no indexed column, so PostgreSQL updates the row in place, HOT)."""
    allowed: Mapped[bool] = mapped_column(Boolean)
    """Whether the last charge was allowed (what the atomic update answers)."""
