"""Issue 28, sessions 16 and 17: a write transaction is begun and ended on the driver.

``app.db.uow`` begins a write on SQLite with ``BEGIN IMMEDIATE`` straight on the driver's
connection, not through SQLAlchemy's ``Connection.begin``; on PostgreSQL (since session 17)
psycopg begins it with the first statement, as it did under SQLAlchemy's ``begin``; either way
it is committed or rolled back on the driver. The repository's statements run in it, and
whatever goes through SQLAlchemy (a Core statement, the ORM session) makes SQLAlchemy take
the open transaction over (SQLite: the engine's begin hook; PostgreSQL: SQLAlchemy's begin
sends nothing). These tests hold the unit of work to what a transaction must do whichever
way it went: committed only by ``commit``, wholly; rolled back otherwise; nothing left open
on the connection after it; a driver's refusal raised as SQLAlchemy raises it. Each runs a
real database."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, event, select, text
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection

from app.db.engine import LoopWriter, make_engine, make_session_factory, sqlite_file
from app.db.models import GameRow
from app.db.repository import WouldWait
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


@pytest.fixture
def any_engine(db_url: str) -> Iterator[Engine]:
    """An engine on a fresh database of each kind."""
    made = make_engine(db_url)
    yield made
    made.dispose()


def _advance(uow: SqlAlchemyUnitOfWork, game_id: str, version: int) -> None:
    """The repository's conditional UPDATE (a statement on the driver), as a write runs it."""
    assert uow.games.advance(game_id, expected_version=version, state=None, status="active")


def test_a_write_on_the_driver_commits_at_commit_only(any_engine: Engine) -> None:
    engine = any_engine
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


def test_a_write_not_committed_leaves_nothing_and_nothing_open(any_engine: Engine) -> None:
    engine = any_engine
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


def test_the_session_takes_the_open_transaction_over(any_engine: Engine) -> None:
    """A statement of the ORM session after the driver's UPDATE runs in the same transaction
    (it sees the UPDATE; SQLite would refuse a second BEGIN), and the commit commits both."""
    engine = any_engine
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


def test_a_session_made_but_unused_does_not_drop_the_write(any_engine: Engine) -> None:
    """The session's commit has nothing to do when it never ran a statement: the
    transaction begun on the driver is committed all the same."""
    engine = any_engine
    uow, game_id, version = _game(engine)
    with uow.begin(write=True):
        _advance(uow, game_id, version)
        assert uow.session is not None  # made, never used
        uow.commit()
    assert _version(engine, game_id) == version + 1


def test_a_rollback_with_a_session_made_but_unused_rolls_back(any_engine: Engine) -> None:
    """``rollback`` ends the connection's transaction even when the session never began
    one (a commit after it then has nothing to commit)."""
    engine = any_engine
    uow, game_id, version = _game(engine)
    with uow.begin(write=True):
        _advance(uow, game_id, version)
        assert uow.session is not None
        uow.rollback()
        uow.commit()
    assert _version(engine, game_id) == version


# -- SQLite only: the driver's transaction, the write lock, the inline writer's connection --


@pytest.fixture
def sqlite_url(db_url: str) -> str:
    if not db_url.startswith("sqlite"):
        pytest.skip("the transaction begun on the driver is SQLite's")
    return db_url


@pytest.fixture
def engine(sqlite_url: str) -> Iterator[Engine]:
    made = make_engine(sqlite_url)
    yield made
    made.dispose()


def _lock_free(engine: Engine) -> bool:
    """Another connection gets SQLite's write lock at once."""
    other = sqlite3.connect(str(sqlite_file(engine.url)), timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


@pytest.mark.parametrize("inline", [False, True], ids=["pooled", "inline"])
def test_a_rollback_gives_the_write_lock_back_at_once(engine: Engine, inline: bool) -> None:
    writer = LoopWriter(engine) if inline else None
    try:
        _, game_id, version = _game(engine)
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine), writer=writer)
        with uow.begin(write=True):
            _advance(uow, game_id, version)
            assert not _lock_free(engine)
            uow.rollback()
            assert _lock_free(engine)  # inside the block: not left to the pool's reset
        assert _version(engine, game_id) == version
    finally:
        if writer is not None:
            writer.drop(failed=False)


