"""Inline writes (app/api/fast.py ``FastRoutes._submit``, app/db/engine.py ``LoopWriter``):
on SQLite a submission is run on the event loop itself, on a connection the loop keeps, when
the process's writer lock is free (and no worker thread queued for it), ``BEGIN IMMEDIATE``
gets the file's lock at once and the game's board and state are kept; otherwise -- or the
moment it would need more -- it runs again in a worker thread, nothing written by the first
try. Either way the answer and what is stored are the same as with inline writes off; on
PostgreSQL there are none, and a submission is a loop call instead (app/db/pgloop.py).

The requests go through ``httpx.ASGITransport``, which runs the application in the test's own
event loop: a statement run inline runs in the test's thread, one run in a worker thread in
another thread.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, event
from sqlalchemy.pool import QueuePool

from app.api.fast import INLINE_BODY_BYTES, FastRoutes
from app.config import Settings
from app.db.engine import (
    WAL_BACKSTOP_PAGES,
    LoopWriter,
    WalCheckpointer,
    WriterLock,
    loop_writer,
    make_engine,
    writer_lock,
)
from app.main import create_app

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "zoc" / "seed-example.json"
NOW = 1_800_000_000.0
BASE = "http://referee.test"
pytestmark = pytest.mark.anyio

UNIT, HEXES = "de-inf-2", ("e3307", "e3207")
"""The seed example's unit the umpire places, back and forth between two hexes."""


def _front(app: FastAPI) -> FastRoutes:
    front = getattr(app, "front", None)
    assert isinstance(front, FastRoutes)
    return front


def _counts(front: FastRoutes) -> tuple[int, int]:
    return front.inline_writes, front.handed_off_writes


class Statements:
    """The threads the submissions' statements ran in (the engine's statement observer):
    the game row's locked read and the event's INSERT."""

    def __init__(self, app: FastAPI) -> None:
        self.seen: list[tuple[str, int]] = []
        event.listen(app.state.engine, "before_cursor_execute", self._seen)

    def _seen(self, conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if sql.startswith("INSERT INTO events"):
            self.seen.append(("insert", threading.get_ident()))
        elif sql.startswith("SELECT games.id, games.ruleset_id"):
            self.seen.append(("read", threading.get_ident()))

    def take(self) -> list[tuple[str, bool]]:
        """What ran since the last take, each with whether it ran in this thread."""
        here = threading.get_ident()
        seen, self.seen = self.seen, []
        return [(what, t == here) for what, t in seen]


@pytest.fixture
async def apps(db_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI]]:
    """The application with inline writes (and its client), and one without, on one
    database."""
    inline = create_app(Settings(database_url=db_url), clock=lambda: NOW)
    off = create_app(
        Settings(database_url=db_url, inline_writes=False, loop_calls=False), clock=lambda: NOW
    )
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=inline), base_url=BASE) as i,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=off), base_url=BASE) as o,
    ):
        yield i, o, inline
    for app in (inline, off):
        if app.state.loop_writer is not None:
            app.state.loop_writer.drop(failed=False)
        if app.state.inline_reads is not None:
            app.state.inline_reads.drop(failed=False)
        app.state.engine.dispose()


class Game:
    """A new seed-example game (created through ``client``) and the umpire's token."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.id: str = body["id"]
        self.version: int = body["version"]
        self.umpire = {"Authorization": f"Bearer {body['seats']['umpire']}"}
        self.n = 0

    @classmethod
    async def new(cls, client: httpx.AsyncClient) -> Game:
        scenario = json.loads(SEED.read_text())
        r = await client.post("/games", json={"ruleset": "zoc", "scenario": scenario})
        assert r.status_code == 201, r.text
        return cls(r.json())

    def place(self) -> dict[str, Any]:
        """The next umpire ``place_unit`` (the unit to the other hex)."""
        self.n += 1
        return {"kind": "place_unit", "unit": UNIT, "hex": HEXES[self.n % 2]}

    def headers(self, **extra: str) -> dict[str, str]:
        return {**self.umpire, "If-Match": f'W/"{self.version}"', **extra}


async def _warm(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI, FastRoutes, Game]:
    """A new game read once through the inline app (its board and state now kept): the two
    clients, the inline app and its front, the game."""
    inline, off, app = apps
    game = await Game.new(inline)
    assert (await inline.get(f"/games/{game.id}")).status_code == 200
    return inline, off, app, _front(app), game


def _loop_connection(app: FastAPI) -> tuple[LoopWriter, Any, sqlite3.Connection]:
    """The inline writer, its connection (this thread's: the test's loop) and the driver's."""
    writer: LoopWriter = app.state.loop_writer
    conn = writer.get()
    assert conn is not None
    raw = conn.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return writer, conn, raw


