"""The core flow over a real socket (uvicorn in a thread), and concurrent writers."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.support.server import running_server
from tests.support.tiny import TINY


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    app = create_app(Settings(database_url=db_url, max_body_bytes=4096))
    with running_server(app) as url:
        yield url


def test_core_flow_over_a_socket(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as c:
        assert c.get("/healthz").json()["status"] == "ok"
        created = c.post("/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()})
        assert created.status_code == 201
        gid, seats = created.json()["id"], created.json()["seats"]
        red = {"Authorization": f"Bearer {seats['red']}"}

        etag = c.get(f"/games/{gid}").headers["etag"]
        assert c.get(f"/games/{gid}", headers={"If-None-Match": etag}).status_code == 304
        dry = c.post(f"/games/{gid}/rulings", json={"kind": "step", "pawn": "r1", "n": 3})
        assert dry.status_code == 200 and dry.json()["legal"] is True

        done = c.post(
            f"/games/{gid}/actions",
            json={"kind": "step", "pawn": "r1", "n": 3},
            headers={**red, "If-Match": etag, "Idempotency-Key": "k1"},
        )
        assert done.status_code == 201 and done.json()["state"]["positions"]["r1"] == 3
        replay = c.post(
            f"/games/{gid}/actions",
            json={"kind": "step", "pawn": "r1", "n": 3},
            headers={**red, "If-Match": etag, "Idempotency-Key": "k1"},
        )
        assert replay.json() == done.json()
        stale = c.post(
            f"/games/{gid}/actions",
            json={"kind": "step", "pawn": "r1", "n": 1},
            headers={**red, "If-Match": etag},
        )
        assert stale.status_code == 412
        assert stale.headers["content-type"] == "application/problem+json"
        illegal = c.post(
            f"/games/{gid}/actions",
            json={"kind": "step", "pawn": "r1", "n": 9},
            headers={**red, "If-Match": done.headers["etag"]},
        )
        assert illegal.status_code == 422 and illegal.json()["ruling"]["legal"] is False
        events = c.get(f"/games/{gid}/events").json()
        assert [e["seq"] for e in events["items"]] == [1]
        assert c.get(f"/games/{gid}/queries/where", params={"pawn": "r1"}).json()["result"] == {
            "pawn": "r1",
            "at": 3,
        }

        too_big = c.post(
            "/games",
            content=b"{" + b" " * 5000 + b"}",
            headers={"Content-Type": "application/json"},
        )
        assert too_big.status_code == 413

        def streamed() -> Iterator[bytes]:
            for _ in range(10):
                yield b" " * 1000

        chunked = c.post("/games", content=streamed(), headers={"Content-Type": "application/json"})
        assert chunked.status_code == 413
        assert chunked.json()["code"] == "request.too_large"


def test_concurrent_actions_with_one_if_match_exactly_one_wins(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=60) as c:
        created = c.post("/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()})
        gid, seats = created.json()["id"], created.json()["seats"]
        etag = c.get(f"/games/{gid}").headers["etag"]

    writers = 8
    barrier = threading.Barrier(writers)
    statuses: list[int] = []
    lock = threading.Lock()

    def submit(i: int) -> None:
        seat = "red" if i % 2 == 0 else "umpire"
        with httpx.Client(base_url=base_url, timeout=60) as client:
            barrier.wait()
            r = client.post(
                f"/games/{gid}/actions",
                json={"kind": "step", "pawn": "r1", "n": 1 + i % 3},
                headers={"Authorization": f"Bearer {seats[seat]}", "If-Match": etag},
            )
        with lock:
            statuses.append(r.status_code)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(statuses) == [201] + [412] * (writers - 1)
    with httpx.Client(base_url=base_url, timeout=30) as c:
        game = c.get(f"/games/{gid}").json()
        events = c.get(f"/games/{gid}/events").json()["items"]
    assert game["version"] == 2
    assert len(events) == 1 and events[0]["version"] == 2


def test_concurrent_retries_with_one_idempotency_key_apply_once(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=60) as c:
        created = c.post("/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()})
        gid, seats = created.json()["id"], created.json()["seats"]
    headers = {
        "Authorization": f"Bearer {seats['red']}",
        "If-Match": 'W/"1"',
        "Idempotency-Key": "same-click",
    }
    retries = 6
    barrier = threading.Barrier(retries)
    results: list[tuple[int, str]] = []
    lock = threading.Lock()

    def submit() -> None:
        with httpx.Client(base_url=base_url, timeout=60) as client:
            barrier.wait()
            r = client.post(
                f"/games/{gid}/actions",
                json={"kind": "step", "pawn": "r1", "n": 1},
                headers=headers,
            )
        with lock:
            results.append((r.status_code, r.text))

    threads = [threading.Thread(target=submit) for _ in range(retries)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert {status for status, _ in results} == {201}
    assert len({text for _, text in results}) == 1
    with httpx.Client(base_url=base_url, timeout=30) as c:
        assert len(c.get(f"/games/{gid}/events").json()["items"]) == 1
        assert c.get(f"/games/{gid}").json()["version"] == 2
