"""The shipped `objective-zones` example through HTTP: declare an assault on the mill, advance
to Objective Combat Resolution, both sides submit sealed allocations, the reveal rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.rules import registry

pytestmark = pytest.mark.anyio

EXAMPLE = Path(__file__).resolve().parents[2] / "scenarios" / "objective-zones" / "example.json"
DECISION = "allocation:mill:t1"
UNION_ORDER = {"sectors": {"1": ["us-1"], "2": ["us-2", "us-bty"]}}
CONFED_ORDER = {"sectors": {"1": ["cs-22va", "cs-bty"], "2": ["cs-36va"]}}
DECLARE = {"kind": "declare_assault", "zone": "mill", "units": ["us-1", "us-2", "us-3"]}


def _sections(citations: list[dict[str, Any]]) -> set[str]:
    return {c["section"] for c in citations}


def _h(game: dict[str, Any], seat: str, version: int | str) -> dict[str, str]:
    tag = version if version == "*" else f'W/"{version}"'
    return {"Authorization": f"Bearer {game['seats'][seat]}", "If-Match": str(tag)}


async def _create(client: httpx.AsyncClient) -> dict[str, Any]:
    scenario = json.loads(EXAMPLE.read_text())
    r = await client.post("/games", json={"ruleset": "objective-zones", "scenario": scenario})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert set(body["seats"]) == {"union", "confederate", "umpire"}
    return body


async def _to_combat(client: httpx.AsyncClient, game: dict[str, Any]) -> int:
    gid = game["id"]
    r = await client.post(f"/games/{gid}/actions", json=DECLARE, headers=_h(game, "union", 1))
    assert r.status_code == 201, r.text
    ruling = r.json()["ruling"]
    assert "OZ.Assault.A" in _sections(ruling["citations"])
    version = 2
    for _ in range(4):
        r = await client.post(f"/games/{gid}/phase/advance", headers=_h(game, "umpire", version))
        assert r.status_code == 201, r.text
        version += 1
    view = (await client.get(f"/games/{gid}", headers=_h(game, "umpire", version))).json()
    assert view["position"]["phase"] == "objective_combat"
    return version


async def test_sealed_allocation_reveal_with_dice_and_citations(
    client: httpx.AsyncClient,
) -> None:
    game = await _create(client)
    gid = game["id"]
    version = await _to_combat(client, game)

    r = await client.get(f"/games/{gid}/sealed", headers=_h(game, "union", version))
    assert r.status_code == 200
    open_ = {d["id"]: d for d in r.json()["open"]}
    assert open_[DECISION]["sides"] == ["union", "confederate"]
    assert open_[DECISION]["citation"]["section"] == "OZ.Assault.B.1"

    # an order the rules refuse now (sector 2 without infantry) is 422, nothing written
    bad = {"sectors": {"1": ["us-1", "us-2"]}}
    r = await client.post(
        f"/games/{gid}/sealed/{DECISION}", json=bad, headers=_h(game, "union", "*")
    )
    assert r.status_code == 422 and r.json()["code"] == "sealed.order_invalid", r.text

    r = await client.post(
        f"/games/{gid}/sealed/{DECISION}", json=UNION_ORDER, headers=_h(game, "union", "*")
    )
    assert r.status_code == 201, r.text
    receipt = r.json()
    assert receipt["reveal"] is None
    secrets = (receipt["nonce"], receipt["canonical"], '"us-2","us-bty"')

    # neither the confederate seat nor a spectator can read the union order before the reveal
    for headers in (_h(game, "confederate", "*"), {}):
        for path in ("/sealed", "/events", "/events?after=0", ""):
            r = await client.get(f"/games/{gid}{path}", headers=headers)
            if r.status_code != 200:
                continue
            for secret in secrets:
                assert secret not in r.text, (path, secret)
    r = await client.get(f"/games/{gid}/sealed", headers=_h(game, "confederate", "*"))
    entry = {d["id"]: d for d in r.json()["open"]}[DECISION]
    assert [x["side"] for x in entry["received"]] == ["union"] and entry["own"] is None

    r = await client.post(
        f"/games/{gid}/sealed/{DECISION}", json=CONFED_ORDER, headers=_h(game, "confederate", "*")
    )
    assert r.status_code == 201, r.text
    reveal = r.json()["reveal"]
    assert reveal is not None and reveal["applied"] is True
    ruling = reveal["ruling"]
    cited = _sections(ruling["citations"])
    assert {"OZ.Assault.B.1", "OZ.Assault.C", "OZ.Scenario"} <= cited
    # the dice the reveal used are in the log (every page of it) ...
    items: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = (
            await client.get(
                f"/games/{gid}/events", params={"after": after}, headers=_h(game, "umpire", "*")
            )
        ).json()
        items += page["items"]
        after = page["next"]
    revealed = [e for e in items if e["kind"] == "sealed_revealed"]
    assert len(revealed) == 1, [e["kind"] for e in items]
    dice = [d["value"] for d in revealed[0]["dice"]]
    assert len(dice) == 12 and all(d["sides"] == 10 for d in revealed[0]["dice"])
    # ... and the rules core, given the same position, orders and dice, rules exactly the same
    rs = registry.get("objective-zones")
    options = rs.parse_options({})
    board, state = rs.setup(rs.parse_scenario(json.loads(EXAMPLE.read_text())), options)
    declare = rs.parse_action(DECLARE)
    state = rs.apply(board, state, declare, rs.adjudicate(board, state, declare, options))
    for _ in range(4):
        state = rs.advance_phase(board, state)
    decision = rs.sealed_decisions(board, state)[DECISION]
    orders = {
        "union": decision.order_model.model_validate(UNION_ORDER),
        "confederate": decision.order_model.model_validate(CONFED_ORDER),
    }
    expected = rs.resolve_sealed(board, state, DECISION, orders, options, dice)
    assert ruling == expected.model_dump(mode="json")
    rolled = [
        v
        for s in ruling["details"]["sectors"].values()
        for roll in s["rolls"]
        for v in roll["dice"]
    ]
    assert sorted(rolled) == sorted(dice)
    # the decision is closed and the zone display shows the result the core computes
    r = await client.get(f"/games/{gid}/sealed", headers=_h(game, "union", "*"))
    assert DECISION not in {d["id"] for d in r.json()["open"]}
    r = await client.get(
        f"/games/{gid}/queries/zone", params={"zone": "mill"}, headers=_h(game, "union", "*")
    )
    assert r.status_code == 200, r.text
    body = r.json()
    result = body.get("result", body)
    after_state = rs.apply_sealed(board, state, DECISION, orders, expected)
    spec = rs.queries()["zone"]
    want = spec.run(board, after_state, options, spec.params.model_validate({"zone": "mill"}))
    assert result == json.loads(json.dumps(want))
    assert set(result["sectors"]) == {"1", "2"}
