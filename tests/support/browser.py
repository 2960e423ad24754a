"""The real server as a subprocess and Debian's Chromium driven by Playwright, for the
console's end-to-end tests, its screenshots and its in-browser measurements.

The browser is the system's ``/usr/bin/chromium`` (Debian package ``chromium``, installed by
``.ci/run``): nothing is downloaded at test time.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.db.migrate import upgrade
from tests.support.process import ServerProcess, server_process

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


def chromium_available() -> bool:
    return shutil.which(CHROMIUM) is not None or Path(CHROMIUM).exists()


@contextmanager
def served_sqlite(work: Path, **env: str) -> Iterator[ServerProcess]:
    """A fresh migrated SQLite database under ``work`` and the real server on it."""
    url = f"sqlite:///{work / 'console.db'}"
    upgrade(url)
    with server_process(url, work, env) as server:
        server.wait_healthy()
        yield server


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
