"""Per-seat webhooks over a real server with a real receiver on loopback: registration, the
outbox worker, HMAC signatures, retries with back-off, the delivery log, and who may see what."""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.service.delivery import verify
from tests.platform.conftest import Game, new_game
from tests.support.receiver import Received, Receiver, webhook_receiver


def register(game: Game, seat: str, url: str, events: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"url": url}
    if events is not None:
        body["events"] = events
    r = game.http.post(f"/games/{game.id}/webhooks", json=body, headers=game.auth(seat))
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def signature_ok(secret: str, received: Received) -> bool:
    """The receiver's check, written out independently of the service's helper."""
    fields = dict(p.split("=", 1) for p in received.headers["referee-signature"].split(","))
    mac = hmac.new(
        secret.encode(), fields["t"].encode() + b"." + received.body, hashlib.sha256
    ).hexdigest()
    return hmac.compare_digest(mac, fields["v1"])


def deliveries(game: Game, seat: str, hook: dict[str, Any]) -> list[dict[str, Any]]:
    r = game.http.get(f"/games/{game.id}/webhooks/{hook['id']}/deliveries", headers=game.auth(seat))
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


def wait_delivered(game: Game, seat: str, hook: dict[str, Any], receiver: Receiver, n: int) -> None:
    """Wait (bounded) for ``n`` requests and for the log to record every outcome."""
    receiver.wait_for(n)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if all(d["status"] != "pending" for d in deliveries(game, seat, hook)):
            return
        time.sleep(0.02)
    raise AssertionError("deliveries still pending")


def test_your_turn_is_signed_and_retried_after_a_failing_first_delivery(http: httpx.Client) -> None:
    game = new_game(http, sequence=True)
    with webhook_receiver(statuses=[500]) as receiver:
        hook = register(game, "blue", receiver.url)
        assert len(hook["secret"]) == 64 and hook["events"] == sorted(
            [
                "your_turn",
                "sealed_revealed",
                "game_finished",
                "ruleset_upgraded",
                "appeal",
                "appeal_decided",
            ]
        )
        assert (
            "secret"
            not in http.get(f"/games/{game.id}/webhooks", headers=game.auth("blue")).json()[
                "items"
            ][0]
        )
        game.step("red", "r1", 1)  # still red's move phase: blue is not waited for
        ended = game.end_phase("red")  # the react phase: blue (non-phasing) acts
        first, second = receiver.wait_for(2)
        wait_delivered(game, "blue", hook, receiver, 2)

    assert (first.status, second.status) == (500, 200)
    for received in (first, second):
        assert signature_ok(hook["secret"], received)
        assert verify(hook["secret"], received.headers["referee-signature"], received.body)
        assert not signature_ok("0" * 64, received)
        assert received.headers["referee-notification"] == "your_turn"
        assert received.headers["referee-webhook-id"] == hook["id"]
    # one delivery, retried: same id and body both times
    assert first.headers["referee-delivery-id"] == second.headers["referee-delivery-id"]
    assert first.body == second.body
    payload = second.json()
    assert payload == {
        "id": first.headers["referee-delivery-id"],
        "type": "your_turn",
        "game": game.id,
        "seat": "blue",
        "event": ended["event"],
        "version": ended["version"],
        "position": {"turn": 1, "phase": "react", "phasing_side": "red"},
        "created_at": payload["created_at"],
    }
    log = deliveries(game, "blue", hook)
    assert [(d["type"], d["status"], d["attempts"]) for d in log] == [("your_turn", "delivered", 2)]
    assert [(a["attempt"], a["status"], a["error"]) for a in log[0]["log"]] == [
        (1, 500, "HTTP 500"),
        (2, 200, None),
    ]
    assert log[0]["log"][1]["at"] > log[0]["log"][0]["at"]


