"""``GET /games/{id}/positions/{version}``: the game as it stood at an earlier version, per
reader, on both databases. Each reader sees of a past position exactly what ``GET
/games/{id}`` showed it at that version -- the ruleset's per-seat view -- so a hidden event
(a ``tiny`` note, a sealed bid of ``blind``) leaks nothing to a seat that may not read it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.conftest import Game, new_game

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
SECRET = "flank them at dawn"


def _problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    return body


async def _live(client: httpx.AsyncClient, game: Game) -> dict[str | None, dict[str, Any]]:
    """What ``GET /games/{id}`` shows each reader now (None: anonymous)."""
    seen: dict[str | None, dict[str, Any]] = {}
    for seat in (None, "red", "blue", "umpire"):
        headers = game.auth(seat) if seat else {}
        r = await client.get(f"/games/{game.id}", headers=headers)
        assert r.status_code == 200, r.text
        seen[seat] = r.json()
    return seen


async def test_every_reader_sees_each_past_position_as_it_saw_it_live_and_no_hidden_note(
    client: httpx.AsyncClient,
) -> None:
    game = await new_game(client)
    url = f"/games/{game.id}/actions"
    live = {1: await _live(client, game)}
    moves: list[tuple[str, dict[str, Any]]] = [
        ("red", {"kind": "step", "pawn": "r1", "n": 2}),
        ("blue", {"kind": "note", "text": SECRET}),  # readable by blue and the umpire only
        ("blue", {"kind": "step", "pawn": "b1", "n": -3}),
    ]
    for version, (actor, action) in enumerate(moves, start=1):
        r = await client.post(url, json=action, headers=game.act(actor, version))
        assert r.status_code == 201, r.text
        live[version + 1] = await _live(client, game)

    for version, seen in live.items():
        for seat, shown in seen.items():
            headers = game.auth(seat) if seat else {}
            r = await client.get(f"/games/{game.id}/positions/{version}", headers=headers)
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["version"] == version and body["current_version"] == 4
            assert body["event"] == (version - 1 if version > 1 else None)
            assert body["seat"] == seat
            assert body["state"] == shown["state"], (version, seat)
            assert body["position"] == shown["position"]
            assert (SECRET in json.dumps(body)) == (seat == "umpire" and version >= 3)

    # the pawns as they stood: r1 on 0, then 2; b1 on 9 until the last step
    red = game.auth("red")
    first = (await client.get(f"/games/{game.id}/positions/1", headers=red)).json()
    after_step = (await client.get(f"/games/{game.id}/positions/2", headers=red)).json()
    assert first["state"]["positions"] == {"r1": 0, "b1": 9}
    assert after_step["state"]["positions"] == {"r1": 2, "b1": 9}
    # the note's event itself stays redacted for red: the position after it shows a count
    note = (await client.get(f"/games/{game.id}/events/2", headers=red)).json()
    assert note["redacted"] is True and note["kind"] == "redacted"
    after_note = (await client.get(f"/games/{game.id}/positions/3", headers=red)).json()
    assert after_note["state"]["notes"] == 1

    # versions the game has not reached, and malformed ones
    _problem(await client.get(f"/games/{game.id}/positions/5"), 404, "position.not_found")
    _problem(await client.get(f"/games/{game.id}/positions/0"), 422, "request.invalid")
    _problem(await client.get(f"/games/{game.id}/positions/x"), 422, "request.invalid")
    _problem(
        await client.get("/games/00000000-0000-0000-0000-000000000000/positions/1"),
        404,
        "game.not_found",
    )


async def test_a_private_game_s_past_positions_need_a_token(client: httpx.AsyncClient) -> None:
    game = await new_game(client, public=False)
    r = await client.post(
        f"/games/{game.id}/actions",
        json={"kind": "step", "pawn": "r1", "n": 1},
        headers=game.act("red", 1),
    )
    assert r.status_code == 201, r.text
    _problem(await client.get(f"/games/{game.id}/positions/1"), 401, "auth.required")
    r = await client.get(f"/games/{game.id}/positions/1", headers={"Authorization": "Bearer nope"})
    _problem(r, 401, "auth.invalid_token")
    r = await client.get(f"/games/{game.id}/positions/1", headers=game.auth("blue"))
    assert r.status_code == 200 and r.json()["state"]["positions"]["r1"] == 0


async def test_a_sealed_bid_is_in_no_past_position_before_its_reveal(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/games", json={"ruleset": "blind", "scenario": {"budget": 10}})
    assert r.status_code == 201, r.text
    game = Game(id=r.json()["id"], seats=r.json()["seats"], body=r.json())
    motto = "the quiet ones bid high"
    r = await client.post(
        f"/games/{game.id}/sealed/bid.r1",
        json={"bid": 7, "motto": motto},
        headers=game.act("red", 1),
    )
    assert r.status_code == 201, r.text
    for seat in (None, "blue", "umpire", "red"):
        headers = game.auth(seat) if seat else {}
        for version in (1, 2):
            r = await client.get(f"/games/{game.id}/positions/{version}", headers=headers)
            assert r.status_code == 200, r.text
            text = r.text
            assert motto not in text and '"bid"' not in text, (seat, version)
            assert r.json()["state"]["budgets"] == {"red": 10, "blue": 10}
    # once both are in, the bids are revealed and spent: the position after it shows that
    r = await client.post(
        f"/games/{game.id}/sealed/bid.r1", json={"bid": 2}, headers=game.act("blue", 2)
    )
    assert r.status_code == 201, r.text
    now = (await client.get(f"/games/{game.id}")).json()["version"]
    last = (await client.get(f"/games/{game.id}/positions/{now}")).json()
    assert last["state"]["budgets"] == {"red": 3, "blue": 8}
    before = (await client.get(f"/games/{game.id}/positions/2")).json()
    assert before["state"]["budgets"] == {"red": 10, "blue": 10}


async def test_an_objective_zones_allocation_stays_sealed_in_past_positions(
    client: httpx.AsyncClient,
) -> None:
    scenario = json.loads((ROOT / "scenarios" / "objective-zones" / "example.json").read_text())
    r = await client.post("/games", json={"ruleset": "objective-zones", "scenario": scenario})
    assert r.status_code == 201, r.text
    game = Game(id=r.json()["id"], seats=r.json()["seats"], body=r.json())
    declare = {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]}
    r = await client.post(f"/games/{game.id}/actions", json=declare, headers=game.act("union", 1))
    assert r.status_code == 201, r.text
    for version in range(2, 6):
        r = await client.post(
            f"/games/{game.id}/phase/advance", headers=game.act("umpire", version)
        )
        assert r.status_code == 201, r.text
    url = f"/games/{game.id}/sealed/allocation:mill:t1"
    order = {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}}
    r = await client.post(url, json=order, headers=game.act("union", 6))
    assert r.status_code == 201, r.text
    spectator = (await client.get(f"/games/{game.id}/positions/7")).json()
    confederate = await client.get(
        f"/games/{game.id}/positions/7", headers=game.auth("confederate")
    )
    for body in (spectator, confederate.json()):
        placed = {u["id"]: (u.get("zone"), u.get("sector")) for u in body["state"]["units"]}
        assert placed["us-1"] == placed["us-2"] == placed["us-bty"] == (None, None)
        assert "sectors" not in json.dumps(body)
    r = await client.post(
        url,
        json={"sectors": {"1": ["cs-22va", "cs-bty"], "2": ["cs-36va"]}},
        headers=game.act("confederate", 7),
    )
    assert r.status_code == 201, r.text
    revealed = (await client.get(f"/games/{game.id}/positions/9")).json()
    placed = {u["id"]: (u.get("zone"), u.get("sector")) for u in revealed["state"]["units"]}
    assert placed["us-1"] == ("mill", 1)
    # and the position before the reveal still shows none of it
    before = (await client.get(f"/games/{game.id}/positions/8")).json()
    assert {u["id"]: u.get("zone") for u in before["state"]["units"]}["us-1"] is None


async def test_the_game_view_names_the_options_that_choose_its_readings(
    client: httpx.AsyncClient,
) -> None:
    plain = await new_game(client)
    wraps = await new_game(client, options={"wrap": True})
    assert (await client.get(f"/games/{plain.id}")).json()["options"] == {"wrap": False}
    assert (await client.get(f"/games/{wraps.id}")).json()["options"] == {"wrap": True}
