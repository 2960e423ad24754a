"""Appeals (issue 26) through HTTP on both databases: a side appeals a ruling within the
game's window, one open appeal per event, only rulings it may read; the umpire upholds or
overrides (by rollback, by a corrected action); the audit replays a game with appeals and an
export with an appeal verifies."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.match.flowkit import Game, new_game, problem

pytestmark = pytest.mark.anyio

RED_STEP = {"kind": "step", "pawn": "r1", "n": 1}
BLUE_STEP = {"kind": "step", "pawn": "b1", "n": -1}


async def appeal(g: Game, seat: str, seq: int, note: Any = "blocked") -> httpx.Response:
    return await g.post(f"/events/{seq}/appeal", seat, json={"note": note})


async def decide(g: Game, appeal_seq: int, seat: str = "umpire", **body: Any) -> httpx.Response:
    return await g.post(f"/appeals/{appeal_seq}/decision", seat, json=body)


async def appeals(g: Game, seat: str | None = "umpire") -> list[dict[str, Any]]:
    r = await g.client.get(f"/games/{g.id}/appeals", headers=g.auth(seat) if seat else {})
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


async def audit(g: Game) -> dict[str, Any]:
    r = await g.client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_a_side_appeals_and_the_umpire_upholds(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    assert (await g.act("red", RED_STEP)).status_code == 201
    r = await appeal(g, "blue", 1, "r1 moved through b1")
    assert r.status_code == 201, r.text
    assert r.json()["version"] == 3 and r.json()["event"] == 2
    event = (await g.events("red"))[-1]
    assert event["kind"] == "appeal" and event["seat"] == "blue"
    assert event["payload"] == {
        "event": 1,
        "event_kind": "step",
        "appellant": "blue",
        "note": "r1 moved through b1",
    }
    listed = await appeals(g, None)
    assert [(a["appeal"], a["event"], a["status"]) for a in listed] == [(2, 1, "open")]
    # one open appeal per event
    problem(await appeal(g, "red", 1), 409, "appeal.already_open")
    # only the umpire decides, and an uphold takes no override
    problem(await decide(g, 2, "red", outcome="upheld"), 403, "appeal.umpire_only")
    problem(await decide(g, 2, outcome="upheld", rollback_to=1), 422, "appeal.bad_decision")
    problem(await decide(g, 2, outcome="overridden"), 422, "appeal.bad_decision")
    problem(await decide(g, 1, outcome="upheld"), 404, "appeal.not_found")
    state = (await g.view())["state"]
    r = await decide(g, 2, outcome="upheld", note="the path was clear")
    assert r.status_code == 201, r.text
    assert (await g.view())["state"] == state
    decided = (await appeals(g, "blue"))[0]
    assert decided["status"] == "decided"
    assert decided["decision"]["outcome"] == "upheld"
    assert decided["decision"]["note"] == "the path was clear"
    assert decided["decision"]["event"] == 3 and decided["decision"]["override"] is None
    problem(await decide(g, 2, outcome="upheld"), 409, "appeal.already_decided")
    # decided: the event may be appealed again (one *open* appeal per event)
    assert (await appeal(g, "red", 1, "again")).status_code == 201
    assert (await audit(g))["ok"] is True


async def test_who_may_appeal_what(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    assert (await g.act("red", RED_STEP)).status_code == 201
    problem(await appeal(g, "umpire", 1), 403, "appeal.sides_only")
    problem(await appeal(g, "blue", 9), 404, "event.not_found")
    problem(await appeal(g, "blue", 1, ""), 422, "appeal.invalid_note")
    problem(await appeal(g, "blue", 1, "bell\x07"), 422, "appeal.invalid_note")
    problem(await appeal(g, "blue", 1, "x" * 501), 422, "appeal.invalid_note")
    problem(await appeal(g, "blue", 1, 7), 422, "request.invalid")
    assert (await g.post("/phase/advance", "umpire")).status_code in (201, 409)
    r = await g.post("/finish", "umpire", json={"winner": None})
    assert r.status_code == 201, r.text
    problem(await appeal(g, "blue", 1), 409, "game.finished")


async def test_only_an_action_event_is_appealed(client: httpx.AsyncClient) -> None:
    g = await new_game(client, sequence=True)
    assert (await g.act("red", RED_STEP)).status_code == 201
    assert (await g.post("/phase/end", "red")).status_code == 201
    problem(await appeal(g, "blue", 2), 409, "appeal.not_an_action")
    assert (await appeal(g, "blue", 1)).status_code == 201
    problem(await appeal(g, "red", 3), 409, "appeal.not_an_action")  # an appeal is no ruling


async def test_the_window_closes_after_the_events_the_match_allows(
    client: httpx.AsyncClient,
) -> None:
    g = await new_game(client, match={"appeal_window_events": 1})
    assert (await g.view())["match"]["appeal_window_events"] == 1
    assert (await g.act("red", RED_STEP)).status_code == 201
    assert (await g.act("blue", BLUE_STEP)).status_code == 201  # one event followed: open
    assert (await g.act("red", RED_STEP)).status_code == 201  # two: closed for event 1
    body = problem(await appeal(g, "blue", 1), 409, "appeal.window_closed")
    assert body["window"] == 1 and body["followed"] == 2
    assert body["citations"][0]["section"] == "appeals"
    assert (await appeal(g, "blue", 2)).status_code == 201
    default = await new_game(client)
    assert (await default.view())["match"]["appeal_window_events"] == 5


async def test_an_override_by_rollback_restores_the_version(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    start = (await g.view("umpire"))["state"]
    assert (await g.act("red", RED_STEP)).status_code == 201
    assert (await appeal(g, "blue", 1)).status_code == 201
    problem(await decide(g, 2, outcome="overridden", rollback_to=3), 422, "rollback.bad_version")
    r = await decide(g, 2, outcome="overridden", rollback_to=1, note="r1 was blocked")
    assert r.status_code == 201, r.text
    assert r.json()["state"] == start
    event = (await g.events("blue"))[-1]
    assert event["kind"] == "appeal_decided"
    assert event["payload"]["override"] == "rollback"
    assert event["payload"]["to_version"] == 1 and event["payload"]["from_version"] == 3
    assert (await appeals(g, "blue"))[0]["decision"]["to_version"] == 1
    # play goes on from the restored state, and the audit replays it all
    assert (await g.act("red", RED_STEP)).status_code == 201
    report = await audit(g)
    assert report["ok"] is True, report
    assert report["events"] == 4


async def test_an_override_by_a_corrected_action(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 2})).status_code == 201
    moved = (await g.view())["state"]["positions"]["r1"]
    assert (await appeal(g, "blue", 1, "r1 may step one square only")).status_code == 201
    off = {"kind": "step", "pawn": "r1", "n": -10}
    r = await decide(g, 2, outcome="overridden", action=off)
    assert r.status_code == 422 and r.json()["code"] == "action.illegal", r.text
    nope = {"kind": "nope"}
    problem(await decide(g, 2, outcome="overridden", action=nope), 422, "action.invalid")
    back = {"kind": "step", "pawn": "r1", "n": -1}
    r = await decide(g, 2, outcome="overridden", action=back, note="one square")
    assert r.status_code == 201, r.text
    assert r.json()["state"]["positions"]["r1"] == moved - 1
    event = (await g.events("red"))[-1]
    assert event["kind"] == "appeal_decided" and event["action"] == back
    assert event["payload"]["override"] == "action" and event["payload"]["action_kind"] == "step"
    assert event["ruling"]["legal"] is True
    # a corrected action that rolls dice: rolled like a submission, replayed by the audit
    assert (await appeal(g, "blue", 1, "and the roll")).status_code == 201
    r = await decide(g, 4, outcome="overridden", action={"kind": "roll", "pawn": "r1"})
    assert r.status_code == 201, r.text
    assert len((await g.events("red"))[-1]["dice"]) == 1
    report = await audit(g)
    assert report["ok"] is True, report


async def test_an_appeal_about_a_hidden_event_stays_hidden(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    marker = "APPEAL-SECRET-2612"
    assert (await g.act("red", {"kind": "note", "text": "secret"})).status_code == 201
    problem(await appeal(g, "blue", 1), 403, "appeal.hidden_event")
    assert (await appeal(g, "red", 1, marker)).status_code == 201
    for seat in ("blue", None):
        events = await g.client.get(f"/games/{g.id}/events", headers=g.auth(seat) if seat else {})
        assert marker not in events.text
        assert events.json()["items"][1]["kind"] == "redacted"
        assert await appeals(g, seat) == []
        listed = await g.client.get(f"/games/{g.id}/appeals", headers=g.auth(seat) if seat else {})
        assert marker not in listed.text
    assert [a["note"] for a in await appeals(g, "red")] == [marker]
    assert (await decide(g, 2, outcome="upheld")).status_code == 201
    assert (await g.events("blue"))[2]["kind"] == "redacted"
    assert (await appeals(g, "red"))[0]["decision"]["outcome"] == "upheld"
    assert await appeals(g, "blue") == []


async def test_the_export_of_a_game_with_appeals_verifies(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    assert (await g.act("red", RED_STEP)).status_code == 201
    assert (await appeal(g, "blue", 1)).status_code == 201
    assert (await decide(g, 2, outcome="overridden", rollback_to=1)).status_code == 201
    assert (await g.act("red", {"kind": "step", "pawn": "r1", "n": 2})).status_code == 201
    assert (await appeal(g, "blue", 4, "too far")).status_code == 201
    back = {"kind": "step", "pawn": "r1", "n": -1}
    assert (await decide(g, 5, outcome="overridden", action=back)).status_code == 201
    assert (await appeal(g, "blue", 4, "again")).status_code == 201
    assert (await decide(g, 7, outcome="upheld")).status_code == 201
    r = await client.get(f"/games/{g.id}/export", headers=g.auth("umpire"))
    assert r.status_code == 200, r.text
    file = r.json()
    kinds = [e["kind"] for e in file["events"]]
    assert kinds.count("appeal") == 3 and kinds.count("appeal_decided") == 3
    report = (await client.post("/verify", json=file)).json()
    assert report["ok"] is True and report["verified_all"] is True, report
    imported = await client.post("/games/import", json=file)
    assert imported.status_code == 201, imported.text
    # tampered: the corrected action's recorded ruling no longer matches
    file["events"][5]["ruling"]["summary"] = "doctored"
    assert (await client.post("/verify", json=file)).json()["ok"] is False
