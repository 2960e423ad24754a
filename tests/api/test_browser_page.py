"""The done-when test of browser access: a page served from another origin creates and plays a
game through the API in headless Chromium, against the real server with CORS configured; the
same page is refused by the browser when its origin is not configured. The interactive docs
render with every request outside the machine blocked, and the POST /games example works in
Swagger UI's "Try it out".

Needs Debian's ``chromium`` (``/usr/bin/chromium``; ``.ci/run`` installs it) and Playwright
for Python, which drives it (``tests/support/chromium.py``): no browser is ever downloaded.
Without chromium the tests are skipped locally and fail with ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Route as PwRoute
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from app.config import Settings
from app.main import create_app
from tests.support.chromium import CHROMIUM, CHROMIUM_ARGS, chromium_available
from tests.support.server import running_server

PAGE = Path(__file__).resolve().parents[1] / "support" / "browser" / "play.html"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not chromium_available():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{CHROMIUM} is required in CI (.ci/run installs chromium)")
        pytest.skip(f"{CHROMIUM} not installed")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page_origin() -> Iterator[str]:
    """Another origin (another port) serving the front end's page."""

    def page(_: Any) -> HTMLResponse:
        return HTMLResponse(PAGE.read_text())

    with running_server(Starlette(routes=[Route("/", page)])) as url:
        yield url


@pytest.fixture
def database(sqlite_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "referee.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


def _api(database: str, origins: list[str]) -> Any:
    return create_app(Settings(database_url=database, cors_origins=origins))


def _play(browser: Browser, page_origin: str, api: str) -> dict[str, Any]:
    page = browser.new_page()
    try:
        page.goto(f"{page_origin}/?api={quote(api)}")
        page.wait_for_function("window.__result !== undefined", timeout=30_000)
        result: dict[str, Any] = page.evaluate("window.__result")
    finally:
        page.close()
    return result


def test_a_page_on_another_origin_creates_and_plays_a_game(
    browser: Browser, page_origin: str, database: str
) -> None:
    app = _api(database, [page_origin])
    with running_server(app) as api:
        assert urlsplit(api).netloc != urlsplit(page_origin).netloc
        out = _play(browser, page_origin, api)
    app.state.engine.dispose()
    assert "error" not in out, out
    assert out["created"]["status"] == 201
    assert out["created"]["location"].startswith("/games/")
    assert out["created"]["etag"] == 'W/"1"'
    assert out["read"] == {"status": 200, "etag": 'W/"1"', "phase": "operational_movement"}
    assert out["dryRun"]["legal"] is True
    assert {"8.1.negation", "8.2.operational"} <= set(out["dryRun"]["sections"])
    assert out["submit"] == {
        "status": 201,
        "etag": 'W/"2"',
        "location": out["submit"]["location"],
        "replayed": None,
        "mustStop": ["e3307"],
    }
    assert out["submit"]["location"].endswith("/events/1")
    assert out["retry"] == {"status": 201, "replayed": "true", "same": True}
    assert out["stale"] == {"status": 412, "code": "precondition.stale"}
    assert out["endPhase"] == {"status": 201, "etag": 'W/"3"'}
    assert out["events"] == ["move", "phase"]


def test_the_browser_refuses_the_page_when_its_origin_is_not_configured(
    browser: Browser, page_origin: str, database: str
) -> None:
    app = _api(database, ["http://somewhere.else.example"])
    with running_server(app) as api:
        out = _play(browser, page_origin, api)
    app.state.engine.dispose()
    assert "Failed to fetch" in out.get("error", ""), out


def _offline(page: Page, allowed: str) -> list[str]:
    """Abort every request that leaves ``allowed``; returns the URLs it blocked."""
    blocked: list[str] = []

    def route(r: PwRoute) -> None:
        if r.request.url.startswith(allowed) or r.request.url.startswith("data:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return blocked


def test_swagger_ui_works_offline_and_its_create_game_example_runs(
    browser: Browser, database: str
) -> None:
    app = _api(database, [])
    with running_server(app) as api:
        page = browser.new_page()
        blocked = _offline(page, api)
        page.goto(f"{api}/docs")
        page.wait_for_selector("#operations-games-create_game_games_post", timeout=30_000)
        page.click("#operations-games-create_game_games_post .opblock-summary")
        page.click("#operations-games-create_game_games_post .try-out__btn")
        page.click("#operations-games-create_game_games_post .execute")
        status = page.wait_for_selector(
            "#operations-games-create_game_games_post .live-responses-table "
            "td.response-col_status:not(.col_header)",
            timeout=30_000,
        )
        assert status is not None
        assert status.inner_text().strip().startswith("201")
        page.close()
    app.state.engine.dispose()
    assert blocked == []


def test_redoc_renders_offline(browser: Browser, database: str) -> None:
    app = _api(database, [])
    with running_server(app) as api:
        page = browser.new_page()
        blocked = _offline(page, api)
        page.goto(f"{api}/redoc")
        page.wait_for_function(
            "document.body.innerText.includes('Submit an action')", timeout=30_000
        )
        assert page.locator("h2", has_text="Submit an action").count() >= 1
        # the sidebar's "API docs by Redocly" mark is drawn, from the page itself
        logo = page.locator("img[alt='redocly logo']")
        logo.wait_for(timeout=10_000)
        assert (logo.get_attribute("src") or "").startswith("data:image/svg+xml,")
        page.close()
    app.state.engine.dispose()
    assert blocked == []  # nothing outside the server was even asked for
