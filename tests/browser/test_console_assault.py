"""Issue 23 items 1, 2 and 6 for `objective-zones` and `battlefield`: a whole assault played by
pointing only, in real Chromium against the real server, at desktop and phone widths.

Nothing is typed into the page: units are picked in the list or on the board, zones clicked on
the board, battalions ticked, sectors chosen from menus (the allocation builder, whose every
state is dry-run by the server), points clicked on the table. The narrative after the reveal
is checked against the dice the server rolled (read from the event log over HTTP by the test).
The umpire's physical dice, in the battlefield battle, are entered in the Umpire tab's dice box
as the console takes them (digits, not JSON).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.chromium import click_yards as _click_yards
from tests.support.chromium import oz_assault, seat_link
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
WIDTHS = {
    "desktop": {"width": 1400, "height": 860},
    "phone": {"width": 390, "height": 844},
    "small-phone": {"width": 360, "height": 740},
}


def _open(browser: Any, base: str, game: dict[str, Any], seat: str, size: str) -> Any:
    phone = size != "desktop"
    ctx = browser.new_context(viewport=WIDTHS[size], has_touch=phone, is_mobile=phone)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(seat_link(base, game["id"], seat, game["seats"][seat]))
    page.wait_for_selector("body[data-ready=true][data-stream=live]")
    return page


def _version(page: Any) -> int:
    text: str = page.inner_text("#position")
    return int(text.rsplit("v", 1)[1])


def _settled(page: Any, base: str, game: dict[str, Any]) -> int:
    """Wait until the page shows the game's current version (read over HTTP); return it."""
    headers = {"Authorization": f"Bearer {game['seats']['umpire']}"}
    version: int = httpx.get(f"{base}/games/{game['id']}", headers=headers).json()["version"]
    page.wait_for_function(
        f"document.getElementById('position').textContent.endsWith('v{version}')"
    )
    return version


def _advance(umpire: Any, times: int, base: str, game: dict[str, Any]) -> None:
    umpire.click("#tab-umpire")
    for _ in range(times):
        before = _settled(umpire, base, game)
        umpire.click("#advance-phase")
        umpire.wait_for_function(
            f"document.getElementById('position').textContent.endsWith('v{before + 1}')"
        )


def _wait_for(page: Any, what: str, condition: str) -> None:
    """Wait until the page has asked for the ruling of an action (``rulingFor``: the Path box's
    move, ``orderFor``: the order being built) for which ``condition`` (on ``o``) holds."""
    try:
        page.wait_for_function(
            f"(() => {{ const t = document.body.dataset.{what}; if (!t) return false;"
            f" const o = JSON.parse(t); return {condition}; }})()"
        )
    except PlaywrightTimeout as exc:  # say what the page shows instead
        seen = page.evaluate(
            f"""() => ({{ asked: document.body.dataset.{what} || null,
            position: document.getElementById('position').textContent,
            armed: [...document.querySelectorAll('.order-kind.armed')].map(b => b.dataset.kind),
            selected: [...document.querySelectorAll('#unit-list [aria-selected=true]')]
              .map(n => n.dataset.unit),
            notice: document.getElementById('notice').textContent }})"""
        )
        raise AssertionError(f"{what} never met {condition}: the page shows {seen}") from exc


def _legal_order(page: Any) -> None:
    """Wait for the dry run of the order being built to say legal, then submit it."""
    page.wait_for_selector("#ruling .verdict[data-legal=true]")
    page.wait_for_selector(".order-submit:not([disabled])")
    before = _version(page)
    page.click(".order-submit")
    page.wait_for_function(
        f"document.getElementById('position').textContent.endsWith('v{before + 1}')"
    )
    page.wait_for_selector("body[data-submitting=false]")


