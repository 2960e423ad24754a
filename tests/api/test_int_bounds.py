"""Integer parameters are bounded to the int4 range (0..2_147_483_647) on both databases:
a value past it is a 422 problem naming the parameter, never a database overflow (500) nor a
stream that answers 200 and then dies."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.service.errors import INT4_MAX
from tests.api.conftest import Game

pytestmark = pytest.mark.anyio

PROBLEM = "application/problem+json"
HUGE = "99999999999999999999999"
JUST_OVER = str(INT4_MAX + 1)


def invalid(r: httpx.Response, where: str, code: str = "request.invalid") -> dict[str, Any]:
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == PROBLEM
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    assert where in [e["location"] for e in body["errors"]], body
    return body


@pytest.mark.parametrize("value", [HUGE, JUST_OVER])
async def test_events_list_bounds_after_and_limit(
    client: httpx.AsyncClient, game: Game, value: str
) -> None:
    url = f"/games/{game.id}/events"
    invalid(await client.get(url, params={"after": value}), "/after")
    invalid(await client.get(url, params={"limit": value}), "/limit")
    ok = await client.get(url, params={"after": INT4_MAX, "limit": INT4_MAX})
    assert ok.status_code == 200, ok.text
    assert ok.json()["items"] == []


@pytest.mark.parametrize("value", [HUGE, JUST_OVER])
async def test_single_event_bounds_seq(client: httpx.AsyncClient, game: Game, value: str) -> None:
    invalid(await client.get(f"/games/{game.id}/events/{value}"), "/seq")
    r = await client.get(f"/games/{game.id}/events/{INT4_MAX}")
    assert r.status_code == 404 and r.json()["code"] == "event.not_found", r.text


@pytest.mark.parametrize("value", [HUGE, JUST_OVER])
async def test_stream_bounds_after_and_last_event_id(
    client: httpx.AsyncClient, game: Game, value: str
) -> None:
    url = f"/games/{game.id}/events/stream"
    invalid(await client.get(url, params={"after": value}), "/after")
    invalid(
        await client.get(url, headers={"Last-Event-ID": value}),
        "/Last-Event-ID",
        code="stream.invalid_cursor",
    )
    invalid(
        await client.get(url, headers={"Last-Event-ID": "9" * 5000}),
        "/Last-Event-ID",
        code="stream.invalid_cursor",
    )


@pytest.mark.parametrize("value", [int(HUGE), INT4_MAX + 1])
async def test_rollback_bounds_to_version(
    client: httpx.AsyncClient, game: Game, value: int
) -> None:
    r = await client.post(
        f"/games/{game.id}/rollback", json={"to_version": value}, headers=game.act("umpire", 1)
    )
    invalid(r, "/to_version")
    in_range = await client.post(
        f"/games/{game.id}/rollback", json={"to_version": INT4_MAX}, headers=game.act("umpire", 1)
    )
    assert in_range.status_code == 422, in_range.text
    assert in_range.json()["code"] == "rollback.bad_version"
