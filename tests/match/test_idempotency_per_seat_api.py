"""Idempotency keys are per seat (unique per game, seat and key): two seats of one game use
the same key independently -- for actions, match-flow commands and sealed orders -- while one
seat reusing its key for another request is 422 ``idempotency.key_reused``. Both databases."""

from __future__ import annotations

import httpx
import pytest

from tests.match.flowkit import Game, new_game, problem

pytestmark = pytest.mark.anyio

KEY = {"Idempotency-Key": "k1"}


async def test_two_seats_use_the_same_key_for_actions(client: httpx.AsyncClient) -> None:
    g = await new_game(client)
    red = await g.act("red", {"kind": "step", "pawn": "r1", "n": 1}, **KEY)
    assert red.status_code == 201, red.text
    blue = await g.act("blue", {"kind": "step", "pawn": "b1", "n": -1}, **KEY)
    assert blue.status_code == 201, blue.text
    assert "idempotent-replayed" not in blue.headers and blue.json()["event"] == 2
    assert await g.version() == 3

    # a retry of each seat replays its own answer
    again = await client.post(
        f"/games/{g.id}/actions",
        json={"kind": "step", "pawn": "b1", "n": -1},
        headers=g.write("blue", 2, **KEY),
    )
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.content == blue.content
    # the same seat, the same key, another body
    other = await g.act("red", {"kind": "step", "pawn": "r1", "n": 2}, **KEY)
    body = problem(other, 422, "idempotency.key_reused")
    assert body["event"] == 1
    assert await g.version() == 3


async def test_two_seats_use_the_same_key_for_match_flow_commands(
    client: httpx.AsyncClient,
) -> None:
    g = await new_game(client, sequence=True)
    ended = await g.post("/phase/end", "red", **KEY)
    assert ended.status_code == 201, ended.text
    advanced = await g.post("/phase/advance", "umpire", **KEY)
    assert advanced.status_code == 201, advanced.text
    assert "idempotent-replayed" not in advanced.headers
    assert await g.version() == 3
    reused = await g.post("/rollback", "umpire", json={"to_version": 1}, **KEY)
    problem(reused, 422, "idempotency.key_reused")


async def test_two_seats_use_the_same_key_for_sealed_orders(client: httpx.AsyncClient) -> None:
    r = await client.post("/games", json={"ruleset": "blind", "scenario": {"budget": 10}})
    assert r.status_code == 201, r.text
    g = Game(client, r.json()["id"], r.json()["seats"])
    url = f"/games/{g.id}/sealed/bid.r1"
    red = await client.post(url, json={"bid": 3}, headers=g.write("red", "*", **KEY))
    assert red.status_code == 201, red.text
    reused = await client.post(url, json={"bid": 4}, headers=g.write("red", "*", **KEY))
    problem(reused, 422, "idempotency.key_reused")
    assert red.json()["nonce"] not in reused.text
    blue = await client.post(url, json={"bid": 2}, headers=g.write("blue", "*", **KEY))
    assert blue.status_code == 201, blue.text
    assert blue.json()["side"] == "blue" and blue.json()["reveal"] is not None
    assert blue.json()["reveal"]["orders"]["red"]["order"] == {"bid": 3, "motto": ""}
