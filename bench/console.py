"""The console in headless Chromium over the real server: screenshots and in-browser timings.

``python bench/console.py screenshots`` writes one image of each ruleset's board to
``docs/images/``, one of a move tapped on a phone-size screen, and the orders played by
pointing (``orders`` alone: the zoi turn at 1400 and 390 px, the zoc turn on a phone, the
yards per feature of a terrain and a battlefield move) (``make screenshots``).
``python bench/console.py perf`` measures, with the browser's Performance API, the time to
first render (navigation start to the board, units and overlays drawn) and from a click on a
hex or a point to the dry-run ruling on screen (the dry run's request timed apart by Resource
Timing), for the zoc seed example, a generated 2,000-hex map with 300 units and the shipped
battlefield battle, on a desktop and on a phone-size screen with the CPU throttled 4x
(``make bench-console``). ``python bench/console.py session`` counts the requests a match's
two open consoles send for a move and while idle (docs/OPERATIONS.md, sizing). Figures go to
docs/PERFORMANCE.md by hand; nothing here is asserted in tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

# run as a script, this folder comes first on sys.path, and bench/http.py would shadow the
# standard library's http: put the repository root there instead
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402

from tests.support.chromium import chromium, oz_assault, seat_link, served_sqlite  # noqa: E402
from tests.support.chromium import click_yards as _click_yards  # noqa: E402
from tests.support.chromium import end_phase as _end_phase  # noqa: E402
from tests.support.chromium import point as _point  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
SCENARIOS = ROOT / "scenarios"
VIEWPORT = {"width": 1400, "height": 860}


def _scenario(ruleset: str, name: str = "example") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCENARIOS / ruleset / f"{name}.json").read_text())
    return data


def _create(base: str, ruleset: str, scenario: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(f"{base}/games", json={"ruleset": ruleset, "scenario": scenario}, timeout=60)
    r.raise_for_status()
    game: dict[str, Any] = r.json()
    return game


def _open(browser: Any, base: str, game: dict[str, Any], seat: str) -> Any:
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.set_default_timeout(60_000)
    page.goto(seat_link(base, game["id"], seat, game["seats"][seat]))
    page.wait_for_selector("body[data-ready=true]")
    return page


def _wait_ruling(page: Any, n: int) -> None:
    page.wait_for_function(
        f"document.body.dataset.rulingFor && "
        f"JSON.parse(document.body.dataset.rulingFor).path.length === {n}"
    )


def screenshots(base: str, browser: Any) -> list[Path]:
    IMAGES.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []

    page = _hex_move(browser, base, ("zoc", "seed-example", "axis"), "de-inf-1", ["e3207", "e3307"])
    page.hover("#ruling .citations .cite[data-section='8.2.operational']")
    out.append(_shot(page, "console-zoc.png"))
    page = _hex_move(browser, base, ("zoi", "example", "french"), "fr-4-2", ["0607", "0606"])
    out.append(_shot(page, "console-zoi.png"))

    game = _create(base, "objective-zones", _scenario("objective-zones"))
    oz_assault(base, game, seal=True)
    page = _open(browser, base, game, "union")
    page.wait_for_selector(".zone-card[data-zone=mill] .assault")
    page.click("#tab-log")
    out.append(_shot(page, "console-objective-zones.png"))

    game = _create(base, "terrain", _scenario("terrain"))
    page = _open(browser, base, game, "french")
    page.click("#unit-list [data-unit=fr-inf]")
    box = page.locator("#board svg").bounding_box()
    # two waypoints east of the unit, clicked on the table (yards are the API's measure)
    for i, (fx, fy) in enumerate(((0.42, 0.26), (0.5, 0.2)), start=1):
        page.mouse.click(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
        _wait_ruling(page, i)
    out.append(_shot(page, "console-terrain.png"))

    game = _create(base, "battlefield", _scenario("battlefield", "millers-crossing"))
    page = _open(browser, base, game, "union")
    box = page.locator("#board svg").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.44, box["y"] + box["height"] * 0.52)
    page.wait_for_selector("#hex-info [data-zone-info]")
    out.append(_shot(page, "console-battlefield.png"))
    out.append(_phone(browser, base))
    out += replay_shots(base, browser)
    out += order_shots(base, browser)
    out += assault_shots(base, browser)
    return out


def _page(browser: Any, base: str, game: dict[str, Any], seat: str, size: dict[str, int]) -> Any:
    touch = size["width"] < 600
    ctx = browser.new_context(viewport=size, has_touch=touch, is_mobile=touch)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    page.goto(seat_link(base, game["id"], seat, game["seats"][seat]))
    page.wait_for_selector("body[data-ready=true][data-stream=live]")
    return page


def _select(page: Any, unit: str) -> None:
    """Select a unit from the list (a second tap on the selected one would let it go)."""
    if page.get_attribute(f"#unit-list [data-unit={unit}]", "aria-selected") != "true":
        _point(page, f"#unit-list [data-unit={unit}]")
    page.wait_for_selector(f"#unit-list [data-unit={unit}][aria-selected=true]")
    page.wait_for_selector("#orders [data-order-kind]")


def _ruled(page: Any, action: dict[str, Any]) -> None:
    page.wait_for_function(
        "want => document.body.dataset.rulingFor === want && "
        "document.querySelector('#ruling .narrative')",
        arg=json.dumps(action, separators=(",", ":")),
    )


def _submitted(page: Any) -> None:
    page.wait_for_selector("#submit-move:not([disabled])")
    _point(page, "#submit-move")
    page.wait_for_selector("body[data-submitting=false]")
    page.wait_for_timeout(400)


def _full(page: Any, name: str) -> Path:
    page.wait_for_timeout(300)
    path = IMAGES / name
    page.screenshot(path=str(path), full_page=True)
    return path


def zoi_turn(browser: Any, base: str, size: dict[str, int], suffix: str) -> list[Path]:
    """The zoi turn of the browser tests: the French column turns (facing dial) and walks
    into the Austrian zone; after the fire phases the Austrian line retreats from the melee
    (result from the menu, hex clicked), its losses on the board."""
    game = _create(base, "zoi", _scenario("zoi"))
    french = _page(browser, base, game, "french", size)
    austrian = _page(browser, base, game, "austrian", size)
    _select(french, "fr-4-2")
    french.wait_for_selector("#orders .dial-dir[data-facing='0']")
    french.focus("#orders .dial-dir[data-facing='0']")
    french.keyboard.press("ArrowRight")
    steps: list[dict[str, Any]] = [{"do": "face", "facing": 1}]
    for hex_id in ("0607", "0606", "0605"):
        _point(french, f"polygon.hex[data-hex='{hex_id}']")
        steps.append({"do": "enter", "hex": hex_id})
        _ruled(french, {"kind": "move", "unit": "fr-4-2", "steps": steps})
    out = [_full(french, f"console-zoi-facing{suffix}.png")]
    _submitted(french)
    _end_phase(french, "Defensive fire")
    _end_phase(austrian, "Offensive fire")
    _end_phase(french, "Melee")
    _select(austrian, "aus-ir49")
    austrian.wait_for_selector("#order-result")
    austrian.select_option("#order-result", "R1L1")
    _point(austrian, "polygon.hex[data-hex='0504']")
    _ruled(
        austrian,
        {"kind": "melee_retreat", "unit": "aus-ir49", "path": ["0504"], "result": "R1L1"},
    )
    out.append(_full(austrian, f"console-zoi-retreat{suffix}.png"))
    french.context.close()
    austrian.context.close()
    return out


def zoc_phone_turn(browser: Any, base: str) -> list[Path]:
    """The zoc turn on a phone: a supply line tapped hex by hex, then a retreat in combat."""
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    axis = _page(browser, base, game, "axis", PHONE)
    _select(axis, "de-inf-y")
    _point(axis, "#orders [data-order-kind=trace_supply]")
    line = ["e3206", "e3105", "e3104", "e3103", "e3003"]
    for hex_id in line:
        _point(axis, f"polygon.hex[data-hex='{hex_id}']")
    _ruled(axis, {"kind": "trace_supply", "unit": "de-inf-y", "path": line})
    supply = _full(axis, "console-zoc-supply-phone.png")
    _submitted(axis)
    _end_phase(axis, "Combat")
    _select(axis, "de-inf-y")
    _point(axis, "#orders [data-order-kind=retreat]")
    axis.select_option("#order-length", "1")
    _point(axis, "polygon.hex[data-hex=e3206]")
    _ruled(axis, {"kind": "retreat", "unit": "de-inf-y", "path": ["e3206"], "length": 1})
    path = _full(axis, "console-zoc-retreat-phone.png")
    axis.context.close()
    return [supply, path]


def terrain_yards(browser: Any, base: str) -> Path:
    """A measured terrain move across the ford: yards per feature on the table and in words."""
    game = _create(base, "terrain", _scenario("terrain"))
    page = _page(browser, base, game, "british", VIEWPORT)
    _select(page, "br-inf")
    page.wait_for_selector("#orders [data-order-kind=move]")
    for x, y in ((600, 480), (600, 405)):
        at = page.evaluate(
            """([x, y]) => { const svg = document.querySelector('#board svg');
            const p = svg.createSVGPoint(); p.x = x; p.y = y;
            const s = p.matrixTransform(svg.getScreenCTM()); return [s.x, s.y]; }""",
            [x, y],
        )
        page.mouse.click(*at)
        page.wait_for_timeout(150)
    page.wait_for_selector("#board .feature-yards")
    page.click("#zoom-in")
    page.click("#zoom-in")
    path = _full(page, "console-terrain-yards.png")
    page.context.close()
    return path


def battlefield_yards(browser: Any, base: str) -> Path:
    """The shipped battle: us-1 down the pike over the bridge, yards per feature drawn."""
    game = _create(base, "battlefield", _scenario("battlefield", "millers-crossing"))
    page = _page(browser, base, game, "union", VIEWPORT)
    _end_phase(page, "Movement Phase")
    _point(page, "#unit-list [data-unit=us-1]")
    page.wait_for_selector("#unit-list [data-unit=us-1][aria-selected=true]")
    for x, y in ((742, 360), (760, 420)):
        _click_yards(page, x, y)
        page.wait_for_timeout(200)
    page.wait_for_selector("#board .feature-yards")
    page.click("#zoom-in")
    path = _full(page, "console-battlefield-yards.png")
    page.context.close()
    return path


def order_shots(base: str, browser: Any) -> list[Path]:
    out = zoi_turn(browser, base, VIEWPORT, "")
    out += zoi_turn(browser, base, PHONE, "-phone")
    out += zoc_phone_turn(browser, base)
    out.append(terrain_yards(browser, base))
    out.append(battlefield_yards(browser, base))
    return out


def _battle_to_the_reveal(base: str) -> dict[str, Any]:
    """Miller's Crossing through the API, as tests/api/test_battlefield_api.py plays it, up to
    both sealed allocations; the umpire's physical melee dice are left to the page."""
    body = {
        "ruleset": "battlefield",
        "scenario": _scenario("battlefield", "millers-crossing"),
        "match": {"physical_dice": True},
    }
    r = httpx.post(f"{base}/games", json=body, timeout=60)
    r.raise_for_status()
    game: dict[str, Any] = r.json()
    gid, seats = game["id"], game["seats"]

    def version() -> int:
        auth = {"Authorization": f"Bearer {seats['umpire']}"}
        v: int = httpx.get(f"{base}/games/{gid}", headers=auth).json()["version"]
        return v

    def advance(times: int) -> None:
        for _ in range(times):
            auth = {"Authorization": f"Bearer {seats['umpire']}", "If-Match": f'W/"{version()}"'}
            httpx.post(f"{base}/games/{gid}/phase/advance", headers=auth).raise_for_status()

    def act(seat: str, action: dict[str, Any]) -> None:
        auth = {"Authorization": f"Bearer {seats[seat]}", "If-Match": f'W/"{version()}"'}
        httpx.post(f"{base}/games/{gid}/actions", json=action, headers=auth).raise_for_status()

    advance(1)
    act("union", {"kind": "move", "unit": "us-1", "path": [[745, 350], [752, 418]]})
    act("union", {"kind": "move", "unit": "us-2", "path": [[1150, 390]]})
    advance(6)
    fire = {"kind": "garrison_fire", "unit": "cs-bty", "origin": [757.6, 480], "target": "us-1"}
    act("confederate", fire)
    advance(3)
    act("union", {"kind": "charge", "unit": "us-1", "path": [[758, 520]]})
    act("union", {"kind": "charge", "unit": "us-2", "path": [[900, 600]]})
    advance(4)
    url = f"{base}/games/{gid}/sealed/allocation:village:t2"
    orders = {
        "union": {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}},
        "confederate": {"sectors": {"1": ["cs-1va", "cs-bty"]}},
    }
    for seat, order in orders.items():
        auth = {"Authorization": f"Bearer {seats[seat]}", "If-Match": "*"}
        httpx.post(url, json=order, headers=auth).raise_for_status()
    return game


