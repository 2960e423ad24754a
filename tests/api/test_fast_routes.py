"""The fast path (app/api/fast.py) answers byte for byte as the FastAPI routes do.

Two apps on one database, one serving GET game, dry runs and /healthz through
:class:`app.api.fast.FastRoutes` and one with it off (``REFEREE_FAST_ROUTES=false``), the same
fixed clock: every request below -- plain ones the fast path serves and every kind it must
hand on (malformed or repeated credentials, query strings, odd content types, bodies that are
not objects, unknown games, refusals) -- gets the same status, headers and body from both.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from fastapi import FastAPI

from app.api.fast import FastRoutes
from app.config import Settings
from app.main import create_app

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "zoc" / "seed-example.json"
NOW = 1_800_000_000.0
MAX_BODY = Settings().max_body_bytes
pytestmark = pytest.mark.anyio


def _fast_routes(app: FastAPI) -> FastRoutes:
    front = getattr(app, "front", None)
    assert isinstance(front, FastRoutes)
    return front


@pytest.fixture
async def apps(db_url: str) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI]]:
    fast = create_app(Settings(database_url=db_url), clock=lambda: NOW)
    slow = create_app(Settings(database_url=db_url, fast_routes=False), clock=lambda: NOW)
    base = "http://referee.test"
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=fast), base_url=base) as f,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=slow), base_url=base) as s,
    ):
        yield f, s, fast
    fast.state.engine.dispose()
    slow.state.engine.dispose()


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for at in range(0, len(body), 65536):
        yield body[at : at + 65536]


def _answer(r: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    return r.status_code, r.headers.multi_items(), r.content


async def test_fast_and_full_routes_answer_alike(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    fast, slow, fast_app = apps
    scenario = json.loads(SEED.read_text())
    created = await slow.post("/games", json={"ruleset": "zoc", "scenario": scenario})
    assert created.status_code == 201, created.text
    game = created.json()
    gid, seats = game["id"], game["seats"]
    private = await slow.post(
        "/games", json={"ruleset": "zoc", "scenario": scenario, "public": False}
    )
    pid = private.json()["id"]
    umpire = {"Authorization": f"Bearer {seats['umpire']}"}
    side = next(s for s in seats if s != "umpire")
    player = {"Authorization": f"Bearer {seats[side]}"}
    etag = (await slow.get(f"/games/{gid}")).headers["etag"]
    legal = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}
    illegal = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e0101"]}
    jsonct = {"Content-Type": "application/json"}
    requests: list[tuple[str, str, dict[str, str], bytes | None]] = [
        ("GET", "/healthz", {}, None),
        ("GET", "/healthz?x=1", {}, None),
        ("GET", f"/games/{gid}", {}, None),
        ("GET", f"/games/{gid}", umpire, None),
        ("GET", f"/games/{gid}", player, None),
        ("GET", f"/games/{gid}", {"If-None-Match": etag}, None),
        ("GET", f"/games/{gid}", {"If-None-Match": 'W/"999"', **umpire}, None),
        ("GET", f"/games/{gid}", {"If-None-Match": "*"}, None),
        ("GET", f"/games/{gid}", {"If-None-Match": "garbage"}, None),
        ("GET", f"/games/{gid}", {"Authorization": "Bearer nope"}, None),
        ("GET", f"/games/{gid}", {"Authorization": "Bearer "}, None),
        ("GET", f"/games/{gid}", {"Authorization": "Basic abc"}, None),
        ("GET", f"/games/{gid}", {"Authorization": "bearer  " + seats["umpire"] + "  "}, None),
        ("GET", f"/games/{gid}?x=1", {}, None),
        ("GET", f"/games/{gid}/", {}, None),
        ("GET", f"/v1/games/{gid}", umpire, None),
        ("GET", f"/games/{gid.upper()}", {}, None),
        ("GET", "/games/00000000-0000-0000-0000-000000000000", {}, None),
        ("GET", f"/games/{pid}", {}, None),
        ("POST", f"/games/{gid}/rulings", jsonct, json.dumps(legal).encode()),
        ("POST", f"/games/{gid}/rulings", {**jsonct, **player}, json.dumps(legal).encode()),
        ("POST", f"/games/{gid}/rulings", jsonct, json.dumps(illegal).encode()),
        ("POST", f"/v1/games/{gid}/rulings", jsonct, json.dumps(legal).encode()),
        ("POST", f"/games/{gid}/rulings", jsonct, b"[1, 2]"),
        ("POST", f"/games/{gid}/rulings", jsonct, b"{not json"),
        ("POST", f"/games/{gid}/rulings", jsonct, b"[" * 100_000 + b"]" * 100_000),
        ("POST", f"/games/{gid}/rulings", jsonct, b""),
        ("POST", f"/games/{gid}/rulings", jsonct, b'{"kind": "nothing"}'),
        ("POST", f"/games/{gid}/rulings", {"Content-Type": "text/plain"}, b"{}"),
        (
            "POST",
            f"/games/{gid}/rulings",
            {"Content-Type": "application/json; charset=utf-8"},
            json.dumps(legal).encode(),
        ),
        ("POST", f"/games/{pid}/rulings", jsonct, json.dumps(legal).encode()),
        ("POST", f"/games/{gid}/rulings?x=1", jsonct, json.dumps(legal).encode()),
        # the middlewares' work, done by the front for what it serves
        ("GET", "/v1/healthz", {}, None),
        ("GET", f"/v1/games/{gid}", {"If-None-Match": etag}, None),
        ("GET", f"/v1/games/{gid}/", {}, None),
        ("GET", f"/games/{gid}", {}, b"x" * (MAX_BODY + 1)),  # 413: read by the limit
        ("GET", "/healthz", {}, b"x" * (MAX_BODY + 1)),
        ("GET", f"/games/{gid}", {}, b"x" * 10),  # a body in the limit: ignored
        ("POST", f"/games/{gid}/rulings", jsonct, b"{" + b" " * MAX_BODY + b"}"),  # 413
        ("POST", f"/games/{gid}/rulings", jsonct, b"{" + b" " * (MAX_BODY - 2) + b"}"),
        ("POST", f"/games/{gid}/rulings", {**jsonct, "Content-Length": "+7"}, b"{\n\n\n\n\n}"),
    ]
    for method, path, headers, body in requests:
        a = await fast.request(method, path, headers=headers, content=body)
        b = await slow.request(method, path, headers=headers, content=body)
        assert _answer(a) == _answer(b), (method, path, headers, body)
    # streamed (chunked) bodies are the body-limit middleware's to read: handed on
    for body in (json.dumps(legal).encode(), b"{" + b" " * MAX_BODY + b"}"):
        a = await fast.post(f"/games/{gid}/rulings", headers=jsonct, content=_chunks(body))
        b = await slow.post(f"/games/{gid}/rulings", headers=jsonct, content=_chunks(body))
        assert a.request.headers["transfer-encoding"] == "chunked"
        assert _answer(a) == _answer(b)
    # the plain ones were served by the fast path (the test compares two paths, not one)
    assert _fast_routes(fast_app).served >= 12
    # two Authorization headers: handed on, the route decides (the first one counts)
    twice = [("Authorization", f"Bearer {seats['umpire']}"), ("Authorization", "Bearer x")]
    a = await fast.get(f"/games/{gid}", headers=twice)
    b = await slow.get(f"/games/{gid}", headers=twice)
    assert _answer(a) == _answer(b)


async def test_fast_and_full_submissions_answer_alike(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
) -> None:
    """The same requests, in the same order, on two games alike: one played through the fast
    path, one through the routes; every answer equal once the game ids are swapped."""
    fast, slow, fast_app = apps
    scenario = json.loads(SEED.read_text())
    games = []
    for client in (fast, slow):
        created = await client.post("/games", json={"ruleset": "zoc", "scenario": scenario})
        assert created.status_code == 201, created.text
        games.append(created.json())
    move = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307"]}
    follow = {"kind": "move", "unit": "de-inf-2", "path": ["e3207"]}
    illegal = {"kind": "move", "unit": "de-inf-1", "path": ["e3207", "e3307", "e3407"]}
    soviet = {"kind": "move", "unit": "su-18a", "path": ["e3305"]}
    jsonct = {"Content-Type": "application/json"}

    def steps(game: dict[str, Any]) -> list[tuple[str, dict[str, str], bytes]]:
        gid, seats = game["id"], game["seats"]
        axis = {**jsonct, "Authorization": f"Bearer {seats['axis']}"}
        other = {**jsonct, "Authorization": f"Bearer {seats['soviet']}"}
        umpire = {**jsonct, "Authorization": f"Bearer {seats['umpire']}"}
        at = f"/games/{gid}/actions"
        return [
            (at, axis, json.dumps(move).encode()),  # 428
            (at, {**jsonct, "Authorization": "Bearer nope", "If-Match": 'W/"1"'}, b"{}"),
            (at, {**axis, "If-Match": 'W/"9"'}, json.dumps(move).encode()),  # 412
            (at, {**axis, "If-Match": 'W/"1"'}, json.dumps(illegal).encode()),  # 422 ruling
            (at, {**other, "If-Match": 'W/"1"'}, json.dumps(move).encode()),  # 403
            (at, {**axis, "If-Match": 'W/"1"'}, json.dumps({"kind": "fly"}).encode()),
            (at, {**axis, "If-Match": 'W/"1"', "Idempotency-Key": "a b"}, b"{}"),  # 422
            (at, {**axis, "If-Match": 'W/"1"'}, b"[1]"),
            (at, {**axis, "If-Match": 'W/"1"'}, b"{oops"),
            (at, {**axis, "If-Match": 'W/"1"'}, b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
            (at, {**axis, "If-Match": 'W/"1"', "Content-Type": "text/plain"}, b"{}"),
            (at, {**umpire, "If-Match": 'W/"1"', "Referee-Dice": "x"}, json.dumps(move).encode()),
            (at + "?x=1", {**axis, "If-Match": 'W/"1"'}, json.dumps(soviet).encode()),
            (
                "/v1" + at,  # accepted: its Location given the prefix back
                {**axis, "If-Match": 'W/"1"', "Idempotency-Key": "k1", "Prefer": "return=minimal"},
                json.dumps(move).encode(),
            ),
            (
                at,
                {**axis, "If-Match": 'W/"1"', "Idempotency-Key": "k1", "Prefer": "return=minimal"},
                json.dumps(move).encode(),
            ),  # replayed
            (
                at,
                {**axis, "If-Match": 'W/"2"', "Idempotency-Key": "k1"},
                json.dumps(follow).encode(),
            ),
            (
                at,
                {**axis, "If-Match": 'W/"2"', "Referee-Client-Seed": "abc"},
                json.dumps(follow).encode(),
            ),
            (
                "/games/00000000-0000-0000-0000-000000000000/actions",
                {**axis, "If-Match": 'W/"1"'},
                json.dumps(move).encode(),
            ),
        ]

    a_id, b_id = games[0]["id"], games[1]["id"]
    for (path_a, head_a, body_a), (path_b, head_b, body_b) in zip(
        steps(games[0]), steps(games[1]), strict=True
    ):
        a = await fast.post(path_a, headers=head_a, content=body_a)
        b = await slow.post(path_b, headers=head_b, content=body_b)
        status_b, headers_b, content_b = _answer(b)
        swapped = (
            status_b,
            [(k, v.replace(b_id, a_id)) for k, v in headers_b],
            content_b.replace(b_id.encode(), a_id.encode()),
        )
        assert _answer(a) == swapped, (path_a, head_a, body_a, a.text, b.text)
    assert _fast_routes(fast_app).served >= 10
    # the two games stand alike, both at version 3
    states = [
        (await c.get(f"/games/{g['id']}")).json() for c, g in zip((fast, slow), games, strict=True)
    ]
    assert states[0]["version"] == states[1]["version"] == 3
    assert states[0]["state"] == states[1]["state"]


async def test_front_does_the_cors_and_rate_limit_middlewares_work(db_url: str) -> None:
    """With CORS and both rate limits on, the front serves the plain requests with the CORS
    headers, charges them once and refuses them with the limiter's own answers, as the
    middlewares do for the routes."""
    settings: dict[str, Any] = {
        "database_url": db_url,
        "cors_origins": ["https://table.example"],
        "rate_limit_per_ip": 0.001,
        "rate_limit_ip_burst": 9,
        "rate_limit_per_token": 0.001,
        "rate_limit_token_burst": 4,
    }
    fast_app = create_app(Settings(**settings), clock=lambda: NOW)
    slow_app = create_app(Settings(**settings, fast_routes=False), clock=lambda: NOW)
    plain_app = create_app(Settings(database_url=db_url), clock=lambda: NOW)
    scenario = json.loads(SEED.read_text())
    base = "http://referee.test"
    # one game, on the database both apps serve (each charging its own buckets)
    transport = httpx.ASGITransport(app=plain_app)
    async with httpx.AsyncClient(transport=transport, base_url=base) as plain:
        created = await plain.post("/games", json={"ruleset": "zoc", "scenario": scenario})
    plain_app.state.engine.dispose()
    assert created.status_code == 201, created.text
    game = created.json()
    try:
        async with (
            httpx.AsyncClient(transport=httpx.ASGITransport(app=fast_app), base_url=base) as f,
            httpx.AsyncClient(transport=httpx.ASGITransport(app=slow_app), base_url=base) as s,
        ):
            origin = {"Origin": "https://table.example"}
            elsewhere = {"Origin": "https://elsewhere.example"}
            legal = json.dumps({"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]})
            jsonct = {"Content-Type": "application/json"}

            gid = game["id"]
            umpire = {"Authorization": f"Bearer {game['seats']['umpire']}"}
            steps: list[tuple[str, str, dict[str, str], str | None]] = [
                ("GET", "/healthz", origin, None),
                ("GET", f"/games/{gid}", origin, None),  # the IP charged: 1
                ("GET", f"/games/{gid}", elsewhere, None),
                ("GET", f"/v1/games/{gid}", {}, None),
                ("POST", f"/games/{gid}/rulings", {**jsonct, **origin}, legal),
                ("POST", f"/games/{gid}/rulings", {**jsonct, **umpire, **origin}, legal),  # token 1
                ("GET", f"/games/{gid}", {**umpire, **origin}, None),
                ("GET", f"/games/{gid}", umpire, None),
                ("GET", f"/games/{gid}", {**umpire, **origin}, None),  # IP 8, token 4 (its last)
                ("POST", f"/games/{gid}/rulings", {**jsonct, **umpire}, legal),  # the token: 429
                ("GET", f"/games/{gid}", origin, None),  # the IP (10): 429
                ("GET", f"/games/{gid}", origin, None),
                ("POST", f"/v1/games/{gid}/rulings", {**jsonct, **origin}, legal),
                ("GET", "/healthz", origin, None),  # exempt
            ]

            statuses = []
            for method, path, headers, body in steps:
                a = await f.request(method, path, headers=headers, content=body)
                b = await s.request(method, path, headers=headers, content=body)
                assert _answer(a) == _answer(b), (method, path, headers, a.text, b.text)
                statuses.append(a.status_code)
            assert statuses.count(429) == 4, statuses
            assert 200 in statuses
            assert _fast_routes(fast_app).served >= 6
    finally:
        fast_app.state.engine.dispose()
        slow_app.state.engine.dispose()


async def test_front_answers_an_unhandled_error_as_the_server_error_middleware(
    apps: tuple[httpx.AsyncClient, httpx.AsyncClient, FastAPI],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An exception no handler takes, in a request the front serves: the same 500
    problem+json (without the API version header: that middleware is inside the server-error
    one), and the exception raised on to the server, which logs it."""
    fast, slow, fast_app = apps
    scenario = json.loads(SEED.read_text())
    created = await slow.post("/games", json={"ruleset": "zoc", "scenario": scenario})
    gid = created.json()["id"]

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a fault the handlers do not know")

    from app.service import actions, games

    monkeypatch.setattr(actions, "dry_run", broken)
    monkeypatch.setattr(games, "read_game", broken)
    slow_app = cast(FastAPI, cast(httpx.ASGITransport, slow._transport).app)
    transports = [
        httpx.ASGITransport(app=app, raise_app_exceptions=False) for app in (fast_app, slow_app)
    ]
    body = json.dumps({"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]})
    before = _fast_routes(fast_app).served
    for method, path, content in (
        ("GET", f"/games/{gid}", None),
        ("GET", f"/v1/games/{gid}", None),
        ("POST", f"/games/{gid}/rulings", body),
    ):
        answers = []
        for transport in transports:
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                answers.append(
                    await client.request(
                        method,
                        path,
                        content=content,
                        headers={"Content-Type": "application/json"},
                    )
                )
        assert answers[0].status_code == 500
        assert answers[0].json()["code"] == "internal"
        assert "referee-api-version" not in answers[0].headers
        assert _answer(answers[0]) == _answer(answers[1])
    # taken by the front (not handed on) and raised to the server, as the routes' are
    assert _fast_routes(fast_app).served == before
    with pytest.raises(RuntimeError, match="handlers do not know"):
        await fast.get(f"/games/{gid}")


async def test_an_unknown_middleware_turns_the_front_off(db_url: str) -> None:
    """The front does the work of the middlewares it knows; with any other in the stack it
    hands every request on."""
    seen: list[str] = []

    class Counting:
        def __init__(self, app: Any) -> None:
            self.app = app

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                seen.append(scope["path"])
            await self.app(scope, receive, send)

    app = create_app(Settings(database_url=db_url), clock=lambda: NOW)
    app.add_middleware(Counting)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            assert (await client.get("/healthz")).status_code == 200
            assert (
                await client.get(f"/games/{'0' * 8}-0000-0000-0000-{'0' * 12}")
            ).status_code == 404
    finally:
        app.state.engine.dispose()
    assert seen == ["/healthz", f"/games/{'0' * 8}-0000-0000-0000-{'0' * 12}"]
    assert _fast_routes(app).served == 0
