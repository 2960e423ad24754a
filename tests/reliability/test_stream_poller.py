"""Issue 9 item 8: on SQLite, idle event streams share one poller per process; the stream
load (many idle streams on a real server) in its short form.

A hundred streams wait on a game that another process writes (simulated by a raw UPDATE,
which no in-process commit listener sees). The hub's single poller wakes all of them, and
while they wait the database sees one small read per poll, not one per stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from app.db.engine import make_engine, make_session_factory
from app.db.uow import SqlAlchemyUnitOfWork
from app.service.games import create_game
from app.service.stream import EventHub
from tests.match.flowkit import tiny_scenario
from tests.reliability import stream_load
from tests.reliability.conftest import LONG

STREAMS = 100


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """SQLite only: PostgreSQL streams are woken by LISTEN/NOTIFY (test_stream_multiprocess)."""
    path = tmp_path / "referee.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.mark.anyio
async def test_one_poller_wakes_every_stream(sqlite_url: str) -> None:
    db_url = sqlite_url
    engine = make_engine(db_url)
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    game = create_game(uow, ruleset_id="tiny", scenario=tiny_scenario()).id
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    hub = EventHub(db_url, engine, poll_seconds=0.05)
    try:
        with contextlib.ExitStack() as stack:
            subs = [stack.enter_context(hub.subscribe(game)) for _ in range(STREAMS)]
            assert hub.shared_wakeups
            # the first sight of the game wakes its streams (they re-read once); then quiet
            await asyncio.gather(*(s.wait(5) for s in subs))
            statements.clear()
            polls = hub.polls
            quiet = await asyncio.gather(*(s.wait(0.5) for s in subs))
            assert not any(quiet), "woken without a write"
            reads = [s for s in statements if "FROM games" in s]
            assert len(reads) == hub.polls - polls and len(reads) < STREAMS / 5
            # another process writes: every stream wakes
            with engine.begin() as conn:
                conn.execute(
                    text("UPDATE games SET version = version + 1 WHERE id = :id"), {"id": game}
                )
            woken = await asyncio.gather(*(s.wait(10) for s in subs))
            assert all(woken)
    finally:
        await hub.aclose()
        engine.dispose()


def test_stream_load_short_form(db_url: str, tmp_path: Path) -> None:
    """A few hundred idle streams on a real server process: GETs keep answering and one
    action reaches every stream (``make reliability`` runs a thousand and prints latencies)."""
    streams = 1000 if LONG else 150
    figures = stream_load.run(db_url, streams=streams, gets=30, work=tmp_path, settle=0.5)
    assert figures["streams_delivered"] == streams, figures
