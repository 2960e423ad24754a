"""Issue 26 appeals: no schema change. An appeal and its decision are events of the log
(``appeal``, ``appeal_decided``) with their payloads, and the appeal window is a match option
(``games.match``), so nothing new is stored apart; the revision is kept so that databases
that reached it stay on the one chain.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
