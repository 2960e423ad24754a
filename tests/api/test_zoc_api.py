"""The seed's own section 8 example, end to end through the HTTP API, on both databases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "zoc"
MOVE = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}


async def _create(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    scenario = json.loads((SCENARIOS / name).read_text())
    r = await client.post("/games", json={"ruleset": "zoc", "scenario": scenario})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert set(body["seats"]) == {"axis", "soviet", "umpire"}
    return body


def _sections(citations: list[dict[str, Any]]) -> set[str]:
    return {c["section"] for c in citations}


async def test_ezoc_map_shows_mountain_block_and_negation(client: httpx.AsyncClient) -> None:
    game = await _create(client, "seed-example.json")
    r = await client.get(f"/games/{game['id']}/queries/ezoc-map", params={"side": "axis"})
    assert r.status_code == 200, r.text
    zmap = r.json()["result"] if "result" in r.json() else r.json()
    # e3206 lies across the mountain hexside from the 18th Army: no ZOC there (8, exception).
    assert "e3206" not in zmap["hexes"]
    blocked = [b for b in zmap["blocked"] if b["to"] == "e3206"]
    assert blocked and blocked[0]["unit"] == "su-18a"
    assert blocked[0]["section"] == "8.exc.mountain"
    # e3207 is in the 18th Army's EZOC but the German infantry there negates it (8.1).
    assert zmap["hexes"]["e3207"]["by"] == ["su-18a"]
    assert zmap["hexes"]["e3207"]["negated"] is True
    assert zmap["hexes"]["e3207"]["negated_by"] == [{"kind": "unit", "id": "de-inf-y"}]
    assert "8.1.negation" in zmap["hexes"]["e3207"]["citations"]
    # the other hexes around e3306 are zoned (labelled Z in the example).
    for hex_id in ("e3305", "e3307", "e3406", "e3407"):
        assert "su-18a" in zmap["hexes"][hex_id]["by"]


async def test_move_through_negated_hex_is_legal_and_stops_in_e3307(
    client: httpx.AsyncClient,
) -> None:
    game = await _create(client, "seed-example.json")
    gid, axis = game["id"], game["seats"]["axis"]

    r = await client.post(f"/games/{gid}/rulings", json=MOVE)
    assert r.status_code == 200
    ruling = r.json()
    assert ruling["legal"] is True
    stops = [e for e in ruling["effects"] if e["kind"] == "zoc.must_stop"]
    assert [(e["hex"], e["step"]) for e in stops] == [("e3307", 2)]
    assert "8.2.operational" in _sections(stops[0]["citations"])
    negated = [e for e in ruling["effects"] if e["kind"] == "zoc.ezoc_negated"]
    assert negated and negated[0]["hex"] == "e3207"
    assert "8.1.negation" in _sections(negated[0]["citations"])
    assert {"8.1.negation", "8.2.operational"} <= _sections(ruling["citations"])

    # submitted for real by the axis seat, the move is applied and logged
    etag = (await client.get(f"/games/{gid}")).headers["etag"]
    r = await client.post(
        f"/games/{gid}/actions",
        json=MOVE,
        headers={"Authorization": f"Bearer {axis}", "If-Match": etag},
    )
    assert r.status_code == 201, r.text
    assert r.json()["ruling"]["legal"] is True
    state = (await client.get(f"/games/{gid}")).json()["state"]
    units = {u["id"]: u for u in state["units"]}
    assert units["de-inf-1"]["hex"] == "e3307"
    events = (await client.get(f"/games/{gid}/events")).json()["items"]
    moves = [e["action"] for e in events if e["kind"] == "move"]
    assert len(moves) == 1 and {k: moves[0][k] for k in MOVE} == MOVE

    # the soviet seat may not move a German unit
    etag = (await client.get(f"/games/{gid}")).headers["etag"]
    r = await client.post(
        f"/games/{gid}/actions",
        json={"kind": "move", "unit": "de-inf-2", "path": ["e3207"]},
        headers={"Authorization": f"Bearer {game['seats']['soviet']}", "If-Match": etag},
    )
    assert r.status_code == 403


async def test_without_the_infantry_the_stop_is_in_e3207_and_continuing_is_illegal(
    client: httpx.AsyncClient,
) -> None:
    game = await _create(client, "seed-example-no-infantry.json")
    gid, axis = game["id"], game["seats"]["axis"]

    r = await client.post(f"/games/{gid}/rulings", json=MOVE)
    assert r.status_code == 200
    ruling = r.json()
    assert ruling["legal"] is False
    assert [(v["code"], v["hex"], v["step"]) for v in ruling["violations"]] == [
        ("zoc.must_stop", "e3207", 1)
    ]
    assert "8.2.operational" in _sections(ruling["violations"][0]["citations"])

    # stopping in e3207 is legal, with the stop named
    r = await client.post(
        f"/games/{gid}/rulings", json={"kind": "move", "unit": "de-inf-1", "path": ["e3207"]}
    )
    stop = [e for e in r.json()["effects"] if e["kind"] == "zoc.must_stop"]
    assert r.json()["legal"] is True and stop[0]["hex"] == "e3207"

    # submitting the illegal move for real: 422 carrying the ruling, nothing written
    before = (await client.get(f"/games/{gid}")).json()
    r = await client.post(
        f"/games/{gid}/actions",
        json=MOVE,
        headers={"Authorization": f"Bearer {axis}", "If-Match": f'W/"{before["version"]}"'},
    )
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["ruling"]["violations"][0]["code"] == "zoc.must_stop"
    after = (await client.get(f"/games/{gid}")).json()
    assert after["version"] == before["version"] and after["state"] == before["state"]
    assert (await client.get(f"/games/{gid}/events")).json()["items"] == []


async def test_sequence_of_play_through_the_api(client: httpx.AsyncClient) -> None:
    """Only the phasing side moves in Operational Movement; ending the phase leads to Combat,
    where the non-phasing side may retreat (8.2 Retreat)."""
    game = await _create(client, "seed-example.json")
    gid, seats = game["id"], game["seats"]
    view = (await client.get(f"/games/{gid}")).json()
    assert view["position"]["phase"] == "operational_movement"
    assert view["position"]["phasing_side"] == "axis"

    # the Soviet seat may not move in the Axis operational movement phase
    r = await client.post(
        f"/games/{gid}/actions",
        json={"kind": "move", "unit": "su-1uk-hq", "path": ["e3309"]},
        headers={"Authorization": f"Bearer {seats['soviet']}", "If-Match": 'W/"1"'},
    )
    assert r.status_code == 409, r.text
    problem = r.json()
    assert problem["code"] == "phase.not_your_turn"
    assert "basic.phase" in _sections(problem["citations"])

    # the Axis ends its phase: Combat follows, and the Soviet HQ may retreat (length 1)
    r = await client.post(
        f"/games/{gid}/phase/end",
        headers={"Authorization": f"Bearer {seats['axis']}", "If-Match": 'W/"1"'},
    )
    assert r.status_code == 201, r.text
    view = (await client.get(f"/games/{gid}")).json()
    assert view["position"]["phase"] == "combat"
    retreat = {"kind": "retreat", "unit": "su-1uk-hq", "path": ["e3309"], "length": 1}
    r = await client.post(f"/games/{gid}/rulings", json=retreat)
    assert r.status_code == 200
    assert r.json()["legal"] is True, r.json()
    r = await client.post(
        f"/games/{gid}/actions",
        json=retreat,
        headers={"Authorization": f"Bearer {seats['soviet']}", "If-Match": view_etag(view)},
    )
    assert r.status_code == 201, r.text


def view_etag(view: dict[str, Any]) -> str:
    return f'W/"{view["version"]}"'


SWAMP_GAME: dict[str, Any] = {
    "title": "5x5, swamp in 0302",
    "layout": {"orientation": "flat", "offset": "odd"},
    "areas": [
        {"cols": [1, 5], "rows": [1, 5], "terrain": "clear", "country": "x", "weather_zone": "w"}
    ],
    "hexes": {"0302": {"terrain": "swamp"}},
    "countries": {"x": {"name": "X"}},
    "sides": [{"id": "axis", "label": "Axis"}, {"id": "soviet", "label": "Soviet"}],
    "units": [
        {"id": "de-a", "side": "axis", "country": "x", "movement_allowance": 2, "hex": "0202"},
        {"id": "su-a", "side": "soviet", "country": "x", "movement_allowance": 2, "hex": "0505"},
    ],
    "weather": {"w": "clear"},
    "phase": "operational_movement",
    "phasing_side": "axis",
}


async def test_allowance_spent_before_the_last_hex_is_a_ruling_not_a_crash(
    client: httpx.AsyncClient,
) -> None:
    """The swamp (3) is over de-a's 2 MP at step 1 and the path goes on to 0402: both the dry
    run and the submission answer with the refusal (basic.movement-points), never a 500, and
    the submission writes nothing (zoc 1.3.3)."""
    r = await client.post("/games", json={"ruleset": "zoc", "scenario": SWAMP_GAME})
    assert r.status_code == 201, r.text
    gid, axis = r.json()["id"], r.json()["seats"]["axis"]
    move = {"kind": "move", "unit": "de-a", "path": ["0302", "0402"]}

    r = await client.post(f"/games/{gid}/rulings", json=move)
    assert r.status_code == 200, r.text
    ruling = r.json()
    assert ruling["legal"] is False
    assert [(v["code"], v["step"], v["hex"]) for v in ruling["violations"]] == [
        ("zoc.insufficient_mp", 1, "0302")
    ]
    assert _sections(ruling["violations"][0]["citations"]) == {"basic.movement-points"}
    assert _sections(ruling["citations"]) == {"basic.movement-points"}

    before = (await client.get(f"/games/{gid}")).json()
    r = await client.post(
        f"/games/{gid}/actions",
        json=move,
        headers={"Authorization": f"Bearer {axis}", "If-Match": f'W/"{before["version"]}"'},
    )
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["ruling"] == ruling
    after = (await client.get(f"/games/{gid}")).json()
    assert after["version"] == before["version"] and after["state"] == before["state"]
    assert (await client.get(f"/games/{gid}/events")).json()["items"] == []
