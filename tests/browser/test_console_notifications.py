"""Notifications a person receives, in the console (issue 24), in headless Chromium against a
real server of their own:

* browser notifications: the notifications permission is granted over CDP
  (``Browser.grantPermissions``), the page's ``Notification`` is wrapped before the page loads
  (``Page.addScriptToEvaluateOnNewDocument``) so that each notification the console creates is
  recorded -- observed, not typed in. Headless Chromium always reports a page as visible, so
  the same script lets the test put the page in the background (``visibilityState``
  ``hidden`` and a ``visibilitychange`` event, as a browser does when its tab is hidden);
* "Email this link" beside an invitation link sends the invitation through a real SMTP
  server on loopback (aiosmtpd)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import seat_link, served_sqlite
from tests.support.process import ServerProcess
from tests.support.smtp import Mailbox, smtp_server

pytestmark = pytest.mark.slow

RECORD_NOTIFICATIONS = """
(() => {
  const Real = window.Notification;
  window.__notifications = [];
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notifications.push({ title, body: (options || {}).body || "" });
    }
  }
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
  window.__hidden = false;
  Object.defineProperty(Document.prototype, "visibilityState", {
    configurable: true, get: () => (window.__hidden ? "hidden" : "visible"),
  });
  Object.defineProperty(Document.prototype, "hidden", {
    configurable: true, get: () => window.__hidden,
  });
})();
"""

BACKGROUND = "window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))"


@pytest.fixture
def mail_console(tmp_path: Path) -> Iterator[tuple[ServerProcess, Mailbox]]:
    with (
        smtp_server() as (box, smtp_url),
        served_sqlite(
            tmp_path,
            REFEREE_SMTP_URL=smtp_url,
            REFEREE_SMTP_FROM="Referee <referee@referee.example>",
            REFEREE_PUBLIC_URL="https://referee.example",
            REFEREE_WEBHOOK_POLL_SECONDS="0.1",
        ) as server,
    ):
        yield server, box


def _zoc_game(base: str) -> dict[str, Any]:
    scenario = json.loads(
        (
            Path(__file__).resolve().parents[2] / "scenarios" / "zoc" / "seed-example.json"
        ).read_text()
    )
    created = httpx.post(f"{base}/games", json={"ruleset": "zoc", "scenario": scenario})
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    return game


def test_a_notification_when_the_turn_passes_while_the_tab_is_hidden(
    browser: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _zoc_game(base)
    gid, seats = game["id"], game["seats"]
    ctx = browser.new_context(viewport={"width": 1300, "height": 850})
    try:
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        cdp = ctx.new_cdp_session(page)
        context_id = cdp.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
        cdp.send(
            "Browser.grantPermissions",
            {"origin": base, "permissions": ["notifications"], "browserContextId": context_id},
        )
        cdp.send("Page.enable")
        cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_NOTIFICATIONS})
        page.goto(seat_link(base, gid, "soviet", seats["soviet"]))
        page.wait_for_selector("body[data-ready=true]")
        assert page.evaluate("Notification.permission") == "granted"
        page.click("#notify-turn")
        page.wait_for_selector("body[data-notify=on]")
        assert "On:" in page.inner_text("#notify-status")
        page.evaluate(BACKGROUND)

        # the axis ends its movement phase over the API: the combat phase waits for both
        ended = httpx.post(
            f"{base}/games/{gid}/phase/end",
            headers={"Authorization": f"Bearer {seats['axis']}", "If-Match": "*"},
        )
        assert ended.status_code == 201, ended.text
        page.wait_for_function("window.__notifications.length > 0")
        [shown] = page.evaluate("window.__notifications")
        assert shown["title"] == "Your turn: soviet"
        assert gid[:8] in shown["body"]
        # another event while it is still the soviet's turn: no second notification
        again = httpx.post(
            f"{base}/games/{gid}/phase/end",
            headers={"Authorization": f"Bearer {seats['soviet']}", "If-Match": "*"},
        )
        assert again.status_code in (201, 409), again.text
        time.sleep(0.5)
        assert len(page.evaluate("window.__notifications")) == 1
    finally:
        ctx.close()


def test_a_visible_tab_or_a_toggle_left_off_shows_no_notification(
    browser: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _zoc_game(base)
    gid, seats = game["id"], game["seats"]
    ctx = browser.new_context(viewport={"width": 1300, "height": 850})
    try:
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        cdp = ctx.new_cdp_session(page)
        context_id = cdp.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
        cdp.send(
            "Browser.grantPermissions",
            {"origin": base, "permissions": ["notifications"], "browserContextId": context_id},
        )
        cdp.send("Page.enable")
        cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_NOTIFICATIONS})
        page.goto(seat_link(base, gid, "soviet", seats["soviet"]))
        page.wait_for_selector("body[data-ready=true]")
        page.click("#notify-turn")
        page.wait_for_selector("body[data-notify=on]")  # on, but the tab is in front
        ended = httpx.post(
            f"{base}/games/{gid}/phase/end",
            headers={"Authorization": f"Bearer {seats['axis']}", "If-Match": "*"},
        )
        assert ended.status_code == 201, ended.text
        page.wait_for_selector("#log li[data-seq='1']", state="attached")
        time.sleep(0.5)
        assert page.evaluate("window.__notifications") == []
    finally:
        ctx.close()


def test_the_umpire_emails_an_invitation_link_from_the_lobby(
    browser: Any, mail_console: tuple[ServerProcess, Mailbox]
) -> None:
    server, box = mail_console
    ctx = browser.new_context(viewport={"width": 1300, "height": 850})
    try:
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        page.goto(f"{server.url}/")
        page.select_option("#scenario-select", "shipped:zoc:seed-example")
        page.click("#create-btn")
        page.wait_for_selector("#created tr[data-seat=soviet] input.invite-url")
        row = page.locator("#created tr[data-seat=soviet]")
        link = row.locator("input.invite-url").input_value()
        row.get_by_label("Email address for the soviet invitation").fill("soviet@example.org")
        row.get_by_role("button", name="Email the soviet invitation link").click()
        page.wait_for_selector("#created tr[data-seat=soviet] .email-status[data-sent=true]")
        [mail] = box.wait_for("soviet@example.org", 1)
        assert link in mail.body
        assert mail.subject.startswith("Your invitation to play soviet in game ")
    finally:
        ctx.close()
