"""PLACEHOLDER (issue 22 item 10 branch): ``games.access_epoch``, an integer NOT NULL, server
default 0. Another branch adds the real migration 0006; this minimal copy only lets migration
0007 chain onto it and is reconciled with that one when the branches merge.

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
