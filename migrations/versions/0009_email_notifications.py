"""Issue 24 items 3-4: notifications by email, through the webhook outbox.

* ``email_subscriptions`` -- a seat's address, the notifications it chose, its status
  (``unconfirmed``, ``confirmed``, ``unsubscribed``), the hash of its pending confirmation
  token and its unsubscribe token.
* ``webhook_deliveries`` becomes the outbox of every channel: ``channel`` (``webhook`` for
  every existing row), ``subscription_id``, ``game_id`` and ``address`` for email rows
  (indexed by address and time: the per-address cap), and ``webhook_id`` nullable.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "email_subscriptions",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("game_id", sa.String(36), nullable=False),
        sa.Column("seat", sa.String(64), nullable=False),
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("events", JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("confirm_hash", sa.String(64), nullable=True),
        sa.Column("unsubscribe_token", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("confirmed_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_email_subscriptions_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_email_subscriptions")),
        sa.UniqueConstraint("confirm_hash", name=op.f("uq_email_subscriptions_confirm_hash")),
        sa.UniqueConstraint(
            "unsubscribe_token", name=op.f("uq_email_subscriptions_unsubscribe_token")
        ),
    )
    op.create_index(
        "ix_email_subscriptions_game_id_seat", "email_subscriptions", ["game_id", "seat"]
    )
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.alter_column("webhook_id", existing_type=sa.String(36), nullable=True)
        batch.add_column(
            sa.Column("channel", sa.String(16), nullable=False, server_default="webhook")
        )
        batch.add_column(sa.Column("subscription_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("game_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("address", sa.String(320), nullable=True))
        batch.create_foreign_key(
            op.f("fk_webhook_deliveries_subscription_id_email_subscriptions"),
            "email_subscriptions",
            ["subscription_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch.create_foreign_key(
            op.f("fk_webhook_deliveries_game_id_games"),
            "games",
            ["game_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch.create_index(
            op.f("ix_webhook_deliveries_subscription_id"), ["subscription_id"]
        )
        batch.create_index("ix_webhook_deliveries_address_created_at", ["address", "created_at"])


def downgrade() -> None:
    op.execute("DELETE FROM webhook_deliveries WHERE webhook_id IS NULL")
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.drop_index("ix_webhook_deliveries_address_created_at")
        batch.drop_index(op.f("ix_webhook_deliveries_subscription_id"))
        batch.drop_constraint(op.f("fk_webhook_deliveries_game_id_games"), type_="foreignkey")
        batch.drop_constraint(
            op.f("fk_webhook_deliveries_subscription_id_email_subscriptions"),
            type_="foreignkey",
        )
        batch.drop_column("address")
        batch.drop_column("game_id")
        batch.drop_column("subscription_id")
        batch.drop_column("channel")
        batch.alter_column("webhook_id", existing_type=sa.String(36), nullable=False)
    op.drop_index("ix_email_subscriptions_game_id_seat", table_name="email_subscriptions")
    op.drop_table("email_subscriptions")