def _seal(page: Any, decision: str, picks: dict[str, str]) -> None:
    """Fill the allocation builder from its menus; seal once the server's check says legal."""
    page.click("#tab-sealed")
    builder = page.locator(f"[data-builder='{decision}']")
    builder.locator("select").first.wait_for()
    for unit, sector in picks.items():
        builder.locator(f"select[data-unit='{unit}']").select_option(sector)
    wanted = {"sectors": {}}  # type: dict[str, dict[str, list[str]]]
    for unit, sector in picks.items():
        if sector:
            wanted["sectors"].setdefault(sector, []).append(unit)
    page.wait_for_function(
        "([d, w]) => { const b = document.querySelector(`[data-builder='${d}']`);"
        " if (!b || b.dataset.checking !== 'false') return false;"
        " const got = JSON.parse(b.dataset.checkedFor || '{}').sectors || {};"
        " const keys = Object.keys(w.sectors);"
        " const same = (k) => JSON.stringify([...(got[k] || [])].sort())"
        "   === JSON.stringify([...w.sectors[k]].sort());"
        " const legal = b.querySelector('.alloc-check .verdict[data-legal=true]');"
        " return Boolean(legal) && keys.length === Object.keys(got).length && keys.every(same); }",
        arg=[decision, wanted],
    )
    builder.locator(".seal-submit:not([disabled])").click()
    page.wait_for_selector("#notice.ok:has-text('Order sealed')")


def _events(base: str, game: dict[str, Any]) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {game['seats']['umpire']}"}
    body = httpx.get(f"{base}/games/{game['id']}/events", headers=headers).json()
    items: list[dict[str, Any]] = body["items"] if isinstance(body, dict) else body
    return items


def _reading(die: int) -> int:
    return 0 if die == 10 else die


@pytest.mark.parametrize("size", ["desktop", "phone", "small-phone"])
def test_an_objective_zones_assault_by_pointing_only(
    browser: Any, console_server: ServerProcess, size: str
) -> None:
    base = console_server.url
    scenario = json.loads((SCENARIOS / "objective-zones" / "example.json").read_text())
    game = httpx.post(
        f"{base}/games", json={"ruleset": "objective-zones", "scenario": scenario}
    ).json()
    union, confed, umpire = (
        _open(browser, base, game, s, size) for s in ("union", "confederate", "umpire")
    )

    # union declares: us-1 picked in the list, the order offered by actions/available, the
    # zone clicked on the board, two more battalions ticked; the dry run runs at every step
    union.click("#unit-list [data-unit=us-1]")
    union.click(".order-kind[data-kind=declare_assault]")
    assert "Click a zone on the board" in union.inner_text(".order-form")
    union.click("[data-zone-pick=mill]")
    union.wait_for_selector("#ruling .verdict[data-legal=true]")
    union.check("[data-field=units] input[value=us-2]")
    union.check("[data-field=units] input[value=us-3]")
    _wait_for(union, "orderFor", "o.units.length === 3")
    _legal_order(union)
    assert "§OZ.Assault.A" in union.inner_text("#ruling")
    assert "Union declares an assault on Hooper's Mill with us-1, us-2, us-3" in union.inner_text(
        "#ruling .narrative"
    )

    _advance(umpire, 4, base, game)
    assert "Objective Combat Resolution" in umpire.inner_text("#position")
    decision = "allocation:mill:t1"
    # the builder shows the limits; an order leaving sector 2 without infantry is refused live
    union.click("#tab-sealed")
    builder = union.locator(f"[data-builder='{decision}']")
    builder.locator("select[data-unit=us-1]").select_option("1")
    union.wait_for_selector(
        f"[data-builder='{decision}'] .alloc-check [data-code='oz.sector_without_infantry']"
    )
    assert builder.locator(".seal-submit").is_disabled()
    assert "At least 1 infantry unit in every sector" in builder.inner_text()
    assert "24 castings" in builder.locator(".alloc-row[data-unit=us-1]").inner_text()
    # the defender's builder starts from the garrison's sectors; its guns go to sector 1
    _seal(confed, decision, {"cs-22va": "1", "cs-36va": "2", "cs-bty": "1"})
    # the defender's seal is a new version on the attacker's page: the builder it is using is
    # kept (same element, its menus and limits), not built again blank while it asks the server
    kept = builder.element_handle()
    union.wait_for_selector(f"[data-decision='{decision}'] .receipts li[data-side=confederate]")
    assert union.evaluate(
        "([b, d]) => b === document.querySelector(`[data-builder='${d}']`)", [kept, decision]
    )
    assert "At least 1 infantry unit in every sector" in builder.inner_text()
    assert builder.locator("select[data-unit=us-1]").input_value() == "1"
    _seal(union, decision, {"us-1": "1", "us-2": "2", "us-bty": "2"})

    reveal = next(e for e in _events(base, game) if e["kind"] == "sealed_revealed")
    sectors = reveal["ruling"]["details"]["sectors"]
    for page in (union, confed, umpire):
        story = page.locator(".zone-card[data-zone=mill] .assault .narrative")
        story.wait_for()
        text = story.inner_text()
        given = sum(s["inflicted_by_attacker"] for s in sectors.values())
        taken = sum(s["inflicted_by_defender"] for s in sectors.values())
        assert f"assault Hooper's Mill in 2 sectors: {given} hit" in text
        assert f"inflicted, {taken} taken" in text
        for s in sectors.values():
            for roll in s["rolls"]:
                if not roll["dice"]:
                    continue
                role = "attacking" if roll["unit"] in s["attackers"] else "defending"
                line = page.locator(
                    f".zone-card[data-zone=mill] .die-line[data-unit='{roll['unit']}']"
                )
                said = line.inner_text()
                assert said.lower().startswith(f"{roll['unit']} ({roll['side']}, {role}, level")
                shown = said.split(" rolled ", 1)[1].split(":")[0]
                assert shown.replace("✓", "").split(", ") == [
                    str(_reading(d)) for d in roll["dice"]
                ]
                assert said.endswith(f"{roll['hits']} hit{'' if roll['hits'] == 1 else 's'}")
        assert story.locator("button.cite[data-section='OZ.Assault.C']").count() >= 1
    # the castings lost are on the counters (chips) of the units still in play
    losses = reveal["ruling"]["details"]["losses"]
    alive = [u for u in losses if u not in reveal["ruling"]["details"]["removed"]]
    for unit in alive:
        chip = union.locator(f".zone-card[data-zone=mill] .chip[data-unit='{unit}'] .loss")
        assert chip.inner_text().strip() == f"\u2212{losses[unit]}"
    # a citation in the narrative opens the rules at hand
    union.locator(
        ".zone-card[data-zone=mill] .narrative button.cite[data-section='OZ.Assault.C']"
    ).first.click()
    union.wait_for_selector("#rules-section")
    for page in (union, confed, umpire):
        assert page.errors == []
        # nothing scrolls sideways, whatever the width (orders, builder, narrative included)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.context.close()


