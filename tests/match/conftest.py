"""Fixtures of the match-flow API tests: an app on a fresh database with a fake time source
(``clock``, advanced by the clock tests; nothing ever waits) and an in-process client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.match.flowkit import FakeClock


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def app(db_url: str, clock: FakeClock) -> Iterator[FastAPI]:
    application = create_app(Settings(database_url=db_url), clock=clock)
    yield application
    application.state.engine.dispose()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as c:
        yield c
