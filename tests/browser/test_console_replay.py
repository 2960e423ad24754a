"""The console's replay and rules at hand in headless Chromium against the real server.

Axis plays two moves by pointing (a unit in the list, hexes on the board, Submit); the soviet
player -- a play-by-email opponent reading "what did you do on your turn" -- opens the Replay
tab, steps through the log with the buttons and the keyboard and sees each past position (a
counter at its old hex) with the event's ruling beside it, clicks a citation in that ruling
and reads the section in the rules panel with the game's rulings that cite it, then leaves
the replay for the live game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import OZ_ORDERS, oz_assault, seat_link
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
SEED = SCENARIOS / "zoc" / "seed-example.json"
OZ = SCENARIOS / "objective-zones" / "example.json"


def _ready(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready=true][data-stream=live]")


def _move_by_pointing(page: Any, unit: str, hexes: list[str]) -> None:
    """Pick ``unit`` in the unit list, click each hex, wait for the ruling, submit."""
    page.click(f"#unit-list [data-unit={unit}]")
    page.wait_for_selector(f"#unit-list [data-unit={unit}][aria-selected=true]")
    for n, hex_id in enumerate(hexes, start=1):
        page.click(f"polygon.hex[data-hex={hex_id}]", force=True)
        page.wait_for_function(
            "n => document.body.dataset.rulingFor && "
            "JSON.parse(document.body.dataset.rulingFor).path.length === n",
            arg=n,
        )
    assert page.get_attribute("#ruling .verdict", "data-legal") == "true"
    page.click("#submit-move")
    page.wait_for_selector(f".counter[data-unit={unit}][data-at={hexes[-1]}]")


def _at(page: Any, step: int, version: int) -> None:
    """Wait until the replay shows ``step`` (0: set-up) and the board the position ``version``."""
    page.wait_for_selector(f"#pane-replay[data-step='{step}']")
    page.wait_for_selector(f"body[data-replay='{version}']")


def test_replay_steps_through_past_positions_with_rulings_and_citations_open_the_rules(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    r = httpx.post(
        f"{base}/games", json={"ruleset": "zoc", "scenario": json.loads(SEED.read_text())}
    )
    assert r.status_code == 201, r.text
    game = r.json()
    axis = new_page()
    _ready(axis, seat_link(base, game["id"], "axis", game["seats"]["axis"]))
    _move_by_pointing(axis, "de-inf-1", ["e3207", "e3307"])
    _move_by_pointing(axis, "de-inf-2", ["e3106"])

    soviet = new_page()
    _ready(soviet, seat_link(base, game["id"], "soviet", game["seats"]["soviet"]))
    soviet.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3106]")
    assert soviet.locator("#replay-banner").is_hidden()

    # the Replay tab opens at the latest event: the board as it stands, its ruling beside it
    soviet.click("#tab-replay")
    _at(soviet, 2, 3)
    assert "Event 2 of 2" in soviet.inner_text("#replay-status")
    assert "de-inf-2 moves e3107 -> e3106" in soviet.inner_text("#replay-ruling .verdict")
    assert soviet.is_visible("#replay-banner")

    # the buttons: the position after the first move, then the game as set up
    soviet.click("#replay-prev")
    _at(soviet, 1, 2)
    soviet.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3107]")
    assert soviet.locator(".counter[data-unit=de-inf-1][data-at=e3307]").count() == 1
    verdict = soviet.locator("#replay-ruling .verdict")
    assert verdict.get_attribute("data-legal") == "true"
    assert "it must stop in e3307" in verdict.inner_text()
    cited = soviet.eval_on_selector_all(
        "#replay-ruling .citations .cite", "ns => ns.map(n => n.dataset.section)"
    )
    assert "8.2.operational" in cited
    soviet.click("#replay-first")
    _at(soviet, 0, 1)
    soviet.wait_for_selector(".counter[data-unit=de-inf-1][data-at=e3107]")
    assert soviet.locator(".counter[data-unit=de-inf-2][data-at=e3107]").count() == 1
    assert soviet.is_disabled("#replay-prev") and soviet.is_disabled("#replay-first")
    soviet.click("#replay-last")
    _at(soviet, 2, 3)
    assert soviet.is_disabled("#replay-next")

    # the keyboard, while the replay has the focus: Home, →, End, ←
    soviet.focus("#pane-replay")
    soviet.keyboard.press("Home")
    _at(soviet, 0, 1)
    soviet.wait_for_selector(".counter[data-unit=de-inf-1][data-at=e3107]")
    soviet.keyboard.press("ArrowRight")
    _at(soviet, 1, 2)
    soviet.wait_for_selector(".counter[data-unit=de-inf-1][data-at=e3307]")
    soviet.keyboard.press("End")
    _at(soviet, 2, 3)
    soviet.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3106]")
    soviet.keyboard.press("ArrowLeft")
    _at(soviet, 1, 2)
    soviet.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3107]")
    # a click on the board does not act on the past
    soviet.click(".counter[data-unit=su-18a]", force=True)
    assert soviet.locator("#unit-list [aria-selected=true]").count() == 0

    # a citation in the replayed ruling opens its section in the rules panel
    meta = httpx.get(f"{base}/rulesets/zoc").json()
    catalog = {c["id"]: c for c in meta["catalog"]}
    soviet.click("#replay-ruling .citations .cite[data-section='8.2.operational']")
    soviet.wait_for_selector("#rules-panel[open][data-section='8.2.operational']")
    soviet.wait_for_selector("#rules-section .rules-rulings li, #rules-section .rules-none")
    section = soviet.inner_text("#rules-section")
    assert catalog["8.2.operational"]["title"] in section
    assert catalog["8.2.operational"]["summary"] in section
    # the rulings of this game that cite it: the first move, not the second
    seqs = soviet.eval_on_selector_all(
        "#rules-section .rules-rulings li", "ns => ns.map(n => n.dataset.seq)"
    )
    assert seqs == ["1"]
    assert "de-inf-1 moves e3107 -> e3207 -> e3307" in soviet.inner_text(
        "#rules-section .rules-rulings li"
    )
    # an interpretation on a subsection, and this game's reading of it
    touching = [i for i in meta["interpretations"] if "8.2.operational.exceptions" in i["sections"]]
    assert touching
    item = soviet.locator(f"#rules-section [data-interpretation='{touching[0]['id']}']")
    assert touching[0]["reading"] in item.inner_text()
    assert item.locator(".rules-game-reading").get_attribute("data-standard") == "true"
    # the catalog: every section with its id, title and summary
    listed = soviet.eval_on_selector_all(
        "#rules-panel .rules-catalog li", "ns => ns.map(n => n.dataset.section)"
    )
    assert listed == [c["id"] for c in meta["catalog"]]
    entry = soviet.inner_text("#rules-panel .rules-catalog li[data-section='8.exc.mountain']")
    assert catalog["8.exc.mountain"]["title"] in entry
    assert catalog["8.exc.mountain"]["summary"] in entry
    # the replay stayed where it was
    _at(soviet, 1, 2)

    # a citation elsewhere (the live log) opens the panel too
    soviet.click("#tab-log")
    soviet.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3106]")  # back to live
    assert soviet.locator("body[data-replay]").count() == 0
    soviet.click("#log li[data-seq='2'] .cite[data-section='basic.path']")
    soviet.wait_for_selector("#rules-panel[data-section='basic.path'] .rules-rulings li")
    seqs = soviet.eval_on_selector_all(
        "#rules-section .rules-rulings li", "ns => ns.map(n => n.dataset.seq)"
    )
    assert seqs == ["1", "2"]

    # leaving the replay with its button returns to the live game
    soviet.click("#tab-replay")
    _at(soviet, 2, 3)
    soviet.click("#replay-prev")
    _at(soviet, 1, 2)
    soviet.click("#replay-leave")
    soviet.wait_for_selector("#tab-act[aria-selected=true]")
    soviet.wait_for_selector(".counter[data-unit=de-inf-2][data-at=e3106]")
    assert soviet.locator("body[data-replay]").count() == 0
    assert soviet.locator("#replay-banner").is_hidden()
    assert axis.errors == [] and soviet.errors == []


def _sector_units(page: Any, zone: str) -> set[str]:
    return set(
        page.eval_on_selector_all(
            f".zone-card[data-zone={zone}] .sector .chip", "ns => ns.map(n => n.dataset.unit)"
        )
    )


def test_a_sealed_allocation_is_in_no_replayed_position_before_its_reveal(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    r = httpx.post(
        f"{base}/games", json={"ruleset": "objective-zones", "scenario": json.loads(OZ.read_text())}
    )
    assert r.status_code == 201, r.text
    game = r.json()
    oz_assault(base, game, seal=False)
    union = {"Authorization": f"Bearer {game['seats']['union']}", "If-Match": "*"}
    url = f"{base}/games/{game['id']}/sealed/allocation:mill:t1"
    httpx.post(url, json=OZ_ORDERS["union"], headers=union).raise_for_status()

    confed = new_page()
    _ready(confed, seat_link(base, game["id"], "confederate", game["seats"]["confederate"]))
    confed.click("#tab-replay")
    _at(confed, 6, 7)
    # the union's sealed order: its receipt and commitment, never the order itself
    assert "Sealed order of union" in confed.inner_text("#replay-ruling")
    assert "us-bty" not in confed.inner_text("#pane-replay")
    assert _sector_units(confed, "mill") == {"cs-22va", "cs-36va"}

    # the confederate order completes the decision: the reveal arrives live while replaying
    confederate = {"Authorization": f"Bearer {game['seats']['confederate']}", "If-Match": "*"}
    httpx.post(url, json=OZ_ORDERS["confederate"], headers=confederate).raise_for_status()
    confed.wait_for_function(
        "document.getElementById('replay-status').textContent.includes('of 8')"
    )
    assert confed.get_attribute("#pane-replay", "data-step") == "6"  # the board stayed put
    confed.focus("#pane-replay")
    confed.keyboard.press("End")
    _at(confed, 8, 9)
    confed.wait_for_selector(".zone-card[data-zone=mill] .sector .chip[data-unit=us-1]")
    assert "Assault on mill" in confed.inner_text("#replay-ruling .verdict")
    assert confed.locator(".zone-card[data-zone=mill] .assault").count() == 1
    confed.keyboard.press("ArrowLeft")
    confed.keyboard.press("ArrowLeft")
    _at(confed, 6, 7)
    assert _sector_units(confed, "mill") == {"cs-22va", "cs-36va"}
    assert confed.locator(".zone-card[data-zone=mill] .assault").count() == 0
    assert confed.errors == []


def test_a_hidden_event_replays_redacted_and_its_position_never_reaches_the_page(
    new_page: Any, console_server: ServerProcess
) -> None:
    """The ``tiny`` test ruleset (the test server registers it): a note is readable by its
    writer and the umpire only, and the state's view gives others a count of notes."""
    base = console_server.url
    secret = "flank them at dawn"
    scenario = {
        "length": 10,
        "sides": ["red", "blue"],
        "pawns": [{"id": "r1", "side": "red", "at": 0}, {"id": "b1", "side": "blue", "at": 9}],
    }
    r = httpx.post(f"{base}/games", json={"ruleset": "tiny", "scenario": scenario})
    assert r.status_code == 201, r.text
    game = r.json()
    moves = [
        ("red", {"kind": "step", "pawn": "r1", "n": 2}),
        ("blue", {"kind": "note", "text": secret}),
        ("blue", {"kind": "step", "pawn": "b1", "n": -3}),
    ]
    for version, (seat, action) in enumerate(moves, start=1):
        headers = {"Authorization": f"Bearer {game['seats'][seat]}", "If-Match": f'W/"{version}"'}
        httpx.post(
            f"{base}/games/{game['id']}/actions", json=action, headers=headers
        ).raise_for_status()

    red = new_page()
    bodies: list[str] = []
    red.on(
        "response",
        lambda resp: bodies.append(resp.text()) if "/positions/" in resp.url else None,
    )
    _ready(red, seat_link(base, game["id"], "red", game["seats"]["red"]))
    red.click("#tab-replay")
    _at(red, 3, 4)
    assert "step by blue" in red.inner_text("#replay-status")
    red.focus("#pane-replay")
    red.keyboard.press("ArrowLeft")
    _at(red, 2, 3)
    assert "hidden from you" in red.inner_text("#replay-status")
    assert red.locator("#replay-ruling .verdict.redacted").count() == 1
    red.keyboard.press("Home")
    _at(red, 0, 1)
    red.keyboard.press("End")
    _at(red, 3, 4)
    # versions 4, 3 and 1 were read (each once: past positions never change)
    assert len(bodies) == 3 and all(secret not in b for b in bodies)
    assert '"notes":1' in "".join(bodies)  # the note counted, not its text
    assert secret not in red.content()

    # the umpire reads the note's event and its ruling in the same replay
    umpire = new_page()
    _ready(umpire, seat_link(base, game["id"], "umpire", game["seats"]["umpire"]))
    umpire.click("#tab-replay")
    _at(umpire, 3, 4)
    umpire.click("#replay-prev")
    _at(umpire, 2, 3)
    assert "note by blue" in umpire.inner_text("#replay-status")
    assert "Note taken." in umpire.inner_text("#replay-ruling .verdict")
    assert red.errors == [] and umpire.errors == []
