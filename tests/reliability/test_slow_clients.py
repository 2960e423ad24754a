"""Issue 9 items 4 and 8: slow clients are timed out and cannot starve the server; malformed
HTTP framing is answered with problem+json. Over real sockets, against a real server process
configured as ``referee serve`` is (``app.server``), with one-second deadlines.

Every wait below is bounded (a socket timeout) and only decides whether the server closed the
connection; no duration is asserted.
"""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.process import ServerProcess, server_process

WAIT = 15.0
"""The longest a test waits for the server to close a connection (deadlines are 1 s)."""


@pytest.fixture(scope="module", params=["httptools", "h11"])
def server(
    request: pytest.FixtureRequest,
    sqlite_template: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ServerProcess]:
    """One server process for the module per HTTP protocol ``referee serve`` can run (the
    deadlines do not depend on the database), with one-second deadlines and the soft file
    limit of a default container (1024)."""
    work = tmp_path_factory.mktemp("slow-clients")
    shutil.copyfile(sqlite_template, work / "referee.db")
    env = {
        "REFEREE_HTTP_PROTOCOL": request.param,
        "REFEREE_TIMEOUT_HEADERS_SECONDS": "1",
        "REFEREE_TIMEOUT_BODY_SECONDS": "1",
        "REFEREE_TIMEOUT_KEEP_ALIVE_SECONDS": "1",
        "REFEREE_MAX_CONNECTIONS": "1000",
    }
    with server_process(f"sqlite:///{work / 'referee.db'}", work, env, nofile=1024) as proc:
        proc.wait_healthy()
        yield proc


def _connect(server: ServerProcess) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    sock.settimeout(WAIT)
    return sock


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (socket.timeout if it never does)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def _read_response(sock: socket.socket) -> bytes:
    """One whole response with a Content-Length (and nothing after it)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def _problem(raw: bytes, status: int, code: str) -> None:
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode()), raw[:200]
    assert b"content-type: application/problem+json" in head.lower(), head
    assert json.loads(body)["code"] == code


def test_a_connection_that_sends_nothing_is_closed(server: ServerProcess) -> None:
    with _connect(server) as sock:
        _problem(_read_until_closed(sock), 408, "request.timeout")


def test_a_half_sent_head_is_closed(server: ServerProcess) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n")
        _problem(_read_until_closed(sock), 408, "request.timeout")


def test_a_half_sent_head_after_a_kept_alive_request_is_closed(server: ServerProcess) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        first = _read_response(sock)
        assert first.startswith(b"HTTP/1.1 200 "), first[:100]
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHo")
        _problem(_read_until_closed(sock), 408, "request.timeout")


def test_a_half_sent_body_is_closed_and_nothing_written(server: ServerProcess) -> None:
    with _connect(server) as sock:
        sock.sendall(
            b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"ruleset": '
        )
        assert _read_until_closed(sock) == b""
    games = httpx.get(f"{server.url}/rulesets")
    assert games.status_code == 200


def test_an_idle_kept_alive_connection_is_closed(server: ServerProcess) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        raw = _read_until_closed(sock)
        assert raw.startswith(b"HTTP/1.1 200 ") and raw.count(b"HTTP/1.1 ") == 1


@pytest.mark.parametrize(
    "head",
    [
        b"Content-Length: 5\r\nContent-Length: 6\r\n",
        b"Content-Length: five\r\n",
        b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
    ],
    ids=["duplicate-length", "bad-length", "chunked-and-length"],
)
def test_malformed_framing_is_a_problem(server: ServerProcess, head: bytes) -> None:
    with _connect(server) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n{}{}{}")
        _problem(_read_until_closed(sock), 400, "request.malformed")


def test_eleven_hundred_idle_connections_do_not_stop_the_service(
    server: ServerProcess,
) -> None:
    idle: list[socket.socket] = []
    try:
        for _ in range(1100):
            idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=WAIT))
        with httpx.Client(base_url=server.url, timeout=WAIT) as c:
            for _ in range(3):
                assert c.get("/healthz").status_code == 200
            r = c.post("/games", json={"ruleset": "tiny", "scenario": {"length": 5}})
            assert r.status_code == 201, r.text
    finally:
        for sock in idle:
            sock.close()
