"""Email notifications over a real server and a real SMTP server on loopback (aiosmtpd), on
SQLite and PostgreSQL: registration, the confirmation link, "your turn", unsubscribe, the
per-address cap, a refusing or absent SMTP server, emailed invitations, and no hidden
information in any email."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from app.client import RefereeClient
from app.client.problems import ProblemError
from app.main import create_app
from tests.platform.conftest import Game, new_game, platform_settings
from tests.support.receiver import webhook_receiver
from tests.support.server import running_server
from tests.support.smtp import Mail, Mailbox, free_port, smtp_server

PUBLIC = "https://referee.example"
FROM = "Referee <referee@referee.example>"


@contextmanager
def service(db_url: str, smtp_url: str | None, **extra: Any) -> Iterator[httpx.Client]:
    settings = platform_settings(
        db_url,
        public_url=PUBLIC,
        smtp_url=smtp_url,
        smtp_from=FROM if smtp_url else None,
        smtp_timeout_seconds=5,
        **extra,
    )
    with running_server(create_app(settings)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


@contextmanager
def mail_service(
    db_url: str, refuse: int = 0, **extra: Any
) -> Iterator[tuple[httpx.Client, Mailbox]]:
    with smtp_server(refuse=refuse) as (box, smtp_url), service(db_url, smtp_url, **extra) as c:
        yield c, box


def register(game: Game, seat: str, address: str, **body: Any) -> dict[str, Any]:
    r = game.http.post(
        f"/games/{game.id}/emails", json={"address": address, **body}, headers=game.auth(seat)
    )
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def log(game: Game, seat: str, sub: dict[str, Any]) -> list[dict[str, Any]]:
    r = game.http.get(f"/games/{game.id}/emails/{sub['id']}/deliveries", headers=game.auth(seat))
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


def settled(game: Game, seat: str, sub: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The log once it holds ``n`` deliveries, none pending (bounded wait)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        items = log(game, seat, sub)
        if len(items) >= n and all(d["status"] != "pending" for d in items):
            return items
        time.sleep(0.05)
    raise AssertionError(f"deliveries not settled: {log(game, seat, sub)}")


def link(mail: Mail, kind: str) -> str:
    """The path of the ``kind`` (confirm, unsubscribe) link in an email's body."""
    found = re.search(rf"{re.escape(PUBLIC)}(/v1/email/{kind}/\S+)", mail.body)
    assert found, mail.body
    return found.group(1)


def confirm(http: httpx.Client, mail: Mail) -> None:
    path = link(mail, "confirm")
    page = http.get(path)  # opening the link changes nothing (mail scanners open links)
    assert page.status_code == 200 and '<form method="post">' in page.text
    done = http.post(path)
    assert done.status_code == 200 and "Address confirmed" in done.text, done.text
    again = http.post(path)  # single use
    assert again.status_code == 404 and "Link not valid" in again.text


def actor(game: Game) -> str:
    """The side the tiny game (with its sequence of play) waits for."""
    r = game.http.get(f"/games/{game.id}", headers=game.auth("umpire"))
    position = r.json()["position"]
    phasing = position["phasing_side"]
    if position["phase"] == "react":
        return "blue" if phasing == "red" else "red"
    return str(phasing)


def wait_for_side(game: Game, side: str) -> None:
    """End phases until ``side`` is waited for (it becomes so once on the way)."""
    for _ in range(4):
        current = actor(game)
        if current == side:
            return
        game.end_phase(current)
    raise AssertionError(f"{side} never waited for")


def turn_to_blue(game: Game) -> None:
    wait_for_side(game, "blue")


def back_to_red(game: Game) -> None:
    wait_for_side(game, "red")


