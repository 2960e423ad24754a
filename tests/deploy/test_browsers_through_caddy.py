"""Issue 24, done when: two browsers play a match through the real TLS proxy, with the links
built from the public address.

The real server runs as a process with ``REFEREE_PUBLIC_URL`` set to the address of a real
Caddy in front of it (TLS with a throwaway certificate for ``localhost``, ``deploy/Caddyfile``
with test-local settings only). The umpire opens the console on the server itself (plain
HTTP on the app's own port, as an umpire on that machine would), creates a game by pointing
and clicking and reads the invitation links the page shows: they are built from the public
address, not from the page's. Each player opens their link in a browser context of their own
(separate storage, like separate machines), and everything they load -- the page, the API
calls, the live stream -- goes through Caddy over HTTPS.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.db.migrate import upgrade
from tests.browser.conftest import browser
from tests.deploy.stack import CaddyProcess, caddy_process, free_port, make_certs, require_caddy
from tests.support.process import ServerProcess, server_process

DOMAIN = "localhost"

__all__ = ["browser"]  # the browser suite's Chromium fixture (skipped without it, CI fails)


@dataclass
class Public:
    app: ServerProcess
    caddy: CaddyProcess
    url: str


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Public]:
    binary = require_caddy()
    work = tmp_path_factory.mktemp("public")
    certs = make_certs(work, names=(DOMAIN,), ips=("127.0.0.1",))
    app_port = free_port()
    caddy_vars = {"REFEREE_DOMAIN": DOMAIN, "REFEREE_UPSTREAM": f"127.0.0.1:{app_port}"}
    with caddy_process(binary, work, certs, caddy_vars) as caddy:
        url = f"https://{DOMAIN}:{caddy.port}"
        database = f"sqlite:///{work / 'referee.db'}"
        upgrade(database)
        env = {"REFEREE_PUBLIC_URL": url, "REFEREE_FORWARDED_ALLOW_IPS": "127.0.0.1"}
        with server_process(database, work, env, port=app_port) as app:
            app.wait_healthy()
            caddy.wait_ready(certs.context())
            yield Public(app, caddy, url)


def _page(browser: Any) -> Any:
    """A page of its own browser context; the throwaway CA is not in Chromium's store, so the
    context accepts the test certificate (the TLS itself is Caddy's, as in production)."""
    ctx = browser.new_context(viewport={"width": 1300, "height": 850}, ignore_https_errors=True)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.urls = []
    page.errors = []
    page.on("request", lambda req: page.urls.append(req.url))
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def test_two_browsers_play_through_the_proxy_with_public_links(
    browser: Any, public: Public
) -> None:
    umpire = _page(browser)
    umpire.goto(f"{public.app.url}/")  # on the server itself, not through the proxy
    umpire.select_option("#scenario-select", "shipped:zoc:seed-example")
    umpire.click("#create-btn")
    umpire.wait_for_selector("#created tr[data-seat=axis] input.invite-url")
    game_id = umpire.inner_text("#created-id")
    links = {
        seat: umpire.locator(f"#created tr[data-seat={seat}] input.invite-url").input_value()
        for seat in ("axis", "soviet")
    }
    for seat, link in links.items():
        assert re.fullmatch(
            rf"{re.escape(public.url)}/#game={game_id}&seat={seat}&token=[\w-]+", link
        ), link
    assert umpire.locator(".link-warning").count() == 0  # public URL set: no loopback warning

    axis, soviet = _page(browser), _page(browser)
    axis.goto(links["axis"])
    soviet.goto(links["soviet"])
    for page in (axis, soviet):
        page.wait_for_selector("body[data-ready=true][data-stream=live]")
    soviet.click("#tab-log")

    axis.click("#unit-list [data-unit=de-inf-1]")
    axis.wait_for_selector("text.cost[data-reach=e3307]")
    axis.click("polygon.hex[data-hex=e3207]", force=True)
    axis.wait_for_function(
        "document.body.dataset.rulingFor && "
        "JSON.parse(document.body.dataset.rulingFor).path.length === 1"
    )
    axis.click("polygon.hex[data-hex=e3307]", force=True)
    axis.wait_for_function(
        "document.body.dataset.rulingFor && "
        "JSON.parse(document.body.dataset.rulingFor).path.join() === 'e3207,e3307'"
    )
    assert axis.locator("#ruling .verdict").get_attribute("data-legal") == "true"
    axis.click("#submit-move")
    axis.wait_for_selector("#notice.ok")

    # the other player sees it live, through the proxy's unbuffered stream
    soviet.wait_for_selector("#log li[data-kind=move]")
    soviet.wait_for_selector(".counter[data-unit=de-inf-1][data-at=e3307]")

    # every request of the players' pages went to the public address, over HTTPS
    for page in (axis, soviet):
        assert page.urls and all(u.startswith(f"{public.url}/") for u in page.urls), [
            u for u in page.urls if not u.startswith(f"{public.url}/")
        ]
        assert page.errors == []
    assert umpire.errors == []
