"""Inline reads (app/api/fast.py ``FastRoutes._read``, app/db/engine.py ``LoopConnections``):
on SQLite a plain GET game or dry run of a game whose board and state the process keeps is
answered on the event loop itself, reading its one row on the loop's own connection; a cold
cache, a write inside the read (a clock that ran out) or a failed connection sends the request
to a worker thread. Either way the answer is the same as with inline reads off; on PostgreSQL
there are none.

The requests go through ``httpx.ASGITransport``, which runs the application in the test's own
event loop: a statement run inline runs in the test's thread, one run in a worker thread in
another thread.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, event

from app.api.fast import INLINE_BODY_BYTES, FastRoutes
from app.config import Settings
from app.db.engine import LoopConnections, loop_connections, make_engine
from app.main import create_app
from tests.match.flowkit import FakeClock, new_game

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "zoc" / "seed-example.json"
NOW = 1_800_000_000.0
BASE = "http://referee.test"
pytestmark = pytest.mark.anyio

LEGAL = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}
ILLEGAL = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e0101"]}


def _front(app: FastAPI) -> FastRoutes:
    front = getattr(app, "front", None)
    assert isinstance(front, FastRoutes)
    return front


def _answer(r: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    return r.status_code, r.headers.multi_items(), r.content


class Statements:
    """The threads the game row's statement ran in (the engine's statement observer)."""

    def __init__(self, app: FastAPI) -> None:
        self.threads: list[int] = []
        event.listen(app.state.engine, "before_cursor_execute", self._seen)

    def _seen(self, conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if sql.startswith("SELECT games.id, games.ruleset_id"):  # the game row (with a seat)
            self.threads.append(threading.get_ident())

    def take(self) -> list[int]:
        seen, self.threads = self.threads, []
        return seen


@pytest.fixture
async def apps(db_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI]]:
    inline = create_app(Settings(database_url=db_url), clock=lambda: NOW)
    off = create_app(
        Settings(database_url=db_url, inline_reads=False, loop_calls=False), clock=lambda: NOW
    )
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=inline), base_url=BASE) as i,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=off), base_url=BASE) as o,
    ):
        yield i, o, inline
    if inline.state.inline_reads is not None:
        inline.state.inline_reads.drop(failed=False)
    inline.state.engine.dispose()
    off.state.engine.dispose()


async def _game(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    scenario = json.loads(SEED.read_text())
    r = await client.post("/games", json={"ruleset": "zoc", "scenario": scenario, **extra})
    assert r.status_code == 201, r.text
    return dict(r.json())


async def _warm(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> tuple[httpx.AsyncClient, FastAPI, FastRoutes, str, httpx.Response]:
    """A new game read once through the inline app (its board and state now kept): the
    inline client, its app and front, the game id and that first answer."""
    inline, off, app = apps
    gid = (await _game(off))["id"]
    return inline, app, _front(app), gid, await inline.get(f"/games/{gid}")


def _forget(app: FastAPI) -> None:
    """The board and every state forgotten: reading and parsing them is a worker's."""
    app.state.boards.clear()
    app.state.boards.states.clear()


