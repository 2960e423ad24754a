"""Issue 28 item 3: event states stored as deltas, with a snapshot every N events.

* ``events.state_delta`` -- the change from the state before the event to its own
  (``app/db/deltas.py``), written instead of the whole state (``state_after``) by every event
  that is not a snapshot (``REFEREE_SNAPSHOT_EVERY``, default 32).

Every stored event keeps what it had: its ``state_after`` counts as a snapshot, so every game
written before this migration reads, plays on and audits as before. The downgrade writes
the whole state back into ``state_after`` of every delta event (rebuilt from the nearest
snapshot) before it drops the column, so the older release reads them too.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[Any]:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("state_delta", _json(), nullable=True))


def _doc(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _apply(doc: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """``app.db.deltas.apply_delta`` as of this migration (kept here: a migration must not
    change when the application's code does)."""
    out = dict(doc)
    for name, value in (delta.get("set") or {}).items():
        out[name] = value
    for name, changes in (delta.get("items") or {}).items():
        items = list(out[name])
        for index, value in changes:
            items[index] = value
        out[name] = items
    for name, change in (delta.get("keys") or {}).items():
        entry = dict(out[name])
        for key in change.get("del") or ():
            entry.pop(key, None)
        entry.update(change.get("put") or {})
        out[name] = entry
    return out


def downgrade() -> None:
    bind = op.get_bind()
    games = bind.execute(
        sa.text("SELECT DISTINCT game_id FROM events WHERE state_delta IS NOT NULL")
    ).all()
    events = sa.table(
        "events",
        sa.column("game_id", sa.String),
        sa.column("seq", sa.Integer),
        sa.column("state_after", _json()),
    )
    for (game_id,) in games:
        initial = bind.execute(
            sa.text("SELECT initial_state FROM games WHERE id = :g"), {"g": game_id}
        ).scalar()
        state: Any = _doc(initial)
        rows = bind.execute(
            sa.text(
                "SELECT seq, state_after, state_delta FROM events WHERE game_id = :g ORDER BY seq"
            ),
            {"g": game_id},
        ).all()
        for seq, stored, stored_delta in rows:
            # SQLite hands the JSON text back (``null`` for a missing snapshot)
            snapshot, delta = _doc(stored), _doc(stored_delta)
            if snapshot is not None:
                state = snapshot
            elif delta is not None and state is not None:
                state = _apply(state, delta)
                bind.execute(
                    events.update()
                    .where(events.c.game_id == game_id, events.c.seq == seq)
                    .values(state_after=state)
                )
            else:
                state = None
    with op.batch_alter_table("events") as batch:
        batch.drop_column("state_delta")
