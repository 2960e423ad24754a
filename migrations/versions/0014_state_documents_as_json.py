"""Issue 28: the state documents stored as ``json`` on PostgreSQL, not ``jsonb``.

``games.state``, ``games.initial_state``, ``events.state_after`` and ``events.state_delta``
become ``json``: PostgreSQL keeps their text as written, so a document is read back in the
key order it was written in, as SQLite gives it back. A write then keeps the state it made
as the state every reader parses, on both databases, instead of encoding the whole state
and parsing it again in ``jsonb``'s key order (80% of a 500-unit submission's CPU on
PostgreSQL). Nothing queries inside these documents in SQL. The stored documents are
converted as they are (their text in ``jsonb``'s order), so every game reads as before.
SQLite stores JSON as text already: nothing changes there.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    ("games", "state"),
    ("games", "initial_state"),
    ("events", "state_after"),
    ("events", "state_delta"),
)


def _retype(to: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE {to} USING {column}::{to}")


def upgrade() -> None:
    _retype("json")


def downgrade() -> None:
    _retype("jsonb")
