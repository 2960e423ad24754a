"""A rollback withdraws the sealed orders received after its target version that were not
revealed: they are never revealed, their side may submit again, and the audit agrees
(blind test ruleset, both databases)."""

from __future__ import annotations

import httpx
import pytest

from tests.match.flowkit import Game

pytestmark = pytest.mark.anyio

OLD_MARKER = "withdrawn-marker-7c1e"


async def test_rollback_withdraws_an_unrevealed_sealed_order(client: httpx.AsyncClient) -> None:
    r = await client.post("/games", json={"ruleset": "blind", "scenario": {"budget": 10}})
    assert r.status_code == 201, r.text
    g = Game(client, r.json()["id"], r.json()["seats"])
    url = f"/games/{g.id}/sealed/bid.r1"
    first = await client.post(url, json={"bid": 1, "motto": OLD_MARKER}, headers=g.write("red", 1))
    assert first.status_code == 201, first.text
    old_commitment = first.json()["commitment"]

    back = await g.post("/rollback", "umpire", json={"to_version": 1})
    assert back.status_code == 201, back.text
    rollback_event = (await g.events("blue"))[-1]
    assert rollback_event["kind"] == "rollback"
    assert rollback_event["payload"]["withdrawn"] == [
        {"instance": "bid.r1", "side": "red", "commitment": old_commitment, "event": 1}
    ]
    assert OLD_MARKER not in back.text and OLD_MARKER not in str(rollback_event)
    listing = (await client.get(f"/games/{g.id}/sealed", headers=g.auth("red"))).json()
    assert listing["open"][0]["waiting"] == ["red", "blue"]
    assert listing["open"][0]["received"] == [] and listing["open"][0]["own"] is None

    again = await client.post(url, json={"bid": 4, "motto": "second"}, headers=g.write("red"))
    assert again.status_code == 201, again.text
    new_commitment = again.json()["commitment"]
    blue = await client.post(url, json={"bid": 2}, headers=g.write("blue"))
    assert blue.status_code == 201, blue.text
    reveal = blue.json()["reveal"]
    assert reveal is not None and reveal["missing"] == []
    assert reveal["orders"]["red"]["order"] == {"bid": 4, "motto": "second"}
    assert reveal["orders"]["red"]["commitment"] == new_commitment != old_commitment
    assert reveal["ruling"]["details"]["bids"] == {"red": 4, "blue": 2}

    everything = (await client.get(f"/games/{g.id}/events", headers=g.auth("umpire"))).text
    assert OLD_MARKER not in everything
    sealed = (await client.get(f"/games/{g.id}/sealed", headers=g.auth("umpire"))).text
    assert OLD_MARKER not in sealed

    audit = await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))
    assert audit.status_code == 200, audit.text
    assert audit.json()["ok"] is True, audit.json()
    assert audit.json()["events"] == 5
