"""The console in headless Chromium over the real server: screenshots and in-browser timings.

``python bench/console.py screenshots`` writes one image of each ruleset's board to
``docs/images/``, and one of a move tapped on a phone-size screen (``make screenshots``).
``python bench/console.py perf`` measures, with the browser's Performance API, the time to
first render (navigation start to the board, units and overlays drawn) and from a click on a
hex to the dry-run ruling on screen, for the zoc seed example and for a generated 2,000-hex
map with 300 units (``make bench-console``). ``python bench/console.py session`` counts the
requests a match's two open consoles send for a move and while idle (docs/OPERATIONS.md,
sizing). Figures go to docs/PERFORMANCE.md by hand;
nothing here is asserted in tests.
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


def measure(
    base: str, browser: Any, scenario: dict[str, Any], unit: str, hexes: list[str], runs: int
) -> dict[str, float]:
    game = _create(base, "zoc", scenario)
    first: list[float] = []
    click: list[float] = []
    for _ in range(runs):
        page = _open(browser, base, game, "axis")
        first.append(page.evaluate("window.refereePerf.firstRender"))
        page.click(f"#unit-list [data-unit={unit}]")
        page.wait_for_selector("text.cost")
        for i, hex_id in enumerate(hexes, start=1):
            page.click(f"polygon.hex[data-hex='{hex_id}']", force=True)
            _wait_ruling(page, i)
        click.extend(page.evaluate("window.refereePerf.rulings"))
        page.context.close()
    return {
        "first_render_ms": statistics.median(first),
        "click_to_ruling_ms": statistics.median(click),
        "runs": runs,
    }


def perf(base: str, browser: Any, runs: int) -> None:
    seed = measure(
        base, browser, _scenario("zoc", "seed-example"), "de-inf-1", ["e3207", "e3307"], runs
    )
    big = measure(base, browser, big_scenario(), "ax-0", ["e0102", "e0103"], runs)
    print("| board | first render (median ms) | click to ruling (median ms) |")
    print("|---|---|---|")
    print(
        f"| zoc seed example (56 hexes, 5 units) | {seed['first_render_ms']:.0f} "
        f"| {seed['click_to_ruling_ms']:.0f} |"
    )
    print(
        f"| generated zoc map (2,000 hexes, 300 units) | {big['first_render_ms']:.0f} "
        f"| {big['click_to_ruling_ms']:.0f} |"
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
    parser.add_argument("what", choices=["screenshots", "perf", "session"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle", type=float, default=60.0, help="session: idle seconds")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as tmp,
        served_sqlite(Path(tmp)) as server,
        chromium() as browser,
    ):
        if args.what == "screenshots":
            for path in screenshots(server.url, browser):
                print(path.relative_to(ROOT))
        elif args.what == "session":
            print_session(session(server.url, browser, args.idle), args.idle)
        else:
            perf(server.url, browser, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
