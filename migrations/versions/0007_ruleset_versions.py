"""Issue 22 item 10: which rules judged a game is recorded.

* ``events.ruleset_version`` -- the version of the ruleset that judged (appended) each event.
  Events written before this revision keep NULL: which code judged them is not known, and the
  audit says so ("not recorded") rather than guessing.
* ``games.created_version`` -- the ruleset version a game was created with, filled here from
  ``games.ruleset_version`` (which no release changed after creation before this revision).
  ``games.ruleset_version`` stays the version the game is *pinned* to: the umpire's
  ``POST /games/{id}/upgrade`` moves it to the version the server runs.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("ruleset_version", sa.String(32), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("created_version", sa.String(32), nullable=True))
    op.execute("UPDATE games SET created_version = ruleset_version")


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("created_version")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("ruleset_version")
