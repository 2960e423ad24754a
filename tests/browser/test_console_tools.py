"""The console's other paths in headless Chromium: the measured terrain table (a move typed
as points with its yards per feature, a line of sight between two clicked points), keyboard
operation, a pasted scenario the service refuses, and a spectator's read-only page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import OZ_ORDERS, oz_assault, seat_link
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TO_SCREEN = """([x, y]) => {
  const svg = document.querySelector('#board svg');
  const p = svg.createSVGPoint(); p.x = x; p.y = y;
  const q = p.matrixTransform(svg.getScreenCTM());
  return [q.x, q.y];
}"""


def _create(base: str, ruleset: str, name: str) -> dict[str, Any]:
    scenario = json.loads((ROOT / "scenarios" / ruleset / f"{name}.json").read_text())
    r = httpx.post(f"{base}/games", json={"ruleset": ruleset, "scenario": scenario})
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    return game


def _ready(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready=true][data-stream=live]")


def _as_seat(new_page: Any, base: str, scenario: tuple[str, str], seat: str) -> tuple[Any, Any]:
    """A new game of (ruleset, scenario file) and a page opened with ``seat``'s link."""
    game = _create(base, *scenario)
    page = new_page()
    _ready(page, seat_link(base, game["id"], seat, game["seats"][seat]))
    return game, page


def test_terrain_table_measures_a_typed_move_and_a_clicked_sight_line(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game, page = _as_seat(new_page, base, ("terrain", "example"), "french")
    assert page.get_attribute("#board svg", "aria-label").startswith("Table 1200 by 800 yards")

    page.focus("#unit-list [data-unit=fr-inf]")
    page.keyboard.press("Enter")
    page.fill("#path-input", "450,180 600,130")
    page.keyboard.press("Tab")
    page.wait_for_selector("#ruling .yards")
    action = {"kind": "move", "unit": "fr-inf", "path": [[450, 180], [600, 130]]}
    expected = httpx.post(f"{base}/games/{game['id']}/rulings", json=action).json()
    shown = page.inner_text("#ruling .yards")
    for feature, yards in expected["details"]["yards_by_feature"].items():
        # each feature by its name and kind (Mill orchard (orchard): 156.4 yd)
        item = page.inner_text(f"#ruling .yards li[data-feature={feature}]")
        assert item.endswith(f": {yards} yd"), item
    assert f"path {expected['details']['path_yards']} yd" in shown
    assert page.get_attribute("#ruling .verdict", "data-legal") == str(expected["legal"]).lower()
    codes = page.eval_on_selector_all("#ruling .violations li", "ns => ns.map(n => n.dataset.code)")
    assert codes == [v["code"] for v in expected["violations"]]
    assert page.locator("polyline.move-path").count() == 1

    page.keyboard.press("Escape")
    page.wait_for_selector("#unit-list [data-unit=fr-inf][aria-selected=false]")
    # with no unit selected, a click asks what the ground there means
    x, y = page.evaluate(TO_SCREEN, (200, 200))
    page.mouse.click(x, y)
    page.wait_for_selector("#hex-info li[data-feature=hw1]")
    at = httpx.get(
        f"{base}/games/{game['id']}/queries/terrain-at", params={"at": "200,200"}
    ).json()["result"]
    assert [f["feature"] for f in at["features"]] == ["hw1"]
    assert at["features"][0]["by_unit_type"]["formed infantry"] in page.inner_text("#hex-info")

    page.check("#los-mode")
    for yards in ((620, 300), (1100, 700)):
        x, y = page.evaluate(TO_SCREEN, yards)
        page.mouse.click(x, y)
    page.wait_for_selector("#ruling [data-los]")
    text = page.inner_text("#ruling [data-los]")
    m = re.search(r"([\d.]+) yards from (-?\d+),(-?\d+) to (-?\d+),(-?\d+)", text)
    assert m, text
    params = {"from": f"{m[2]},{m[3]}", "to": f"{m[4]},{m[5]}"}
    los = httpx.get(f"{base}/games/{game['id']}/queries/line-of-sight", params=params).json()
    assert float(m[1]) == los["result"]["yards"]
    # the clicked screen points map back to the yards aimed at (to within a yard or two)
    shown_points = [int(v) for v in m.groups()[1:]]
    assert all(abs(a - b) <= 2 for a, b in zip(shown_points, [620, 300, 1100, 700], strict=True))
    clear = str(los["result"]["clear"]).lower()
    assert page.get_attribute("#ruling [data-los]", "data-los") == clear
    assert page.locator("line.los").count() == 1
    assert page.errors == []


def test_keyboard_only_move_and_a_spectator_cannot_write(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game, page = _as_seat(new_page, base, ("zoc", "seed-example"), "axis")
    # a counter on the board is focusable and Enter selects it
    page.focus(".counter[data-unit=de-inf-y]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#unit-list [data-unit=de-inf-y][aria-selected=true]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#unit-list [data-unit=de-inf-y][aria-selected=false]")
    page.focus("#unit-list [data-unit=de-inf-2]")
    page.keyboard.press("Enter")
    page.focus("#path-input")
    page.keyboard.type("e3207 e3307")
    page.keyboard.press("Tab")
    page.wait_for_function(
        "document.body.dataset.rulingFor && JSON.parse(document.body.dataset.rulingFor)"
        ".unit === 'de-inf-2'"
    )
    assert page.get_attribute("#ruling .verdict", "data-legal") == "true"
    page.focus("#submit-move")
    page.keyboard.press("Enter")
    page.wait_for_selector("#notice.ok")
    page.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3307]")

    watcher = new_page()
    _ready(watcher, f"{base}/#game={game['id']}&as=spectator")
    assert watcher.inner_text("#whoami").startswith("Spectator")
    watcher.wait_for_selector("#log li[data-kind=move]", state="attached")
    for button in ("#submit-move", "#action-submit", "#end-phase"):
        assert watcher.is_disabled(button), button
    assert watcher.locator(".rollback-here").count() == 0

    # the umpire audits the log, then rolls back to the event before the move
    umpire = new_page()
    _ready(umpire, seat_link(base, game["id"], "umpire", game["seats"]["umpire"]))
    umpire.click("#tab-umpire")
    umpire.click("#pane-umpire button:has-text('Run the audit')")
    umpire.wait_for_selector("#pane-umpire .audit:has-text('Audit clean')")
    umpire.click("#tab-log")
    assert umpire.locator("#log li[data-kind=move] .rollback-here").count() == 1
    umpire.click("#log li[data-kind=move] .rollback-here")
    # everyone sees the rollback live: de-inf-2 is back where it started
    for p in (page, watcher, umpire):
        p.wait_for_selector("#log li[data-kind=rollback]", state="attached")
        p.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3107]")
    assert page.errors == [] and watcher.errors == [] and umpire.errors == []


