"""Idempotency keys are per seat: unique (game_id, seat, idempotency_key) on events.

Two seats of one game may use the same Idempotency-Key independently; a key is only
looked up among the events of the seat that presents it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint(op.f("uq_events_game_id_idempotency_key"), type_="unique")
        batch.create_unique_constraint(
            op.f("uq_events_game_id_seat_idempotency_key"),
            ["game_id", "seat", "idempotency_key"],
        )


def downgrade() -> None:
    # Fails if two seats of a game used the same key since the upgrade (as it must).
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint(op.f("uq_events_game_id_seat_idempotency_key"), type_="unique")
        batch.create_unique_constraint(
            op.f("uq_events_game_id_idempotency_key"), ["game_id", "idempotency_key"]
        )
