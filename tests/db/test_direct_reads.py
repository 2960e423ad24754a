"""Issue 28: a read's game row as a plain record (``GameRecord``), read with a Core statement
or straight on the driver (``DirectReads``), holds what the ORM's ``GameRow`` holds; the
documents are read on first access inside the read only; a direct read takes one pooled
connection and gives it back; PostgreSQL's checkout check (no pre-ping round trip) still
replaces the connections a server restart killed, before the first request uses one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, select, text
from sqlalchemy import exc as sa_exc

from app.db.engine import make_engine, make_session_factory
from app.db.migrate import upgrade
from app.db.models import GameRow
from app.db.repository import DOCUMENTS, RECORD_FIELDS, DirectReads, GameRecord
from app.db.uow import SqlAlchemyUnitOfWork
from app.service import games as uc
from app.service.boards import BoardCache
from app.service.errors import NotFound
from app.service.tokens import hash_token
from tests.support.postgres import PgCluster, cluster_for_tests
from tests.support.tiny import TINY


def _game(url: str, **match: Any) -> tuple[str, dict[str, str]]:
    engine = make_engine(url)
    try:
        created = uc.create_game(
            SqlAlchemyUnitOfWork(make_session_factory(engine)),
            ruleset_id=TINY.id,
            scenario=TINY.example_scenario() or {},
            match=match or None,
        )
    finally:
        engine.dispose()
    return created.id, created.seats


def test_a_record_has_every_column_of_the_game_row() -> None:
    # ``state_seq`` says where the stored state stands: read with the state document
    # (``repository._state_at``), not a field of the record
    columns = {c.key for c in GameRow.__table__.columns} - {"state_seq"}
    assert set(RECORD_FIELDS) | set(DOCUMENTS) == columns
    assert not set(RECORD_FIELDS) & set(DOCUMENTS)
    assert {name for name in dir(GameRecord) if not name.startswith("_")} >= columns


def test_records_hold_what_the_orm_row_holds(db_url: str) -> None:
    """Every column as the ORM entity holds it, read three ways: a write's locked read and
    a Core statement through the session, straight on the driver; with and without a
    token."""
    timed = {"clock": {"budget_seconds": 3600, "on_expiry": "notify_umpire"}}
    game_id, seats = _game(db_url, **timed)
    engine = make_engine(db_url)
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    try:
        with uow.begin(write=True):
            orm_row = uow.games.session.get(GameRow, game_id)
            assert isinstance(orm_row, GameRow)
            expected = {name: getattr(orm_row, name) for name in (*RECORD_FIELDS, *DOCUMENTS)}
            locked = uow.games.get_as(game_id, hash_token(seats["red"]), lock=True)
            assert locked is not None
            written, digest, match, hooks = locked
            assert isinstance(written, GameRecord)
            got = {name: getattr(written, name) for name in (*RECORD_FIELDS, *DOCUMENTS)}
            assert got == expected
            assert [type(got[n]) for n in got] == [type(expected[n]) for n in got]
            assert match.seat == "red"
            plain_locked = uow.games.get(game_id, lock=True)
            assert plain_locked is not None and isinstance(plain_locked[0], GameRecord)
            assert plain_locked[1] == digest
            assert {n: getattr(plain_locked[0], n) for n in RECORD_FIELDS} == {
                n: expected[n] for n in RECORD_FIELDS
            }
        assert expected["clock"] is not None and expected["match"] is not None
        for direct in (False, True):
            with uow.begin(direct=direct):
                found = uow.games.get_as(game_id, hash_token(seats["red"]))
                assert found is not None
                record, digest2, match2, hooks2 = found
                assert isinstance(record, GameRecord)
                got = {name: getattr(record, name) for name in (*RECORD_FIELDS, *DOCUMENTS)}
                plain = uow.games.get(game_id)
                assert plain is not None and isinstance(plain[0], GameRecord)
                assert plain[1] == digest
                assert {n: getattr(plain[0], n) for n in RECORD_FIELDS} == {
                    n: expected[n] for n in RECORD_FIELDS
                }
            assert got == expected, direct
            assert [type(got[n]) for n in got] == [type(expected[n]) for n in got], direct
            assert (digest2, match2, hooks2) == (digest, match, hooks)
            assert match2.seat == "red"
            with uow.begin(direct=direct):
                assert uow.games.get_as(game_id, hash_token("nobody's")) is not None
                missing = uow.games.get_as("00000000-0000-4000-8000-000000000000", "x")
                assert missing is None
                assert uow.games.get("00000000-0000-4000-8000-000000000000") is None
    finally:
        engine.dispose()


def test_documents_are_read_inside_the_read_only(db_url: str) -> None:
    game_id, _ = _game(db_url)
    engine = make_engine(db_url)
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    try:
        for direct in (False, True):
            with uow.begin(direct=direct):
                found = uow.games.get(game_id)
                assert found is not None
                record = found[0]
                state = record.state  # read now: inside the read
                assert state == found[0].state and isinstance(state, dict) and state
            assert record.state is state  # kept once read
            with pytest.raises(RuntimeError, match="ended"):
                _ = record.initial_state  # never read inside it: an error, as when detached
        with uow.begin(direct=True), pytest.raises(RuntimeError, match="no session"):
            _ = uow.games.session
    finally:
        engine.dispose()


def test_a_direct_read_takes_one_connection_and_gives_it_back(db_url: str) -> None:
    game_id, seats = _game(db_url)
    engine = make_engine(db_url)
    pool: Any = engine.pool
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    boards = BoardCache()
    try:
        view = uc.read_game(uow, game_id, token=seats["blue"], boards=boards)  # every miss
        assert b'"seat":"blue"' in view.body and pool.checkedout() == 0
        with uow.begin(direct=True):
            assert uow.games.get(game_id) is not None
            assert uow.games.board_json(uow.games.get(game_id)[0].scenario_id)  # type: ignore[index]
            assert pool.checkedout() == 1
        assert pool.checkedout() == 0
        with pytest.raises(NotFound):
            uc.read_game(uow, "00000000-0000-4000-8000-000000000000", token=None, boards=boards)
        assert pool.checkedout() == 0
        assert pool.checkedin() == 1  # the one connection every read used
        if engine.dialect.name == "postgresql":  # read in autocommit, given back as it was
            with engine.connect() as conn:
                driver: Any = conn.connection.driver_connection
                assert driver.autocommit is False
                conn.execute(text("CREATE TEMP TABLE t (x int)"))
                conn.rollback()
                assert conn.execute(text("SELECT to_regclass('pg_temp.t')")).scalar() is None
    finally:
        engine.dispose()


def test_a_direct_read_raises_what_sqlalchemy_raises(tmp_path: Any) -> None:
    """A driver error comes out as SQLAlchemy's exception (the API maps it: 503 or 500)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")  # no tables
    try:
        reads = DirectReads(engine)
        with pytest.raises(sa_exc.OperationalError, match="no such table"):
            reads.one("read", {"game_id": "x"})
        reads.close()
        assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    finally:
        engine.dispose()