def test_sealed_reveal_and_game_finished_reach_every_subscribed_seat(http: httpx.Client) -> None:
    r = http.post(
        "/games",
        json={
            "ruleset": "blind",
            "scenario": {"sides": ["red", "blue"], "budget": 10, "rounds": 1},
        },
    )
    assert r.status_code == 201, r.text
    game = Game(r.json()["id"], r.json()["seats"], http)
    with webhook_receiver() as red_rx, webhook_receiver() as umpire_rx:
        red_hook = register(game, "red", red_rx.url, ["sealed_revealed", "game_finished"])
        umpire_hook = register(game, "umpire", umpire_rx.url, ["game_finished"])
        assert game.write("red", "/sealed/bid.r1", {"bid": 3}).status_code == 201
        assert game.write("blue", "/sealed/bid.r1", {"bid": 2}).status_code == 201
        wait_delivered(game, "red", red_hook, red_rx, 2)
        wait_delivered(game, "umpire", umpire_hook, umpire_rx, 1)
        red_kinds = sorted(x.json()["type"] for x in red_rx.received)
        assert red_kinds == ["game_finished", "sealed_revealed"]
        revealed = next(x.json() for x in red_rx.received if x.json()["type"] == "sealed_revealed")
        assert revealed["decision"] == "bid.r1" and revealed["seat"] == "red"
        assert [x.json()["type"] for x in umpire_rx.received] == ["game_finished"]
        assert all(signature_ok(red_hook["secret"], x) for x in red_rx.received)
        assert all(signature_ok(umpire_hook["secret"], x) for x in umpire_rx.received)
        # the umpire sees every webhook of the game; red only its own
        listed = http.get(f"/games/{game.id}/webhooks", headers=game.auth("umpire")).json()
        assert {h["seat"] for h in listed["items"]} == {"red", "umpire"}
        listed = http.get(f"/games/{game.id}/webhooks", headers=game.auth("red")).json()
        assert [h["id"] for h in listed["items"]] == [red_hook["id"]]


def test_an_appeal_reaches_the_umpire_and_its_decision_the_appellant(
    http: httpx.Client,
) -> None:
    game = new_game(http)
    with webhook_receiver() as blue_rx, webhook_receiver() as umpire_rx:
        blue_hook = register(game, "blue", blue_rx.url, ["appeal", "appeal_decided"])
        umpire_hook = register(game, "umpire", umpire_rx.url, ["appeal", "appeal_decided"])
        red_hook = register(game, "red", "http://127.0.0.1:9/never", ["appeal", "appeal_decided"])
        game.step("red", "r1", 1)
        note = "WEBHOOK-APPEAL-NOTE"
        assert game.write("blue", "/events/1/appeal", {"note": note}).status_code == 201
        decided = game.write("umpire", "/appeals/2/decision", {"outcome": "upheld"})
        assert decided.status_code == 201, decided.text
        wait_delivered(game, "umpire", umpire_hook, umpire_rx, 1)
        wait_delivered(game, "blue", blue_hook, blue_rx, 1)
        (to_umpire,) = [x.json() for x in umpire_rx.received]
        assert to_umpire["type"] == "appeal" and to_umpire["appeal"] == 2
        assert to_umpire["appealed_event"] == 1
        (to_blue,) = [x.json() for x in blue_rx.received]
        assert to_blue["type"] == "appeal_decided" and to_blue["outcome"] == "upheld"
        assert note not in str(to_umpire) + str(to_blue)  # the receiver reads it with its token
        assert deliveries(game, "red", red_hook) == []  # red neither appealed nor decides


