"""The console in a real headless Chromium against the real server (a subprocess on SQLite).

A zoc match between two browser contexts (each its own session storage, like two players'
browsers): create from the lobby, open by invitation link, the zone overlay equals the
`ezoc-map` query, a move built by clicking hexes gets its ruling and citations on screen, is
submitted, and appears live in the other context. An objective-zones sealed allocation round
between two contexts while a spectator context watches and never sees an order early.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.db.migrate import upgrade
from tests.support.chromium import CHROMIUM, CHROMIUM_ARGS, OZ_ORDERS, seat_link
from tests.support.postgres import free_port
from tests.support.process import ServerProcess, server_process

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
OZ = json.loads((ROOT / "scenarios" / "objective-zones" / "example.json").read_text())
DECISION = "allocation:mill:t1"
UNION_ORDER = OZ_ORDERS["union"]
CONFED_ORDER = OZ_ORDERS["confederate"]


def _catalog(server: ServerProcess, ruleset: str) -> dict[str, dict[str, Any]]:
    meta = httpx.get(f"{server.url}/rulesets/{ruleset}").json()
    return {c["id"]: c for c in meta["catalog"]}


def _no_token_in_urls(page: Any, tokens: list[str]) -> None:
    for url in page.urls:
        for token in tokens:
            # the invitation link itself carries the token after '#', which is never sent
            assert token not in url.split("#", 1)[0], url


def test_zoc_move_built_by_clicking_is_ruled_cited_submitted_and_seen_live(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    lobby = new_page()
    lobby.goto(f"{base}/")
    lobby.select_option("#scenario-select", "shipped:zoc:seed-example")
    lobby.click("#create-btn")
    lobby.wait_for_selector("#created tr[data-seat=axis] a.invite")
    game_id = lobby.inner_text("#created-id")
    tokens = {
        seat: lobby.inner_text(f"#created tr[data-seat={seat}] code.token")
        for seat in ("axis", "soviet", "umpire")
    }
    axis_link = lobby.get_attribute("#created tr[data-seat=axis] a.invite", "href")
    soviet_link = lobby.get_attribute("#created tr[data-seat=soviet] a.invite", "href")
    assert axis_link == seat_link(base, game_id, "axis", tokens["axis"])
    assert "?" not in axis_link

    axis = new_page()
    axis.goto(axis_link)
    axis.wait_for_selector("body[data-ready=true][data-stream=live]")
    assert axis.inner_text("#whoami") == "Seat: axis"
    # the token left the address bar and lives in this tab's session storage only
    assert tokens["axis"] not in axis.url
    stored = axis.evaluate(f"sessionStorage.getItem('referee:token:{game_id}')")
    assert stored == tokens["axis"]
    position = axis.inner_text("#position")
    assert "Turn 1" in position and "Operational Movement Phase" in position
    assert "phasing: axis" in position

    # the zone overlay shows exactly the hexes of the ezoc-map query, negated ones distinct
    query = httpx.get(f"{base}/games/{game_id}/queries/ezoc-map", params={"side": "axis"}).json()[
        "result"
    ]
    drawn = set(axis.eval_on_selector_all("polygon.zone", "ns => ns.map(n => n.dataset.hex)"))
    negated = set(
        axis.eval_on_selector_all("polygon.zone.negated", "ns => ns.map(n => n.dataset.hex)")
    )
    assert drawn == set(query["hexes"])
    assert negated == {h for h, z in query["hexes"].items() if z["negated"]} == {"e3207"}
    blocked = axis.eval_on_selector_all("g.blocked", "ns => ns.map(n => n.dataset.blocked)")
    assert blocked == ["e3306/e3206"]

    soviet = new_page()
    soviet.goto(soviet_link)
    soviet.wait_for_selector("body[data-ready=true][data-stream=live]")
    soviet.click("#tab-log")

    # select de-inf-1 from the unit list, then click two hexes
    axis.click("#unit-list [data-unit=de-inf-1]")
    axis.wait_for_selector("text.cost[data-reach=e3307]")
    axis.click("polygon.hex[data-hex=e3207]", force=True)
    axis.wait_for_function(
        "document.body.dataset.rulingFor && JSON.parse(document.body.dataset.rulingFor)"
        ".path.length === 1"
    )
    axis.click("polygon.hex[data-hex=e3307]", force=True)
    axis.wait_for_function(
        "document.body.dataset.rulingFor && JSON.parse(document.body.dataset.rulingFor)"
        ".path.join() === 'e3207,e3307'"
    )
    verdict = axis.locator("#ruling .verdict")
    assert verdict.get_attribute("data-legal") == "true"
    assert "must stop in e3307" in verdict.inner_text()
    kinds = axis.eval_on_selector_all("#ruling .effects li", "ns => ns.map(n => n.dataset.kind)")
    assert kinds == ["zoc.ezoc_negated", "zoc.must_stop"]
    assert axis.locator("polygon.stop-hex[data-hex=e3307]").count() == 1
    assert axis.input_value("#path-input") == "e3207 e3307"

    # a citation: its catalog title on screen, its own-words summary on hover
    catalog = _catalog(console_server, "zoc")
    cited = axis.eval_on_selector_all(
        "#ruling .citations .cite", "ns => ns.map(n => n.dataset.section)"
    )
    assert "8.2.operational" in cited
    cite = axis.locator("[data-section='8.2.operational']")
    item = axis.locator("#ruling .citations li", has=cite)
    assert catalog["8.2.operational"]["title"] in item.inner_text()
    axis.hover("#ruling .citations .cite[data-section='8.2.operational']")
    tip = axis.locator("#tooltip")
    assert tip.is_visible()
    assert catalog["8.2.operational"]["summary"] in tip.inner_text()

    # submit for real; the other browser sees it without reloading
    axis.click("#submit-move")
    axis.wait_for_selector("#notice.ok")
    soviet.wait_for_selector("#log li[data-kind=move]")
    entry = soviet.inner_text("#log li[data-kind=move]")
    assert "de-inf-1 moves e3107 -> e3207 -> e3307" in entry
    assert "§8.2.operational" in entry
    soviet.wait_for_selector(".counter[data-unit=de-inf-1][data-at=e3307]")
    assert "v2" in soviet.inner_text("#position")

    # the console is a client of the pinned API version
    calls = [u for u in axis.urls if "/games/" in u]
    assert calls and all(u.startswith(f"{base}/v1/games/") for u in calls)
    # tokens travel only in the Authorization header, never in a URL
    for page in (lobby, axis, soviet):
        _no_token_in_urls(page, list(tokens.values()))
        assert page.errors == []


def _seal(page: Any, order: dict[str, Any]) -> None:
    """Build the order in the allocation builder (a sector menu per unit) and seal it once
    the server's check of the whole order says legal."""
    page.click("#tab-sealed")
    builder = page.locator(f"[data-builder='{DECISION}']")
    for sector, units in order["sectors"].items():
        for unit in units:
            builder.locator(f"select[data-unit='{unit}']").select_option(sector)
    page.wait_for_function(
        "([d, w]) => { const b = document.querySelector(`[data-builder='${d}']`);"
        " return b && b.dataset.checking === 'false' && b.dataset.checkedFor === w; }",
        arg=[DECISION, json.dumps(order, separators=(",", ":"))],
    )
    builder.locator(".seal-submit:not([disabled])").click()
    page.wait_for_selector("#notice.ok:has-text('Order sealed')")