BF_DICE = "10,10,10,9,5,5,10,5,5,5"
"""The umpire's physical melee dice: us-1 three, cs-1va one, us-2 two, us-bty four (d10 as rolled,
a 10 reads 0)."""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_shipped_battlefield_battle_by_pointing_to_the_captured_village(
    browser: Any, console_server: ServerProcess, size: str
) -> None:
    base = console_server.url
    scenario = json.loads((SCENARIOS / "battlefield" / "millers-crossing.json").read_text())
    game = httpx.post(
        f"{base}/games",
        json={"ruleset": "battlefield", "scenario": scenario, "match": {"physical_dice": True}},
    ).json()
    union, confed, umpire = (
        _open(browser, base, game, s, size) for s in ("union", "confederate", "umpire")
    )
    if size == "phone":  # a closer view of the village and the crossings, by the + button
        for page in (union, confed):
            for _ in range(3):
                page.click("#zoom-in")

    # turn 1, union, Movement: us-1 over the stone bridge, us-2 through the lower ford
    _advance(umpire, 1, base, game)
    union.wait_for_function("document.getElementById('position').textContent.includes('Movement')")
    union.click("#unit-list [data-unit=us-1]")
    for i, (x, y) in enumerate(((745, 350), (750, 405)), start=1):
        _click_yards(union, x, y)
        _wait_for(union, "rulingFor", f"o.path.length === {i}")
    union.wait_for_selector("#ruling .verdict[data-legal=true]")
    union.wait_for_selector("#submit-move:not([disabled])")
    union.click("#submit-move")
    union.wait_for_function("document.getElementById('position').textContent.endsWith('v3')")
    union.click("#unit-list [data-unit=us-2]")
    _click_yards(union, 1150, 390)
    _wait_for(union, "rulingFor", "o.unit === 'us-2'")
    # asked for is not yet shown: us-1's legal ruling stays in the panel until us-2's comes
    union.wait_for_function(
        "(() => { const r = document.getElementById('ruling');"
        " return r.innerText.includes('us-2') && !!r.querySelector('.verdict[data-legal=true]');"
        " })()"
    )
    assert "A.24" in union.inner_text("#ruling")
    union.click("#submit-move")
    union.wait_for_function("document.getElementById('position').textContent.endsWith('v4')")

    # turn 1, confederate, Initial Fire: the village battery's kill zone, origin clicked on
    # the village's border where the pike leaves it, target clicked on the table
    _advance(umpire, 6, base, game)
    confed.wait_for_function(
        "document.getElementById('position').textContent.includes('Initial Fire')"
    )
    confed.click("#unit-list [data-unit=cs-bty]")
    confed.click(".order-kind[data-kind=garrison_fire]")
    confed.click(".order-form [data-field=origin] .pick")
    _click_yards(confed, 757.6, 480)
    confed.click(".order-form .form-row:has(#order-target) .pick")
    confed.click("#board .counter[data-unit=us-1]", force=True)
    _wait_for(confed, "orderFor", "o.target === 'us-1'")
    _legal_order(confed)
    assert "OZ.Basic.E" in confed.inner_text("#ruling")

    # turn 2, union, Charge Declaration: us-1 charges into Millersburg (the assault), us-2 joins
    _advance(umpire, 3, base, game)
    union.wait_for_function("document.getElementById('position').textContent.includes('Turn 2')")
    for unit, point in (("us-1", (757, 505)), ("us-2", (900, 600))):
        union.click(f"#unit-list [data-unit={unit}]")
        union.click(".order-kind[data-kind=charge]")
        _click_yards(union, *point)
        _wait_for(union, "orderFor", "(o.path || []).length === 1")
        _legal_order(union)
    assert "joins" in union.inner_text("#ruling").lower()

    # Objective Combat: both allocations built by pointing, the umpire opens with the dice
    _advance(umpire, 4, base, game)
    decision = "allocation:village:t2"
    _seal(union, decision, {"us-1": "1", "us-2": "2", "us-bty": "2"})
    _seal(confed, decision, {"cs-1va": "1", "cs-bty": "1"})
    umpire.click("#tab-umpire")
    umpire.fill("#physical-dice", BF_DICE)
    umpire.click("#tab-sealed")
    _settled(umpire, base, game)  # the umpire's page has seen both receipts (its ETag is current)
    umpire.click(f"[data-decision='{decision}'] button:has-text('Open now')")
    # the umpire sees the reveal in the log; if it never comes, what the console said is named
    umpire.click("#tab-log")
    try:
        umpire.wait_for_selector("#log li[data-kind=sealed_revealed]")
    except PlaywrightTimeout:
        said = umpire.locator("#notice").inner_text()
        raise AssertionError(f"no reveal after 'Open now'; the notice said {said!r}") from None

    for page in (union, confed, umpire):
        page.click("#tab-log")
        story = page.locator("#log li[data-kind=sealed_revealed] .narrative")
        story.wait_for()
        text = story.inner_text()
        assert (
            "Union us-1, us-2, us-bty assault Millersburg in 2 sectors: 4 hits inflicted, 0 taken"
            in text
        )
        assert "Millersburg captured by us-1, us-2, earliest exit turn 4" in text
        us1 = "us-1 (Union, attacking, level THREE: hits on 0\u20132) rolled 0✓, 0✓, 0✓: 3 hits"
        cs1 = "cs-1va (Confederate, defending, level TWO, raised 1 by the zone: hits on 0\u20131)"
        assert us1 in text and f"{cs1} rolled 9: 0 hits" in text
        assert "the defenders are shattered" in text
        # the captured village is drawn in the union's colour on the table
        page.wait_for_selector("#board .zone-outline[data-zone=village][data-held-by=union]")
    for page in (union, confed, umpire):
        assert page.errors == []
        # nothing scrolls sideways, whatever the width (orders, builder, narrative included)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.context.close()


