"""Issue 28, session 14: a write moves its game on and appends its event in one statement on
PostgreSQL (``GameRepository.advance_with_event``: the conditional ``UPDATE``, the event's
``INSERT`` and ``pg_notify`` in one ``WITH``), in two on SQLite. Either way:

* what it writes is what :meth:`advance` and :meth:`append_event` write, column by column,
  with the state whole or as a delta, and the engine's statement observers see it;
* a game no longer at the expected version writes nothing, not even when the transaction
  commits, and nobody is notified;
* a second event with the same Idempotency-Key is the unique index's ``IntegrityError``, and
  nothing of the write stays;
* the notification of an appended event reaches every listener, here a ``LISTEN`` on another
  connection and this process's commit listeners, once the transaction commits, and never
  when it rolls back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, event
from sqlalchemy.exc import IntegrityError

from app.db import notify
from app.db.engine import make_engine, make_session_factory
from app.db.models import EventRow, GameRow, NewEvent
from app.db.uow import SqlAlchemyUnitOfWork
from app.rules import registry
from app.service import games
from app.service.boards import BoardCache

ZOC = registry.get("zoc")
WHEN = datetime(2026, 12, 6, 17, 0, 1, 500000, tzinfo=UTC)


def _game(engine: Engine) -> str:
    created = games.create_game(
        SqlAlchemyUnitOfWork(make_session_factory(engine)),
        ruleset_id="zoc",
        scenario=ZOC.example_scenario() or {},
        boards=BoardCache(),
    )
    return created.id


def _event(game_id: str, seq: int, key: str | None = None, **values: Any) -> NewEvent:
    fields: dict[str, Any] = {
        "game_id": game_id,
        "seq": seq,
        "seat": "umpire",
        "kind": "place_unit",
        "action": {"kind": "place_unit", "unit": "é"},
        "ruling": {"legal": True, "summary": "ä", "n": 2.5},
        "dice": [[6, "d6"]],
        "version": seq + 1,
        "idempotency_key": key,
        "request_digest": "d" * 64 if key else None,
        "response": '{"event": 1}' if key else None,
        "created_at": WHEN,
        "payload": None,
        "state_after": None,
        "state_delta": {"units": {"x": 1}},
        "visible_to": None,
        "ruleset_version": "9.9.9",
        **values,
    }
    return NewEvent(**fields)


@contextmanager
def _statements(engine: Engine) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        seen.append(sql.split()[0].upper())

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _row(factory: Any, game_id: str) -> tuple[Any, ...]:
    with SqlAlchemyUnitOfWork(factory) as uow:
        row = uow.session.get_one(GameRow, game_id)
        return (row.version, row.status, row.state, row.state_seq, row.clock, row.dice_counter)


def _events(factory: Any, game_id: str) -> list[dict[str, Any]]:
    with SqlAlchemyUnitOfWork(factory) as uow:
        rows = uow.games.events(game_id, after=0, limit=100)
        out = []
        for stored in rows:
            got = {c.key: getattr(stored, c.key) for c in EventRow.__table__.columns}
            got.pop("id")
            got["created_at"] = got["created_at"].replace(tzinfo=UTC)
            out.append(got)
        return out


def test_one_statement_writes_what_the_two_write(db_url: str) -> None:
    engine = make_engine(db_url)
    factory = make_session_factory(engine)
    try:
        one, two = _game(engine), _game(engine)
        clock: dict[str, Any] = {"running": None, "expired": [], "remaining": {"axis": 12.5}}
        writes: list[dict[str, Any]] = [  # a delta with extra columns, then the state whole
            {"state": None, "extra": {"clock": clock, "dice_counter": 3}, "status": "active"},
            {
                "state": {"a": [1, "é"], "n": 1e16},
                "extra": {"winner": "axis"},
                "status": "finished",
            },
        ]
        postgres = engine.dialect.name == "postgresql"
        for version, write in enumerate(writes, start=1):
            seq = version
            extra = {"state_after": write["state"], "state_delta": None} if write["state"] else {}
            uow = SqlAlchemyUnitOfWork(factory)
            with uow.begin(write=True):
                assert uow.games.advance(two, expected_version=version, now=WHEN, **write)
                uow.games.append_event(_event(two, seq, f"k{seq}", **extra))
                uow.commit()
            with uow.begin(write=True), _statements(engine) as seen:
                assert uow.games.advance_with_event(
                    one,
                    _event(one, seq, f"k{seq}", **extra),
                    expected_version=version,
                    now=WHEN,
                    **write,
                )
                uow.commit()
            assert seen == (["WITH"] if postgres else ["UPDATE", "INSERT"]), seen
        assert _row(factory, one) == _row(factory, two)
        assert _row(factory, one)[:2] == (3, "finished")
        written = _events(factory, one)
        assert len(written) == 2
        assert written == [{**e, "game_id": one} for e in _events(factory, two)]
        assert written[0]["payload"] is None and written[0]["state_after"] is None
    finally:
        engine.dispose()


@contextmanager
def _listening(db_url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(notify.psycopg_conninfo(db_url), autocommit=True) as conn:
        conn.execute(f"LISTEN {notify.CHANNEL}")
        yield conn


def _next_notification(conn: psycopg.Connection[Any]) -> str:
    for note in conn.notifies(timeout=30, stop_after=1):
        return note.payload
    raise AssertionError("no notification")


@pytest.mark.pg
def test_a_lost_race_writes_nothing_and_notifies_nobody(pg_url: str) -> None:
    db_url = pg_url
    engine = make_engine(db_url)
    factory = make_session_factory(engine)
    heard: list[tuple[str, int]] = []

    def hear(game_id: str, seq: int) -> None:
        heard.append((game_id, seq))

    notify.add_commit_listener(hear)
    try:
        game = _game(engine)
        with _listening(db_url) as listener:
            uow = SqlAlchemyUnitOfWork(factory)
            with uow.begin(write=True):
                assert not uow.games.advance_with_event(
                    game, _event(game, 7), expected_version=7, state=None, status="active"
                )
                assert uow.games.count_events(game) == 0  # in the transaction: nothing
                uow.commit()  # committed, and still nothing written nor announced
            assert _row(factory, game)[0] == 1 and _events(factory, game) == []
            with uow.begin(write=True):  # rolled back: written, then undone, unannounced
                assert uow.games.advance_with_event(
                    game, _event(game, 1), expected_version=1, state=None, status="active"
                )
                uow.rollback()
            assert _row(factory, game)[0] == 1 and _events(factory, game) == []
            assert not [h for h in heard if h[0] == game]
            with uow.begin(write=True):
                assert uow.games.advance_with_event(
                    game, _event(game, 1), expected_version=1, state=None, status="active"
                )
                uow.commit()
            # the first notification on the channel is the one write that committed
            assert _next_notification(listener) == notify.payload(game, 1)
            assert [h for h in heard if h[0] == game] == [(game, 1)]
    finally:
        notify.remove_commit_listener(hear)
        engine.dispose()


def test_a_second_event_with_the_same_key_leaves_nothing_written(db_url: str) -> None:
    """The race of two retries with one Idempotency-Key: the one that comes second (its
    version read before the first committed, here given as expected) fails on the unique index
    as SQLAlchemy's ``IntegrityError`` (what the write frame answers with the stored outcome),
    and the game is where the first left it."""
    engine = make_engine(db_url)
    factory = make_session_factory(engine)
    try:
        game = _game(engine)
        uow = SqlAlchemyUnitOfWork(factory)
        with uow.begin(write=True):
            assert uow.games.advance_with_event(
                game, _event(game, 1, "k"), expected_version=1, state=None, status="active"
            )
            uow.commit()
        with uow.begin(write=True), pytest.raises(IntegrityError):
            uow.games.advance_with_event(
                game, _event(game, 2, "k"), expected_version=2, state=None, status="active"
            )
        assert _row(factory, game)[0] == 2
        assert [e["seq"] for e in _events(factory, game)] == [1]
    finally:
        engine.dispose()


@pytest.mark.parametrize("order", [(), ("a",), ("b", "a"), ("a", "b", "a")])
def test_positional_parameters_are_picked_in_order(order: tuple[str, ...]) -> None:
    """A positional statement's parameters, taken out of their mapping in the statement's
    order, as a tuple whatever their number; one missing is a KeyError, as one by one."""
    from app.db.repository import _picker

    pick = _picker(order)
    assert pick is not None
    assert pick({"a": 1, "b": 2, "c": 3}) == tuple({"a": 1, "b": 2}[n] for n in order)
    if order:
        with pytest.raises(KeyError):
            pick({})
    assert _picker(None) is None