def assault_shots(base: str, browser: Any) -> list[Path]:
    """Issue 23: the allocation builder being filled (its dry run refusing an order without
    infantry in a sector), an objective-zones assault told in words after the reveal, on a
    desktop and on a 390-pixel phone; the Miller's Crossing village captured, its outline in
    the union's colour and the reveal told in words in the log, desktop and phone."""
    out: list[Path] = []
    game = _create(base, "objective-zones", _scenario("objective-zones"))
    oz_assault(base, game, seal=False)
    page = _open(browser, base, game, "union")
    page.click("#tab-sealed")
    builder = page.locator("[data-builder='allocation:mill:t1']")
    builder.locator("select[data-unit=us-1]").select_option("1")
    page.wait_for_function(
        'document.querySelectorAll("[data-builder] .alloc-check"'
        " + \" [data-code='oz.sector_without_infantry']\").length === 1"
    )
    builder.scroll_into_view_if_needed()
    out.append(_shot(page, "console-allocation-builder.png"))

    game = _create(base, "objective-zones", _scenario("objective-zones"))
    oz_assault(base, game, seal=True)
    page = _open(browser, base, game, "union")
    page.wait_for_selector(".zone-card[data-zone=mill] .assault .narrative")
    out.append(_shot(page, "console-objective-zones.png"))
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    page.goto(seat_link(base, game["id"], "confederate", game["seats"]["confederate"]))
    page.wait_for_selector(".zone-card[data-zone=mill] .assault .narrative")
    page.click("#tab-log")
    page.locator("#log li[data-kind=sealed_revealed]").scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    path = IMAGES / "console-assault-phone.png"
    page.screenshot(path=str(path), full_page=False)
    ctx.close()
    out.append(path)

    for name, viewport in (
        ("console-battlefield-captured.png", VIEWPORT),
        ("console-battlefield-phone.png", PHONE),
    ):
        game = _battle_to_the_reveal(base)
        umpire = browser.new_context(viewport=VIEWPORT).new_page()
        umpire.set_default_timeout(60_000)
        umpire.goto(seat_link(base, game["id"], "umpire", game["seats"]["umpire"]))
        umpire.wait_for_selector("body[data-ready=true]")
        umpire.click("#tab-umpire")
        umpire.fill("#physical-dice", "10,10,10,9,5,5,10,5,5,5")
        umpire.click("#tab-sealed")
        umpire.click("[data-decision='allocation:village:t2'] button:has-text('Open now')")
        umpire.wait_for_selector("#board .zone-outline[data-zone=village][data-held-by=union]")
        umpire.context.close()
        phone = viewport is PHONE
        ctx = browser.new_context(viewport=viewport, has_touch=phone, is_mobile=phone)
        page = ctx.new_page()
        page.set_default_timeout(60_000)
        page.goto(seat_link(base, game["id"], "union", game["seats"]["union"]))
        page.wait_for_selector("#board .zone-outline[data-zone=village][data-held-by=union]")
        page.click("#tab-log")
        page.wait_for_selector("#log li[data-kind=sealed_revealed] .narrative")
        page.locator("#log li[data-kind=sealed_revealed]").scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        path = IMAGES / name
        page.screenshot(path=str(path), full_page=False)
        ctx.close()
        out.append(path)
    return out