def _tab_to(page: Any, selector: str, key: str = "Tab", limit: int = 30) -> None:
    """Press Tab (or Shift+Tab) until the focus is on ``selector`` (once it is on the page: a
    person waits for the control to appear before reaching for it)."""
    page.wait_for_selector(selector)
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"the keyboard never reached {selector}")


def test_an_assault_declared_and_allocated_with_the_keyboard_alone(
    browser: Any, console_server: ServerProcess
) -> None:
    """Keyboard only: the focus goes where the work is (the zone the order waits for, back to
    the unit after Submit); zones, battalions and sectors are lists and check boxes."""
    base = console_server.url
    scenario = json.loads((SCENARIOS / "objective-zones" / "example.json").read_text())
    game = httpx.post(
        f"{base}/games", json={"ruleset": "objective-zones", "scenario": scenario}
    ).json()
    union, umpire = (_open(browser, base, game, s, "desktop") for s in ("union", "umpire"))
    union.focus("#unit-list [data-unit=us-1]")
    union.keyboard.press("Enter")
    union.wait_for_selector("#unit-list [data-unit=us-1][aria-selected=true]")
    _tab_to(union, ".order-kind[data-kind=declare_assault]")
    union.keyboard.press("Enter")
    union.wait_for_function("document.activeElement.id === 'order-zone'")
    union.keyboard.press("ArrowDown")  # the first zone of the list: Hooper's Mill
    _wait_for(union, "orderFor", "o.zone === 'mill'")
    assert union.evaluate("document.activeElement.id") == "order-zone"
    for unit, key in (("us-2", "Shift+Tab"), ("us-3", "Tab")):
        _tab_to(union, f"[data-field=units] input[value={unit}]", key)
        union.keyboard.press("Space")
        _wait_for(union, "orderFor", f"o.units.includes('{unit}')")
    _tab_to(union, ".order-submit:not([disabled])")
    union.keyboard.press("Enter")
    union.wait_for_selector("body[data-submitting=false]")
    union.wait_for_function("document.activeElement.dataset.unit === 'us-1'")
    assert "Union declares an assault on Hooper's Mill with us-1, us-2, us-3" in union.inner_text(
        "#ruling .narrative"
    )
    assert union.evaluate("document.activeElement.closest('#unit-list') !== null")

    _advance(umpire, 4, base, game)
    union.focus("#tab-act")
    for _ in range(2):
        union.keyboard.press("ArrowRight")  # Act -> Log -> Sealed
    union.wait_for_selector("#pane-sealed:not([hidden]) [data-builder] select[data-unit=us-1]")
    union.focus("[data-builder] select[data-unit=us-1]")
    # the defender seals meanwhile: the panel is drawn again for the new version and the menu
    # being used keeps the focus (the next key goes to it, not to the page)
    decision = "allocation:mill:t1"
    r = httpx.post(
        f"{base}/games/{game['id']}/sealed/{decision}",
        json={"sectors": {"1": ["cs-22va", "cs-bty"], "2": ["cs-36va"]}},
        headers={"Authorization": f"Bearer {game['seats']['confederate']}", "If-Match": "*"},
    )
    assert r.status_code in (200, 201), r.text
    union.wait_for_selector(f"[data-decision='{decision}'] .receipts li[data-side=confederate]")
    assert union.evaluate("document.activeElement.dataset.unit") == "us-1"
    union.keyboard.press("ArrowDown")  # sector 1
    _tab_to(union, "[data-builder] select[data-unit=us-2]")
    union.keyboard.press("ArrowDown")
    union.keyboard.press("ArrowDown")  # sector 2
    union.wait_for_selector("[data-builder] .alloc-check .verdict[data-legal=true]")
    _tab_to(union, "[data-builder] .seal-submit:not([disabled])")
    union.keyboard.press("Enter")
    union.wait_for_selector("#notice.ok:has-text('Order sealed')")
    # Other actions (the umpire's and rare kinds): a zone is a menu, each field's help is text
    union.click("#tab-act")
    union.click("#other-actions summary")
    union.select_option("#action-kind", "declare_assault")
    zones = union.locator("#act-declare_assault-zone option").all_inner_texts()
    assert zones == ["\u2014 pick \u2014", "Hooper's Mill", "Church Hill", "North Redoubt"]
    help_id = "act-declare_assault-batteries-help"
    assert union.inner_text(f"#{help_id}") == "Batteries named as support."
    assert union.get_attribute("#act-declare_assault-batteries", "aria-describedby") == help_id
    for page in (union, umpire):
        assert page.errors == []
        page.context.close()