def test_the_inline_writers_connection_is_left_clean_on_every_path(engine: Engine) -> None:
    """The inline writer keeps its connection between writes: after each way a write can
    end, no transaction is open on it and the write lock is free."""
    writer = LoopWriter(engine)
    try:
        _, game_id, version = _game(engine)
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine), writer=writer)

        def clean() -> bool:
            kept = writer.get()
            assert kept is not None
            raw = kept.connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            return not raw.in_transaction and not kept.in_transaction() and _lock_free(engine)

        with pytest.raises(RuntimeError), uow.begin(write=True):
            _advance(uow, game_id, version)
            raise RuntimeError("the write fails after its UPDATE")
        assert clean()
        with pytest.raises(WouldWait), uow.begin(write=True):
            _advance(uow, game_id, version)
            uow.games.stored_state(game_id, version)  # a document: not read inline
        assert clean()
        with pytest.raises(RuntimeError), uow.begin(write=True):
            _advance(uow, game_id, version)
            uow.session.execute(text("SELECT 1")).one()  # taken over by the session
            raise RuntimeError("the write fails after its UPDATE")
        assert clean()
        with pytest.raises(RuntimeError), uow.begin(write=True):
            _advance(uow, game_id, version)
            uow.games._connection().execute(text("SELECT 1")).one()  # taken over (Core)
            assert uow.session is not None  # made, never used
            raise RuntimeError("the write fails after its UPDATE")
        assert clean()
        assert _version(engine, game_id) == version
        with uow.begin(write=True):
            _advance(uow, game_id, version)
            uow.commit()
        assert clean()
        with uow.begin(write=True):
            _advance(uow, game_id, version + 1)
            assert uow.session is not None  # made, never used
            uow.commit()
        assert clean()
        assert _version(engine, game_id) == version + 2
    finally:
        writer.drop(failed=False)


@pytest.mark.parametrize("inline", [False, True], ids=["pooled", "inline"])
def test_a_commit_the_database_refuses_writes_nothing(engine: Engine, inline: bool) -> None:
    """COMMIT failing (a deferred foreign key broken) is raised as SQLAlchemy raises the
    driver's errors, nothing is written and the write lock is given back."""
    writer = LoopWriter(engine) if inline else None
    try:
        _, game_id, version = _game(engine)
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE t_parent (id INTEGER PRIMARY KEY)"))
            conn.execute(text("CREATE TABLE t_child (pid INTEGER REFERENCES t_parent(id))"))
        uow = SqlAlchemyUnitOfWork(make_session_factory(engine), writer=writer)
        with pytest.raises(sa_exc.IntegrityError), uow.begin(write=True):
            _advance(uow, game_id, version)
            raw = uow.games._connection().connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            raw.execute("PRAGMA defer_foreign_keys=ON")
            raw.execute("INSERT INTO t_child (pid) VALUES (999)")
            uow.commit()
        assert _version(engine, game_id) == version
        assert _lock_free(engine)
    finally:
        if writer is not None:
            writer.drop(failed=False)


def test_a_connection_lost_mid_write_runs_and_commits_nothing_more(engine: Engine) -> None:
    """Once SQLAlchemy found the write's connection lost (invalidated), its transaction is
    gone: a further statement or a commit is refused, none runs on a new connection."""
    _, game_id, version = _game(engine)
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    with pytest.raises(sa_exc.PendingRollbackError), uow.begin(write=True):
        _advance(uow, game_id, version)
        uow.games._connection().invalidate()
        _advance(uow, game_id, version)
    with pytest.raises(sa_exc.PendingRollbackError), uow.begin(write=True):
        _advance(uow, game_id, version)
        uow.games._connection().invalidate()
        uow.commit()
    assert _version(engine, game_id) == version


def test_only_a_transaction_the_unit_of_work_began_is_taken_over(engine: Engine) -> None:
    """A transaction found open on the driver that no write began (one left behind) is not
    taken over by SQLAlchemy: beginning fails, as it always did."""
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        raw.execute("BEGIN")
        refused = (sa_exc.OperationalError, sqlite3.OperationalError)
        with pytest.raises(refused, match="within a transaction"):
            conn.execute(text("SELECT 1"))
        raw.execute("ROLLBACK")


# -- PostgreSQL: the driver's transaction ended on psycopg ----------------------------------


@pytest.fixture
def pg_engine(db_url: str) -> Iterator[Engine]:
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's row lock and backends")
    made = make_engine(db_url)
    yield made
    made.dispose()


def _backend_pid(conn: Connection) -> int:
    raw = conn.connection.driver_connection
    assert isinstance(raw, psycopg.Connection)
    return int(raw.info.backend_pid)


def _row_free(engine: Engine, game_id: str) -> bool:
    """Another connection gets the game row's lock at once (no write holds it)."""
    with engine.connect() as conn:
        try:
            conn.execute(
                text("SELECT id FROM games WHERE id = :id FOR UPDATE NOWAIT"), {"id": game_id}
            ).one()
        except sa_exc.OperationalError:
            return False
        finally:
            conn.rollback()
        return True


