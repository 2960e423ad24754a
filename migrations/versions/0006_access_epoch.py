"""Issue 22: ``games.access_epoch``, a counter every revocation, rotation and reissue of one
of the game's credentials increments in its own transaction. The streams' shared poller reads
it with the game's version, so a revocation committed by another process reaches open streams
on SQLite too (PostgreSQL also gets a notification).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("access_epoch", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("access_epoch")