def test_confirm_then_your_turn_then_one_click_unsubscribe(db_url: str) -> None:
    with mail_service(db_url) as (http, box):
        game = new_game(http, sequence=True)
        address = "Blue.Player@Example.ORG"
        sub = register(game, "blue", address, events=["your_turn", "game_finished"])
        assert sub["address"] == "blue.player@example.org"  # the cap counts one address
        assert (sub["status"], sub["seat"], sub["events"]) == (
            "unconfirmed",
            "blue",
            ["game_finished", "your_turn"],
        )
        [confirmation] = box.wait_for("blue.player@example.org", 1)
        assert confirmation.subject == f"Confirm email notifications for game {game.id[:8]}"
        assert confirmation.header("From") == FROM
        assert confirmation.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"

        # unconfirmed: blue's turn comes and goes, and only the confirmation was sent
        turn_to_blue(game)
        back_to_red(game)
        time.sleep(0.8)
        assert len(box.to("blue.player@example.org")) == 1
        assert [(d["type"], d["status"]) for d in log(game, "blue", sub)] == [
            ("confirm", "delivered")
        ]

        confirm(http, confirmation)
        listed = http.get(f"/games/{game.id}/emails", headers=game.auth("blue")).json()["items"]
        assert [(s["id"], s["status"]) for s in listed] == [(sub["id"], "confirmed")]

        turn_to_blue(game)
        mails = box.wait_for("blue.player@example.org", 2)
        turn = mails[1]
        assert turn.subject == f"Your turn: blue in game {game.id[:8]}"
        assert f"It is your turn (seat blue) in game {game.id}." in turn.body
        assert "phase react" in turn.body
        assert f"Open the game: {PUBLIC}/#game={game.id}" in turn.body
        unsubscribe = link(turn, "unsubscribe")
        assert turn.header("List-Unsubscribe") == f"<{PUBLIC}{unsubscribe}>"
        assert turn.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
        assert turn.header("Auto-Submitted") == "auto-generated"
        assert game.seats["blue"] not in turn.raw.decode()  # no token in a notification
        items = settled(game, "blue", sub, 2)
        assert [(d["type"], d["status"], d["attempts"]) for d in items] == [
            ("your_turn", "delivered", 1),
            ("confirm", "delivered", 1),
        ]
        assert items[0]["log"][0]["status"] == 250 and items[0]["log"][0]["error"] is None
        assert items[0]["payload"]["position"] == {
            "turn": 2,
            "phase": "react",
            "phasing_side": "red",
        }

        # RFC 8058 one-click: the mail client POSTs the form body to the header's URL
        done = http.post(
            unsubscribe,
            content=b"List-Unsubscribe=One-Click",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert done.status_code == 200 and "Unsubscribed" in done.text, done.text
        listed = http.get(f"/games/{game.id}/emails", headers=game.auth("blue")).json()["items"]
        assert listed[0]["status"] == "unsubscribed"
        back_to_red(game)
        turn_to_blue(game)
        time.sleep(0.8)
        assert len(box.to("blue.player@example.org")) == 2


def test_no_sealed_order_content_in_any_email(db_url: str) -> None:
    with mail_service(db_url) as (http, box):
        r = http.post(
            "/games",
            json={
                "ruleset": "blind",
                "scenario": {"sides": ["red", "blue"], "budget": 10, "rounds": 2},
            },
        )
        assert r.status_code == 201, r.text
        game = Game(r.json()["id"], r.json()["seats"], http)
        subs = {seat: register(game, seat, f"{seat}@example.org") for seat in ("red", "blue")}
        for seat in subs:
            confirm(http, box.wait_for(f"{seat}@example.org", 1)[0])
        secrets = ["MOTTO-RED-r1-SECRET", "MOTTO-BLUE-r1-SECRET", "MOTTO-RED-r2-SECRET"]
        assert (
            game.write("red", "/sealed/bid.r1", {"bid": 3, "motto": secrets[0]}).status_code == 201
        )
        assert (
            game.write("blue", "/sealed/bid.r1", {"bid": 2, "motto": secrets[1]}).status_code == 201
        )
        # round 2's decision opens: red seals its order, blue has not
        assert (
            game.write("red", "/sealed/bid.r2", {"bid": 1, "motto": secrets[2]}).status_code == 201
        )
        for seat in subs:
            mails = box.wait_for(f"{seat}@example.org", 3)
            subjects = sorted(m.subject for m in mails[1:])
            assert subjects == sorted(
                [
                    f"Orders revealed in game {game.id[:8]}",
                    f"Your orders are awaited: {seat} in game {game.id[:8]}",
                ]
            ), subjects
            asked = next(m for m in mails if "awaited" in m.subject)
            assert "sealed decision bid.r2" in asked.body
            revealed = next(m for m in mails if "revealed" in m.subject)
            assert "decision bid.r1 were revealed" in revealed.body
            settled(game, seat, subs[seat], 3)
        time.sleep(0.5)
        for mail in box.received:
            raw = mail.raw.decode()
            for secret in secrets:
                assert secret not in raw
            for token in game.seats.values():
                assert token not in raw


def test_per_address_cap_holds(db_url: str) -> None:
    with mail_service(db_url, email_per_address_per_hour=2) as (http, box):
        game = new_game(http, sequence=True)
        sub = register(game, "blue", "capped@example.org", events=["your_turn"])
        confirm(http, box.wait_for("capped@example.org", 1)[0])  # email 1
        turn_to_blue(game)  # email 2
        box.wait_for("capped@example.org", 2)
        back_to_red(game)
        turn_to_blue(game)  # would be 3: skipped, recorded
        items = settled(game, "blue", sub, 3)
        assert [(d["type"], d["status"]) for d in items] == [
            ("your_turn", "skipped"),
            ("your_turn", "delivered"),
            ("confirm", "delivered"),
        ]
        assert "REFEREE_EMAIL_PER_ADDRESS_PER_HOUR" in items[0]["log"][0]["error"]
        assert len(box.to("capped@example.org")) == 2
        # a new registration of the address (another game) is refused while the cap holds
        other = new_game(http)
        r = http.post(
            f"/games/{other.id}/emails",
            json={"address": "capped@example.org"},
            headers=other.auth("red"),
        )
        assert r.status_code == 429, r.text
        assert r.json()["code"] == "email.rate_limited" and r.headers["Retry-After"] == "3600"
        r = http.post(
            f"/games/{other.id}/seats/red/invite",
            json={"address": "capped@example.org", "token": other.seats["red"]},
            headers=other.auth("umpire"),
        )
        assert r.status_code == 429 and r.json()["code"] == "email.rate_limited"


def test_refusing_smtp_server_is_retried_and_recorded(db_url: str) -> None:
    with mail_service(db_url, refuse=1) as (http, box):
        game = new_game(http)
        sub = register(game, "red", "retry@example.org")
        [mail] = box.wait_for("retry@example.org", 1)
        [item] = settled(game, "red", sub, 1)
        assert (item["status"], item["attempts"]) == ("delivered", 2)
        assert [(a["attempt"], a["status"]) for a in item["log"]] == [(1, 554), (2, 250)]
        assert item["log"][0]["error"].startswith("SMTP 554")
        assert box.refused == 1
        confirm(http, mail)  # the link of the attempt that went through works


def test_smtp_server_down_is_retried_and_nothing_else_stalls(db_url: str) -> None:
    down = f"smtp://127.0.0.1:{free_port()}"  # nothing listens there
    with service(db_url, down, webhook_max_attempts=3) as http:
        game = new_game(http, sequence=True)
        sub = register(game, "blue", "down@example.org")
        with webhook_receiver() as receiver:
            hook = http.post(
                f"/games/{game.id}/webhooks", json={"url": receiver.url}, headers=game.auth("blue")
            ).json()
            turn_to_blue(game)
            [got] = receiver.wait_for(1)  # the webhook goes while the email fails
            assert got.json()["type"] == "your_turn"
            assert hook["id"] == got.headers["referee-webhook-id"]
        [item] = settled(game, "blue", sub, 1)
        assert (item["type"], item["status"], item["attempts"]) == ("confirm", "failed", 3)
        assert all(a["status"] is None and "Connection" in a["error"] for a in item["log"])


def test_umpire_emails_an_invitation(db_url: str) -> None:
    with mail_service(db_url) as (http, box):
        game = new_game(http)
        base = f"/games/{game.id}/seats"
        r = http.post(
            f"{base}/red/invite",
            json={"address": "red.player@example.org", "token": game.seats["red"]},
            headers=game.auth("umpire"),
        )
        assert r.status_code == 202, r.text
        sent = r.json()
        assert (sent["seat"], sent["address"], sent["status"]) == (
            "red",
            "red.player@example.org",
            "pending",
        )
        [mail] = box.wait_for("red.player@example.org", 1)
        assert mail.subject == f"Your invitation to play red in game {game.id[:8]}"
        assert f"{PUBLIC}/#game={game.id}&seat=red&token={game.seats['red']}" in mail.body
        assert "secret token" in mail.body
        # once sent, the outbox no longer holds the token
        engine = create_engine(db_url)
        deadline = time.monotonic() + 10
        while True:
            with engine.connect() as conn:
                row = conn.execute(
                    text("SELECT status, payload FROM webhook_deliveries WHERE id = :id"),
                    {"id": sent["delivery"]},
                ).one()
            if row[0] != "pending" or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        engine.dispose()
        assert row[0] == "delivered" and game.seats["red"] not in str(row[1])
        refusals = [
            (
                http.post(
                    f"{base}/red/invite",
                    json={"address": "a@example.org", "token": game.seats["red"]},
                    headers=game.auth("red"),
                ),
                403,
                "email.umpire_only",
            ),
            (
                http.post(
                    f"{base}/red/invite",
                    json={"address": "a@example.org", "token": game.seats["blue"]},
                    headers=game.auth("umpire"),
                ),
                422,
                "email.invalid",
            ),
            (
                http.post(
                    f"{base}/nobody/invite",
                    json={"address": "a@example.org", "token": "x"},
                    headers=game.auth("umpire"),
                ),
                404,
                "seat.not_found",
            ),
            (
                http.post(
                    f"{base}/red/invite",
                    json={"address": "not an address", "token": "x"},
                    headers=game.auth("umpire"),
                ),
                422,
                "email.invalid",
            ),
        ]
        for response, status, code in refusals:
            assert (response.status_code, response.json()["code"]) == (status, code), response.text


def test_email_refusals_and_access(db_url: str) -> None:
    with mail_service(db_url) as (http, _box):
        game = new_game(http, public=False)
        sub = register(game, "red", "red@example.org")
        emails = f"/games/{game.id}/emails"
        cases = [
            (
                http.post(emails, json={"address": "red@example.org"}, headers=game.auth("red")),
                409,
                "email.already_registered",
            ),
            (
                http.post(emails, json={"address": "x@y"}, headers=game.auth("red")),
                422,
                "email.invalid",
            ),
            (
                http.post(
                    emails, json={"address": "Name <a@example.org>"}, headers=game.auth("red")
                ),
                422,
                "email.invalid",
            ),
            (
                http.post(
                    emails,
                    json={"address": "a@example.org", "events": []},
                    headers=game.auth("red"),
                ),
                422,
                "email.invalid",
            ),
            (
                http.post(
                    emails,
                    json={"address": "a@example.org", "events": ["ruleset_upgraded"]},
                    headers=game.auth("red"),
                ),
                422,
                "email.invalid",
            ),
            (http.post(emails, json={"address": "a@example.org"}), 401, "auth.required"),
            (
                http.delete(f"{emails}/{sub['id']}", headers=game.auth("blue")),
                403,
                "email.not_yours",
            ),
            (
                http.get(f"{emails}/{sub['id']}/deliveries", headers=game.auth("umpire")),
                403,
                "email.not_yours",
            ),
            (
                http.delete(
                    f"{emails}/00000000-0000-0000-0000-000000000000", headers=game.auth("red")
                ),
                404,
                "email.not_found",
            ),
        ]
        for response, status, code in cases:
            assert (response.status_code, response.json()["code"]) == (status, code), response.text
        # each seat sees only its own addresses, the umpire's included
        assert http.get(emails, headers=game.auth("umpire")).json()["items"] == []
        assert http.get(emails, headers=game.auth("blue")).json()["items"] == []
        assert http.post("/v1/email/confirm/nope").status_code == 404
        assert http.post("/v1/email/unsubscribe/nope").status_code == 404
        assert http.delete(f"{emails}/{sub['id']}", headers=game.auth("red")).status_code == 204
        assert http.get(emails, headers=game.auth("red")).json()["items"] == []


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
def test_without_smtp_email_is_off(db_url: str) -> None:
    with service(db_url, None) as http:
        game = new_game(http)
        r = http.post(
            f"/games/{game.id}/emails", json={"address": "a@example.org"}, headers=game.auth("red")
        )
        assert r.status_code == 409, r.text
        body = r.json()
        assert body["code"] == "email.not_configured"
        assert body["missing"] == ["REFEREE_SMTP_URL", "REFEREE_SMTP_FROM"]
        r = http.post(
            f"/games/{game.id}/seats/red/invite",
            json={"address": "a@example.org", "token": game.seats["red"]},
            headers=game.auth("umpire"),
        )
        assert r.status_code == 409 and r.json()["code"] == "email.not_configured"


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
def test_typed_client_email_methods(db_url: str) -> None:
    with mail_service(db_url) as (http, box):
        game = new_game(http)
        with RefereeClient(str(http.base_url)) as referee:
            red = referee.seat(game.id, game.seats["red"])
            sub = red.register_email("client@example.org", ["game_finished"])
            assert (sub.status, sub.events) == ("unconfirmed", ["game_finished"])
            assert [s.id for s in red.emails().items] == [sub.id]
            box.wait_for("client@example.org", 1)
            deadline = time.monotonic() + 20
            while red.email_deliveries(sub.id).items[0].status == "pending":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            assert red.email_deliveries(sub.id).items[0].type == "confirm"
            red.delete_email(sub.id)
            assert red.emails().items == []
            umpire = referee.seat(game.id, game.seats["umpire"])
            sent = umpire.email_invitation("blue", "blue@example.org", game.seats["blue"])
            assert (sent.seat, sent.status) == ("blue", "pending")
            with pytest.raises(ProblemError) as refused:
                red.email_invitation("blue", "blue@example.org", game.seats["blue"])
            assert refused.value.code == "email.umpire_only"
            box.wait_for("blue@example.org", 1)


def test_a_reissue_removes_the_addresses_the_old_token_registered(db_url: str) -> None:
    """Issue 22 item 2 with email: whoever held a leaked seat token may have registered an
    address; the umpire's reissue removes it (a rotation keeps the seat's own addresses)."""
    with mail_service(db_url) as (http, _box):
        game = new_game(http, public=False)
        register(game, "blue", "leaked@example.org")
        register(game, "red", "red@example.org")
        r = http.post(f"/games/{game.id}/seats/blue/token", headers=game.auth("umpire"))
        assert r.status_code == 200, r.text
        game.seats["blue"] = r.json()["token"]
        listed = http.get(f"/games/{game.id}/emails", headers=game.auth("blue"))
        assert listed.status_code == 200 and listed.json()["items"] == [], listed.text
        r = http.post(f"/games/{game.id}/tokens/rotate", headers=game.auth("red"))
        assert r.status_code == 200, r.text
        game.seats["red"] = r.json()["token"]
        kept = http.get(f"/games/{game.id}/emails", headers=game.auth("red")).json()["items"]
        assert [s["address"] for s in kept] == ["red@example.org"]