def test_a_melee_going_on_and_a_morale_test_by_pointing(
    browser: Any, console_server: ServerProcess
) -> None:
    """OZ.PostMelee.D.4 and OZ.Morale from a position in mid-game: *Continue the melee* is an
    order of the zone (actions/available lists it with no unit), the zone clicked on the board;
    a unit owing a morale test gets *Test morale*; both told in words with the dice rolled."""
    base = console_server.url
    scenario = json.loads((SCENARIOS / "objective-zones" / "example.json").read_text())
    scenario.update(
        phase="objective_combat", melees={"mill": "union"}, morale_due={"cs-36va": "melee"}
    )
    for unit in scenario["units"]:
        if unit["id"] == "cs-22va":
            unit["engaged"] = True
        if unit["id"] == "us-1":
            unit.update(zone="mill", at="garrison", sector=1, engaged=True, entered_turn=1)
    game = httpx.post(
        f"{base}/games", json={"ruleset": "objective-zones", "scenario": scenario}
    ).json()
    union, confed = (_open(browser, base, game, s, "desktop") for s in ("union", "confederate"))
    assert union.locator(".zone-card[data-zone=mill] .chip[data-unit=us-1] .engaged-mark").count()
    union.click(".order-kind[data-kind=continue_melee]")
    union.click("[data-zone-pick=mill]")
    _legal_order(union)
    melee = next(e for e in _events(base, game) if e["kind"] == "continue_melee")
    rolls = {
        r["unit"]: r for s in melee["ruling"]["details"]["sectors"].values() for r in s["rolls"]
    }
    story = union.inner_text("#ruling .narrative")
    assert "The melee in Hooper's Mill goes on, Union us-1 attacking" in story
    shown = [_reading(d) for d in rolls["us-1"]["dice"]]
    line = union.inner_text("#ruling .die-line[data-unit=us-1]")
    assert line.split(" rolled ", 1)[1].split(":")[0].replace("✓", "").split(", ") == [
        str(d) for d in shown
    ]

    _settled(confed, base, game)
    confed.click("#unit-list [data-unit=cs-36va]")
    confed.click(".order-kind[data-kind=morale_test]")
    _legal_order(confed)
    test = next(e for e in _events(base, game) if e["kind"] == "morale_test")
    d = test["ruling"]["details"]
    said = confed.inner_text("#ruling .narrative")
    verdict = "passes" if d["passed"] else "fails"
    assert (
        f"cs-36va tests morale (melee): needs {d['pass_from']} or more on a d10 read 0\u20139, "
        f"rolled {d['roll']}, and {verdict}." in said
    )
    for page in (union, confed):
        assert page.errors == []
        page.context.close()


