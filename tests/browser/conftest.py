"""Browser fixtures: one real server (subprocess, SQLite) per session and one headless
Chromium per test module. Without Chromium the browser tests are skipped locally and fail in CI."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.chromium import chromium, chromium_available, served_sqlite
from tests.support.process import ServerProcess


@pytest.fixture(scope="session")
def console_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with served_sqlite(tmp_path_factory.mktemp("console")) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Module-scoped: Playwright's sync API runs an event loop while it is open, and the async
    tests elsewhere in the session need the thread's loop free once a browser module is done."""
    if not chromium_available():
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but Chromium is missing: .ci/run installs Debian's chromium")
        pytest.skip("no Chromium at /usr/bin/chromium (Debian package chromium)")
    pytest.importorskip("playwright.sync_api")
    with chromium() as b:
        yield b


@pytest.fixture
def new_page(browser: Any, console_server: ServerProcess) -> Iterator[Any]:
    """Open pages in fresh browser contexts (separate session storage, like separate
    browsers); every request URL each page makes is recorded on ``page.urls``."""
    contexts: list[Any] = []

    def make() -> Any:
        ctx = browser.new_context(viewport={"width": 1300, "height": 850})
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        page.urls = []
        page.errors = []
        page.on("request", lambda req: page.urls.append(req.url))
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
