"""Issue 22 item 10, the operator's path: Referee is upgraded under a game in progress.

A database made by an older release (schema at revision 0005, a tiny game written row by row
as that code wrote it, under ruleset version 0.9, whose first ruling the old version worded
otherwise -- ``tests/support/old_release.py``) is migrated to head and served over a real
socket, on both databases. The game is readable; a submission is refused 409
``ruleset.upgrade_required``; the umpire's preview lists the one ruling the running version
judges differently; the upgrade event is appended and seen in the events list and the live
stream; after it a submission is judged and its event carries the running version; the audit
reports the stretches (0.9's events not recorded, then the running version's).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.support.old_release import OLD_SUMMARY, OLD_VERSION, OldGame, old_release_game
from tests.support.server import running_server
from tests.support.sse import SseStream
from tests.support.tiny import TINY


@pytest.fixture
def old_game(empty_db_url: str) -> OldGame:
    return old_release_game(empty_db_url)


@pytest.fixture
def base_url(empty_db_url: str, old_game: OldGame) -> Iterator[str]:
    app = create_app(Settings(database_url=empty_db_url, sse_poll_seconds=0.2))
    with running_server(app) as url:
        yield url
    app.state.engine.dispose()


def test_a_game_of_an_older_release_is_upgraded_by_its_umpire(
    base_url: str, old_game: OldGame
) -> None:
    game, seats = old_game.id, old_game.seats

    def auth(seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {seats[seat]}"}

    running = TINY.version
    with httpx.Client(base_url=base_url, timeout=30) as http:
        view = http.get(f"/games/{game}", headers=auth("red"))
        assert view.status_code == 200, view.text
        body = view.json()
        assert body["ruleset_version"] == body["ruleset_created_version"] == OLD_VERSION
        assert body["ruleset_running_version"] == running and body["upgrade_available"] is True
        etag = view.headers["ETag"]
        listed = http.get(f"/games/{game}/events").json()["items"]
        assert [e["ruleset_version"] for e in listed] == [None] * old_game.events

        step = {"kind": "step", "pawn": "b1", "n": -1}
        refused = http.post(
            f"/games/{game}/actions", json=step, headers={**auth("blue"), "If-Match": etag}
        )
        assert refused.status_code == 409, refused.text
        problem = refused.json()
        assert problem["code"] == "ruleset.upgrade_required"
        assert (problem["ruleset_version"], problem["ruleset_running_version"]) == (
            OLD_VERSION,
            running,
        )
        assert problem["upgrade"] == f"/games/{game}/upgrade"

        preview = http.get(f"/games/{game}/upgrade", headers=auth("umpire")).json()
        assert (preview["from_version"], preview["to_version"]) == (OLD_VERSION, running)
        assert [(c["seq"], c["kind"], c["field"]) for c in preview["changed"]] == [
            (1, "step", "ruling")
        ]
        assert preview["changed"][0]["recorded"]["summary"] == OLD_SUMMARY
        assert preview["changed"][0]["replayed"]["summary"] != OLD_SUMMARY

        with SseStream(base_url, f"/games/{game}/events/stream", params={"after": "3"}) as stream:
            assert stream.status == 200, stream.body
            upgraded = http.post(
                f"/games/{game}/upgrade", headers={**auth("umpire"), "If-Match": etag}
            )
            assert upgraded.status_code == 201, upgraded.text
            seen = stream.next_event(10)
            assert seen.event == "ruleset_upgraded" and seen.id == "4"
            data = seen.json()
            assert data["ruleset_version"] == running
            assert data["payload"]["from"] == OLD_VERSION and data["payload"]["to"] == running
            assert data["payload"]["changed"] == [{"seq": 1, "kind": "step", "field": "ruling"}]

            judged = http.post(
                f"/games/{game}/actions",
                json=step,
                headers={**auth("blue"), "If-Match": upgraded.headers["ETag"]},
            )
            assert judged.status_code == 201, judged.text
            live = stream.next_event(10)
            assert (live.event, live.json()["ruleset_version"]) == ("step", running)

        listed = http.get(f"/games/{game}/events").json()["items"]
        assert [(e["kind"], e["ruleset_version"]) for e in listed] == [
            ("step", None),
            ("step", None),
            ("step", None),
            ("ruleset_upgraded", running),
            ("step", running),
        ]
        after = http.get(f"/games/{game}", headers=auth("red")).json()
        assert after["ruleset_version"] == running and after["upgrade_available"] is False
        assert after["ruleset_created_version"] == OLD_VERSION

        report = http.get(f"/games/{game}/audit", headers=auth("umpire")).json()
        assert [
            (s["from_seq"], s["to_seq"], s["version"], s["same_version"], s["differences"])
            for s in report["stretches"]
        ] == [(1, 3, None, False, 1), (4, 5, running, True, 0)]
        assert [d["seq"] for d in report["differences"]] == [1]
        assert "was not recorded" in report["differences"][0]["message"]
