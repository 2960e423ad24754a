"""The shipped `terrain` example through HTTP (both databases): a dry run and real submissions
of moves through woods, a ford and rough ground, plus the line-of-sight query."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

EXAMPLE = Path(__file__).resolve().parents[2] / "scenarios" / "terrain" / "example.json"
INTO_HEAVY_WOODS = {"kind": "move", "unit": "fr-inf", "path": [[290, 200]]}
INTO_FORD = {"kind": "move", "unit": "br-inf", "path": [[600, 400]]}


def _sections(citations: list[dict[str, Any]]) -> set[str]:
    return {c["section"] for c in citations}


async def _create(client: httpx.AsyncClient) -> dict[str, Any]:
    scenario = json.loads(EXAMPLE.read_text())
    r = await client.post("/games", json={"ruleset": "terrain", "scenario": scenario})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert set(body["seats"]) == {"french", "british", "umpire"}
    return body


async def test_dry_run_and_real_submission(client: httpx.AsyncClient) -> None:
    game = await _create(client)
    gid = game["id"]

    r = await client.post(f"/games/{gid}/rulings", json=INTO_HEAVY_WOODS)
    assert r.status_code == 200
    ruling = r.json()
    assert ruling["legal"] is False
    assert ruling["violations"][0]["code"] == "terrain.closed"
    assert "A.44" in _sections(ruling["violations"][0]["citations"])

    r = await client.post(f"/games/{gid}/rulings", json=INTO_FORD)
    ruling = r.json()
    assert ruling["legal"] is True
    assert [e["kind"] for e in ruling["effects"]] == ["terrain.halved", "terrain.stopped_in_ford"]

    french = {"Authorization": f"Bearer {game['seats']['french']}"}
    r = await client.post(
        f"/games/{gid}/actions", json=INTO_HEAVY_WOODS, headers={**french, "If-Match": 'W/"1"'}
    )
    assert r.status_code == 422 and r.json()["ruling"]["legal"] is False
    assert (await client.get(f"/games/{gid}")).json()["version"] == 1

    british = {"Authorization": f"Bearer {game['seats']['british']}"}
    r = await client.post(
        f"/games/{gid}/actions", json=INTO_FORD, headers={**british, "If-Match": 'W/"1"'}
    )
    assert r.status_code == 201, r.text
    state = (await client.get(f"/games/{gid}")).json()["state"]
    assert {u["id"]: u["at"] for u in state["units"]}["br-inf"] == [600.0, 400.0]

    # the halted unit now blocks the ford and may not fire
    fire = {"kind": "fire", "unit": "br-inf", "target": "fr-inf"}
    r = await client.post(f"/games/{gid}/rulings", json=fire)
    assert "terrain.no_fire_in_ford" in [v["code"] for v in r.json()["violations"]]


async def test_wagon_in_rough_rolls_a_d10(client: httpx.AsyncClient) -> None:
    game = await _create(client)
    gid = game["id"]
    move = {"kind": "move", "unit": "fr-wagon", "path": [[200, 590]]}
    r = await client.post(f"/games/{gid}/rulings", json=move)
    body = r.json()
    ruling = body.get("ruling", body)
    assert ruling["legal"] is True
    french = {"Authorization": f"Bearer {game['seats']['french']}"}
    r = await client.post(
        f"/games/{gid}/actions", json=move, headers={**french, "If-Match": 'W/"1"'}
    )
    assert r.status_code == 201, r.text
    ruling = r.json()["ruling"]
    checks = [e for e in ruling["effects"] if e["kind"] == "terrain.wheel_check"]
    assert len(checks) == 1 and checks[0]["details"]["pending"] is False
    assert "A.46" in _sections(ruling["citations"])


async def test_line_of_sight_query(client: httpx.AsyncClient) -> None:
    game = await _create(client)
    r = await client.get(
        f"/games/{game['id']}/queries/line-of-sight", params={"from": "90,200", "to": "350,200"}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    result = body.get("result", body)
    assert result["clear"] is False and result["blocked_by"][0]["feature"] == "hw1"
    r = await client.get(
        f"/games/{game['id']}/queries/line-of-sight", params={"from": "nowhere", "to": "350,200"}
    )
    assert r.status_code == 422


async def test_cover_query_is_listed_and_answers(client: httpx.AsyncClient) -> None:
    """A.47 in `terrain` alone (issue 27 item 3): the `cover` query and the `hold` order are in
    the ruleset's description and work over HTTP."""
    body = (await client.get("/rulesets/terrain")).json()
    assert "cover" in {q["name"] for q in body["queries"]}
    assert "hold" in set(body["schemas"]["actions"])
    assert "terrain.posture" in {i["id"] for i in body["interpretations"]}

    scenario = json.loads(EXAMPLE.read_text())
    for unit in scenario["units"]:
        if unit["id"] == "br-inf":
            unit["at"] = [1030, 625]  # at the mill (a building: a protective position, A.43)
    r = await client.post("/games", json={"ruleset": "terrain", "scenario": scenario})
    assert r.status_code == 201, r.text
    game = r.json()
    gid = game["id"]
    r = await client.get(f"/games/{gid}/queries/cover", params={"unit": "br-inf"})
    assert r.status_code == 200, r.text
    result = r.json().get("result", r.json())
    assert result["features"] == ["mill"] and result["in_cover"] is True
    assert result["cover_in_melee"] is True and result["citations"] == ["A.47"]

    british = {"Authorization": f"Bearer {game['seats']['british']}"}
    order = {"kind": "hold", "unit": "br-inf", "posture": "advancing"}
    r = await client.post(f"/games/{gid}/actions", json=order, headers={**british, "If-Match": "*"})
    assert r.status_code == 201, r.text
    r = await client.get(f"/games/{gid}/queries/cover", params={"unit": "br-inf"})
    result = r.json().get("result", r.json())
    assert result["posture"] == "advancing" and result["cover_in_melee"] is False

    r = await client.get(f"/games/{gid}/queries/cover", params={"unit": "nobody"})
    assert r.status_code == 422
