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
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.api.fast import FastRoutes
from app.config import Settings
from app.main import create_app

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "zoc" / "seed-example.json"
NOW = 1_800_000_000.0
pytestmark = pytest.mark.anyio


def _fast_routes(app: FastAPI) -> FastRoutes:
    layer: Any = app.middleware_stack
    while layer is not None and not isinstance(layer, FastRoutes):
        layer = getattr(layer, "app", None)
    assert isinstance(layer, FastRoutes)
    return layer


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
    ]
    for method, path, headers, body in requests:
        a = await fast.request(method, path, headers=headers, content=body)
        b = await slow.request(method, path, headers=headers, content=body)
        assert _answer(a) == _answer(b), (method, path, headers, body)
    # the plain ones were served by the fast path (the test compares two paths, not one)
    assert _fast_routes(fast_app).served >= 9
    # two Authorization headers: handed on, the route decides (the first one counts)
    twice = [("Authorization", f"Bearer {seats['umpire']}"), ("Authorization", "Bearer x")]
    a = await fast.get(f"/games/{gid}", headers=twice)
    b = await slow.get(f"/games/{gid}", headers=twice)
    assert _answer(a) == _answer(b)