def _mill_scenario() -> dict[str, Any]:
    """The objective-zones example in its combat phase with a melee going on at the mill (us-1
    in the garrison, cs-22va engaged)."""
    scenario: dict[str, Any] = json.loads(
        (SCENARIOS / "objective-zones" / "example.json").read_text()
    )
    scenario.update(phase="objective_combat", melees={"mill": "union"})
    for unit in scenario["units"]:
        if unit["id"] == "cs-22va":
            unit["engaged"] = True
        if unit["id"] == "us-1":
            unit.update(zone="mill", at="garrison", sector=1, engaged=True, entered_turn=1)
    return scenario


def _melee_at_the_mill(base: str) -> dict[str, Any]:
    """A game of ``_mill_scenario``, the umpire rolling physical dice."""
    game: dict[str, Any] = httpx.post(
        f"{base}/games",
        json={
            "ruleset": "objective-zones",
            "scenario": _mill_scenario(),
            "match": {"physical_dice": True},
        },
    ).json()
    return game


def _loss_marks(page: Any) -> dict[str, str]:
    """The castings-lost marks on the zone cards' counters: unit -> the number marked."""
    pairs = page.eval_on_selector_all(
        ".zone-card .chip .loss",
        "ns => ns.map(n => [n.closest('.chip').dataset.unit, n.dataset.loss])",
    )
    return dict(pairs)