def test_lobby_names_a_refused_pasted_scenario_and_creates_a_timed_game(
    new_page: Any, console_server: ServerProcess
) -> None:
    page = new_page()
    page.goto(f"{console_server.url}/")
    page.wait_for_selector("#scenario-select option", state="attached")
    page.click("#create-title + label + details summary")
    page.select_option("#paste-ruleset", "zoc")
    page.fill("#paste-json", '{"title": "no map"}')
    page.click("#create-btn")
    page.wait_for_selector("#notice.error")
    assert "422 scenario.invalid" in page.inner_text("#notice")
    assert page.is_hidden("#created")
    page.fill("#paste-json", "{not json")
    page.click("#create-btn")
    page.wait_for_function("document.getElementById('notice').textContent.includes('not JSON')")

    # a timed game from a shipped scenario: the clocks are shown, the phasing side's running
    page.fill("#paste-json", "")
    page.select_option("#scenario-select", "shipped:zoc:seed-example")
    page.fill("#create-clock", "90")
    page.click("#create-btn")
    page.wait_for_selector("#created tr[data-seat=soviet] a.invite")
    page.goto(page.get_attribute("#created tr[data-seat=soviet] a.invite", "href"))
    page.wait_for_selector("body[data-ready=true]")
    clock = page.inner_text("#clock")
    assert re.search(r"▶ axis 1:[23]\d:\d\d", clock), clock
    assert "soviet 1:30:00" in clock
    assert page.errors == []