def test_webhook_access_and_validation(http: httpx.Client) -> None:
    game = new_game(http, public=False)
    hook = register(game, "red", "http://127.0.0.1:9/hook", ["your_turn"])
    base = f"/games/{game.id}/webhooks"
    cases = [
        (
            http.post(base, json={"url": "ftp://x/y"}, headers=game.auth("red")),
            422,
            "webhook.invalid",
        ),
        (
            http.post(
                base, json={"url": "http://x/", "events": ["nope"]}, headers=game.auth("red")
            ),
            422,
            "webhook.invalid",
        ),
        (http.post(base, json={"url": "http://x/"}), 401, "auth.required"),
        (
            http.get(f"{base}/{hook['id']}/deliveries", headers=game.auth("blue")),
            403,
            "webhook.not_yours",
        ),
        (http.delete(f"{base}/{hook['id']}", headers=game.auth("blue")), 403, "webhook.not_yours"),
        (
            http.get(f"{base}/not-an-id/deliveries", headers=game.auth("red")),
            404,
            "webhook.not_found",
        ),
    ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == code
    spectator = http.post(f"/games/{game.id}/tokens", headers=game.auth("red")).json()["token"]
    r = http.post(base, json={"url": "http://x/"}, headers={"Authorization": f"Bearer {spectator}"})
    assert r.status_code == 403 and r.json()["code"] == "token.read_only"
    for _ in range(4):
        register(game, "red", "http://127.0.0.1:9/more")
    r = http.post(base, json={"url": "http://x/"}, headers=game.auth("red"))
    assert r.status_code == 409 and r.json()["code"] == "webhook.limit"
    assert http.delete(f"{base}/{hook['id']}", headers=game.auth("red")).status_code == 204
    r = http.get(f"{base}/{hook['id']}/deliveries", headers=game.auth("red"))
    assert r.status_code == 404


@pytest.mark.anyio
async def test_private_receivers_are_refused_by_default(db_url: str) -> None:
    app = create_app(Settings(database_url=db_url))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as c:
        r = await c.post("/games", json={"ruleset": "tiny", "scenario": {"length": 5}})
        game_id, token = r.json()["id"], r.json()["seats"]["red"]
        for url in (
            "http://127.0.0.1:8080/x",
            "http://localhost/x",
            "http://[::1]/x",
            "http://10.1.2.3/",
            # IPv6 forms of private IPv4 addresses (issue 22)
            "http://[::ffff:127.0.0.1]/x",
            "http://[::127.0.0.1]/x",
            "http://[64:ff9b::7f00:1]/x",
            "http://[64:ff9b:1::a00:1]/x",
            "http://[2002:7f00:1::1]/x",
            "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x",
        ):
            r = await c.post(
                f"/games/{game_id}/webhooks",
                json={"url": url},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 422 and r.json()["code"] == "webhook.invalid", url
            error = r.json()["errors"][0]
            assert (error["location"], error["type"]) == ("/url", "webhook.address_refused"), url
        for url in ("http://[64:ff9b::808:808]/x", "http://8.8.8.8/x"):  # public: accepted
            r = await c.post(
                f"/games/{game_id}/webhooks",
                json={"url": url},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 201, (url, r.text)
    app.state.engine.dispose()


def test_registration_refuses_urls_no_worker_could_call(http: httpx.Client) -> None:
    """Issue 22: a port out of range, a CR LF or control character, an IPv4 shorthand -- each a
    422 naming /url, even where private receivers are allowed -- and an empty `events` list
    (it would deliver nothing: omit the field for all). Nothing is written."""
    game = new_game(http)
    base = f"/games/{game.id}/webhooks"
    for url in (
        "http://127.1:99999/x",
        "http://127.0.0.1:0/x",
        "http://127.0.0.1/\r\nX-Evil: 1",
        "http://127.0.0.1/a\x00b",
        "http://127.0.0.1/a\x1fb",
        "http://127.0.0.1/a b",
        "http://127.1/x",
        "http://2130706433/x",
        "http://0x7f000001/x",
        "http://0177.0.0.1/x",
        "http://user:pw@127.0.0.1/x",
        "http://[fe80::1%25lo]/x",
    ):
        r = http.post(base, json={"url": url}, headers=game.auth("red"))
        assert r.status_code == 422, (url, r.text)
        assert r.headers["content-type"] == "application/problem+json"
        problem = r.json()
        assert problem["code"] == "webhook.invalid"
        assert [(e["location"], e["type"]) for e in problem["errors"]] == [
            ("/url", "webhook.invalid_url")
        ], url
    r = http.post(
        base, json={"url": "http://127.0.0.1:9/x", "events": []}, headers=game.auth("red")
    )
    assert r.status_code == 422 and r.json()["code"] == "webhook.invalid", r.text
    error = r.json()["errors"][0]
    assert (error["location"], error["type"]) == ("/events", "webhook.no_events")
    assert "omit" in error["message"]
    assert http.get(base, headers=game.auth("umpire")).json()["items"] == []
    assert register(game, "red", "http://127.0.0.1:9/x")["events"] == [
        "appeal",
        "appeal_decided",
        "game_finished",
        "ruleset_upgraded",
        "sealed_revealed",
        "your_turn",
    ]