# -- PostgreSQL: the checkout check instead of the pre-ping ----------------------------------


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[PgCluster]:
    """A cluster of this module's own: restarting it must not disturb the session's."""
    yield from cluster_for_tests()


@pytest.mark.pg
def test_no_round_trip_at_checkout_and_a_restart_is_survived(own_cluster: PgCluster) -> None:
    url = own_cluster.url(own_cluster.create_database())
    upgrade(url)
    game_id, seats = _game(url)
    engine = make_engine(url, pool_size=3)
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    boards = BoardCache()
    seen: list[str] = []

    def record(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        seen.append(sql)

    try:
        conns = [engine.connect() for _ in range(3)]  # three pooled connections, idle
        for c in conns:
            c.execute(text("SELECT 1"))
        for c in conns:
            c.close()
        before = uc.read_game(uow, game_id, token=seats["red"], boards=boards).body
        event.listen(engine, "before_cursor_execute", record)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 2")).scalar() == 2
        assert seen == ["SELECT 2"]  # no ping on a quiet connection
        own_cluster.halt("fast")
        own_cluster.restart()
        # every pooled connection is dead: the first request after the restart succeeds
        assert uc.read_game(uow, game_id, token=seats["red"], boards=boards).body == before
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 3")).scalar() == 3
        with SqlAlchemyUnitOfWork(make_session_factory(engine)).begin() as read:
            assert read.games.session.execute(select(GameRow.version)).scalar() == 1
    finally:
        engine.dispose()