PHONE = {"width": 390, "height": 844}


def _phone(browser: Any, base: str) -> Path:
    """The zoc move on a phone (390 x 844, touch): tap a counter, then tap two hexes."""
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    page.goto(seat_link(base, game["id"], "axis", game["seats"]["axis"]))
    page.wait_for_selector("body[data-ready=true]")

    def tap(selector: str) -> None:
        box = page.locator(selector).bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    tap("#board .counter[data-unit=de-inf-y]")
    page.wait_for_selector("text.cost")
    for i, hex_id in enumerate(["e3307", "e3308"], start=1):
        tap(f"polygon.hex[data-hex='{hex_id}']")
        _wait_ruling(page, i)
    page.wait_for_timeout(300)
    path = IMAGES / "console-phone.png"
    page.screenshot(path=str(path), full_page=True)
    ctx.close()
    return path


def replay_shots(base: str, browser: Any) -> list[Path]:
    """The soviet player replays axis's move: the board after it with its ruling beside it;
    then a section it cites, open in the rules at hand."""
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    axis = {"Authorization": f"Bearer {game['seats']['axis']}", "If-Match": 'W/"1"'}
    move = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}
    httpx.post(f"{base}/games/{game['id']}/actions", json=move, headers=axis).raise_for_status()
    page = _open(browser, base, game, "soviet")
    page.click("#tab-replay")
    page.wait_for_selector("body[data-replay='2']")
    page.click("#replay-first")
    page.wait_for_selector("body[data-replay='1']")
    page.click("#replay-next")
    page.wait_for_selector("body[data-replay='2']")
    page.wait_for_timeout(300)
    page.screenshot(path=str(IMAGES / "console-replay.png"))
    page.click("#replay-ruling .citations .cite[data-section='8.2.operational']")
    page.wait_for_selector("#rules-section .rules-rulings li")
    page.eval_on_selector("#rules-section", "n => n.scrollIntoView({block: 'start'})")
    return [IMAGES / "console-replay.png", _shot(page, "console-rules.png")]


