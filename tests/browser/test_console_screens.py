"""The console on every screen, and the defects a new user found (issue 23 item 5).

Phones (390 x 844 and 360 x 740, touch) and desktops: the board has a size and shows the
counters, a unit is selected and a path extended by tapping, the board pans by dragging a
finger, pinches and zooms with its buttons, and the lobby never scrolls sideways. Then one
test per defect: hidden parts are hidden and unfocusable, no literal ``null``, readable
interpretations, 422 field locations, Submit only for a legal move, focus kept where the work
is, wording, the selected counter on top, the Path box validated on a table, readable table
labels, and nothing stale judged after a submit from *Other actions*.

Everything is done as a person does it: taps (CDP touch events), clicks and keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import seat_link
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 740}
NO_SIDEWAYS_SCROLL = "document.scrollingElement.scrollWidth <= window.innerWidth"
IN_GAME = "(a => a.closest('#game') ? a.id || a.tagName : null)(document.activeElement)"
FOCUSED = "(a => a.dataset.unit || a.id || a.tagName)(document.activeElement)"
VIEWBOX = "document.querySelector('#board svg').getAttribute('viewBox').split(' ').map(Number)"


def _scenario(ruleset: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "scenarios" / ruleset / f"{name}.json").read_text())
    return data


def _create(base: str, ruleset: str, scenario: dict[str, Any], **extra: Any) -> dict[str, Any]:
    r = httpx.post(f"{base}/games", json={"ruleset": ruleset, "scenario": scenario, **extra})
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    return game


@pytest.fixture
def screen(browser: Any) -> Iterator[Any]:
    """``screen(viewport, touch=False)``: a page in a fresh context of that size; with
    ``touch``, a phone (touch events, mobile viewport)."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int], *, touch: bool = False) -> Any:
        ctx = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def _open(page: Any, base: str, game: dict[str, Any], seat: str) -> Any:
    page.goto(seat_link(base, game["id"], seat, game["seats"][seat]))
    page.wait_for_selector("body[data-ready=true][data-stream=live]")
    return page