def test_castings_lost_leave_the_counters_when_the_melee_is_rolled_back(
    browser: Any, console_server: ServerProcess
) -> None:
    """The loss marks on the counters say what the game's state says: a melee the umpire rolls
    back (from the log's "undo from here") takes its castings lost off the counters again,
    though the log keeps the event. The umpire's physical dice make the losses certain."""
    base = console_server.url
    game = _melee_at_the_mill(base)
    umpire = _open(browser, base, game, "umpire", "desktop")
    umpire.click("#tab-umpire")
    umpire.fill("#physical-dice", ",".join(["1"] * 8))  # every die reads 1: a hit for each level
    umpire.click("#tab-act")
    umpire.click(".order-kind[data-kind=continue_melee]")
    umpire.click("[data-zone-pick=mill]")
    _legal_order(umpire)
    melee = next(e for e in _events(base, game) if e["kind"] == "continue_melee")
    losses = melee["ruling"]["details"]["losses"]
    assert losses and all(n > 0 for n in losses.values()), melee["ruling"]
    # the marks are drawn once the melee's event has come (the write's own redraw may come first)
    umpire.wait_for_selector(".zone-card .chip .loss")
    assert _loss_marks(umpire) == {u: str(n) for u, n in losses.items()}
    # the umpire undoes the melee from the log: the marks go, the castings come back
    umpire.click("#tab-log")
    umpire.click(f"#ev-{melee['seq']} .rollback-here")
    _settled(umpire, base, game)
    umpire.click("#tab-act")
    umpire.wait_for_function("!document.querySelector('.zone-card .chip .loss')")
    chip = umpire.inner_text(".zone-card[data-zone=mill] .chip[data-unit=us-1]")
    men = next(u["men"] for u in _mill_scenario()["units"] if u["id"] == "us-1")
    assert chip.startswith(f"us-1 ({men}"), chip
    assert umpire.errors == []
    umpire.context.close()


def test_a_console_opened_after_a_melee_marks_its_castings_lost_on_the_counters(
    browser: Any, console_server: ServerProcess
) -> None:
    """The loss marks are read from the log, which the console hears after it has drawn the
    board: a seat opened on a game whose melee has already been fought still shows that melee's
    castings lost on the counters (the board is drawn again as the log comes in), and a second
    seat opened after the melee was rolled back shows none."""
    base = console_server.url
    game = _melee_at_the_mill(base)
    headers = {"Authorization": f"Bearer {game['seats']['umpire']}"}
    r = httpx.post(
        f"{base}/games/{game['id']}/actions",
        json={"kind": "continue_melee", "zone": "mill"},
        headers={
            **headers,
            "If-Match": f'W/"{game["version"]}"',
            "Referee-Dice": "1,1,1,1,1,1,1,1",
        },
    )
    assert r.status_code == 201, r.text
    losses = r.json()["ruling"]["details"]["losses"]
    assert losses and all(n > 0 for n in losses.values()), r.text

    union = _open(browser, base, game, "union", "desktop")
    union.wait_for_selector(".zone-card .chip .loss")
    assert _loss_marks(union) == {u: str(n) for u, n in losses.items()}
    assert union.errors == []
    union.context.close()

    r = httpx.post(
        f"{base}/games/{game['id']}/rollback",
        json={"to_version": game["version"]},
        headers={**headers, "If-Match": "*"},
    )
    assert r.status_code == 201, r.text
    confederate = _open(browser, base, game, "confederate", "desktop")
    _settled(confederate, base, game)
    confederate.wait_for_selector(
        f"#ev-{r.json()['event']}", state="attached"
    )  # the whole log has come
    assert _loss_marks(confederate) == {}
    assert confederate.errors == []
    confederate.context.close()


def test_an_order_just_begun_says_what_it_waits_for_not_an_error(
    browser: Any, console_server: ServerProcess
) -> None:
    """An order whose required fields are not pointed at yet is not judged: the panel says
    what to point at next (no red 422 "Field required" before the player has done anything),
    and the dry run starts once the order is whole."""
    base = console_server.url
    scenario = json.loads((SCENARIOS / "objective-zones" / "example.json").read_text())
    game = httpx.post(
        f"{base}/games", json={"ruleset": "objective-zones", "scenario": scenario}
    ).json()
    union = _open(browser, base, game, "union", "phone")
    refused: list[int] = []
    union.on("response", lambda r: refused.append(r.status) if r.status >= 400 else None)
    union.click("#unit-list [data-unit=us-1]")
    union.click(".order-kind[data-kind=declare_assault]")
    union.wait_for_selector("#ruling .waiting-for-fields")
    assert union.inner_text("#ruling") == "To complete the order: pick the zone."
    assert union.is_disabled(".order-submit")
    union.click("[data-zone-pick=mill]")
    _wait_for(union, "orderFor", "o.zone === 'mill'")
    union.wait_for_selector("#ruling .verdict")
    assert union.locator("#ruling .waiting-for-fields").count() == 0
    assert refused == []
    assert union.errors == []
    union.context.close()


