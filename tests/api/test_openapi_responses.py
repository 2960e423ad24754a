"""The OpenAPI document lists, for every operation, the error statuses its handler, the
dependencies, the body-size middleware and the exception handlers can answer (both databases:
the document is read over HTTP from an app on each)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

TOKENS_AND_WEBHOOKS = {
    ("post", "/games/{game_id}/tokens"),
    ("get", "/games/{game_id}/tokens"),
    ("delete", "/games/{game_id}/tokens/{token_id}"),
    ("post", "/games/{game_id}/tokens/rotate"),
    ("post", "/games/{game_id}/seats/{seat}/token"),
    ("post", "/games/{game_id}/webhooks"),
    ("get", "/games/{game_id}/webhooks"),
    ("delete", "/games/{game_id}/webhooks/{webhook_id}"),
    ("get", "/games/{game_id}/webhooks/{webhook_id}/deliveries"),
    ("post", "/games/{game_id}/emails"),
    ("get", "/games/{game_id}/emails"),
    ("post", "/games/{game_id}/seats/{seat}/invite"),
    ("delete", "/games/{game_id}/emails/{email_id}"),
    ("get", "/games/{game_id}/emails/{email_id}/deliveries"),
}
"""Token, webhook and email operations: they check the seat (403) and never load the
ruleset."""

NO_RULESET_LOAD = {
    ("get", "/games/{game_id}/scenario"),
    ("get", "/games/{game_id}/events"),
    ("get", "/games/{game_id}/events/{seq}"),
    ("get", "/games/{game_id}/appeals"),
    *TOKENS_AND_WEBHOOKS,
}
"""Operations under /games/{game_id} that never load the game's ruleset (so never 503)."""

SEAT_CHECKED = {
    ("post", "/games/{game_id}/actions"),
    ("post", "/games/{game_id}/phase/end"),
    ("post", "/games/{game_id}/phase/advance"),
    ("post", "/games/{game_id}/finish"),
    ("post", "/games/{game_id}/dice/reveal"),
    ("get", "/games/{game_id}/dice/verify"),
    ("post", "/games/{game_id}/rollback"),
    ("post", "/games/{game_id}/takeback"),
    ("post", "/games/{game_id}/events/{seq}/appeal"),
    ("post", "/games/{game_id}/appeals/{appeal}/decision"),
    ("post", "/games/{game_id}/sealed/{decision}"),
    ("post", "/games/{game_id}/sealed/{decision}/open"),
    ("get", "/games/{game_id}/audit"),
    *TOKENS_AND_WEBHOOKS,
}
"""Operations that refuse a seat with 403 (not the owner, umpire only, seed sealed...)."""


def expected(method: str, path: str, op: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(statuses the operation must list, statuses it must not list)."""
    must: set[str] = set()
    never: set[str] = set()
    headers = {p["name"] for p in op.get("parameters", []) if p["in"] == "header"}
    has_body = "application/json" in op.get("requestBody", {}).get("content", {})
    if method == "post":
        must |= {"400", "413"}  # BodySizeLimitMiddleware: bad Content-Length, too large
    if has_body:
        must |= {"415", "422"}  # not JSON; invalid body
    else:
        never.add("415")  # only a body that fails validation can be answered 415
    if path.startswith("/games/{game_id}"):
        must |= {"401", "404", "422"}  # bearer token, unknown game, invalid parameters
        if (method, path) not in NO_RULESET_LOAD:
            must.add("503")
    if "If-Match" in headers:
        must |= {"409", "412", "428"}
    else:
        never |= {"412", "428"}
    if (method, path) in SEAT_CHECKED:
        must.add("403")
    return must, never


async def test_every_operation_lists_what_it_can_answer(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    problems: list[str] = []
    seen = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            seen += 1
            listed = set(op["responses"])
            must, never = expected(method, path, op)
            if missing := must - listed:
                problems.append(f"{method.upper()} {path} misses {sorted(missing)}")
            if extra := never & listed:
                problems.append(f"{method.upper()} {path} cannot answer {sorted(extra)}")
            for status in listed:
                if status.startswith(("4", "5")):
                    content = op["responses"][status].get("content", {})
                    assert "application/problem+json" in content, (method, path, status)
    assert seen >= 20
    assert not problems, "\n".join(problems)


async def test_the_body_size_limit_answers_413_on_every_post(client: httpx.AsyncClient) -> None:
    """What the document promises for POSTs, checked on each: an oversized body is 413."""
    doc = (await client.get("/openapi.json")).json()
    game = "00000000-0000-0000-0000-000000000000"
    big = b"[" + b"0," * 20_000 + b"0]"
    for path, item in doc["paths"].items():
        if "post" not in item:
            continue
        url = path.replace("{game_id}", game).replace("{decision}", "bid.r1")
        r = await client.post(url, content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413, (path, r.text)
        assert r.json()["code"] == "request.too_large"
