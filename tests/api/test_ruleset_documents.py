"""``GET /rulesets``, ``/rulesets/{id}``, ``/rulesets/{id}/openapi.json``: built once per ruleset
id and version, the same bytes as before, a strong ETag, 304 on ``If-None-Match``."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.api import ruleset_openapi, static_docs
from app.rules import registry
from app.service import rulesets as uc
from app.service.results import RulesetInfo, RulesetSummary

pytestmark = pytest.mark.anyio

PATHS = ["/rulesets", "/rulesets/zoc", "/rulesets/terrain", "/rulesets/zoc/openapi.json"]


def _before() -> FastAPI:
    """The routes as they were: the document built and serialised by FastAPI per request."""
    app = FastAPI()

    @app.get("/rulesets", response_model=list[RulesetSummary])
    def list_rulesets() -> list[RulesetSummary]:
        return uc.list_rulesets()

    @app.get("/rulesets/{ruleset_id}", response_model=RulesetInfo)
    def describe(ruleset_id: str) -> RulesetInfo:
        return uc.describe_ruleset(ruleset_id)

    @app.get("/rulesets/{ruleset_id}/openapi.json")
    def openapi(ruleset_id: str) -> Any:
        return ruleset_openapi.document(ruleset_id)

    return app


@pytest.fixture(autouse=True)
def _fresh() -> Any:
    static_docs.clear()
    yield
    static_docs.clear()


@pytest.mark.parametrize("path", PATHS)
async def test_body_byte_identical_to_before(client: httpx.AsyncClient, path: str) -> None:
    transport = httpx.ASGITransport(app=_before())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as old:
        expected = await old.get(path)
    first = await client.get(path)
    again = await client.get(path)  # served from the built document
    assert expected.status_code == first.status_code == again.status_code == 200
    assert first.content == expected.content
    assert again.content == expected.content
    assert first.headers["content-type"] == "application/json"
    etag = first.headers["etag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    assert again.headers["etag"] == etag


@pytest.mark.parametrize("path", PATHS)
async def test_if_none_match_answers_304(client: httpx.AsyncClient, path: str) -> None:
    etag = (await client.get(path)).headers["etag"]
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        r = await client.get(path, headers={"If-None-Match": header})
        assert r.status_code == 304, header
        assert r.content == b""
        assert r.headers["etag"] == etag
    r = await client.get(path, headers={"If-None-Match": '"something-else"'})
    assert r.status_code == 200
    assert r.headers["etag"] == etag


@pytest.mark.parametrize("path", ["/rulesets", "/rulesets/zoc", "/rulesets/zoc/openapi.json"])
async def test_new_version_new_etag(
    client: httpx.AsyncClient, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = await client.get(path)
    monkeypatch.setattr(registry.get("zoc"), "version", "99.0.0-test")
    after = await client.get(path)
    assert after.status_code == 200
    assert after.headers["etag"] != before.headers["etag"]
    assert b"99.0.0-test" in after.content
    r = await client.get(path, headers={"If-None-Match": before.headers["etag"]})
    assert r.status_code == 200


async def test_unknown_ruleset_is_still_404(client: httpx.AsyncClient) -> None:
    for path in ("/rulesets/nope", "/rulesets/nope/openapi.json"):
        r = await client.get(path)
        assert r.status_code == 404
        assert r.json()["type"].endswith("ruleset_not_found") or "ruleset" in r.text
