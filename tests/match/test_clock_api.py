"""Correspondence clocks through HTTP on both databases, with an injected time source (no
test waits): remaining time in the game view, charging and increments, expiry handled lazily
by forfeit or by notifying the umpire."""

from __future__ import annotations

import httpx
import pytest

from tests.match.flowkit import START, FakeClock, new_game, problem

pytestmark = pytest.mark.anyio

CONTROL = {"budget_seconds": 100, "increment_seconds": 10, "cap_seconds": 105}


RED_STEP = {"kind": "step", "pawn": "r1", "n": 1}
BLUE_STEP = {"kind": "step", "pawn": "b1", "n": -1}


async def test_remaining_time_in_every_view_and_charging(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    g = await new_game(client, match={"clock": CONTROL})
    assert (await g.view())["clock"] == {
        "budget_seconds": 100.0,
        "increment_seconds": 10.0,
        "cap_seconds": 105.0,
        "on_expiry": "notify_umpire",
        "remaining": {"red": 100.0, "blue": 100.0},
        "running": "red",
        "expired": [],
        "as_of": START,
    }
    clock.advance(30)
    view = await g.view("blue")
    assert view["clock"]["remaining"] == {"red": 70.0, "blue": 100.0}
    r = await g.act("red", RED_STEP)
    assert r.status_code == 201
    # red is charged 30 s, gets the 10 s increment; blue's time starts running
    assert r.json()["clock"]["remaining"] == {"red": 80.0, "blue": 100.0}
    assert r.json()["clock"]["running"] == "blue"
    clock.advance(2)
    r = await g.act("blue", BLUE_STEP)
    assert r.json()["clock"]["remaining"] == {"red": 80.0, "blue": 105.0}  # capped
    clock.advance(5)
    assert (await g.view())["clock"]["remaining"] == {"red": 75.0, "blue": 105.0}
    # an umpire action charges nobody and keeps the same side running
    assert (await g.act("umpire", {"kind": "reset"})).status_code == 201
    clock.advance(5)
    view = await g.view()
    assert view["clock"]["remaining"] == {"red": 70.0, "blue": 105.0}
    assert view["clock"]["running"] == "red"


async def test_running_side_follows_the_sequence_of_play(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    g = await new_game(client, sequence=True, match={"clock": CONTROL})
    clock.advance(20)
    assert (await g.act("red", RED_STEP)).status_code == 201
    # still red's phase: red stays on the clock, with its increment
    view = await g.view()
    assert view["clock"]["running"] == "red"
    assert view["clock"]["remaining"] == {"red": 90.0, "blue": 100.0}
    clock.advance(5)
    r = await g.post("/phase/end", "red")
    # the react phase is blue's to act in: blue's clock runs
    assert r.json()["clock"]["running"] == "blue"
    assert r.json()["clock"]["remaining"] == {"red": 95.0, "blue": 100.0}
    clock.advance(7)
    r = await g.post("/phase/advance", "umpire")
    # an umpire advance switches without an increment; blue's move phase: blue runs
    assert r.json()["clock"]["remaining"] == {"red": 95.0, "blue": 93.0}
    assert r.json()["clock"]["running"] == "blue"


async def test_expiry_notifies_the_umpire_and_play_goes_on(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    g = await new_game(client, match={"clock": CONTROL})
    clock.advance(150)
    view = await g.view("blue")  # a read handles the expiry lazily
    assert view["status"] == "active" and view["version"] == 2
    assert view["clock"]["expired"] == ["red"] and view["clock"]["remaining"]["red"] == 0.0
    events = await g.events("blue")
    assert [e["kind"] for e in events] == ["clock_expired"]
    assert events[0]["payload"] == {"sides": ["red"], "on_expiry": "notify_umpire", "winner": None}
    assert events[0]["visible_to"] is None and events[0]["seat"] == "system"
    # announced once only
    assert (await g.view())["version"] == 2
    assert (await g.act("red", RED_STEP)).status_code == 201
    assert [e["kind"] for e in await g.events()] == ["clock_expired", "step"]


async def test_expiry_forfeits_on_the_next_write(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    g = await new_game(client, match={"clock": {**CONTROL, "on_expiry": "forfeit"}})
    assert (await g.act("red", RED_STEP)).status_code == 201
    clock.advance(101)  # blue's time runs out
    r = await client.post(f"/games/{g.id}/actions", json=BLUE_STEP, headers=g.write("blue", 2))
    body = problem(r, 409, "game.finished")
    assert body["winner"] == "red"
    view = await g.view()
    assert view["status"] == "finished" and view["winner"] == "red"
    assert view["clock"]["running"] is None and view["clock"]["expired"] == ["blue"]
    expired = [e for e in await g.events("red") if e["kind"] == "clock_expired"]
    assert expired[0]["payload"] == {"sides": ["blue"], "on_expiry": "forfeit", "winner": "red"}
    # the game is over: its seed is public
    assert (await client.get(f"/games/{g.id}/dice")).json()["seed"] is not None
