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

import httpx

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


OZ_ORDERS = {
    "union": {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}},
    "confederate": {"sectors": {"1": ["cs-22va", "cs-bty"], "2": ["cs-36va"]}},
}
"""Troop allocations for the assault on the mill of ``scenarios/objective-zones/example``."""


def oz_assault(base: str, game: dict[str, Any], *, seal: bool) -> None:
    """Through the API: the union declares an assault on the mill, the umpire advances to
    Objective Combat Resolution and, with ``seal``, both sides submit ``OZ_ORDERS``."""
    gid, seats = game["id"], game["seats"]
    declare = {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]}
    auth = {"Authorization": f"Bearer {seats['union']}", "If-Match": 'W/"1"'}
    httpx.post(f"{base}/games/{gid}/actions", json=declare, headers=auth).raise_for_status()
    for v in range(2, 6):
        headers = {"Authorization": f"Bearer {seats['umpire']}", "If-Match": f'W/"{v}"'}
        httpx.post(f"{base}/games/{gid}/phase/advance", headers=headers).raise_for_status()
    for side, order in OZ_ORDERS.items() if seal else ():
        headers = {"Authorization": f"Bearer {seats[side]}", "If-Match": "*"}
        url = f"{base}/games/{gid}/sealed/allocation:mill:t1"
        httpx.post(url, json=order, headers=headers).raise_for_status()


def point(page: Any, selector: str) -> None:
    """A click on a desktop, a tap (touch events) on a phone, at the middle of the element
    (scrolled into view first, as a person scrolls to what they want to touch)."""
    page.wait_for_selector(selector, state="visible")
    box = None
    for _ in range(20):  # the list may be redrawn by a live refresh meanwhile: find it again
        try:
            page.locator(selector).first.scroll_into_view_if_needed(timeout=2000)
            box = page.locator(selector).first.bounding_box()
        except Exception:
            box = None
        if box:
            break
        page.wait_for_timeout(150)
    assert box is not None, selector
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if page.viewport_size["width"] < 600:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def click_yards(page: Any, x: float, y: float) -> None:
    """Click the table at (x, y) yards: where the board's own SVG transform puts that point
    (the board scrolled into view first, as a person scrolls to it)."""
    page.locator("#board").scroll_into_view_if_needed()
    at = page.evaluate(
        """([x, y]) => { const svg = document.querySelector('#board svg');
        const p = svg.createSVGPoint(); p.x = x; p.y = y;
        const s = p.matrixTransform(svg.getScreenCTM()); return [s.x, s.y]; }""",
        [x, y],
    )
    page.mouse.click(*at)


def end_phase(page: Any, phase: str) -> None:
    """Press End phase once it is offered (it is disabled while the phase belongs to another
    side, until the page has heard that it is now this side's), and wait for ``phase``."""
    page.wait_for_selector("#end-phase:not([disabled])")
    point(page, "#end-phase")
    page.wait_for_function(
        "p => document.querySelector('#position').textContent.includes(p)", arg=phase
    )