def _same(r: httpx.Response, game: Game) -> tuple[int, list[tuple[str, str]], Any]:
    """An answer with its game's id (and the request id) taken out: two games' answers to
    the same submissions compared."""
    text = r.content.decode().replace(game.id, "GAME")
    headers = [
        (k, v.replace(game.id, "GAME"))
        for k, v in r.headers.multi_items()
        if k.lower() not in ("x-request-id", "date")
    ]
    body = json.loads(text) if text else None
    return r.status_code, headers, _scrub(body)


def _scrub(value: Any) -> Any:
    """Server-made times, random ids and each game's own dice commitment out of an answer
    (they differ between two games)."""
    if isinstance(value, dict):
        return {
            k: "…"
            if k in ("created_at", "updated_at", "at", "recorded_at", "commitment")
            else _scrub(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, str):
        return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", value)
    return value


async def _submissions(client: httpx.AsyncClient, game: Game) -> list[httpx.Response]:
    """The same sequence of submissions, refusals among them, on ``game``: legal ones
    (followed by their version), one with a stale If-Match, an illegal one, a malformed one,
    one with a wrong token, one on no game, a repeat of an Idempotency-Key, a minimal one."""
    out: list[httpx.Response] = []

    async def post(action: Any, headers: dict[str, str], gid: str | None = None) -> None:
        r = await client.post(f"/games/{gid or game.id}/actions", json=action, headers=headers)
        out.append(r)
        if r.status_code == 201:
            game.version = r.json()["version"]

    await post(game.place(), game.headers())
    await post(game.place(), game.headers())
    await post(game.place(), {**game.umpire, "If-Match": 'W/"1"'})  # stale: 412
    await post({"kind": "place_unit", "unit": UNIT, "hex": "e9999"}, game.headers())  # 422
    await post({"kind": "no-such-kind"}, game.headers())  # malformed
    await post(game.place(), {"Authorization": "Bearer wrong", "If-Match": "*"})  # 401
    await post(game.place(), game.headers(), gid="00000000-0000-4000-8000-000000000000")  # 404
    keyed = game.place()
    await post(keyed, game.headers(**{"Idempotency-Key": "k-1"}))
    await post(keyed, {**game.umpire, "Idempotency-Key": "k-1", "If-Match": "*"})  # replayed
    await post(game.place(), game.headers(Prefer="return=minimal"))
    return out


async def _events(client: httpx.AsyncClient, game: Game) -> Any:
    r = await client.get(f"/games/{game.id}/events", headers=game.umpire)
    assert r.status_code == 200, r.text
    return _scrub(json.loads(r.content.decode().replace(game.id, "GAME")))


async def test_submissions_are_run_on_the_loop_as_in_a_worker(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI], db_kind: str
) -> None:
    inline, off, app = apps
    front = _front(app)
    here_game, there_game = await Game.new(inline), await Game.new(off)
    # the inline app keeps the board and state of its game (the read warms them)
    assert (await inline.get(f"/games/{here_game.id}")).status_code == 200
    watch = Statements(app)
    calls = (front.loop_calls, front.handed_off_calls)
    got = await _submissions(inline, here_game)
    want = await _submissions(off, there_game)
    assert [r.status_code for r in got] == [201, 201, 412, 422, 422, 401, 404, 201, 201, 201]
    assert [_same(r, here_game) for r in got] == [_same(r, there_game) for r in want]
    # what is stored is the same: the log, and the game as read afterwards
    assert await _events(off, here_game) == await _events(off, there_game)
    assert _same(await off.get(f"/games/{here_game.id}"), here_game) == _same(
        await off.get(f"/games/{there_game.id}"), there_game
    )
    seen = watch.take()
    if db_kind == "sqlite":
        assert isinstance(app.state.loop_writer, LoopWriter)
        # every one was run (and the refusals found) here, none handed off
        assert _counts(front) == (len(got), 0)
        assert ("insert", True) in seen and all(here for _, here in seen)
        assert sum(1 for what, _ in seen if what == "insert") == 4
    else:  # PostgreSQL: never inline; a loop call each (app/db/pgloop.py), its statements
        # in this thread too, its waits the loop's
        assert app.state.loop_writer is None
        assert _counts(front) == (0, 0)
        assert (front.loop_calls - calls[0], front.handed_off_calls - calls[1]) == (len(got), 0)
        assert ("read", True) in seen and all(here for _, here in seen)


