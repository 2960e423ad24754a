"""The shipped seed-003 battle (scenarios/battlefield/millers-crossing.json) played through
HTTP from deployment to a captured zone, every ruling cited: a march over the stone bridge, a
wade through the lower ford, a garrison battery firing its kill zone from the village's
border, two charges into the village (the first declares the assault, the second joins it),
the sealed troop allocation and the melee dice (physical dice entered by the umpire)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

BATTLE = Path(__file__).resolve().parents[2] / "scenarios" / "battlefield" / "millers-crossing.json"
DECISION = "allocation:village:t2"


class Game:
    def __init__(self, client: httpx.AsyncClient, body: dict[str, Any]) -> None:
        self.client = client
        self.id = body["id"]
        self.seats = body["seats"]
        self.version = 1

    def headers(self, seat: str, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}", **extra}

    async def act(self, seat: str, action: dict[str, Any], **extra: str) -> dict[str, Any]:
        r = await self.client.post(
            f"/games/{self.id}/actions",
            json=action,
            headers=self.headers(seat, **{"If-Match": f'W/"{self.version}"', **extra}),
        )
        assert r.status_code == 201, r.text
        self.version += 1
        ruling: dict[str, Any] = r.json()["ruling"]
        assert_cited(ruling)
        return ruling

    async def advance(self, times: int = 1) -> None:
        for _ in range(times):
            r = await self.client.post(
                f"/games/{self.id}/phase/advance",
                headers=self.headers("umpire", **{"If-Match": f'W/"{self.version}"'}),
            )
            assert r.status_code in (200, 201), r.text
            self.version += 1

    async def position(self) -> dict[str, Any]:
        view = (await self.client.get(f"/games/{self.id}", headers=self.headers("umpire"))).json()
        return {k: view["position"][k] for k in ("turn", "phase", "phasing_side")}

    async def query(self, name: str, **params: str) -> dict[str, Any]:
        r = await self.client.get(
            f"/games/{self.id}/queries/{name}", params=params, headers=self.headers("umpire")
        )
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        result: dict[str, Any] = body.get("result", body)
        return result


def sections(ruling: dict[str, Any]) -> set[str]:
    return {c["section"] for c in ruling["citations"]}


def assert_cited(ruling: dict[str, Any]) -> None:
    """Every ruling cites; every effect's and violation's citations are among the ruling's."""
    cited = sections(ruling)
    assert cited, ruling["summary"]
    for item in [*ruling["effects"], *ruling["violations"]]:
        assert {c["section"] for c in item["citations"]} <= cited, item


