"""Sealed orders through HTTP on both databases, with the blind-bidding test ruleset:
submit (commitment only published), list, reveal when complete or opened by the umpire,
adjudication through the ruleset's hooks, the commitment recipe, and every refusal."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from app.service import sealed as sealed_service

pytestmark = pytest.mark.anyio

PROBLEM = "application/problem+json"


@dataclass
class Blind:
    id: str
    seats: dict[str, str]

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}"}

    def write(self, seat: str, version: int | str = "*", **extra: str) -> dict[str, str]:
        tag = "*" if version == "*" else f'W/"{version}"'
        return {**self.auth(seat), "If-Match": tag, **extra}


async def new_blind(client: httpx.AsyncClient, **scenario: Any) -> Blind:
    body = {"ruleset": "blind", "scenario": {"budget": 10, "rounds": 3, **scenario}}
    r = await client.post("/games", json=body)
    assert r.status_code == 201, r.text
    return Blind(r.json()["id"], r.json()["seats"])


def problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM, r.headers
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    return body


def recompute(nonce: str, canonical: str) -> str:
    """The documented recipe, written independently of the service code."""
    return hashlib.sha256((nonce + canonical).encode("utf-8")).hexdigest()


async def test_submit_publishes_only_a_commitment_then_both_reveal_and_adjudicate(
    client: httpx.AsyncClient,
) -> None:
    g = await new_blind(client)
    listing = (await client.get(f"/games/{g.id}/sealed")).json()
    assert [d["id"] for d in listing["open"]] == ["bid.r1"]
    assert listing["open"][0]["waiting"] == ["red", "blue"]
    assert listing["open"][0]["citation"] == {
        "ruleset": "blind",
        "section": "2",
        "title": "Sealed bids",
    }
    assert listing["open"][0]["order_schema"]["properties"]["bid"]["type"] == "integer"

    red_order = {"motto": "Fortune favours the bold", "bid": 4}
    r = await client.post(f"/games/{g.id}/sealed/bid.r1", json=red_order, headers=g.write("red", 1))
    assert r.status_code == 201, r.text
    red = r.json()
    assert r.headers["etag"] == 'W/"2"' and r.headers["location"] == f"/games/{g.id}/events/1"
    assert red["event"] == 1 and red["version"] == 2 and red["reveal"] is None
    assert red["order"] == red_order and red["side"] == "red" and red["instance"] == "bid.r1"
    assert red["canonical"] == '{"bid":4,"motto":"Fortune favours the bold"}'
    assert len(red["nonce"]) == 64 and red["recipe"] == "referee-sealed-v1"
    assert red["commitment"] == recompute(red["nonce"], red["canonical"])

    # what the others see: the receipt and the commitment, nothing else
    for reader in ({}, g.auth("blue"), g.auth("umpire")):
        listed = (await client.get(f"/games/{g.id}/sealed", headers=reader)).json()["open"][0]
        assert listed["received"] == [
            {
                "side": "red",
                "commitment": red["commitment"],
                "received_at": listed["received"][0]["received_at"],
            }
        ]
        assert listed["waiting"] == ["blue"] and listed["own"] is None
        event = (await client.get(f"/games/{g.id}/events/1", headers=reader)).json()
        assert event["kind"] == "sealed_received" and event["seat"] == "red"
        assert event["payload"] == {
            "decision": "bid.r1",
            "instance": "bid.r1",
            "side": "red",
            "commitment": red["commitment"],
            "recipe": "referee-sealed-v1",
        }
        assert event["action"] == {} and event["dice"] == []
        assert "Fortune" not in json.dumps([listed, event]) and red["nonce"] not in json.dumps(
            event
        )
    own = (await client.get(f"/games/{g.id}/sealed", headers=g.auth("red"))).json()["open"][0][
        "own"
    ]
    assert own["order"] == red_order and own["nonce"] == red["nonce"]

    blue_order = {"bid": 7}
    r = await client.post(
        f"/games/{g.id}/sealed/bid.r1", json=blue_order, headers=g.write("blue", 2)
    )
    assert r.status_code == 201, r.text
    blue = r.json()
    assert blue["event"] == 2 and blue["version"] == 4 and r.headers["etag"] == 'W/"4"'
    reveal = blue["reveal"]
    assert reveal["event"] == 3 and reveal["version"] == 4 and reveal["opened_by"] is None
    assert reveal["missing"] == [] and reveal["applied"] is True
    assert reveal["orders"]["red"]["order"] == red_order
    assert reveal["orders"]["red"]["nonce"] == red["nonce"]
    assert reveal["orders"]["blue"]["order"] == {"bid": 7, "motto": ""}

    # the reveal event: orders, nonces, the dice rolled, and a ruling that cites its rules
    event = (await client.get(f"/games/{g.id}/events/3")).json()
    assert event["kind"] == "sealed_revealed" and event["seat"] == "blue"
    dice = [roll["value"] for roll in event["dice"]]
    assert [roll["sides"] for roll in event["dice"]] == [6, 6] and all(1 <= d <= 6 for d in dice)
    ruling = event["ruling"]
    assert ruling["legal"] is True
    assert ruling["details"]["bids"] == {"red": 4, "blue": 7}
    totals = {"red": 4 + dice[0], "blue": 7 + dice[1]}
    assert ruling["details"]["totals"] == totals
    winner = max(totals, key=lambda s: totals[s]) if totals["red"] != totals["blue"] else None
    assert ruling["details"]["winner"] == winner
    assert {"ruleset": "blind", "section": "3", "title": "Resolution"} in ruling["citations"]
    assert ruling["effects"][-1]["kind"] == ("blind.round_won" if winner else "blind.round_tied")

    # a client verifies every commitment published earlier against the revealed orders
    receipts = (await client.get(f"/games/{g.id}/events")).json()["items"][:2]
    for receipt in receipts:
        side = receipt["payload"]["side"]
        shown = event["payload"]["orders"][side]
        assert recompute(shown["nonce"], shown["canonical"]) == receipt["payload"]["commitment"]
        assert json.loads(shown["canonical"]) == shown["order"]
        assert sealed_service.verify(
            receipt["payload"]["commitment"], shown["nonce"], shown["canonical"]
        )

    # the state moved on: bids spent, score, round 2 open with a fresh decision
    game = (await client.get(f"/games/{g.id}")).json()
    assert game["version"] == 4
    assert game["state"]["budgets"] == {"red": 6, "blue": 3}
    assert game["state"]["round"] == 2
    assert game["state"]["scores"] == {s: int(s == winner) for s in ("red", "blue")}
    listing = (await client.get(f"/games/{g.id}/sealed")).json()
    assert [d["id"] for d in listing["open"]] == ["bid.r2"]
    assert listing["open"][0]["waiting"] == ["red", "blue"] and listing["open"][0]["received"] == []
    assert [(r["decision"], r["event"]) for r in listing["revealed"]] == [("bid.r1", 3)]
    assert listing["revealed"][0]["orders"]["red"]["commitment"] == red["commitment"]


async def test_refusals_name_the_cause_and_write_nothing(client: httpx.AsyncClient) -> None:
    g = await new_blind(client)
    url = f"/games/{g.id}/sealed/bid.r1"
    problem(await client.post(url, json={"bid": 1}), 401, "auth.required")
    problem(
        await client.post(url, json={"bid": 1}, headers=g.auth("red")),
        428,
        "precondition.if_match_required",
    )
    problem(
        await client.post(url, json={"bid": 1}, headers=g.write("red", 7)),
        412,
        "precondition.stale",
    )
    body = problem(
        await client.post(url, json={"bid": 1}, headers=g.write("umpire")),
        403,
        "sealed.not_a_party",
    )
    assert "umpire may open" in body["detail"]
    problem(
        await client.post(f"/games/{g.id}/sealed/bid.r9", json={"bid": 1}, headers=g.write("red")),
        404,
        "sealed.decision_not_found",
    )
    check = await client.post(f"{url}/check", json={"bid": 11}, headers=g.auth("red"))
    assert check.status_code == 200, check.text
    assert check.json()["side"] == "red" and check.json()["ruling"]["legal"] is False
    body = problem(
        await client.post(url, json={"bid": 11}, headers=g.write("red")),
        422,
        "sealed.order_illegal",
    )
    assert body["ruling"] == check.json()["ruling"]
    (violation,) = body["ruling"]["violations"]
    assert (violation["code"], violation["location"], violation["message"]) == (
        "blind.over_budget",
        "/bid",
        "a bid of 11 exceeds the 10 points left",
    )
    assert [c["section"] for c in violation["citations"]] == ["1"]
    assert [c["section"] for c in body["ruling"]["citations"]] == ["2", "1"]
    body = problem(
        await client.post(url, json={"bid": 1, "extra": 1}, headers=g.write("red")),
        422,
        "sealed.order_invalid",
    )
    assert body["errors"][0]["location"] == "/extra"
    problem(
        await client.post(
            url, json={"bid": 1}, headers={"Authorization": "Bearer nope", "If-Match": "*"}
        ),
        401,
        "auth.invalid_token",
    )
    problem(
        await client.post(f"/games/{g.id}/sealed/bid.r1/open", headers=g.write("red")),
        403,
        "sealed.umpire_only",
    )
    assert (await client.get(f"/games/{g.id}")).json()["version"] == 1
    assert (await client.get(f"/games/{g.id}/events")).json()["items"] == []

    ok = await client.post(url, json={"bid": 2}, headers=g.write("red", 1))
    assert ok.status_code == 201
    body = problem(
        await client.post(url, json={"bid": 3}, headers=g.write("red")),
        409,
        "sealed.already_submitted",
    )
    assert body["side"] == "red"
    assert (await client.get(f"/games/{g.id}")).json()["version"] == 2


async def test_idempotent_retry_replays_the_receipt(client: httpx.AsyncClient) -> None:
    g = await new_blind(client)
    url = f"/games/{g.id}/sealed/bid.r1"
    headers = g.write("red", 1, **{"Idempotency-Key": "red-bid-1"})
    first = await client.post(url, json={"bid": 5}, headers=headers)
    again = await client.post(url, json={"bid": 5}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again.headers["idempotent-replayed"] == "true"
    problem(await client.post(url, json={"bid": 6}, headers=headers), 422, "idempotency.key_reused")
    assert (await client.get(f"/games/{g.id}")).json()["version"] == 2
    # keys are per seat: the same key from another seat is that seat's own, new order
    other = await client.post(
        url, json={"bid": 5}, headers=g.write("blue", "*", **{"Idempotency-Key": "red-bid-1"})
    )
    assert other.status_code == 201, other.text
    assert "idempotent-replayed" not in other.headers
    assert other.json()["side"] == "blue" and other.json()["nonce"] != first.json()["nonce"]
    assert other.json()["reveal"] is not None  # blue's order completed the set
    assert (await client.get(f"/games/{g.id}")).json()["version"] == 4


async def test_umpire_opens_early_missing_side_bids_nothing(client: httpx.AsyncClient) -> None:
    g = await new_blind(client, sides=["red", "blue", "green"])
    r = await client.post(f"/games/{g.id}/sealed/bid.r1", json={"bid": 3}, headers=g.write("red"))
    assert r.status_code == 201
    problem(
        await client.post(f"/games/{g.id}/sealed/bid.r1/open", headers=g.auth("umpire")),
        428,
        "precondition.if_match_required",
    )
    opened = await client.post(f"/games/{g.id}/sealed/bid.r1/open", headers=g.write("umpire", 2))
    assert opened.status_code == 200, opened.text
    reveal = opened.json()
    assert opened.headers["etag"] == 'W/"3"' and reveal["version"] == 3 and reveal["event"] == 2
    assert reveal["opened_by"] == "umpire" and reveal["missing"] == ["blue", "green"]
    assert list(reveal["orders"]) == ["red"]
    no_bids = [e for e in reveal["ruling"]["effects"] if e["kind"] == "blind.no_bid"]
    assert [e["unit"] for e in no_bids] == ["blue", "green"]
    assert no_bids[0]["citations"][0]["section"] == "4"
    assert reveal["ruling"]["details"]["bids"] == {"red": 3, "blue": 0, "green": 0}
    event = (await client.get(f"/games/{g.id}/events/2")).json()
    assert event["kind"] == "sealed_revealed" and event["seat"] == "umpire"
    assert event["payload"]["opened_by"] == "umpire" and len(event["dice"]) == 3
    game = (await client.get(f"/games/{g.id}")).json()
    assert game["state"]["round"] == 2 and game["state"]["budgets"]["red"] == 7
    # round 1 is closed: submitting to it now is refused; round 2 is open
    problem(
        await client.post(f"/games/{g.id}/sealed/bid.r1", json={"bid": 1}, headers=g.write("blue")),
        404,
        "sealed.decision_not_found",
    )
    late = await client.post(
        f"/games/{g.id}/sealed/bid.r2", json={"bid": 1}, headers=g.write("blue")
    )
    assert late.status_code == 201 and late.json()["instance"] == "bid.r2"
    # the audit replays the reveal through the same hooks and finds it identical
    audit = (await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))).json()
    assert audit["ok"] is True and audit["events"] == 3, audit


async def test_three_sides_reveal_only_when_the_last_submits(client: httpx.AsyncClient) -> None:
    g = await new_blind(client, sides=["red", "blue", "green"], rounds=1)
    for n, side in enumerate(("green", "red"), start=1):
        r = await client.post(
            f"/games/{g.id}/sealed/bid.r1", json={"bid": n}, headers=g.write(side)
        )
        assert r.status_code == 201 and r.json()["reveal"] is None
    listing = (await client.get(f"/games/{g.id}/sealed")).json()["open"][0]
    assert [x["side"] for x in listing["received"]] == ["green", "red"]
    assert listing["waiting"] == ["blue"]
    last = await client.post(
        f"/games/{g.id}/sealed/bid.r1", json={"bid": 0}, headers=g.write("blue")
    )
    assert last.json()["reveal"]["ruling"]["details"]["bids"] == {"red": 2, "blue": 0, "green": 1}
    # the only round is over: the reveal finished the game, no decision is open any more,
    # and the dice seed is public: the reveal's rolls verify
    assert (await client.get(f"/games/{g.id}")).json()["status"] == "finished"
    listing = (await client.get(f"/games/{g.id}/sealed")).json()
    assert listing["open"] == [] and len(listing["revealed"]) == 1
    problem(
        await client.post(f"/games/{g.id}/sealed/bid.r2", json={"bid": 0}, headers=g.write("blue")),
        409,
        "game.finished",
    )
    verified = (await client.get(f"/games/{g.id}/dice/verify")).json()
    assert verified["commitment_ok"] is True and verified["mismatches"] == []
    rolls = (await client.get(f"/games/{g.id}/dice")).json()["rolls"]
    assert len(rolls) == 3


async def test_physical_dice_reveal_waits_for_the_umpire(client: httpx.AsyncClient) -> None:
    body = {
        "ruleset": "blind",
        "scenario": {"budget": 10, "rounds": 2},
        "match": {"physical_dice": True},
    }
    created = await client.post("/games", json=body)
    assert created.status_code == 201, created.text
    g = Blind(created.json()["id"], created.json()["seats"])
    url = f"/games/{g.id}/sealed/bid.r1"
    assert (await client.post(url, json={"bid": 2}, headers=g.write("red"))).status_code == 201
    last = await client.post(url, json={"bid": 5}, headers=g.write("blue"))
    assert last.status_code == 201
    assert last.json()["reveal"] is None and last.json()["awaiting_umpire"] is True
    listing = (await client.get(f"/games/{g.id}/sealed", headers=g.auth("umpire"))).json()
    assert listing["open"][0]["awaiting_umpire"] is True and listing["open"][0]["waiting"] == []
    assert "bid" not in json.dumps(listing["open"][0]["received"])

    opened = f"/games/{g.id}/sealed/bid.r1/open"
    problem(await client.post(opened, headers=g.write("umpire")), 422, "dice.required")
    problem(
        await client.post(opened, headers=g.write("umpire", "*", **{"Referee-Dice": "7,1"})),
        422,
        "dice.invalid",
    )
    r = await client.post(opened, headers=g.write("umpire", "*", **{"Referee-Dice": "6,1"}))
    assert r.status_code == 200, r.text
    reveal = r.json()
    assert reveal["opened_by"] == "umpire" and reveal["missing"] == []
    assert reveal["ruling"]["details"]["totals"] == {"red": 8, "blue": 6}
    assert reveal["ruling"]["details"]["winner"] == "red"
    event = (await client.get(f"/games/{g.id}/events/{reveal['event']}")).json()
    assert [(d["value"], d.get("entered_by")) for d in event["dice"]] == [
        (6, "umpire"),
        (1, "umpire"),
    ]


def test_commitment_recipe_is_canonical_and_binding() -> None:
    order = {"motto": "é", "bid": 2, "nested": {"b": 1, "a": [1, 2]}}
    text = sealed_service.canonical_json(order)
    assert text == '{"bid":2,"motto":"é","nested":{"a":[1,2],"b":1}}'
    nonce = "ab" * 32
    published = sealed_service.commitment(nonce, text)
    assert published == hashlib.sha256((nonce + text).encode()).hexdigest()
    assert sealed_service.verify(published, nonce, text)
    assert not sealed_service.verify(published, nonce, text.replace("2", "3", 1))
    assert not sealed_service.verify(published, "cd" * 32, text)


async def test_simultaneous_orders_both_land_and_reveal_once(client: httpx.AsyncClient) -> None:
    """Sides submit at the same moment with `If-Match: *`: neither is refused for the other's
    write, and exactly one reveal follows."""
    import asyncio

    for _ in range(4):
        g = await new_blind(client)
        url = f"/games/{g.id}/sealed/bid.r1"
        red, blue = await asyncio.gather(
            client.post(url, json={"bid": 1}, headers=g.write("red")),
            client.post(url, json={"bid": 2}, headers=g.write("blue")),
        )
        assert red.status_code == blue.status_code == 201, (red.text, blue.text)
        reveals = [r.json()["reveal"] for r in (red, blue) if r.json()["reveal"] is not None]
        assert len(reveals) == 1
        kinds = [e["kind"] for e in (await client.get(f"/games/{g.id}/events")).json()["items"]]
        assert kinds == ["sealed_received", "sealed_received", "sealed_revealed"]
        assert (await client.get(f"/games/{g.id}")).json()["version"] == 4


async def test_illegal_reveal_changes_nothing_and_reopens_a_fresh_instance(
    client: httpx.AsyncClient,
) -> None:
    g = await new_blind(client)
    url = f"/games/{g.id}/sealed/bid.r1"
    assert (await client.post(url, json={"bid": 8}, headers=g.write("red"))).status_code == 201
    # red spends points after sealing its bid: it can no longer pay it
    spent = await client.post(
        f"/games/{g.id}/actions",
        json={"kind": "spend", "side": "red", "points": 5},
        headers=g.write("red"),
    )
    assert spent.status_code == 201, spent.text
    last = await client.post(url, json={"bid": 1}, headers=g.write("blue"))
    assert last.status_code == 201, last.text
    reveal = last.json()["reveal"]
    assert reveal["applied"] is False and reveal["ruling"]["legal"] is False
    assert reveal["ruling"]["violations"][0]["code"] == "blind.over_budget"
    assert reveal["ruling"]["violations"][0]["unit"] == "red"
    assert reveal["orders"]["red"]["order"]["bid"] == 8  # the orders are public all the same
    game = (await client.get(f"/games/{g.id}")).json()
    assert game["state"]["round"] == 1 and game["state"]["budgets"] == {"red": 5, "blue": 10}
    assert game["version"] == 5 and reveal["version"] == 5

    # the decision is open again as a fresh instance: new orders, new commitments
    listing = (await client.get(f"/games/{g.id}/sealed")).json()
    assert [(d["id"], d["instance"], d["waiting"]) for d in listing["open"]] == [
        ("bid.r1", "bid.r1#2", ["red", "blue"])
    ]
    assert [r["instance"] for r in listing["revealed"]] == ["bid.r1"]
    problem(
        await client.post(url, json={"bid": 6}, headers=g.write("red")), 422, "sealed.order_illegal"
    )
    again = await client.post(url, json={"bid": 5}, headers=g.write("red"))
    assert again.status_code == 201 and again.json()["instance"] == "bid.r1#2"
    done = (await client.post(url, json={"bid": 2}, headers=g.write("blue"))).json()["reveal"]
    assert done["instance"] == "bid.r1#2" and done["applied"] is True
    assert (await client.get(f"/games/{g.id}")).json()["state"]["budgets"] == {"red": 0, "blue": 8}
    audit = (await client.get(f"/games/{g.id}/audit", headers=g.auth("umpire"))).json()
    assert audit["ok"] is True, audit