def _forget(app: FastAPI) -> None:
    """The board and every state forgotten: reading and parsing them is a worker's."""
    app.state.boards.clear()
    app.state.boards.states.clear()


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_cold_cache_hands_the_submission_to_a_worker_having_written_nothing(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, off, app = apps
    front = _front(app)
    game = await Game.new(off)
    assert (await inline.get("/healthz")).status_code == 200  # the front surveyed, and on
    _forget(app)
    watch = Statements(app)
    r = await inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
    assert r.status_code == 201, r.text
    assert r.json()["version"] == game.version + 1  # one event: the first try wrote nothing
    game.version = r.json()["version"]
    assert _counts(front) == (0, 1)
    # the inline try read the row here (then met the board to read); the worker did it all
    assert watch.take() == [("read", True), ("read", False), ("insert", False)]
    log = (await off.get(f"/games/{game.id}/events", headers=game.umpire)).json()
    assert [e["kind"] for e in log["items"]] == ["place_unit"]
    # kept now: the next one is inline
    r = await inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
    assert r.status_code == 201, r.text
    assert _counts(front) == (1, 1)
    assert watch.take() == [("read", True), ("insert", True)]


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_writer_of_another_process_sends_the_submission_to_a_worker_that_waits(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI], db_url: str
) -> None:
    inline, _, app, front, game = await _warm(apps)
    r = await inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
    assert r.status_code == 201
    game.version = r.json()["version"]
    kept = app.state.loop_writer.get()
    other = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's writer holds the file's lock
    try:
        started = time.monotonic()
        task = asyncio.create_task(
            inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
        )
        for _ in range(500):  # the loop never waited: the request is in a worker at once
            await asyncio.sleep(0.01)
            if _counts(front) == (1, 1):
                break
        assert _counts(front) == (1, 1)
        assert time.monotonic() - started < 2  # (a busy timeout would hold the loop 30 s)
        assert not task.done()  # the worker waits for the lock (busy timeout 30 s)
    finally:
        other.execute("COMMIT")
        other.close()
    r = await task
    assert r.status_code == 201, r.text
    assert r.json()["version"] == game.version + 1
    # busy is not broken: the loop's connection is kept, and the next write is inline again
    assert app.state.loop_writer.get() is kept and app.state.loop_writer.available()
    game.version = r.json()["version"]
    r = await inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
    assert r.status_code == 201
    assert _counts(front) == (2, 1)


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_queued_worker_writer_goes_first(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, _, app, front, game = await _warm(apps)
    lock = writer_lock(app.state.engine)
    assert isinstance(lock, WriterLock)
    held, release = threading.Event(), threading.Event()

    def holder() -> None:  # a worker thread's write in progress
        assert lock.acquire(timeout=5)
        held.set()
        release.wait(5)
        lock.release()

    thread = threading.Thread(target=holder)
    thread.start()
    assert held.wait(5)
    try:
        task = asyncio.create_task(
            inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
        )
        for _ in range(500):
            await asyncio.sleep(0.01)
            if _counts(front) == (0, 1):
                break
        assert _counts(front) == (0, 1)  # handed off without touching the database
        assert not task.done()
    finally:
        release.set()
        thread.join()
    r = await task
    assert r.status_code == 201, r.text


def test_the_writer_lock_leaves_a_queued_thread_its_turn() -> None:
    lock = WriterLock()
    assert lock.try_acquire()
    lock.release()
    holding, release, queued = threading.Event(), threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        assert lock.acquire(timeout=5)
        holding.set()
        release.wait(5)
        lock.release()

    def second() -> None:
        queued.set()
        assert lock.acquire(timeout=5)
        order.append("queued thread")
        lock.release()

    a = threading.Thread(target=first)
    a.start()
    assert holding.wait(5)
    assert not lock.try_acquire()  # held
    b = threading.Thread(target=second)
    b.start()
    assert queued.wait(5)
    for _ in range(500):  # wait until the second thread is queued on the lock
        if lock._queued:
            break
        time.sleep(0.01)
    assert lock._queued == 1
    release.set()
    a.join()
    # the loop tries at each submission; with a thread queued it never takes the lock first
    while not lock.try_acquire():
        time.sleep(0.0005)
    order.append("loop")
    lock.release()
    b.join()
    assert order == ["queued thread", "loop"]


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_broken_loop_connection_is_discarded_and_replaced(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, off, app, front, game = await _warm(apps)
    writer, broken, raw = _loop_connection(app)
    raw.close()  # e.g. the file went away under it: its BEGIN IMMEDIATE fails

    async def submit() -> httpx.Response:
        r = await inline.post(
            f"/games/{game.id}/actions", json=game.place(), headers=game.headers()
        )
        assert r.status_code == 201, r.text
        game.version = r.json()["version"]
        return r

    await submit()
    assert _counts(front) == (0, 1)  # handed to a worker, which wrote it
    assert broken.invalidated or broken.closed
    assert not writer.available()  # for RETRY_SECONDS the writes go straight to workers
    await submit()
    assert _counts(front) == (0, 1)
    writer.RETRY_SECONDS = 0.0  # (this instance) the window over: a new connection
    await submit()
    assert _counts(front) == (1, 1)
    fresh = writer.get()
    assert fresh is not None and fresh is not broken
    log = (await off.get(f"/games/{game.id}/events", headers=game.umpire)).json()
    assert [e["seq"] for e in log["items"]] == [1, 2, 3]


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
def test_the_loop_connection_never_waits_and_is_closed_at_shutdown(db_url: str) -> None:
    from fastapi.testclient import TestClient

    app = create_app(Settings(database_url=db_url))
    path = Path(db_url.removeprefix("sqlite:///"))
    with TestClient(app) as client:
        body = client.post(
            "/games", json={"ruleset": "zoc", "scenario": json.loads(SEED.read_text())}
        ).json()
        game = Game(body)
        client.get(f"/games/{game.id}")
        for _ in range(2):
            r = client.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
            assert r.status_code == 201, r.text
            game.version = r.json()["version"]
        assert _front(app).inline_writes == 2
        writer: LoopWriter = app.state.loop_writer
        assert writer.get() is None  # kept by the loop's thread, which is not this one
        assert Path(f"{path}-wal").exists()
        with app.state.engine.connect() as conn:  # the pool's keep their busy timeout
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    # every connection closed, the loop's too: the last one checkpointed the WAL, removed it
    assert not Path(f"{path}-wal").exists()


def test_a_loop_writer_keeps_one_connection_of_its_own_that_never_waits(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}")
    try:
        writer = loop_writer(engine, True)
        assert writer is not None
        conn = writer.get()
        assert conn is not None and writer.get() is conn  # kept
        raw = conn.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        assert raw.execute("PRAGMA busy_timeout").fetchone() == (0,)
        # no checkpointer runs for this engine: SQLite's own 1,000 pages, as the pool's
        assert raw.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
        checkpointer = WalCheckpointer(engine)
        checkpointer.start()  # then only the backstop, as the pool's
        try:
            writer.drop(failed=False)
            backstop = writer.get()
            assert backstop is not None
            setting = backstop.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
            assert setting == WAL_BACKSTOP_PAGES
            with engine.connect() as pooled:
                assert pooled.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == setting
            writer.drop(failed=False)
        finally:
            checkpointer.stop()
        conn = writer.get()
        assert conn is not None
        pool = engine.pool
        assert isinstance(pool, QueuePool) and pool.checkedout() == 0  # not the pool's
        others: list[Any] = []
        thread = threading.Thread(target=lambda: others.append(writer.get()))
        thread.start()
        thread.join()
        assert others == [None]  # another thread asks in vain while this one lives
        taken = threading.Event()
        done = threading.Event()

        def keeper() -> None:  # a loop thread that ends: what it kept is taken over
            writer.drop(failed=False)
            others.append(writer.get())
            taken.set()
            done.wait(5)

        thread = threading.Thread(target=keeper)
        thread.start()
        assert taken.wait(5)
        assert others[-1] is not None and writer.get() is None
        done.set()
        thread.join()
        again = writer.get()
        assert again is not None and again is not others[-1] and others[-1].closed
        writer.drop(failed=False)
        assert writer.available()
    finally:
        engine.dispose()


def test_no_loop_writer_off_sqlite_files(tmp_path: Path) -> None:
    file_engine = make_engine(f"sqlite:///{tmp_path / 'a.db'}")
    memory = make_engine("sqlite://")
    pg = create_engine("postgresql+psycopg://u@localhost/none")
    try:
        found = loop_writer(file_engine, True)
        assert found is not None and found.engine is file_engine
        assert loop_writer(file_engine, False) is None
        assert loop_writer(memory, True) is None
        assert loop_writer(pg, True) is None
    finally:
        for e in (file_engine, memory, pg):
            e.dispose()


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_long_submission_is_run_in_a_worker_thread(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, _, app, front, game = await _warm(apps)
    watch = Statements(app)
    # a body past INLINE_BODY_BYTES: judged where the loop gets the interpreter back
    long = json.dumps(game.place()) + " " * INLINE_BODY_BYTES  # (JSON's blanks count)
    headers = {**game.headers(), "Content-Type": "application/json"}
    r = await inline.post(f"/games/{game.id}/actions", content=long, headers=headers)
    assert r.status_code == 201, r.text
    assert _counts(front) == (0, 0)  # never tried inline
    seen = watch.take()
    assert seen and not any(here for _, here in seen)


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_state_not_kept_hands_the_submission_to_a_worker(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, _, app, front, game = await _warm(apps)
    app.state.boards.states.clear()  # the board kept, the state not: reading it is a worker's
    watch = Statements(app)
    r = await inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
    assert r.status_code == 201, r.text
    assert _counts(front) == (0, 1)
    assert watch.take() == [("read", True), ("read", False), ("insert", False)]


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_database_error_inside_an_inline_write_hands_it_to_a_worker(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, off, app, front, game = await _warm(apps)
    writer, failing, raw = _loop_connection(app)

    def no_events(action: int, table: str | None, *rest: Any) -> int:  # SQLite's authorizer
        return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_INSERT and table == "events" else 0

    raw.set_authorizer(no_events)  # BEGIN IMMEDIATE and the row pass; the event's INSERT fails
    watch = Statements(app)
    r = await inline.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
    assert r.status_code == 201, r.text  # run again by a worker, which wrote it
    assert _counts(front) == (0, 1)
    assert [what for what, here in watch.take() if not here] == ["read", "insert"]
    assert failing.closed and not writer.available()  # discarded; the retry window
    log = (await off.get(f"/games/{game.id}/events", headers=game.umpire)).json()
    assert [e["seq"] for e in log["items"]] == [1]  # once: the inline try wrote nothing


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_stale_keyed_submission_is_answered_by_a_worker(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, _, _, front, game = await _warm(apps)
    # 412 inline; looking for an earlier answer to its key is a read through a session,
    # which the loop does not do: the whole request is run again in a worker
    headers = {**game.umpire, "If-Match": 'W/"7"', "Idempotency-Key": "k-9"}
    r = await inline.post(f"/games/{game.id}/actions", json=game.place(), headers=headers)
    assert r.status_code == 412, r.text
    assert _counts(front) == (0, 1)


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_submissions_stay_inline_past_a_checkpoint(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI], db_url: str
) -> None:
    """Past SQLite's 1,000 pages of WAL the loop's own commit checkpoints (no checkpointer
    runs here), and the writes after it are inline still: the WAL file keeps its length
    once grown, so its length is no measure of what is left to copy back."""
    inline, _, _, front, game = await _warm(apps)
    wal = Path(f"{db_url.removeprefix('sqlite:///')}-wal")
    n = 0
    while wal.stat().st_size <= 1000 * 4096 or n < 20:
        r = await inline.post(
            f"/games/{game.id}/actions", json=game.place(), headers=game.headers()
        )
        assert r.status_code == 201, r.text
        game.version = r.json()["version"]
        n += 1
        assert n < 5000
    for _ in range(20):
        r = await inline.post(
            f"/games/{game.id}/actions", json=game.place(), headers=game.headers()
        )
        assert r.status_code == 201, r.text
        game.version = r.json()["version"]
    assert _counts(front) == (n + 20, 0)
