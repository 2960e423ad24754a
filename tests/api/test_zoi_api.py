"""The shipped `zoi` example (French column, Austrian line, carré and hussars) through HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

EXAMPLE = Path(__file__).resolve().parents[2] / "scenarios" / "zoi" / "example.json"
INTO_ZONE = {"kind": "move", "unit": "fr-4-2", "path": ["0607", "0606", "0605"]}
THROUGH_ZONE = {"kind": "move", "unit": "fr-4-2", "path": ["0607", "0606", "0605", "0705"]}


def _sections(citations: list[dict[str, Any]]) -> set[str]:
    return {c["section"] for c in citations}


async def _create(client: httpx.AsyncClient) -> dict[str, Any]:
    scenario = json.loads(EXAMPLE.read_text())
    r = await client.post("/games", json={"ruleset": "zoi", "scenario": scenario})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert set(body["seats"]) == {"french", "austrian", "umpire"}
    return body


async def test_infantry_entering_a_zone_stops_dry_run_and_real_submission(
    client: httpx.AsyncClient,
) -> None:
    game = await _create(client)
    gid = game["id"]

    r = await client.post(f"/games/{gid}/rulings", json=THROUGH_ZONE)
    assert r.status_code == 200
    ruling = r.json()
    assert ruling["legal"] is False
    v = ruling["violations"][0]
    assert (v["code"], v["hex"]) == ("zoi.must_stop", "0605")
    assert "14.stop.infantry-artillery" in _sections(v["citations"])

    r = await client.post(f"/games/{gid}/rulings", json=INTO_ZONE)
    ruling = r.json()
    assert ruling["legal"] is True
    stop = [e for e in ruling["effects"] if e["kind"] == "zoi.must_stop"]
    assert stop and stop[0]["hex"] == "0605" and stop[0]["by"] == ["aus-ir49"]
    assert "14.stop.infantry-artillery" in _sections(ruling["citations"])

    # the illegal move submitted for real: 422 with the ruling, nothing written
    french = {"Authorization": f"Bearer {game['seats']['french']}"}
    r = await client.post(
        f"/games/{gid}/actions", json=THROUGH_ZONE, headers={**french, "If-Match": 'W/"1"'}
    )
    assert r.status_code == 422 and r.json()["ruling"]["legal"] is False
    assert (await client.get(f"/games/{gid}")).json()["version"] == 1

    # the legal move submitted for real is applied and logged
    r = await client.post(
        f"/games/{gid}/actions", json=INTO_ZONE, headers={**french, "If-Match": 'W/"1"'}
    )
    assert r.status_code == 201, r.text
    state = (await client.get(f"/games/{gid}")).json()["state"]
    assert {u["id"]: u["hex"] for u in state["units"]}["fr-4-2"] == "0605"

    # the column now stands in the Austrian line's zone: a defensive-fire target
    r = await client.get(f"/games/{gid}/queries/defensive-fire", params={"side": "french"})
    assert r.status_code == 200, r.text
    body = r.json()
    result = body.get("result", body)
    targets = {t["unit"]: t for t in result["targets"]}
    assert targets["fr-4-2"]["by"] == ["aus-ir49"]


async def test_zone_map_and_unknown_unit_query(client: httpx.AsyncClient) -> None:
    game = await _create(client)
    gid = game["id"]
    r = await client.get(f"/games/{gid}/queries/zone-map", params={"side": "french"})
    assert r.status_code == 200
    body = r.json()
    result = body.get("result", body)
    zoned = {h["hex"]: h for h in result["hexes"]}
    # the French column faces north: its front hexsides lead to 0507, 0607 and 0707 only.
    by_column = {h for h, z in zoned.items() if any(s["unit"] == "fr-4-2" for s in z["sources"])}
    assert by_column == {"0507", "0607", "0707"}
    r = await client.get(f"/games/{gid}/queries/reachable", params={"unit": "nobody"})
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