async def test_warm_reads_are_answered_on_the_loop_as_in_a_worker(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI], db_kind: str
) -> None:
    inline, off, app = apps
    front = _front(app)
    game = await _game(off)
    private = await _game(off, public=False)
    gid, pid, seats = game["id"], private["id"], game["seats"]
    umpire = {"Authorization": f"Bearer {seats['umpire']}"}
    wrong = {"Authorization": "Bearer not-a-token-of-this-game"}
    asks: list[tuple[str, str, dict[str, str], Any]] = [
        ("GET", f"/games/{gid}", {}, None),
        ("GET", f"/games/{gid}", umpire, None),
        ("GET", f"/v1/games/{gid}", umpire, None),
        ("GET", f"/games/{gid}", wrong, None),
        ("GET", f"/games/{pid}", {}, None),  # private: 401
        ("GET", "/games/00000000-0000-4000-8000-000000000000", {}, None),  # 404
        ("POST", f"/games/{gid}/rulings", {}, LEGAL),
        ("POST", f"/games/{gid}/rulings", umpire, ILLEGAL),
        ("POST", f"/games/{gid}/rulings", {}, {"kind": "no-such-kind"}),
    ]
    for method, path, headers, body in asks:  # the first of each warms the inline app's cache
        await inline.request(method, path, headers=headers, json=body)
    watch = Statements(app)
    before = (front.inline, front.handed_off, front.loop_calls, front.handed_off_calls)
    for method, path, headers, body in asks:
        got = await inline.request(method, path, headers=headers, json=body)
        want = await off.request(method, path, headers=headers, json=body)
        assert _answer(got) == _answer(want), (method, path)
    here = threading.get_ident()
    if db_kind == "sqlite":
        assert app.state.inline_reads is not None
        # every one answered inline, its game row read in this thread (the event loop's)
        assert (front.inline - before[0], front.handed_off - before[1]) == (len(asks), 0)
        seen = watch.take()
        assert seen and all(t == here for t in seen)
    else:  # PostgreSQL: never inline; a loop call each (app/db/pgloop.py), its statements
        # in this thread too, its waits the loop's
        assert app.state.inline_reads is None
        assert (front.inline, front.handed_off) == (0, 0)
        calls = (front.loop_calls - before[2], front.handed_off_calls - before[3])
        assert calls == (len(asks), 0)
        seen = watch.take()
        assert seen and all(t == here for t in seen)


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_cold_cache_hands_the_read_to_a_worker_thread(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, app, front, gid, warm = await _warm(apps)
    dry = await inline.post(f"/games/{gid}/rulings", json=LEGAL)
    _forget(app)
    watch = Statements(app)
    here = threading.get_ident()
    before = (front.inline, front.handed_off)
    again = await inline.get(f"/games/{gid}")
    assert _answer(again) == _answer(warm)
    assert (front.inline - before[0], front.handed_off - before[1]) == (0, 1)
    # the inline attempt read the row here, then the worker read it again elsewhere
    assert [t == here for t in watch.take()] == [True, False]
    # now kept: the next ones are inline
    assert _answer(await inline.post(f"/games/{gid}/rulings", json=LEGAL)) == _answer(dry)
    assert _answer(await inline.get(f"/games/{gid}")) == _answer(warm)
    assert (front.inline - before[0], front.handed_off - before[1]) == (2, 1)
    _forget(app)  # a dry run on a cold cache alike
    assert _answer(await inline.post(f"/games/{gid}/rulings", json=LEGAL)) == _answer(dry)
    assert (front.inline - before[0], front.handed_off - before[1]) == (2, 2)
    assert [t == here for t in watch.take()][-2:] == [True, False]


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_long_dry_run_is_judged_in_a_worker_thread(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, app, front, gid, _ = await _warm(apps)
    off = apps[1]
    # a path past INLINE_BODY_BYTES: judged where the loop gets the interpreter back
    long = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"] * 300}
    assert len(json.dumps(long)) > INLINE_BODY_BYTES
    watch = Statements(app)
    before = (front.inline, front.handed_off)
    got = await inline.post(f"/games/{gid}/rulings", json=long)
    assert _answer(got) == _answer(await off.post(f"/games/{gid}/rulings", json=long))
    assert (front.inline - before[0], front.handed_off - before[1]) == (0, 0)  # never tried
    here = threading.get_ident()
    seen = watch.take()
    assert seen and all(t != here for t in seen)
    short = await inline.post(f"/games/{gid}/rulings", json=LEGAL)  # a small one: inline
    assert short.status_code == 200
    assert (front.inline - before[0], front.handed_off - before[1]) == (1, 0)


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_failed_loop_connection_is_replaced_and_the_read_answered(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, app, front, gid, warm = await _warm(apps)
    connections: LoopConnections = app.state.inline_reads
    broken = connections.get()  # this thread's: the loop's
    broken.close()  # e.g. the file went away under it: its BEGIN fails
    before = (front.inline, front.handed_off)
    assert _answer(await inline.get(f"/games/{gid}")) == _answer(warm)
    assert (front.inline - before[0], front.handed_off - before[1]) == (0, 1)
    # for RETRY_SECONDS the reads go straight to a worker: not reopened at every request
    assert not connections.available()
    assert _answer(await inline.get(f"/games/{gid}")) == _answer(warm)
    assert (front.inline - before[0], front.handed_off - before[1]) == (0, 1)
    connections.RETRY_SECONDS = 0.0  # (this instance) the window over: a new connection
    assert _answer(await inline.get(f"/games/{gid}")) == _answer(warm)
    assert (front.inline - before[0], front.handed_off - before[1]) == (1, 1)
    assert connections.get() is not broken


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_statement_refused_after_begin_hands_the_read_on(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    inline, app, front, gid, warm = await _warm(apps)
    connections: LoopConnections = app.state.inline_reads
    connections.RETRY_SECONDS = 0.0
    refusing = connections.get()

    def no_games(action: int, table: str | None, *rest: Any) -> int:  # SQLite's authorizer
        return sqlite3.SQLITE_DENY if table == "games" else sqlite3.SQLITE_OK

    refusing.set_authorizer(no_games)  # BEGIN passes; the game row's SELECT is refused
    before = (front.inline, front.handed_off)
    assert _answer(await inline.get(f"/games/{gid}")) == _answer(warm)
    assert (front.inline - before[0], front.handed_off - before[1]) == (0, 1)
    fresh = connections.get()
    assert fresh is not refusing and not fresh.in_transaction  # dropped, closed, replaced
    assert _answer(await inline.get(f"/games/{gid}")) == _answer(warm)
    assert (front.inline - before[0], front.handed_off - before[1]) == (1, 1)


@pytest.fixture
def clock_app(db_url: str) -> Iterator[tuple[FastAPI, FakeClock]]:
    clock = FakeClock()
    app = create_app(Settings(database_url=db_url), clock=clock)
    yield app, clock
    app.state.engine.dispose()


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
async def test_a_clock_run_out_is_recorded_by_a_worker_thread(
    clock_app: tuple[FastAPI, FakeClock],
) -> None:
    app, clock = clock_app
    front = _front(app)
    control = {"budget_seconds": 100, "increment_seconds": 10, "cap_seconds": 105}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as c:
        g = await new_game(c, match={"clock": control})
        assert (await g.view("blue"))["version"] == 1
        before = (front.inline, front.handed_off)
        assert (await g.view("blue"))["version"] == 1
        assert (front.inline - before[0], front.handed_off - before[1]) == (1, 0)
        clock.advance(150)  # red's time runs out: the next read records it (a write)
        dry = await c.post(f"/games/{g.id}/rulings", json={"kind": "step", "pawn": "b1", "n": -1})
        assert dry.status_code == 200, dry.text
        assert (front.inline - before[0], front.handed_off - before[1]) == (1, 1)
        view = await g.view("blue")  # recorded: read inline
        assert view["version"] == 2 and view["clock"]["expired"] == ["red"]
        assert (front.inline - before[0], front.handed_off - before[1]) == (2, 1)
        assert [e["kind"] for e in await g.events("blue")] == ["clock_expired"]
    app.state.inline_reads.drop(failed=False)


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
def test_shutdown_closes_the_loop_connection(db_url: str) -> None:
    from fastapi.testclient import TestClient

    app = create_app(Settings(database_url=db_url))
    path = Path(db_url.removeprefix("sqlite:///"))
    with TestClient(app) as client:
        gid = client.post(
            "/games", json={"ruleset": "zoc", "scenario": json.loads(SEED.read_text())}
        ).json()["id"]
        for _ in range(2):
            assert client.get(f"/games/{gid}").status_code == 200
        assert _front(app).inline >= 1
        assert Path(f"{path}-wal").exists()
    # every connection closed: the last one checkpointed the WAL and removed it
    assert not Path(f"{path}-wal").exists()


def test_a_loop_connection_never_waits_and_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (x INTEGER)")
    setup.close()
    connections = LoopConnections(path)
    conn = connections.get()
    assert connections.get() is conn  # one per thread, kept
    assert conn.execute("PRAGMA busy_timeout").fetchone() == (0,)
    assert conn.execute("PRAGMA query_only").fetchone() == (1,)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("INSERT INTO t VALUES (1)")
    others: list[sqlite3.Connection] = []

    def other() -> None:
        others.append(connections.get())
        connections.drop(failed=False)

    worker = threading.Thread(target=other)
    worker.start()
    worker.join()
    assert others[0] is not conn  # another thread has its own
    connections.drop(failed=False)
    assert connections.available()
    again = connections.get()
    assert again is not conn
    connections.drop(failed=False)
    # never creates a database: a missing file fails (the read then goes to a worker)
    with pytest.raises(sqlite3.OperationalError):
        LoopConnections(tmp_path / "missing.db").get()
    assert not (tmp_path / "missing.db").exists()
    spaced = tmp_path / "a dir?#" / "y.db"  # characters a URI must escape
    spaced.parent.mkdir()
    sqlite3.connect(spaced).close()
    escaped = LoopConnections(spaced)
    assert escaped.get().execute("PRAGMA query_only").fetchone() == (1,)
    escaped.drop(failed=False)


def test_no_loop_connections_off_sqlite_files(tmp_path: Path) -> None:
    file_engine = make_engine(f"sqlite:///{tmp_path / 'a.db'}")
    memory = make_engine("sqlite://")
    pg = create_engine("postgresql+psycopg://u@localhost/none")
    try:
        found = loop_connections(file_engine, True)
        assert found is not None and found.path == tmp_path / "a.db"
        assert loop_connections(file_engine, False) is None
        assert loop_connections(memory, True) is None
        assert loop_connections(pg, True) is None
    finally:
        for e in (file_engine, memory, pg):
            e.dispose()
