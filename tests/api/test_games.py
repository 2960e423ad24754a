"""Creating and reading games: tokens, validation problems, ETags, privacy."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from tests.api.conftest import Game, new_game, scenario

pytestmark = pytest.mark.anyio

PROBLEM = "application/problem+json"


def assert_problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = r.json()
    assert body["code"] == code
    assert body["status"] == status
    assert body["type"].endswith(code)
    assert body["title"]
    assert body["instance"] == r.request.url.path
    return body


async def test_create_game_issues_unique_tokens_stored_hashed(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    r = await client.post(
        "/games", json={"ruleset": "tiny", "scenario": scenario(), "options": {"wrap": True}}
    )
    assert r.status_code == 201
    body = r.json()
    assert r.headers["location"] == f"/games/{body['id']}"
    assert r.headers["etag"] == 'W/"1"'
    assert body["ruleset"] == "tiny" and body["ruleset_version"] == "1.0"
    assert body["version"] == 1 and body["public"] is True
    seats = body["seats"]
    assert set(seats) == {"red", "blue", "umpire"}
    assert len(set(seats.values())) == 3
    for token in seats.values():
        assert len(token) >= 43  # token_urlsafe(32): 256 bits, well over 128

    with app.state.engine.connect() as conn:
        dump = " ".join(
            str(row)
            for table in ("games", "seats", "scenarios", "events")
            for row in conn.execute(text(f"SELECT * FROM {table}"))
        )
    for token in seats.values():
        assert token not in dump
    other = await new_game(client)
    assert not set(other.seats.values()) & set(seats.values())


async def test_create_game_names_every_bad_field(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/games",
        json={
            "ruleset": "tiny",
            "scenario": {
                "length": 0,
                "pawns": [{"id": "", "side": "red", "at": -1}, {"id": "x", "at": 1, "hat": 2}],
                "colour": "blue",
            },
            "options": {"wrap": "sometimes"},
        },
    )
    body = assert_problem(r, 422, "scenario.invalid")
    locations = {e["location"] for e in body["errors"]}
    assert locations == {
        "/scenario/length",
        "/scenario/pawns/0/id",
        "/scenario/pawns/0/at",
        "/scenario/pawns/1/side",
        "/scenario/pawns/1/hat",
        "/scenario/colour",
        "/options/wrap",
    }
    assert all(e["message"] and e["in"] == "body" for e in body["errors"])


async def test_inconsistent_scenario_from_setup_is_422(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/games",
        json={
            "ruleset": "tiny",
            "scenario": {
                "length": 3,
                "pawns": [
                    {"id": "a", "side": "red", "at": 5},
                    {"id": "a", "side": "green", "at": 0},
                ],
            },
        },
    )
    body = assert_problem(r, 422, "scenario.invalid")
    assert {
        (e["location"], e["code"], tuple(c["section"] for c in e["citations"]))
        for e in body["errors"]
    } == {
        ("/scenario/pawns/0/at", "tiny.scenario.invalid_at", ("1", "2.1")),
        ("/scenario/pawns/1/id", "tiny.scenario.invalid_id", ("1",)),
        ("/scenario/pawns/1/side", "tiny.scenario.invalid_side", ("1",)),
    }
    assert body["errors"][0]["citations"][0] == {
        "ruleset": "tiny",
        "section": "1",
        "title": "The track",
    }


async def test_unknown_ruleset_and_unknown_top_level_field(client: httpx.AsyncClient) -> None:
    r = await client.post("/games", json={"ruleset": "chess", "scenario": {}})
    body = assert_problem(r, 422, "ruleset.unknown")
    assert body["errors"][0]["location"] == "/ruleset"
    assert "chess" in body["detail"]

    r = await client.post("/games", json={"ruleset": "tiny", "scenario": scenario(), "colour": 1})
    body = assert_problem(r, 422, "request.invalid")
    assert [e["location"] for e in body["errors"]] == ["/colour"]
    assert body["errors"][0]["type"] == "extra_forbidden"


async def test_get_game_etag_and_304(client: httpx.AsyncClient, game: Game) -> None:
    r = await client.get(f"/games/{game.id}")
    assert r.status_code == 200
    assert r.headers["etag"] == 'W/"1"'
    body = r.json()
    assert body["version"] == 1 and body["status"] == "active" and body["seat"] is None
    assert [s["name"] for s in body["sides"]] == ["red", "blue"]
    assert body["state"]["positions"] == {"r1": 0, "b1": 9}

    r = await client.get(f"/games/{game.id}", headers={"If-None-Match": 'W/"1"'})
    assert r.status_code == 304 and r.headers["etag"] == 'W/"1"' and r.content == b""
    r = await client.get(f"/games/{game.id}", headers={"If-None-Match": '"0"'})
    assert r.status_code == 200


async def test_view_depends_on_the_bearer_seat(client: httpx.AsyncClient, game: Game) -> None:
    r = await client.post(
        f"/games/{game.id}/actions",
        json={"kind": "note", "text": "flank left"},
        headers=game.act("red", 1),
    )
    assert r.status_code == 201
    anon = (await client.get(f"/games/{game.id}")).json()
    umpire = (await client.get(f"/games/{game.id}", headers=game.auth("umpire"))).json()
    assert anon["state"]["notes"] == 1 and anon["seat"] is None
    assert umpire["state"]["notes"] == ["flank left"] and umpire["seat"] == "umpire"


async def test_private_game_needs_a_seat_token(client: httpx.AsyncClient) -> None:
    game = await new_game(client, public=False)
    for path in ("", "/scenario", "/events", "/queries/where?pawn=r1"):
        r = await client.get(f"/games/{game.id}{path}")
        assert_problem(r, 401, "auth.required")
        assert r.headers["www-authenticate"].startswith("Bearer")
    r = await client.post(f"/games/{game.id}/rulings", json={"kind": "step", "pawn": "r1", "n": 1})
    assert_problem(r, 401, "auth.required")
    r = await client.get(f"/games/{game.id}", headers=game.auth("blue"))
    assert r.status_code == 200 and r.json()["seat"] == "blue"


async def test_bad_tokens_are_401(client: httpx.AsyncClient, game: Game) -> None:
    other = await new_game(client)
    cases = {
        "Bearer not-a-token": "auth.invalid_token",
        f"Bearer {other.seats['red']}": "auth.invalid_token",  # a seat of another game
        "Basic dXNlcjpwdw==": "auth.malformed",
        "Bearer ": "auth.malformed",
    }
    for header, code in cases.items():
        r = await client.get(f"/games/{game.id}", headers={"Authorization": header})
        assert_problem(r, 401, code)


async def test_unknown_game_is_404(client: httpx.AsyncClient, game: Game) -> None:
    for method, path in [
        ("GET", "/games/nope"),
        ("GET", "/games/00000000-0000-0000-0000-000000000000/scenario"),
        ("GET", "/games/nope/events"),
        ("GET", "/games/nope/queries/where"),
        ("POST", "/games/nope/rulings"),
        ("POST", "/games/nope/actions"),
    ]:
        r = await client.request(
            method, path, json={"kind": "step", "pawn": "r1", "n": 1}, headers=game.act("red", 1)
        )
        assert_problem(r, 404, "game.not_found")


async def test_scenario_endpoint(client: httpx.AsyncClient, game: Game) -> None:
    r = await client.get(f"/games/{game.id}/scenario")
    assert r.status_code == 200
    body = r.json()
    assert body["scenario"] == scenario()
    assert body["board"]["owners"] == {"r1": "red", "b1": "blue"}
    assert len(body["digest"]) == 64


async def test_rulesets_endpoints(client: httpx.AsyncClient) -> None:
    r = await client.get("/rulesets")
    assert r.status_code == 200
    assert "tiny" in {x["id"] for x in r.json()}
    r = await client.get("/rulesets/tiny")
    body = r.json()
    assert body["version"] == "1.0"
    assert [s["id"] for s in body["catalog"]] == ["1", "2", "2.1", "3", "4", "5", "6", "7"]
    assert body["interpretations"][0]["id"] == "tiny.edge-wraps"
    assert body["interpretations"][0]["option"] == "wrap"
    assert set(body["schemas"]["actions"]) == {"step", "reset", "note", "probe", "roll"}
    assert "length" in body["schemas"]["scenario"]["properties"]
    assert "wrap" in body["schemas"]["options"]["properties"]
    assert {q["name"] for q in body["queries"]} == {"where", "reach"}
    assert body["example_scenario"] == scenario()
    assert_problem(await client.get("/rulesets/chess"), 404, "ruleset.not_found")


async def test_healthz_and_openapi(client: httpx.AsyncClient) -> None:
    r = await client.get("/healthz")
    assert r.json() == {"status": "ok", "database": "ok"}
    spec = (await client.get("/openapi.json")).json()
    op = spec["paths"]["/games/{game_id}/actions"]["post"]
    assert {"201", "401", "403", "404", "412", "413", "422", "428"} <= set(op["responses"])
    assert "application/problem+json" in op["responses"]["412"]["content"]
    assert "application/json" not in op["responses"]["412"]["content"]
    assert spec["components"]["securitySchemes"]["SeatToken"]["scheme"] == "bearer"
    assert_problem(await client.get("/no/such/route"), 404, "route.not_found")
    assert_problem(await client.put("/games"), 405, "method.not_allowed")
