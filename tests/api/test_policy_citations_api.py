"""Refusals of table talk, email and appeals cite a service policy (issue 27 item 7f).

Over HTTP on a real server: an appeal of an event the game does not have (404
``event.not_found``), a decision on an appeal that does not exist (404 ``appeal.not_found``),
a message with a control character (422 ``message.invalid``), to nobody at the table (422
``message.invalid_recipient``), over the server's rate (429 ``message.rate_limited``), an email
address that is not one (422 ``email.invalid``), a server that sends no email (409
``email.not_configured``), an address id the game does not have (404 ``email.not_found``) and
a side emailing an invitation (403 ``email.umpire_only``). Each is a problem document whose
``citations`` name exactly the policy (``ruleset: "referee"``, app/service/policies.py,
documented in docs/API.md), and nothing is written.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.rules import registry
from app.rules.base import UMPIRE
from app.service.policies import POLICIES, SERVICE
from tests.support.server import running_server


@pytest.fixture
def client(db_url: str) -> Iterator[httpx.Client]:
    app = create_app(Settings(database_url=db_url, messages_per_minute=2))
    with running_server(app) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c
    app.state.engine.dispose()


def _game(client: httpx.Client) -> tuple[str, dict[str, str]]:
    rs = registry.get("zoc")
    body = {"ruleset": "zoc", "scenario": rs.example_scenario(), "options": {}}
    r = client.post("/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["seats"]


def _refused(
    client: httpx.Client,
    method: str,
    path: str,
    token: str,
    body: Any,
    status: int,
    code: str,
    policy: str,
    *,
    if_match: bool = False,
) -> dict[str, Any]:
    gid = path.split("/")[2]
    auth = {"Authorization": f"Bearer {token}"}
    before = client.get(f"/games/{gid}/events", headers=auth)
    headers = dict(auth)
    if if_match:  # a write on the game's log
        headers["If-Match"] = client.get(f"/games/{gid}", headers=auth).headers["ETag"]
    r = client.request(method, path, json=body, headers=headers)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem: dict[str, Any] = r.json()
    assert problem["code"] == code, problem
    assert policy in POLICIES
    assert [(c["ruleset"], c["section"]) for c in problem["citations"]] == [(SERVICE, policy)]
    assert problem["citations"][0]["title"] == POLICIES[policy].title
    after = client.get(f"/games/{gid}/events", headers=auth)
    assert after.json() == before.json(), "a refusal wrote something"
    return problem


def test_appeal_refusals_for_what_does_not_exist_cite_the_appeals_policy(
    client: httpx.Client,
) -> None:
    gid, seats = _game(client)
    side = next(s for s in seats if s != UMPIRE)
    problem = _refused(
        client,
        "POST",
        f"/games/{gid}/events/999/appeal",
        seats[side],
        {"note": "wrong"},
        404,
        "event.not_found",
        "appeals",
        if_match=True,
    )
    assert "999" in problem["detail"]
    _refused(
        client,
        "POST",
        f"/games/{gid}/appeals/999/decision",
        seats[UMPIRE],
        {"outcome": "upheld"},
        404,
        "appeal.not_found",
        "appeals",
        if_match=True,
    )


def test_message_refusals_cite_the_messages_policy(client: httpx.Client) -> None:
    gid, seats = _game(client)
    side = next(s for s in seats if s != UMPIRE)
    path = f"/games/{gid}/messages"
    _refused(
        client,
        "POST",
        path,
        seats[side],
        {"to": "all", "text": "a bell \u0007"},
        422,
        "message.invalid",
        "messages",
    )
    _refused(
        client,
        "POST",
        path,
        seats[side],
        {"to": "nobody", "text": "hello"},
        422,
        "message.invalid_recipient",
        "messages",
    )
    for n in range(2):  # the server's rate: two a minute
        r = client.post(
            path,
            json={"to": "all", "text": f"hello {n}"},
            headers={"Authorization": f"Bearer {seats[side]}"},
        )
        assert r.status_code == 201, r.text
    auth = {"Authorization": f"Bearer {seats[side]}"}
    count = len(client.get(path, headers=auth).json()["items"])
    r = client.post(path, json={"to": "all", "text": "a third"}, headers=auth)
    assert r.status_code == 429, r.text
    assert r.json()["code"] == "message.rate_limited"
    assert [(c["ruleset"], c["section"]) for c in r.json()["citations"]] == [(SERVICE, "messages")]
    assert len(client.get(path, headers=auth).json()["items"]) == count


def test_email_refusals_cite_the_email_policy(client: httpx.Client) -> None:
    gid, seats = _game(client)
    side = next(s for s in seats if s != UMPIRE)
    _refused(
        client,
        "POST",
        f"/games/{gid}/emails",
        seats[side],
        {"address": "not an address"},
        422,
        "email.invalid",
        "email",
    )
    _refused(
        client,
        "POST",
        f"/games/{gid}/emails",
        seats[side],
        {"address": "player@example.org"},
        409,
        "email.not_configured",
        "email",
    )
    _refused(
        client,
        "DELETE",
        f"/games/{gid}/emails/{uuid.uuid4()}",
        seats[side],
        None,
        404,
        "email.not_found",
        "email",
    )
    _refused(
        client,
        "POST",
        f"/games/{gid}/seats/{side}/invite",
        seats[side],
        {"address": "player@example.org", "token": seats[side]},
        403,
        "email.umpire_only",
        "email",
    )
