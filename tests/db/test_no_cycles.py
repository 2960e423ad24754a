"""A write leaves no garbage that only the collector can free (issue 28, session 18).

The unit of work and its repository referred to each other through the repository's
callbacks (``session_of``, ``stage``), so every write left one small cycle behind; thousands
of writes later a young collection freed them all at once, 20-40 ms of a request's time --
the submissions' p99. Here submissions run with the collector off, on both databases and on
SQLite's inline (loop) write path too, and a collection afterwards must find nothing."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from app.db.engine import loop_writer, make_engine, make_session_factory
from app.db.repository import WouldWait
from app.db.uow import SqlAlchemyUnitOfWork
from app.service import actions, games
from app.service.boards import BoardCache
from app.service.pipeline import IfMatch, WriteRequest

SEED = Path(__file__).resolve().parents[2] / "scenarios/zoc/seed-example.json"
HEXES = ("e3307", "e3207")


def _garbage_left_by(write: Callable[[], None], n: int, warm: int) -> int:
    """Objects a collection frees after ``n`` calls of ``write`` with the collector off,
    after ``warm`` calls: the first of each kind fill caches once (statement plans -- a
    snapshot's statement differs from a delta's --, boards, states), not what is measured."""
    for _ in range(warm):
        write()
    gc.collect()
    gc.disable()
    try:
        for _ in range(n):
            write()
        return gc.collect()
    finally:
        gc.enable()


@pytest.mark.parametrize("path", ["worker", "inline"])
def test_submissions_leave_no_cyclic_garbage(db_url: str, path: str) -> None:
    engine = make_engine(db_url)
    factory = make_session_factory(engine)
    writer = loop_writer(engine, path == "inline")
    if path == "inline" and writer is None:
        pytest.skip("inline writes are SQLite's")
    boards = BoardCache()
    try:
        uow = SqlAlchemyUnitOfWork(factory)
        created = games.create_game(
            uow, ruleset_id="zoc", scenario=json.loads(SEED.read_text()), boards=boards
        )
        gid, umpire = created.id, created.seats["umpire"]
        version = [created.version]
        inline = [0]

        def submit(unit: SqlAlchemyUnitOfWork) -> int:
            hex_ = HEXES[version[0] % 2]
            req = WriteRequest(
                unit, gid, umpire, IfMatch(frozenset({version[0]})), None, boards, None
            )
            action = {"kind": "place_unit", "unit": "de-inf-2", "hex": hex_}
            return actions.submit_action(req, actions.SubmitAction(action)).version

        def write() -> None:
            # as app/api/fast.py runs a submission: inline first where it may, else (and
            # when it would wait: a cold cache) on the pool's connection
            if writer is not None:
                try:
                    version[0] = submit(SqlAlchemyUnitOfWork(factory, writer=writer))
                    inline[0] += 1
                    return
                except WouldWait:
                    pass
            version[0] = submit(SqlAlchemyUnitOfWork(factory))

        # past the first snapshot (every 32 events) before, and past another one while measured
        assert _garbage_left_by(write, 50, warm=40) == 0
        assert version[0] == created.version + 90
        assert inline[0] >= (50 if path == "inline" else 0)  # measured on the path named
    finally:
        if writer is not None:
            writer.drop(failed=False)
        engine.dispose()


def test_a_write_repository_used_after_its_block_says_so(db_url: str) -> None:
    """Detached at the end of the transaction, the repository still names the mistake of
    using it afterwards (not the message of a read-only transaction)."""
    engine = make_engine(db_url)
    try:
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
        with uow.begin(write=True):
            assert uow.games.session is not None
        with pytest.raises(RuntimeError, match="outside its `with` block"):
            _ = uow.games.session
    finally:
        engine.dispose()
