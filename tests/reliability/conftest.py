"""Fixtures of the reliability suite: a real server (uvicorn in a thread) on a fresh database
of each kind, and an in-process ASGI client for the checks that need no socket."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from tests.support.server import running_server

LONG = os.environ.get("REFEREE_RELIABILITY", "").lower() == "long"
"""``make reliability`` sets REFEREE_RELIABILITY=long: full rounds, kills and loads. The short
form (``make test``, CI) runs the same checks with fewer rounds."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def app(db_url: str) -> Iterator[FastAPI]:
    application = create_app(Settings(database_url=db_url))
    yield application
    application.state.engine.dispose()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://referee.test") as c:
        yield c


@pytest.fixture
def server(app: FastAPI) -> Iterator[str]:
    """The base URL of ``app`` served over a real socket."""
    with running_server(app) as url:
        yield url
