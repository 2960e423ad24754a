"""The console's appeals (issue 26 item 2), in headless Chromium against the real server: the
side that did not move appeals the move's ruling from its log (the "Appeal" button, a note),
the umpire finds it in the Umpire tab's queue and overrides it by rolling back, by clicking."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import seat_link
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
MOVE = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}


def test_a_side_appeals_from_the_log_and_the_umpire_overrides_from_the_queue(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    scenario = json.loads((ROOT / "scenarios/zoc/seed-example.json").read_text(encoding="utf-8"))
    created = httpx.post(f"{base}/games", json={"ruleset": "zoc", "scenario": scenario})
    assert created.status_code == 201, created.text
    gid, seats = created.json()["id"], created.json()["seats"]
    moved = httpx.post(
        f"{base}/games/{gid}/actions",
        json=MOVE,
        headers={"Authorization": f"Bearer {seats['axis']}", "If-Match": "*"},
    )
    assert moved.status_code == 201, moved.text
    other = next(s for s in seats if s not in ("axis", "umpire"))

    side = new_page()
    side.goto(seat_link(base, gid, other, seats[other]))
    side.wait_for_selector("body[data-ready=true]")
    side.click("#tab-log")
    side.click("#ev-1 .appeal-open")
    side.fill("#appeal-note-1", "de-inf-1 entered our zone of control")
    side.click("#ev-1 .appeal-send")
    side.wait_for_selector("#notice.ok")
    side.wait_for_selector("#log li[data-kind=appeal]")
    # an appeal is no ruling to appeal
    assert side.locator("#log li[data-kind=appeal] .appeal-open").count() == 0

    umpire = new_page()
    umpire.goto(seat_link(base, gid, "umpire", seats["umpire"]))
    umpire.wait_for_selector("body[data-ready=true]")
    assert umpire.locator("#ev-1 .appeal-open").count() == 0  # the umpire decides, not appeals
    umpire.click("#tab-umpire")
    item = umpire.locator("#appeals li.appeal.open[data-appeal='2']")
    item.wait_for()
    assert "de-inf-1 entered our zone of control" in item.inner_text()
    item.locator(".decision-note").fill("the move crossed the zone")
    item.locator(".appeal-rollback").click()
    umpire.wait_for_selector("#appeals li.appeal.decided[data-appeal='2']")
    decided = umpire.inner_text("#appeals li.appeal.decided[data-appeal='2'] .decision")
    assert decided.startswith("overridden (rolled back to v1)")

    events = httpx.get(
        f"{base}/games/{gid}/events", headers={"Authorization": f"Bearer {seats[other]}"}
    ).json()["items"]
    assert [e["kind"] for e in events] == ["move", "appeal", "appeal_decided"]
    assert events[2]["payload"]["to_version"] == 1
    listed = httpx.get(f"{base}/games/{gid}/appeals").json()["items"]
    assert listed[0]["decision"]["note"] == "the move crossed the zone"


def test_the_umpire_keeps_typing_a_decision_note_while_a_side_moves(
    new_page: Any, console_server: ServerProcess
) -> None:
    """The queue is drawn again at every new version: a move arriving while the umpire writes
    the note on an appeal takes neither the words typed so far nor the focus (the rest of the
    note, typed on, lands in the same field)."""
    base = console_server.url
    scenario = json.loads((ROOT / "scenarios/zoc/seed-example.json").read_text(encoding="utf-8"))
    created = httpx.post(f"{base}/games", json={"ruleset": "zoc", "scenario": scenario})
    assert created.status_code == 201, created.text
    gid, seats = created.json()["id"], created.json()["seats"]
    axis = {"Authorization": f"Bearer {seats['axis']}", "If-Match": "*"}
    moved = httpx.post(f"{base}/games/{gid}/actions", json=MOVE, headers=axis)
    assert moved.status_code == 201, moved.text
    other = next(s for s in seats if s not in ("axis", "umpire"))
    appealed = httpx.post(
        f"{base}/games/{gid}/events/1/appeal",
        json={"note": "de-inf-1 entered our zone of control"},
        headers={"Authorization": f"Bearer {seats[other]}", "If-Match": "*"},
    )
    assert appealed.status_code == 201, appealed.text

    umpire = new_page()
    umpire.goto(seat_link(base, gid, "umpire", seats["umpire"]))
    umpire.wait_for_selector("body[data-ready=true]")
    umpire.click("#tab-umpire")
    note = umpire.locator("#appeals li.appeal.open .decision-note")
    note.click()
    umpire.keyboard.type("the move crossed")
    drawn = umpire.locator("#appeals li.appeal.open").element_handle()
    version = httpx.get(f"{base}/games/{gid}").json()["version"]
    second = {"kind": "move", "unit": "de-inf-2", "path": ["e3108"]}
    assert httpx.post(f"{base}/games/{gid}/actions", json=second, headers=axis).status_code == 201
    umpire.wait_for_function(
        f"document.getElementById('position').textContent.endsWith('v{version + 1}')"
    )
    # the queue has been drawn again for the new version: the item typed in is a new element
    umpire.wait_for_function("(li) => !li.isConnected", arg=drawn)
    assert umpire.evaluate("document.activeElement.classList.contains('decision-note')")
    umpire.keyboard.type(" the zone")
    assert note.input_value() == "the move crossed the zone"
    note.press("Tab")
    umpire.click("#appeals li.appeal.open .appeal-uphold")
    umpire.wait_for_selector("#appeals li.appeal.decided .decision")
    listed = httpx.get(f"{base}/games/{gid}/appeals").json()["items"]
    assert listed[0]["decision"]["note"] == "the move crossed the zone"
    assert umpire.errors == []
