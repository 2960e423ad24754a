"""The console and a game played under an older ruleset version (issue 22 item 10), in headless
Chromium against a real server of its own (its SQLite file is rewritten as an older release
would have left it): every seat sees the game's ruleset version and a notice that nothing can
be played until the umpire upgrades; the umpire previews the upgrade -- the changed ruling in
words -- and performs it, after which the notice is gone and the log shows the upgrade."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.chromium import seat_link, served_sqlite
from tests.support.process import ServerProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def upgrade_server(tmp_path: Path) -> Iterator[tuple[ServerProcess, Path]]:
    with served_sqlite(tmp_path) as server:
        yield server, tmp_path / "console.db"


def test_the_umpire_previews_and_upgrades_a_game_of_an_older_version(
    browser: Any, upgrade_server: tuple[ServerProcess, Path]
) -> None:
    server, db = upgrade_server
    base = server.url
    scenario = json.loads((ROOT / "scenarios" / "zoc" / "seed-example.json").read_text())
    created = httpx.post(f"{base}/games", json={"ruleset": "zoc", "scenario": scenario})
    assert created.status_code == 201, created.text
    game = created.json()
    gid, seats, running = game["id"], game["seats"], game["ruleset_version"]
    move = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}
    headers = {"Authorization": f"Bearer {seats['axis']}", "If-Match": 'W/"1"'}
    assert httpx.post(f"{base}/games/{gid}/actions", json=move, headers=headers).status_code == 201
    # 'an older release': the game pinned to 0.9, whose ruling of event 1 was worded otherwise
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET ruleset_version = '0.9' WHERE id = ?", (gid,))
        conn.execute(
            "UPDATE events SET ruling = json_set(ruling, '$.summary', 'as 0.9 said it') "
            "WHERE game_id = ? AND seq = 1",
            (gid,),
        )

    ctx = browser.new_context(viewport={"width": 1300, "height": 850})
    try:
        player = ctx.new_page()
        player.set_default_timeout(10_000)
        player.goto(seat_link(base, gid, "axis", seats["axis"]))
        player.wait_for_selector("body[data-ready=true]")
        assert "zoc 0.9" in player.inner_text("#rules")
        notice = player.inner_text("#upgrade-notice")
        assert "played under zoc 0.9" in notice and f"runs {running}" in notice
        player.close()

        umpire = ctx.new_page()
        umpire.set_default_timeout(10_000)
        umpire.goto(seat_link(base, gid, "umpire", seats["umpire"]))
        umpire.wait_for_selector("body[data-ready=true]")
        umpire.click("#tab-umpire")
        umpire.click("#upgrade-preview")
        umpire.wait_for_selector("#upgrade-result li")
        assert umpire.inner_text("#upgrade-result li") == "event 1 (move): the ruling differs"
        umpire.click("#upgrade-perform")
        umpire.wait_for_selector("#upgrade-notice[hidden]", state="attached")
        assert f"zoc {running}" in umpire.inner_text("#rules")
        events = httpx.get(f"{base}/games/{gid}/events").json()["items"]
        assert [(e["kind"], e["ruleset_version"]) for e in events] == [
            ("move", running),
            ("ruleset_upgraded", running),
        ]
    finally:
        ctx.close()
