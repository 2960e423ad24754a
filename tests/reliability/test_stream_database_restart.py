"""Issue 22 item 8: an open stream survives a database restart.

A real server (in this process, over a real socket) streams a game of a PostgreSQL cluster of
its own; the cluster is stopped (``pg_ctl stop -m fast``) while the stream is open and started
again on the same data directory and port. The stream must stay open through the outage (it
says so in a comment), and an event committed after the restart must reach it on the same
connection, with the next sequence number: no reconnect, no gap, no duplicate.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest

from app.config import Settings
from app.db.migrate import upgrade
from app.main import create_app
from tests.reliability.conftest import LONG
from tests.support.postgres import PgCluster, cluster_for_tests
from tests.support.server import running_server
from tests.support.sse import SseStream
from tests.support.tiny import TINY

pytestmark = pytest.mark.pg

OUTAGES = 3 if LONG else 1
OUTAGE_SECONDS = 2.0


def _pg_ctl(cluster: PgCluster, *args: str) -> None:
    cmd = cluster._cmd(str(cluster.bindir / "pg_ctl"), "-D", str(cluster.data), *args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr


def _stop(cluster: PgCluster) -> None:
    _pg_ctl(cluster, "stop", "-m", "fast", "-w")


def _start(cluster: PgCluster) -> None:
    options = (
        f"-p {cluster.port} -k {cluster.sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    _pg_ctl(cluster, "-l", str(cluster.root / "server.log"), "-o", options, "-w", "start")


@pytest.fixture
def own_cluster() -> Iterator[PgCluster]:
    """A cluster of this test's own: stopping it disturbs no other test."""
    yield from cluster_for_tests()


def _step(http: httpx.Client, game_id: str, token: str, deadline: float) -> int:
    """Post one step, retrying while the service answers 503 (the database coming back)."""
    last = None
    while time.monotonic() < deadline:
        r = http.post(
            f"/games/{game_id}/actions",
            json={"kind": "step", "pawn": "r1", "n": 1},
            headers={"Authorization": f"Bearer {token}", "If-Match": "*"},
        )
        if r.status_code == 201:
            seq: int = r.json()["event"]
            return seq
        assert r.status_code in (500, 503), r.text  # never a client error
        last = r
        time.sleep(0.2)
    raise AssertionError(f"no write accepted after the restart: {last and last.text}")


def test_an_open_stream_survives_a_database_restart(own_cluster: PgCluster) -> None:
    url = own_cluster.url(own_cluster.create_database())
    upgrade(url)
    settings = Settings(
        database_url=url, sse_keepalive_seconds=0.3, sse_poll_seconds=0.2, webhook_worker=False
    )
    with (
        running_server(create_app(settings)) as base,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        created = http.post("/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()})
        assert created.status_code == 201, created.text
        game_id, red = created.json()["id"], created.json()["seats"]["red"]
        with SseStream(base, f"/games/{game_id}/events/stream") as stream:
            assert stream.status == 200, stream.body
            stream.wait_comment("stream open", 10)
            expected = _step(http, game_id, red, time.monotonic() + 10)
            assert stream.next_event(10).id == str(expected)
            for _ in range(OUTAGES):
                _stop(own_cluster)
                stream.wait_comment("database unavailable: retrying", 10)
                time.sleep(OUTAGE_SECONDS)
                assert stream.error is None and stream.quiet(0.1)
                _start(own_cluster)
                expected = _step(http, game_id, red, time.monotonic() + 30)
                event = stream.next_event(15)
                assert (event.id, event.event) == (str(expected), "step"), event
                stream.comments.clear()
            assert stream.quiet(0.5)  # nothing twice
