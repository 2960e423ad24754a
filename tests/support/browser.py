"""The real server as a subprocess and Debian's Chromium driven by Playwright, for the
console's end-to-end tests, its screenshots and its in-browser measurements.

The browser is the system's ``/usr/bin/chromium`` (Debian package ``chromium``, installed by
``.ci/run``): nothing is downloaded at test time.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from app.db.migrate import ROOT, upgrade

CHROMIUM = os.environ.get("REFEREE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT = 30.0


def chromium_available() -> bool:
    return shutil.which(CHROMIUM) is not None or Path(CHROMIUM).exists()


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]
    log: IO[bytes]

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]


def start_server(database_url: str, log_dir: Path, **env: str) -> Server:
    """Serve ``create_app()`` in its own process on a socket bound here (port 0, no race)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    full_env = {**os.environ, "REFEREE_DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1"}
    full_env.update(env)
    log = tempfile.TemporaryFile(dir=log_dir)  # noqa: SIM115 -- closed by stop_server()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.serve", "--fd", str(sock.fileno())],
            cwd=ROOT,
            env=full_env,
            pass_fds=(sock.fileno(),),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    finally:
        sock.close()
    server = Server(f"http://127.0.0.1:{port}", proc, log)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{server.output()}")
        try:
            if httpx.get(f"{server.url}/healthz", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    stop_server(server)
    raise RuntimeError(f"server not healthy in {START_TIMEOUT} s:\n{server.output()}")


def stop_server(server: Server) -> None:
    if server.proc.poll() is None:
        server.proc.terminate()
        try:
            server.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(timeout=10)
    server.log.close()


@contextmanager
def served_sqlite(work: Path, **env: str) -> Iterator[Server]:
    """A fresh migrated SQLite database under ``work`` and the server on it."""
    db = work / "console.db"
    url = f"sqlite:///{db}"
    upgrade(url)
    server = start_server(url, work, **env)
    try:
        yield server
    finally:
        stop_server(server)


@contextmanager
def chromium() -> Iterator[Any]:
    """Playwright's Chromium API bound to the system executable."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def seat_link(base: str, game_id: str, seat: str, token: str) -> str:
    """The invitation link the lobby shows: the token rides in the fragment only."""
    return f"{base}/#game={game_id}&seat={seat}&token={token}"
