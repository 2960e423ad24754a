"""Issue 24 item 5: rate limits shared across processes.

* ``rate_buckets`` -- one token bucket per (kind, key): ``kind`` is ``token`` or ``ip``,
  ``key`` a token's SHA-256 or a client address; the requests left (``tokens``) as of
  ``stamp``, when it is full again (``full_at``: the periodic cleanup drops full buckets and,
  over the key cap, the ones closest to full), and whether the last charge was allowed.
  Nothing but the primary key is indexed, so a charge (which changes no indexed column) is a
  HOT update in place; the cleanup scans the table, at most every 10 s per process. Times are seconds since the epoch on the database's clock. Used on PostgreSQL
  (``app/db/ratelimit.py``); created on SQLite too so both databases have one schema.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_buckets",
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("key", sa.String(128), nullable=False),
        sa.Column("tokens", sa.Double(), nullable=False),
        sa.Column("stamp", sa.Double(), nullable=False),
        sa.Column("full_at", sa.Double(), nullable=False),
        sa.Column("allowed", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("kind", "key", name=op.f("pk_rate_buckets")),
    )
    if op.get_bind().dialect.name == "postgresql":
        # every charge rewrites its row: room on the page keeps the new version beside the old
        op.execute("ALTER TABLE rate_buckets SET (fillfactor = 70)")


def downgrade() -> None:
    op.drop_table("rate_buckets")
