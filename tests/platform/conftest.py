"""Issue 13 part B tests run against a real uvicorn server on a loopback port, on SQLite and
PostgreSQL, with the webhook worker on (fast retries, loopback receivers allowed)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.support.server import running_server
from tests.support.tiny import TINY


def platform_settings(db_url: str, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": db_url,
        "sse_keepalive_seconds": 0.3,
        "sse_poll_seconds": 0.2,
        "webhook_poll_seconds": 0.1,
        "webhook_backoff_seconds": 0.05,
        "webhook_allow_private_addresses": True,
        "games_page_max": 3,
        **extra,
    }
    return Settings(**values)


@pytest.fixture
def base_url(db_url: str) -> Iterator[str]:
    app = create_app(platform_settings(db_url))
    with running_server(app) as url:
        yield url


@pytest.fixture
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=30) as c:
        yield c


@dataclass
class Game:
    id: str
    seats: dict[str, str]
    http: httpx.Client

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}"}

    def write(self, seat: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
        return self.http.post(
            f"/games/{self.id}{path}",
            json=body,
            headers={**self.auth(seat), "If-Match": "*", **headers},
        )

    def step(self, seat: str, pawn: str, n: int) -> dict[str, Any]:
        r = self.write(seat, "/actions", {"kind": "step", "pawn": pawn, "n": n})
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
        return body

    def end_phase(self, seat: str) -> dict[str, Any]:
        r = self.write(seat, "/phase/end")
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
        return body


def new_game(
    http: httpx.Client, *, public: bool = True, sequence: bool = False, ruleset: str = "tiny"
) -> Game:
    scenario = dict(TINY.example_scenario() or {})
    if sequence:
        scenario["sequence"] = True
    r = http.post("/games", json={"ruleset": ruleset, "scenario": scenario, "public": public})
    assert r.status_code == 201, r.text
    return Game(r.json()["id"], r.json()["seats"], http)
