"""Match flow: verifiable dice, match options, clocks, initial state, event snapshots and
visibility, sealed orders.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[object]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("dice_seed", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("dice_commitment", sa.String(length=64), nullable=True))
        batch.add_column(
            sa.Column("dice_counter", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(
            sa.Column("seed_revealed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("match", _json(), nullable=True))
        batch.add_column(sa.Column("clock", _json(), nullable=True))
        batch.add_column(sa.Column("initial_state", _json(), nullable=True))

    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("payload", _json(), nullable=True))
        batch.add_column(sa.Column("state_after", _json(), nullable=True))
        batch.add_column(sa.Column("visible_to", _json(), nullable=True))

    op.create_table(
        "sealed_orders",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=36), nullable=False),
        sa.Column("decision", sa.String(length=128), nullable=False),
        sa.Column("seat", sa.String(length=64), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("order", _json(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_sealed_orders_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sealed_orders")),
        sa.UniqueConstraint(
            "game_id", "decision", "seat", name=op.f("uq_sealed_orders_game_id_decision_seat")
        ),
    )


def downgrade() -> None:
    op.drop_table("sealed_orders")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("visible_to")
        batch.drop_column("state_after")
        batch.drop_column("payload")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("initial_state")
        batch.drop_column("clock")
        batch.drop_column("match")
        batch.drop_column("seed_revealed")
        batch.drop_column("dice_counter")
        batch.drop_column("dice_commitment")
        batch.drop_column("dice_seed")
