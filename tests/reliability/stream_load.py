"""Stream load: GET latency with a thousand idle event streams open, against a real server
process on SQLite (where other processes' writes can only be polled for) or PostgreSQL.

    .venv/bin/python -m tests.reliability.stream_load [--streams 1000] [--gets 300]
        [--database-url URL]

Prints the p50/p99 of ``GET /games/{id}`` with no stream, then with ``--streams`` streams open
(each a real SSE connection reading ``/games/{id}/events/stream``), and their ratio; then posts
one action and counts the streams that received it. ``make reliability`` runs it; the figures
are reported in docs/OPERATIONS.md. Not a test: nothing here asserts a duration.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.db.migrate import upgrade
from tests.match.flowkit import tiny_scenario
from tests.support.process import server_process


def _percentiles(url: str, path: str, n: int) -> tuple[float, float]:
    times: list[float] = []
    with httpx.Client(base_url=url, timeout=60) as c:
        for _ in range(n):
            start = time.perf_counter()
            r = c.get(path)
            times.append(time.perf_counter() - start)
            assert r.status_code == 200, r.text
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def _open_stream(port: int, path: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    return sock


def run(
    database_url: str, streams: int, gets: int, work: Path, settle: float = 3.0
) -> dict[str, float]:
    env = {"REFEREE_MAX_CONNECTIONS": str(streams + 200), "REFEREE_SSE_POLL_SECONDS": "1"}
    with server_process(database_url, work, env) as server:
        server.wait_healthy()
        created = httpx.post(
            f"{server.url}/games", json={"ruleset": "tiny", "scenario": tiny_scenario()}
        ).json()
        game, red = created["id"], created["seats"]["red"]
        path = f"/games/{game}"
        _percentiles(server.url, path, 20)  # warm up
        p50_0, p99_0 = _percentiles(server.url, path, gets)
        socks = [_open_stream(server.port, f"{path}/events/stream") for _ in range(streams)]
        for s in socks:  # every stream has its head: it is open and waiting
            data = b""
            while b"stream open" not in data:
                data += s.recv(4096)
        time.sleep(settle)  # let the streams settle into waiting (poll intervals)
        p50_n, p99_n = _percentiles(server.url, path, gets)
        httpx.post(
            f"{server.url}{path}/actions",
            json={"kind": "step", "pawn": "r1", "n": 1},
            headers={"Authorization": f"Bearer {red}", "If-Match": "*"},
        )
        got = 0
        for s in socks:
            s.settimeout(10)
            data = b""
            try:
                while b"event: step" not in data:
                    data += s.recv(4096)
                got += 1
            except OSError:
                pass
            s.close()
    return {
        "p50_no_streams_ms": p50_0 * 1000,
        "p99_no_streams_ms": p99_0 * 1000,
        "p50_streams_ms": p50_n * 1000,
        "p99_streams_ms": p99_n * 1000,
        "ratio_p99": p99_n / p99_0,
        "streams_delivered": got,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests.reliability.stream_load")
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--gets", type=int, default=300)
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        url = args.database_url
        if url is None:
            url = f"sqlite:///{work / 'load.db'}"
            upgrade(url)
        figures = run(url, args.streams, args.gets, work)
    for key, value in figures.items():
        print(f"{key}: {value:.1f}" if isinstance(value, float) else f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
