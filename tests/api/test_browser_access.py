"""Browser access without a browser: CORS preflights and headers per settings, and the
interactive docs served from packaged assets (no CDN). The headless-Chromium test of a page on
another origin playing a game is tests/api/test_browser_page.py."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from app.api.browser import EXPOSED_HEADERS
from app.config import Settings
from app.main import create_app

pytestmark = pytest.mark.anyio

ORIGIN = "http://front.example"
SEED = Path(__file__).resolve().parents[2] / "scenarios" / "zoc" / "seed-example.json"


@pytest.fixture
async def cors_client(db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=db_url, cors_origins=f"{ORIGIN}, http://other.example"))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as c:
        yield c
    app.state.engine.dispose()


def test_cors_origins_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CORS_ORIGINS", "https://a.example/, https://b.example")
    assert Settings().cors_origins == ["https://a.example", "https://b.example"]
    monkeypatch.setenv("REFEREE_CORS_ORIGINS", '["https://c.example"]')
    assert Settings().cors_origins == ["https://c.example"]
    monkeypatch.delenv("REFEREE_CORS_ORIGINS")
    assert Settings().cors_origins == []


async def test_preflight_of_a_write_is_answered(cors_client: httpx.AsyncClient) -> None:
    r = await cors_client.options(
        "/games/some-id/actions",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, if-match, "
            "idempotency-key",
        },
    )
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == ORIGIN
    assert "POST" in r.headers["access-control-allow-methods"]
    allowed = {h.strip() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "if-match", "idempotency-key"} <= allowed


async def test_a_cross_origin_write_exposes_etag_location_and_replay(
    cors_client: httpx.AsyncClient,
) -> None:
    body = {"ruleset": "zoc", "scenario": json.loads(SEED.read_text())}
    r = await cors_client.post("/games", json=body, headers={"Origin": ORIGIN})
    assert r.status_code == 201
    exposed = {h.strip() for h in r.headers["access-control-expose-headers"].split(",")}
    assert exposed == set(EXPOSED_HEADERS)
    assert {"ETag", "Location", "Idempotent-Replayed", "Referee-Dice-Needed"} <= exposed
    game = r.json()
    move = {"kind": "move", "unit": "de-inf-2", "path": ["e3207", "e3307"]}
    headers = {
        "Origin": ORIGIN,
        "Authorization": f"Bearer {game['seats']['axis']}",
        "If-Match": 'W/"1"',
        "Idempotency-Key": "k1",
    }
    for replayed in (False, True):
        r = await cors_client.post(f"/games/{game['id']}/actions", json=move, headers=headers)
        assert r.status_code == 201
        assert r.headers["access-control-allow-origin"] == ORIGIN
        assert r.headers["etag"] == 'W/"2"' and r.headers["location"].endswith("/events/1")
        assert ("idempotent-replayed" in r.headers) is replayed
    # a problem answer carries the CORS headers too, so the page can read the problem
    r = await cors_client.get("/games/nope", headers={"Origin": ORIGIN})
    assert r.status_code == 404 and r.headers["access-control-allow-origin"] == ORIGIN


async def test_an_origin_not_listed_gets_no_cors_headers(cors_client: httpx.AsyncClient) -> None:
    r = await cors_client.get("/rulesets", headers={"Origin": "http://evil.example"})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    r = await cors_client.options(
        "/games",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert r.status_code == 400 and "access-control-allow-origin" not in r.headers


async def test_no_cors_by_default(client: httpx.AsyncClient) -> None:
    r = await client.get("/rulesets", headers={"Origin": ORIGIN})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    r = await client.options(
        "/games", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST"}
    )
    assert r.status_code == 405


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
async def test_docs_load_only_packaged_assets(client: httpx.AsyncClient, page: str) -> None:
    r = await client.get(page)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", r.text)
    assert urls and all(u.startswith("/docs-assets/") for u in urls), urls
    assert "cdn" not in r.text.lower() and "https://" not in r.text
    for url in urls:
        asset = await client.get(url)
        assert asset.status_code == 200 and len(asset.content) > 1000, url
        assert b"cdn.redoc.ly" not in asset.content, url  # ReDoc's remote logo made local
