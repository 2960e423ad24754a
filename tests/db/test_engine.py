"""Engine configuration, the repository's conditional update, and loading without replay."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy import text

from app.db.engine import make_engine, make_session_factory, normalize_url
from app.db.models import EventRow, GameRow
from app.db.uow import SqlAlchemyUnitOfWork
from app.service import games as uc
from app.service.boards import BoardCache
from tests.support.tiny import TINY


def test_sqlite_wal_and_foreign_keys(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'a' / 'b.db'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert (tmp_path / "a" / "b.db").exists()
    finally:
        engine.dispose()


def test_postgres_urls_use_psycopg3() -> None:
    assert normalize_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("sqlite:///x.db").drivername == "sqlite"


def _new_game(url: str) -> str:
    engine = make_engine(url)
    try:
        created = uc.create_game(
            SqlAlchemyUnitOfWork(make_session_factory(engine)),
            ruleset_id=TINY.id,
            scenario=TINY.example_scenario() or {},
        )
    finally:
        engine.dispose()
    return created.id


def test_foreign_keys_enforced(db_url: str) -> None:
    engine = make_engine(db_url)
    uow = SqlAlchemyUnitOfWork(make_session_factory(engine))
    try:
        with uow.begin(write=True):
            uow.session.add(
                EventRow(
                    game_id="no-such-game",
                    seq=1,
                    seat="red",
                    kind="step",
                    action={},
                    ruling={},
                    dice=[],
                    version=2,
                )
            )
            try:
                uow.session.flush()
            except Exception as exc:  # IntegrityError, from either database
                assert "foreign" in str(exc).lower() or "FOREIGN" in str(exc)
            else:
                raise AssertionError("an event of a missing game was accepted")
    finally:
        engine.dispose()


def test_conditional_update_exactly_one_writer_wins(db_url: str) -> None:
    """Two transactions expecting the same version: the first commits, the second matches
    no row (on PostgreSQL it blocks on the row lock, then re-checks the WHERE clause)."""
    game_id = _new_game(db_url)
    engine = make_engine(db_url)
    factory = make_session_factory(engine)
    results: dict[str, bool] = {}
    first = SqlAlchemyUnitOfWork(factory)
    try:
        with first.begin(write=True):
            results["first"] = first.games.advance(
                game_id, expected_version=1, state={"positions": {}}, status="active"
            )

            def second_writer() -> None:
                uow = SqlAlchemyUnitOfWork(factory)
                with uow.begin(write=True):
                    results["second"] = uow.games.advance(
                        game_id, expected_version=1, state={"positions": {"x": 1}}, status="active"
                    )
                    uow.commit()

            thread = threading.Thread(target=second_writer)
            thread.start()
            thread.join(timeout=0.3)  # blocked behind the first writer's lock
            assert thread.is_alive()
            first.commit()
        thread.join(timeout=30)
        assert not thread.is_alive()
        assert results == {"first": True, "second": False}
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT version FROM games WHERE id = :id"), {"id": game_id}
            ).one()
        assert row.version == 2
    finally:
        engine.dispose()


def test_loading_reads_the_row_not_the_log(db_url: str) -> None:
    """The game's state lives in its row: wiping the log changes nothing that GET returns."""
    game_id = _new_game(db_url)
    engine = make_engine(db_url)
    factory = make_session_factory(engine)
    boards = BoardCache()
    try:
        seats_sql = text("SELECT seat FROM seats WHERE game_id = :id")
        with engine.connect() as conn:
            assert {r.seat for r in conn.execute(seats_sql, {"id": game_id})} == {
                "red",
                "blue",
                "umpire",
            }
        with SqlAlchemyUnitOfWork(factory) as uow:
            state = {**uow.session.get_one(GameRow, game_id).state}
        state["positions"] = {"r1": 5, "b1": 9}
        uow = SqlAlchemyUnitOfWork(factory)
        with uow.begin(write=True):
            assert uow.games.advance(game_id, expected_version=1, state=state, status="active")
            uow.commit()
        view = uc.get_game(SqlAlchemyUnitOfWork(factory), game_id, token=None, boards=boards)
        assert view.version == 2
        assert view.state["positions"] == {"r1": 5, "b1": 9}
        assert boards.misses == 1
        uc.get_game(SqlAlchemyUnitOfWork(factory), game_id, token=None, boards=boards)
        assert (boards.hits, boards.misses) == (1, 1)
    finally:
        engine.dispose()