def test_a_stale_submission_is_refused_412_the_board_refreshes_and_says_what_changed(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "zoc", "seed-example")
    page = new_page()
    page.route("**/events/stream", lambda route: route.abort())  # this page hears nothing live
    page.goto(seat_link(base, game["id"], "axis", game["seats"]["axis"]))
    page.wait_for_selector("body[data-ready=true]")
    page.click("#unit-list [data-unit=de-inf-1]")
    page.fill("#path-input", "e3108")
    page.keyboard.press("Tab")
    page.wait_for_selector("#ruling .verdict[data-legal=true]")

    # meanwhile the same side moves another unit from elsewhere
    other = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}
    headers = {"Authorization": f"Bearer {game['seats']['axis']}", "If-Match": 'W/"1"'}
    r = httpx.post(f"{base}/games/{game['id']}/actions", json=other, headers=headers)
    assert r.status_code == 201, r.text

    page.click("#submit-move")
    page.wait_for_selector("body[data-stale=true]")
    notice = page.inner_text("#notice")
    assert "version 1 → 2" in notice
    assert "de-inf-2 moves e3107 -> e3207 -> e3307" in notice
    page.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3307]")
    assert page.locator(".counter[data-unit=de-inf-1][data-at=e3107]").count() == 1
    assert httpx.get(f"{base}/games/{game['id']}").json()["version"] == 2