def test_the_focus_stays_with_the_work_when_an_order_is_dropped(
    browser: Any, console_server: ServerProcess
) -> None:
    """Keyboard only: Cancel, pressing the armed order's button again, and Escape drop the order
    and leave the focus on that order's button; Escape again puts the unit down and leaves the
    focus on it in the unit list -- never on the page body, 20 Tabs away from the work."""
    base = console_server.url
    scenario = json.loads((SCENARIOS / "objective-zones" / "example.json").read_text())
    game = httpx.post(
        f"{base}/games", json={"ruleset": "objective-zones", "scenario": scenario}
    ).json()
    union = _open(browser, base, game, "union", "desktop")
    focused = "document.activeElement.id"
    union.focus("#unit-list [data-unit=us-1]")
    union.keyboard.press("Enter")
    _tab_to(union, ".order-kind[data-kind=declare_assault]")
    union.keyboard.press("Enter")
    union.wait_for_function("document.activeElement.id === 'order-zone'")
    _tab_to(union, ".order-cancel")
    union.keyboard.press("Enter")
    union.wait_for_selector(".order-form", state="detached")
    assert union.evaluate(focused) == "order-kind-declare_assault"
    union.keyboard.press("Enter")  # armed again
    union.wait_for_function("document.activeElement.id === 'order-zone'")
    union.keyboard.press("Escape")
    union.wait_for_selector(".order-form", state="detached")
    assert union.evaluate(focused) == "order-kind-declare_assault"
    union.keyboard.press("Enter")
    union.wait_for_function("document.activeElement.id === 'order-zone'")
    _tab_to(union, ".order-kind[data-kind=declare_assault]", "Shift+Tab")
    union.keyboard.press("Enter")  # the armed order's button again: dropped
    union.wait_for_selector(".order-form", state="detached")
    assert union.evaluate(focused) == "order-kind-declare_assault"
    union.keyboard.press("Escape")  # the unit put down
    union.wait_for_selector("#unit-list [data-unit=us-1][aria-selected=false]")
    union.wait_for_function("document.activeElement.dataset.unit === 'us-1'")
    assert union.evaluate("document.activeElement.closest('#unit-list') !== null")
    assert union.errors == []
    union.context.close()


def test_a_page_switched_to_another_seat_builds_that_seats_allocation(
    browser: Any, console_server: ServerProcess
) -> None:
    """The sealed panel keeps a builder across versions, never across seats: the same tab
    opened on the other side's link (as an umpire checking both) shows that side's own
    builder, its units and its heading, not the first side's picks."""
    base = console_server.url
    scenario = json.loads((SCENARIOS / "objective-zones" / "example.json").read_text())
    game = httpx.post(
        f"{base}/games", json={"ruleset": "objective-zones", "scenario": scenario}
    ).json()
    oz_assault(base, game, seal=False)
    page = _open(browser, base, game, "union", "desktop")
    decision = "allocation:mill:t1"
    page.click("#tab-sealed")
    builder = page.locator(f"[data-builder='{decision}']")
    builder.locator("select[data-unit=us-1]").select_option("1")
    page.wait_for_selector(f"[data-builder='{decision}'][data-checking=false]")
    assert "Your allocation (union)" in builder.inner_text()
    page.goto(seat_link(base, game["id"], "confederate", game["seats"]["confederate"]))
    page.wait_for_selector("body[data-seat=confederate]")
    page.click("#tab-sealed")
    page.wait_for_selector(f"[data-builder='{decision}'] select[data-unit=cs-22va]")
    assert "Your allocation (confederate)" in builder.inner_text()
    assert builder.locator("select[data-unit=us-1]").count() == 0
    assert page.errors == []
