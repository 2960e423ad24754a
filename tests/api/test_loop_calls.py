"""Loop calls through the fast routes on PostgreSQL (app/api/fast.py ``_blocking``,
app/db/pgloop.py): a submission that finds no idle pooled connection goes to a worker thread
having written nothing, and the loop serves other requests while it waits there; the same
submissions with loop calls turned off run in a worker thread and answer the same; and many
clients at once on a pool smaller than their number, over a real server, are all answered,
every game moved on exactly once per accepted submission."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event

from app.api.fast import FastRoutes
from app.config import Settings
from app.main import create_app
from tests.api.test_inline_writes import BASE, NOW, Game
from tests.support.server import running_server

WAIT = 30.0
pytestmark = [pytest.mark.anyio, pytest.mark.pg]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _front(app: FastAPI) -> FastRoutes:
    front = getattr(app, "front", None)
    assert isinstance(front, FastRoutes)
    return front


async def _place(client: httpx.AsyncClient, game: Game) -> httpx.Response:
    """The game's next umpire ``place_unit``, its version followed when accepted."""
    r = await client.post(f"/games/{game.id}/actions", json=game.place(), headers=game.headers())
    if r.status_code == 201:
        game.version = r.json()["version"]
    return r


@pytest.fixture
async def small_pool(pg_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    app = create_app(Settings(database_url=pg_url, db_pool_size=2), clock=lambda: NOW)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as c:
        yield c, app
    app.state.engine.dispose()


def _statement_threads(app: FastAPI) -> list[int]:
    """The threads the game row's read ran in, from now on."""
    seen: list[int] = []

    def observe(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if sql.startswith("SELECT games.id, games.ruleset_id"):
            seen.append(threading.get_ident())

    event.listen(app.state.engine, "before_cursor_execute", observe)
    return seen


async def test_no_idle_connection_hands_the_submission_to_a_worker(
    small_pool: tuple[httpx.AsyncClient, FastAPI],
) -> None:
    client, app = small_pool
    front = _front(app)
    game = await Game.new(client)
    # the first read of the game here reads and parses its board and state: in a worker
    assert (await client.get(f"/games/{game.id}")).status_code == 200
    assert (front.loop_calls, front.handed_off_calls) == (0, 1)
    assert (await client.get(f"/games/{game.id}")).status_code == 200  # kept: a loop call
    assert (front.loop_calls, front.handed_off_calls) == (1, 1)
    seen = _statement_threads(app)
    engine = app.state.engine
    start = game.version
    held = [engine.connect(), engine.connect()]  # the pool's two, held by this test
    try:
        submission = asyncio.ensure_future(_place(client, game))
        for _ in range(200):
            await asyncio.sleep(0.01)
            if front.handed_off_calls == 2:
                break
        # no idle connection: handed to a worker thread, which waits for one
        assert front.handed_off_calls == 2 and not submission.done()
        # the loop is not held up by it: a request needing no database is answered
        assert (await client.get("/rulesets/zoc")).status_code == 200
        assert not submission.done()
    finally:
        for conn in held:
            conn.close()
    r = await asyncio.wait_for(submission, WAIT)
    assert r.status_code == 201, r.text
    assert seen and all(t != threading.get_ident() for t in seen)  # all in the worker
    # moved on once: the loop call wrote nothing before it was handed off
    assert r.json()["version"] == start + 1
    events = (await client.get(f"/games/{game.id}/events", headers=game.umpire)).json()
    assert [e["kind"] for e in events["items"]] == ["place_unit"]
    # and the next one is a loop call again
    assert (await _place(client, game)).status_code == 201
    assert (front.loop_calls, front.handed_off_calls) == (2, 2)


async def test_without_loop_calls_the_same_submissions_run_in_a_worker(pg_url: str) -> None:
    on = create_app(Settings(database_url=pg_url), clock=lambda: NOW)
    off = create_app(Settings(database_url=pg_url, loop_calls=False), clock=lambda: NOW)
    here = threading.get_ident()
    answers: dict[str, list[Any]] = {}
    try:
        for name, app in (("on", on), ("off", off)):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
                game = await Game.new(client)
                assert (await client.get(f"/games/{game.id}")).status_code == 200  # (kept)
                seen = _statement_threads(app)
                got = [await _place(client, game) for _ in range(3)]
                got.append(await client.get(f"/games/{game.id}"))
                answers[name] = [(r.status_code, r.json().get("version")) for r in got]
                assert seen
                assert all(t == here for t in seen) == (name == "on")
                assert all(t != here for t in seen) == (name == "off")
                assert (_front(app).loop_calls > 0) == (name == "on")
    finally:
        on.state.engine.dispose()
        off.state.engine.dispose()
    assert answers["on"] == answers["off"]
    assert [status for status, _ in answers["on"]] == [201, 201, 201, 200]


def test_many_clients_on_a_small_pool_are_all_answered(pg_url: str) -> None:
    """Twelve clients at once, three pooled connections, a real server: loop calls and
    worker threads share the pool, nobody waits for ever, nothing is written twice."""
    app = create_app(Settings(database_url=pg_url, db_pool_size=3), clock=lambda: NOW)
    clients, rounds = 12, 8

    async def play(base: str) -> list[tuple[int, int]]:
        async with httpx.AsyncClient(base_url=base, timeout=WAIT) as client:
            games = [await Game.new(client) for _ in range(clients)]
            starts = [g.version for g in games]

            async def one(game: Game) -> list[int]:
                return [(await _place(client, game)).status_code for _ in range(rounds)]

            statuses = await asyncio.gather(*(one(g) for g in games))
            assert all(s == [201] * rounds for s in statuses), statuses
            out = []
            for game, start in zip(games, starts, strict=True):
                r = await client.get(f"/games/{game.id}")
                assert r.status_code == 200
                out.append((start, r.json()["version"]))
            return out

    try:
        with running_server(app) as base:
            versions = asyncio.run(play(base))
    finally:
        app.state.engine.dispose()
    assert all(end == start + rounds for start, end in versions)
    assert _front(app).loop_calls > 0