def test_postgres_a_rollback_ends_the_transaction_inside_the_block(pg_engine: Engine) -> None:
    """``rollback`` gives the row lock back there and then (not at the pool's reset), with or
    without a session that took the transaction over; nothing is written."""
    _, game_id, version = _game(pg_engine)
    uow = SqlAlchemyUnitOfWork(make_session_factory(pg_engine))
    for take_over in (False, True):
        with uow.begin(write=True):
            assert uow.games.get(game_id, lock=True) is not None  # the locked read
            _advance(uow, game_id, version)
            if take_over:
                uow.session.execute(select(GameRow.version).where(GameRow.id == game_id)).one()
            assert not _row_free(pg_engine, game_id)
            uow.rollback()
            assert _row_free(pg_engine, game_id)
        assert _version(pg_engine, game_id) == version


def test_postgres_a_commit_the_database_refuses_writes_nothing(pg_engine: Engine) -> None:
    """COMMIT failing (a deferred foreign key broken) is raised as SQLAlchemy raises the
    driver's errors; nothing is written, the row lock is given back and the next write on
    the pool goes as usual."""
    _, game_id, version = _game(pg_engine)
    with pg_engine.begin() as conn:
        conn.execute(text("CREATE TABLE t_parent (id INTEGER PRIMARY KEY)"))
        conn.execute(
            text(
                "CREATE TABLE t_child (pid INTEGER REFERENCES t_parent(id) "
                "DEFERRABLE INITIALLY DEFERRED)"
            )
        )
    uow = SqlAlchemyUnitOfWork(make_session_factory(pg_engine))
    with pytest.raises(sa_exc.IntegrityError), uow.begin(write=True):
        _advance(uow, game_id, version)
        raw = uow.games._connection().connection.driver_connection
        assert isinstance(raw, psycopg.Connection)
        raw.execute("INSERT INTO t_child (pid) VALUES (999)")
        uow.commit()
    assert _version(pg_engine, game_id) == version
    assert _row_free(pg_engine, game_id)
    with uow.begin(write=True):
        _advance(uow, game_id, version)
        uow.commit()
    assert _version(pg_engine, game_id) == version + 1


def test_postgres_a_connection_lost_at_commit_is_invalidated(pg_engine: Engine) -> None:
    """The write's backend gone before its COMMIT: SQLAlchemy's error for a lost connection
    (``connection_invalidated``), nothing written, and the connection is not handed out
    again (the next write gets a working one)."""
    _, game_id, version = _game(pg_engine)
    uow = SqlAlchemyUnitOfWork(make_session_factory(pg_engine))
    with uow.begin(write=True):
        _advance(uow, game_id, version)
        conn = uow.games._connection()
        pid = _backend_pid(conn)
        with pg_engine.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            other.commit()
        with pytest.raises(sa_exc.OperationalError) as raised:
            uow.commit()
        assert raised.value.connection_invalidated
        assert conn.invalidated  # (the pool replaces it)
    assert _version(pg_engine, game_id) == version
    with uow.begin(write=True):
        _advance(uow, game_id, version)
        uow.commit()
    assert _version(pg_engine, game_id) == version + 1


def test_postgres_statements_run_on_a_cursor_kept_with_its_connection(pg_engine: Engine) -> None:
    """A write's statements and a direct read's run on one cursor a pooled connection keeps;
    once the connection is lost (its backend gone, the pool invalidating it), the pool's new
    connection gets a cursor of its own: the next write and read go as usual."""
    _, game_id, version = _game(pg_engine)
    pg_engine.pool.dispose()  # (so the one connection below is the pool's first)
    uow = SqlAlchemyUnitOfWork(make_session_factory(pg_engine))
    seen: list[object] = []

    @event.listens_for(pg_engine, "before_cursor_execute")
    def _watch(conn: object, cursor: object, sql: str, *rest: object) -> None:
        if "pg_terminate_backend" not in sql and not sql.startswith("SELECT version"):
            seen.append(cursor)  # the unit of work's statements

    for n in range(2):
        with uow.begin(write=True):
            assert uow.games.get(game_id, lock=True) is not None
            _advance(uow, game_id, version + n)
            uow.commit()
    with uow.begin(direct=True):
        assert uow.games.get(game_id) is not None
    assert len(seen) == 5 and len({id(c) for c in seen}) == 1
    with uow.begin(write=True):
        pid = _backend_pid(uow.games._connection())
        with pg_engine.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            other.commit()
        with pytest.raises(sa_exc.OperationalError):
            _advance(uow, game_id, version + 2)
    seen.clear()
    with uow.begin(write=True):
        assert uow.games.get(game_id, lock=True) is not None
        _advance(uow, game_id, version + 2)
        uow.commit()
    assert _version(pg_engine, game_id) == version + 3
    with uow.begin(direct=True):
        assert uow.games.get(game_id) is not None
    assert len(seen) == 3 and len({id(c) for c in seen}) == 1
