"""Two real server processes on one PostgreSQL database: an action posted to one is streamed
by the other, woken by LISTEN/NOTIFY.

Polling and keep-alives are set to a minute in both processes, so only a notification can
deliver the event within the test's deadline. Every wait is bounded; a failure names what did
not happen and shows the servers' stderr. Runs wherever the throwaway PostgreSQL cluster
starts -- in CI (CI=true) it must start, or the run fails (tests/conftest.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx
import pytest

from app.db.migrate import ROOT
from tests.support.postgres import PgCluster
from tests.support.sse import SseStream
from tests.support.tiny import TINY

pytestmark = pytest.mark.pg

START_TIMEOUT = 30.0
DELIVERY_TIMEOUT = 10.0


@dataclass
class ServerProcess:
    name: str
    url: str
    proc: subprocess.Popen[bytes]
    log: IO[bytes]

    def stderr(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-3000:]


def _start(name: str, database_url: str, log_dir: Path) -> ServerProcess:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    env = {
        **os.environ,
        "REFEREE_DATABASE_URL": database_url,
        "REFEREE_SSE_KEEPALIVE_SECONDS": "60",
        "REFEREE_SSE_POLL_SECONDS": "60",
        "PYTHONUNBUFFERED": "1",
    }
    log = tempfile.TemporaryFile(dir=log_dir)  # noqa: SIM115 -- closed by _stop()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.serve", "--fd", str(sock.fileno())],
            cwd=ROOT,
            env=env,
            pass_fds=(sock.fileno(),),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    finally:
        sock.close()  # the child holds its own copy
    return ServerProcess(name, f"http://127.0.0.1:{port}", proc, log)


def _wait_healthy(server: ServerProcess) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    last = ""
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            pytest.fail(
                f"server {server.name} exited with {server.proc.returncode}:\n{server.stderr()}"
            )
        try:
            r = httpx.get(f"{server.url}/healthz", timeout=2)
            if r.status_code == 200:
                return
            last = r.text
        except httpx.HTTPError as exc:
            last = repr(exc)
        time.sleep(0.1)
    pytest.fail(
        f"server {server.name} not healthy in {START_TIMEOUT} s ({last}):\n{server.stderr()}"
    )


def _stop(server: ServerProcess) -> None:
    if server.proc.poll() is None:
        server.proc.terminate()
        try:
            server.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(timeout=10)
    server.log.close()


@pytest.fixture
def pg_url(pg_cluster: PgCluster, pg_template: str) -> Iterator[str]:
    name = pg_cluster.create_database(template=pg_template)
    try:
        yield pg_cluster.url(name)
    finally:
        pg_cluster.drop_database(name)


@pytest.fixture
def two_servers(pg_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    first = _start("A", pg_url, tmp_path)
    second = _start("B", pg_url, tmp_path)
    try:
        _wait_healthy(first)
        _wait_healthy(second)
        yield first, second
    finally:
        _stop(first)
        _stop(second)


def test_an_action_posted_to_one_process_is_streamed_by_the_other(
    two_servers: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = two_servers
    with httpx.Client(timeout=15) as http:
        created = http.post(
            f"{a.url}/games", json={"ruleset": "tiny", "scenario": TINY.example_scenario()}
        )
        assert created.status_code == 201, created.text
        gid, seats = created.json()["id"], created.json()["seats"]
        red = {"Authorization": f"Bearer {seats['red']}", "If-Match": "*"}

        with (
            SseStream(b.url, f"/games/{gid}/events/stream") as on_b,
            SseStream(a.url, f"/games/{gid}/events/stream") as on_a,
        ):
            assert on_b.status == 200, f"stream on {b.name}: {on_b.status} {on_b.body}"
            on_b.wait_comment("stream open", timeout=10)
            on_a.wait_comment("stream open", timeout=10)
            # `stream open` is sent once the process LISTENs: from then on nothing is missed
            assert on_b.quiet(0.2), "an event arrived before any was posted"

            posted = http.post(
                f"{a.url}/games/{gid}/actions",
                json={"kind": "step", "pawn": "r1", "n": 2},
                headers=red,
            )
            assert posted.status_code == 201, posted.text
            try:
                got = on_b.next_event(timeout=DELIVERY_TIMEOUT)
            except AssertionError as exc:
                pytest.fail(
                    f"process {b.name} did not stream the action posted to {a.name} within "
                    f"{DELIVERY_TIMEOUT} s ({exc}).\n{b.name} stderr:\n{b.stderr()}"
                )
            assert (got.id, got.event) == ("1", "step")
            assert got.json()["action"] == {"kind": "step", "pawn": "r1", "n": 2}
            assert on_a.next_event(timeout=DELIVERY_TIMEOUT).id == "1"

            # and the other way round, through the second process
            posted = http.post(
                f"{b.url}/games/{gid}/actions",
                json={"kind": "step", "pawn": "r1", "n": 1},
                headers=red,
            )
            assert posted.status_code == 201, posted.text
            assert on_a.next_event(timeout=DELIVERY_TIMEOUT).id == "2"
            assert on_b.next_event(timeout=DELIVERY_TIMEOUT).id == "2"
