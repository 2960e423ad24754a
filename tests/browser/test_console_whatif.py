"""The console's interpretation what-if (issue 26 item 3), in headless Chromium against the
real server: the umpire plays a zoc move whose ruling relies on a documented reading (an air
unit negates the enemy zone, option ``non_ground_negates`` on), clicks "What if the other
reading?" on that interpretation's card and reads, in words, that the move would have been
illegal and that the game could not have gone on from there. A player sees no such button
before the game is over, and has it once the umpire has finished the game."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.rules.rule_cases import all_cases, scenario_of
from tests.support.chromium import seat_link
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow

CARD = "#ruling .interpretations li[data-interpretation='zoc.ground-units-negate']"
CASE = next(c for c in all_cases() if c.id == "zoc:negation-non-ground-friendly-option")


def _move_by_clicking(page: Any, unit: str = "de-a") -> None:
    """Pick the unit in the list, then click two hexes once the page shows it picked (the
    board is drawn again with its reach after the pick: a hex clicked before lands where
    the board was)."""
    page.wait_for_selector("body[data-ready=true][data-stream=live]")
    page.click(f"#unit-list [data-unit={unit}]")
    page.wait_for_selector(f"#unit-list [data-unit={unit}][aria-selected=true]")
    page.click("polygon.hex[data-hex=e3207]", force=True)
    page.wait_for_function(
        "document.body.dataset.rulingFor && JSON.parse(document.body.dataset.rulingFor)"
        ".path.length === 1"
    )
    page.click("polygon.hex[data-hex=e3307]", force=True)
    page.wait_for_function(
        "document.body.dataset.rulingFor && JSON.parse(document.body.dataset.rulingFor)"
        ".path.join() === 'e3207,e3307'"
    )


def test_the_umpire_asks_what_the_other_reading_would_have_changed(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    created = httpx.post(
        f"{base}/games",
        json={
            "ruleset": "zoc",
            "scenario": scenario_of(CASE),
            "options": {"non_ground_negates": True},
        },
    )
    assert created.status_code == 201, created.text
    game = created.json()
    gid, seats = game["id"], game["seats"]

    axis = new_page()
    axis.goto(seat_link(base, gid, "axis", seats["axis"]))
    axis.wait_for_selector("body[data-ready=true]")
    _move_by_clicking(axis)
    card = axis.locator(CARD)
    assert "non_ground_negates" in card.inner_text()
    assert axis.locator("#ruling .whatif-btn").count() == 0  # a player, before the end

    umpire = new_page()
    umpire.goto(seat_link(base, gid, "umpire", seats["umpire"]))
    umpire.wait_for_selector("body[data-ready=true]")
    _move_by_clicking(umpire)
    assert umpire.locator("#ruling .verdict").get_attribute("data-legal") == "true"
    umpire.click("#submit-move")
    umpire.wait_for_selector("#notice.ok")
    umpire.wait_for_selector("body[data-submitting=false]")  # the submitted ruling is drawn
    card = umpire.locator(CARD)
    button = card.get_by_role("button", name="What if the other reading?")
    button.click()
    umpire.wait_for_selector("#ruling .whatif-list li")
    assert umpire.inner_text("#ruling .whatif-list li").startswith(
        "event 1 (move): legal → illegal"
    )
    summary = umpire.inner_text("#ruling .whatif-summary")
    assert summary.startswith("Under non_ground_negates = false:")
    stopped = umpire.inner_text("#ruling .whatif-stopped")
    assert stopped.startswith("From event 1 on the game could not have gone this way")

    # once the umpire has finished the game, a player may ask too
    finish = httpx.post(
        f"{base}/games/{gid}/finish",
        json={},
        headers={"Authorization": f"Bearer {seats['umpire']}", "If-Match": 'W/"2"'},
    )
    assert finish.status_code == 201, finish.text
    player = new_page()
    player.goto(seat_link(base, gid, "axis", seats["axis"]))
    player.wait_for_selector("body[data-ready=true]")
    _move_by_clicking(player, "de-b")  # a dry run relying on the same reading
    player.locator("#ruling .whatif-btn[data-option=non_ground_negates]").click()
    player.wait_for_selector("#ruling .whatif-list li")
    assert player.inner_text("#ruling .whatif-list li").startswith(
        "event 1 (move): legal → illegal"
    )
    assert not umpire.errors and not axis.errors and not player.errors
