"""Issue 22 (8a): the database going away is a 503 with ``Retry-After``, never a 500, and the
service recovers by itself when the database returns.

A real server process (``tests.support.serve``, the configuration ``referee serve`` uses) on a
PostgreSQL cluster of its own, which is stopped (``pg_ctl stop -m fast``: sessions terminated,
committed work kept) and started again on the same data directory and port while clients
write. Each round:

* clients submit notes (each with its own ``Idempotency-Key``) before, across and after the
  stop: every answer is 201, or 503 ``service.database_unavailable`` problem+json with the
  configured ``Retry-After`` -- never a 500;
* while the cluster is down, a write, a read, a game creation and ``/healthz`` are 503 with
  ``Retry-After``;
* once it is back (the same server process, no restart), reads and writes succeed again: the
  first read is timed from ``pg_ctl start`` returning;
* at the end every client retries every note it was not sure of (same key): every
  acknowledged note is in the log exactly once, every retry of one gets the same answer, and
  the audit replays.

The short form (one round, two clients, down until each client has seen a 503) runs in ``make
test``; ``REFEREE_RELIABILITY=long`` runs 5 rounds with four clients, down for 3 s each.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.client import RefereeClient, ServiceUnavailable
from app.config import Settings
from app.db.migrate import upgrade
from app.main import create_app
from tests.match.flowkit import tiny_scenario
from tests.reliability.conftest import LONG
from tests.support.postgres import PgCluster, cluster_for_tests
from tests.support.process import server_process
from tests.support.server import running_server

ROUNDS = 5 if LONG else 1
CLIENTS = 4 if LONG else 2
RETRY_AFTER = 3
"""REFEREE_DATABASE_RETRY_AFTER_SECONDS for the server under test (the default is 2)."""
OUTAGE = 3.0 if LONG else 0.0
"""Seconds the cluster stays down at least (the writers keep trying meanwhile)."""
RECOVERY_LIMIT = 10.0
"""Seconds after ``pg_ctl start`` within which a read must succeed again."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    """A cluster of this module's own: stopping it must not disturb the session's."""
    yield from cluster_for_tests()


def _is_unavailable(r: httpx.Response) -> bool:
    """A 503 service.database_unavailable problem+json with the configured Retry-After."""
    if r.status_code != 503:
        return False
    assert r.headers["content-type"] == "application/problem+json", r.text
    body = r.json()
    assert body["code"] == "service.database_unavailable", body
    assert r.headers["retry-after"] == str(RETRY_AFTER) and body["retry_after"] == RETRY_AFTER
    return True


class Writer(threading.Thread):
    """Submits notes with fresh keys until told to stop; records each answer."""

    def __init__(self, url: str, game: str, token: str, name: str) -> None:
        super().__init__(daemon=True)
        self.url, self.game, self.token, self.prefix = url, game, token, name
        self.acked: dict[str, str] = {}
        self.unsure: list[str] = []
        self.refused = 0
        self.stop = threading.Event()
        self.failure: str | None = None

    def post(self, c: httpx.Client, key: str) -> httpx.Response:
        return c.post(
            f"{self.url}/games/{self.game}/actions",
            json={"kind": "note", "text": key},
            headers={
                "Authorization": f"Bearer {self.token}",
                "If-Match": "*",
                "Idempotency-Key": key,
            },
        )

    def run(self) -> None:
        n = 0
        with httpx.Client(timeout=30) as c:
            while not self.stop.is_set():
                key = f"{self.prefix}-{n}"
                n += 1
                try:
                    r = self.post(c, key)
                except httpx.HTTPError:
                    self.unsure.append(key)
                    continue
                if r.status_code == 201:
                    self.acked[key] = r.text
                elif _is_unavailable(r):
                    self.refused += 1
                    self.unsure.append(key)
                    time.sleep(0.05)
                else:
                    self.failure = f"{key}: {r.status_code} {r.text}"
                    return


def _create(url: str) -> tuple[str, dict[str, str]]:
    r = httpx.post(
        f"{url}/games", json={"ruleset": "tiny", "scenario": tiny_scenario()}, timeout=30
    )
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["seats"]


def _outage_answers(c: httpx.Client, game: str, seats: dict[str, str]) -> float:
    """While the database is down: a write, reads, a creation and /healthz are all 503.
    Returns the slowest of those answers (seconds)."""
    started = time.monotonic()
    umpire = {"Authorization": f"Bearer {seats['umpire']}"}
    write = c.post(
        f"/games/{game}/actions",
        json={"kind": "note", "text": "during the outage"},
        headers={"Authorization": f"Bearer {seats['red']}", "If-Match": "*"},
    )
    assert _is_unavailable(write), write.text
    for r in (
        c.get(f"/games/{game}", headers=umpire),
        c.get(f"/games/{game}/events", headers=umpire),
        c.get(f"/v1/games/{game}"),
        c.post("/games", json={"ruleset": "tiny", "scenario": tiny_scenario()}),
    ):
        assert _is_unavailable(r), (r.request.url, r.status_code, r.text)
    health = c.get("/healthz")
    assert _is_unavailable(health) and health.json()["database"] == "unreachable"
    return max(
        (time.monotonic() - started) / 6,
        *(r.elapsed.total_seconds() for r in (write, health)),
    )


@pytest.mark.pg
def test_database_restart_is_503_then_recovers_and_loses_nothing(
    cluster: PgCluster, tmp_path: Path
) -> None:
    url = cluster.url(cluster.create_database())
    upgrade(url)
    env = {"REFEREE_DATABASE_RETRY_AFTER_SECONDS": str(RETRY_AFTER)}
    recoveries: list[float] = []
    slowest_503: list[float] = []
    outages: list[float] = []
    with server_process(url, tmp_path, env=env) as server:
        server.wait_healthy()
        game, seats = _create(server.url)
        writers: list[Writer] = []
        with httpx.Client(base_url=server.url, timeout=30) as c:
            for round_ in range(ROUNDS):
                batch = [
                    Writer(server.url, game, seats["red"], f"r{round_}-c{i}")
                    for i in range(CLIENTS)
                ]
                for w in batch:
                    w.start()
                while sum(len(w.acked) for w in batch) < 4 * CLIENTS:
                    assert all(w.is_alive() for w in batch), [w.failure for w in batch]
                    time.sleep(0.01)
                cluster.halt("fast")
                down = time.monotonic()
                try:
                    slowest_503.append(_outage_answers(c, game, seats))
                    while (
                        sum(w.refused for w in batch) < CLIENTS  # each writer saw it
                        or time.monotonic() - down < OUTAGE
                    ):
                        assert all(w.is_alive() for w in batch), [w.failure for w in batch]
                        time.sleep(0.01)
                finally:
                    cluster.restart()
                started = time.monotonic()
                outages.append(started - down)
                while True:
                    r = c.get(f"/games/{game}")
                    if r.status_code == 200:
                        break
                    assert _is_unavailable(r), r.text
                    assert time.monotonic() - started < RECOVERY_LIMIT, "no recovery"
                    time.sleep(0.02)
                recoveries.append(time.monotonic() - started)
                after = {w: len(w.acked) for w in batch}
                while any(len(w.acked) < after[w] + 3 for w in batch):  # writes resume
                    assert all(w.is_alive() for w in batch), [w.failure for w in batch]
                    time.sleep(0.01)
                for w in batch:
                    w.stop.set()
                for w in batch:
                    w.join(timeout=60)
                    assert w.failure is None, w.failure
                writers += batch
            health = c.get("/healthz")
            assert health.status_code == 200 and health.json()["database"] == "ok"
            # every client retries what it was not sure of, with the same key
            answers: dict[str, str] = {}
            for w in writers:
                for key in [*w.acked, *w.unsure]:
                    r = w.post(c, key)
                    assert r.status_code == 201, r.text
                    answers[key] = r.text
            for w in writers:
                for key, body in w.acked.items():
                    assert answers[key] == body, f"retry of acknowledged {key} differs"
            umpire = {"Authorization": f"Bearer {seats['umpire']}"}
            notes: list[Any] = c.get(f"/games/{game}", headers=umpire).json()["state"]["notes"]
            assert sorted(notes) == sorted(answers), "a note is missing or applied twice"
            audit = c.get(f"/games/{game}/audit", headers=umpire, timeout=120)
            assert audit.status_code == 200 and audit.json()["ok"] is True, audit.text
    print(
        f"outages (s): {[round(t, 2) for t in outages]}; slowest 503 (s): "
        f"{max(slowest_503):.3f}; first read after pg_ctl start (s): "
        f"{[round(t, 3) for t in recoveries]}; notes acknowledged "
        f"{sum(len(w.acked) for w in writers)}, refused 503 {sum(w.refused for w in writers)}, "
        f"retried {len(answers)}"
    )


def test_sqlite_file_unreachable_is_503_until_it_is_there(
    tmp_path: Path, sqlite_template: Path
) -> None:
    """SQLite ``unable to open database file`` (here: a directory where the file should be,
    as when a volume is not mounted yet) is 503 with Retry-After; once the file is there, the
    same server serves."""
    path = tmp_path / "referee.db"
    path.mkdir()
    settings = Settings(
        database_url=f"sqlite:///{path}",
        webhook_worker=False,
        database_retry_after_seconds=RETRY_AFTER,
    )
    with running_server(create_app(settings)) as url, httpx.Client(base_url=url) as c:
        for r in (
            c.get("/healthz"),
            c.post("/games", json={"ruleset": "tiny", "scenario": tiny_scenario()}),
            c.get("/games/00000000-0000-0000-0000-000000000000"),
        ):
            assert _is_unavailable(r), (r.request.url, r.status_code, r.text)
        with RefereeClient(url) as referee, pytest.raises(ServiceUnavailable) as caught:
            referee.healthz()
        assert caught.value.problem.code == "service.database_unavailable"
        assert caught.value.retry_after == RETRY_AFTER
        path.rmdir()
        shutil.copyfile(sqlite_template, path)
        game, _ = _create(url)
        assert c.get(f"/games/{game}").status_code == 200
        assert c.get("/healthz").json() == {"status": "ok", "database": "ok"}
