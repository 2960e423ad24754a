"""Undo through HTTP on both databases: the umpire's rollback (appended, never rewriting the
log) and a player's takeback with its conditions."""

from __future__ import annotations

import httpx
import pytest

from tests.match.flowkit import new_game, problem

pytestmark = pytest.mark.anyio


def step(pawn: str, n: int) -> dict[str, object]:
    return {"kind": "step", "pawn": pawn, "n": n}


async def test_rollback_appends_an_event_and_restores_the_state(
    client: httpx.AsyncClient,
) -> None:
    g = await new_game(client)
    for action, seat in ((step("r1", 2), "red"), (step("b1", -3), "blue"), (step("r1", 1), "red")):
        assert (await g.act(seat, action)).status_code == 201
    assert (await g.view())["state"]["positions"] == {"r1": 3, "b1": 6}

    url = f"/games/{g.id}/rollback"
    problem(await client.post(url, json={"to_version": 2}), 401, "auth.required")
    problem(
        await client.post(url, json={"to_version": 2}, headers=g.auth("umpire")),
        428,
        "precondition.if_match_required",
    )
    problem(await g.post("/rollback", "red", json={"to_version": 2}), 403, "rollback.umpire_only")
    problem(
        await g.post("/rollback", "umpire", json={"to_version": 4}), 422, "rollback.bad_version"
    )
    problem(await g.post("/rollback", "umpire", json={"to_version": 0}), 422, "request.invalid")
    problem(await g.post("/rollback", "umpire", json={}), 422, "request.invalid")

    r = await g.post("/rollback", "umpire", json={"to_version": 2})
    assert r.status_code == 201, r.text
    assert r.json()["version"] == 5 and r.json()["event"] == 4
    view = await g.view()
    assert view["version"] == 5 and view["state"]["positions"] == {"r1": 2, "b1": 9}
    events = await g.events("blue")
    assert [e["kind"] for e in events] == ["step", "step", "step", "rollback"]
    assert events[-1]["payload"] == {"to_version": 2, "from_version": 4}
    assert events[-1]["seat"] == "umpire"

    # back to the very beginning: the initial state
    assert (await g.post("/rollback", "umpire", json={"to_version": 1})).status_code == 201
    assert (await g.view())["state"]["positions"] == {"r1": 0, "b1": 9}
    # and forward again: the state of version 4 is still in the log
    assert (await g.post("/rollback", "umpire", json={"to_version": 4})).status_code == 201
    assert (await g.view())["state"]["positions"] == {"r1": 3, "b1": 6}


async def test_rollback_keeps_the_dice_counter_going(client: httpx.AsyncClient) -> None:
    g = await new_game(client, length=30)
    roll = {"kind": "roll", "pawn": "r1"}
    assert (await g.act("red", roll)).status_code == 201
    assert (await g.post("/rollback", "umpire", json={"to_version": 1})).status_code == 201
    assert (await g.act("red", roll)).status_code == 201
    events = await g.events()
    assert [e["dice"][0]["n"] for e in events if e["dice"]] == [0, 1]  # no number used twice
    assert (await g.view())["dice"]["rolled"] == 2


async def test_takeback_of_own_last_action(client: httpx.AsyncClient) -> None:
    off = await new_game(client)
    assert (await off.act("red", step("r1", 2))).status_code == 201
    problem(await off.post("/takeback", "red"), 409, "takeback.disabled")

    g = await new_game(client, match={"takeback": True})
    problem(await g.post("/takeback", "red"), 409, "takeback.nothing")
    assert (await g.act("red", step("r1", 2))).status_code == 201
    assert (await g.act("red", step("r1", 3))).status_code == 201
    problem(await g.post("/takeback", "blue"), 409, "takeback.not_yours")
    problem(await g.post("/takeback", "umpire"), 403, "takeback.players_only")

    r = await g.post("/takeback", "red")
    assert r.status_code == 201, r.text
    assert r.json()["state"]["positions"]["r1"] == 2
    # a second takeback walks further back, past the first
    assert (await g.post("/takeback", "red")).status_code == 201
    assert (await g.view())["state"]["positions"]["r1"] == 0
    problem(await g.post("/takeback", "red"), 409, "takeback.nothing")
    events = await g.events()
    assert [e["kind"] for e in events] == ["step", "step", "takeback", "takeback"]
    assert [e["payload"] for e in events[2:]] == [
        {"event": 2, "to_version": 2},
        {"event": 1, "to_version": 1},
    ]

    # once the opponent has acted, the window is closed for red
    assert (await g.act("red", step("r1", 1))).status_code == 201
    assert (await g.act("blue", step("b1", -1))).status_code == 201
    problem(await g.post("/takeback", "red"), 409, "takeback.not_yours")
    assert (await g.post("/takeback", "blue")).status_code == 201
    assert (await g.view())["state"]["positions"] == {"r1": 1, "b1": 9}


async def test_no_takeback_after_dice_or_a_phase_change(client: httpx.AsyncClient) -> None:
    g = await new_game(client, length=30, match={"takeback": True})
    assert (await g.act("red", {"kind": "roll", "pawn": "r1"})).status_code == 201
    problem(await g.post("/takeback", "red"), 409, "takeback.dice_rolled")

    seq = await new_game(client, sequence=True, match={"takeback": True})
    assert (await seq.act("red", step("r1", 2))).status_code == 201
    assert (await seq.post("/phase/end", "red")).status_code == 201
    body = problem(await seq.post("/takeback", "red"), 409, "takeback.window_closed")
    assert body["event"] == 2
    assert (await seq.view())["state"]["positions"]["r1"] == 2


async def test_finished_games_cannot_be_undone(client: httpx.AsyncClient) -> None:
    g = await new_game(client, match={"takeback": True})
    assert (await g.act("red", step("r1", 2))).status_code == 201
    assert (await g.post("/finish", "umpire", json={"winner": "red"})).status_code == 201
    problem(await g.post("/rollback", "umpire", json={"to_version": 1}), 409, "game.finished")
    problem(await g.post("/takeback", "red"), 409, "game.finished")
