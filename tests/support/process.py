"""Real server processes for tests: ``python -m tests.support.serve`` on an inherited socket.

The parent binds port 0 and listens before the child starts, so a client may connect at once
(the kernel queues the connection until the server accepts it) and there is no race for a
free port. :func:`server_process` starts one, :meth:`ServerProcess.wait_healthy` waits for it,
:meth:`ServerProcess.kill` sends SIGKILL (crash tests) and the context manager always stops it.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from app.db.migrate import ROOT

START_TIMEOUT = 30.0


@dataclass
class ServerProcess:
    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log: IO[bytes]

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-3000:]

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited with {self.proc.returncode}:\n{self.output()}")
            try:
                r = httpx.get(f"{self.url}/healthz", timeout=2)
                if r.status_code == 200:
                    return
                last = r.text
            except httpx.HTTPError as exc:
                last = repr(exc)
            time.sleep(0.05)
        raise AssertionError(f"server not healthy in {timeout} s ({last}):\n{self.output()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as in a crash."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def _limit_files(soft: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _listening_socket(port: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit TCP_NODELAY from the listener. uvicorn wraps an inherited
    # descriptor as AF_UNIX, so asyncio does not set it per connection as it does for
    # `referee serve`'s own TCP socket; without it every answer written in two parts (head,
    # then body) waits ~40 ms for the client's delayed ACK.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(2048)
    return sock


@contextmanager
def server_process(
    database_url: str,
    log_dir: Path,
    env: Mapping[str, str] | None = None,
    *,
    port: int = 0,
    nofile: int | None = None,
) -> Iterator[ServerProcess]:
    """Start the server in its own process (``port`` 0: a free one); stop it at the end.
    ``nofile``: the child's soft open-files limit at start (as a container's default)."""
    sock = _listening_socket(port)
    bound = sock.getsockname()[1]
    full_env = {
        **os.environ,
        "REFEREE_DATABASE_URL": database_url,
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    log = tempfile.TemporaryFile(dir=log_dir)  # noqa: SIM115 -- closed below
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.serve", "--fd", str(sock.fileno())],
            cwd=ROOT,
            env=full_env,
            pass_fds=(sock.fileno(),),
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=None if nofile is None else lambda: _limit_files(nofile),
        )
    finally:
        sock.close()  # the child holds its own copy
    server = ServerProcess(f"http://127.0.0.1:{bound}", bound, proc, log)
    try:
        yield server
    finally:
        server.stop()
        log.close()