def test_sealed_allocation_between_two_browsers_hidden_from_a_spectator(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = httpx.post(f"{base}/games", json={"ruleset": "objective-zones", "scenario": OZ}).json()
    gid = game["id"]
    union, confed, umpire, watcher = new_page(), new_page(), new_page(), new_page()
    for page, seat in ((union, "union"), (confed, "confederate"), (umpire, "umpire")):
        page.goto(seat_link(base, gid, seat, game["seats"][seat]))
    watcher.goto(f"{base}/#game={gid}&as=spectator")
    bodies: list[str] = []

    def keep(resp: Any) -> None:
        if "event-stream" not in (resp.headers.get("content-type") or ""):
            with contextlib.suppress(Exception):  # an aborted body has no text
                bodies.append(resp.text())

    watcher.on("response", keep)
    for page in (union, confed, umpire, watcher):
        page.wait_for_selector("body[data-ready=true][data-stream=live]")
    assert watcher.inner_text("#whoami").startswith("Spectator")
    # the zone display: Hooper's Mill, class C, its two garrison sectors
    mill = union.locator(".zone-card[data-zone=mill]")
    assert "Class C" in mill.inner_text() and mill.locator(".sector").count() == 2

    # the union declares the assault by pointing: us-1, the order, the zone, two battalions
    union.click("#unit-list [data-unit=us-1]")
    union.click(".order-kind[data-kind=declare_assault]")
    union.click("[data-zone-pick=mill]")
    union.check("[data-field=units] input[value=us-2]")
    union.check("[data-field=units] input[value=us-3]")
    union.wait_for_function(
        "document.body.dataset.orderFor"
        " && JSON.parse(document.body.dataset.orderFor).units.length === 3"
    )
    union.wait_for_selector(".order-submit:not([disabled])")
    union.click(".order-submit")
    union.wait_for_selector("body[data-submitting=false]")
    union.wait_for_selector("#ruling .verdict[data-legal=true]")
    assert "§OZ.Assault.A" in union.inner_text("#ruling")
    # the umpire advances to Objective Combat Resolution
    umpire.click("#tab-umpire")
    for version in range(3, 7):
        umpire.click("#advance-phase")
        umpire.wait_for_function(
            f"document.getElementById('position').textContent.endsWith('v{version}')"
        )
    assert "Objective Combat Resolution" in umpire.inner_text("#position")

    _seal(union, UNION_ORDER)
    own = union.inner_text(f"[data-decision='{DECISION}'] .own-order")
    assert "us-bty" in own
    receipt = httpx.get(
        f"{base}/games/{gid}/sealed", headers={"Authorization": f"Bearer {game['seats']['union']}"}
    ).json()["open"][0]["own"]
    secrets = [receipt["nonce"], receipt["canonical"]]
    commitment = receipt["commitment"]

    # the others see the commitment, live, and nothing of the order
    for page in (confed, watcher):
        page.click("#tab-sealed")
        page.wait_for_selector(f"[data-decision='{DECISION}'] li[data-side=union]")
        assert commitment in page.inner_text(f"[data-decision='{DECISION}']")
        assert page.locator(".own-order").count() == 0
        page.click("#tab-log")
        page.wait_for_selector("#log li[data-kind=sealed_received]")
        html = page.content()
        for secret in secrets:
            assert secret not in html
    assert watcher.locator(".seal-submit").count() == 0
    # what the spectator's page received: the published commitment, never the order
    assert any(commitment in body for body in bodies)
    for secret in secrets:
        assert not any(secret in body for body in bodies)

    _seal(confed, CONFED_ORDER)
    for page in (union, confed, watcher):
        page.click("#tab-log")
        page.wait_for_selector("#log li[data-kind=sealed_revealed] .check.ok")
        assert "every order matches its commitment" in page.inner_text(
            "#log li[data-kind=sealed_revealed]"
        )
        page.wait_for_selector(".zone-card[data-zone=mill] .assault")
        dice = page.inner_text(".zone-card[data-zone=mill] .assault")
        assert re.search(r"Sector 1: us-1 against cs-22va, cs-bty\.", dice)
        said = r"us-1 \(Union, attacking, level \w+: hits on [0-9\u2013]+\) rolled \d"
        assert re.search(said, dice)
    # revealed orders are public now, to the spectator too
    watcher.click("#tab-sealed")
    watcher.wait_for_selector(f".revealed-card[data-instance='{DECISION}']")
    assert '"us-bty"' in watcher.inner_text(f".revealed-card[data-instance='{DECISION}']")
    # the umpire ends the game: the seed is public and every roll is re-derived in the browser
    umpire.select_option("#finish-winner", "")
    umpire.click("#pane-umpire button:has-text('Finish')")
    watcher.click("#tab-dice")
    watcher.wait_for_selector("#dice .check.ok")
    assert "the seed matches the commitment; 12 of 12 rolls re-derived" in watcher.inner_text(
        "#dice .check.ok"
    )
    assert "finished" in watcher.inner_text("#position")
    for page in (union, confed, umpire, watcher):
        _no_token_in_urls(page, list(game["seats"].values()))
        assert page.errors == []


# -- issue 24: invitations that work across machines -------------------------------------------

PLAYERS_HOST = "players.example"
"""A name only the test's browser resolves (to the loopback server): another machine's view of
the service, on an origin that is not loopback and not secure (no Clipboard API there)."""


@pytest.fixture(scope="module")
def mapped_browser(browser: Any) -> Iterator[Any]:
    """A second Chromium, from the same Playwright as the module's ``browser`` (which skips or
    fails when Chromium is missing), that resolves ``players.example`` to 127.0.0.1."""
    mapped = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {PLAYERS_HOST} 127.0.0.1"],
    )
    try:
        yield mapped
    finally:
        mapped.close()