async def test_millers_crossing_from_deployment_to_a_captured_village(
    client: httpx.AsyncClient,
) -> None:
    scenario = json.loads(BATTLE.read_text(encoding="utf-8"))
    r = await client.post(
        "/games",
        json={"ruleset": "battlefield", "scenario": scenario, "match": {"physical_dice": True}},
    )
    assert r.status_code == 201, r.text
    g = Game(client, r.json())

    check = await g.query("scenario-check")
    sizes = [f for f in check["findings"] if f["section"] == "OZ.Display.B"]
    assert [f["zone"] for f in sizes] == ["village", "redoubt-w", "redoubt-e"]
    assert all(f["ok"] for f in sizes)
    village = await g.query("zone", zone="village")
    assert village["class"] == "C" and village["road"] is True
    assert village["sectors"]["1"]["units"] == ["cs-1va"]

    # turn 1, union: over the stone bridge and through the lower ford
    await g.advance()
    ruling = await g.act(
        "union", {"kind": "move", "unit": "us-1", "path": [[745, 350], [752, 418]]}
    )
    assert ruling["legal"] and "BF.Table" in sections(ruling)
    ruling = await g.act("union", {"kind": "move", "unit": "us-2", "path": [[1150, 390]]})
    assert [e["kind"] for e in ruling["effects"]] == ["terrain.halved"]
    assert "A.24" in sections(ruling)
    # a move that would wade the steep-banked creek away from a crossing is refused
    r = await client.post(
        f"/games/{g.id}/rulings", json={"kind": "move", "unit": "us-bty", "path": [[600, 360]]}
    )
    refused = r.json()
    assert refused["legal"] is False and "A.22" in sections(refused)
    assert_cited(refused)

    # turn 1, confederate: the village battery fires its kill zone from the road exit
    await g.advance(6)
    assert await g.position() == {"turn": 1, "phase": "initial_fire", "phasing_side": "confederate"}
    ruling = await g.act(
        "confederate",
        {"kind": "garrison_fire", "unit": "cs-bty", "origin": [757.6, 480], "target": "us-1"},
    )
    assert [e["kind"] for e in ruling["effects"]] == ["oz.fires_by_section"]
    assert {"OZ.Basic.E", "BF.KillZone"} <= sections(ruling)

    # turn 2, union: two charges into the village; the first declares the assault
    await g.advance(3)
    assert await g.position() == {"turn": 2, "phase": "charge_declaration", "phasing_side": "union"}
    ruling = await g.act("union", {"kind": "charge", "unit": "us-1", "path": [[758, 520]]})
    assert [e["kind"] for e in ruling["effects"]] == [
        "oz.assault_declared",
        "oz.contested",
        "oz.allocation_pending",
    ]
    assert {"BF.Charge", "OZ.Assault.A"} <= sections(ruling)
    ruling = await g.act("union", {"kind": "charge", "unit": "us-2", "path": [[900, 600]]})
    assert [e["kind"] for e in ruling["effects"]] == ["bf.joins_assault"]

    # Objective Combat: sealed allocations, then the umpire opens them with the melee dice
    await g.advance(4)
    assert (await g.position())["phase"] == "objective_combat"
    options = await g.query("allocation-options", zone="village", side="confederate")
    assert options["garrison"] == [{"unit": "cs-1va", "sector": 1}]
    url = f"/games/{g.id}/sealed/{DECISION}"
    r = await client.post(
        url,
        json={"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}},
        headers=g.headers("union", **{"If-Match": "*"}),
    )
    assert r.status_code == 201, r.text
    bad = await client.post(
        url,
        json={"sectors": {"1": ["cs-cav"]}},
        headers=g.headers("confederate", **{"If-Match": "*"}),
    )
    assert bad.status_code == 422, bad.text  # the garrison battalion must be allocated
    r = await client.post(
        url,
        json={"sectors": {"1": ["cs-1va", "cs-bty"]}},
        headers=g.headers("confederate", **{"If-Match": "*"}),
    )
    assert r.status_code == 201 and r.json()["awaiting_umpire"] is True, r.text
    # us-1 (veteran): 3 dice; cs-1va (green): 1 die; us-2 (trained): 2; us-bty: 2 x 2 sections
    # (d10 as entered 1-10; a 10 reads 0, interpretation oz.d10)
    dice = ",".join(["10", "10", "10", "9", "5", "5", "10", "5", "5", "5"])
    r = await client.post(
        f"{url}/open", headers=g.headers("umpire", **{"If-Match": "*", "Referee-Dice": dice})
    )
    assert r.status_code == 200, r.text
    ruling = r.json()["ruling"]
    assert_cited(ruling)
    assert [e["kind"] for e in ruling["effects"]] == [
        "oz.casualties",
        "oz.shattered",
        "oz.casualties",
        "oz.sector_taken",
        "oz.zone_captured",
    ]
    assert {"OZ.Assault.C", "OZ.PostMelee.D.1", "OZ.Assault.B.2"} <= sections(ruling)

    village = await g.query("zone", zone="village")
    assert {n: s["holder"] for n, s in village["sectors"].items()} == {"1": "union", "2": "union"}
    assert village["contested"] is False
    cover = await g.query("cover", unit="us-1")
    assert cover["zone_garrison"] is True and cover["cover_in_melee"] is False  # advancing
    view = (await client.get(f"/games/{g.id}", headers=g.headers("umpire"))).json()
    removed = view["state"]["zones"]["removed"]
    assert set(removed) == {"cs-1va", "cs-bty"}
