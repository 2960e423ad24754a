"""Fixtures of the reliability suite: the match-flow fixtures (an app on a fresh database of
each kind, a fake clock, an in-process ASGI client) and the same app served over a real socket
(uvicorn in a thread)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from fastapi import FastAPI

from tests.match.conftest import anyio_backend, app, client, clock
from tests.support.server import running_server

LONG = os.environ.get("REFEREE_RELIABILITY", "").lower() == "long"
"""``make reliability`` sets REFEREE_RELIABILITY=long: full rounds, kills and loads. The short
form (``make test``, CI) runs the same checks with fewer rounds."""


@pytest.fixture
def server(app: FastAPI) -> Iterator[str]:
    """The base URL of ``app`` served over a real socket."""
    with running_server(app) as url:
        yield url


__all__ = ["LONG", "anyio_backend", "app", "client", "clock", "server"]
