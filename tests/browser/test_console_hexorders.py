"""Orders by pointing for ``zoi``, ``zoc`` and ``terrain``, and the ruling told in words
(issue 23 items 1, 2 and 6).

Real server, real Chromium, two pages where two players play. Everything is done by pointing:
clicks or taps on counters, hexes, the table and buttons, arrow keys on the facing dial, a
choice from a menu. No JSON is typed and no API call is made from the page; the API is called
from Python only to create a game, as the lobby does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import click_yards as _click_yards
from tests.support.chromium import end_phase as _end_phase
from tests.support.chromium import point as _point
from tests.support.chromium import seat_link
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = {"width": 1400, "height": 860}
PHONE = {"width": 390, "height": 844}


def _scenario(ruleset: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "scenarios" / ruleset / f"{name}.json").read_text())
    return data


def _create(base: str, ruleset: str, name: str) -> dict[str, Any]:
    r = httpx.post(f"{base}/games", json={"ruleset": ruleset, "scenario": _scenario(ruleset, name)})
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    return game


@pytest.fixture
def screen(browser: Any) -> Iterator[Any]:
    contexts: list[Any] = []

    def make(viewport: dict[str, int]) -> Any:
        touch = viewport["width"] < 600
        ctx = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(20_000)  # two pages and a server on a shared CI machine
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


def _hex(page: Any, hex_id: str) -> None:
    _point(page, f"polygon.hex[data-hex='{hex_id}']")


def _ruled(page: Any, action: dict[str, Any]) -> dict[str, Any]:
    """Wait until the dry run on screen is the one of ``action``; returns the verdict shown."""
    page.wait_for_function(
        "want => document.body.dataset.rulingFor === want && "
        "document.querySelector('#ruling .verdict')",
        arg=json.dumps(action, separators=(",", ":")),
    )
    legal = page.get_attribute("#ruling .verdict", "data-legal")
    return {"legal": legal == "true", "text": page.inner_text("#ruling")}


def _narrative_cites(page: Any) -> list[str]:
    cited: list[str] = page.eval_on_selector_all(
        "#ruling .narrative .cite", "ns => ns.map(n => n.dataset.section)"
    )
    return cited


def _submit(page: Any) -> None:
    page.wait_for_selector("#submit-move:not([disabled])")
    _point(page, "#submit-move")
    page.wait_for_selector("body[data-submitting=false]")
    page.wait_for_selector("#notice.ok")


# -- zoi --------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1400px", "390px"])
def test_a_zoi_turn_with_a_facing_change_and_a_melee_retreat_between_two_pages(
    screen: Any, console_server: ServerProcess, size: dict[str, int]
) -> None:
    base = console_server.url
    game = _create(base, "zoi", "example")
    french = _open(screen(size), base, game, "french")
    austrian = _open(screen(size), base, game, "austrian")

    # the French column: offered a move; it turns with the facing dial (arrow key), then walks
    _point(french, "#unit-list [data-unit=fr-4-2]")
    french.wait_for_selector("#orders [data-order-kind=move][aria-pressed=true]")
    assert french.get_attribute("#orders .dial-dir[data-facing='0']", "aria-checked") == "true"
    french.focus("#orders .dial-dir[data-facing='0']")
    french.keyboard.press("ArrowRight")
    turn = {"kind": "move", "unit": "fr-4-2", "steps": [{"do": "face", "facing": 1}]}
    assert _ruled(french, turn)["legal"]
    # the focus stays on the dial, on the facing now chosen
    assert french.evaluate("document.activeElement.dataset.facing") == "1"
    assert "turns to face NE" in french.inner_text("#ruling .narrative")
    # a formation from the menu (the infantry rows of the facing table), then taken back
    formations = french.eval_on_selector_all(
        "#order-formation option", "ns => ns.map(n => n.value)"
    )
    assert {"column", "line", "carre", "skirmish"} <= set(formations)
    french.select_option("#order-formation", "line")
    in_line = {
        "kind": "move",
        "unit": "fr-4-2",
        "steps": [{"do": "face", "facing": 1}, {"do": "formation", "formation": "line"}],
    }
    ruled = _ruled(french, in_line)
    assert ruled["legal"], ruled["text"]
    assert "turns to face NE and forms line" in french.inner_text("#ruling .narrative")
    # in line the unit faces a vertex: the dial says so
    assert "vertex" in french.get_attribute("#orders .facing-dial", "aria-label")
    _point(french, "#order-undo")
    assert _ruled(french, turn)["legal"]
    for hex_id in ("0607", "0606", "0605"):
        _hex(french, hex_id)
    walk = {
        "kind": "move",
        "unit": "fr-4-2",
        "steps": [
            {"do": "face", "facing": 1},
            {"do": "enter", "hex": "0607"},
            {"do": "enter", "hex": "0606"},
            {"do": "enter", "hex": "0605"},
        ],
    }
    ruled = _ruled(french, walk)
    assert ruled["legal"], ruled["text"]
    story = french.inner_text("#ruling .narrative")
    assert "It spends 4 MP, 2 left, and ends in 0605 in column facing NE." in story
    assert "fr-4-2 must stop in 0605: it entered the zone of aus-ir49." in story
    assert "14.stop.infantry-artillery" in _narrative_cites(french)
    assert french.locator("#orders .order-steps li").all_inner_texts() == [
        "face NE",
        "enter 0607",
        "enter 0606",
        "enter 0605",
    ]
    _submit(french)
    # the other page sees the column arrive, facing hexside 1
    austrian.wait_for_selector("#board .counter[data-unit=fr-4-2][data-at='0605']")
    assert "facing 1" in austrian.get_attribute("#board .counter[data-unit=fr-4-2]", "aria-label")
    # what was clicked is not judged again once the live event has refreshed the page
    french.wait_for_timeout(600)
    verdicts = french.eval_on_selector_all("#ruling .verdict", "ns => ns.map(n => n.dataset.legal)")
    assert verdicts == ["true"], french.inner_text("#ruling")
    assert french.input_value("#path-input") == ""

    # to the melee: each side ends the phase it acts in
    _end_phase(french, "Defensive fire")
    _end_phase(austrian, "Offensive fire")
    _end_phase(french, "Melee")

    # the Austrian line is driven out: the melee result from a menu, the retreat hex clicked
    austrian.wait_for_selector("#board .counter[data-unit=fr-4-2][data-at='0605']")
    # as a person does: wait until this page shows the melee and offers the unit an order
    austrian.wait_for_function("document.querySelector('#position').textContent.includes('Melee')")
    austrian.wait_for_selector("#unit-list [data-unit=aus-ir49].can-act")
    _point(austrian, "#unit-list [data-unit=aus-ir49]")
    austrian.wait_for_selector("#orders [data-order-kind=melee_retreat][aria-pressed=true]")
    assert austrian.locator("#orders [data-order-kind]").count() == 1  # nothing else offered
    austrian.select_option("#order-result", "R1L1")
    _hex(austrian, "0504")
    retreat = {"kind": "melee_retreat", "unit": "aus-ir49", "path": ["0504"], "result": "R1L1"}
    ruled = _ruled(austrian, retreat)
    assert ruled["legal"], ruled["text"]
    story = austrian.inner_text("#ruling .narrative")
    assert "aus-ir49 goes from 6 to 4 increments (1 for enemy zones, 1 for the result)" in story
    assert {"14.melee-retreat", "14.melee-matrix"} <= set(_narrative_cites(austrian))
    # the losses on the board: one where it stands after the retreat, one on the hex it left
    marks = austrian.eval_on_selector_all(
        "#board .loss-mark",
        "ns => ns.map(n => [n.dataset.hex, n.querySelector('text').textContent])",
    )
    minus = "\N{MINUS SIGN}"
    assert sorted(marks) == [["0504", f"{minus}2"], ["0604", f"{minus}1"]], marks
    _submit(austrian)
    french.wait_for_selector("#board .counter[data-unit=aus-ir49][data-at='0504']")
    assert "4 increments" in french.get_attribute(
        "#board .counter[data-unit=aus-ir49]", "aria-label"
    )
    austrian.wait_for_timeout(600)
    verdicts = austrian.eval_on_selector_all(
        "#ruling .verdict", "ns => ns.map(n => n.dataset.legal)"
    )
    assert verdicts == ["true"], austrian.inner_text("#ruling")
    assert french.errors == [] and austrian.errors == []


# -- zoc ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1400px", "390px"])
def test_a_zoc_turn_with_a_retreat_and_a_supply_trace(
    screen: Any, console_server: ServerProcess, size: dict[str, int]
) -> None:
    base = console_server.url
    game = _create(base, "zoc", "seed-example")
    axis = _open(screen(size), base, game, "axis")
    assert axis.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")

    # a supply line traced hex by hex on the map, as offered to the unit
    _point(axis, "#unit-list [data-unit=de-inf-y]")
    axis.wait_for_selector("#orders [data-order-kind=trace_supply]")
    offered = axis.eval_on_selector_all(
        "#orders [data-order-kind]", "ns => ns.map(n => n.dataset.orderKind)"
    )
    assert offered == ["move", "trace_supply"]
    # a move onto the enemy stack offers to overrun it (not submitted here)
    _hex(axis, "e3306")
    assert _ruled(axis, {"kind": "move", "unit": "de-inf-y", "path": ["e3306"]})["legal"] is False
    _point(axis, "#orders [data-overrun=su-18a]")
    overrun = {"kind": "move", "unit": "de-inf-y", "path": ["e3306"], "overrun": "su-18a"}
    ruled = _ruled(axis, overrun)
    assert ruled["legal"], ruled["text"]
    story = axis.inner_text("#ruling .narrative")
    assert "through e3306, overrunning su-18a. It spends 1 of 4 MP." in story
    axis.wait_for_selector("#board polygon.reach", state="attached")
    _point(axis, "#orders [data-order-kind=trace_supply]")
    # a supply line is no move: where the unit could move is no longer drawn
    axis.wait_for_selector("#board polygon.reach", state="detached")
    line = ["e3206", "e3105", "e3104", "e3103", "e3003"]
    for hex_id in line:
        _hex(axis, hex_id)
    ruled = _ruled(axis, {"kind": "trace_supply", "unit": "de-inf-y", "path": line})
    assert ruled["legal"], ruled["text"]
    story = axis.inner_text("#ruling .narrative")
    assert "(de-inf-y) traces supply through e3206 → e3105 → e3104 → e3103 → e3003." in story
    line_told = "Supply line e3207 → e3206 → e3105 → e3104 → e3103 → e3003: 5 hexes, from e3003."
    assert line_told in story
    assert "basic.supply" in _narrative_cites(axis)
    _submit(axis)

    # another unit: the referee finds the line
    _point(axis, "#unit-list [data-unit=de-inf-1]")
    _point(axis, "#orders [data-order-kind=trace_supply]")
    _point(axis, "#order-search")
    ruled = _ruled(axis, {"kind": "trace_supply", "unit": "de-inf-1"})
    assert ruled["legal"], ruled["text"]
    assert (
        "Supply line e3107 → e3106 → e3105 → e3104 → e3103 → e3003: 5 of at most 5 hexes"
        in axis.inner_text("#ruling .narrative")
    )

    # combat: a retreat of the length the combat result gives, its hex tapped
    _end_phase(axis, "Combat")
    _point(axis, "#unit-list [data-unit=de-inf-y]")
    axis.wait_for_selector("#orders [data-order-kind=retreat]")
    _point(axis, "#orders [data-order-kind=retreat]")
    axis.select_option("#order-length", "1")
    _hex(axis, "e3206")
    ruled = _ruled(axis, {"kind": "retreat", "unit": "de-inf-y", "path": ["e3206"], "length": 1})
    assert ruled["legal"], ruled["text"]
    story = axis.inner_text("#ruling .narrative")
    assert "(de-inf-y) retreats through e3206 (1 hex by the combat result)." in story
    assert "It ends in e3206." in story
    assert "8.2.retreat" in _narrative_cites(axis)
    _submit(axis)
    axis.wait_for_selector("#board .counter[data-unit=de-inf-y][data-at=e3206]")
    axis.wait_for_timeout(600)
    verdicts = axis.eval_on_selector_all("#ruling .verdict", "ns => ns.map(n => n.dataset.legal)")
    assert verdicts == ["true"], axis.inner_text("#ruling")
    assert axis.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    assert axis.errors == []


# -- terrain -----------------------------------------------------------------------------------


def test_terrain_orders_measured_paths_fire_and_posture_by_pointing(
    screen: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    game = _create(base, "terrain", "example")
    page = _open(screen(DESKTOP), base, game, "british")
    _point(page, "#unit-list [data-unit=br-inf]")
    page.wait_for_selector("#orders [data-order-kind=move][aria-pressed=true]")
    offered = page.eval_on_selector_all(
        "#orders [data-order-kind]", "ns => ns.map(n => n.dataset.orderKind)"
    )
    assert offered == ["move", "charge", "fire", "hold"]
    # a measured move: two points clicked on the table, across the brook at the ford
    _click_yards(page, 600, 480)
    page.wait_for_function("document.body.dataset.rulingFor")
    _click_yards(page, 600, 405)
    page.wait_for_function(
        "JSON.parse(document.body.dataset.rulingFor).path.length === 2 && "
        "document.querySelector('#ruling .narrative')"
    )
    move = json.loads(page.evaluate("document.body.dataset.rulingFor"))
    # the same move asked of the API directly: the page shows the API's yards, per feature
    r = httpx.post(
        f"{base}/games/{game['id']}/rulings",
        json=move,
        headers={"Authorization": f"Bearer {game['seats']['british']}"},
    ).json()
    by_feature = r["details"]["yards_by_feature"]
    assert set(by_feature) == {"ford1", "brook"}, r
    story = page.inner_text("#ruling .narrative")
    assert f"The path measures {r['details']['path_yards']:g} yd" in story
    for fid, yards in by_feature.items():
        assert f"{yards:g} yd in {fid}" in story
    listed = page.eval_on_selector_all(
        "#ruling .yards li[data-feature]", "ns => ns.map(n => [n.dataset.feature, n.textContent])"
    )
    assert sorted(listed) == sorted(
        [fid, f"{fid} ({kind}): {by_feature[fid]:g} yd"]
        for fid, kind in (("ford1", "ford"), ("brook", "stream"))
    )
    # on the table: each feature's yards written where the path runs through it
    drawn = page.eval_on_selector_all("#board .feature-yards", "ns => ns.map(n => n.textContent)")
    assert sorted(drawn) == sorted(
        f"{fid} ({kind}): {by_feature[fid]:g} yd"
        for fid, kind in (("ford1", "ford"), ("brook", "stream"))
    )
    assert page.locator("#board .path-in-feature").count() == 2
    _submit(page)
    page.wait_for_selector("#board .counter[data-unit=br-inf]")

    # fire: the target is the enemy counter clicked
    _point(page, "#orders [data-order-kind=fire]")
    page.click("#board .counter[data-unit=fr-inf]")
    ruled = _ruled(page, {"kind": "fire", "unit": "br-inf", "target": "fr-inf"})
    assert "br-inf fires at fr-inf." in ruled["text"]
    assert page.input_value("#order-target") == "fr-inf"
    # a fire or a posture has no path: the Path box offers no path input nor Clear path
    assert page.is_hidden("#path-input") and page.is_hidden("#path-clear")
    # a posture from two buttons: judged at once
    _point(page, "#orders [data-order-kind=hold]")
    assert page.is_hidden("#path-input") and page.is_hidden("#path-clear")
    assert page.inner_text("#submit-move") == "Submit posture"
    _point(page, "#orders [data-posture=advancing]")
    ruled = _ruled(page, {"kind": "hold", "unit": "br-inf", "posture": "advancing"})
    assert "br-inf is ordered to advance." in ruled["text"]
    assert "ordered to advancing" not in ruled["text"]
    _submit(page)
    _point(page, "#orders [data-order-kind=move]")
    assert page.is_visible("#path-input") and page.is_visible("#path-clear")
    assert page.errors == []


def test_a_battlefield_move_shows_its_yards_per_feature_on_the_table_and_in_the_panel(
    screen: Any, console_server: ServerProcess
) -> None:
    """The shipped battle: us-1 down the pike over the stone bridge and the creek; the yards
    the ruling measured (battlefield gives them under details.terrain) by feature."""
    base = console_server.url
    game = _create(base, "battlefield", "millers-crossing")
    page = _open(screen(DESKTOP), base, game, "union")
    _end_phase(page, "Movement Phase")
    _point(page, "#unit-list [data-unit=us-1]")
    page.wait_for_selector("#unit-list [data-unit=us-1][aria-selected=true]")
    _click_yards(page, 742, 360)
    page.wait_for_function("document.body.dataset.rulingFor")
    _click_yards(page, 760, 420)
    page.wait_for_function(
        "JSON.parse(document.body.dataset.rulingFor).path.length === 2 && "
        "document.querySelector('#ruling .yards')"
    )
    move = json.loads(page.evaluate("document.body.dataset.rulingFor"))
    r = httpx.post(
        f"{base}/games/{game['id']}/rulings",
        json=move,
        headers={"Authorization": f"Bearer {game['seats']['union']}"},
    ).json()
    by_feature = r["details"]["terrain"]["yards_by_feature"]
    assert {"pike", "stone-bridge", "creek"} <= set(by_feature), r
    listed = dict(
        page.eval_on_selector_all(
            "#ruling .yards li[data-feature]",
            "ns => ns.map(n => [n.dataset.feature, n.textContent])",
        )
    )
    assert set(listed) == set(by_feature)
    for fid, yards in by_feature.items():
        assert listed[fid].endswith(f": {yards:g} yd"), listed[fid]
    drawn = dict(
        page.eval_on_selector_all(
            "#board .feature-yards", "ns => ns.map(n => [n.dataset.feature, n.textContent])"
        )
    )
    assert drawn == listed
    path_yards = r["details"]["terrain"]["path_yards"]
    assert page.text_content("#board .path-yards") == f"{path_yards:g} yd"
    assert page.errors == []


def _asked(page: Any, condition: str) -> dict[str, Any]:
    """Wait until the dry run on screen is of a move for which ``condition`` (on ``o``) holds
    and its verdict is shown; returns that move."""
    page.wait_for_function(
        "cond => { const t = document.body.dataset.rulingFor; if (!t) return false;"
        " const o = JSON.parse(t); return new Function('o', `return ${cond}`)(o) &&"
        " Boolean(document.querySelector('#ruling .verdict')); }",
        arg=condition,
    )
    asked: dict[str, Any] = json.loads(page.evaluate("document.body.dataset.rulingFor"))
    return asked


def test_a_battlefield_move_into_a_zone_offers_its_sectors_from_a_menu(
    screen: Any, console_server: ServerProcess
) -> None:
    """BF.Enter: a move that ends in a zone enters it, in a sector the move may name. The Path
    box offers that zone's sectors (its capacity) once the clicked path ends in it; the sector
    picked is part of the move dry-run and submitted. An empty farm is added to the shipped
    battle so that a union unit has a zone to enter in the Movement phase."""
    base = console_server.url
    scenario = _scenario("battlefield", "millers-crossing")
    farm = [[200, 300], [420, 300], [420, 460], [200, 460]]
    scenario["zones"].append({"id": "farm", "name": "Hale's Farm", "class": "C", "polygon": farm})
    scenario["phase"] = "movement"
    r = httpx.post(f"{base}/games", json={"ruleset": "battlefield", "scenario": scenario})
    assert r.status_code == 201, r.text
    game = r.json()
    page = _open(screen(DESKTOP), base, game, "union")
    _point(page, "#unit-list [data-unit=us-sk]")
    page.wait_for_selector("#unit-list [data-unit=us-sk][aria-selected=true]")
    assert page.is_hidden("#path-sector-row")
    _click_yards(page, 300, 380)  # inside the farm
    page.wait_for_selector("#path-sector-row:not([hidden])")
    options = page.locator("#path-sector option").all_inner_texts()
    assert options == [
        "any free sector of Hale's Farm",
        "Hale's Farm, sector 1",
        "Hale's Farm, sector 2",
    ]
    asked = _asked(page, "o.unit === 'us-sk' && o.path.length === 1")
    assert "sector" not in asked and page.get_attribute("#ruling .verdict", "data-legal") == "true"
    page.select_option("#path-sector", "2")
    asked = _asked(page, "o.sector === 2")
    assert asked == {**asked, "kind": "move", "unit": "us-sk", "sector": 2}
    page.wait_for_selector("#ruling .verdict[data-legal=true]")
    _submit(page)
    headers = {"Authorization": f"Bearer {game['seats']['union']}"}
    state = httpx.get(f"{base}/games/{game['id']}", headers=headers).json()["state"]
    entered = next(u for u in state["zones"]["units"] if u["id"] == "us-sk")
    assert (entered["zone"], entered["sector"]) == ("farm", 2)
    # after the submit the menu goes with the path; a path ending outside any zone offers none
    assert page.is_hidden("#path-sector-row")
    _point(page, "#unit-list [data-unit=us-1]")
    _click_yards(page, 742, 330)
    _asked(page, "o.unit === 'us-1' && o.path.length === 1")
    assert page.is_hidden("#path-sector-row")
    assert page.errors == []


def test_end_phase_is_offered_only_while_the_seat_may_end_the_phase(
    screen: Any, console_server: ServerProcess
) -> None:
    """A seat may end only a phase its side may end (actions/available's may_end_phase): once
    the axis has ended its four phases of the turn, the soviet phases are not its to end, and
    the End phase button says so instead of earning a 409 for each press."""
    base = console_server.url
    game = _create(base, "zoc", "seed-example")
    axis = _open(screen(DESKTOP), base, game, "axis")
    for phase in ("Combat", "Exploitation", "Reserve Movement"):
        _end_phase(axis, phase)
    _point(axis, "#end-phase")
    axis.wait_for_function("document.querySelector('#position').textContent.includes('soviet')")
    axis.wait_for_selector("#end-phase[disabled]")
    assert axis.get_attribute("#end-phase", "title") == (
        "Not yours to end: the phase belongs to another side."
    )
    soviet = _open(screen(DESKTOP), base, game, "soviet")
    assert soviet.is_enabled("#end-phase")
    _point(soviet, "#end-phase")
    soviet.wait_for_function("document.querySelector('#position').textContent.includes('v6')")
    assert axis.is_disabled("#end-phase")
    assert axis.errors == [] and soviet.errors == []


def test_the_battlefield_path_box_is_offered_only_when_the_unit_may_move(
    screen: Any, console_server: ServerProcess
) -> None:
    """In the Charge Declaration phase a unit may charge or hold, not move: no Path box with a
    Submit move that could only be refused. In the Movement phase it is there, and it steps
    aside while another order (a posture) is being built with its own Submit."""
    base = console_server.url
    game = _create(base, "battlefield", "millers-crossing")
    page = _open(screen(PHONE), base, game, "union")
    assert "Charge Declaration" in page.inner_text("#position")
    _point(page, "#unit-list [data-unit=us-1]")
    page.wait_for_selector(".order-kind[data-kind=charge]")
    page.wait_for_selector("#path-box", state="hidden")
    _end_phase(page, "Movement Phase")
    _point(page, "#unit-list [data-unit=us-2]")
    page.wait_for_selector("#unit-list [data-unit=us-2][aria-selected=true]")
    page.wait_for_selector("#path-box", state="visible")
    _point(page, ".order-kind[data-kind=hold]")
    page.wait_for_selector("#path-box", state="hidden")
    _point(page, ".order-cancel")
    page.wait_for_selector("#path-box", state="visible")
    assert page.errors == []