def test_zoi_board_draws_fronts_and_zones_from_the_zone_map_query(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game, page = _as_seat(new_page, base, ("zoi", "example"), "french")
    assert page.input_value("#zones-side") == "austrian"
    maps = {
        side: httpx.get(
            f"{base}/games/{game['id']}/queries/zone-map", params={"side": side}
        ).json()["result"]
        for side in ("french", "austrian")
    }
    fronts = {src["hexside"] for m in maps.values() for z in m["hexes"] for src in z["sources"]}
    drawn = page.eval_on_selector_all("line.front", "ns => ns.map(n => n.dataset.hexside)")
    assert set(drawn) == fronts and fronts
    zone_hexes = {z["hex"] for z in maps["austrian"]["hexes"]}
    zone_hexes |= {h for c in maps["austrian"]["carres"] for h in c["adjacent"]}
    shown = page.eval_on_selector_all("polygon.zone", "ns => ns.map(n => n.dataset.hex)")
    assert set(shown) == zone_hexes
    # facing arrows on the counters that face a hexside or vertex (a carré faces all round)
    assert page.locator(".counter[data-unit=fr-4-2] line.facing").count() == 1
    assert page.locator(".counter[data-unit=aus-gr1] line.facing").count() == 0

    # pan and zoom from the keyboard: + zooms in, an arrow pans, 0 resets
    def view_box() -> list[float]:
        return [float(v) for v in page.get_attribute("#board svg", "viewBox").split()]

    home = view_box()
    page.focus("#board")
    page.keyboard.press("+")
    zoomed = view_box()
    assert zoomed[2] < home[2] and zoomed[3] < home[3]
    page.keyboard.press("ArrowRight")
    assert view_box()[0] > zoomed[0]
    page.keyboard.press("0")
    assert view_box() == home
    assert page.errors == []


def test_a_retreat_from_the_schema_form_takes_the_path_clicked_on_the_board(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game, page = _as_seat(new_page, base, ("zoc", "seed-example"), "axis")
    page.click("#unit-list [data-unit=de-inf-1]")
    page.wait_for_selector("text.cost[data-reach=e3008]")
    page.click("#other-actions summary")
    page.select_option("#action-kind", "retreat")
    assert page.input_value("#act-retreat-unit") == "de-inf-1"
    page.click("polygon.hex[data-hex=e3008]", force=True)
    page.wait_for_function("document.body.dataset.rulingFor")
    assert page.input_value("#act-retreat-path") == '["e3008"]'
    page.fill("#act-retreat-length", "1")
    action = {"kind": "retreat", "unit": "de-inf-1", "path": ["e3008"], "length": 1}
    expected = httpx.post(f"{base}/games/{game['id']}/rulings", json=action).json()
    page.click("#action-dry")
    page.wait_for_function(
        "s => document.querySelector('#ruling .verdict').textContent.includes(s)",
        arg=expected["summary"],
    )
    assert page.get_attribute("#ruling .verdict", "data-legal") == str(expected["legal"]).lower()
    assert expected["summary"] in page.inner_text("#ruling .verdict")
    cited = page.eval_on_selector_all(
        "#ruling .citations .cite", "ns => ns.map(n => n.dataset.section)"
    )
    assert cited == [c["section"] for c in expected["citations"]]
    assert page.errors == []


def test_what_a_seat_may_do_now_and_a_spectator_link_to_a_private_game(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    scenario = json.loads((ROOT / "scenarios" / "zoc" / "seed-example.json").read_text())
    body = {"ruleset": "zoc", "scenario": scenario, "public": False}
    game = httpx.post(f"{base}/games", json=body).json()
    axis = new_page()
    _ready(axis, seat_link(base, game["id"], "axis", game["seats"]["axis"]))
    available = httpx.get(
        f"{base}/games/{game['id']}/actions/available",
        headers={"Authorization": f"Bearer {game['seats']['axis']}"},
    ).json()
    shown = axis.inner_text("#available")
    assert f"You may act now: {', '.join(available['kinds'])}" in shown
    may = set(axis.eval_on_selector_all(".unit-btn.can-act", "ns => ns.map(n => n.dataset.unit)"))
    assert may == {u["unit"] for u in available["units"]} == {"de-inf-y", "de-inf-1", "de-inf-2"}

    # without a token the private game is closed; the seat mints a read-only link
    closed = new_page()
    closed.goto(f"{base}/#game={game['id']}&as=spectator")
    closed.wait_for_selector("#notice.error")
    assert "401" in closed.inner_text("#notice")
    axis.click("#invite-spectator")
    link = axis.get_attribute("#invite-box a.spectator-invite", "href")
    watcher = new_page()
    _ready(watcher, link)
    assert watcher.inner_text("#whoami").startswith("Spectator")
    assert watcher.locator(".counter[data-unit=su-18a]").count() == 1
    assert watcher.is_disabled("#submit-move")
    leaked = [u for u in watcher.urls if "token=" in u.split("#", 1)[0]]
    assert leaked == []
    assert axis.errors == [] and watcher.errors == []


def _umpire_at_an_assault(new_page: Any, base: str, *, seal: bool) -> tuple[Any, Any]:
    """An objective-zones game with physical dice at its assault on the mill
    (``oz_assault``), and the umpire's page on it."""
    scenario = json.loads((ROOT / "scenarios" / "objective-zones" / "example.json").read_text())
    body = {"ruleset": "objective-zones", "scenario": scenario, "match": {"physical_dice": True}}
    game = httpx.post(f"{base}/games", json=body).json()
    oz_assault(base, game, seal=seal)
    umpire = new_page()
    _ready(umpire, seat_link(base, game["id"], "umpire", game["seats"]["umpire"]))
    return game, umpire


def test_the_umpire_enters_physical_dice_to_open_a_sealed_assault(
    new_page: Any, console_server: ServerProcess
) -> None:
    _, umpire = _umpire_at_an_assault(new_page, console_server.url, seal=True)
    umpire.click("#tab-sealed")
    decision = "[data-decision='allocation:mill:t1']"
    assert "awaiting the umpire's dice" in umpire.inner_text(decision)
    umpire.click("#tab-umpire")
    umpire.fill("#physical-dice", ",".join(["7"] * 12))
    umpire.click("#tab-sealed")
    umpire.click(f"{decision} button:has-text('Open now')")
    umpire.click("#tab-log")
    umpire.wait_for_selector("#log li[data-kind=sealed_revealed] .check.ok")
    used = umpire.inner_text("#log li[data-kind=sealed_revealed] .dice-used")
    assert used == "dice: " + " ".join(["d10=7"] * 12)
    umpire.click("#tab-dice")
    umpire.wait_for_selector("#dice .rolls li")
    rolls = umpire.eval_on_selector_all("#dice .rolls li", "ns => ns.map(n => n.textContent)")
    assert len(rolls) == 12 and all("d10 = 7 (entered by the umpire)" in r for r in rolls)
    assert umpire.errors == []


def test_the_umpire_keeps_typing_the_dice_while_the_sides_seal(
    new_page: Any, console_server: ServerProcess
) -> None:
    """The umpire types the physical dice while the sides' sealed orders come in: each one
    redraws the umpire's tools live, and the dice field keeps the focus and what is typed
    (a redrawn field took the rest of the keys away: the open then went without dice)."""
    base = console_server.url
    game, umpire = _umpire_at_an_assault(new_page, base, seal=False)
    umpire.click("#tab-umpire")
    umpire.click("#physical-dice")
    umpire.keyboard.type("7,7,7,7,7,7")
    for side, order in OZ_ORDERS.items():  # each side seals as the umpire types on
        before = int(umpire.inner_text("#position").rsplit("v", 1)[1])
        headers = {"Authorization": f"Bearer {game['seats'][side]}", "If-Match": "*"}
        url = f"{base}/games/{game['id']}/sealed/allocation:mill:t1"
        httpx.post(url, json=order, headers=headers).raise_for_status()
        umpire.wait_for_function(
            f"document.getElementById('position').textContent.endsWith('v{before + 1}')"
        )
        umpire.keyboard.type(",7,7,7")
    assert umpire.input_value("#physical-dice") == ",".join(["7"] * 12)
    umpire.click("#tab-sealed")
    umpire.click("[data-decision='allocation:mill:t1'] button:has-text('Open now')")
    umpire.click("#tab-log")
    umpire.wait_for_selector("#log li[data-kind=sealed_revealed] .check.ok")
    used = umpire.inner_text("#log li[data-kind=sealed_revealed] .dice-used")
    assert used == "dice: " + " ".join(["d10=7"] * 12)
    assert umpire.errors == []


def test_battlefield_draws_the_table_with_its_zone_outlines_and_their_displays(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game, page = _as_seat(new_page, base, ("battlefield", "millers-crossing"), "union")
    board = httpx.get(f"{base}/games/{game['id']}/scenario").json()["board"]
    drawn = page.eval_on_selector_all("polygon.zone-outline", "ns => ns.map(n => n.dataset.zone)")
    assert set(drawn) == set(board["outlines"]) and drawn
    view = httpx.get(f"{base}/games/{game['id']}").json()["state"]
    on_table = {u["id"] for u in view["table"]["units"] if not u["destroyed"]}
    counters = page.eval_on_selector_all(".counter", "ns => ns.map(n => n.dataset.unit)")
    assert set(counters) == on_table
    # a click inside an outline (away from counters) shows that zone's display
    zone = sorted(board["outlines"])[0]
    (x0, y0), (x1, y1) = board["outlines"][zone][0], board["outlines"][zone][2]
    inside = (x0 + (x1 - x0) * 0.1, y0 + (y1 - y0) * 0.15)
    x, y = page.evaluate(TO_SCREEN, inside)
    page.mouse.click(x, y)
    page.wait_for_selector(f"#hex-info [data-zone-info='{zone}']")
    display = httpx.get(f"{base}/games/{game['id']}/queries/zone", params={"zone": zone}).json()[
        "result"
    ]
    assert f"{display['name']} — Class {display['class']}" in page.inner_text("#hex-info")
    assert page.errors == []


def test_the_umpire_tab_offers_only_tools_that_can_work(
    new_page: Any, console_server: ServerProcess
) -> None:
    """`terrain` declares no sequence of play: no Advance phase (it could only earn a 409
    phase.no_sequence). At the game's first version there is nothing to roll back to: the
    Roll back button is disabled and says why, until an action gives it a version to go back to."""
    base = console_server.url
    _, umpire = _as_seat(new_page, base, ("terrain", "example"), "umpire")
    umpire.click("#tab-umpire")
    umpire.wait_for_selector("#rollback-go")
    assert umpire.locator("#advance-phase").count() == 0
    assert umpire.is_disabled("#rollback-go")
    assert "Nothing to roll back yet" in (umpire.get_attribute("#rollback-go", "title") or "")
    _, zoc = _as_seat(new_page, base, ("zoc", "seed-example"), "umpire")
    zoc.click("#tab-umpire")
    zoc.wait_for_selector("#advance-phase")
    zoc.click("#advance-phase")
    zoc.wait_for_selector("#notice.ok")
    zoc.wait_for_selector("#rollback-go:not([disabled])")
    assert zoc.get_attribute("#rollback-to", "max") == "1"
    assert umpire.errors == [] and zoc.errors == []