@pytest.fixture(scope="module")
def public_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The real server with ``REFEREE_PUBLIC_URL`` naming it as other machines reach it."""
    work = tmp_path_factory.mktemp("public")
    url = f"sqlite:///{work / 'public.db'}"
    upgrade(url)
    port = free_port()
    env = {"REFEREE_PUBLIC_URL": f"http://{PLAYERS_HOST}:{port}/"}
    with server_process(url, work, env, port=port) as server:
        server.wait_healthy()
        yield server


def _page(browser: Any, *, clipboard_origin: str | None = None) -> Any:
    ctx = browser.new_context(viewport={"width": 1300, "height": 850})
    if clipboard_origin:
        ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=clipboard_origin)
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def _create_in_lobby(page: Any, base: str) -> str:
    page.goto(f"{base}/")
    page.select_option("#scenario-select", "shipped:zoc:seed-example")
    page.click("#create-btn")
    page.wait_for_selector("#created tr[data-seat=axis] input.invite-url")
    game_id: str = page.inner_text("#created-id")
    return game_id


def _token_of(link: str) -> str:
    fragment = dict(part.split("=", 1) for part in link.split("#", 1)[1].split("&"))
    return fragment["token"]


def test_invitation_links_use_the_public_url_and_copy_says_so(
    mapped_browser: Any, public_server: ServerProcess
) -> None:
    public = f"http://{PLAYERS_HOST}:{public_server.port}"
    umpire = _page(mapped_browser, clipboard_origin=public_server.url)
    game_id = _create_in_lobby(umpire, public_server.url)  # opened on 127.0.0.1
    token = umpire.inner_text("#created tr[data-seat=axis] code.token")
    row = umpire.locator("#created tr[data-seat=axis]")
    link = row.locator("input.invite-url").input_value()
    assert link == f"{public}/#game={game_id}&seat=axis&token={token}"
    assert row.locator("a.invite").get_attribute("href") == link
    watch = umpire.locator("#created input.spectate-url").input_value()
    assert watch == f"{public}/#game={game_id}&as=spectator"
    # the public URL is set: no warning, even on a loopback page
    assert umpire.locator(".link-warning").count() == 0

    row.get_by_role("button", name="Copy the axis invitation link").click()
    status = row.locator(".copy-status")
    status.get_by_text("Copied").wait_for()
    assert status.get_attribute("role") == "status"
    assert umpire.evaluate("navigator.clipboard.readText()") == link

    # a player elsewhere opens the link as it was sent
    player = _page(mapped_browser)
    player.goto(link)
    player.wait_for_selector("body[data-ready=true]")
    assert player.inner_text("#whoami") == "Seat: axis"
    assert player.url.startswith(f"{public}/")
    assert umpire.errors == [] and player.errors == []


def test_links_built_on_loopback_warn_and_copy_falls_back_to_selecting(
    mapped_browser: Any, console_server: ServerProcess
) -> None:
    # no REFEREE_PUBLIC_URL, page opened on 127.0.0.1: the links only work here, and it says so
    local = _page(mapped_browser)
    _create_in_lobby(local, console_server.url)
    warning = local.locator("#created .link-warning")
    assert warning.is_visible()
    assert "Links built from 127.0.0.1 only work on this machine" in warning.inner_text()
    assert "set REFEREE_PUBLIC_URL" in warning.inner_text()

    # the same server reached by name from elsewhere: not loopback (no warning) and not a
    # secure origin, so there is no Clipboard API: Copy selects the link for the person
    remote = _page(mapped_browser)
    base = f"http://{PLAYERS_HOST}:{console_server.port}"
    game_id = _create_in_lobby(remote, base)
    assert remote.evaluate("navigator.clipboard === undefined && !window.isSecureContext")
    assert remote.locator(".link-warning").count() == 0
    row = remote.locator("#created tr[data-seat=soviet]")
    field = row.locator("input.invite-url")
    link = field.input_value()
    assert link.startswith(f"{base}/#game={game_id}&seat=soviet&token=")
    row.get_by_role("button", name="Copy the soviet invitation link").click()
    status = row.locator(".copy-status")
    status.wait_for(state="visible")
    remote.wait_for_function(
        "el => el.textContent.length > 0", arg=status.element_handle(), timeout=5_000
    )
    assert status.inner_text() in ("Copied", "Selected: press Ctrl+C (⌘C on a Mac) to copy")
    selected = remote.evaluate(
        "() => { const el = document.activeElement; return el.classList.contains('invite-url')"
        " ? el.value.slice(el.selectionStart, el.selectionEnd) : null; }"
    )
    assert selected == link
    assert local.errors == [] and remote.errors == []


def test_the_umpire_reissues_a_lost_invitation_from_the_page(
    mapped_browser: Any, public_server: ServerProcess
) -> None:
    public = f"http://{PLAYERS_HOST}:{public_server.port}"
    lobby = _page(mapped_browser)
    game_id = _create_in_lobby(lobby, public_server.url)
    umpire_link = lobby.locator("#created tr[data-seat=umpire] input.invite-url").input_value()
    old_link = lobby.locator("#created tr[data-seat=axis] input.invite-url").input_value()
    old_token = _token_of(old_link)

    # the axis player opens the link and invites a spectator with it
    axis = _page(mapped_browser)
    axis.goto(old_link)
    axis.wait_for_selector("body[data-ready=true][data-stream=live]")
    axis.click("#invite-spectator")
    axis.wait_for_selector("#invite-box a.spectator-invite")

    # the link is lost: the umpire issues a new one from the Umpire tab
    umpire = _page(mapped_browser)
    umpire.goto(umpire_link)
    umpire.wait_for_selector("body[data-ready=true]")
    umpire.click("#tab-umpire")
    umpire.select_option("#reissue-seat", "axis")
    assert umpire.is_checked("#reissue-revoke")
    umpire.once("dialog", lambda dialog: dialog.accept())
    umpire.click("#reissue-btn")
    new_field = umpire.locator("#reissue-result input.reissued-url")
    new_field.wait_for()
    new_link = new_field.input_value()
    assert new_link.startswith(f"{public}/#game={game_id}&seat=axis&token=")
    assert new_link != old_link
    note = umpire.inner_text("#reissue-result .reissue-note")
    assert "The old axis link stopped working" in note
    assert "Revoked with it: 1 spectator link and 0 webhooks" in note

    # the old link's token is refused; the page still open with it is told
    auth = {"Authorization": f"Bearer {old_token}"}
    assert httpx.get(f"{public_server.url}/games/{game_id}", headers=auth).status_code == 401
    axis.wait_for_function("(document.body.dataset.stream || '').includes('revoked')")
    # the new link works for the player
    again = _page(mapped_browser)
    again.goto(new_link)
    again.wait_for_selector("body[data-ready=true][data-stream=live]")
    assert again.inner_text("#whoami") == "Seat: axis"
    new_auth = {"Authorization": f"Bearer {_token_of(new_link)}"}
    seat = httpx.get(f"{public_server.url}/games/{game_id}", headers=new_auth).json()["seat"]
    assert seat == "axis"
    assert umpire.errors == [] and again.errors == []