def _hex_move(
    browser: Any, base: str, where: tuple[str, str, str], unit: str, hexes: list[str]
) -> Any:
    """Open (ruleset, scenario, seat) as that seat, select ``unit`` and click ``hexes``."""
    ruleset, name, seat = where
    page = _open(browser, base, _create(base, ruleset, _scenario(ruleset, name)), seat)
    page.click(f"#unit-list [data-unit={unit}]")
    page.wait_for_selector("text.cost")
    for i, hex_id in enumerate(hexes, start=1):
        page.click(f"polygon.hex[data-hex='{hex_id}']", force=True)
        _wait_ruling(page, i)
    return page


def _shot(page: Any, name: str) -> Path:
    page.wait_for_timeout(300)
    path = IMAGES / name
    page.screenshot(path=str(path))
    page.context.close()
    return path


def big_scenario(cols: int = 50, rows: int = 40, per_side: int = 150) -> dict[str, Any]:
    """A zoc map of cols x rows hexes (2,000 by default) with 2 x per_side units."""
    sc = copy.deepcopy(_scenario("zoc", "seed-example"))
    sc["title"] = f"Benchmark: {cols * rows} hexes, {2 * per_side} units"
    sc["areas"][0]["cols"] = [1, cols]
    sc["areas"][0]["rows"] = [1, rows]
    sc["hexes"] = {}
    sc["hexsides"] = {}
    units = []
    for i in range(per_side):
        col, row = 1 + (i % 15) * 1, 1 + (i // 15) * 4
        units.append(_unit(f"ax-{i}", "axis", "germany", f"e{col:02d}{row:02d}"))
        col = cols - (i % 15)
        units.append(_unit(f"su-{i}", "soviet", "ussr", f"e{col:02d}{row:02d}"))
    sc["units"] = units
    sc["supply"] = {"sources": {"axis": ["e0101"], "soviet": [f"e{cols:02d}{rows:02d}"]}}
    return sc


def _unit(uid: str, side: str, country: str, hex_id: str) -> dict[str, Any]:
    return {
        "id": uid,
        "name": uid,
        "side": side,
        "country": country,
        "type": "infantry",
        "movement_allowance": 4,
        "steps": 2,
        "hex": hex_id,
    }


PROFILES = {
    "desktop": {"viewport": VIEWPORT, "throttle": 1, "touch": False},
    "phone, CPU 4x slower": {"viewport": PHONE, "throttle": 4, "touch": True},
}

# the dry run's own time, as the browser's Resource Timing saw the request (network + server)
_LAST_DRY_RUN = """() => { const e = performance.getEntriesByType('resource')
    .filter(r => r.name.endsWith('/rulings')).at(-1);
    return e ? e.responseEnd - e.startTime : null; }"""


def _open_profiled(browser: Any, base: str, game: dict[str, Any], seat: str, profile: str) -> Any:
    """A page of that size, its CPU slowed by Chromium's CDP throttling before it loads."""
    spec = PROFILES[profile]
    ctx = browser.new_context(
        viewport=spec["viewport"], has_touch=spec["touch"], is_mobile=spec["touch"]
    )
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    if spec["throttle"] != 1:
        cdp = ctx.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": spec["throttle"]})
    page.goto(seat_link(base, game["id"], seat, game["seats"][seat]))
    page.wait_for_selector("body[data-ready=true]")
    return page


def measure(
    base: str,
    browser: Any,
    case: tuple[str, dict[str, Any], str, str],
    clicks: list[Any],
    runs: int,
    profile: str,
) -> dict[str, float]:
    """First render and click-to-ruling of ``clicks`` (hex ids, or (x, y) yards on a table)
    for ``unit`` of the game (ruleset, scenario, seat, unit), ``runs`` fresh page loads."""
    ruleset, scenario, seat, unit = case
    game = _create(base, ruleset, scenario)
    if ruleset == "battlefield":  # from the charge declarations to the movement phase
        httpx.post(
            f"{base}/games/{game['id']}/phase/end",
            headers={"Authorization": f"Bearer {game['seats'][seat]}", "If-Match": 'W/"1"'},
        ).raise_for_status()
    first: list[float] = []
    click: list[float] = []
    server: list[float] = []
    for _ in range(runs):
        page = _open_profiled(browser, base, game, seat, profile)
        first.append(page.evaluate("window.refereePerf.firstRender"))
        page.click(f"#unit-list [data-unit={unit}]")
        page.wait_for_selector(f"#unit-list [data-unit={unit}][aria-selected=true]")
        if ruleset != "battlefield":
            page.wait_for_selector("text.cost")  # the reach of the selection is drawn
        page.wait_for_timeout(300)
        for i, where in enumerate(clicks, start=1):
            if isinstance(where, str):
                page.click(f"polygon.hex[data-hex='{where}']", force=True)
            else:
                _click_yards(page, *where)
            _wait_ruling(page, i)
            server.append(page.evaluate(_LAST_DRY_RUN))
        click.extend(page.evaluate("window.refereePerf.rulings"))
        page.context.close()
    return {
        "first_render_ms": statistics.median(first),
        "click_to_ruling_ms": statistics.median(click),
        "dry_run_ms": statistics.median(server),
        "client_ms": statistics.median(c - d for c, d in zip(click, server, strict=True)),
        "runs": runs,
    }


def perf(base: str, browser: Any, runs: int) -> None:
    cases: list[tuple[str, tuple[str, dict[str, Any], str, str], list[Any]]] = [
        (
            "zoc seed example (56 hexes, 5 units)",
            ("zoc", _scenario("zoc", "seed-example"), "axis", "de-inf-1"),
            ["e3207", "e3307"],
        ),
        (
            "generated zoc map (2,000 hexes, 300 units)",
            ("zoc", big_scenario(), "axis", "ax-0"),
            ["e0102", "e0103"],
        ),
        (
            "battlefield: Miller's Crossing (shipped battle), move over the bridge",
            ("battlefield", _scenario("battlefield", "millers-crossing"), "union", "us-1"),
            [(742, 360), (760, 420)],
        ),
    ]
    print(
        "| board | screen | first render (median ms) | click to ruling (median ms) "
        "| of which the dry run's request | of which the page |"
    )
    print("|---|---|---|---|---|---|")
    for title, case, clicks in cases:
        for profile in PROFILES:
            m = measure(base, browser, case, clicks, runs, profile)
            print(
                f"| {title} | {profile} | {m['first_render_ms']:.0f} "
                f"| {m['click_to_ruling_ms']:.0f} | {m['dry_run_ms']:.0f} "
                f"| {m['client_ms']:.0f} |",
                flush=True,
            )


def _kind(method: str, url: str) -> str:
    """A request as ``METHOD /games/{id}/...`` with ids and seqs folded."""
    path = url.split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0]
    parts = ["{id}" if len(p) == 36 and p.count("-") == 4 else p for p in path.split("/")]
    parts = ["{n}" if p.isdigit() else p for p in parts]
    return f"{method} /" + "/".join(parts)


