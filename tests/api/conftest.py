"""An app per test on a fresh database, and an httpx client through ASGITransport."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.support.tiny import TINY

MAX_BODY = 16 * 1024


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, max_body_bytes=MAX_BODY, events_page_max=5)


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    application = create_app(settings)
    yield application
    application.state.engine.dispose()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as c:
        yield c


@dataclass
class Game:
    id: str
    seats: dict[str, str]
    body: dict[str, Any]

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.seats[seat]}"}

    def act(self, seat: str, version: int, **extra: str) -> dict[str, str]:
        return {**self.auth(seat), "If-Match": f'W/"{version}"', **extra}


def scenario() -> dict[str, Any]:
    return TINY.example_scenario() or {}


async def new_game(client: httpx.AsyncClient, **fields: Any) -> Game:
    payload = {"ruleset": "tiny", "scenario": scenario(), **fields}
    r = await client.post("/games", json=payload)
    assert r.status_code == 201, r.text
    body = r.json()
    return Game(id=body["id"], seats=body["seats"], body=body)


@pytest.fixture
async def game(client: httpx.AsyncClient) -> Game:
    return await new_game(client)
