"""Dry runs and submissions: rulings, seats, preconditions, idempotency, body limits."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from tests.api.conftest import MAX_BODY, Game
from tests.api.test_games import assert_problem

pytestmark = pytest.mark.anyio

STEP = {"kind": "step", "pawn": "r1", "n": 2}
OFF_TRACK = {"kind": "step", "pawn": "r1", "n": -1}


async def written(client: httpx.AsyncClient, game: Game, app: FastAPI) -> tuple[int, int]:
    """(game version, number of events) straight from the database."""
    with app.state.engine.connect() as conn:
        version = conn.execute(
            text("SELECT version FROM games WHERE id = :id"), {"id": game.id}
        ).scalar_one()
        events = conn.execute(
            text("SELECT count(*) FROM events WHERE game_id = :id"), {"id": game.id}
        ).scalar_one()
    return int(version), int(events)


async def test_dry_run_legal_and_illegal_write_nothing(
    client: httpx.AsyncClient, game: Game, app: FastAPI
) -> None:
    r = await client.post(f"/games/{game.id}/rulings", json=STEP)
    assert r.status_code == 200 and r.headers["etag"] == 'W/"1"'
    ruling = r.json()
    assert ruling["legal"] is True
    assert ruling["effects"][0]["kind"] == "tiny.moved"
    assert ruling["effects"][0]["details"] == {"from": 0, "to": 2}
    assert {"ruleset": "tiny", "section": "2", "title": "Stepping"} in ruling["citations"]

    r = await client.post(f"/games/{game.id}/rulings", json=OFF_TRACK)
    assert r.status_code == 200
    ruling = r.json()
    assert ruling["legal"] is False
    assert ruling["violations"][0]["code"] == "tiny.off_track"
    assert ruling["violations"][0]["citations"][0]["section"] == "2.1"
    assert ruling["interpretations"][0] == {
        "id": "tiny.edge-wraps",
        "text": "No: the step is refused.",
        "option": "wrap",
        "value": False,
    }
    # a dry run of another side's action is allowed, and needs no token on a public game
    r = await client.post(
        f"/games/{game.id}/rulings",
        json={"kind": "step", "pawn": "b1", "n": -1},
        headers=game.auth("red"),
    )
    assert r.status_code == 200 and r.json()["legal"] is True
    assert await written(client, game, app) == (1, 0)


async def test_legal_action_applies_logs_and_bumps_version(
    client: httpx.AsyncClient, game: Game, app: FastAPI
) -> None:
    r = await client.post(f"/games/{game.id}/actions", json=STEP, headers=game.act("red", 1))
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["event"] == 1 and body["version"] == 2
    assert body["ruling"]["legal"] is True
    assert body["state"]["positions"] == {"r1": 2, "b1": 9}
    assert r.headers["etag"] == 'W/"2"'
    assert r.headers["location"] == f"/games/{game.id}/events/1"
    assert await written(client, game, app) == (2, 1)

    got = await client.get(f"/games/{game.id}")
    assert got.headers["etag"] == 'W/"2"' and got.json()["state"]["positions"]["r1"] == 2
    event = (await client.get(f"/games/{game.id}/events/1")).json()
    assert event["seat"] == "red" and event["kind"] == "step" and event["version"] == 2
    assert event["action"] == STEP and event["dice"] == []
    assert event["ruling"] == body["ruling"]
    assert_problem(await client.get(f"/games/{game.id}/events/9"), 404, "event.not_found")


async def test_illegal_action_is_422_with_ruling_and_writes_nothing(
    client: httpx.AsyncClient, game: Game, app: FastAPI
) -> None:
    r = await client.post(f"/games/{game.id}/actions", json=OFF_TRACK, headers=game.act("red", 1))
    body = assert_problem(r, 422, "action.illegal")
    assert body["ruling"]["legal"] is False
    assert body["ruling"]["violations"][0]["code"] == "tiny.off_track"
    assert body["ruling"]["violations"][0]["citations"] == [
        {"ruleset": "tiny", "section": "2.1", "title": "Edges"}
    ]
    assert await written(client, game, app) == (1, 0)


async def test_if_match_required_and_stale(
    client: httpx.AsyncClient, game: Game, app: FastAPI
) -> None:
    r = await client.post(f"/games/{game.id}/actions", json=STEP, headers=game.auth("red"))
    assert_problem(r, 428, "precondition.if_match_required")
    assert r.headers["etag"] == 'W/"1"'
    r = await client.post(f"/games/{game.id}/actions", json=STEP, headers=game.act("red", 7))
    body = assert_problem(r, 412, "precondition.stale")
    assert body["version"] == 1 and r.headers["etag"] == 'W/"1"'
    r = await client.post(
        f"/games/{game.id}/actions", json=STEP, headers={**game.auth("red"), "If-Match": "junk"}
    )
    assert_problem(r, 412, "precondition.stale")
    assert await written(client, game, app) == (1, 0)
    # strong form and * are accepted
    r = await client.post(
        f"/games/{game.id}/actions", json=STEP, headers={**game.auth("red"), "If-Match": '"1"'}
    )
    assert r.status_code == 201
    r = await client.post(
        f"/games/{game.id}/actions", json=STEP, headers={**game.auth("red"), "If-Match": "*"}
    )
    assert r.status_code == 201 and r.json()["version"] == 3


async def test_idempotent_retry_returns_the_stored_response(
    client: httpx.AsyncClient, game: Game, app: FastAPI
) -> None:
    headers = game.act("red", 1, **{"Idempotency-Key": "move-1"})
    first = await client.post(f"/games/{game.id}/actions", json=STEP, headers=headers)
    assert first.status_code == 201
    again = await client.post(f"/games/{game.id}/actions", json=STEP, headers=headers)
    assert again.status_code == 201
    assert again.content == first.content  # byte for byte
    assert again.headers["idempotent-replayed"] == "true"
    assert again.headers["etag"] == first.headers["etag"]
    assert await written(client, game, app) == (2, 1)
    # key order and whitespace do not make another request
    same = await client.post(
        f"/games/{game.id}/actions",
        content=b'{ "n": 2, "pawn": "r1", "kind": "step" }',
        headers={**headers, "Content-Type": "application/json"},
    )
    assert same.status_code == 201 and same.json() == first.json()

    other = await client.post(f"/games/{game.id}/actions", json={**STEP, "n": 1}, headers=headers)
    body = assert_problem(other, 422, "idempotency.key_reused")
    assert body["event"] == 1
    # keys are per seat: the same key from another seat is judged as its own request (here
    # stale), never answered with red's stored response
    stolen = await client.post(
        f"/games/{game.id}/actions",
        json=STEP,
        headers=game.act("umpire", 1, **{"Idempotency-Key": "move-1"}),
    )
    assert_problem(stolen, 412, "precondition.stale")
    assert "idempotent-replayed" not in stolen.headers
    assert await written(client, game, app) == (2, 1)

    bad_key = await client.post(
        f"/games/{game.id}/actions",
        json=STEP,
        headers=game.act("red", 2, **{"Idempotency-Key": "has space"}),
    )
    body = assert_problem(bad_key, 422, "request.invalid")
    assert body["errors"][0]["in"] == "header"


async def test_only_a_keyed_request_stores_its_digest(
    client: httpx.AsyncClient, game: Game, app: FastAPI
) -> None:
    """The request digest binds an Idempotency-Key to its request; a write without a key is
    never replayed, so its event stores neither digest nor answer."""
    plain = await client.post(f"/games/{game.id}/actions", json=STEP, headers=game.act("red", 1))
    keyed = await client.post(
        f"/games/{game.id}/actions",
        json=STEP,
        headers=game.act("red", 2, **{"Idempotency-Key": "move-2"}),
    )
    assert plain.status_code == keyed.status_code == 201
    with app.state.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT seq, request_digest, response FROM events WHERE game_id = :id"),
            {"id": game.id},
        ).all()
    stored = {seq: (digest, response) for seq, digest, response in rows}
    assert stored[1] == (None, None)
    digest, response = stored[2]
    assert digest is not None and len(digest) == 64 and response == keyed.text


async def test_seats_own_their_actions(client: httpx.AsyncClient, game: Game, app: FastAPI) -> None:
    url = f"/games/{game.id}/actions"
    r = await client.post(url, json=STEP, headers={"If-Match": 'W/"1"'})
    assert_problem(r, 401, "auth.required")
    r = await client.post(url, json=STEP, headers={"Authorization": "Bearer x", "If-Match": "*"})
    assert_problem(r, 401, "auth.invalid_token")
    r = await client.post(url, json=STEP, headers=game.act("blue", 1))
    body = assert_problem(r, 403, "seat.not_owner")
    assert body["side"] == "red" and body["seat"] == "blue"
    assert await written(client, game, app) == (1, 0)

    r = await client.post(url, json={"kind": "reset"}, headers=game.act("red", 1))
    assert_problem(r, 403, "seat.not_owner")
    # the umpire may act for any side, and alone may reset
    r = await client.post(url, json=STEP, headers=game.act("umpire", 1))
    assert r.status_code == 201
    r = await client.post(
        url, json={"kind": "step", "pawn": "b1", "n": -3}, headers=game.act("umpire", 2)
    )
    assert r.status_code == 201
    r = await client.post(url, json={"kind": "reset"}, headers=game.act("umpire", 3))
    assert r.status_code == 201 and r.json()["state"]["positions"] == {"r1": 0, "b1": 9}
    # any seat may submit an action no side owns
    r = await client.post(url, json={"kind": "note", "text": "hi"}, headers=game.act("blue", 4))
    assert r.status_code == 201
    listed = await client.get(f"/games/{game.id}/events", headers=game.auth("umpire"))
    seats = [e["seat"] for e in listed.json()["items"]]
    assert seats == ["umpire", "umpire", "umpire", "blue"]
    # a note is private to the umpire and its writer: redacted for everyone else
    anonymous = (await client.get(f"/games/{game.id}/events")).json()["items"]
    assert anonymous[3]["kind"] == "redacted" and anonymous[3]["seat"] is None


async def test_malformed_and_unknown_fields_are_named(
    client: httpx.AsyncClient, game: Game
) -> None:
    for path in ("rulings", "actions"):
        url = f"/games/{game.id}/{path}"
        r = await client.post(
            url,
            content=b'{"kind": "step",',
            headers={**game.act("red", 1), "Content-Type": "application/json"},
        )
        body = assert_problem(r, 400, "request.malformed_json")
        assert "character" in body["errors"][0]["message"]

        r = await client.post(url, json={**STEP, "speed": 3}, headers=game.act("red", 1))
        body = assert_problem(r, 422, "action.invalid")
        assert [(e["location"], e["type"]) for e in body["errors"]] == [
            ("/speed", "extra_forbidden")
        ]

        r = await client.post(url, json={"kind": "fly"}, headers=game.act("red", 1))
        body = assert_problem(r, 422, "action.invalid")
        assert body["errors"][0]["location"] == "/kind"

        r = await client.post(url, json={"kind": "step", "n": "far"}, headers=game.act("red", 1))
        body = assert_problem(r, 422, "action.invalid")
        assert {e["location"] for e in body["errors"]} == {"/pawn", "/n"}

        r = await client.post(url, json=[1, 2], headers=game.act("red", 1))
        assert_problem(r, 422, "request.invalid")

        r = await client.post(url, headers=game.act("red", 1))
        assert_problem(r, 422, "request.body_missing")

        r = await client.post(
            url,
            content=b"kind=step",
            headers={**game.act("red", 1), "Content-Type": "application/x-www-form-urlencoded"},
        )
        assert_problem(r, 415, "request.unsupported_media_type")


async def test_errors_deep_in_the_rules_are_client_errors(
    client: httpx.AsyncClient, game: Game
) -> None:
    r = await client.post(f"/games/{game.id}/rulings", json={"kind": "probe", "hex": "0204"})
    assert r.status_code == 200 and r.json()["legal"] is True
    for path in ("rulings", "actions"):
        r = await client.post(
            f"/games/{game.id}/{path}",
            json={"kind": "probe", "hex": "12-ab"},
            headers=game.act("red", 1),
        )
        body = assert_problem(r, 422, "rules.unjudgeable")
        assert "12-ab" in body["detail"]


async def test_body_over_the_limit_is_413(client: httpx.AsyncClient, game: Game) -> None:
    big = {"kind": "note", "text": "x" * (MAX_BODY + 10)}
    r = await client.post(f"/games/{game.id}/actions", json=big, headers=game.act("red", 1))
    body = assert_problem(r, 413, "request.too_large")
    assert body["limit"] == MAX_BODY

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"kind": "note", "text": "'
        for _ in range(MAX_BODY // 1024 + 2):
            yield b"y" * 1024
        yield b'"}'

    r = await client.post("/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert "content-length" not in r.request.headers  # streamed, chunked
    assert_problem(r, 413, "request.too_large")
    # just under the limit goes through to validation
    r = await client.post("/games", json={"ruleset": "tiny", "scenario": {"pad": "z" * 1000}})
    assert r.status_code == 422


async def test_events_paging(client: httpx.AsyncClient, game: Game) -> None:
    url = f"/games/{game.id}/actions"
    for version in range(1, 8):
        r = await client.post(
            url, json={"kind": "note", "text": f"n{version}"}, headers=game.act("red", version)
        )
        assert r.status_code == 201
    page = (await client.get(f"/games/{game.id}/events", params={"limit": 3})).json()
    assert [e["seq"] for e in page["items"]] == [1, 2, 3] and page["next"] == 3
    page = (await client.get(f"/games/{game.id}/events", params={"after": 3, "limit": 3})).json()
    assert [e["seq"] for e in page["items"]] == [4, 5, 6] and page["next"] == 6
    page = (await client.get(f"/games/{game.id}/events", params={"after": 6, "limit": 3})).json()
    assert [e["seq"] for e in page["items"]] == [7] and page["next"] is None
    # the server caps the page size (events_page_max=5 in these tests)
    page = (await client.get(f"/games/{game.id}/events", params={"limit": 100})).json()
    assert len(page["items"]) == 5 and page["next"] == 5
    seen: list[int] = []
    after: Any = 0
    while after is not None:
        page = (await client.get(f"/games/{game.id}/events", params={"after": after})).json()
        seen += [e["seq"] for e in page["items"]]
        after = page["next"]
    assert seen == list(range(1, 8))
    r = await client.get(f"/games/{game.id}/events", params={"limit": 0})
    body = assert_problem(r, 422, "request.invalid")
    assert body["errors"][0] == {
        "location": "/limit",
        "in": "query",
        "message": body["errors"][0]["message"],
        "type": "greater_than_equal",
    }


async def test_queries(client: httpx.AsyncClient, game: Game) -> None:
    base = f"/games/{game.id}/queries"
    r = await client.get(f"{base}/where", params={"pawn": "b1"})
    assert r.status_code == 200
    assert r.json() == {"query": "where", "version": 1, "result": {"pawn": "b1", "at": 9}}
    r = await client.get(f"{base}/reach", params={"pawn": "r1", "n": "2"})
    assert r.json()["result"] == {"pawn": "r1", "squares": [0, 1, 2]}

    body = assert_problem(await client.get(f"{base}/teleport"), 404, "query.not_found")
    assert body["known"] == ["reach", "where"]
    body = assert_problem(
        await client.get(f"{base}/reach", params={"n": "lots", "colour": "red"}),
        422,
        "query.invalid_params",
    )
    assert {e["location"] for e in body["errors"]} == {"/pawn", "/n", "/colour"}
    assert all(e["in"] == "query" for e in body["errors"])
    assert_problem(await client.get(f"{base}/where", params={"pawn": "zz"}), 422, "query.invalid")


async def test_unstorable_values_are_named_not_500(client: httpx.AsyncClient, game: Game) -> None:
    raw = b'{"kind": "note", "text": "a\\u0000b", "x": [NaN], "\\ud800": 1}'
    for path in ("rulings", "actions"):
        r = await client.post(
            f"/games/{game.id}/{path}",
            content=raw,
            headers={**game.act("red", 1), "Content-Type": "application/json"},
        )
        body = assert_problem(r, 422, "action.invalid")
        assert [(e["location"], e["type"]) for e in body["errors"]] == [
            ("", "json.unsupported_text"),
            ("/text", "json.unsupported_text"),
            ("/x/0", "json.not_finite"),
        ]
    r = await client.post(
        "/games",
        content=b'{"ruleset": "tiny", "scenario": {"length": 3, "sides": ["r\\u0000"]}}',
        headers={"Content-Type": "application/json"},
    )
    body = assert_problem(r, 422, "scenario.invalid")
    assert body["errors"][0]["location"] == "/scenario/sides/0"
    # a control character in any path or query parameter is refused before the route runs
    # (issue 22: app.api.deps.plain_parameters), naming the parameter
    for path in ("/games/%00", "/games/%00/events", "/games/a%00b/queries/where"):
        body = assert_problem(await client.get(path), 422, "request.invalid")
        assert [(e["location"], e["in"], e["type"]) for e in body["errors"]] == [
            ("/game_id", "path", "text.unsupported")
        ]
    r = await client.get(f"/games/{game.id}/queries/where", params={"pawn": "\x00"})
    body = assert_problem(r, 422, "request.invalid")
    assert [(e["location"], e["in"]) for e in body["errors"]] == [("/pawn", "query")]