def session(base: str, browser: Any, idle_seconds: float = 60.0) -> dict[str, Any]:
    """The requests a match's two open consoles send (issue 28, docs/OPERATIONS.md sizing):
    both seats open the zoc seed example; axis selects a unit, builds a two-hex move by
    clicking (a dry run per hex), submits it and ends the phase; then both pages sit open for
    ``idle_seconds``. Every request either page sends is counted by kind."""
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    seen: dict[str, list[str]] = {"open": [], "move": [], "idle": []}
    stage = ["open"]

    def record(request: Any) -> None:
        if request.url.startswith(base) and "/console/static/" not in request.url:
            seen[stage[0]].append(_kind(request.method, request.url))

    pages = []
    for seat in ("axis", "soviet"):
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(60_000)
        page.on("request", record)
        page.goto(seat_link(base, game["id"], seat, game["seats"][seat]))
        page.wait_for_selector("body[data-ready=true][data-stream=live]")
        pages.append(page)
    axis, soviet = pages
    stage[0] = "move"
    axis.click("#unit-list [data-unit=de-inf-1]")
    axis.wait_for_selector("text.cost[data-reach=e3307]")
    for i, hex_id in enumerate(["e3207", "e3307"], start=1):
        axis.click(f"polygon.hex[data-hex='{hex_id}']", force=True)
        _wait_ruling(axis, i)
    axis.click("#submit-move")
    axis.wait_for_selector("#notice.ok")
    soviet.wait_for_selector(".counter[data-unit=de-inf-1][data-at=e3307]")
    axis.click("#end-phase")
    soviet.wait_for_function("document.querySelector('#position').innerText.includes('v3')")
    axis.wait_for_timeout(1000)
    stage[0] = "idle"
    axis.wait_for_timeout(idle_seconds * 1000)
    for page in pages:
        page.context.close()
    return {k: {kind: v.count(kind) for kind in sorted(set(v))} for k, v in seen.items()}


def print_session(counts: dict[str, Any], idle_seconds: float) -> None:
    for stage, kinds in counts.items():
        total = sum(kinds.values())
        print(f"{stage}: {total} requests" + (f" in {idle_seconds:g} s" if stage == "idle" else ""))
        for kind, n in kinds.items():
            print(f"  {n:4d}  {kind}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/console.py")
    parser.add_argument(
        "what", choices=["screenshots", "orders", "assault-screenshots", "perf", "session"]
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle", type=float, default=60.0, help="session: idle seconds")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as tmp,
        served_sqlite(Path(tmp)) as server,
        chromium() as browser,
    ):
        if args.what in ("screenshots", "orders", "assault-screenshots"):
            shots = {
                "screenshots": screenshots,
                "orders": order_shots,
                "assault-screenshots": assault_shots,
            }[args.what]
            for path in shots(server.url, browser):
                print(path.relative_to(ROOT))
        elif args.what == "session":
            print_session(session(server.url, browser, args.idle), args.idle)
        else:
            perf(server.url, browser, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
