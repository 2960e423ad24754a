"""Table talk in the console (issue 26): two players and the umpire exchange public and
private messages by clicking and typing, each page live; a spectator reads the public ones."""

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


def say(page: Any, to: str, text: str) -> None:
    page.click("#tab-log")
    page.select_option("#chat-to", to)
    page.click("#chat-text")
    page.keyboard.type(text)
    page.click("#chat-send")
    last_line = text.splitlines()[-1]
    page.wait_for_selector(f"#chat-list li:has-text({json.dumps(last_line)})")


def texts(page: Any) -> list[str]:
    return list(page.locator("#chat-list li .chat-text").all_inner_texts())


def test_players_and_umpire_talk_publicly_and_privately(
    new_page: Any, console_server: ServerProcess
) -> None:
    base = console_server.url
    scenario = json.loads((ROOT / "scenarios/zoc/seed-example.json").read_text())
    game = httpx.post(f"{base}/games", json={"ruleset": "zoc", "scenario": scenario}).json()
    gid = game["id"]
    axis, soviet, umpire, watcher = new_page(), new_page(), new_page(), new_page()
    for page, seat in ((axis, "axis"), (soviet, "soviet"), (umpire, "umpire")):
        page.goto(seat_link(base, gid, seat, game["seats"][seat]))
    watcher.goto(f"{base}/#game={gid}&as=spectator")
    for page in (axis, soviet, umpire, watcher):
        page.wait_for_selector("body[data-ready=true][data-chat=live]")
        page.click("#tab-log")
    assert watcher.locator("#chat-form").count() == 0  # spectators read, never write
    assert sorted(axis.locator("#chat-to option").evaluate_all("os => os.map(o => o.value)")) == [
        "all",
        "soviet",
        "umpire",
    ]

    say(axis, "all", "Good luck, comrades.")
    say(soviet, "umpire", "Is the river frozen?")
    say(umpire, "axis", "Your reserves arrive on turn 3.")
    say(umpire, "soviet", "Yes: frozen until turn 4.")
    say(soviet, "all", "Likewise.\nSee you at the river.")
    # the last public message reached everyone; the stream delivers in order, so anything
    # before it that a page may read is there too
    for page in (axis, soviet, umpire, watcher):
        page.wait_for_selector("#chat-list li:has-text('See you at the river.')")

    assert texts(umpire) == [
        "Good luck, comrades.",
        "Is the river frozen?",
        "Your reserves arrive on turn 3.",
        "Yes: frozen until turn 4.",
        "Likewise.\nSee you at the river.",
    ]
    assert texts(axis) == [
        "Good luck, comrades.",
        "Your reserves arrive on turn 3.",
        "Likewise.\nSee you at the river.",
    ]
    assert texts(soviet) == [
        "Good luck, comrades.",
        "Is the river frozen?",
        "Yes: frozen until turn 4.",
        "Likewise.\nSee you at the river.",
    ]
    assert texts(watcher) == ["Good luck, comrades.", "Likewise.\nSee you at the river."]
    assert axis.locator("#chat-list li.private").count() == 1
    assert "umpire → axis (private)" in axis.inner_text("#chat-list li.private")
    for page in (axis, soviet, umpire, watcher):
        assert not page.errors, page.errors
