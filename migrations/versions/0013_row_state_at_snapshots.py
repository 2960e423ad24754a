"""Issue 28 item 3: the game row's state written at snapshots only.

* ``games.state_seq`` -- null: ``games.state`` is the current state (every row written
  before this migration, and every row after a write whose event stored a snapshot);
  otherwise ``games.state`` is the state event ``state_seq`` left (0: the initial state) and
  the current state is it plus the deltas of the events after it (``events.state_delta``,
  migration 0012). A write whose event stores a delta no longer rewrites the whole state in
  the game row: it sets ``state_seq`` (when it was null) and leaves ``state`` as it is.

Every stored game reads as before (``state_seq`` null). The downgrade writes each game's
current state back into ``games.state`` (rebuilt from it and the deltas after
``state_seq``) before it drops the column, so the older release reads every game.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a plain ALTER TABLE on SQLite too: never a batch copy of `games`, whose DROP would
    # cascade to every row that references a game (events, seats...) with foreign keys on
    op.add_column("games", sa.Column("state_seq", sa.Integer(), nullable=True))


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
    json_type = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    games = sa.table("games", sa.column("id", sa.String), sa.column("state", json_type))
    behind = bind.execute(
        sa.text("SELECT id, state, state_seq FROM games WHERE state_seq IS NOT NULL")
    ).all()
    for game_id, stored, after in behind:
        state: Any = _doc(stored)
        rows = bind.execute(
            sa.text(
                "SELECT seq, state_after, state_delta FROM events"
                " WHERE game_id = :g AND seq > :s ORDER BY seq"
            ),
            {"g": game_id, "s": after},
        ).all()
        for _seq, snapshot, delta in rows:
            snapshot, delta = _doc(snapshot), _doc(delta)
            if snapshot is not None:
                state = snapshot
            elif delta is not None:
                state = _apply(state, delta)
            else:
                raise RuntimeError(f"game {game_id}: event {_seq} keeps no state to rebuild from")
        bind.execute(games.update().where(games.c.id == game_id).values(state=state))
    if bind.dialect.name == "sqlite":  # not a batch copy (see the upgrade)
        if sqlite3.sqlite_version_info < (3, 35):
            raise RuntimeError("downgrading below 0013 on SQLite needs SQLite 3.35 or later")
        op.execute("ALTER TABLE games DROP COLUMN state_seq")
    else:
        op.drop_column("games", "state_seq")