def _centre(page: Any, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _touch(cdp: Any, kind: str, points: list[tuple[float, float]]) -> None:
    cdp.send(
        "Input.dispatchTouchEvent",
        {
            "type": kind,
            "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)],
        },
    )


def _ruled_path(page: Any, path: list[str]) -> None:
    page.wait_for_function(
        "want => document.body.dataset.rulingFor && "
        "JSON.parse(document.body.dataset.rulingFor).path.join(' ') === want",
        arg=" ".join(path),
    )


# -- phones ------------------------------------------------------------------------------------


def test_on_a_phone_the_board_is_visible_and_a_move_is_built_by_tapping(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    page = _open(screen(PHONE, touch=True), base, game, "axis")
    board = page.locator("#board svg").bounding_box()
    assert board["width"] >= 300 and board["height"] >= 250, board
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    # the counters are on the board, inside it, and the panel is below the board
    counters = page.locator("#board .counter")
    assert counters.count() == 5
    for i in range(counters.count()):
        c = counters.nth(i).bounding_box()
        assert c["width"] > 0 and board["x"] <= c["x"] <= board["x"] + board["width"], c
        assert board["y"] <= c["y"] <= board["y"] + board["height"], c
    assert page.locator(".panel").bounding_box()["y"] >= board["y"] + board["height"]

    # tap a counter: it is selected; tap a hex: the path grows and is ruled
    page.touchscreen.tap(*_centre(page, "#board .counter[data-unit=de-inf-y]"))
    page.wait_for_selector("#unit-list [data-unit=de-inf-y][aria-selected=true]")
    page.wait_for_selector("text.cost[data-reach=e3307]")
    page.touchscreen.tap(*_centre(page, "polygon.hex[data-hex=e3307]"))
    _ruled_path(page, ["e3307"])
    assert page.input_value("#path-input") == "e3307"
    page.touchscreen.tap(*_centre(page, "polygon.hex[data-hex=e3308]"))
    _ruled_path(page, ["e3307", "e3308"])

    # a finger drags the map (no tap: the path stays), two fingers pinch it, + and - zoom it
    cdp = page.context.new_cdp_session(page)
    before = page.evaluate(VIEWBOX)
    x, y = board["x"] + board["width"] / 2, board["y"] + board["height"] / 2
    _touch(cdp, "touchStart", [(x, y)])
    for step in range(1, 6):
        _touch(cdp, "touchMove", [(x - 12 * step, y - 8 * step)])
    _touch(cdp, "touchEnd", [])
    panned = page.evaluate(VIEWBOX)
    assert panned[0] > before[0] and panned[1] > before[1] and panned[2] == before[2]
    assert page.input_value("#path-input") == "e3307 e3308"
    _touch(cdp, "touchStart", [(x - 20, y), (x + 20, y)])
    for step in range(1, 6):
        _touch(cdp, "touchMove", [(x - 20 - 15 * step, y), (x + 20 + 15 * step, y)])
    _touch(cdp, "touchEnd", [])
    pinched = page.evaluate(VIEWBOX)
    assert pinched[2] < panned[2] * 0.6, (panned, pinched)
    page.touchscreen.tap(*_centre(page, "#zoom-out"))
    assert page.evaluate(VIEWBOX)[2] > pinched[2]
    page.touchscreen.tap(*_centre(page, "#zoom-reset"))
    assert page.evaluate(VIEWBOX) == before
    assert page.errors == []


def test_the_lobby_and_a_table_fit_a_small_phone_without_sideways_scroll(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    for viewport in (SMALL_PHONE, PHONE):
        page = screen(viewport, touch=True)
        page.goto(f"{base}/")
        page.wait_for_selector("#scenario-select option", state="attached")
        assert page.evaluate(NO_SIDEWAYS_SCROLL), viewport
        # the created game's tokens and links fit too (the table scrolls inside its box)
        page.select_option("#scenario-select", "shipped:zoc:seed-example")
        page.touchscreen.tap(*_centre(page, "#create-btn"))
        page.wait_for_selector("#created tr[data-seat=axis] input.invite-url")
        assert page.evaluate(NO_SIDEWAYS_SCROLL), viewport
        assert page.errors == []
    # the terrain table on the small phone: a board with its counters, tap to select
    game = _create(base, "terrain", _scenario("terrain", "example"))
    page = _open(screen(SMALL_PHONE, touch=True), base, game, "french")
    board = page.locator("#board svg").bounding_box()
    assert board["width"] >= 300 and board["height"] >= 200, board
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.touchscreen.tap(*_centre(page, "#board .counter[data-unit=br-inf]"))
    page.wait_for_selector("#unit-list [data-unit=br-inf][aria-selected=true]")
    assert page.errors == []


# -- the defects ---------------------------------------------------------------------------------


def test_the_lobby_hides_the_game_and_the_keyboard_never_reaches_it(
    screen: Any, console_server: ServerProcess
) -> None:
    page = screen({"width": 1300, "height": 850})
    page.goto(f"{console_server.url}/")
    page.wait_for_selector("#scenario-select option", state="attached")
    for part in ("#game", "#board", "#end-phase", "#takeback", "#submit-move", "#zoom-in"):
        assert page.locator(part).is_hidden(), part
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        reached.append(page.evaluate(IN_GAME))
    assert [r for r in reached if r] == []
    assert page.errors == []


def test_the_umpire_tab_prints_no_null(screen: Any, console_server: ServerProcess) -> None:
    base = console_server.url
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))  # no physical dice
    page = _open(screen({"width": 1300, "height": 850}), base, game, "umpire")
    page.click("#tab-umpire")
    page.wait_for_selector("#reissue-btn")
    text = page.inner_text("#pane-umpire")
    assert "Advance phase" in text and "null" not in text
    assert "Physical dice" not in text
    assert page.errors == []


def test_an_interpretation_without_a_game_option_says_so(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    mud = {**_scenario("zoc", "seed-example"), "weather": {"south": "mud"}}
    page = _open(screen({"width": 1300, "height": 850}), base, _create(base, "zoc", mud), "axis")
    page.click("#unit-list [data-unit=de-inf-1]")
    page.click("#path-input")
    page.keyboard.type("e3207 e3307")
    page.keyboard.press("Tab")
    _ruled_path(page, ["e3207", "e3307"])
    item = page.locator("#ruling li[data-interpretation='zoc.weather-by-zone']")
    text = item.inner_text()
    assert "no per-game option selects it" in text
    assert "null" not in text and "(no option)" not in text
    assert "Zones are scenario data" in text  # the other reading, from GET /rulesets/zoc
    assert page.errors == []


def test_a_refused_scenario_names_each_field_with_its_location(
    screen: Any, console_server: ServerProcess
) -> None:
    page = screen({"width": 1300, "height": 850})
    page.goto(f"{console_server.url}/")
    page.wait_for_selector("#scenario-select option", state="attached")
    page.click("#create-title + label + details summary")
    page.select_option("#paste-ruleset", "terrain")
    page.fill("#paste-json", '{"title": "no table"}')
    page.click("#create-btn")
    page.wait_for_selector("#notice.error")
    notice = page.inner_text("#notice")
    assert "/scenario/table: Field required" in notice
    assert "/scenario/sides: Field required" in notice
    assert page.errors == []


def test_submit_is_disabled_while_the_dry_run_says_illegal(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    page = _open(screen({"width": 1300, "height": 850}), base, game, "axis")
    page.click("#unit-list [data-unit=de-inf-1]")
    page.wait_for_selector("text.cost[data-reach=e3307]")
    for i, hex_id in enumerate(["e3207", "e3307", "e3407"], start=1):
        page.click(f"polygon.hex[data-hex={hex_id}]", force=True)
        _ruled_path(page, ["e3207", "e3307", "e3407"][:i])
        legal = page.get_attribute("#ruling .verdict", "data-legal")
        assert page.is_disabled("#submit-move") == (legal != "true"), (hex_id, legal)
    assert legal == "false"  # de-inf-1 must stop in e3307
    # taking the last hex back makes it legal again, and Submit comes back
    page.click("polygon.hex[data-hex=e3407]", force=True)
    _ruled_path(page, ["e3207", "e3307"])
    assert page.is_enabled("#submit-move")
    assert page.errors == []


def test_the_focus_stays_on_the_counter_selected_and_comes_back_after_submit(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    page = _open(screen({"width": 1300, "height": 850}), base, game, "axis")
    focused = FOCUSED
    page.focus("#board .counter[data-unit=de-inf-y]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#unit-list [data-unit=de-inf-y][aria-selected=true]")
    page.wait_for_selector("text.cost[data-reach=e3307]")
    assert page.evaluate(focused) == "de-inf-y"
    assert page.evaluate("document.activeElement.closest('#board') !== null")
    # from the unit list too
    page.keyboard.press("Escape")
    page.wait_for_selector("#unit-list [data-unit=de-inf-y][aria-selected=false]")
    page.focus("#unit-list [data-unit=de-inf-2]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#unit-list [data-unit=de-inf-2][aria-selected=true]")
    assert page.evaluate(focused) == "de-inf-2"
    page.focus("#path-input")
    page.keyboard.type("e3207 e3307")
    page.keyboard.press("Tab")
    _ruled_path(page, ["e3207", "e3307"])
    page.focus("#submit-move")
    page.keyboard.press("Enter")
    page.wait_for_selector("#notice.ok")
    page.wait_for_selector("#board .counter[data-unit=de-inf-2][data-at=e3307]")
    page.wait_for_function(f"({focused}) === 'de-inf-2'")
    assert page.evaluate("document.activeElement.closest('#board') !== null")
    assert page.errors == []


def test_wording_phases_who_acts_and_code_in_form_help(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    page = _open(screen({"width": 1300, "height": 850}), base, game, "axis")
    position = page.inner_text("#position")
    assert "phasing: axis; only axis acts" in position and "(phasing)" not in position
    # form help: ``path`` is shown as code, never with its backticks
    page.click("#other-actions summary")
    page.select_option("#action-kind", "move")
    hint = page.locator("#action-form .hint")
    assert "``" not in hint.inner_text()
    assert hint.locator("code").all_inner_texts() == ["path"]
    # a phase whose title ends in "Phase" is not the "… Phase phase"
    page.click("#end-phase")
    page.wait_for_selector("#notice.ok")
    notice = page.inner_text("#notice")
    assert "ended the Operational Movement Phase (turn 1, axis)" in notice, notice
    assert "Phase phase" not in notice
    page.click("#tab-log")
    page.wait_for_selector("#log li[data-kind=phase]")
    assert "Phase phase" not in page.inner_text("#log")
    assert page.errors == []


def test_the_selected_counter_is_drawn_above_its_stack_mate(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "zoc", _scenario("zoc", "seed-example"))
    page = _open(screen({"width": 1300, "height": 850}), base, game, "axis")
    top = "([x, y]) => document.elementFromPoint(x, y).closest('.counter').dataset.unit"
    stack = page.eval_on_selector_all(
        "#board .counter[data-at=e3107]", "ns => ns.map(n => n.dataset.unit)"
    )
    assert len(stack) == 2
    under = stack[0]  # drawn first: its stack-mate covers part of it
    # a point of the lower counter that the upper one covers
    a = page.locator(f"#board .counter[data-unit={under}] rect").bounding_box()
    b = page.locator(f"#board .counter[data-unit={stack[1]}] rect").bounding_box()
    overlap = (
        (max(a["x"], b["x"]) + min(a["x"] + a["width"], b["x"] + b["width"])) / 2,
        (max(a["y"], b["y"]) + min(a["y"] + a["height"], b["y"] + b["height"])) / 2,
    )
    assert page.evaluate(top, overlap) == stack[1]
    page.click(f"#unit-list [data-unit={under}]")
    page.wait_for_selector(f"#board .counter.selected[data-unit={under}]")
    assert page.evaluate(top, overlap) == under
    assert page.errors == []


def test_the_path_box_on_a_table_explains_what_to_type(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "terrain", _scenario("terrain", "example"))
    page = _open(screen({"width": 1300, "height": 850}), base, game, "french")
    page.click("#unit-list [data-unit=fr-inf]")
    page.wait_for_selector("#unit-list [data-unit=fr-inf][aria-selected=true]")
    page.click("#path-input")
    page.keyboard.type("5")
    page.keyboard.press("Tab")
    error = page.locator("#ruling .path-error")
    error.wait_for()
    assert "“5” is not a point" in error.inner_text()
    assert "x,y" in error.inner_text()
    assert page.get_attribute("#path-input", "aria-invalid") == "true"
    assert page.is_disabled("#submit-move")
    # a good path is ruled as before
    page.fill("#path-input", "450,180")
    page.keyboard.press("Tab")
    page.wait_for_selector("#ruling .yards")
    assert page.locator("#ruling .path-error").count() == 0
    assert page.errors == []


@pytest.mark.parametrize(
    ("ruleset", "name", "seat"),
    [("terrain", "example", "french"), ("battlefield", "millers-crossing", "union")],
)
def test_table_counter_labels_are_readable_and_the_units_that_may_act_are_marked(
    screen: Any, console_server: ServerProcess, ruleset: str, name: str, seat: str
) -> None:
    base = console_server.url
    game = _create(base, ruleset, _scenario(ruleset, name))
    page = _open(screen({"width": 1300, "height": 850}), base, game, seat)
    heights = page.eval_on_selector_all(
        "#board .counter text", "ns => ns.map(n => n.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 11, heights
    # GET /games/{id}/actions/available lists the units for these rulesets: marked ▸
    available = httpx.get(
        f"{base}/games/{game['id']}/actions/available",
        headers={"Authorization": f"Bearer {game['seats'][seat]}"},
    ).json()
    may = {u["unit"] for u in available["units"]}
    assert may
    marked = set(
        page.eval_on_selector_all(
            "#unit-list .unit-btn.can-act", "ns => ns.map(n => n.dataset.unit)"
        )
    )
    assert marked == may
    assert "does not list the units" not in page.inner_text("#available")
    assert page.errors == []


def test_after_a_submit_from_other_actions_nothing_stale_is_judged(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "zoi", _scenario("zoi", "example"))
    page = _open(screen({"width": 1300, "height": 850}), base, game, "french")
    page.click("#unit-list [data-unit=fr-4-2]")
    page.wait_for_selector("text.cost")
    page.click("polygon.hex[data-hex='0607']", force=True)
    _ruled_path(page, ["0607"])
    # the same move through Other actions: the form took the unit and the clicked path
    page.click("#other-actions summary")
    page.select_option("#action-kind", "move")
    assert page.input_value("#act-move-unit") == "fr-4-2"
    page.click("#action-submit")
    page.wait_for_selector("#notice.ok")
    page.wait_for_selector("#log li[data-kind=move]", state="attached")
    page.wait_for_selector("#board .counter[data-unit=fr-4-2][data-at='0607']")
    page.wait_for_timeout(500)  # the live event's refresh has run
    verdicts = page.eval_on_selector_all("#ruling .verdict", "ns => ns.map(n => n.dataset.legal)")
    assert verdicts == ["true"], page.inner_text("#ruling")
    assert page.input_value("#path-input") == ""
    assert page.locator("#unit-list .unit-btn[aria-selected=true]").count() == 0
    assert page.errors == []
