"""Issue 28, session 16: a write transaction on SQLite is begun and ended on the driver.

``app.db.uow`` begins a write with ``BEGIN IMMEDIATE`` straight on the driver's connection,
not through SQLAlchemy's ``Connection.begin``; the repository's statements run in it, and
whatever goes through SQLAlchemy (a Core statement, the ORM session) makes SQLAlchemy take
the open transaction over (the engine's begin hook). These tests hold the unit of work to
what a transaction must do whichever way it went: committed only by ``commit``, wholly; rolled
back otherwise; nothing left open on the connection after it; and on PostgreSQL unchanged
(SQLAlchemy begins it). Each runs a real database."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Engine, select, text

from app.db.engine import make_engine, make_session_factory
from app.db.models import GameRow
from app.db.uow import SqlAlchemyUnitOfWork
from app.service import games
from app.service.boards import BoardCache

SEED = Path(__file__).resolve().parents[2] / "scenarios/zoc/seed-example.json"


def _game(engine: Engine) -> tuple[SqlAlchemyUnitOfWork, str, int]:
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    created = games.create_game(
        uow, ruleset_id="zoc", scenario=json.loads(SEED.read_text()), boards=BoardCache()
    )
    return uow, created.id, created.version


def _version(engine: Engine, game_id: str) -> int:
    """The game's version as another connection reads it (what is committed)."""
    with engine.connect() as conn:
        return int(
            conn.execute(text("SELECT version FROM games WHERE id = :id"), {"id": game_id}).one()[0]
        )


def _advance(uow: SqlAlchemyUnitOfWork, game_id: str, version: int) -> None:
    """The repository's conditional UPDATE (a statement on the driver), as a write runs it."""
    assert uow.games.advance(game_id, expected_version=version, state=None, status="active")


def test_a_write_on_the_driver_commits_at_commit_only(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        uow, game_id, version = _game(engine)
        with uow.begin(write=True):
            _advance(uow, game_id, version)
            assert _version(engine, game_id) == version  # not visible before the commit
            uow.commit()
        assert _version(engine, game_id) == version + 1
        with uow.begin(write=True):  # and the next write on the same connection begins anew
            _advance(uow, game_id, version + 1)
            uow.commit()
        assert _version(engine, game_id) == version + 2
    finally:
        engine.dispose()


def test_a_write_not_committed_leaves_nothing_and_nothing_open(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        uow, game_id, version = _game(engine)
        with uow.begin(write=True):
            _advance(uow, game_id, version)
        assert _version(engine, game_id) == version
        try:
            with uow.begin(write=True):
                _advance(uow, game_id, version)
                raise RuntimeError("the write fails after its UPDATE")
        except RuntimeError:
            pass
        assert _version(engine, game_id) == version
        with uow.begin(write=True):  # the database's write lock was given back
            _advance(uow, game_id, version)
            uow.rollback()
        assert _version(engine, game_id) == version
        with uow.begin(write=True):
            _advance(uow, game_id, version)
            uow.commit()
        assert _version(engine, game_id) == version + 1
    finally:
        engine.dispose()


def test_the_session_takes_the_open_transaction_over(db_url: str) -> None:
    """A statement of the ORM session after the driver's UPDATE runs in the same transaction
    (it sees the UPDATE; SQLite would refuse a second BEGIN), and the commit commits both."""
    engine = make_engine(db_url)
    try:
        uow, game_id, version = _game(engine)
        with uow.begin(write=True):
            _advance(uow, game_id, version)
            seen = uow.session.execute(select(GameRow.version).where(GameRow.id == game_id))
            assert seen.scalar_one() == version + 1
            uow.commit()
        assert _version(engine, game_id) == version + 1
        with uow.begin(write=True):  # taken over, then rolled back: wholly
            _advance(uow, game_id, version + 1)
            uow.session.execute(select(GameRow.version).where(GameRow.id == game_id)).one()
        assert _version(engine, game_id) == version + 1
    finally:
        engine.dispose()


def test_a_session_made_but_unused_does_not_drop_the_write(db_url: str) -> None:
    """The session's commit has nothing to do when it never ran a statement: the
    transaction begun on the driver is committed all the same."""
    engine = make_engine(db_url)
    try:
        uow, game_id, version = _game(engine)
        with uow.begin(write=True):
            _advance(uow, game_id, version)
            assert uow.session is not None  # made, never used
            uow.commit()
        assert _version(engine, game_id) == version + 1
    finally:
        engine.dispose()
