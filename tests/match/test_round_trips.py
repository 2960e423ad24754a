"""Issue 11: what a request costs the database. A read (GET game, dry run) is one statement --
the game row, its board digest and the token's seat in one query, the clock settled lazily --
and a submission to a game without webhooks is that query, one conditional UPDATE and one
INSERT -- on PostgreSQL one statement, the UPDATE, the INSERT and ``pg_notify`` in one
``WITH`` -- also right after another submission: the state a write stored is kept parsed for
the next request. Rotated and revoked tokens still fail at once
(tests/platform/test_tokens_api.py): nothing about a token is cached."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from tests.match.flowkit import FakeClock, new_game, problem

pytestmark = pytest.mark.anyio

TRANSACTION = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


@contextmanager
def statements(client: httpx.AsyncClient) -> Iterator[list[str]]:
    """The SQL statements (not transaction control) the app runs inside the block."""
    engine = client._transport.app.state.engine  # type: ignore[attr-defined]
    seen: list[str] = []

    def record(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if not sql.lstrip().upper().startswith(TRANSACTION):
            seen.append(" ".join(sql.split())[:60])

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_a_read_is_one_statement(client: httpx.AsyncClient) -> None:
    game = await new_game(client, public=False)
    url = f"/games/{game.id}"
    assert (await client.get(url, headers=game.auth("red"))).status_code == 200  # caches warm
    with statements(client) as seen:
        r = await client.get(url, headers=game.auth("red"))
    assert r.status_code == 200 and r.json()["seat"] == "red"
    assert len(seen) == 1, seen
    with statements(client) as seen:
        r = await client.post(
            f"{url}/rulings", json={"kind": "step", "pawn": "r1", "n": 1}, headers=game.auth("blue")
        )
    assert r.status_code == 200 and r.json()["legal"] is True
    assert len(seen) == 1, seen
    with statements(client) as seen:
        problem(await client.get(url), 401, "auth.required")  # private: a token is needed
        problem(
            await client.get(url, headers={"Authorization": "Bearer x"}), 401, "auth.invalid_token"
        )
    assert len(seen) == 2, seen


async def test_a_submission_is_three_statements_two_on_postgresql(
    client: httpx.AsyncClient,
) -> None:
    game = await new_game(client)
    url = f"/games/{game.id}"
    etag = (await client.get(url)).headers["etag"]
    with statements(client) as seen:
        r = await client.post(
            f"{url}/actions",
            json={"kind": "step", "pawn": "r1", "n": 1},
            headers={**game.auth("red"), "If-Match": etag},
        )
    assert r.status_code == 201, r.text
    kinds = [s.split()[0].upper() for s in seen]
    postgres = client._transport.app.state.engine.dialect.name == "postgresql"  # type: ignore[attr-defined]
    write = ["WITH"] if postgres else ["UPDATE", "INSERT"]  # PostgreSQL: with its pg_notify
    assert kinds == ["SELECT", *write], seen
    # the next submission finds the state the first one stored kept parsed: it reads no state
    with statements(client) as seen:
        again = await client.post(
            f"{url}/actions",
            json={"kind": "step", "pawn": "r1", "n": 1},
            headers={**game.auth("red"), "If-Match": r.headers["etag"]},
        )
    assert again.status_code == 201, again.text
    assert [s.split()[0].upper() for s in seen] == ["SELECT", *write], seen
    # the cached view follows the version: the next read shows the move
    after = await client.get(url)
    assert after.headers["etag"] != etag and after.json()["version"] == again.json()["version"]


async def test_a_read_settles_a_clock_that_ran_out(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    game = await new_game(client, match={"clock": {"budget_seconds": 60, "on_expiry": "forfeit"}})
    url = f"/games/{game.id}"
    assert (await client.get(url)).json()["clock"]["expired"] == []
    clock.advance(61)
    view = (await client.get(url)).json()
    assert view["clock"]["expired"] == ["red"] and view["status"] == "finished"
    assert view["winner"] == "blue"
    events = (await client.get(f"{url}/events")).json()["items"]
    assert [e["kind"] for e in events] == ["clock_expired"]
    with statements(client) as seen:  # recorded once: later reads are one statement again
        assert (await client.get(url)).json()["version"] == view["version"]
    assert len(seen) == 1, seen
