"""Issue 22 item 10, over HTTP on both databases: which rules judged a game is recorded.

Every event records the ruleset version that judged it; a game pinned to another version of
its ruleset than the one the server runs refuses every write (409
``ruleset.upgrade_required``) until the umpire previews and performs the upgrade
(``GET``/``POST /games/{id}/upgrade``); the audit cuts the log into stretches by version.

Two ways to make a game 'of an older release': swap the tiny ruleset for a changed copy
(``ShortSteps``, version 1.1) after playing, or rewrite ``games.ruleset_version`` in SQL
right after creation.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from app.db.models import EventRow
from app.rules import registry
from app.service import upgrade
from app.service.results import AuditDifference
from app.service.upgrade import listed_change
from tests.match.flowkit import new_game, problem
from tests.match.test_audit_api import ShortSteps, played, short_steps, swap_rules

pytestmark = pytest.mark.anyio

__all__ = ["short_steps"]


def upgrade_required(r: httpx.Response, pinned: str, running: str) -> dict[str, Any]:
    body = problem(r, 409, "ruleset.upgrade_required")
    assert body["ruleset_version"] == pinned and body["ruleset_running_version"] == running
    assert body["upgrade"].endswith("/upgrade")
    assert body["citations"][0]["section"] == "ruleset-version"
    return body


def pin(app: FastAPI, game_id: str, version: str) -> None:
    """The game was 'created by an older release': its pinned version rewritten in SQL."""
    with app.state.engine.begin() as conn:
        conn.execute(
            text("UPDATE games SET ruleset_version = :v WHERE id = :id"),
            {"v": version, "id": game_id},
        )


async def test_every_event_records_the_version_that_judged_it(
    client: httpx.AsyncClient,
) -> None:
    g = await new_game(client, length=30, sequence=True)
    assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 1})).status_code == 201
    assert (await g.post("/phase/end", "red")).status_code == 201
    events = await g.events()
    assert [(e["kind"], e["ruleset_version"]) for e in events] == [
        ("step", "1.0"),
        ("phase", "1.0"),
    ]
    one = (await client.get(f"/games/{g.id}/events/1")).json()
    assert one["ruleset_version"] == "1.0"
    view = await g.view("red")
    assert view["ruleset_version"] == view["ruleset_running_version"] == "1.0"
    assert view["ruleset_created_version"] == "1.0"
    assert view["upgrade_available"] is False


async def test_a_pinned_game_refuses_every_judging_write_and_still_reads(
    client: httpx.AsyncClient, short_steps: None
) -> None:
    g = await new_game(client, length=30, sequence=True, match={"takeback": True})
    assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 1})).status_code == 201
    swap_rules()
    view = await g.view("red")
    assert view["ruleset_version"] == "1.0" and view["ruleset_running_version"] == "1.1"
    assert view["upgrade_available"] is True
    step = {"kind": "step", "pawn": "r1", "n": 1}
    upgrade_required(await g.act("red", step), "1.0", "1.1")
    upgrade_required(await g.post("/phase/end", "red"), "1.0", "1.1")
    upgrade_required(await g.post("/phase/advance", "umpire"), "1.0", "1.1")
    upgrade_required(await g.post("/takeback", "red"), "1.0", "1.1")
    upgrade_required(await g.post("/finish", "umpire", json={"winner": None}), "1.0", "1.1")
    # dry runs are refused the same way: nothing is judged under rules the game is not on
    dry = await client.post(f"/games/{g.id}/rulings", json=step, headers=g.auth("red"))
    upgrade_required(dry, "1.0", "1.1")
    # a stale If-Match still answers 412 first (reload, then see the upgrade)
    stale = await client.post(f"/games/{g.id}/actions", json=step, headers=g.write("red", 1))
    problem(stale, 412, "precondition.stale")
    # what can I do now: nothing, and why
    now = (await client.get(f"/games/{g.id}/actions/available", headers=g.auth("red"))).json()
    assert now["may_act"] is False and now["may_end_phase"] is False
    assert "until the umpire upgrades it" in now["notes"][0]
    assert {"ruleset": "referee", "section": "ruleset-version"}.items() <= now["citations"][
        -1
    ].items()
    # reads work: the game, its events, its scenario, the audit
    assert len(await g.events()) == 1
    assert (await client.get(f"/games/{g.id}/scenario")).status_code == 200
    audit = await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))
    assert audit.status_code == 200
    assert await g.version() == 2  # nothing was written


async def test_the_umpire_previews_then_upgrades(
    client: httpx.AsyncClient, short_steps: None
) -> None:
    g = await new_game(client, length=30, sequence=True, match={"takeback": True})
    await played(g)
    swap_rules()
    url = f"/games/{g.id}/upgrade"
    problem(await client.get(url), 401, "auth.required")
    problem(await client.get(url, headers=g.auth("red")), 403, "upgrade.umpire_only")
    preview = (await client.get(url, headers=g.auth("umpire"))).json()
    assert (preview["from_version"], preview["to_version"]) == ("1.0", "1.1")
    assert preview["upgrade_available"] is True and preview["truncated"] is False
    assert preview["events"] == 11
    changed = preview["changed"]
    assert [(c["seq"], c["kind"], c["field"]) for c in changed] == [
        (4, "step", "ruling"),
        (7, "step", "ruling"),
    ]
    assert changed[0]["recorded"]["legal"] is True and changed[0]["replayed"]["legal"] is False
    assert changed[0]["version_changed"] is True and changed[0]["ruleset_version"] == "1.0"

    version = await g.version()
    problem(await client.post(url, headers=g.auth("umpire")), 428, "precondition.if_match_required")
    problem(await client.post(url, headers=g.write("red", version)), 403, "upgrade.umpire_only")
    r = await client.post(url, headers=g.write("umpire", version, **{"Idempotency-Key": "up-1"}))
    assert r.status_code == 201, r.text
    assert r.headers["ETag"] == f'W/"{version + 1}"'
    assert "from tiny 1.0 to 1.1" in r.json()["ruling"]["summary"]
    again = await client.post(
        url, headers=g.write("umpire", version, **{"Idempotency-Key": "up-1"})
    )
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.content == r.content

    event = (await g.events())[-1]
    assert (event["kind"], event["seat"], event["ruleset_version"]) == (
        "ruleset_upgraded",
        "umpire",
        "1.1",
    )
    assert event["payload"] == {
        "from": "1.0",
        "to": "1.1",
        "changed": [
            {"seq": 4, "kind": "step", "field": "ruling"},
            {"seq": 7, "kind": "step", "field": "ruling"},
        ],
        "truncated": False,
    }
    view = await g.view("umpire")
    assert view["ruleset_version"] == view["ruleset_running_version"] == "1.1"
    assert view["ruleset_created_version"] == "1.0" and view["upgrade_available"] is False
    problem(await g.post("/upgrade", "umpire"), 409, "ruleset.up_to_date")
    after = (await client.get(url, headers=g.auth("umpire"))).json()
    assert after["upgrade_available"] is False and after["changed"] == []

    # judged again, under the new rules, and recorded so
    position = (await g.view())["position"]
    mover = position["phasing_side"] if position["acts"] != "umpire" else "umpire"
    if mover == "umpire":
        assert (await g.post("/phase/advance", "umpire")).status_code == 201
        mover = (await g.view())["position"]["phasing_side"]
    pawn = "r1" if mover == "red" else "b1"
    far = await g.act(mover, {"kind": "step", "pawn": pawn, "n": 3 if mover == "red" else -3})
    problem(far, 422, "action.illegal")  # 1.1: at most two squares
    near = await g.act(mover, {"kind": "step", "pawn": pawn, "n": 1 if mover == "red" else -1})
    assert near.status_code == 201, near.text
    assert (await g.events())[-1]["ruleset_version"] == "1.1"

    report = (await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))).json()
    stretches = [
        (s["from_seq"], s["to_seq"], s["version"], s["same_version"], s["differences"])
        for s in report["stretches"]
    ]
    last = report["events"]
    assert stretches == [(1, 11, "1.0", False, 2), (12, last, "1.1", True, 0)]
    assert report["recorded_version"] == report["replayed_version"] == "1.1"
    assert report["version_changed"] is True
    assert [d["seq"] for d in report["differences"]] == [4, 7]
    assert all(d["version_changed"] for d in report["differences"])
    assert report["differences"][0]["message"].endswith(
        "after the ruleset version changed from 1.0 to 1.1"
    )


async def test_upgrading_a_game_on_the_running_version_is_refused(
    client: httpx.AsyncClient,
) -> None:
    g = await new_game(client, length=30)
    problem(await g.post("/upgrade", "umpire"), 409, "ruleset.up_to_date")
    preview = (await client.get(f"/games/{g.id}/upgrade", headers=g.auth("umpire"))).json()
    assert preview["upgrade_available"] is False and preview["changed"] == []
    assert preview["from_version"] == preview["to_version"] == "1.0"


async def test_a_game_rewritten_to_an_older_version_upgrades_without_changes(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    g = await new_game(client, length=30)
    pin(app, g.id, "0.9")  # 'created by an older release'
    view = await g.view("red")
    assert view["ruleset_version"] == "0.9" and view["upgrade_available"] is True
    upgrade_required(await g.act("red", {"kind": "step", "pawn": "r1", "n": 1}), "0.9", "1.0")
    preview = (await client.get(f"/games/{g.id}/upgrade", headers=g.auth("umpire"))).json()
    assert preview["changed"] == [] and preview["events"] == 0
    r = await g.post("/upgrade", "umpire")
    assert r.status_code == 201, r.text
    assert "judges every event of the log as it was judged" in r.json()["ruling"]["summary"]
    r = await g.act("red", {"kind": "step", "pawn": "r1", "n": 1})
    assert r.status_code == 201, r.text
    events = await g.events()
    assert [(e["kind"], e["ruleset_version"]) for e in events] == [
        ("ruleset_upgraded", "1.0"),
        ("step", "1.0"),
    ]


async def test_a_finished_pinned_game_stays_finished(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    g = await new_game(client, length=30)
    assert (await g.post("/finish", "umpire", json={"winner": "red"})).status_code == 201
    pin(app, g.id, "0.9")
    problem(await g.act("red", {"kind": "step", "pawn": "r1", "n": 1}), 409, "game.finished")
    problem(await g.post("/upgrade", "umpire"), 409, "game.finished")
    assert (await g.view())["upgrade_available"] is False


async def test_events_without_a_recorded_version_form_a_stretch_not_recorded(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    g = await new_game(client, length=30)
    for n in (1, 2, 3):
        assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": n})).status_code == 201
    with app.state.engine.begin() as conn:  # as if written before migration 0007
        conn.execute(
            text("UPDATE events SET ruleset_version = NULL WHERE game_id = :id AND seq < 3"),
            {"id": g.id},
        )
        row = conn.execute(
            text("SELECT ruling FROM events WHERE game_id = :id AND seq = 1"), {"id": g.id}
        ).scalar_one()
        ruling = json.loads(row) if isinstance(row, str) else row
        ruling["summary"] = "worded otherwise"
        conn.execute(
            text("UPDATE events SET ruling = :r WHERE game_id = :id AND seq = 1"),
            {"r": json.dumps(ruling), "id": g.id},
        )
    report = (await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))).json()
    assert [
        (s["from_seq"], s["to_seq"], s["version"], s["same_version"]) for s in report["stretches"]
    ] == [
        (1, 2, None, False),
        (3, 3, "1.0", True),
    ]
    first = report["first_difference"]
    assert first["seq"] == 1 and first["ruleset_version"] is None
    assert first["version_changed"] is False
    assert "was not recorded" in first["message"]
    events = await g.events()
    assert [e["ruleset_version"] for e in events] == [None, None, "1.0"]


async def test_the_upgrade_notifies_every_seat_with_a_webhook(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    g = await new_game(client, length=30)
    hook = await client.post(
        f"/games/{g.id}/webhooks",
        json={"url": "https://example.invalid/hook", "events": ["ruleset_upgraded"]},
        headers=g.auth("blue"),
    )
    assert hook.status_code == 201, hook.text
    pin(app, g.id, "0.9")
    assert (await g.post("/upgrade", "umpire")).status_code == 201
    with app.state.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT notification, payload FROM webhook_deliveries WHERE webhook_id = :w"),
            {"w": hook.json()["id"]},
        ).all()
    assert [r[0] for r in rows] == ["ruleset_upgraded"]
    payload = json.loads(rows[0][1]) if isinstance(rows[0][1], str) else rows[0][1]
    assert (payload["from"], payload["to"], payload["event"]) == ("0.9", "1.0", 1)


async def test_the_upgrade_payload_is_bounded(
    client: httpx.AsyncClient, short_steps: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upgrade, "MAX_CHANGED", 3)
    g = await new_game(client, length=30)
    for _ in range(5):  # every one a three-square step: 1.1 judges each differently
        assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 3})).status_code == 201
    swap_rules()
    assert isinstance(registry.get("tiny"), ShortSteps)
    preview = (await client.get(f"/games/{g.id}/upgrade", headers=g.auth("umpire"))).json()
    assert len(preview["changed"]) == 5 and preview["truncated"] is False
    r = await g.post("/upgrade", "umpire")
    assert r.status_code == 201, r.text
    assert "judges 5 events" in r.json()["ruling"]["summary"]
    payload = (await g.events())[-1]["payload"]
    assert [c["seq"] for c in payload["changed"]] == [1, 2, 3] and payload["truncated"] is True


def test_the_upgrade_payload_names_a_hidden_event_by_its_number_only() -> None:
    """Every reader sees the upgrade event: a changed event hidden from some seats is listed
    as ``redacted``, its ruling left to the umpire's preview and audit."""
    change = AuditDifference(seq=3, version=4, kind="probe", field="ruling", message="m")
    hidden = EventRow(seq=3, kind="probe", visible_to=["red", "umpire"])
    public = EventRow(seq=3, kind="probe", visible_to=None)
    assert listed_change(change, hidden) == {"seq": 3, "kind": "redacted", "field": "ruling"}
    assert listed_change(change, public) == {"seq": 3, "kind": "probe", "field": "ruling"}
